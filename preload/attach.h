/* attach.h — the recorder loaded into a running process (hatrace record -p):
 * what hooks.c and recorder.c see of attach.c, and what attach.c needs of them.
 */
#ifndef HT_ATTACH_H
#define HT_ATTACH_H

#include "recorder.h"

/* 1 while the recorder runs in a process it was loaded into late (by
 * hatrace record -p): no LD_PRELOAD interposition, the calls come through
 * rewritten GOT slots; the program's environment and signal actions are
 * left alone. */
extern int ht_attached HT_HIDDEN;
/* 1 when this library comes after the C library in the load order (loaded
 * by dlopen, or an injector), where its symbols interpose nothing: its
 * constructor then starts no trace and waits for hatrace_attach. */
int ht_attach_loaded_late(void) HT_HIDDEN;

/* ---- hooks.c ---- */
/* Start the recorder with the real functions looked up in the global scope
 * (the targets the program's own calls are bound to). */
void ht_attach_start(void) HT_HIDDEN;

/* ---- recorder.c ---- */
/* The end of an attached window: stop the flusher, drain, close the trace; the
 * calling thread lives on (no thread-destroy). */
void ht_finish_window(void) HT_HIDDEN;
/* Before the next window: the process's recorder state as before its first start. */
void ht_window_reset(void) HT_HIDDEN;

/* ---- options.c ---- */
/* Where the options are read from: getenv by default, attach.c's own text once attached. */
void ht_options_from(const char *(*get)(const char *name)) HT_HIDDEN;

#endif /* HT_ATTACH_H */
