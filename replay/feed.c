/* feed.c — the runner's read-ahead: a plan file's segments read into a ring
 * of buffers per runner thread, by a thread of its own.
 *
 * Each runner thread t has RP_FEED_BUFS buffers of its longest segment,
 * mmap'd and prefaulted before the baseline is taken (so they are the
 * runner's memory, not the allocator's: the reads only overwrite resident
 * pages). Segment k of thread t goes into buffer k % RP_FEED_BUFS. Two
 * counters per thread pass the buffers back and forth without a lock:
 * `filled` (segments read, stored by the reader with release) and `used`
 * (segments the runner is done with, stored by the runner with release). The
 * reader fills a buffer only when filled - used < RP_FEED_BUFS.
 *
 * Off the measured path: all buffers are filled before the run starts; the
 * runner's only work per segment is two atomic accesses and a pointer; the
 * reader's system calls (pread) and waits for the disk happen on its own
 * thread while the runner works through the buffers ahead of it. A runner
 * that reaches a segment not read yet waits (spinning, then yielding) and the
 * wait is counted and timed (rp_result.plan_stalls, plan_stall_s): a replay
 * whose plan kept up reports 0.
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

typedef struct feed_thread {
    _Alignas(64) _Atomic uint64_t filled;  /* segments read (the reader's) */
    _Alignas(64) _Atomic uint64_t used;    /* segments done (the runner's) */
    _Alignas(64) rp_op *buf;               /* RP_FEED_BUFS x cap ops */
    uint64_t cap;
} feed_thread;

struct rp_feed {
    const rp_plan *p;
    feed_thread *th;
    size_t th_len;
    char *bufs;
    size_t bufs_len;
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

/* One pass over the threads, reading every segment there is room for.
 * @return segments read, or -1 when every segment is read. */
static int64_t fill(rp_feed *f)
{
    int64_t n = 0;
    int all = 1;
    for (uint32_t t = 0; t < f->p->nthreads; t++) {
        feed_thread *ft = &f->th[t];
        const rp_thread_plan *tp = &f->p->threads[t];
        uint64_t k = atomic_load_explicit(&ft->filled, memory_order_relaxed);
        while (k < tp->nsegs && k - atomic_load_explicit(&ft->used, memory_order_acquire) < RP_FEED_BUFS) {
            if (rp_plan_read_seg(f->p, tp->first_seg + k, ft->buf + (k % RP_FEED_BUFS) * ft->cap)) {
                /* the runners would wait for it for ever: the child ends, the parent says so */
                static const char m[] = "hatrace: replay: cannot read the plan file\n";
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
        if (!n) {  /* every ring full: a segment lasts the runner well over this */
            struct timespec d = { 0, 50000 };
            nanosleep(&d, NULL);
        }
    return NULL;
}

rp_feed *rp_feed_new(const rp_plan *p, char *msg, size_t cap)
{
    size_t th_len = (p->nthreads ? p->nthreads : 1) * sizeof(feed_thread), bufs_len = 0;
    for (uint32_t t = 0; t < p->nthreads; t++) bufs_len += RP_FEED_BUFS * p->threads[t].max_seg * sizeof(rp_op);
    rp_feed *f = map_pop(sizeof *f);
    feed_thread *th = map_pop(th_len);
    char *bufs = map_pop(bufs_len);
    if (!f || !th || !bufs) {
        snprintf(msg, cap, "runner: cannot map the plan's read-ahead buffers (%zu bytes): %s", bufs_len,
                 strerror(errno));
        if (f) munmap(f, sizeof *f);
        if (th) munmap(th, th_len);
        if (bufs) munmap(bufs, bufs_len ? bufs_len : 1);
        return NULL;
    }
    *f = (rp_feed){ .p = p, .th = th, .th_len = th_len, .bufs = bufs, .bufs_len = bufs_len };
    size_t off = 0;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        th[t].buf = (rp_op *)(bufs + off);
        th[t].cap = p->threads[t].max_seg;
        off += RP_FEED_BUFS * th[t].cap * sizeof(rp_op);
    }
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
    return ft->buf + (k % RP_FEED_BUFS) * ft->cap;
}

void rp_feed_put(rp_feed *f, uint32_t t, uint64_t k)
{
    atomic_store_explicit(&f->th[t].used, k + 1, memory_order_release);
}

uint64_t rp_feed_bytes(const rp_feed *f) { return f->bufs_len; }

void rp_feed_free(rp_feed *f)
{
    if (!f) return;
    atomic_store_explicit(&f->stop, 1, memory_order_relaxed);
    if (f->started) pthread_join(f->tid, NULL);
    munmap(f->bufs, f->bufs_len ? f->bufs_len : 1);
    munmap(f->th, f->th_len);
    munmap(f, sizeof *f);
}
