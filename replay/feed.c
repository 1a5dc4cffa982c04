/* feed.c — the runner's read-ahead: a plan file's segments mapped ahead of
 * each runner thread, by a thread of its own.
 *
 * Each runner thread has a ring of RP_FEED_BUFS mappings; segment k of
 * thread t is mapped (read-only, MAP_POPULATE: its pages read from the page
 * cache or the disk and entered in the page tables) into slot k %
 * RP_FEED_BUFS. No copy is made: the read-ahead's work per segment is an
 * mmap and, for the segment the slot held before, a munmap. File pages are
 * not anonymous memory, so they stay out of the allocator's figure (resident
 * minus shared pages). Two counters per thread pass the slots back and forth
 * without a lock: `filled` (segments mapped, stored by the reader with
 * release) and `used` (segments the runner is done with, stored by the
 * runner with release). The reader maps segment k only when
 * k - used < RP_FEED_BUFS, after unmapping segment k - RP_FEED_BUFS.
 *
 * Off the measured path: every slot is mapped before the run starts; the
 * runner's only work per segment is an acquire load, a release store and a
 * pointer; the reader's system calls and any wait for the disk happen on its
 * own thread while the runner works through the segments ahead of it. A
 * runner that reaches a segment not mapped yet waits (spinning, then
 * yielding) and the wait is counted and timed (rp_result.plan_stalls,
 * plan_stall_s): a replay whose plan kept up reports 0. (Under memory
 * pressure the kernel may drop a mapped page, which the runner then reads
 * back in a fault: the price of not holding the plan in anonymous memory.)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"

typedef struct feed_slot {
    const rp_op *ops;
    void *map;
    size_t len;
} feed_slot;

typedef struct feed_thread {
    _Alignas(64) _Atomic uint64_t filled;  /* segments mapped (the reader's) */
    _Alignas(64) _Atomic uint64_t used;    /* segments done (the runner's) */
    _Alignas(64) feed_slot slot[RP_FEED_BUFS];
} feed_thread;

struct rp_feed {
    const rp_plan *p;
    feed_thread *th;
    size_t th_len;
    uint64_t page;
    uint64_t window_bytes;
    pthread_t tid;
    int started;
    _Atomic int ready;       /* the thread's stack is resident */
    _Atomic int stop;
};

