/* crash.c — the signals a process dies of with a core: SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE, SIGABRT and SIGTRAP. The trace is closed, with every event
 * of every ring, before the process dies of one, and the program sees its
 * own signal handling as without hatrace.
 *
 * The recorder's handler stays the kernel's for these signals. The program's
 * actions are kept here: the hooks of sigaction, signal, bsd_signal and
 * sysv_signal (hooks.c) store and report them as the kernel would, and put
 * the program's mask and flags on the recorder's handler, so the kernel
 * applies them at delivery. On a signal:
 *   a handler of the program  the signal is noted in the trace (a comment
 *                             "hatrace-signal ... handled") and the handler
 *                             called; a handler that returns from SIGABRT is
 *                             followed by abort()'s own SIG_DFL, which no hook
 *                             sees, so every event reaches the file first
 *                             (ht_before_abort)
 *   SIG_IGN                   nothing, as the kernel (but a fault: the kernel
 *                             does not ignore those, and neither does this)
 *   SIG_DFL                   the trace is closed with the signal noted
 *                             (ht_before_death: by the flusher, bounded), the
 *                             default put back, and the process dies of the
 *                             signal: a fault by returning to the instruction
 *                             that faulted (its core shows it), any other by
 *                             sending the signal again.
 * Every traced thread gets an alternate signal stack of its own unless it has
 * one, so a thread that overflows its stack still reaches the handler; the
 * handler runs on it (SA_ONSTACK) whatever flags the program gave.
 * Nothing here allocates or takes a lock a faulting thread may hold.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crash.h"
#include "prim.h"

int (*ht_real_sigaction)(int, const struct sigaction *, struct sigaction *);

enum { NSIGS = 65, ALTSTACK_BYTES = 64 * 1024 };

/* The program's action of each signal, read by the handler without a lock:
 * a sequence count, odd while a writer changes it. Writers take prog_lock
 * with every signal blocked, so a handler never spins on its own thread. */
static struct sigaction prog[NSIGS];
static _Atomic uint32_t prog_seq[NSIGS];
static atomic_flag prog_lock = ATOMIC_FLAG_INIT;
static _Atomic int installed;

int ht_crash_signal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP;
}

static void read_action(int sig, struct sigaction *out)
{
    for (;;) {
        uint32_t s = atomic_load_explicit(&prog_seq[sig], memory_order_acquire);
        if (s & 1) {
            sched_yield();
            continue;
        }
        memcpy(out, &prog[sig], sizeof *out);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&prog_seq[sig], memory_order_relaxed) == s) return;
    }
}

static void on_signal(int sig, siginfo_t *si, void *uc);

/* The kernel's action for the program's pa: the recorder's handler with the
 * program's mask and flags. Under the default action or SIG_IGN every signal
 * is blocked while the trace is closed. */
static void kernel_action(const struct sigaction *pa, struct sigaction *k)
{
    memset(k, 0, sizeof *k);
    k->sa_sigaction = on_signal;
    k->sa_flags = SA_SIGINFO | SA_ONSTACK;
    if (pa->sa_handler == SIG_DFL || pa->sa_handler == SIG_IGN) {
        sigfillset(&k->sa_mask);
        return;
    }
    k->sa_mask = pa->sa_mask;
    k->sa_flags |= pa->sa_flags & (SA_RESTART | SA_NODEFER);
    if (pa->sa_flags & SA_RESETHAND) k->sa_flags |= SA_NODEFER;  /* the kernel's rule for a one-shot handler */
}

/* Store the program's action act (NULL: none) and give the old one. */
static int set_action(int sig, const struct sigaction *act, struct sigaction *old)
{
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    while (atomic_flag_test_and_set_explicit(&prog_lock, memory_order_acquire)) sched_yield();
    if (old) *old = prog[sig];
    int rc = 0, err = 0;
    if (act) {
        struct sigaction k;
        kernel_action(act, &k);
        rc = ht_real_sigaction(sig, &k, NULL);
        err = errno;
        if (rc == 0) {
            atomic_fetch_add_explicit(&prog_seq[sig], 1, memory_order_acq_rel);
            prog[sig] = *act;
            atomic_fetch_add_explicit(&prog_seq[sig], 1, memory_order_release);
        }
    }
    atomic_flag_clear_explicit(&prog_lock, memory_order_release);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    errno = err ? err : errno;
    return rc;
}

void ht_crash_install(void)
{
    if (!ht_real_sigaction || atomic_load(&installed)) return;
    for (int sig = 1; sig < NSIGS; sig++) {
        if (!ht_crash_signal(sig)) continue;
        struct sigaction old, k;
        if (ht_real_sigaction(sig, NULL, &old) < 0) continue;
        prog[sig] = old;
        kernel_action(&old, &k);
        ht_real_sigaction(sig, &k, NULL);
    }
    atomic_store(&installed, 1);
}

