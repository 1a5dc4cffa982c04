/* run.c — the runner: streams through a plan and calls the allocator.
 *
 * A runner per plan thread (a trace thread's ops), run on a pool of worker
 * threads (below); the calling thread samples memory and
 * draws the progress bar meanwhile, so a runner thread's per-op work beyond
 * the call is a branch on the kind, the slot table's load or store, and one
 * test of the rare flags; its progress counters are stored every 64 ops and
 * the latency timing sits outside the loop that runs the ops in between.
 * bench/replay_cost.c measures what that costs (bench/results/replay.md).
 *
 * The runner's memory (slot table, ready flags, thread contexts, histograms,
 * the plan's read-ahead buffers, feed.c) is mmap'd, prefaulted and the
 * buffers filled before the baseline RSS is read; the allocator's resident memory is RSS minus that
 * baseline. So nothing of the runner's grows during the run except the
 * runner threads' stacks, which stay a few pages.
 *
 * Runner threads. A runner starts at its thread's first op in the global
 * order and ends after its last (rp_thread_plan.first_pos, last_pos): the
 * runners start one by one in the order of their first ops, each once every
 * runner whose last op comes before its first op has ended (and, for one
 * whose ops all come after the trace's peak, once the runners have met
 * there, below). Runners under way at once then all span the first op of the
 * latest started, so there are never more of them than the trace has threads
 * alive at once (rp_plan_at_once): that many worker threads are started
 * before the baseline, and each runs runner after runner, waiting on a
 * condition variable for the next to be allowed; when one is, a worker is
 * free. Past RP_RUNNERS_MAX threads alive at once the trace is compiled on
 * one thread instead (cli/replay_run.c).
 *
 * Nothing deadlocks. Each thread's ops are a subsequence of the global order
 * and every wait is for something at an earlier place in it: a WAIT at global
 * position p waits for the PUBLISH of an op at position q < p (a free's folded
 * wait, RP_F_WAIT, is a WAIT at the free's own position); a runner not started
 * yet is held at its first op's position p for runners whose last op is at a
 * position below p, or for the next runner in the start order, whose first op
 * comes no later and which is held only for those; one held for the meeting, and one waiting there, for
 * runners whose ops up to the peak (at positions up to the peak's P < p) are
 * not done. Suppose every unfinished runner were stuck; take the one stuck at
 * the smallest position p. What it waits for is a runner whose next op is at
 * a position below p (not done, so at or before the op waited for), stuck too
 * (a runner that has started and is not stuck moves; one that may start gets
 * a free worker, above): a contradiction. So some runner can always move, and
 * every wait ends.
 *
 * The runners meet where live bytes peak. Each thread runs at its own pace,
 * so without a meeting the peak of the trace is never live at once: one
 * thread may have freed its part before another made its own (rocksdb under
 * glibc replayed at 0.19 of its peak live). The compiler notes each thread's
 * ops before the peak in the global order (rp_thread_plan.peak_pos); each
 * runner with ops before the peak stops there until all of those have come
 * (one with no op after it comes and ends), the last one reads the resident
 * memory, the trace's peak, all of it live, and the runners whose ops all
 * come after the peak start only then. The argument above covers it: the ops
 * before the meeting are the global order's prefix up to the peak.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"

/* The latency clock and the spin-wait hint (docs/replay.md, "Latency"):
 *   x86, x86-64  the TSC (rdtsc), pause
 *   aarch64      the virtual counter (cntvct_el0, at cntfrq_el0 ticks a second:
 *                constant, often 24 MHz), yield
 *   elsewhere    CLOCK_MONOTONIC in ns, no hint
 * Ticks become ns by the rate measured against CLOCK_MONOTONIC over the run,
 * whichever counter it is. None of these reads is fenced. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t cpu_ticks(void) { return __rdtsc(); }
static inline void cpu_relax(void) { _mm_pause(); }
#elif defined(__aarch64__)
static inline uint64_t cpu_ticks(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
static inline void cpu_relax(void) { __asm__ volatile("yield" ::: "memory"); }
#else
static inline uint64_t cpu_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static inline void cpu_relax(void) { }
#endif

const char *const rp_touch_names[3] = { "none", "page", "all" };
const char *const rp_lat_names[RP_LAT_COUNT_] = { "malloc", "calloc", "aligned", "realloc", "free", "heap" };

static const uint8_t lat_class[RP_KIND_COUNT_] = {
    [RP_MALLOC] = RP_LAT_MALLOC, [RP_CALLOC] = RP_LAT_CALLOC, [RP_MEMALIGN] = RP_LAT_ALIGNED,
    [RP_POSIX_MEMALIGN] = RP_LAT_ALIGNED, [RP_ALIGNED_ALLOC] = RP_LAT_ALIGNED,
    [RP_VALLOC] = RP_LAT_ALIGNED, [RP_PVALLOC] = RP_LAT_ALIGNED, [RP_REALLOC] = RP_LAT_REALLOC,
    [RP_REALLOC_NULL] = RP_LAT_REALLOC, [RP_FREE] = RP_LAT_FREE, [RP_FREE_NULL] = RP_LAT_FREE,
    [RP_HEAP_ALLOC] = RP_LAT_MALLOC, [RP_HEAP_REALLOC] = RP_LAT_REALLOC, [RP_HEAP_FREE] = RP_LAT_FREE,
    [RP_HEAP_DFREE] = RP_LAT_FREE, [RP_HEAP_CREATE] = RP_LAT_HEAP, [RP_HEAP_DESTROY] = RP_LAT_HEAP,
};

typedef struct rp_slot {
    char *p;
    uint64_t size;
} rp_slot;

typedef struct run_ctx run_ctx;

/* A place in a runner thread's ops: where a phase begins (before op pos),
 * where live bytes reach a phase's peak (after pos ops: sample RSS), or where
 * the runners meet at the trace's peak (after pos ops). */
enum { MARK_ENTER = 0, MARK_PEAK = 1, MARK_MEET = 2 };
typedef struct phase_mark {
    uint64_t pos;
    uint32_t phase;
    uint32_t kind;
} phase_mark;