static void *map_pop(size_t len)
{
    void *m = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static void unmap_slot(feed_slot *s)
{
    if (s->map) munmap(s->map, s->len);
    s->map = NULL;
}

/* Map segment k (index into p->segs) into s. @return 0 or -1. */
static int map_seg(rp_feed *f, feed_slot *s, uint64_t k)
{
    const rp_seg *g = &f->p->segs[k];
    uint64_t from = g->off & ~(f->page - 1);
    size_t len = (size_t)(g->off + g->nops * sizeof(rp_op) - from);
    void *m = mmap(NULL, len ? len : 1, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f->p->fd, (off_t)from);
    if (m == MAP_FAILED) return -1;
    s->map = m;
    s->len = len ? len : 1;
    s->ops = (const rp_op *)((char *)m + (g->off - from));
    return 0;
}

/* One pass over the threads, mapping every segment there is room for.
 * @return segments mapped, or -1 when every segment is. */
static int64_t fill(rp_feed *f)
{
    int64_t n = 0;
    int all = 1;
    for (uint32_t t = 0; t < f->p->nthreads; t++) {
        feed_thread *ft = &f->th[t];
        const rp_thread_plan *tp = &f->p->threads[t];
        uint64_t k = atomic_load_explicit(&ft->filled, memory_order_relaxed);
        while (k < tp->nsegs && k - atomic_load_explicit(&ft->used, memory_order_acquire) < RP_FEED_BUFS) {
            feed_slot *s = &ft->slot[k % RP_FEED_BUFS];
            unmap_slot(s);  /* segment k - RP_FEED_BUFS, done with */
            if (map_seg(f, s, tp->first_seg + k)) {
                /* the runners would wait for it for ever: the child ends, the parent says so */
                static const char m[] = "hatrace: replay: cannot map the plan file\n";
                if (write(2, m, sizeof m - 1)) {}
                _exit(1);
            }
            atomic_store_explicit(&ft->filled, ++k, memory_order_release);
            n++;
        }
        all &= k == tp->nsegs;
    }
    return all ? -1 : n;
}

static void *reader_main(void *arg)
{
    rp_feed *f = arg;
    /* fault in the stack it will use before the runner's baseline is taken */
    volatile char pad[16384];
    memset((char *)pad, 0, sizeof pad);
    atomic_store_explicit(&f->ready, 1, memory_order_release);
    int64_t n;
    while (!atomic_load_explicit(&f->stop, memory_order_relaxed) && (n = fill(f)) >= 0)
        if (!n) {  /* every ring full: seven segments ahead last a runner over 2 ms (32768 ops at
                      10 ns or more each), so waking less often than this only costs the runners */
            struct timespec d = { 0, 500000 };
            nanosleep(&d, NULL);
        }
    return NULL;
}

rp_feed *rp_feed_new(const rp_plan *p, char *msg, size_t cap)
{
    size_t th_len = (p->nthreads ? p->nthreads : 1) * sizeof(feed_thread);
    rp_feed *f = map_pop(sizeof *f);
    feed_thread *th = map_pop(th_len);
    if (!f || !th) {
        snprintf(msg, cap, "runner: cannot map the plan's read-ahead: %s", strerror(errno));
        if (f) munmap(f, sizeof *f);
        if (th) munmap(th, th_len);
        return NULL;
    }
    *f = (rp_feed){ .p = p, .th = th, .th_len = th_len, .page = (uint64_t)sysconf(_SC_PAGESIZE) };
    for (uint32_t t = 0; t < p->nthreads; t++)
        f->window_bytes += RP_FEED_BUFS * (p->threads[t].max_seg * sizeof(rp_op) + f->page);
    fill(f);  /* every ring full before the run */
    return f;
}

int rp_feed_start(rp_feed *f)
{
    if (pthread_create(&f->tid, NULL, reader_main, f)) return -1;
    f->started = 1;
    while (!atomic_load_explicit(&f->ready, memory_order_acquire)) sched_yield();
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

const rp_op *rp_feed_get(rp_feed *f, uint32_t t, uint64_t k, uint64_t *nops, uint64_t *stall_ns)
{
    feed_thread *ft = &f->th[t];
    *stall_ns = 0;
    if (atomic_load_explicit(&ft->filled, memory_order_acquire) <= k) {
        double t0 = now_ns();
        for (unsigned spins = 0; atomic_load_explicit(&ft->filled, memory_order_acquire) <= k; spins++)
            if (spins < 256) __asm__ volatile("" ::: "memory");
            else sched_yield();
        double d = now_ns() - t0;
        *stall_ns = d >= 1 ? (uint64_t)d : 1;
    }
    *nops = f->p->segs[f->p->threads[t].first_seg + k].nops;
    return ft->slot[k % RP_FEED_BUFS].ops;
}

void rp_feed_put(rp_feed *f, uint32_t t, uint64_t k)
{
    atomic_store_explicit(&f->th[t].used, k + 1, memory_order_release);
}

uint64_t rp_feed_bytes(const rp_feed *f) { return f->window_bytes; }

void rp_feed_free(rp_feed *f)
{
    if (!f) return;
    atomic_store_explicit(&f->stop, 1, memory_order_relaxed);
    if (f->started) pthread_join(f->tid, NULL);
    for (uint32_t t = 0; t < f->p->nthreads; t++)
        for (unsigned i = 0; i < RP_FEED_BUFS; i++) unmap_slot(&f->th[t].slot[i]);
    munmap(f->th, f->th_len);
    munmap(f, sizeof *f);
}