int ht_crash_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!atomic_load_explicit(&installed, memory_order_acquire) || !ht_crash_signal(sig))
        return ht_real_sigaction(sig, act, old);
    return set_action(sig, act, old);
}

sighandler_t ht_crash_signal_fn(int sig, sighandler_t h, int flags)
{
    if (h == SIG_ERR || sig <= 0 || sig >= NSIGS) {
        errno = EINVAL;
        return SIG_ERR;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sigemptyset(&sa.sa_mask);
    if (!(flags & SA_NODEFER)) sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = flags;
    if (ht_crash_sigaction(sig, &sa, &old) < 0) return SIG_ERR;
    return old.sa_handler;
}

/* Before exec: a signal the program ignores stays ignored in the new program
 * (the kernel resets only handlers); after an exec that failed, the recorder's
 * handler again. */
void ht_crash_exec(int failed)
{
    if (!atomic_load(&installed)) return;
    for (int sig = 1; sig < NSIGS; sig++) {
        if (!ht_crash_signal(sig)) continue;
        struct sigaction pa, k;
        read_action(sig, &pa);
        if (pa.sa_handler != SIG_IGN) continue;
        if (failed) kernel_action(&pa, &k);
        else pa.sa_flags = 0, k = pa;
        ht_real_sigaction(sig, &k, NULL);
    }
}

/* ---- the alternate stacks ------------------------------------------------------ */

/* A guard page below it: a handler that overflows it faults instead of
 * writing over the next mapping. */
void *ht_crash_thread_attach(void)
{
    stack_t cur;
    if (!atomic_load(&installed) || sigaltstack(NULL, &cur) < 0 || !(cur.ss_flags & SS_DISABLE)) return NULL;
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, ALTSTACK_BYTES + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    mprotect(m, (size_t)page, PROT_NONE);
    stack_t ss = { .ss_sp = m + page, .ss_size = ALTSTACK_BYTES, .ss_flags = 0 };
    if (sigaltstack(&ss, NULL) < 0) {
        munmap(m, ALTSTACK_BYTES + (size_t)page);
        return NULL;
    }
    return m;
}

void ht_crash_thread_exit(void *stack)
{
    if (!stack) return;
    long page = sysconf(_SC_PAGESIZE);
    stack_t cur;
    if (sigaltstack(NULL, &cur) < 0) return;  /* unknown: kept rather than unmapped in use */
    if (cur.ss_sp == (char *)stack + page) {  /* still the thread's (the program may have set its own since) */
        if (cur.ss_flags & SS_ONSTACK) return;  /* a handler on it ends the thread */
        stack_t off = { .ss_flags = SS_DISABLE };
        if (sigaltstack(&off, NULL) < 0) return;
    }
    munmap(stack, ALTSTACK_BYTES + (size_t)page);
}

/* ---- the handler ---------------------------------------------------------------- */

/* Put the kernel's default action back for sig (and the program's view of
 * it, which a vfork child shares with its parent: not there). */
static const struct sigaction dfl = { .sa_handler = SIG_DFL };  /* an empty mask, no flags */

static void default_again(int sig)
{
    if (ht_owns_trace()) {
        atomic_fetch_add_explicit(&prog_seq[sig], 1, memory_order_acq_rel);
        prog[sig] = dfl;
        atomic_fetch_add_explicit(&prog_seq[sig], 1, memory_order_release);
    }
    ht_real_sigaction(sig, &dfl, NULL);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    struct sigaction pa;
    read_action(sig, &pa);
    /* made by the kernel for the instruction that faulted: returning runs it again */
    int fault = si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
    ht_signal_note note = { .sig = sig, .code = si->si_code, .addr = (uint64_t)(uintptr_t)si->si_addr };
    if (si->si_code <= 0) note.addr = (uint64_t)si->si_pid;  /* sent by a process: which */
    if (pa.sa_handler != SIG_DFL && pa.sa_handler != SIG_IGN) {
        note.fate = HT_SIG_HANDLED;
        ht_note_signal(&note);
        if (pa.sa_flags & SA_RESETHAND) set_action(sig, &dfl, NULL);  /* one-shot: the kernel resets it on delivery */
        errno = saved;
        if (pa.sa_flags & SA_SIGINFO) pa.sa_sigaction(sig, si, uc);
        else pa.sa_handler(sig);
        if (sig == SIGABRT) ht_before_abort();
        return;
    }
    if (pa.sa_handler == SIG_IGN && !fault) {
        if (sig == SIGABRT) ht_before_abort();
        errno = saved;
        return;
    }
    note.fate = HT_SIG_FATAL;
    ht_before_death(&note);
    default_again(sig);
    if (!fault) syscall(SYS_tgkill, getpid(), ht_gettid(), sig);  /* delivered when this handler returns */
    errno = saved;
}
