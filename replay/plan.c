/* plan.c — the plan while it is built, and its file.
 *
 * The compiler pushes each thread's ops into a window in memory (rp_planw).
 * In a file plan, a full window writes its older half at the end of the file
 * as one segment and keeps the newer half, so the compiler's memory is the
 * windows, not the trace. Flags the compiler adds later to an op (PUBLISH
 * when another thread consumes its object, PEAK, NATIVE, VACATE) go into the
 * window when the op is still there, else into a queue of patches that is
 * sorted and written into the file through a mapping of at most
 * PATCH_CHUNK bytes at a time when it is full and at the end.
 *
 * File (native byte order, an unlinked temporary file or a memfd, plan_place.c; never kept):
 *   rp_file_header (at 0, written last) | segments ... |
 *   index: nthreads x rp_file_thread, nsegs x rp_seg (each thread's segments
 *   contiguous and in order), and with phases nphases x rp_phase and
 *   nphases x nthreads phase starts (uint64_t)
 * A heap realloc and its RP_ARG op never straddle two segments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrmap.h"
#include "replay.h"

#define RP_FILE_MAGIC 0x3457414c50595248ull  /* "HRYPLAW4" */
#define WINDOW_BUDGET (4u << 20)            /* ops in all windows together (64 MB) */
#define WINDOW_MIN 1024u                     /* ... but at least this many per thread */
#define SEG_MAX 32768u                       /* ops in a segment at most (512 KB): the runner's read-ahead
                                                holds RP_FEED_BUFS of them per thread */
#define PATCH_MAX (1u << 18)                 /* queued patches before they are written (4 MB) */
#define PATCH_CHUNK ((uint64_t)4 << 20)      /* bytes of the file mapped at a time: its pages count
                                                as the process's resident memory while mapped */

typedef struct rp_file_header {
    uint64_t magic;
    uint32_t nthreads, nslots;
    uint32_t single, nphases;
    uint64_t nsegs, index_off, window_ops;
    rp_plan_stats st;
} rp_file_header;

typedef struct rp_file_thread {
    uint64_t trace_thread, nops, calls, bump_bytes, first_seg, nsegs, max_seg, peak_pos, first_pos, last_pos;
} rp_file_thread;

typedef struct wseg {
    uint64_t first;        /* index of its first op */
    uint64_t off;          /* where it is in the file */
} wseg;

typedef struct wthread {
    rp_op *ops;            /* the window: ops base .. base + n - 1 */
    uint64_t base, n, cap;
    uint64_t calls, bump;  /* bump: the null allocator's need, all allocations (bump_reserve) */
    uint64_t bump_one;     /* its need for the largest one */
    wseg *segs;
    size_t nsegs, capsegs;
    uint64_t max_seg;
} wthread;

typedef struct patch {
    uint64_t off;          /* the op's byte offset in the file */
    uint64_t flags;
} patch;

struct rp_planw {
    int fd;                /* < 0: in memory */
    uint64_t window;
    wthread *th;
    uint32_t nth, capth;
    uint64_t end;          /* bytes written */
    patch *pend;
    size_t npend;
    int err;               /* errno of the last failure, 0: out of memory */
};

void rp_plan_free(rp_plan *p)
{
    if (p->threads)
        for (uint32_t t = 0; t < p->nthreads; t++) free(p->threads[t].ops);
    free(p->threads);
    free(p->segs);
    free(p->phases);
    free(p->phase_start);
    memset(p, 0, sizeof *p);
}

int64_t rp_plan_add_thread(rp_plan *p, uint64_t trace_thread)
{
    uint32_t n = p->nthreads;
    if ((n & (n - 1)) == 0) {  /* grow at powers of two */
        uint32_t cap = n ? 2 * n : 4;
        rp_thread_plan *t = realloc(p->threads, cap * sizeof *t);
        if (!t) return -1;
        p->threads = t;
    }
    memset(&p->threads[n], 0, sizeof p->threads[n]);
    p->threads[n].trace_thread = trace_thread;
    p->nthreads = n + 1;
    return n;
}

