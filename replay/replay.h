/* replay.h — the replay module: trace -> plan -> runner -> figures (libhatreplay).
 *
 *   compile.c    events in global time order -> rp_plan (dense slots, per-thread ops),
 *                the trace read on a thread of its own
 *   plan.c       the plan's memory, and its file: per-thread segments written as
 *                the compiler's windows fill, shared with child processes
 *   plan_place.c where the plan file lives: in memory when it fits, else a directory
 *   feed.c       the runner's read-ahead: each thread's next segments mapped,
 *                on a thread of its own, off the measured path
 *   run.c        the runner: streams through a plan and calls the allocator
 *   touch.c      the share of each block the runner writes (--touch page), from
 *                the trace's resident samples
 *   allocator.c  allocator names -> shared objects; the built-in null allocator
 *   heaps.c      the allocator's own heaps (mimalloc heaps, jemalloc arenas), found
 *                with dlsym in the child
 *   figures.c    latency histograms, fragmentation, table/JSON/CSV, gnuplot
 *   launch.c     one child process per allocator run, results over a pipe
 *
 * docs/replay.md explains what is measured and how.
 */
#ifndef HATRACE_REPLAY_H
#define HATRACE_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hatf.h"
#include "hatf_container.h"
#include "hatf_source.h"

/* ---- the plan ------------------------------------------------------------ */

/* What the runner calls. The aligned family keeps its own entry points.
 * Allocating kinds come before RP_FREE (the runner stores their result).
 * Heap kinds (docs/heaps.md): arg (or the RP_ARG op after a heap realloc)
 * names the slot holding the heap's handle, written by its RP_HEAP_CREATE;
 * the handle is NULL when the heap is replayed free-each. */
typedef enum rp_kind {
    RP_MALLOC = 0,
    RP_CALLOC,          /* arg: nmemb (0 = 1) */
    RP_MEMALIGN,        /* arg: log2 alignment */
    RP_POSIX_MEMALIGN,  /* arg: log2 alignment */
    RP_ALIGNED_ALLOC,   /* arg: log2 alignment */
    RP_VALLOC,
    RP_PVALLOC,         /* replayed as memalign(page, size rounded to pages) */
    RP_REALLOC,         /* slot: old object, arg: new object */
    RP_REALLOC_NULL,    /* realloc(NULL, size) making slot */
    RP_HEAP_ALLOC,      /* slot: the object, arg: heap slot; flag RP_F_ZERO: zeroed */
    RP_HEAP_REALLOC,    /* slot: old object, arg: new object; the next op (RP_ARG) holds the heap slot */
    RP_FREE,            /* slot: the object */
    RP_FREE_NULL,       /* free(NULL), replayed faithfully */
    RP_WAIT,            /* not a call: wait until ready[slot] == arg */
    RP_HEAP_FREE,       /* free of an object of a heap: slot, arg: heap slot; RP_F_PUBLISH: from
                           another thread than the heap's, add one to ready[arg] after it */
    RP_HEAP_DFREE,      /* an object still live at destroyHeap: freed free-each, skipped native */
    RP_HEAP_CREATE,     /* slot: heap slot; flag RP_F_NATIVE: the heap may be native */
    RP_HEAP_DESTROY,    /* slot: heap slot */
    RP_ARG,             /* not a call: slot is an argument of the op before it */
    RP_KIND_COUNT_
} rp_kind;

/* Latency classes reported per operation kind. */
enum { RP_LAT_MALLOC, RP_LAT_CALLOC, RP_LAT_ALIGNED, RP_LAT_REALLOC, RP_LAT_FREE, RP_LAT_HEAP, RP_LAT_COUNT_ };
extern const char *const rp_lat_names[RP_LAT_COUNT_];