typedef struct runner {
    /* written by the runner every op, read by the sampler */
    _Alignas(64) _Atomic uint64_t done;
    _Atomic int64_t live;
    _Atomic uint32_t phase;    /* the phase it is in (with phases) */
    /* private to the runner */
    _Alignas(64) run_ctx *ctx;
    const rp_thread_plan *tp;
    char *bump, *bump_end;
    char *bump_base;           /* its worker's region */
    uint64_t rng;
    uint64_t failures;
    uint64_t skipped;          /* plan calls that made no call (see rp_result) */
    uint64_t heaps_native, heaps_free_each;
    uint64_t stalls, stall_ns; /* waits for the plan's read-ahead */
    uint32_t index;
    /* with phases: its marks in order, the next one's pos (UINT64_MAX: none),
       and per phase (one more: the end) when it entered it and its calls then */
    const phase_mark *marks;
    uint32_t nmarks, mark;
    uint64_t mark_pos;
    uint64_t *enter_ns, *enter_done;
    struct timespec end;
    rp_hist *hist;             /* its worker's */
} runner;

/* An OS thread that runs the runners (trace threads) one after another, in
 * the order they start (the top of the file); the histograms and the null
 * allocator's region are its own. */
typedef struct worker {
    run_ctx *ctx;
    pthread_t tid;
    char *bump, *bump_base, *bump_end;
    size_t bump_len;
    rp_hist hist[RP_LAT_COUNT_];
} worker;

enum { RUN_GO = 1, RUN_QUIT = 2 };

struct run_ctx {
    const rp_plan *plan;
    const rp_run_opts *o;
    rp_slot *slots;
    _Atomic uint32_t *ready;
    rp_heap_api heaps;
    runner *th;                         /* per plan thread */
    worker *wk;
    uint32_t nworkers;
    _Atomic int go;                     /* 0 wait, RUN_GO, or RUN_QUIT when a worker could not start */
    _Atomic uint32_t waiting;
    _Atomic uint32_t finished;
    _Atomic uint64_t rss_at_peak_live;  /* pages */
    _Atomic uint32_t met;               /* runners come to the meeting at the peak */
    uint32_t meet_expect;               /* ... of these many (threads with ops before the peak) */
    _Atomic int all_met;
    /* the start order (the top of the file), under mu: the threads with ops by
       their first op (order), each one's count of threads that end before it
       starts (need), the threads by their last op (by_end), which have ended
       (ended_t), how many of by_end have all ended (ended), the next to start */
    uint32_t *order, *need, *by_end;
    uint8_t *ended_t;
    uint32_t norder, next, ended;
    pthread_mutex_t mu;
    pthread_cond_t cv;                  /* a worker waits on it for the next runner to start */
    rp_feed *feed;                      /* a plan in a file: its read-ahead */
    _Atomic uint64_t *phase_rss;        /* with phases: resident pages at each one's peak live */
    int statm;
    long page;
};

static void *map_zero(size_t len, int populate)
{
    void *p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : MAP_NORESERVE), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Anonymous resident pages: resident minus file-backed and shared ones, so
 * code pages faulted in during the run and the plan's memfd do not count. */
static uint64_t statm_resident(int fd)
{
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p;
    strtoull(buf, &p, 10);
    uint64_t res = strtoull(p, &p, 10);
    uint64_t shared = strtoull(p, NULL, 10);
    return res > shared ? res - shared : 0;
}

/* The process's threads now (Threads: in /proc/self/status), 0 when unknown. */
static uint32_t process_threads(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *p = strstr(buf, "\nThreads:");
    return p ? (uint32_t)strtoul(p + 9, NULL, 10) : 0;
}

static double ts_ns(const struct timespec *t) { return (double)t->tv_sec * 1e9 + (double)t->tv_nsec; }

/* Random gaps with mean `every`, so periodic patterns in a trace do not alias. */
static inline uint32_t next_gap(runner *r, uint32_t every)
{
    if (every <= 1) return 1;
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return 1 + (uint32_t)(((r->rng >> 32) * (2 * (uint64_t)every - 1)) >> 32);  /* no division */
}

/* page: the first byte, then a byte on each page boundary within the first
 * share / RP_TOUCH_FULL of the block (touch.c: all of it unless the trace
 * shows the program touched less) */
static inline void touch(char *p, uint64_t size, int how, uint32_t share)
{
    if (how == RP_TOUCH_PAGE) {
        if (!size) return;
        p[0] = 1;
        const char *end = p + (share == RP_TOUCH_FULL ? size : size * share / RP_TOUCH_FULL);
        for (char *q = (char *)(((uintptr_t)p | 4095) + 1); q < end; q += 4096) *q = 1;
    } else if (how == RP_TOUCH_ALL) {
        memset(p, 0xa5, size);
    }
}

static void wait_ready(_Atomic uint32_t *r, uint32_t gen)
{
    for (unsigned spins = 0; atomic_load_explicit(r, memory_order_acquire) != gen; spins++) {
        if (spins < 256) cpu_relax();
        else sched_yield();
    }
}

/* The runner's per-op state, kept in registers: do_op is inlined into two
 * loops per allocator flavour, and *r is written only when they end. */
typedef struct run_state {
    char *bump;
    int64_t live;
    uint64_t done;       /* calls made */
    uint64_t skipped;    /* plan calls that made no call */
    uint64_t failures;
} run_state;

typedef struct run_env {
    runner *r;
    run_ctx *c;
    rp_slot *slots;
    const rp_heap_api *api;
    char *bump_end;
    uint64_t page;
    int how;
    uint32_t share;      /* of each block that page touching writes */
} run_env;

/* The null allocator: a bump pointer that starts again at the region's base
 * when it reaches its end (rp_thread_plan.bump_bytes: the region holds every
 * allocation of a short thread, and at least two of its largest of a long
 * one), so its memory stays bounded whatever the trace's length. Objects
 * overwritten that way are never read: null measures the runner alone. */
static inline char *bump_alloc(run_state *s, const run_env *e, uint64_t size, uint64_t align)
{
    /* the bump pointer stays 16-aligned: only larger alignments round it */
    uint64_t need = (size + 15) & ~(uint64_t)15;
    uintptr_t p = align <= 16 ? (uintptr_t)s->bump : ((uintptr_t)s->bump + align - 1) & ~(uintptr_t)(align - 1);
    if (__builtin_expect((char *)p + need > e->bump_end, 0)) {
        p = ((uintptr_t)e->r->bump_base + align - 1) & ~(uintptr_t)(align - 1);
        if ((char *)p + need > e->bump_end) return NULL;
    }
    s->bump = (char *)p + need;
    if (!p) __builtin_unreachable();  /* so the caller's failure test folds into the one above */
    return (char *)p;
}

