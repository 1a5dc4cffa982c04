/* attach.h — the recorder loaded into a running process (hatrace record -p):
 * what hooks.c sees of attach.c, and what attach.c needs of hooks.c and
 * process.c (which call it, or read ht_attached, recorder.h). */
#ifndef HT_ATTACH_H
#define HT_ATTACH_H

#include "prim.h"

/* 1 when this library comes after the C library in the load order (loaded
 * by dlopen, or an injector), where its symbols interpose nothing: its
 * constructor then starts no trace and waits for hatrace_attach. */
int ht_attach_loaded_late(void) HT_HIDDEN;

/* ---- hooks.c ---- */
/* Start the recorder with the real functions looked up in the global scope
 * (the targets the program's own calls are bound to). */
void ht_attach_start(void) HT_HIDDEN;

/* ---- process.c ---- */
/* The end of an attached window: stop the flusher, drain, close the trace; the
 * calling thread lives on (no thread-destroy). */
void ht_finish_window(void) HT_HIDDEN;
/* Before the next window: the process's recorder state as before its first start. */
void ht_window_reset(void) HT_HIDDEN;

#endif /* HT_ATTACH_H */
