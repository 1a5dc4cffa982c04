/* process.c — the recorder in a process: init, per-thread rings, the slow
 * paths of the hooks, fork, exec and exit. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "clock.h"
#include "crash.h"
#include "flusher.h"
#include "flusher_state.h"
#include "last_thread.h"
#include "options.h"
#include "output.h"
#include "own_heap.h"
#include "prim.h"
#include "process.h"
#include "recorder.h"
#include "registry.h"
#include "ring.h"
#include "stacks.h"
#include "writer_end.h"

_Atomic int ht_state;
int ht_attached;
_Atomic uint32_t ht_poke_word;
uint64_t ht_t0;
_Atomic uint64_t ht_lost;
_Atomic uint64_t ht_side_events;
_Atomic uint32_t ht_side_most;

static _Atomic uint64_t next_tid = 2;  /* 1 is the process's main thread */
static pthread_key_t exit_key;
static int have_exit_key;
static pid_t owner_pid;                /* the process whose trace we write */
static _Atomic int finishing, finished; /* ht_finish begun, done */

static void thread_exit(void *ring);
static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);

/* The option that keeps children untraced also has to reach programs exec'd
 * later: blank LD_PRELOAD in place (no allocation; environ strings are ours). */
static void stop_following(void)
{
    extern char **environ;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "LD_PRELOAD=", 11)) (*e)[11] = 0;
}

#ifdef HT_BENCH_KNOBS
int ht_bench_skip;
volatile uint64_t ht_bench_sink;
static void bench_knobs_init(void)
{
    const char *v = getenv("HATRACE_BENCH_SKIP");
    ht_bench_skip = !v ? 0 : !strcmp(v, "ring") ? HT_BENCH_RING : !strcmp(v, "encode") ? HT_BENCH_ENCODE
                 : !strcmp(v, "clock") ? HT_BENCH_CLOCK : 0;
}
#else
static void bench_knobs_init(void) {}
#endif

/* Every signal held while the recorder's own code runs untraced on a program
 * thread at its start (a ring attached, the recorder set up): a handler's
 * heap calls there would be taken for the recorder's own and lost. They run
 * when it is done, recorded as any. */
void ht_hold_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, old);
}

void ht_init_wait(void)
{
    if (ht_t.untraced) return;  /* our own dlsym recursing: the arena serves it */
    while (atomic_load_explicit(&ht_state, memory_order_acquire) == HT_ST_INITING) sched_yield();
}