/* Op flags. */
enum {
    RP_F_PUBLISH = 1, /* another thread consumes the object made here: bump ready[] */
    RP_F_PEAK = 2,    /* live bytes reach their peak right after this op: sample RSS */
    RP_F_ZERO = 4,    /* RP_HEAP_ALLOC: zeroed memory (calloc in a heap) */
    RP_F_NATIVE = 8,  /* RP_HEAP_CREATE: create, use and destroy all on this thread */
    RP_F_VACATE = 16, /* the op's slot (op->slot) is reused by another thread: bump ready[slot] after it */
    RP_F_WAIT = 32    /* RP_FREE of another thread's object: wait until ready[slot] == arg first (the
                         RP_WAIT folded into the free, which has no arg of its own: a third fewer ops
                         in a plan whose objects cross threads) */
};

/* Does an op of this kind call the allocator (or may, for the heap kinds)? */
static inline int rp_kind_is_call(unsigned k) { return k != RP_WAIT && k != RP_ARG; }

#define RP_SIZE_BITS 48
#define RP_NO_SLOT UINT32_MAX
#define RP_NULL_REGION ((uint64_t)64 << 20)  /* the null allocator's region per thread, unless its objects need more */

/* One operation, 16 bytes: the runner streams through arrays of these. */
typedef struct rp_op {
    uint64_t w;     /* kind (8 bits) | flags (8) | size (48) */
    uint32_t slot;
    uint32_t arg;
} rp_op;

static inline unsigned rp_op_kind(const rp_op *o) { return (unsigned)(o->w & 0xff); }
static inline unsigned rp_op_flags(const rp_op *o) { return (unsigned)((o->w >> 8) & 0xff); }
static inline uint64_t rp_op_size(const rp_op *o) { return o->w >> 16; }
static inline uint64_t rp_op_pack(unsigned kind, unsigned flags, uint64_t size)
{
    return (uint64_t)kind | (uint64_t)flags << 8 | size << 16;
}

/* A run of one thread's ops in a plan file. */
typedef struct rp_seg {
    uint64_t off;           /* byte offset in the file */
    uint64_t nops;
} rp_seg;

typedef struct rp_thread_plan {
    uint64_t trace_thread;  /* thread id in the trace (0 in single-thread plans) */
    uint64_t nops;          /* entries in ops, waits included */
    uint64_t calls;         /* entries that call the allocator */
    uint64_t bump_bytes;    /* the null allocator's region for this thread (at most about RP_NULL_REGION) */
    rp_op *ops;             /* a plan in memory: all of them; a plan in a file: NULL */
    uint64_t first_seg;     /* a plan in a file: its segments are segs[first_seg .. +nsegs) */
    uint64_t nsegs;
    uint64_t max_seg;       /* ops in its longest segment */
    uint64_t peak_pos;      /* its ops done when live bytes first peak in the global order (the
                               runners meet there, run.c); 0 in a plan with no call */
    uint64_t first_pos, last_pos;  /* the events (numbered from 1 in the global order) of its first
                               and last op: its runner starts and ends there (run.c); 0: no op */
} rp_thread_plan;

