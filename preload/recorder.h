/* recorder.h — internal interface of libhatrace.so (not installed).
 *
 * preload/ captures and hands off; encoding and compression run on the flusher.
 * The files (the same list as docs/recorder.md, "Files"):
 *   hooks.c           the interposed symbols, the bootstrap arena, the constructor and destructor; the only
 *                     file that knows the real functions
 *   crash.c, crash.h  the signals a process dies of: the program's signal actions kept as the kernel would,
 *                     the recorder's handler, alternate signal stacks (crash.h: the hooks' side)
 *   ring.h            the per-thread SPSC ring (inline producer and consumer operations)
 *   recorder.h        internal interface: raw event kinds, thread-local state, the inline hot path (ht_emit, ht_emit_ret, ht_emit_free)
 *   recorder.c        process state: init, thread attach/exit, slow paths, signal side buffer, fork, exec, exit
 *   registry.c        the ring registry: a ring for each new thread, reused or mapped, sized by thread count
 *   flusher.c         the flusher and encoding helper threads: rings drained into the writer, timed flushes
 *   effort.c          the coding of the chunk groups: fast and packed by zstd, unless asked otherwise
 *   convert.h         the plain kinds (malloc, free, realloc with no flag), which the writer takes from the ring as they are
 *   convert.c         raw event → hatf_event for every other kind: HATF op, addresses, hatrace attributes
 *   output.c          the trace file: name, creation, header, report lines, write failures, the SIGXFSZ guard
 *   clock.c           the clock: TSC or CLOCK_MONOTONIC, the start sample, the tick rate, its drift at close
 *   writer_end.c      the end of a trace: counters, names of live threads, stack tables, close, report
 *   flusher_state.h   the writer side's state in one struct (ht_fs), and the helpers its files share
 *   flusher_state.c   that struct's definition, and what a fork does to it (the child's reset in one place)
 *   options.c         the option table, allocation-free parsing, the output name pattern
 *   prim.c            host coupling: clock, futex, thread id, capped logging without malloc
 *   annotate.c        the annotation API's runtime (hatrace_rt_*, see include/hatrace.h)
 *   mimalloc_heaps.c  mimalloc's heap API (mi_heap_*, mi_free ...) recorded with heap records (docs/heaps.md)
 *   stacks.c          call stacks: capture, per-thread dedup, process-wide ids
 *   unwind.c          the stack walk from DWARF call-frame information (.eh_frame), a per-thread cache of frame
 *                     rules
 *   symbols.c         the load map and the names of every frame, written once at the end
 *   attach.c, attach.h  a running process's recorder (hatrace record -p): attach, detach, the windows
 *   got_patch.c, .h   the allocation functions' slots of every loaded object, rewritten and put back
 *   exports.map       version script: only the interposed symbols, the annotation runtime (hatrace_rt_*) and
 *                     mimalloc's heap API are exported
 *   cli/record.c      hatrace record
 * Includes: include/ and, of libhatf's internals, ../hatf/hatf_recorder.h alone
 * (here; it brings HATF_PRE, the check of the pre: lines, hatf/hatf_check.h).
 * Names: ht_ internal, HT_ macros and constants.
 */
#ifndef HT_RECORDER_H
#define HT_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include "hatf.h"
#include "../hatf/hatf_recorder.h"  /* libhatf's writer internals, HATF_PRE */
#include "ring.h"