void ht_init(void (*resolve_real)(void))
{
    int s = atomic_load_explicit(&ht_state, memory_order_acquire);
    if (HT_LIKELY(s >= HT_ST_READY)) return;
    int expect = HT_ST_UNINIT;
    if (!atomic_compare_exchange_strong(&ht_state, &expect, HT_ST_INITING)) {
        ht_init_wait();
        return;
    }
    sigset_t old;
    ht_hold_signals(&old);
    ht_untraced_enter(&ht_t);
    ht_say_init();
    if (resolve_real) resolve_real();
    ht_options_init();
    bench_knobs_init();
    ht_stacks_init();
    ht_clock_init();
    owner_pid = getpid();
    static int registered;  /* once per process: an attached one starts again for each window */
    if (!registered) {
        registered = 1;
        have_exit_key = pthread_key_create(&exit_key, thread_exit) == 0;
        if (!have_exit_key) ht_warn("pthread_key_create failed: thread exits are not recorded");
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    }
    int st = HT_ST_READY;
    if (ht_output_open() < 0) st = HT_ST_OFF;
    /* attached: the program's environment and signal actions are its own */
    if (!ht_opt(HT_OPT_FOLLOW_CHILDREN) && !ht_attached) stop_following();
    if (st == HT_ST_READY && !ht_attached) ht_crash_install();
    ht_untraced_leave(&ht_t);
    atomic_store_explicit(&ht_state, st, memory_order_release);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Give the calling thread a ring and record its thread-create first. */
static ht_ring *thread_attach(ht_tls *t)
{
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return NULL;
    sigset_t old;
    ht_hold_signals(&old);
    ht_untraced_enter(t);
    ht_ring *r = ht_ring_claim();
    if (!r) {
        ht_untraced_leave(t);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        ht_warn("out of memory for a thread ring: this thread is not traced");
        return NULL;
    }
    if (ht_stack_depth) ht_stacks_attach(r);
    uint32_t ostid = ht_gettid();
    /* the main thread is 1 even if another thread allocated first */
    r->tid = (pid_t)ostid == getpid() ? 1 : atomic_fetch_add(&next_tid, 1);
    r->ostid = ostid;
    r->name[0] = 0;
    if (have_exit_key) pthread_setspecific(exit_key, r);
    if (!ht_flusher_running() && ht_flusher_start() < 0)
        ht_warn("cannot start the flusher thread: rings are drained when full");
    if (!t->altstack) t->altstack = ht_crash_thread_attach();
    ht_untraced_leave(t);
    t->ring = r;
    ht_emit(HT_K_THREAD_CREATE, t->parent, ostid, 0, 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL);  /* a handler that was held runs now, after the thread-create */
    return r;
}

uint64_t ht_current_tid(void)
{
    ht_tls *t = &ht_t;
    if (!t->ring && !t->untraced && !t->exited) thread_attach(t);
    return t->ring ? t->ring->tid : 0;
}

void ht_thread_begin(void)
{
    ht_tls *t = &ht_t;
    if (!t->ring) thread_attach(t);
}

/* Key destructors run in rounds; re-arm so ours runs in the last one, after the
 * frees of other keys' destructors and of C++ thread_local destructors. */
static void thread_exit(void *ring)
{
    ht_tls *t = &ht_t;
    if (++t->dtor_rounds < PTHREAD_DESTRUCTOR_ITERATIONS) {
        pthread_setspecific(exit_key, ring);
        return;
    }
    ht_ring *r = t->ring;
    if (!r) return;
    /* No handler runs on this thread from here to its end: a signal sent to
     * the process goes to another thread, where it is recorded as any. */
    sigset_t old;
    ht_hold_signals(&old);
    /* the name is the thread's last one (pthread_setname_np may have changed it) */
    if (prctl(PR_GET_NAME, r->name) != 0) r->name[0] = 0;
    r->name[sizeof r->name - 1] = 0;
    t->exited = 1;  /* the recorder's own unmaps from here on (libunwind's cache) are not the program's */
    ht_untraced_enter(t);
    ht_crash_thread_exit(t->altstack);
    ht_untraced_leave(t);
    t->altstack = NULL;
    /* glibc calls free after this last round (glibc 2.36: twice, on its
     * per-thread strsignal and strerror_l texts, NULL unless the thread asked
     * for one): the thread keeps its ring for those calls, and its
     * thread-destroy is written once it is gone (ht_thread_gone_tk), at the
     * time of its last call or of this round. */
    r->last_tk = (ht_now() - ht_t0) << HT_TK_SHIFT | HT_K_THREAD_DESTROY;
    atomic_store_explicit(&r->state, HT_RING_EXITING, memory_order_release);
    /* bounded memory under a thread storm: reclaim before rings pile up */
    if (atomic_fetch_add(&ht_dead_rings, 1) + 1 >= 16) ht_poke();
    /* the program's last thread (its main one ended by pthread_exit): glibc
     * would exit(0) now, but counts the recorder's threads; so here, on this
     * thread, where the exit handlers would have run */
    if (getpid() == owner_pid && ht_last_program_thread()) {
        /* not a thread's end but the process's: its events go on, and its
         * thread-destroy is written at the trace's end, as for exit */
        atomic_store_explicit(&r->state, HT_RING_OWNED, memory_order_release);
        atomic_fetch_sub(&ht_dead_rings, 1);
        t->exited = 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        exit(0);
    }
}

uint64_t ht_thread_gone_tk(ht_ring *r)
{
    HATF_PRE(atomic_load(&r->state) == HT_RING_EXITING);
    /* the kernel no longer knows the thread: it has made its last call (a
     * thread of the same number made since only delays this) */
    if (syscall(SYS_tgkill, owner_pid, r->ostid, 0) != 0 && errno == ESRCH)
        return r->last_tk >> HT_TK_SHIFT << HT_TK_SHIFT | HT_K_THREAD_DESTROY;
    /* the trace ends with the thread still in its exit: what it does later is past the end */
    if (atomic_load_explicit(&finishing, memory_order_acquire))
        return (ht_now() - ht_t0) << HT_TK_SHIFT | HT_K_THREAD_DESTROY;
    return 0;
}

int (*ht_real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

void ht_event_dropped(uint32_t kind, uint64_t d)
{
    if (!HT_KIND_OWNS_COPY(kind & HT_KIND_MASK) || !d) return;
    ht_untraced_enter(&ht_t);
    free((void *)(uintptr_t)d);
    ht_untraced_leave(&ht_t);
}

static void side_push(ht_ring *r, uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    if (r->side_w - r->side_r >= HT_SIDE_CAP) {
        atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        ht_event_dropped(kind, d);
        return;
    }
    uint32_t held = r->side_w - r->side_r + 1;
    if (held > atomic_load_explicit(&ht_side_most, memory_order_relaxed))
        atomic_store_explicit(&ht_side_most, held, memory_order_relaxed);  /* a diagnostic: races are harmless */
    ht_rawev *e = &r->side[r->side_w % HT_SIDE_CAP];
    e->tk = (ht_now() - ht_t0) << HT_TK_SHIFT | kind;
    e->a = a, e->b = b, e->c = c, e->d = d;
    atomic_signal_fence(memory_order_seq_cst);
    r->side_w++;
    atomic_fetch_add_explicit(&ht_side_events, 1, memory_order_relaxed);
}

void ht_record_slow(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ht_tls *t = &ht_t;
    if (t->untraced) {  /* the recorder's own allocations, or an ignored section */
        if (ht_in_own_code(t)) ht_own_heap_note(kind & HT_KIND_MASK, a);
        ht_event_dropped(kind, d);
        return;
    }
    if (t->exited) {
        /* past this thread's end of the trace with no ring (exit, _exit or a
         * fatal signal on it): a free(NULL), a no-op, is not a lost event */
        if (kind != HT_K_FREE || a) atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        ht_event_dropped(kind, d);
        return;
    }
    if (t->busy) {  /* a signal handler interrupted this thread inside a hook */
        side_push(t->ring, kind, a, b, c, d);
        return;
    }
    int s = atomic_load_explicit(&ht_state, memory_order_acquire);
    if (s == HT_ST_INITING) {
        ht_init_wait();  /* another thread is initialising */
        s = atomic_load_explicit(&ht_state, memory_order_acquire);
    }
    if (s != HT_ST_READY || (!t->ring && !thread_attach(t))) {
        ht_event_dropped(kind, d);
        return;
    }
    ht_emit(kind, a, b, c, d);
}

/* ---- the fast path's ways off (recorder.h, ht_emit_ret and ht_emit_free) ---- */

void *ht_emit_slow(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d, void *ret)
{
    ht_record_slow(kind, a, b, c, d);
    return ret;
}

void *ht_emit_held(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d, void *ret)
{
    ht_tls *t = &ht_t;
    ht_ring *r = t->ring;
    HATF_PRE(t->busy == 1 && r == t->ring);
    if (r->side_w != r->side_r) ht_side_drain(r);
    ht_rawev *e = ht_ring_slot(r);
    if (!e) e = ht_ring_full(r);
    ht_leave(t, r, e, (ht_now() - ht_t0) << HT_TK_SHIFT | kind, a, b, c, d);
    return ret;
}

void *ht_emit_after(int poke, void *ret)
{
    ht_tls *t = &ht_t;
    if (poke) ht_poke_ring(t->ring);
    if (t->ring->side_w != t->ring->side_r) ht_side_flush(t, t->ring);
    return ret;
}

void ht_free_slow(uint32_t kind, void *p, void (*real)(void *))
{
    ht_record_slow(kind, (uint64_t)(uintptr_t)p, 0, 0, 0);
    real(p);
}

void ht_free_held(uint32_t kind, void *p, void (*real)(void *))
{
    ht_emit_held(kind, (uint64_t)(uintptr_t)p, 0, 0, 0, NULL);
    real(p);
}

void ht_free_after(int poke, void *p, void (*real)(void *))
{
    ht_emit_after(poke, NULL);
    real(p);
}

/* ---- the orphan queue: events of threads with no ring yet (ht_emit_nowait) ---- */

enum { ORPHAN_CAP = 4096 };
static ht_rawev orphans[ORPHAN_CAP];
static _Atomic uint32_t orphan_ready[ORPHAN_CAP];
static _Atomic uint32_t orphan_w;  /* slots claimed; never reset (at most ORPHAN_CAP per process) */
static uint32_t orphan_r;          /* slots taken by the flusher (wlock) */

void ht_orphan_push(uint64_t tk, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint32_t i = atomic_fetch_add_explicit(&orphan_w, 1, memory_order_relaxed);
    if (i >= ORPHAN_CAP) {
        atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        return;
    }
    orphans[i] = (ht_rawev){ .tk = tk, .a = a, .b = b, .c = c, .d = d };
    atomic_store_explicit(&orphan_ready[i], 1, memory_order_release);
}

size_t ht_orphan_peek(const ht_rawev **first)
{
    HATF_PRE(ht_wlock_held());
    uint32_t n = 0, end = atomic_load_explicit(&orphan_w, memory_order_relaxed);
    if (end > ORPHAN_CAP) end = ORPHAN_CAP;
    while (orphan_r + n < end && atomic_load_explicit(&orphan_ready[orphan_r + n], memory_order_acquire)) n++;
    *first = &orphans[orphan_r];
    return n;
}

void ht_orphan_consume(size_t n) { orphan_r += (uint32_t)n; }

void ht_side_drain(ht_ring *r)
{
    HATF_PRE(ht_t.busy == 1);
    atomic_signal_fence(memory_order_seq_cst);
    while ((int32_t)(r->side_w - r->side_r) > 0) {
        ht_rawev *e = ht_ring_slot(r);
        if (!e) {
            /* Wait for space with busy clear and nothing claimed: a handler
             * that runs meanwhile drains the side buffer itself before writing
             * its own event (ht_emit), so the order holds and the side buffer
             * cannot overflow however long the flusher takes. */
            if (!ht_ring_full(r)) {  /* drop mode (counted) or past the trace's end */
                const ht_rawev *x = &r->side[r->side_r % HT_SIDE_CAP];
                ht_event_dropped((uint32_t)x->tk, x->d);
                r->side_r++;
            }
            continue;  /* look again: a handler may have emptied the side buffer */
        }
        ht_rawev ev = r->side[r->side_r % HT_SIDE_CAP];
        r->side_r++;
        atomic_signal_fence(memory_order_seq_cst);
        /* the handler may have taken its time before the interrupted
         * event did; keep the thread's stream in time order */
        const uint64_t low = (1u << HT_TK_SHIFT) - 1;
        if (ev.tk >> HT_TK_SHIFT < r->last_tk >> HT_TK_SHIFT) ev.tk = (r->last_tk & ~low) | (ev.tk & low);
        unsigned units = ht_rawev_put(e, ev.tk, ev.a, ev.b, ev.c, ev.d);
        r->last_tk = ev.tk;
        if (ht_ring_publish(r, units)) ht_poke_ring(r);
        atomic_signal_fence(memory_order_seq_cst);
    }
}

void ht_side_flush(ht_tls *t, ht_ring *r)
{
    HATF_PRE(t->busy == 0);
    for (;;) {
        t->busy = 1;
        ht_side_drain(r);
        atomic_signal_fence(memory_order_seq_cst);
        t->busy = 0;
        atomic_signal_fence(memory_order_seq_cst);
        if ((int32_t)(r->side_w - r->side_r) <= 0) break;
    }
}

_Atomic uint64_t ht_pokes;

void ht_poke(void)
{
    if (atomic_load_explicit(&ht_poke_word, memory_order_relaxed)) return;
    if (atomic_exchange(&ht_poke_word, 1) == 0) {
        ht_futex_wake(&ht_poke_word, 1);
        atomic_fetch_add_explicit(&ht_pokes, 1, memory_order_relaxed);
    }
}

void ht_poke_ring(ht_ring *r)
{
    if (ht_ring_poke_needed(r)) ht_poke();
}

/* ht_ring_full's wait: a slot, or NULL once the trace is over
 * (not a loss: past its end) or lost (counted). */
static ht_rawev *ring_wait(ht_ring *r)
{
    for (;;) {
        /* The trace has ended (exit or exec is finishing it): a thread still
         * running then is past the trace's end, not losing events from it. */
        if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return NULL;
        if (ht_flusher_running()) {
            /* The flusher wakes us as soon as it has freed half the ring
             * (ht_ring_wake_due), not after its whole pass over every ring,
             * so the program runs on while the rest is drained. */
            uint32_t seq = atomic_load_explicit(&r->wake, memory_order_acquire);
            atomic_store_explicit(&r->waiting, 1, memory_order_relaxed);
            atomic_thread_fence(memory_order_seq_cst);
            ht_poke();
            ht_rawev *e = ht_ring_slot(r);
            if (e) {
                atomic_store_explicit(&r->waiting, 0, memory_order_relaxed);
                return e;
            }
            /* no slot is held while waiting: a signal handler may record
             * straight into the ring instead of overflowing the side buffer */
            ht_t.busy = 0;
            atomic_signal_fence(memory_order_seq_cst);
            ht_futex_wait(&r->wake, seq, 2000000);
            atomic_signal_fence(memory_order_seq_cst);
            ht_t.busy = 1;
        } else {
            ht_untraced_enter(&ht_t);
            long n = ht_drain_one(r);
            ht_untraced_leave(&ht_t);
            if (n < 0) break;
        }
        ht_rawev *e = ht_ring_slot(r);
        if (e) return e;
    }
    r->drops++;
    return NULL;
}

ht_rawev *ht_ring_full(ht_ring *r)
{
    if (ht_opt(HT_OPT_DROP)) {
        r->drops++;
        return NULL;
    }
    r->waits++;
    uint64_t t0 = ht_mono_ns();
    ht_rawev *e = ring_wait(r);
    /* only this thread writes it (no locked add); the flusher sums it at close (writer_end.c) */
    atomic_store_explicit(&r->wait_ns, atomic_load_explicit(&r->wait_ns, memory_order_relaxed) + ht_mono_ns() - t0,
                          memory_order_relaxed);
    return e;
}

/* The flusher stopped, every ring drained, the trace closed (ht_finish, ht_finish_window). */
static void end_trace(ht_tls *t)
{
    ht_untraced_enter(t);
    ht_clock_run_ended();  /* before the stop: the flusher's last pass may open the writer */
    ht_flusher_stop();
    ht_drain_all();
    atomic_store_explicit(&ht_state, HT_ST_OFF, memory_order_release);
    ht_writer_finish();
    ht_untraced_leave(t);
    atomic_store_explicit(&finished, 1, memory_order_release);
}

void ht_finish(void)
{
    ht_tls *t = &ht_t;
    /* Once per process: exit racing exec (or exit) on another thread must not
     * join the flusher twice, nor end the process while the index is written.
     * A handler on the finishing thread itself (untraced) must not wait. */
    if (atomic_exchange(&finishing, 1)) {
        if (!t->untraced)
            while (!atomic_load_explicit(&finished, memory_order_acquire)) sched_yield();
        return;
    }
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) {
        atomic_store_explicit(&finished, 1, memory_order_release);
        return;
    }
    if (t->ring && !t->untraced) ht_emit(HT_K_THREAD_DESTROY, 0, 0, 0, 0);
    t->exited = 1;
    end_trace(t);
}

/* ---- an attached process's windows (attach.c) ---- */

void ht_finish_window(void)
{
    if (atomic_exchange(&finishing, 1)) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) {
        atomic_store_explicit(&finished, 1, memory_order_release);
        return;
    }
    end_trace(&ht_t);
}