/* An allocating op's result: the slot and the live bytes (its consumers are
 * told at the end of do_op). */
static inline __attribute__((always_inline)) void made(const run_env *e, run_state *s, uint32_t dst,
                                                         char *p, uint64_t size)
{
    if (__builtin_expect(!p, 0)) s->failures += size != 0;
    else if (e->how) touch(p, size, e->how, e->share);
    e->slots[dst].p = p;
    e->slots[dst].size = size;
    s->live += (int64_t)size;
}

/* The rare flags of an op, tested together once per op. */
static __attribute__((noinline)) void op_flags(const run_env *e, const rp_op *op, unsigned kind)
{
    unsigned fl = rp_op_flags(op);
    if ((fl & RP_F_PUBLISH) && kind < RP_FREE) {  /* another thread consumes the object made here */
        uint32_t dst = kind == RP_REALLOC || kind == RP_HEAP_REALLOC ? op->arg : op->slot;
        _Atomic uint32_t *rd = &e->c->ready[dst];
        atomic_store_explicit(rd, atomic_load_explicit(rd, memory_order_relaxed) + 1, memory_order_release);
    }
    if (fl & RP_F_VACATE) {  /* another thread makes its next object in the slot emptied here */
        _Atomic uint32_t *rd = &e->c->ready[op->slot];
        atomic_store_explicit(rd, atomic_load_explicit(rd, memory_order_relaxed) + 1, memory_order_release);
    }
    if (fl & RP_F_PEAK)
        atomic_store_explicit(&e->c->rss_at_peak_live, statm_resident(e->c->statm), memory_order_relaxed);
}

/* A free's folded wait (RP_F_WAIT): the object's maker on another thread has
 * published it. Outside the timing of a timed call (run_ops). */
static inline __attribute__((always_inline)) void free_wait(const run_env *e, const rp_op *op)
{
    if (op->w & (uint64_t)RP_F_WAIT << 8) {
        _Atomic uint32_t *r = &e->c->ready[op->slot];
        if (atomic_load_explicit(r, memory_order_acquire) != op->arg) wait_ready(r, op->arg);
    }
}

/* One op (a WAIT included). @return the op it ended on (a heap realloc takes
 * its RP_ARG op too). The null allocator's path is the real one's with the
 * call replaced by a bump or nothing: same loads, stores and branches.
 * waited: a free's wait is done (a timed call's, before its clock starts). */
static inline __attribute__((always_inline)) const rp_op *do_op(const run_env *e, run_state *s,
                                                                 const rp_op *op, const int null_alloc,
                                                                 const int waited)
{
    rp_slot *const slots = e->slots;
    const rp_op *const first = op;
    const unsigned kind = rp_op_kind(op);
    const uint64_t size = rp_op_size(op);
    const unsigned fl = rp_op_flags(op);
    char *p;
    /* The two common kinds are tested before the switch: a conditional branch
     * on the op word resolves sooner than the switch's indirect jump through
     * its table, so the mispredict on a random mix costs less. */
    if (kind == RP_FREE) {
        if (!waited) free_wait(e, op);
        rp_slot *o = &slots[op->slot];
        if (!null_alloc) free(o->p);
        else __asm__ volatile("" ::"r"(o->p));  /* the pointer is loaded as for free() */
        s->live -= (int64_t)o->size;
    } else if (kind == RP_MALLOC) {
        p = null_alloc ? bump_alloc(s, e, size, 16) : malloc(size);
        made(e, s, op->slot, p, size);
    } else switch (kind) {
    case RP_CALLOC: {
        uint64_t n = op->arg ? op->arg : 1;
        if (size % n) n = 1;
        p = null_alloc ? bump_alloc(s, e, size, 16) : calloc(n, size / n);
        made(e, s, op->slot, p, size);
        break;
    }
    case RP_MEMALIGN:
        p = null_alloc ? bump_alloc(s, e, size, (uint64_t)1 << op->arg)
                       : memalign((size_t)1 << op->arg, size);
        made(e, s, op->slot, p, size);
        break;
    case RP_POSIX_MEMALIGN: {
        uint64_t a = (uint64_t)1 << op->arg;
        if (a < sizeof(void *)) a = sizeof(void *);
        if (null_alloc) p = bump_alloc(s, e, size, a);
        else if (posix_memalign((void **)&p, a, size)) p = NULL;
        made(e, s, op->slot, p, size);
        break;
    }
    case RP_ALIGNED_ALLOC:
        p = null_alloc ? bump_alloc(s, e, size, (uint64_t)1 << op->arg)
                       : aligned_alloc((size_t)1 << op->arg, size);
        made(e, s, op->slot, p, size);
        break;
    case RP_VALLOC:
        p = null_alloc ? bump_alloc(s, e, size, e->page) : valloc(size);
        made(e, s, op->slot, p, size);
        break;
    case RP_PVALLOC: {  /* not every allocator exports pvalloc */
        uint64_t rounded = (size + e->page - 1) & ~(e->page - 1);
        p = null_alloc ? bump_alloc(s, e, rounded, e->page)
                       : memalign(e->page, rounded ? rounded : e->page);
        made(e, s, op->slot, p, size);
        break;
    }
    case RP_REALLOC: {
        rp_slot *o = &slots[op->slot];
        s->live -= (int64_t)o->size;
        p = null_alloc ? bump_alloc(s, e, size, 16) : realloc(o->p, size);
        made(e, s, op->arg, p, size);
        break;
    }
    case RP_REALLOC_NULL:
        p = null_alloc ? bump_alloc(s, e, size, 16) : realloc(NULL, size);
        made(e, s, op->slot, p, size);
        break;
    case RP_FREE_NULL:
        if (!null_alloc) free(NULL);
        break;
    case RP_HEAP_ALLOC: {
        void *h = slots[op->arg].p;
        if (null_alloc) p = bump_alloc(s, e, size, 16);
        else if (h) p = rp_heap_alloc(e->api, h, size, fl & RP_F_ZERO);
        else p = fl & RP_F_ZERO ? calloc(1, size) : malloc(size);
        made(e, s, op->slot, p, size);
        break;
    }
    case RP_HEAP_REALLOC: {
        rp_slot *o = &slots[op->slot];
        void *h = slots[op[1].slot].p;  /* the RP_ARG op after this one */
        s->live -= (int64_t)o->size;
        if (null_alloc) p = bump_alloc(s, e, size, 16);
        else p = h ? rp_heap_realloc(e->api, h, o->p, size) : realloc(o->p, size);
        made(e, s, op->arg, p, size);
        op++;
        break;
    }
    case RP_HEAP_FREE: {
        rp_slot *o = &slots[op->slot];
        void *h = slots[op->arg].p;
        if (!null_alloc) {
            if (h) rp_heap_free(e->api, h, o->p);
            else free(o->p);
        }
        s->live -= (int64_t)o->size;
        if (fl & RP_F_PUBLISH)  /* a free from another thread: the heap's owner waits for it */
            atomic_fetch_add_explicit(&e->c->ready[op->arg], 1, memory_order_release);
        break;
    }
    case RP_HEAP_DFREE: {  /* a native destroy frees it */
        rp_slot *o = &slots[op->slot];
        if (slots[op->arg].p) s->skipped++, s->done--;
        else if (!null_alloc) free(o->p);
        s->live -= (int64_t)o->size;
        break;
    }
    case RP_HEAP_CREATE: {
        void *h = !null_alloc && (fl & RP_F_NATIVE) && e->api->kind ? rp_heap_new(e->api) : NULL;
        slots[op->slot].p = h;
        slots[op->slot].size = 0;
        if (h) e->r->heaps_native++;
        else { e->r->heaps_free_each++; s->skipped++, s->done--; }
        break;
    }
    case RP_HEAP_DESTROY: {
        void *h = slots[op->slot].p;
        if (h) rp_heap_destroy(e->api, h);
        else s->skipped++, s->done--;
        slots[op->slot].p = NULL;
        break;
    }
    case RP_WAIT:
        wait_ready(&e->c->ready[op->slot], op->arg);
        s->done--;
        break;
    default:  /* RP_ARG is consumed by its heap realloc */
        s->done--;
        break;
    }
    if (__builtin_expect(first->w & (uint64_t)(RP_F_PUBLISH | RP_F_PEAK | RP_F_VACATE) << 8, 0))
        op_flags(e, first, kind);
    s->done++;
    return op;
}