/* How the compiler met the trace; printed with the results. */
typedef struct rp_plan_stats {
    uint64_t events;            /* events read */
    uint64_t ops;               /* operation records: alloc, free (incl. NULL), realloc; skipped ones too */
    uint64_t heap_frees;        /* frees added for objects live at destroyHeap */
    uint64_t skipped_failed;    /* failed allocations (failed=1 or NULL result): not replayed */
    uint64_t free_null;         /* free(NULL) records: replayed */
    uint64_t realloc_free;      /* realloc(p, 0) that freed: replayed as free(p) */
    uint64_t pvalloc;           /* replayed as memalign(page, rounded size) */
    uint64_t reused_live;       /* inversions: an address handed out while still live */
    uint64_t late_consumed;     /* ... whose old object's free/realloc came later */
    uint64_t left_displaced;    /* ... whose old object was never freed (left live) */
    uint64_t lost_objects;      /* releases of objects a damaged part of the trace
                                   made (rp_compiler_lost_ok): not replayed */
    uint64_t before_tracing;    /* an attached recording's releases of objects allocated
                                   before it began (HATF_INFO_ATTACHED): not replayed */
    uint64_t waits;             /* cross-thread operations (each waits for its object) */
    uint64_t slot_waits;        /* slots taken over from another thread's free list (each waits
                                   for the free that emptied it): keeps the slot table bounded */
    uint64_t heaps_created, heaps_destroyed;
    uint64_t heaps_confined;    /* created, used and destroyed on one runner thread: may be native */
    uint64_t heaps_shared;      /* touched by several runner threads (or an object left it): free-each */
    uint64_t peak_live_bytes;   /* requested bytes, same semantics as `hatrace stats` */
    uint64_t peak_live_objects;
    uint64_t peak_live_index;   /* calls done when peak_live_bytes was first reached */
    uint64_t peak_record, peak_offset;  /* the record (and its offset) where it was first reached */
    uint64_t end_live_bytes;
    uint64_t total_bytes;       /* bytes requested by allocating calls */
    uint32_t touch_share;       /* of RP_TOUCH_FULL: the share of each block --touch page writes (touch.c) */
} rp_plan_stats;

/* A phase of the trace (replay --phases): the events from a comment of the
 * program's (not hatrace's own marks) to the next, the first one "(start)";
 * the same phases as stats --phases (analyze/phases.h). */
#define RP_PHASES_MAX 256     /* later comments do not start phases */
typedef struct rp_phase {
    char name[64];            /* the comment's text, cut (printable bytes only) */
    uint64_t ops;             /* operation records in it (stats --phases' allocs + frees + reallocs) */
    uint64_t calls;           /* plan calls in it */
    uint64_t peak_live_bytes; /* the most live bytes at its start or after any of its calls */
    uint32_t peak_thread;     /* where live bytes first reach it: after thread peak_thread has done */
    uint64_t peak_pos;        /* peak_pos ops (RP_NO_SLOT: before any call of the trace) */
} rp_phase;

typedef struct rp_plan {
    uint32_t nthreads;
    uint32_t nslots;
    int single;                 /* 1: one thread replays the global order */
    rp_plan_stats st;
    rp_thread_plan *threads;
    /* a plan in a file (in_file): its segments; the file is fd, not owned */
    int in_file;
    int fd;
    uint64_t window_ops;        /* the compiler's window per thread */
    uint64_t nsegs;
    rp_seg *segs;
    /* with phases (rp_compile_opts.phases): nphases of them, and where each
       begins on each thread: phase_start[p * nthreads + t] is the number of
       thread t's ops before phase p (0 for phase 0) */
    uint32_t nphases;
    rp_phase *phases;
    uint64_t *phase_start;
    double cpu_read_s;          /* rp_compile_source: CPU time of the thread reading the trace */
    double cpu_compile_s;       /* ... and of the compiling thread */
} rp_plan;

void rp_plan_free(rp_plan *p);
/* Add a thread to a plan being built. @return its index or -1. */
int64_t rp_plan_add_thread(rp_plan *p, uint64_t trace_thread);

/* The plan file (plan.c): a header, each thread's ops in segments in the order
 * the compiler's windows filled, the segment index at the end. Native byte
 * order, never kept: an unlinked temporary file shared with the children. */

/* Where a plan lives (plan_place.c). An unlinked file for a plan in dir;
 * dir NULL: $TMPDIR, else in memory (a memfd) when the plan's estimated
 * plan_bytes (0: unknown) fit (rp_plan_in_memory), else /tmp. *where (may be
 * NULL) gets "memory" or the directory. @return its descriptor
 * (close-on-exec), or -1 with err naming the directory. */
int rp_plan_tmpfile(const char *dir, uint64_t plan_bytes, const char **where, hatf_err *err);
/* Whether a plan of plan_bytes goes in memory with available bytes free: a
 * quarter of them at most (0 either way: no). */
