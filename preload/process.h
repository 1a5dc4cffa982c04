/* process.h — the recorder in a process (process.c): its start, a thread's
 * start, and the ends of its trace at exit and exec. The hot path's ways off,
 * which process.c defines too, are declared with the hot path (recorder.h);
 * what the flusher, the crash handler and attach.c call back, in their own
 * headers (flusher.h, crash.h, attach.h). */
#ifndef HT_PROCESS_H
#define HT_PROCESS_H

#include <signal.h>

#include "prim.h"

/* Start the recorder: idempotent, safe from any hook. resolve_real is the
 * shim's lookup of the real functions (hooks.c gives its own): called once,
 * first, on the initialising thread inside its untraced section, so the calls
 * dlsym makes are the recorder's own; NULL when there is none to look up (the
 * unit tests). Only the shim starts the recorder; the core waits with
 * ht_init_wait. A call while another thread initialises waits for it. */
void ht_init(void (*resolve_real)(void)) HT_HIDDEN;
/* Wait for an initialisation under way on another thread; start none. */
void ht_init_wait(void) HT_HIDDEN;
/* Finish this process's trace (exit, exec): stop the flusher, drain, close. */
void ht_finish(void) HT_HIDDEN;

/* Hold every signal on this thread (*old: the mask to set back with
 * pthread_sigmask), around the recorder's own code on a program thread. */
void ht_hold_signals(sigset_t *old) HT_HIDDEN;
/* Thread start (our pthread_create trampoline): attach a ring and record thread-create. */
void ht_thread_begin(void) HT_HIDDEN;
/* Before exec: finish the trace if this process owns it (not in a vfork child). */
void ht_before_exec(void) HT_HIDDEN;
/* Before _exit: have the flusher end the trace, waiting a bounded time (see process.c). */
void ht_before_exit(void) HT_HIDDEN;

#endif /* HT_PROCESS_H */