/* How far ahead the slot table entries are prefetched: random slots of a large
 * live set miss the caches, and after a mispredicted dispatch the pipeline
 * would otherwise restart only to wait for them. 32 ops is about the memory
 * latency at the runner's speed (8 was too short with 256k live objects). */
#define RP_PREFETCH 32
#define RP_PREFETCH_FROM (256 << 10)  /* slot table bytes */
/* Ops between two stores of the progress counters the sampler reads: it reads
 * them every millisecond, so they may lag by this many ops. */
#define RP_PUBLISH_EVERY 64

static inline void publish(runner *r, const run_state *s)
{
    atomic_store_explicit(&r->done, s->done, memory_order_relaxed);
    atomic_store_explicit(&r->live, s->live, memory_order_relaxed);
}

/* The next segment of r's ops: the whole plan in memory, or a plan file's
 * segment k from the read-ahead (a wait for it is counted). */
static const rp_op *segment(runner *r, uint64_t k, uint64_t *n)
{
    run_ctx *c = r->ctx;
    if (!c->feed) {
        *n = r->tp->nops;
        return r->tp->ops;
    }
    uint64_t ns;
    const rp_op *op = rp_feed_get(c->feed, r->index, k, n, &ns);
    if (__builtin_expect(ns != 0, 0)) {
        r->stalls++;
        r->stall_ns += ns;
    }
    return op;
}

/* The next phase mark of r within the segment of n ops from op first (at
 * seg), or NULL. */
static inline const rp_op *mark_in(const runner *r, uint64_t first, uint64_t n, const rp_op *seg)
{
    return r->mark_pos - first < n ? seg + (r->mark_pos - first) : NULL;
}

/* The meeting at the trace's peak (see the top): the last runner to come
 * reads the resident memory with all of the peak live, then lets all go on,
 * and the runners whose ops all come after the peak start. A runner with no
 * op after the peak comes and ends. */
static void meet_at_peak(run_ctx *c, const runner *r)
{
    uint32_t n = atomic_fetch_add_explicit(&c->met, 1, memory_order_acq_rel) + 1;
    if (n == c->meet_expect) {
        atomic_store_explicit(&c->rss_at_peak_live, statm_resident(c->statm), memory_order_relaxed);
        pthread_mutex_lock(&c->mu);
        atomic_store_explicit(&c->all_met, 1, memory_order_release);
        pthread_cond_signal(&c->cv);
        pthread_mutex_unlock(&c->mu);
        return;
    }
    if (r->tp->peak_pos == r->tp->nops) return;
    for (unsigned spins = 0; !atomic_load_explicit(&c->all_met, memory_order_acquire); spins++) {
        if (spins < 256) cpu_relax();
        else sched_yield();
    }
}

/* r has done pos ops: the marks up to there. Entering a phase notes the
 * time and the calls made so far; a phase's peak samples RSS; the trace's
 * peak is where the runners meet. */
static __attribute__((noinline)) void phase_marks(runner *r, const run_state *s, uint64_t pos)
{
    run_ctx *c = r->ctx;
    for (; r->mark < r->nmarks && r->marks[r->mark].pos <= pos; r->mark++) {
        const phase_mark *m = &r->marks[r->mark];
        if (m->kind == MARK_MEET) {
            publish(r, s);  /* the samples taken meanwhile see the peak's live bytes */
            meet_at_peak(c, r);
        } else if (m->kind == MARK_PEAK) {
            atomic_store_explicit(&c->phase_rss[m->phase], statm_resident(c->statm), memory_order_relaxed);
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            r->enter_ns[m->phase] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
            r->enter_done[m->phase] = s->done;
            atomic_store_explicit(&r->phase, m->phase, memory_order_relaxed);
        }
    }
    r->mark_pos = r->mark < r->nmarks ? r->marks[r->mark].pos : UINT64_MAX;
    if (pos == UINT64_MAX && c->plan->nphases) {  /* the end */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r->enter_ns[c->plan->nphases] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        r->enter_done[c->plan->nphases] = s->done;
    }
}