/* The counts and flags of one trace, as before its first event. */
static void trace_flags_fresh(void)
{
    atomic_store(&ht_lost, 0);
    atomic_store(&ht_poke_word, 0);
    atomic_store(&ht_side_events, 0);
    atomic_store(&ht_side_most, 0);
    atomic_store(&finishing, 0);
    atomic_store(&finished, 0);
}

void ht_window_reset(void)
{
    trace_flags_fresh();
    atomic_store(&ht_state, HT_ST_UNINIT);
}

/* The signal the process dies of (ht_before_death), for the flusher to note. */
static ht_signal_note death;
static int have_death;

/* The flusher's end of ht_before_exit: the same as ht_finish after its join. */
void ht_finish_on_flusher(void)
{
    ht_clock_run_ended();
    ht_drain_all();
    if (have_death) ht_write_death(&death);
    atomic_store_explicit(&ht_state, HT_ST_OFF, memory_order_release);
    ht_writer_finish();
    atomic_store_explicit(&finished, 1, memory_order_release);
}

void ht_before_exit(void)
{
    ht_tls *t = &ht_t;
    /* a vfork child (posix_spawn's failed exec) leaves the parent's trace alone;
     * a handler that interrupted our own code (which may hold the writer's
     * lock) cannot have the trace closed; one that interrupted a hook can: the
     * hook's event is not recorded, as its call does not return */
    if (getpid() != owner_pid || t->untraced) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return;
    if (!ht_flusher_running()) {  /* nothing recorded yet (or no thread could be made): as exit */
        if (t->busy) return;
        ht_finish();
        return;
    }
    if (atomic_exchange(&finishing, 1)) return;  /* exit or exec is finishing it: _exit ends that */
    if (t->ring && !t->busy) ht_emit(HT_K_THREAD_DESTROY, 0, 0, 0, 0);
    t->exited = 1;
    /* _exit is async-signal-safe: a handler may call it while this thread holds
     * the allocator's lock, so this thread does not allocate; the flusher ends
     * the trace, and if it cannot within the time (it waits on that lock), the
     * trace stays unclosed, as after a kill */
    if (ht_flusher_finish(2000000000u) < 0) ht_say("the trace could not be closed before _exit");
}

