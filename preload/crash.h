/* crash.h — the hooks' side of crash.c (the signals a process dies of):
 * the program's signal actions, given and taken as the kernel would. Only
 * hooks.c and crash.c include it (it brings <signal.h>). */
#ifndef HT_CRASH_H
#define HT_CRASH_H

#include <signal.h>

#include "recorder.h"

/* The real sigaction, given by the shim (hooks.c); NULL: nothing installed. */
extern int (*ht_real_sigaction)(int, const struct sigaction *, struct sigaction *) HT_HIDDEN;
/* 1 for the signals crash.c handles. */
int ht_crash_signal(int sig) HT_HIDDEN;
/* The hooks' sigaction, and signal-like calls with the given flags (signal,
 * bsd_signal: SA_RESTART; sysv_signal: SA_RESETHAND | SA_NODEFER). */
int ht_crash_sigaction(int sig, const struct sigaction *act, struct sigaction *old) HT_HIDDEN;
sighandler_t ht_crash_signal_fn(int sig, sighandler_t h, int flags) HT_HIDDEN;
/* Around exec: ignored signals handed on as ignored (failed = 0), and the
 * recorder's handler back after an exec that failed (failed = 1). */
void ht_crash_exec(int failed) HT_HIDDEN;

#endif /* HT_CRASH_H */