/* The loop, specialised by the compiler for the null allocator and a real one,
 * with touching or without.
 * The ops between two timed calls run in spans of RP_PUBLISH_EVERY with no
 * timing and no progress store in them; the gap to the next timed call goes
 * on from one segment to the next. */
static inline __attribute__((always_inline)) void run_ops(runner *r, const int null_alloc, const int touches)
{
    run_ctx *c = r->ctx;
    const run_env e = { .r = r, .c = c, .slots = c->slots, .api = &c->heaps, .bump_end = r->bump_end,
                        .page = (uint64_t)c->page, .how = touches ? c->o->touch : RP_TOUCH_NONE,
                        .share = c->plan->st.touch_share ? c->plan->st.touch_share : RP_TOUCH_FULL };
    run_state s = { .bump = r->bump };
    /* ops before a segment's pf_end may prefetch RP_PREFETCH ahead without
       reading past it; none do when the slot table fits in L2, where
       prefetching costs more than it saves */
    const int pf = (uint64_t)c->plan->nslots * sizeof(rp_slot) > RP_PREFETCH_FROM;
    const uint32_t every = c->o->latency_every;
    const uint64_t nsegs = c->feed ? r->tp->nsegs : 1;
    uint64_t left = next_gap(r, every) - 1;  /* untimed ops before the next timed one */
    uint64_t first = 0;                      /* the segment's first op in r's ops */
    for (uint64_t k = 0; k < nsegs; k++) {
        uint64_t n;
        const rp_op *op = segment(r, k, &n), *const seg = op, *const end = op + n;
        const rp_op *const pf_end = pf && n > RP_PREFETCH ? end - RP_PREFETCH : op;
        const rp_op *mk = mark_in(r, first, n, seg);  /* the next phase mark in it, or NULL */
        while (op < end) {
            if (__builtin_expect(mk && op >= mk, 0)) {
                phase_marks(r, &s, first + (uint64_t)(op - seg));
                mk = mark_in(r, first, n, seg);
                continue;
            }
            const rp_op *stop = (uint64_t)(end - op) > left ? op + left : end;
            if (mk && stop > mk) stop = mk;
            const rp_op *const from = op;
            while (op < stop) {
                const rp_op *const span = stop - op > RP_PUBLISH_EVERY ? op + RP_PUBLISH_EVERY : stop;
                if (span <= pf_end)
                    for (; op < span; op++) {
                        __builtin_prefetch(&e.slots[op[RP_PREFETCH].slot], 1);
                        op = do_op(&e, &s, op, null_alloc, 0);
                    }
                else
                    for (; op < span; op++) op = do_op(&e, &s, op, null_alloc, 0);
                publish(r, &s);
            }
            const uint64_t ran = (uint64_t)(op - from);
            left = ran < left ? left - ran : 0;
            if (op >= end) break;  /* the timed call is in the next segment */
            if (mk && op >= mk) continue;  /* the mark comes before it */
            /* the timed call; a WAIT or a heap op that made no call is not timed */
            const unsigned kind = rp_op_kind(op);
            const uint64_t skipped = s.skipped;
            if (kind == RP_FREE) free_wait(&e, op);
            const uint64_t t0 = cpu_ticks();
            op = do_op(&e, &s, op, null_alloc, 1);
            const uint64_t dt = cpu_ticks() - t0;
            if (kind != RP_WAIT && s.skipped == skipped) r->hist[lat_class[kind]].n[rp_hist_bucket(dt)]++;
            publish(r, &s);
            op++;
            left = next_gap(r, every) - 1;
        }
        if (c->feed) rp_feed_put(c->feed, r->index, k);
        first += n;
    }
    if (r->nmarks) phase_marks(r, &s, UINT64_MAX);  /* those at its end */
    r->bump = s.bump;
    r->skipped += s.skipped;
    r->failures += s.failures;
}

/* Runner r (a trace thread's ops) on worker w. */
static void run_runner(worker *w, runner *r)
{
    run_ctx *c = r->ctx;
    r->hist = w->hist;
    r->bump = w->bump;
    r->bump_base = w->bump_base;
    r->bump_end = w->bump_end;
    const int touches = c->o->touch != RP_TOUCH_NONE;
    if (c->o->null_alloc) {
        if (touches) run_ops(r, 1, 1);
        else run_ops(r, 1, 0);
    } else {
        if (touches) run_ops(r, 0, 1);
        else run_ops(r, 0, 0);
    }
    w->bump = r->bump;
    clock_gettime(CLOCK_MONOTONIC, &r->end);
}

/* Under c->mu: may the next runner in the start order start? When every
 * runner ending before its first op has ended, and, when its ops all come
 * after the trace's peak, once the runners have met there. */
static int may_start(run_ctx *c)
{
    if (c->next >= c->norder) return 0;
    const rp_thread_plan *tp = &c->plan->threads[c->order[c->next]];
    return c->ended >= c->need[c->next] &&
           (tp->peak_pos || !c->meet_expect || atomic_load_explicit(&c->all_met, memory_order_acquire));
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    run_ctx *c = w->ctx;
    atomic_fetch_add_explicit(&c->waiting, 1, memory_order_release);
    int go;
    for (unsigned spins = 0; !(go = atomic_load_explicit(&c->go, memory_order_acquire)); spins++)
        if (spins < 256) cpu_relax();
        else sched_yield();
    if (go == RUN_QUIT) return NULL;  /* another worker could not start: no run */
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (c->next < c->norder && !may_start(c)) pthread_cond_wait(&c->cv, &c->mu);
        if (c->next >= c->norder) break;
        uint32_t t = c->order[c->next++];
        if (may_start(c)) pthread_cond_signal(&c->cv);  /* the one after it too, on another worker */
        pthread_mutex_unlock(&c->mu);
        run_runner(w, &c->th[t]);
        pthread_mutex_lock(&c->mu);
        c->ended_t[t] = 1;
        while (c->ended < c->norder && c->ended_t[c->by_end[c->ended]]) c->ended++;
    }
    pthread_cond_broadcast(&c->cv);  /* every runner has started: the idle workers end */
    pthread_mutex_unlock(&c->mu);
    atomic_fetch_add_explicit(&c->finished, 1, memory_order_release);
    return NULL;
}