void ht_note_signal(ht_signal_note *n)
{
    ht_tls *t = &ht_t;
    ht_ring *r = t->ring;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY || ht_on_background_thread()) return;
    if (!r || t->busy || t->untraced || t->exited) {  /* no ring, or inside a hook or the recorder */
        atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        return;
    }
    ht_emit_nowait(HT_K_SIGNAL, n->addr, ht_signal_b(n), (uint32_t)n->code, 0);
}

/* Wait at most timeout_ns for another thread's end of the trace. */
static void wait_finished(uint64_t timeout_ns)
{
    uint64_t end = ht_mono_ns() + timeout_ns;
    while (!atomic_load_explicit(&finished, memory_order_acquire) && ht_mono_ns() < end) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

/* The handler of a signal the process dies of (crash.c). Like _exit's end:
 * this thread may hold the allocator's lock, or be anywhere in the program,
 * so it neither allocates nor takes a lock; the flusher drains every ring
 * (this thread's up to its last call: the fault interrupted it between
 * hooks, or inside one, whose event is then not written, as its call never
 * returns), writes the note in this thread and closes the trace. It cannot
 * when the fault is its own or the helper's (their trace is left as a kill
 * leaves it), nor when the fault interrupted the recorder's own code holding
 * the writer's lock (it waits for it until the time runs out). */
void ht_before_death(ht_signal_note *n)
{
    ht_tls *t = &ht_t;
    if (getpid() != owner_pid || ht_on_background_thread()) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY || !ht_flusher_running()) return;
    if (atomic_exchange(&finishing, 1)) {  /* exit, exec or another thread's signal is ending it */
        wait_finished(HT_DEATH_WAIT_NS);
        return;
    }
    n->tk = ht_now() - ht_t0;
    n->tid = t->ring ? t->ring->tid : 1;  /* a thread that made no call: noted in the main thread */
    death = *n;
    have_death = 1;
    t->exited = 1;
    if (ht_flusher_finish(HT_DEATH_WAIT_NS) < 0)
        ht_say("the trace could not be closed before the process died of signal %d", n->sig);
}

