/* last_thread.h — whether the thread ending is the program's last (last_thread.c).
 *
 * glibc ends a process with exit(0) when its last thread ends (the main
 * thread may end first, by pthread_exit); the recorder's flusher and helper
 * are threads too, and kept it alive for ever: the process hung with no
 * thread of its own left. The thread that finds itself the last one ends the
 * process as glibc would have (process.c, thread_exit).
 */
#ifndef HT_LAST_THREAD_H
#define HT_LAST_THREAD_H

#include <stdint.h>

#include "prim.h"

/* The recorder's thread of kernel id tid starts (1) or ends (0): it is not
 * the program's. */
void ht_own_thread(uint32_t tid, int starts) HT_HIDDEN;

/* A fork child has none of its parent's threads. */
void ht_last_thread_atfork_child(void) HT_HIDDEN;

/* pre: the calling thread is ending (its ring is HT_RING_EXITING). 1 when
 * every other thread of the process is the recorder's, has ended, or is
 * ending too, and no other ending thread answered 1 before: the caller is to
 * end the process. 0 when no recorder thread runs (glibc's count is then
 * right), the main thread has not ended (it is the first to be asked:
 * the costly look at /proc is taken only after), or a thread of the program
 * goes on. No allocation. */
int ht_last_program_thread(void) HT_HIDDEN;

#endif /* HT_LAST_THREAD_H */