#define HT_HIDDEN __attribute__((visibility("hidden")))
#define HT_LIKELY(x) __builtin_expect(!!(x), 1)
#define HT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Raw event kinds (low 5 bits of ht_rawev.tk; the unit layout: ring.h). 1..14 equal hatf_func codes.
 *   kind                 a        b        c         d
 *   MALLOC, VALLOC,      result   size     -         -
 *   PVALLOC
 *   CALLOC               result   nmemb    elsize    -
 *   REALLOC              old      size     result    -
 *   REALLOCARRAY         old      nmemb    result    elsize
 *   FREE                 ptr      -        -         -
 *   POSIX_MEMALIGN,      result   size     align     -
 *   ALIGNED_ALLOC, MEMALIGN
 *   NEW, NEW_ARRAY       result   size     align (0: none) -
 *   DELETE, DELETE_ARRAY ptr      size     1: sized  -
 *   THREAD_CREATE        parent   os tid   -         -
 *   THREAD_DESTROY       -        -        -         -
 *   HEAP_CREATE          heap     -        -         name (malloc'd copy or 0; the flusher frees it)
 *   HEAP_DESTROY         heap     -        -         -
 *   HEAP_ALLOC           result   size     heap      -
 *   HEAP_FREE            ptr      -        heap      -
 *   HEAP_REALLOC         old      size     result    heap
 *   STACK                local id frames    count     -        (frames: offset in the ring's stack pool)
 *   COMMENT              length   -        -         text (malloc'd copy, not NUL-terminated; the flusher frees it)
 *   MAP                  addr     length   call | new length << 8 (mremap)   new addr (mremap) or break change (brk)
 *   SIGNAL               address  signal | fate << 8   si_code  -   (crash.c; the flusher writes the comment)
 *                        (address: si_addr, or the sender's pid when a process sent it)
 * (the HEAP_ kinds come from the annotation API, include/hatrace.h)
 * HT_FAILED: the call returned NULL or an error (result is then 0).
 * HT_HEAP: a malloc-family kind (not REALLOCARRAY) made in heap d, e.g. by
 * mimalloc's heap API (mimalloc_heaps.c); without it the heap is 0.
 * HT_STACKED (malloc family, never with HT_HEAP): d holds the thread-local
 * stack id of the call; for REALLOCARRAY d = elsize | id << 32 (only when
 * elsize < 2^32). The STACK event announcing a new local id always comes
 * before the first event that uses it. */
enum ht_kind {
    HT_K_MALLOC = 1, HT_K_CALLOC, HT_K_REALLOC, HT_K_REALLOCARRAY, HT_K_FREE,
    HT_K_POSIX_MEMALIGN, HT_K_ALIGNED_ALLOC, HT_K_MEMALIGN, HT_K_VALLOC, HT_K_PVALLOC,
    HT_K_NEW, HT_K_DELETE, HT_K_NEW_ARRAY, HT_K_DELETE_ARRAY,  /* C++ operators */
    HT_K_THREAD_CREATE, HT_K_THREAD_DESTROY,
    HT_K_HEAP_CREATE, HT_K_HEAP_DESTROY, HT_K_HEAP_ALLOC, HT_K_HEAP_FREE, HT_K_HEAP_REALLOC,
    HT_K_STACK, HT_K_COMMENT, HT_K_MAP, HT_K_SIGNAL
};
/* HT_K_MAP's call, in the low byte of c (hooks.c; the flusher writes the comment) */
enum { HT_MAP_MMAP_ANON = 1, HT_MAP_MMAP_FILE, HT_MAP_MUNMAP, HT_MAP_MREMAP, HT_MAP_BRK };
/* The kinds of calls are the format's function codes (convert.c writes the kind as func=). */
#define HT_SAME_CODE(k) ((int)HT_K_##k == (int)HATF_FN_##k)
_Static_assert(HT_SAME_CODE(MALLOC) && HT_SAME_CODE(CALLOC) && HT_SAME_CODE(REALLOC) && HT_SAME_CODE(REALLOCARRAY) &&
               HT_SAME_CODE(FREE) && HT_SAME_CODE(POSIX_MEMALIGN) && HT_SAME_CODE(ALIGNED_ALLOC) &&
               HT_SAME_CODE(MEMALIGN) && HT_SAME_CODE(VALLOC) && HT_SAME_CODE(PVALLOC) && HT_SAME_CODE(NEW) &&
               HT_SAME_CODE(DELETE) && HT_SAME_CODE(NEW_ARRAY) && HT_SAME_CODE(DELETE_ARRAY) &&
               (int)HT_K_DELETE_ARRAY + 1 == (int)HATF_FN_COUNT_,
               "recorder kinds of calls must equal hatf_func codes");
#undef HT_SAME_CODE
_Static_assert(HT_K_SIGNAL <= 0x1f, "kinds fit HT_KIND_MASK");
/* Kinds whose d is a malloc'd copy (a heap's name, a comment's text) that the
 * flusher frees, or ht_event_dropped when the event is not stored. */
#define HT_KIND_OWNS_COPY(k) ((k) == HT_K_HEAP_CREATE || (k) == HT_K_COMMENT)
#define HT_KIND_MASK 0x1fu
#define HT_STACKED 0x20u
#define HT_HEAP 0x40u
#define HT_FAILED 0x80u

/* Per-thread state. initial-exec TLS: one fs-relative load in the hook. */
typedef struct ht_tls {
    ht_ring *ring;        /* this thread's ring, NULL until its first event */
    uint32_t busy;        /* inside the ring-write window of a hook (see hooks.c) */
    uint32_t untraced;    /* >0: the recorder's own code runs; hooks pass through */
    uint32_t ignoring;    /* the program's ignore sections in untraced (hatrace_rt_ignore) */
    uint32_t exited;      /* thread-destroy written; later calls are not recorded */
    uint32_t dtor_rounds; /* pthread key destructor rounds seen */
    uint64_t parent;      /* dense id of the creating thread (set by our pthread_create) */
    void *altstack;       /* the alternate signal stack crash.c gave it, or NULL */
} ht_tls;

extern __thread ht_tls ht_t __attribute__((tls_model("initial-exec"))) HT_HIDDEN;

/* The recorder's own calls (its copies, dlsym, libunwind, the writer) are not
 * recorded: the hooks test the thread's untraced count, raised around them.
 * The fences keep the count's stores where they are: the compiler takes
 * malloc and free for functions that read no memory of the program and would
 * otherwise drop an increment and decrement around them. Pairs nest. */
static inline void ht_untraced_enter(ht_tls *t)
{
    t->untraced++;
    atomic_signal_fence(memory_order_seq_cst);
}
static inline void ht_untraced_leave(ht_tls *t)
{
    atomic_signal_fence(memory_order_seq_cst);
    t->untraced--;
}

/* The recorder's own heap: bytes (the allocator's usable sizes) of the blocks
 * it holds, allocated in its own untraced sections (not the program's ignore
 * sections), so a resident sample can take them out beside the rings. */
extern _Atomic int64_t ht_own_heap HT_HIDDEN;
/* The allocator's malloc_usable_size, given by the shim (hooks.c); NULL: no count. */
extern size_t (*ht_real_usable_size)(void *) HT_HIDDEN;
/* The real pthread_create, given by the shim (hooks.c) when it resolves the
 * real functions: the flusher and helper threads are started with it. */
#include <pthread.h>
extern int (*ht_real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) HT_HIDDEN;
/* An untraced call of kind (allocations add a, frees take it out) into
 * ht_own_heap when the thread runs the recorder's own code. pre: untraced;
 * a free's block not freed yet. A realloc counts itself (hooks.c). */
void ht_own_heap_note(uint32_t kind, uint64_t a) HT_HIDDEN;
/* A realloc in the recorder's own code: block old of old_size usable bytes
 * became now of now_size (either address 0: none). */
void ht_own_heap_realloc(uint64_t old, int64_t old_size, uint64_t now, int64_t now_size) HT_HIDDEN;
/* The recorder's heap as a resident sample counts it: its blocks' usable
 * bytes, the large ones' resident pages only. */
uint64_t ht_own_heap_resident(void) HT_HIDDEN;
static inline int ht_in_own_code(const ht_tls *t) { return t->untraced > t->ignoring; }

/* ---- prim.c ---- */
/* Timestamp source chosen at init: "tsc" (the CPU's counter, ht_counter) or
 * "monotonic" (clock_gettime). */
extern int ht_use_tsc HT_HIDDEN;                /* 0: CLOCK_MONOTONIC; 1: ht_counter() */
static inline uint64_t ht_now(void);
uint64_t ht_mono_ns(void) HT_HIDDEN;
uint64_t ht_real_ns(void) HT_HIDDEN;
int ht_tsc_invariant(void) HT_HIDDEN;
uint32_t ht_gettid(void) HT_HIDDEN;
void ht_futex_wake(_Atomic uint32_t *addr, int n) HT_HIDDEN;
/* Wait while *addr == val, at most timeout_ns (0: forever). */
void ht_futex_wait(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns) HT_HIDDEN;
/* "hatrace[pid]: message\n" on stderr, formatted on the stack; at most
 * HT_MAX_WARNINGS per process, then one "further warnings suppressed". */
void ht_warn(const char *fmt, ...) HT_HIDDEN __attribute__((format(printf, 1, 2)));
/* The same without the cap (fatal-to-tracing messages, verbose output). */
void ht_say(const char *fmt, ...) HT_HIDDEN __attribute__((format(printf, 1, 2)));
/* Read a small file (e.g. /proc/self/cmdline) into buf. @return bytes, or -1. */
long ht_read_file(const char *path, char *buf, size_t cap) HT_HIDDEN;
/* The resident bytes of the whole pages inside [start, start + bytes)
 * (mincore; all of them when it cannot tell). No allocation. */
uint64_t ht_resident_of(const void *start, size_t bytes) HT_HIDDEN;
#define HT_MAX_WARNINGS 8

/* ht_counter: the CPU's own constant-rate counter, read without a system call
 * or a fence, where there is one (HT_HAVE_COUNTER 1):
 *   x86, x86-64  the TSC (rdtsc); used when invariant (ht_tsc_invariant)
 *   aarch64      the generic timer's virtual count (cntvct_el0), at the rate
 *                cntfrq_el0 gives: architecturally constant and the same on
 *                every CPU, often 24 MHz-1 GHz (40-1 ns a tick)
 * Elsewhere there is none and every time is CLOCK_MONOTONIC's. Either way
 * clock.c measures the rate against CLOCK_MONOTONIC for the trace's header.
 * HT_COUNTER_NAME is what the header's clock field says. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HT_HAVE_COUNTER 1
#define HT_COUNTER_NAME "TSC"
static inline uint64_t ht_counter(void) { return __rdtsc(); }
#elif defined(__aarch64__)
#define HT_HAVE_COUNTER 1
#define HT_COUNTER_NAME "CNTVCT"
static inline uint64_t ht_counter(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
#else
#define HT_HAVE_COUNTER 0
#define HT_COUNTER_NAME "CLOCK_MONOTONIC"
static inline uint64_t ht_counter(void) { return ht_mono_ns(); }
#endif
static inline uint64_t ht_now(void) { return ht_use_tsc ? ht_counter() : ht_mono_ns(); }

/* ---- options.c ---- */
typedef enum ht_opt_id {
    HT_OPT_ZSTD_LEVEL, HT_OPT_RING_SIZE, HT_OPT_FLUSH_MS, HT_OPT_FOLLOW_CHILDREN,
    HT_OPT_DROP, HT_OPT_VERBOSE, HT_OPT_STACKS, HT_OPT_STACKS_FP, HT_OPT_STACKS_CHECK, HT_OPT_TIME_RES,
    HT_OPT_ENCODE_HELPER, HT_OPT_EFFORT,
    HT_OPT_COUNT_
} ht_opt_id;
/* HT_OPT_EFFORT's values (HATRACE_EFFORT=auto|fast|full|stored, effort.c; auto: fast, the default). */
enum { HT_EFFORT_AUTO = 0, HT_EFFORT_FAST = 1, HT_EFFORT_FULL = 2, HT_EFFORT_STORED = 3 };
/* Parse HATRACE_* from the environment (no allocation); invalid values warn once
 * and keep the default. Strings: HATRACE_OUTPUT, HATRACE_CLOCK, HATRACE_REPORT. */
void ht_options_init(void) HT_HIDDEN;
long ht_opt(ht_opt_id id) HT_HIDDEN;
const char *ht_opt_output(void) HT_HIDDEN;  /* output pattern */
const char *ht_opt_clock(void) HT_HIDDEN;   /* "auto", "tsc" or "monotonic" */
const char *ht_opt_report(void) HT_HIDDEN;  /* file to append a summary line to, or NULL */
/* Parse a decimal number with an optional k/m/g suffix. @return 0 or -1. */
int ht_parse_long(const char *s, long *out) HT_HIDDEN;
/* Expand %p %e %t %% of pattern into out. @return 0, or -1 if it does not fit. */
int ht_expand_pattern(const char *pattern, char *out, size_t cap, uint32_t pid,
                      const char *prog, uint64_t start_s) HT_HIDDEN;

/* ---- recorder.c ---- */
enum ht_state { HT_ST_UNINIT = 0, HT_ST_INITING, HT_ST_READY, HT_ST_OFF };
extern _Atomic int ht_state HT_HIDDEN;
extern _Atomic uint32_t ht_poke_word HT_HIDDEN;  /* futex the flusher sleeps on */
extern uint64_t ht_t0 HT_HIDDEN;                 /* ht_now() at start; event times are relative */
extern _Atomic uint64_t ht_lost HT_HIDDEN;         /* events lost outside rings (late, side overflow) */
extern _Atomic uint64_t ht_side_events HT_HIDDEN;  /* events signal handlers queued in side buffers */
extern _Atomic uint32_t ht_side_most HT_HIDDEN;    /* most events one side buffer held at once */

/* Start the recorder: idempotent, safe from any hook. resolve_real is the
 * shim's lookup of the real functions (hooks.c gives its own): called once,
 * first, on the initialising thread inside its untraced section, so the calls
 * dlsym makes are the recorder's own; NULL when there is none to look up (the
 * unit tests). Only the shim starts the recorder; the core waits with
 * ht_init_wait. A call while another thread initialises waits for it. */
void ht_init(void (*resolve_real)(void)) HT_HIDDEN;
/* Wait for an initialisation under way on another thread; start none. */
void ht_init_wait(void) HT_HIDDEN;
/* Slow path of a hook: no ring yet (attach one), the recorder's own calls (pass),
 * a signal handler inside a hook (queue in the side buffer), after thread exit. */
void ht_record_slow(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d) HT_HIDDEN;
/* The ring is full: wait for the flusher, drain synchronously, or drop. @return a
 * slot to fill (then ht_ring_publish) or NULL when the event was dropped. While
 * it waits no slot is held, so signal handlers write straight into the ring. */
ht_rawev *ht_ring_full(ht_ring *r) HT_HIDDEN;
/* An event that will not be recorded: what it owns is freed (a heap-create's
 * copy of the name, which the flusher frees for the events it receives).
 * Any other event owns nothing. */
void ht_event_dropped(uint32_t kind, uint64_t d) HT_HIDDEN;
/* Wake the flusher (the ring crossed its fill mark). */
void ht_poke(void) HT_HIDDEN;
/* Move events queued by signal handlers into the ring, inside the caller's busy
 * window (pre: busy == 1). Every writer drains them before writing its own
 * event, so a handler that runs just after a window closed cannot put its
 * event ahead of older queued ones. */
void ht_side_drain(ht_ring *r) HT_HIDDEN;
/* The same from outside a window (pre: busy == 0; returns with busy == 0 and
 * the side buffer empty). */
void ht_side_flush(ht_tls *t, ht_ring *r) HT_HIDDEN;
/* Finish this process's trace (exit, exec): stop the flusher, drain, close. */
void ht_finish(void) HT_HIDDEN;
/* The calling thread's dense id (attaching its ring first if needed), 0 if untraced. */
uint64_t ht_current_tid(void) HT_HIDDEN;

/* Fill and publish the slot e taken inside the busy window (NULL: the event
 * cannot be stored) and leave the window, draining what a signal handler
 * queued meanwhile (see ht_side_flush): the slow ways' end (ht_emit_held,
 * ht_emit_nowait). */
static inline __attribute__((always_inline)) void ht_leave(ht_tls *t, ht_ring *r, ht_rawev *e, uint64_t tk,
                                                           uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    if (HT_LIKELY(e != NULL)) {
        unsigned units = ht_rawev_put(e, tk, a, b, c, d);
        r->last_tk = tk;
        if (HT_UNLIKELY(ht_ring_publish(r, units))) ht_poke();
    } else if (HT_KIND_OWNS_COPY(tk & HT_KIND_MASK)) {  /* a constant in most hooks */
        ht_event_dropped((uint32_t)tk, d);
    }
    atomic_signal_fence(memory_order_seq_cst);
    t->busy = 0;
    if (HT_UNLIKELY(r->side_w != r->side_r)) ht_side_flush(t, r);
}

/* Knobs of bench/record_decompose.sh, compiled in only with -DHT_BENCH_KNOBS
 * (a build of its own), to split the recorder's cost per event:
 * HATRACE_BENCH_SKIP=ring: every hook takes its time stamp and returns (no ring,
 * nothing recorded); =encode: the flusher drains and converts the rings and
 * drops the events instead of coding and writing them. */
#ifdef HT_BENCH_KNOBS
enum { HT_BENCH_RING = 1, HT_BENCH_ENCODE = 2 };
extern int ht_bench_skip HT_HIDDEN;
extern volatile uint64_t ht_bench_sink HT_HIDDEN;
#define HT_BENCH_SKIPS(what) HT_UNLIKELY(ht_bench_skip == (what))
#else
#define HT_BENCH_SKIPS(what) 0
#endif

/* The hooks' fast path (ht_emit_ret, ht_emit_free): every way off it is a
 * tail call, so it holds nothing across a call and the hook keeps no
 * callee-saved registers beyond what its real call needs (no prologue of
 * pushes and pops on every event). The ways off, each ending in the real
 * work of ht_emit (recorder.c): */
/* Not the fast path's thread state (no ring, inside a hook, untraced):
 * ht_record_slow. @return ret */
void *ht_emit_slow(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d, void *ret) HT_HIDDEN;
/* Inside the busy window with no slot taken (side events queued, a ring full
 * by the cached tail, no counter clock): drain the side events, take a slot,
 * waiting for room if the ring is full, then ht_leave. @return ret */
void *ht_emit_held(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d, void *ret) HT_HIDDEN;
/* After the window: wake the flusher if poke, move queued side events. @return ret */
void *ht_emit_after(int poke, void *ret) HT_HIDDEN;
/* The same three for a free, each ending in real(p). */
void ht_free_slow(uint32_t kind, void *p, void (*real)(void *)) HT_HIDDEN;
void ht_free_held(uint32_t kind, void *p, void (*real)(void *)) HT_HIDDEN;
void ht_free_after(int poke, void *p, void (*real)(void *)) HT_HIDDEN;

#if HT_HAVE_COUNTER
#define HT_FAST_CLOCK() HT_LIKELY(ht_use_tsc)
#else
#define HT_FAST_CLOCK() 0  /* ht_mono_ns is a call: ht_emit_held */
#endif

/* The fast path's window: a slot taken inside it, or NULL (then the caller
 * goes to its _held way, busy still set). */
static inline __attribute__((always_inline)) ht_rawev *ht_fast_enter(ht_tls *t, ht_ring *r)
{
    t->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    ht_rawev *e = ht_ring_slot_cached(r);
    return HT_LIKELY(e && r->side_w == r->side_r && HT_FAST_CLOCK()) ? e : NULL;
}
/* Write and publish the event at e, leave the window. @return nonzero if the
 * caller must go its _after way: bit 0 a poke due, bit 1 side events queued
 * meanwhile. */
static inline __attribute__((always_inline)) int ht_fast_leave(ht_tls *t, ht_ring *r, ht_rawev *e, uint64_t tk,
                                                               uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    unsigned units = ht_rawev_put(e, tk, a, b, c, d);
    r->last_tk = tk;
    int poke = ht_ring_publish(r, units);
    atomic_signal_fence(memory_order_seq_cst);
    t->busy = 0;
    return poke | (r->side_w != r->side_r) << 1;
}

/* Record one event and return ret (a hook's result). The fast path: the
 * calling thread has a ring, is not inside a hook nor untraced, and the ring
 * has room by its cached tail; the time is taken inside the busy window. */
static inline __attribute__((always_inline)) void *ht_emit_ret(uint32_t kind, uint64_t a, uint64_t b, uint64_t c,
                                                               uint64_t d, void *ret)
{
    ht_tls *t = &ht_t;
    ht_ring *r = t->ring;
#ifdef HT_BENCH_KNOBS
    if (HT_BENCH_SKIPS(HT_BENCH_RING) && (kind & HT_KIND_MASK) < HT_K_THREAD_CREATE) {
        ht_bench_sink = ht_now();
        return ret;
    }
#endif
    if (HT_UNLIKELY(r == NULL || t->busy || t->untraced)) return ht_emit_slow(kind, a, b, c, d, ret);
    ht_rawev *e = ht_fast_enter(t, r);
    if (HT_UNLIKELY(!e)) return ht_emit_held(kind, a, b, c, d, ret);
    int after = ht_fast_leave(t, r, e, (ht_counter() - ht_t0) << HT_TK_SHIFT | kind, a, b, c, d);
    if (HT_UNLIKELY(after)) return ht_emit_after(after & 1, ret);
    return ret;
}

/* Record one event (ht_emit_ret, for callers with nothing to return). */
static inline __attribute__((always_inline)) void ht_emit(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    (void)ht_emit_ret(kind, a, b, c, d, NULL);
}
/* An event of a thread that has no ring yet, kept in a small process-wide
 * queue the flusher drains (recorder.c; no allocation, no wait): counted lost
 * once it is full. */
void ht_orphan_push(uint64_t tk, uint64_t a, uint64_t b, uint64_t c, uint64_t d) HT_HIDDEN;
/* 1 if the writer lock is held, by this thread or another (flusher_state.c):
 * the check of "pre: wlock held", HATF_PRE(ht_wlock_held()). */
int ht_wlock_held(void) HT_HIDDEN;
/* pre: wlock held. The queue's events not taken yet, as a ring's: *first, @return the count. */
size_t ht_orphan_peek(const ht_rawev **first) HT_HIDDEN;
void ht_orphan_consume(size_t n) HT_HIDDEN;

/* Record one event if the thread's ring has room now (a thread without a ring:
 * the orphan queue), else count it lost: for
 * calls that may come from inside an allocator holding its own lock (the
 * program's mappings: jemalloc maps memory through the PLT), where neither a
 * wait for the flusher nor a thread's first ring (which allocates) is safe.
 * The recorder's own calls (untraced, or inside a hook) are not recorded, nor
 * a thread's calls after its thread-destroy (its ring is gone, but it is no
 * orphan): libunwind's key destructor unmaps there the per-thread cache of the
 * recorder's stack walks, one call per thread under --stacks. */
static inline void ht_emit_nowait(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ht_tls *t = &ht_t;
    ht_ring *r = t->ring;
    if (t->busy || t->untraced || t->exited) return;
    t->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    ht_rawev *e = r && r->side_w == r->side_r ? ht_ring_slot(r) : NULL;  /* side events first: keep the order */
    if (HT_LIKELY(e != NULL)) {
        ht_leave(t, r, e, (ht_now() - ht_t0) << HT_TK_SHIFT | kind, a, b, c, d);
        return;
    }
    if (!r) ht_orphan_push((ht_now() - ht_t0) << HT_TK_SHIFT | kind, a, b, c, d);  /* a thread with no ring yet */
    else atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
    t->busy = 0;
}
/* Record a free, then run it (a tail call). The time is taken before the real
 * free (causality: a reuse of the address by another thread sorts after it)
 * and the event published before it too, so a signal handler that allocates
 * during the free writes behind this event. rdtsc may run ahead of the load
 * that gave the thread p, so the stamp may come before another thread's
 * allocation of it: not fenced, the header says so and readers repair it
 * (HATF_INFO_EARLY_RELEASE, docs/recorder.md "Order"). The word before p
 * (the chunk header of glibc and most allocators, often in another core's
 * cache when another thread made the object) is fetched first, so that miss
 * overlaps the stamp and the ring write instead of following them. */
static inline __attribute__((always_inline)) void ht_emit_free(uint32_t kind, void *p, void (*real)(void *))
{
    __builtin_prefetch((const char *)p - sizeof(size_t));
    ht_tls *t = &ht_t;
    ht_ring *r = t->ring;
#ifdef HT_BENCH_KNOBS
    if (HT_BENCH_SKIPS(HT_BENCH_RING)) {
        ht_bench_sink = ht_now();
        real(p);
        return;
    }
#endif
    if (HT_UNLIKELY(r == NULL || t->busy || t->untraced)) {
        ht_free_slow(kind, p, real);
        return;
    }
    ht_rawev *e = ht_fast_enter(t, r);
    if (HT_UNLIKELY(!e)) {
        ht_free_held(kind, p, real);
        return;
    }
    int after = ht_fast_leave(t, r, e, (ht_counter() - ht_t0) << HT_TK_SHIFT | kind, (uint64_t)(uintptr_t)p, 0, 0, 0);
    if (HT_UNLIKELY(after)) {
        ht_free_after(after & 1, p, real);
        return;
    }
    real(p);
}
/* Record a comment of len bytes of text (copied) on the calling thread
 * (annotate.c). pre: not inside a hook. */
void ht_emit_comment(const char *text, size_t len) HT_HIDDEN;
/* The comments the recorder writes for the program's own mappings (hooks.c) */
#define HT_MAP_PREFIX HATF_MAP_PREFIX

/* Thread start (our pthread_create trampoline): attach a ring and record thread-create. */
void ht_thread_begin(void) HT_HIDDEN;
/* 1 in the process whose trace the recorder writes (0 in a vfork child, which
 * shares its parent's memory). */
int ht_owns_trace(void) HT_HIDDEN;
/* Before exec: finish the trace if this process owns it (not in a vfork child). */
void ht_before_exec(void) HT_HIDDEN;
/* Before _exit: have the flusher end the trace, waiting a bounded time (see recorder.c). */
void ht_before_exit(void) HT_HIDDEN;
/* On the flusher thread, asked by ht_flusher_finish: drain, close, mark finished. */
void ht_finish_on_flusher(void) HT_HIDDEN;

/* ---- crash.c: the signals a process dies of (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP);
 * the hooks' side of it: crash.h ---- */
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
/* recorder.c, from the handler. A signal a handler of the program takes:
 * into the thread's ring if it has room now (else counted lost). */
void ht_note_signal(ht_signal_note *n) HT_HIDDEN;
/* The process is about to die of n: the flusher drains every ring, writes the
 * note and closes the trace; this thread waits at most HT_DEATH_WAIT_NS. */
void ht_before_death(ht_signal_note *n) HT_HIDDEN;
/* A handler of SIGABRT returned (or it is ignored): abort() puts SIG_DFL back
 * without a hook and raises it again, so every event goes to the file now
 * (the trace stays open: the program may go on). */
void ht_before_abort(void) HT_HIDDEN;
#define HT_DEATH_WAIT_NS 5000000000u


/* ---- stacks.c ---- */
/* Frames per stack (HATRACE_STACKS), 0 when stacks are off. Set at init. */
extern int ht_stack_depth HT_HIDDEN;
/* Read the option, set up libunwind's per-thread caching. pre: untraced. */
void ht_stacks_init(void) HT_HIDDEN;
/* Give ring r its dedup table (kept across reuse) and warm libunwind up on
 * this thread, so the hot path neither allocates nor recurses.
 * pre: untraced, stacks on. */
void ht_stacks_attach(ht_ring *r) HT_HIDDEN;
/* The call stack of the hook that calls this (from the hook's caller on), as
 * a thread-local id: found in the thread's table, or added and announced to
 * the flusher by a STACK event. @return the id, 0 when none (no ring, inside
 * a hook, table full). No lock, no malloc after ht_stacks_attach. */
uint64_t ht_stack_here(void) HT_HIDDEN;
struct hatf_writer;
/* Flusher (wlock held): take a STACK event of ring r: its frames get a
 * process-wide id (equal stacks of all threads share one), new ones are
 * written to the trace's tables (w may be NULL: ids only). */
void ht_stacks_take(struct hatf_writer *w, ht_ring *r, const ht_rawev *e) HT_HIDDEN;
/* Flusher: the process-wide id of ring r's local id, 0 if unknown. */
uint64_t ht_stacks_gid(ht_ring *r, uint64_t local) HT_HIDDEN;
/* At the end (wlock held): the load map and the names of every frame seen. */
void ht_stacks_finish(struct hatf_writer *w) HT_HIDDEN;
/* Fork child: forget every stack (the child's trace starts empty). */
void ht_stacks_atfork_child(void) HT_HIDDEN;
/* Allocations without a stack id because a thread's table was full. */
extern _Atomic uint64_t ht_stacks_full HT_HIDDEN;

/* ---- unwind.c ---- */
/* cached frame rules per thread: 16384 (256 KiB), an address's in the window
 * of slots from its home one (hence the extra slots at the end); 256 near copies */
enum { HT_UNW_BITS = 14, HT_UNW_WINDOW = 8, HT_UNW_NEAR_BITS = 8 };
/* How to find a frame's caller, for one code address (see unwind.c). */
typedef struct ht_unw_rule {
    uintptr_t ip;           /* the code address; 0: empty slot */
    int32_t cfa_off;        /* CFA = (cfa_rbp ? rbp : rsp) + cfa_off */
    int16_t rbp_off;        /* the caller's rbp saved at CFA + rbp_off; 0: still in rbp */
    uint8_t cfa_rbp, kind;
} ht_unw_rule;
/* A thread's unwinder: its stack's bounds and rule caches (no lock: one
 * thread). near copies the rules of recent addresses into 4 KiB that stay in
 * the L1 cache between walks; slot, every address's, spans 256 KiB. */
typedef struct ht_unw {
    uintptr_t lo, hi;
    ht_unw_rule near[1 << HT_UNW_NEAR_BITS];
    ht_unw_rule slot[(1 << HT_UNW_BITS) + HT_UNW_WINDOW];
} ht_unw;
/* Take the calling thread's stack bounds. pre: untraced (it may allocate).
 * @return 0, or -1 when unknown (then ht_unwind always returns -1). */
int ht_unwind_attach(ht_unw *u) HT_HIDDEN;
/* Like unw_backtrace: the return addresses of the calling function's frame
 * and its callers', innermost first, into out[0..max). No lock, no malloc,
 * async-signal-safe. @return the count, or -1 when the stack cannot be
 * walked from the call-frame information (then take libunwind's). */
int ht_unwind(ht_unw *u, uint64_t *out, int max) HT_HIDDEN;

/* ---- symbols.c ---- */
/* Write the load map and a symbol for each of the n sorted unique frame
 * addresses. pre: untraced (it allocates). */
void ht_symbols_write(struct hatf_writer *w, const uint64_t *addrs, size_t n) HT_HIDDEN;

/* ---- annotate.c ---- */
/* Record heap-create of heap with a copy of name (at most 255 bytes, or NULL)
 * for the heap table; the flusher frees the copy. */
void ht_emit_heap_create(uint64_t heap, const char *name) HT_HIDDEN;

/* ---- registry.c ---- */
/* A ring for the calling thread: a free one from the registry, or a new mapping.
 * @return NULL if memory is exhausted. */
ht_ring *ht_ring_claim(void) HT_HIDDEN;
/* Registry of rings (lock-free push, never unlinked; rings are reused). */
extern _Atomic(ht_ring *) ht_rings HT_HIDDEN;
extern _Atomic uint32_t ht_dead_rings HT_HIDDEN;  /* exited threads not yet reclaimed */

/* ---- clock.c ---- */
/* Choose the clock (HATRACE_CLOCK, invariant TSC) and take the start sample. */
void ht_clock_init(void) HT_HIDDEN;

/* ---- output.c ---- */
/* Open the output of this process now (early error), or in a fork child later.
 * @return 0, or -1 after one message (the program then runs untraced). */
int ht_output_open(void) HT_HIDDEN;

/* ---- flusher.c ---- */
int ht_flusher_start(void) HT_HIDDEN;     /* @return 0 or -1 */
void ht_flusher_stop(void) HT_HIDDEN;     /* join; no-op if not running or on the flusher */
int ht_flusher_running(void) HT_HIDDEN;
/* Ask the flusher thread to end the trace (ht_finish_on_flusher) and wait for it
 * at most timeout_ns. No allocation, no lock. @return 0 when done, -1 if not. */
int ht_flusher_finish(uint64_t timeout_ns) HT_HIDDEN;
/* Ask the flusher to drain every ring and write every pending chunk now, and
 * wait for it at most timeout_ns (the same rules). @return 0 when done, -1 if not. */
int ht_flusher_sync(uint64_t timeout_ns) HT_HIDDEN;
/* 1 on the flusher or the encoding helper thread. */
int ht_on_background_thread(void) HT_HIDDEN;
/* Write the note of the signal the process dies of, after its thread's last
 * event (takes wlock; ht_finish_on_flusher). */
void ht_write_death(const ht_signal_note *n) HT_HIDDEN;
/* Drain every ring into the writer (opening it on first use). Takes the writer
 * lock. @return events written, or -1 if the trace is off. */
long ht_drain_all(void) HT_HIDDEN;
/* Drain only r (a producer with a full ring and no flusher). */
long ht_drain_one(ht_ring *r) HT_HIDDEN;

/* ---- writer_end.c ---- */
/* Close the writer (final drain done by the caller), report counters. */
void ht_writer_finish(void) HT_HIDDEN;

/* ---- flusher_state.c ---- */
/* Fork: lock in prepare, unlock in the parent, reset in the child. */
void ht_flusher_atfork_prepare(void) HT_HIDDEN;
void ht_flusher_atfork_parent(void) HT_HIDDEN;
void ht_flusher_atfork_child(void) HT_HIDDEN;

#endif /* HT_RECORDER_H */