typedef struct pos_thread {
    uint64_t pos;
    uint32_t t;
} pos_thread;

static int pos_cmp(const void *a, const void *b)
{
    const pos_thread *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* The start order (the top of the file) in mem (order_len bytes, mapped
 * here), and the workers it needs: the most runners it lets be under way at
 * once, the trace's threads alive at once (rp_plan_at_once). @return 0 or -1. */
static int order_setup(run_ctx *c, void **mem, size_t *mem_len)
{
    const rp_plan *p = c->plan;
    size_t nt = p->nthreads;
    *mem_len = nt * (3 * sizeof(uint32_t) + 1) + 2 * nt * sizeof(pos_thread) + 64;
    char *m = map_zero(*mem_len, 1);
    if (!(*mem = m)) return -1;
    pos_thread *first = (pos_thread *)m, *last = first + nt;
    c->order = (uint32_t *)(last + nt);
    c->need = c->order + nt;
    c->by_end = c->need + nt;
    c->ended_t = (uint8_t *)(c->by_end + nt);
    uint32_t n = 0;
    for (uint32_t t = 0; t < nt; t++)
        if (p->threads[t].nops) {
            first[n] = (pos_thread){ p->threads[t].first_pos, t };
            last[n++] = (pos_thread){ p->threads[t].last_pos, t };
        }
    qsort(first, n, sizeof *first, pos_cmp);
    qsort(last, n, sizeof *last, pos_cmp);
    uint32_t most = 0;
    for (uint32_t i = 0, j = 0; i < n; i++) {
        while (j < n && last[j].pos < first[i].pos) j++;
        c->order[i] = first[i].t;
        c->need[i] = j;
        c->by_end[i] = last[i].t;
        if (i + 1 - j > most) most = i + 1 - j;  /* under way once it starts */
    }
    c->norder = n;
    c->nworkers = most ? most : 1;
    return 0;
}

static void progress(const char *label, double frac, int done)
{
    char bar[41];
    int n = (int)(frac * 40);
    for (int i = 0; i < 40; i++) bar[i] = i < n ? '#' : '.';
    bar[40] = 0;
    if (done) fprintf(stderr, "\r%*s\r", 60 + (int)strlen(label), "");
    else fprintf(stderr, "\r%s [%s] %3d%%", label, bar, (int)(frac * 100));
}

static int mark_cmp(const void *a, const void *b)
{
    const phase_mark *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return (int)y->kind - (int)x->kind;  /* a peak reached before the next phase begins */
}

/* Does the plan have the runners meet at its peak? Several threads and a call. */
static int meets(const rp_plan *p) { return p->nthreads > 1 && p->st.peak_live_bytes; }

/* Each runner's marks (phases, the meeting at the peak), and the memory
 * phase_marks fills, in one mapping at *mem (len *mem_len). @return 0 or -1. */
static int phases_setup(run_ctx *c, void **mem, size_t *mem_len)
{
    const rp_plan *p = c->plan;
    size_t nt = p->nthreads, np = p->nphases, nm = meets(p) ? nt : 0;
    for (size_t t = 0; t < nt; t++) c->th[t].mark_pos = UINT64_MAX;
    if (!np && !nm) return 0;
    size_t marks = nt * np + np + nm, times = np ? nt * (np + 1) * 2 : 0;
    *mem_len = marks * sizeof(phase_mark) + times * sizeof(uint64_t) + np * sizeof(uint64_t);
    char *m = map_zero(*mem_len, 1);
    if (!(*mem = m)) return -1;
    phase_mark *mk = (phase_mark *)m;
    uint64_t *tm = (uint64_t *)(m + marks * sizeof(phase_mark));
    c->phase_rss = (_Atomic uint64_t *)(tm + times);
    for (size_t t = 0; t < nt; t++) {
        runner *r = &c->th[t];
        phase_mark *v = mk;
        for (size_t k = 0; k < np; k++) {
            *mk++ = (phase_mark){ p->phase_start[k * nt + t], (uint32_t)k, MARK_ENTER };
            if (p->phases[k].peak_thread == t)
                *mk++ = (phase_mark){ p->phases[k].peak_pos, (uint32_t)k, MARK_PEAK };
        }
        if (nm && p->threads[t].nops && p->threads[t].peak_pos) {
            *mk++ = (phase_mark){ p->threads[t].peak_pos, 0, MARK_MEET };
            c->meet_expect++;
        }
        r->marks = v;
        r->nmarks = (uint32_t)(mk - v);
        qsort(v, r->nmarks, sizeof *v, mark_cmp);
        r->mark_pos = r->nmarks ? r->marks[0].pos : UINT64_MAX;
        if (np) {
            r->enter_ns = tm;
            r->enter_done = tm + np + 1;
            tm += 2 * (np + 1);
        }
    }
    return 0;
}

/* The figures of each phase from the runners' marks and the samples. */
static void phases_figures(const run_ctx *c, rp_result *res, uint64_t base)
{
    const rp_plan *p = c->plan;
    res->nphases = p->nphases;
    for (uint32_t k = 0; k < p->nphases; k++) {
        rp_phase_result *q = &res->phases[k];
        uint64_t ns = 0, calls = 0;
        for (size_t t = 0; t < p->nthreads; t++) {
            ns += c->th[t].enter_ns[k + 1] - c->th[t].enter_ns[k];
            calls += c->th[t].enter_done[k + 1] - c->th[t].enter_done[k];
        }
        q->calls = calls;
        q->time_s = (double)ns / 1e9;
        q->ns_per_op = calls ? (double)ns / (double)calls : 0;
        uint64_t rss = atomic_load(&c->phase_rss[k]);
        q->rss_at_peak_live = rss > base ? (rss - base) * (uint64_t)c->page : 0;
        if (q->rss_at_peak_live > q->peak_rss_bytes) q->peak_rss_bytes = q->rss_at_peak_live;
        uint64_t live = p->phases[k].peak_live_bytes;
        q->frag_at_peak_live = live ? (double)q->rss_at_peak_live / (double)live : 0;
        q->frag_peak_over_peak = live ? (double)q->peak_rss_bytes / (double)live : 0;
    }
}

static void add_sample(rp_result *res, uint64_t op, uint64_t live, uint64_t rss, unsigned *stride_us)
{
    if (res->nsamples == RP_SERIES_MAX) {  /* keep every other sample, sample half as often */
        for (uint32_t i = 0; i < RP_SERIES_MAX / 2; i++) res->samples[i] = res->samples[2 * i + 1];
        res->nsamples = RP_SERIES_MAX / 2;
        *stride_us *= 2;
    }
    res->samples[res->nsamples++] = (rp_sample){ op, live, rss };
}

int rp_run(const rp_plan *plan, const rp_run_opts *o, rp_result *res)
{
    memset(res, 0, offsetof(rp_result, samples));
    run_ctx c = { .plan = plan, .o = o, .page = sysconf(_SC_PAGESIZE) };
    size_t nt = plan->nthreads;
    size_t slots_len = (size_t)plan->nslots * sizeof(rp_slot);
    size_t ready_len = (size_t)plan->nslots * sizeof(uint32_t);
    size_t th_len = nt * sizeof(runner);
    c.slots = map_zero(slots_len, 1);
    c.ready = map_zero(ready_len, 1);
    c.th = map_zero(th_len, 1);
    c.statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    void *phase_mem = NULL, *order_mem = NULL;
    size_t phase_len = 0, order_len = 0, wk_len = 0;
    int rc = 0, sync = 0;
    rp_heaps_find(&c.heaps, o->null_alloc);
    snprintf(res->heap_api, sizeof res->heap_api, "%s", rp_heaps_name(c.heaps.kind));
    if (o->heaps_free_each) c.heaps.kind = RP_HEAPS_NONE;  /* named, not used */
    if (!c.slots || !c.ready || !c.th || c.statm < 0) {
        snprintf(res->msg, sizeof res->msg, "runner: cannot map its memory: %s", strerror(errno));
        rc = HATF_E_NOMEM;
        goto out;
    }
    if (phases_setup(&c, &phase_mem, &phase_len)) {
        snprintf(res->msg, sizeof res->msg, "runner: cannot map its memory for the phases: %s", strerror(errno));
        rc = HATF_E_NOMEM;
        goto out;
    }
    if (order_setup(&c, &order_mem, &order_len) ||
        !(c.wk = map_zero(wk_len = c.nworkers * sizeof(worker), 1))) {
        snprintf(res->msg, sizeof res->msg, "runner: cannot map its memory for the threads: %s", strerror(errno));
        rc = HATF_E_NOMEM;
        goto out;
    }
    if (pthread_mutex_init(&c.mu, NULL) || (pthread_cond_init(&c.cv, NULL) && (pthread_mutex_destroy(&c.mu), 1))) {
        snprintf(res->msg, sizeof res->msg, "runner: cannot set up its threads' lock");
        rc = HATF_E_NOMEM;
        goto out;
    }
    sync = 1;
    res->runner_threads = c.nworkers;
    if (plan->in_file) {  /* the read-ahead's buffers, filled; its thread starts with the runners' */
        if (!(c.feed = rp_feed_new(plan, res->msg, sizeof res->msg))) {
            rc = HATF_E_NOMEM;
            goto out;
        }
        res->plan_ring_bytes = rp_feed_bytes(c.feed);
    }
    uint64_t calls = 0, bump_bytes = 0;
    size_t started = 0;
    for (size_t t = 0; t < nt; t++) {
        runner *r = &c.th[t];
        r->ctx = &c;
        r->index = (uint32_t)t;
        r->tp = &plan->threads[t];
        r->rng = 0x9e3779b97f4a7c15ull * (t + 1);
        calls += r->tp->calls;
        if (r->tp->bump_bytes > bump_bytes) bump_bytes = r->tp->bump_bytes;
    }
    for (size_t i = 0; i < c.nworkers; i++) {
        worker *w = &c.wk[i];
        w->ctx = &c;
        if (o->null_alloc) {  /* a region each worker: the largest any of its runners needs */
            w->bump_len = bump_bytes + 2 * (size_t)c.page;
            w->bump = w->bump_base = map_zero(w->bump_len, 0);
            if (!w->bump) {
                snprintf(res->msg, sizeof res->msg, "null allocator: cannot reserve %llu bytes",
                         (unsigned long long)bump_bytes);
                rc = HATF_E_NOMEM;
                goto join;
            }
            w->bump_end = w->bump + w->bump_len;
        }
    }
    for (; started < c.nworkers; started++)
        if (pthread_create(&c.wk[started].tid, NULL, worker_main, &c.wk[started])) {
            snprintf(res->msg, sizeof res->msg, "runner: cannot start thread %zu", started);
            rc = HATF_E_NOMEM;
            goto join;
        }

    if (c.feed && rp_feed_start(c.feed)) {
        snprintf(res->msg, sizeof res->msg, "runner: cannot start the plan's read-ahead thread");
        rc = HATF_E_NOMEM;
        goto join;
    }
    /* Baseline: everything of the runner's is resident now, the threads' stacks
       included once they all wait for the go. */
    while (atomic_load_explicit(&c.waiting, memory_order_acquire) != c.nworkers) sched_yield();
    uint64_t base = statm_resident(c.statm);
    res->baseline_rss_bytes = base * (uint64_t)c.page;
    res->process_threads = process_threads();

    unsigned stride_us = o->sample_us ? o->sample_us : 1000;
    int bar = o->progress && isatty(2);
    struct timespec t0, now, last_bar = { 0, 0 };
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t tsc0 = cpu_ticks();
    atomic_store_explicit(&c.go, RUN_GO, memory_order_release);

    int shown = 0;
    for (;;) {
        int fin = atomic_load_explicit(&c.finished, memory_order_acquire) == c.nworkers;
        uint64_t done = 0;
        int64_t live = 0;
        for (size_t t = 0; t < nt; t++) {
            done += atomic_load_explicit(&c.th[t].done, memory_order_relaxed);
            live += atomic_load_explicit(&c.th[t].live, memory_order_relaxed);
        }
        uint64_t rss = statm_resident(c.statm);
        rss = rss > base ? (rss - base) * (uint64_t)c.page : 0;
        if (live < 0) live = 0;
        add_sample(res, done, (uint64_t)live, rss, &stride_us);
        if (plan->nphases) {  /* the sample's phase: the latest any runner has entered */
            uint32_t ph = 0;
            for (size_t t = 0; t < nt; t++) {
                uint32_t x = atomic_load_explicit(&c.th[t].phase, memory_order_relaxed);
                if (x > ph) ph = x;
            }
            if (rss > res->phases[ph].peak_rss_bytes) res->phases[ph].peak_rss_bytes = rss;
        }
        if (fin) break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (bar && ts_ns(&now) - ts_ns(&t0) > 1e9 && ts_ns(&now) - ts_ns(&last_bar) > 1e8) {
            progress(o->progress, calls ? (double)done / (double)calls : 1, 0);
            last_bar = now;
            shown = 1;
        }
        struct timespec d = { (time_t)(stride_us / 1000000), (long)(stride_us % 1000000) * 1000 };
        nanosleep(&d, NULL);
    }
    if (shown) progress(o->progress, 1, 1);

join:
    if (rc) atomic_store_explicit(&c.go, RUN_QUIT, memory_order_release);  /* the started ones wait for it */
    for (size_t i = 0; i < started; i++) pthread_join(c.wk[i].tid, NULL);
    if (rc) goto out;

    /* wall time: from the go signal to the last runner's end */
    double end_ns = ts_ns(&t0);
    for (size_t t = 0; t < nt; t++)
        if (ts_ns(&c.th[t].end) > end_ns) end_ns = ts_ns(&c.th[t].end);
    double wall_ns = end_ns - ts_ns(&t0);
    /* cycles per ns for the latency histograms, over at least 20 ms */
    clock_gettime(CLOCK_MONOTONIC, &now);
    while (ts_ns(&now) - ts_ns(&t0) < 2e7) {
        struct timespec d = { 0, 1000000 };
        nanosleep(&d, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    }
    double cyc_per_ns = (double)(cpu_ticks() - tsc0) / (ts_ns(&now) - ts_ns(&t0));

    res->ops = plan->st.ops;
    res->wall_s = wall_ns / 1e9;
    uint64_t failures = 0;
    for (unsigned k = 0; k < RP_LAT_COUNT_; k++) {
        rp_hist h;
        memset(&h, 0, sizeof h);
        for (size_t i = 0; i < c.nworkers; i++)
            for (unsigned b = 0; b < RP_HIST_BUCKETS; b++) h.n[b] += c.wk[i].hist[k].n[b];
        for (unsigned b = 0; b < RP_HIST_BUCKETS; b++) res->lat_count[k] += h.n[b];
        static const double q[3] = { 0.5, 0.99, 0.999 };
        for (int i = 0; i < 3; i++) res->lat_ns[k][i] = rp_hist_quantile(&h, q[i]) / cyc_per_ns;
    }
    for (size_t t = 0; t < nt; t++) {
        failures += c.th[t].failures;
        res->skipped_calls += c.th[t].skipped;
        res->heaps_native += c.th[t].heaps_native;
        res->heaps_free_each += c.th[t].heaps_free_each;
        res->plan_stalls += c.th[t].stalls;
        res->plan_stall_s += (double)c.th[t].stall_ns / 1e9;
    }
    res->calls = calls - res->skipped_calls;
    res->ns_per_op = res->calls ? wall_ns / (double)res->calls : 0;
    res->ops_per_s = wall_ns > 0 ? (double)res->calls / (wall_ns / 1e9) : 0;
    snprintf(res->heap_mode, sizeof res->heap_mode, "%s",
             res->heaps_native && res->heaps_free_each ? "mixed"
             : res->heaps_native || (!res->heaps_free_each && c.heaps.kind) ? "native" : "free-each");
    /* The peak of allocator memory, and for frag_at_peak_rss the peak while
       the program's live bytes were at least a tenth of theirs, set against
       the live bytes at its first sample within 1% of it: an allocator that
       keeps its pages to the end is judged where it grew that large, and one
       whose memory still creeps up while the program drains to almost
       nothing (mimalloc on kvstore: 9.6 -> 10.1 MiB while live bytes fell
       from 2.2 MiB to 4.6 KiB) is not set against what is left, which made
       the figure 5 or 2150 by where the last sample fell. */
    uint64_t peak_rss = 0;
    for (uint32_t i = 0; i < res->nsamples; i++)
        if (res->samples[i].rss > peak_rss) peak_rss = res->samples[i].rss;
    res->peak_rss_bytes = peak_rss;
    res->peak_live_bytes = plan->st.peak_live_bytes;
    rp_peak_rss_busy(res->samples, res->nsamples, res->peak_live_bytes, &res->peak_rss_busy_bytes,
                     &res->live_at_peak_rss);
    uint64_t at_peak = atomic_load(&c.rss_at_peak_live);
    res->rss_at_peak_live = at_peak > base ? (at_peak - base) * (uint64_t)c.page : 0;
    if (res->rss_at_peak_live > res->peak_rss_busy_bytes) {  /* taken between two samples */
        res->peak_rss_busy_bytes = res->rss_at_peak_live;
        res->live_at_peak_rss = res->peak_live_bytes;
    }
    if (res->rss_at_peak_live > res->peak_rss_bytes) res->peak_rss_bytes = res->rss_at_peak_live;
    rp_figures_frag(res);
    if (plan->nphases) phases_figures(&c, res, base);
    if (failures) {
        snprintf(res->msg, sizeof res->msg, "%llu allocation calls returned NULL",
                 (unsigned long long)failures);
    }

out:
    rp_feed_free(c.feed);
    for (size_t i = 0; c.wk && i < c.nworkers; i++)
        if (c.wk[i].bump_base) munmap(c.wk[i].bump_base, c.wk[i].bump_len);
    if (c.wk) munmap(c.wk, wk_len);
    if (order_mem) munmap(order_mem, order_len);
    if (sync) {
        pthread_cond_destroy(&c.cv);
        pthread_mutex_destroy(&c.mu);
    }
    if (c.slots) munmap(c.slots, slots_len ? slots_len : 1);
    if (c.ready) munmap((void *)c.ready, ready_len ? ready_len : 1);
    if (c.th) munmap(c.th, th_len ? th_len : 1);
    if (c.statm >= 0) close(c.statm);
    if (phase_mem) munmap(phase_mem, phase_len);
    res->status = rc;
    return rc;
}