int rp_plan_in_memory(uint64_t plan_bytes, uint64_t available);
/* Memory available now: MemAvailable (/proc/meminfo), or less when the
 * process's cgroup v2 limits leave less room; 0 when unknown. */
uint64_t rp_mem_available(void);
/* The machine's memory: MemTotal, or less when the process's cgroup v2
 * limits (memory.max) allow less; 0 when unknown. */
uint64_t rp_mem_total(void);
/* The plan's bytes an event is reckoned at, for the estimate: its op (16
 * bytes) and room for the waits not folded into a free. */
#define RP_PLAN_BYTES_PER_EVENT 24

/* The writer the compiler fills (plan.c). Ops are pushed per thread into a
 * window in memory; when a window is full its older half is written as a
 * segment. Flags may be added to any op pushed so far: in the window
 * directly, else queued and written into the file in batches. */
typedef struct rp_planw rp_planw;
/* window_ops: ops per thread held in memory (at least 4; smaller when many
 * threads share the budget). fd < 0: the whole plan stays in memory. */
rp_planw *rp_planw_new(int fd, uint64_t window_ops);
void rp_planw_free(rp_planw *w);
/* Add a thread (index = number of threads so far). @return 0 or -1. */
int rp_planw_thread(rp_planw *w, uint32_t t);
/* Append op to thread t. @return its index, or -1 (out of memory or a
 * write error: rp_planw_error says which). */
int64_t rp_planw_push(rp_planw *w, uint32_t t, rp_op op);
/* Or flags into op idx of thread t. @return 0 or -1. */
int rp_planw_flag(rp_planw *w, uint32_t t, uint64_t idx, unsigned flags);
/* The op idx of thread t if still in memory (for prefetching), else NULL. */
const rp_op *rp_planw_peek(const rp_planw *w, uint32_t t, uint64_t idx);
/* Ops, calls, the null allocator's bytes of thread t so far. */
void rp_planw_counts(const rp_planw *w, uint32_t t, uint64_t *nops, uint64_t *calls, uint64_t *bump);
/* Write what is left and the index, or move the ops into p (fd < 0); p's
 * threads, nslots, single and st are filled by the caller.
 * @return 0, or a negative HATF_E_* code with err set. */
int rp_planw_finish(rp_planw *w, rp_plan *p, hatf_err *err);
/* Why the last call failed: 0 (out of memory) or an errno of the file. */
int rp_planw_error(const rp_planw *w);

/* The most trace threads whose spans of ops (first_pos .. last_pos) hold one
 * event of the global order: the runner threads the plan needs at once
 * (run.c); a thread with no op counts for none. */
uint32_t rp_plan_at_once(const rp_plan *p);
/* The runner threads a replay runs at once at most: a trace with more
 * threads alive at once is replayed on one runner thread (cli/replay_run.c). */
#define RP_RUNNERS_MAX 1024u

/* Read a plan file's header and index (the ops stay in the file).
 * @return 0, or a HATF_E_* code with err set. */
int rp_plan_load(int fd, rp_plan *p, hatf_err *err);
/* Write a plan held in memory into fd as a plan file with segments of at
 * most seg_ops ops (tests). @return 0 or HATF_E_IO. */
int rp_plan_save(const rp_plan *p, int fd, uint64_t seg_ops);
/* Read segment k of p's file into ops (room for segs[k].nops). @return 0 or -1. */
int rp_plan_read_seg(const rp_plan *p, uint64_t k, rp_op *ops);

/* ---- touching (touch.c) ---------------------------------------------------- */
#define RP_TOUCH_FULL 65536u   /* touch_share of every page */
#define RP_TOUCH_SAMPLES 4096  /* resident samples looked at, at most */

/* The trace's resident samples beside the live bytes at their moments. */
typedef struct rp_touch {
    size_t n, i;                      /* samples; those whose moment the compiler has passed */
    uint64_t at[RP_TOUCH_SAMPLES];    /* in trace time units */
    uint64_t resident[RP_TOUCH_SAMPLES], live[RP_TOUCH_SAMPLES];
} rp_touch;