static int write_at(int fd, const void *buf, size_t n, uint64_t off)
{
    const char *c = buf;
    while (n) {
        ssize_t w = pwrite(fd, c, n, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = ENOSPC;
            return -1;
        }
        c += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
    char *c = buf;
    while (n) {
        ssize_t r = pread(fd, c, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

/* ---- the writer ------------------------------------------------------------- */

/* A file plan's windows are megabytes that cross_thread flags at random (the
 * op that made an object another thread frees): on huge pages (addrmap.h),
 * where 4 KiB pages had each such flag and its prefetch wait for a page walk.
 * A plan in memory hands its windows to rp_plan (freed with free): malloc. */
static void win_free(rp_planw *w, wthread *th)
{
    if (w->fd < 0) free(th->ops);
    else addrmap_big_free(th->ops, th->cap * sizeof *th->ops);
}

/* Resize th's window to cap ops, its ops kept. @return 0 or -1. */
static int win_resize(rp_planw *w, wthread *th, uint64_t cap)
{
    rp_op *o;
    if (w->fd < 0) {
        o = realloc(th->ops, cap * sizeof *o);
    } else if ((o = addrmap_big_alloc(cap * sizeof *o))) {
        if (th->n) memcpy(o, th->ops, th->n * sizeof *o);
        win_free(w, th);
    }
    if (!o) return w->err = 0, -1;
    th->ops = o;
    th->cap = cap;
    return 0;
}

rp_planw *rp_planw_new(int fd, uint64_t window_ops)
{
    rp_planw *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->fd = fd;
    w->window = window_ops < 4 ? 4 : window_ops;
    w->end = (sizeof(rp_file_header) + 63) & ~(uint64_t)63;
    return w;
}

void rp_planw_free(rp_planw *w)
{
    if (!w) return;
    for (uint32_t t = 0; t < w->nth; t++) {
        win_free(w, &w->th[t]);
        free(w->th[t].segs);
    }
    free(w->th);
    free(w->pend);
    free(w);
}

int rp_planw_error(const rp_planw *w) { return w->err; }

/* A window's size now: the budget shared by the threads so far. */
static uint64_t window_cap(const rp_planw *w)
{
    uint64_t cap = WINDOW_BUDGET / (w->nth ? w->nth : 1);
    if (cap < WINDOW_MIN) cap = WINDOW_MIN;
    return cap < w->window ? cap : w->window;
}

int rp_planw_thread(rp_planw *w, uint32_t t)
{
    if (t != w->nth) return -1;
    if (w->nth == w->capth) {
        uint32_t cap = w->capth ? 2 * w->capth : 4;
        wthread *th = realloc(w->th, cap * sizeof *th);
        if (!th) return -1;
        w->th = th;
        w->capth = cap;
    }
    memset(&w->th[t], 0, sizeof w->th[t]);
    w->nth++;
    return 0;
}

/* Write the first k ops of t's window as segments of at most SEG_MAX ops (and
 * at most half a window), and drop them from the window. A heap realloc stays
 * in the segment of its RP_ARG; pre: ops[k - 1] is not a heap realloc. */
static int write_out(rp_planw *w, wthread *th, uint64_t k)
{
    uint64_t piece = th->cap / 2 < SEG_MAX ? th->cap / 2 : SEG_MAX;
    if (!piece) piece = 1;
    for (uint64_t from = 0; from < k;) {
        uint64_t m = k - from > piece ? piece : k - from;
        if (from + m < k && rp_op_kind(&th->ops[from + m - 1]) == RP_HEAP_REALLOC) m++;
        if (th->nsegs == th->capsegs) {
            size_t cap = th->capsegs ? 2 * th->capsegs : 16;
            wseg *s = realloc(th->segs, cap * sizeof *s);
            if (!s) return w->err = 0, -1;
            th->segs = s;
            th->capsegs = cap;
        }
        if (write_at(w->fd, th->ops + from, m * sizeof(rp_op), w->end)) return w->err = errno, -1;
        th->segs[th->nsegs++] = (wseg){ th->base + from, w->end };
        w->end += m * sizeof(rp_op);
        if (m > th->max_seg) th->max_seg = m;
        from += m;
    }
    memmove(th->ops, th->ops + k, (th->n - k) * sizeof(rp_op));
    th->base += k;
    th->n -= k;
    return 0;
}

/* Make room in t's window: it grows (a plan in memory without end, a file
 * plan up to the window's current size), else a file plan writes all but the
 * newest half of it. */
static int make_room(rp_planw *w, wthread *th)
{
    uint64_t full = w->fd < 0 ? UINT64_MAX : window_cap(w);
    if (th->cap < full) {
        uint64_t cap = th->cap ? 2 * th->cap : 1024;
        if (cap > full) cap = full;
        return win_resize(w, th, cap);
    }
    uint64_t cap = window_cap(w);
    if (th->n) {
        uint64_t keep = cap / 2 < th->n ? cap / 2 : th->n - 1;
        uint64_t k = th->n - keep;
        if (rp_op_kind(&th->ops[k - 1]) == RP_HEAP_REALLOC) k++;  /* keep it with its RP_ARG */
        if (write_out(w, th, k)) return -1;
    }
    return cap != th->cap ? win_resize(w, th, cap) : 0;
}

int64_t rp_planw_push(rp_planw *w, uint32_t t, rp_op op)
{
    wthread *th = &w->th[t];
    if (th->n == th->cap && make_room(w, th)) return -1;
    th->ops[th->n++] = op;
    unsigned k = rp_op_kind(&op);
    if (rp_kind_is_call(k)) th->calls++;
    if (k < RP_FREE) {  /* the null allocator's reserve: every size rounded up, plus alignment */
        uint64_t b = (rp_op_size(&op) + 15) & ~(uint64_t)15;
        if (k == RP_MEMALIGN || k == RP_POSIX_MEMALIGN || k == RP_ALIGNED_ALLOC) b += (uint64_t)1 << op.arg;
        if (k == RP_VALLOC || k == RP_PVALLOC) b += 2 * 4096;
        th->bump += b;
        if (b > th->bump_one) th->bump_one = b;
    }
    return (int64_t)(th->base + th->n - 1);
}

const rp_op *rp_planw_peek(const rp_planw *w, uint32_t t, uint64_t idx)
{
    const wthread *th = &w->th[t];
    return idx >= th->base && idx - th->base < th->n ? &th->ops[idx - th->base] : NULL;
}

/* The null allocator's region for a thread: all its allocations when they
 * fit in RP_NULL_REGION, else that much and at least two of its largest (the
 * runner's bump pointer starts again at the base: run.c, bump_alloc). */
static uint64_t bump_reserve(const wthread *th)
{
    if (th->bump <= RP_NULL_REGION) return th->bump;
    return 2 * th->bump_one > RP_NULL_REGION ? 2 * th->bump_one : RP_NULL_REGION;
}

void rp_planw_counts(const rp_planw *w, uint32_t t, uint64_t *nops, uint64_t *calls, uint64_t *bump)
{
    *nops = w->th[t].base + w->th[t].n;
    *calls = w->th[t].calls;
    *bump = bump_reserve(&w->th[t]);
}

static int patch_cmp(const void *a, const void *b)
{
    uint64_t x = ((const patch *)a)->off, y = ((const patch *)b)->off;
    return x < y ? -1 : x > y;
}

/* Write the queued patches into the file, a mapped chunk at a time. */
static int patch_flush(rp_planw *w)
{
    qsort(w->pend, w->npend, sizeof *w->pend, patch_cmp);
    for (size_t i = 0; i < w->npend;) {
        uint64_t from = w->pend[i].off & ~(PATCH_CHUNK - 1);
        uint64_t len = w->end - from < PATCH_CHUNK ? w->end - from : PATCH_CHUNK;
        char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, (off_t)from);
        if (m == MAP_FAILED) return w->err = errno, -1;
        for (; i < w->npend && w->pend[i].off < from + len; i++) {
            uint64_t word;
            memcpy(&word, m + (w->pend[i].off - from), sizeof word);
            word |= w->pend[i].flags << 8;
            memcpy(m + (w->pend[i].off - from), &word, sizeof word);
        }
        munmap(m, len);
    }
    w->npend = 0;
    return 0;
}

int rp_planw_flag(rp_planw *w, uint32_t t, uint64_t idx, unsigned flags)
{
    wthread *th = &w->th[t];
    if (idx >= th->base) {
        th->ops[idx - th->base].w |= (uint64_t)flags << 8;
        return 0;
    }
    /* in the file: the last segment that starts at or before idx */
    size_t lo = 0, hi = th->nsegs;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (th->segs[mid].first <= idx) lo = mid;
        else hi = mid;
    }
    if (!w->pend && !(w->pend = malloc(PATCH_MAX * sizeof *w->pend))) return w->err = 0, -1;
    w->pend[w->npend++] = (patch){ th->segs[lo].off + (idx - th->segs[lo].first) * sizeof(rp_op), flags };
    return w->npend == PATCH_MAX ? patch_flush(w) : 0;
}

static int io_err(hatf_err *err, int e)
{
    return hatf_err_set(err, e ? HATF_E_IO : HATF_E_NOMEM, 0, "replay plan file: %s",
                        e ? strerror(e) : "out of memory");
}

int rp_planw_finish(rp_planw *w, rp_plan *p, hatf_err *err)
{
    p->window_ops = w->window;
    if (w->fd < 0) {
        for (uint32_t t = 0; t < w->nth; t++) {
            rp_thread_plan *tp = &p->threads[t];
            tp->nops = w->th[t].n;
            tp->calls = w->th[t].calls;
            tp->bump_bytes = bump_reserve(&w->th[t]);
            tp->ops = w->th[t].ops;
            w->th[t].ops = NULL;
        }
        return 0;
    }
    uint64_t nsegs = 0;
    for (uint32_t t = 0; t < w->nth; t++) {
        wthread *th = &w->th[t];
        if (th->n && write_out(w, th, th->n)) return io_err(err, w->err);
        nsegs += th->nsegs;
    }
    if (w->npend && patch_flush(w)) return io_err(err, w->err);
    rp_seg *segs = malloc((nsegs ? nsegs : 1) * sizeof *segs);
    rp_file_thread *ft = malloc((w->nth ? w->nth : 1) * sizeof *ft);
    if (!segs || !ft) {
        free(segs);
        free(ft);
        return io_err(err, 0);
    }
    uint64_t k = 0;
    for (uint32_t t = 0; t < w->nth; t++) {
        wthread *th = &w->th[t];
        rp_thread_plan *tp = &p->threads[t];
        tp->nops = th->base;
        tp->calls = th->calls;
        tp->bump_bytes = bump_reserve(th);
        tp->first_seg = k;
        tp->nsegs = th->nsegs;
        tp->max_seg = th->max_seg;
        for (size_t i = 0; i < th->nsegs; i++, k++)
            segs[k] = (rp_seg){ th->segs[i].off,
                                (i + 1 < th->nsegs ? th->segs[i + 1].first : th->base) - th->segs[i].first };
        ft[t] = (rp_file_thread){ tp->trace_thread, tp->nops, tp->calls, tp->bump_bytes, tp->first_seg,
                                  tp->nsegs, tp->max_seg, tp->peak_pos, tp->first_pos, tp->last_pos };
    }
    rp_file_header h = { .magic = RP_FILE_MAGIC, .nthreads = w->nth, .nslots = p->nslots,
                         .single = (uint32_t)p->single, .nsegs = nsegs, .index_off = w->end,
                         .window_ops = w->window, .st = p->st, .nphases = p->nphases };
    uint64_t phases_off = w->end + w->nth * sizeof *ft + nsegs * sizeof *segs;
    uint64_t starts_len = (uint64_t)p->nphases * w->nth * sizeof *p->phase_start;
    uint64_t len = phases_off + p->nphases * sizeof *p->phases + starts_len;
    int bad = write_at(w->fd, ft, w->nth * sizeof *ft, w->end) ||
              write_at(w->fd, segs, nsegs * sizeof *segs, w->end + w->nth * sizeof *ft) ||
              write_at(w->fd, p->phases, p->nphases * sizeof *p->phases, phases_off) ||
              write_at(w->fd, p->phase_start, starts_len, phases_off + p->nphases * sizeof *p->phases) ||
              write_at(w->fd, &h, sizeof h, 0) || ftruncate(w->fd, (off_t)len) < 0;
    free(ft);
    if (bad) {
        free(segs);
        return io_err(err, errno);
    }
    p->in_file = 1;
    p->fd = w->fd;
    p->segs = segs;
    p->nsegs = nsegs;
    return 0;
}

/* ---- reading the file ------------------------------------------------------ */

static int bad_plan(hatf_err *err, const char *what)
{
    return hatf_err_set(err, HATF_E_CORRUPT, 0, "replay plan file: %s", what);
}

int rp_plan_load(int fd, rp_plan *p, hatf_err *err)
{
    memset(p, 0, sizeof *p);
    rp_file_header h;
    struct stat sb;
    if (fstat(fd, &sb) < 0) return hatf_err_set(err, HATF_E_IO, 0, "replay plan file: %s", strerror(errno));
    if ((uint64_t)sb.st_size < sizeof h) return bad_plan(err, "too short");
    if (read_at(fd, &h, sizeof h, 0)) return hatf_err_set(err, HATF_E_IO, 0, "replay plan file: cannot read it");
    uint64_t len = (uint64_t)sb.st_size;
    if (h.magic != RP_FILE_MAGIC || h.index_off > len || h.nthreads > (len - h.index_off) / sizeof(rp_file_thread) ||
        h.nsegs > (len - h.index_off - h.nthreads * sizeof(rp_file_thread)) / sizeof(rp_seg))
        return bad_plan(err, "bad header");
    /* small tables, malloc'd before the runner's baseline is taken */
    rp_file_thread *ft = malloc((h.nthreads ? h.nthreads : 1) * sizeof *ft);
    p->threads = calloc(h.nthreads ? h.nthreads : 1, sizeof *p->threads);
    p->segs = malloc((h.nsegs ? h.nsegs : 1) * sizeof *p->segs);
    if (!ft || !p->threads || !p->segs) {
        free(ft);
        rp_plan_free(p);
        return hatf_err_set(err, HATF_E_NOMEM, 0, "replay plan file: out of memory");
    }
    int rc = 0;
    if (read_at(fd, ft, h.nthreads * sizeof *ft, h.index_off) ||
        read_at(fd, p->segs, h.nsegs * sizeof *p->segs, h.index_off + h.nthreads * sizeof *ft))
        rc = bad_plan(err, "cannot read the index");
    for (uint64_t k = 0; !rc && k < h.nsegs; k++)
        if (p->segs[k].off > h.index_off || p->segs[k].nops > (h.index_off - p->segs[k].off) / sizeof(rp_op))
            rc = bad_plan(err, "segment out of bounds");
    for (uint32_t t = 0; !rc && t < h.nthreads; t++) {
        if (ft[t].first_seg > h.nsegs || ft[t].nsegs > h.nsegs - ft[t].first_seg) {
            rc = bad_plan(err, "thread out of bounds");
            break;
        }
        uint64_t n = 0;
        for (uint64_t k = ft[t].first_seg; k < ft[t].first_seg + ft[t].nsegs; k++) {
            if (p->segs[k].nops > ft[t].max_seg || !p->segs[k].nops) rc = bad_plan(err, "bad segment");
            n += p->segs[k].nops;
        }
        if (!rc && n != ft[t].nops) rc = bad_plan(err, "thread's ops do not add up");
        if (!rc && ft[t].peak_pos > ft[t].nops) rc = bad_plan(err, "peak out of bounds");
        if (!rc && ft[t].first_pos > ft[t].last_pos) rc = bad_plan(err, "thread's span out of order");
        p->threads[t] = (rp_thread_plan){ .trace_thread = ft[t].trace_thread, .nops = ft[t].nops,
                                          .calls = ft[t].calls, .bump_bytes = ft[t].bump_bytes,
                                          .first_seg = ft[t].first_seg, .nsegs = ft[t].nsegs,
                                          .max_seg = ft[t].max_seg, .peak_pos = ft[t].peak_pos,
                                          .first_pos = ft[t].first_pos, .last_pos = ft[t].last_pos };
    }
    uint64_t phases_off = h.index_off + h.nthreads * sizeof *ft + h.nsegs * sizeof *p->segs;
    if (!rc && h.nphases) {
        if (h.nphases > RP_PHASES_MAX ||
            phases_off + h.nphases * (sizeof *p->phases + (uint64_t)h.nthreads * sizeof *p->phase_start) > len)
            rc = bad_plan(err, "bad phases");
        else if (!(p->phases = malloc(h.nphases * sizeof *p->phases)) ||
                 !(p->phase_start = malloc(h.nphases * (h.nthreads ? h.nthreads : 1) * sizeof *p->phase_start)))
            rc = hatf_err_set(err, HATF_E_NOMEM, 0, "replay plan file: out of memory");
        else if (read_at(fd, p->phases, h.nphases * sizeof *p->phases, phases_off) ||
                 read_at(fd, p->phase_start, h.nphases * h.nthreads * sizeof *p->phase_start,
                         phases_off + h.nphases * sizeof *p->phases))
            rc = bad_plan(err, "cannot read the phases");
        for (uint32_t k = 0; !rc && k < h.nphases; k++) {
            p->phases[k].name[sizeof p->phases[k].name - 1] = 0;
            for (uint32_t t = 0; t < h.nthreads; t++)
                if (p->phase_start[(size_t)k * h.nthreads + t] > ft[t].nops ||
                    (k && p->phase_start[(size_t)k * h.nthreads + t] <
                              p->phase_start[(size_t)(k - 1) * h.nthreads + t]))
                    rc = bad_plan(err, "phase out of bounds");
        }
        p->nphases = h.nphases;
    }
    free(ft);
    p->nthreads = h.nthreads;
    p->nslots = h.nslots;
    p->single = (int)h.single;
    p->st = h.st;
    p->in_file = 1;
    p->fd = fd;
    p->nsegs = h.nsegs;
    p->window_ops = h.window_ops;
    if (rc) rp_plan_free(p);
    return rc;
}

int rp_plan_read_seg(const rp_plan *p, uint64_t k, rp_op *ops)
{
    return read_at(p->fd, ops, p->segs[k].nops * sizeof(rp_op), p->segs[k].off);
}

int rp_plan_save(const rp_plan *p, int fd, uint64_t seg_ops)
{
    rp_planw *w = rp_planw_new(fd, 2 * seg_ops);
    rp_plan q = { .nslots = p->nslots, .single = p->single, .st = p->st };
    int rc = w ? 0 : HATF_E_IO;
    for (uint32_t t = 0; !rc && t < p->nthreads; t++) {
        if (rp_plan_add_thread(&q, p->threads[t].trace_thread) < 0 || rp_planw_thread(w, t)) rc = HATF_E_IO;
        else {
            q.threads[t].peak_pos = p->threads[t].peak_pos;
            q.threads[t].first_pos = p->threads[t].first_pos;
            q.threads[t].last_pos = p->threads[t].last_pos;
        }
        for (uint64_t i = 0; !rc && i < p->threads[t].nops; i++)
            if (rp_planw_push(w, t, p->threads[t].ops[i]) < 0) rc = HATF_E_IO;
    }
    if (!rc && rp_planw_finish(w, &q, NULL)) rc = HATF_E_IO;
    rp_planw_free(w);
    rp_plan_free(&q);
    return rc;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint32_t rp_plan_at_once(const rp_plan *p)
{
    /* the largest number of spans [first_pos, last_pos] that hold one point:
       a sweep over the starts and ends, sorted, a start before an end at the
       same event */
    uint32_t n = 0, best = 0, cur = 0;
    for (uint32_t t = 0; t < p->nthreads; t++) n += p->threads[t].nops != 0;
    if (n <= 1) return n;
    uint64_t *a = malloc(2 * (size_t)n * sizeof *a);
    if (!a) return n;  /* one runner for every thread, as before the spans */
    uint32_t k = 0;
    for (uint32_t t = 0; t < p->nthreads; t++)
        if (p->threads[t].nops) {
            a[k] = p->threads[t].first_pos << 1;        /* even: a start */
            a[n + k++] = p->threads[t].last_pos << 1 | 1; /* odd: an end, after the starts at its event */
        }
    qsort(a, 2 * (size_t)n, sizeof *a, u64_cmp);
    for (size_t i = 0; i < 2 * (size_t)n; i++)
        if (a[i] & 1) cur--;
        else if (++cur > best) best = cur;
    free(a);
    return best;
}