void ht_before_abort(void)
{
    ht_tls *t = &ht_t;
    if (getpid() != owner_pid || t->untraced || ht_on_background_thread()) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return;
    if (!atomic_load(&finishing)) ht_flusher_sync(HT_DEATH_WAIT_NS);
}

int ht_owns_trace(void) { return getpid() == owner_pid; }

void ht_before_exec(void)
{
    /* a vfork child shares our memory: it must not touch the parent's trace */
    if (getpid() != owner_pid) return;
    ht_finish();
}

static void atfork_prepare(void) { ht_flusher_atfork_prepare(); }
static void atfork_parent(void) { ht_flusher_atfork_parent(); }

/* The child keeps none of the parent's trace: its rings are reset and its own
 * file is created (named with its pid) when it records its first event. */
static void atfork_child(void)
{
    ht_last_thread_atfork_child();
    ht_flusher_atfork_child();
    ht_t.ring = NULL;
    ht_t.parent = 0;
    ht_t.dtor_rounds = 0;
    atomic_store(&next_tid, 2);
    trace_flags_fresh();
    owner_pid = getpid();
    int s = atomic_load(&ht_state);
    if (s == HT_ST_READY && !ht_opt(HT_OPT_FOLLOW_CHILDREN)) atomic_store(&ht_state, HT_ST_OFF);
}