/* Take the samples res[0..n) (in time order), times in ns of the time unit
 * unit_num/unit_den ns (0: no samples kept). */
void rp_touch_begin(rp_touch *t, const hatf_resident *res, size_t n, uint64_t unit_num, uint64_t unit_den);
/* The events in global order have reached time, live bytes live before it. */
static inline void rp_touch_note(rp_touch *t, uint64_t time, uint64_t live)
{
    while (t->i < t->n && t->at[t->i] <= time) t->live[t->i++] = live;
}
/* @return the share of each block to touch, 1 .. RP_TOUCH_FULL. */
uint32_t rp_touch_share(const rp_touch *t, uint64_t peak_live);

/* ---- the compiler --------------------------------------------------------- */
typedef struct rp_compiler rp_compiler;

/* single: 1 = one thread in global order, 0 = one runner thread per trace thread. */
rp_compiler *rp_compiler_new(int single);
void rp_compiler_free(rp_compiler *c);
/* From now on, a free or realloc of an address that is not live names an
 * object lost with a damaged part of the trace: skipped and counted
 * (lost_objects), not an error. */
void rp_compiler_lost_ok(rp_compiler *c);
/* Feed the next event in global time order; record/offset name it in errors.
 * @return 0, or a negative HATF_E_* code with err set (e.g. free of an address
 * that is not live), after which the compiler must be freed. */
int rp_compiler_add(rp_compiler *c, const hatf_event *ev, uint64_t record, uint64_t offset,
                    hatf_err *err);
/* Finish and move the plan out. @return 0 or HATF_E_NOMEM. */
int rp_compiler_finish(rp_compiler *c, rp_plan *out, hatf_err *err);
/* Split the plan into phases at the program's comments (call before the
 * first rp_compiler_add). */
void rp_compiler_phases(rp_compiler *c);
/* Write the plan into the file fd through windows of window_ops ops per
 * thread (call before the first rp_compiler_add; fd < 0: in memory). */
void rp_compiler_to_file(rp_compiler *c, int fd, uint64_t window_ops);

#define RP_WINDOW_OPS 262144  /* default ops per thread in the compiler's window (4 MB) */

typedef struct rp_compile_opts {
    int single;               /* 1 = one thread in global order */
    int plan_fd;              /* plan file (rp_plan_tmpfile), or -1: in memory */
    uint64_t window_ops;      /* 0: RP_WINDOW_OPS */
    int phases;               /* 1: split into phases at comments (rp_plan.phases) */
    uint64_t size_max;        /* an allocation of more bytes is an error naming its record
                                 (rp_mem_total: the machine's memory); 0: no limit */
} rp_compile_opts;

/* Read a whole source through a compiler; the source is read and decoded on
 * a thread of its own while the calling thread compiles. */
int rp_compile_source(hatf_source *src, const rp_compile_opts *o, rp_plan *out, hatf_err *err);

/* ---- allocators ----------------------------------------------------------- */
typedef struct rp_allocator {
    char name[64];         /* glibc, jemalloc, tcmalloc, mimalloc, null, or the path given */
    char path[4096];       /* shared object to preload; "" for glibc and null */
    int is_null;
} rp_allocator;

/* Resolve a name from --allocator. @return 0, or HATF_E_USAGE with a message
 * naming the Debian package to install when a known allocator is missing. */
int rp_allocator_resolve(const char *name, rp_allocator *a, hatf_err *err);
/* Is the named well-known allocator installed? */
int rp_allocator_installed(const char *name);
extern const char *const rp_known_allocators[4];

/* ---- the allocator's own heaps (heaps.c) ---------------------------------- */
typedef enum rp_heap_kind { RP_HEAPS_NONE = 0, RP_HEAPS_MIMALLOC, RP_HEAPS_JEMALLOC } rp_heap_kind;

