/* crash.h — the signals a process dies of (crash.c): SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGABRT, SIGTRAP. The note of a signal (the flusher writes it), the
 * handler's installation and a thread's alternate stack (process.c), the
 * hooks' side: the program's signal actions, given and taken as the kernel
 * would (hooks.c); and what the handler asks of the process (process.c). */
#ifndef HT_CRASH_H
#define HT_CRASH_H

#include <signal.h>
#include <stdint.h>

#include "prim.h"

/* A signal as the trace notes it (a comment "hatrace-signal ...", docs/FORMAT.md). */
enum { HT_SIG_FATAL = 0, HT_SIG_HANDLED = 1 };
typedef struct ht_signal_note {
    int sig, code, fate;  /* fate: HT_SIG_FATAL (the process dies of it) or HT_SIG_HANDLED */
    uint64_t addr;        /* si_addr, or the sender's pid when a process sent it (code <= 0) */
    uint64_t tk;          /* when (the ring's time, unshifted) */
    uint64_t tid;         /* the thread it was delivered to (dense id, 0 if it had no ring) */
} ht_signal_note;
/* Put the recorder's handler in place for them, keeping the actions found as
 * the program's (ht_init, when the trace is open). */
void ht_crash_install(void) HT_HIDDEN;
/* A new thread's alternate signal stack, if it has none. pre: untraced.
 * @return its mapping for ht_crash_thread_exit, or NULL. */
void *ht_crash_thread_attach(void) HT_HIDDEN;
void ht_crash_thread_exit(void *stack) HT_HIDDEN;
/* A SIGNAL event's b word (the layout at enum ht_kind): the signal and its fate. */
static inline uint64_t ht_signal_b(const ht_signal_note *n) { return (uint64_t)n->sig | (uint64_t)n->fate << 8; }
#define HT_DEATH_WAIT_NS 5000000000u

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

/* ---- what the handler asks of the process (process.c) ---- */
/* 1 in the process whose trace the recorder writes (0 in a vfork child, which
 * shares its parent's memory). */
int ht_owns_trace(void) HT_HIDDEN;
/* A signal a handler of the program takes:
 * into the thread's ring if it has room now (else counted lost). */
void ht_note_signal(ht_signal_note *n) HT_HIDDEN;
/* The process is about to die of n: the flusher drains every ring, writes the
 * note and closes the trace; this thread waits at most HT_DEATH_WAIT_NS. */
void ht_before_death(ht_signal_note *n) HT_HIDDEN;
/* A handler of SIGABRT returned (or it is ignored): abort() puts SIG_DFL back
 * without a hook and raises it again, so every event goes to the file now
 * (the trace stays open: the program may go on). */
void ht_before_abort(void) HT_HIDDEN;

#endif /* HT_CRASH_H */