typedef struct rp_heap_api {
    rp_heap_kind kind;
    void *(*mi_new)(void);
    void *(*mi_malloc)(void *heap, size_t size);
    void *(*mi_zalloc)(void *heap, size_t size);
    void *(*mi_realloc)(void *heap, void *p, size_t size);
    void (*mi_destroy)(void *heap);
    void *(*je_mallocx)(size_t size, int flags);
    void *(*je_rallocx)(void *p, size_t size, int flags);
    void (*je_dallocx)(void *p, int flags);
    int (*je_mallctl)(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
} rp_heap_api;

/* Find the heap API of the allocator that provides malloc in this process
 * (dlsym: nothing is linked at build time). Only an API living in the same
 * object as malloc counts. Never fails: kind NONE means free-each.
 * disable: 1 = report NONE (the null allocator). */
void rp_heaps_find(rp_heap_api *api, int disable);
const char *rp_heaps_name(rp_heap_kind k);
/* A new heap. @return its handle, or NULL (then the heap is replayed free-each). */
void *rp_heap_new(const rp_heap_api *a);
void *rp_heap_alloc(const rp_heap_api *a, void *heap, size_t size, int zero);
void *rp_heap_realloc(const rp_heap_api *a, void *heap, void *p, size_t size);
void rp_heap_free(const rp_heap_api *a, void *heap, void *p);
/* Free every object of the heap and the heap itself. */
void rp_heap_destroy(const rp_heap_api *a, void *heap);

/* ---- the runner ------------------------------------------------------------ */
enum { RP_TOUCH_NONE = 0, RP_TOUCH_PAGE = 1, RP_TOUCH_ALL = 2 };
extern const char *const rp_touch_names[3];

#define RP_HIST_BUCKETS 512   /* log2 with 8 sub-buckets: 64 octaves */
#define RP_SERIES_MAX 4096

typedef struct rp_run_opts {
    int touch;                /* RP_TOUCH_* */
    int null_alloc;           /* 1: the built-in bump allocator */
    unsigned latency_every;   /* time one call in this many on average (1 = all) */
    unsigned sample_us;       /* RSS sampling period in microseconds (0: 1000) */
    const char *progress;     /* label for the progress bar, NULL for none */
    int heaps_free_each;      /* 1: never use the allocator's own heaps */
} rp_run_opts;

typedef struct rp_sample {
    uint64_t op;              /* calls done when sampled */
    uint64_t live;            /* requested bytes live */
    uint64_t rss;             /* allocator's resident bytes */
} rp_sample;

/* What one run measured. Plain data: sent whole from child to parent. */
/* What one run measured in one phase (docs/replay.md, "Phases"). */
typedef struct rp_phase_result {
    uint64_t calls;           /* allocator calls made in it */
    double time_s;            /* summed over runner threads: from entering it to leaving it */
    double ns_per_op;         /* time_s over calls */
    uint64_t peak_rss_bytes;  /* the allocator's resident bytes at their most in it */
    uint64_t rss_at_peak_live;/* ... where its live bytes peak */
    double frag_at_peak_live, frag_peak_over_peak;
} rp_phase_result;

typedef struct rp_result {
    uint64_t calls;           /* allocator calls made */
    uint64_t ops;             /* trace records replayed (plan st.ops) */
    double wall_s;            /* run time, RSS sampling excluded */
    double ns_per_op;
    double ops_per_s;
    double lat_ns[RP_LAT_COUNT_][3];  /* p50, p99, p99.9; 0 when no sample */
    uint64_t lat_count[RP_LAT_COUNT_];
    uint64_t peak_live_bytes;
    uint64_t peak_rss_bytes;
    uint64_t peak_rss_busy_bytes;  /* ... while live bytes were at least a tenth of their peak (rp_peak_rss_busy) */
    uint64_t rss_at_peak_live;
    uint64_t live_at_peak_rss;
    double frag_time_avg, frag_at_peak_live, frag_at_peak_rss, frag_peak_over_peak;
    uint64_t baseline_rss_bytes;  /* runner + process before the first call */
    uint32_t nsamples;
    uint64_t heaps_native;    /* heaps replayed as the allocator's own heaps */
    uint64_t heaps_free_each; /* heaps replayed with malloc, each object freed at destroyHeap */
    uint64_t skipped_calls;   /* plan calls not made (frees a native destroy did instead, heap
                                 create/destroy without native heaps) */
    uint64_t plan_stalls;     /* times a runner found its next plan segment not read yet */
    double plan_stall_s;      /* time runners spent waiting for the plan (in wall_s) */
    uint64_t plan_ring_bytes; /* the plan file mapped ahead at most (file pages: not in the figures) */
    uint32_t runner_threads;  /* the OS threads that ran the plan's threads (run.c) */
    uint32_t process_threads; /* the run's process's threads once they had started (Threads: in
                                 /proc/self/status): the runners, the read-ahead, the sampler */
    char heap_api[16];        /* "mimalloc", "jemalloc" or "none" */
    char heap_mode[16];       /* "native", "free-each" or "mixed" */
    int status;               /* 0 ok, else a HATF_E_* code; msg says why */
    char msg[192];
    uint32_t nphases;         /* the plan's */
    rp_phase_result phases[RP_PHASES_MAX];
    rp_sample samples[RP_SERIES_MAX];
} rp_result;

/* Run a plan in this process against whatever malloc it is linked with (or the
 * null allocator). The runner's own memory is mmap'd and resident before the
 * baseline is taken. @return 0, or negative with res->msg set. */
int rp_run(const rp_plan *plan, const rp_run_opts *o, rp_result *res);

/* ---- the read-ahead (feed.c) ------------------------------------------------ */
typedef struct rp_feed rp_feed;

#define RP_FEED_BUFS 8        /* segments mapped ahead per runner thread */

/* The read-ahead of a plan in a file: the first RP_FEED_BUFS segments of
 * each thread mapped (prefaulted) before it returns.
 * @return the feed, or NULL with msg set. */
rp_feed *rp_feed_new(const rp_plan *p, char *msg, size_t cap);
/* Start the read-ahead thread. @return 0 or -1. */
int rp_feed_start(rp_feed *f);
/* Thread t's segment k, once read: the runner thread t calls it for k = 0,
 * 1, ... in turn. *stall_ns: 0, or how long it waited for the read-ahead. */
const rp_op *rp_feed_get(rp_feed *f, uint32_t t, uint64_t k, uint64_t *nops, uint64_t *stall_ns);
/* The runner is done with thread t's segment k: its buffer may be refilled. */
void rp_feed_put(rp_feed *f, uint32_t t, uint64_t k);
/* Bytes of the file it maps at a time at most (file pages, not anonymous memory). */
uint64_t rp_feed_bytes(const rp_feed *f);
/* Stop the thread (if started) and unmap. NULL is accepted. */
void rp_feed_free(rp_feed *f);

/* ---- child processes -------------------------------------------------------- */
typedef struct rp_launch {
    const char *self;         /* path of the hatrace binary to re-exec */
    int plan_fd;
    rp_run_opts run;
    const char (*env)[512];   /* NAME=VALUE set in the child's environment (replay --tune), or NULL */
    unsigned nenv;
} rp_launch;

/* Run one allocator in a child process (hatrace re-executed with LD_PRELOAD and
 * the hidden `replay --child` form). @return 0 or negative with err set. */
int rp_launch_run(const rp_launch *l, const rp_allocator *a, rp_result *res, hatf_err *err);
/* The child side: argv after "--child". @return the exit code. */
int rp_child_main(int argc, char **argv);

/* ---- figures ---------------------------------------------------------------- */
typedef struct rp_hist { uint64_t n[RP_HIST_BUCKETS]; } rp_hist;

static inline unsigned rp_hist_bucket(uint64_t v)
{
    if (v < 8) return (unsigned)v;
    unsigned msb = 63u - (unsigned)__builtin_clzll(v);
    return (msb - 2) * 8 + (unsigned)((v >> (msb - 3)) & 7);
}
/* Midpoint of a bucket's value range. */
double rp_hist_value(unsigned bucket);
/* The value at quantile q (0..1), 0 when empty. */
double rp_hist_quantile(const rp_hist *h, double q);

/* Fill the fragmentation measures of res from its samples and peaks. */
void rp_figures_frag(rp_result *res);
/* frag_at_peak_rss's terms from a run's samples s[0..n) (in time order):
 * *rss, the allocator's most resident bytes while the program's live bytes
 * were at least a tenth of peak_live (RP_BUSY_SHARE), and *live, the live
 * bytes at the first of those samples within 1% of it (0 and 0 when none). */
#define RP_BUSY_SHARE 10
void rp_peak_rss_busy(const rp_sample *s, uint32_t n, uint64_t peak_live, uint64_t *rss, uint64_t *live);

typedef struct rp_report {
    const char *allocator;
    rp_result r;              /* medians over repeats (samples from the median-time run) */
} rp_report;

typedef struct rp_report_ctx {
    const char *trace;
    const char *threads;      /* "trace" or "1" */
    const char *touch;
    unsigned repeat;
    unsigned latency_every;
    const rp_plan_stats *st;
    uint32_t nthreads;
    uint32_t runner_threads;  /* the OS threads that run the plan (the trace's threads alive at once) */
    uint32_t trace_threads;   /* the trace's threads with ops, 0: not known (compiled on one thread) */
    uint32_t at_once;         /* the most of them alive at once, 0: not known */
    uint64_t program_rss;     /* the recorded program's peak resident bytes (sampled), 0: not known */
    double compile_s;         /* the compile's wall time (0: not said) */
    double compile_cpu_s;     /* its CPU time (the trace read on another thread included) */
    double cpu_read_s, cpu_compile_s;  /* of which the reading thread's, the compiling thread's */
    uint64_t window_ops;      /* the compiler's window per thread */
    uint64_t plan_bytes;      /* ops in the plan file */
    uint64_t plan_segments;
    const char *plan_where;   /* "memory" or the plan file's directory (NULL: not said) */
    uint64_t own_peak_rss;    /* hatrace's own process (the runs are children): peak resident bytes */
    uint32_t nphases;         /* 0, or the plan's phases: a table (a "phases" array) per allocator */
    const rp_phase *phases;
} rp_report_ctx;

/* Median of each figure over n results into out (samples from the run whose wall time is the median). */
void rp_figures_median(const rp_result *runs, unsigned n, rp_result *out);
void rp_print_table(FILE *f, const rp_report_ctx *c, const rp_report *rep, unsigned n);
void rp_print_json(FILE *f, const rp_report_ctx *c, const rp_report *rep, unsigned n);
/* CSV: allocator,op,live_bytes,rss_bytes. @return 0 or HATF_E_IO. */
int rp_write_series(const char *path, const rp_report *rep, unsigned n, hatf_err *err);
/* Shared by the outputs of replay and replay --tune (tune.h). */
double rp_median(double *v, unsigned n);                     /* sorts v */
const char *rp_human(uint64_t bytes, char *buf, size_t cap); /* "12.3 MiB" */
void rp_json_str(FILE *f, const char *s);                    /* a JSON string literal */
void rp_gnuplot_str(FILE *f, const char *s);                 /* a gnuplot string literal */
/* gnuplot started with its terminal and output set for a .png or .svg.
 * @return the pipe to write commands to (pclose it), or NULL with err set. */
FILE *rp_gnuplot_open(const char *png_or_svg, hatf_err *err);
/* Draw the series with gnuplot into a .png or .svg. @return 0 or negative with err set. */
int rp_plot(const char *png_or_svg, const char *csv, const rp_report *rep, unsigned n,
            const char *title, hatf_err *err);

#endif /* HATRACE_REPLAY_H */
