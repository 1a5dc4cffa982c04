/* recorder.h — the recorder's hot path (libhatrace.so, not installed): the raw
 * event kinds, the clock the hooks read (ht_now), the inline emits (ht_emit,
 * ht_emit_ret, ht_emit_free, ht_emit_nowait) and their ways off, and the
 * process state they test. Nothing else: every other file's declarations are
 * in the header named for it.
 *
 * preload/ captures and hands off; encoding and compression run on the flusher.
 * The files (the same list as docs/recorder.md, "Files"), bottom to top:
 *   ring.h              the per-thread SPSC ring (inline producer and consumer operations)
 *   prim.c, prim.h      host coupling: the thread state (ht_t), clock sources, futex, thread id, capped
 *                       logging without malloc; the macros every file uses
 *   recorder.h          the hot path (this header; no recorder.c, see below)
 *   options.c, .h       the option table, allocation-free parsing, the output name pattern
 *   registry.c, .h      the ring registry: a ring for each new thread, reused or mapped, sized by thread count
 *   own_heap.c, .h      the recorder's own heap: its blocks' bytes, taken out of a resident sample
 *   own_libs.c, .h      the recorder's own libraries: their written pages, taken out of a resident sample
 *   unwind.c, .h        the stack walk from DWARF call-frame information (.eh_frame), a per-thread cache
 *                       of frame rules
 *   symbols.c, .h       the load map and the names of every frame, written once at the end
 *   stacks.c, .h        call stacks: capture, per-thread dedup, process-wide ids
 *   flusher_state.c, .h the writer side's state in one struct (ht_fs), what a fork does to it, its lock
 *   flusher_order.c     the merged drain: every ring's events in time order, for a --time-res above 1 us
 *   clock.c, .h         the clock: TSC or CLOCK_MONOTONIC, the start sample, the tick rate, its drift at close
 *   effort.c, .h        the coding of the chunk groups: fast and packed by zstd, unless asked otherwise
 *   convert.c, .h       raw event → hatf_event for every kind but the plain ones (malloc, free, realloc
 *                       with no flag), which the writer takes from the ring as they are
 *   output.c, .h        the trace file: name, creation, header, report lines, write failures, the SIGXFSZ guard
 *   crash.c, .h         the signals a process dies of: the program's signal actions kept as the kernel would,
 *                       the recorder's handler, alternate signal stacks, the note of a signal
 *   flusher.c, .h       the flusher and encoding helper threads: rings drained into the writer, timed flushes
 *   writer_end.c, .h    the end of a trace: counters, names of live threads, stack tables, close, report
 *   got_patch.c, .h     the allocation functions' slots of every loaded object, rewritten and put back
 *   attach.c, .h        a running process's recorder (hatrace record -p): attach, detach, the windows
 *   process.c, .h       the recorder in a process: init, thread attach/exit, the hot path's ways off, the
 *                       signal side buffer, the orphan queue, fork, exec, exit (process.h: start and ends)
 *   annotate.c, .h      the annotation API's runtime (hatrace_rt_*, see include/hatrace.h)
 *   mimalloc_heaps.c    mimalloc's heap API (mi_heap_*, mi_free ...) recorded with heap records (docs/heaps.md)
 *   hooks.c             the interposed symbols, the bootstrap arena, the constructor and destructor; the
 *                       only file that knows the real functions
 *   exports.map         version script: only the interposed symbols, the annotation runtime (hatrace_rt_*)
 *                       and mimalloc's heap API are exported
 *   cli/record.c        hatrace record
 * Each file includes only the headers of files listed before it. The hot path's
 * out-of-line ways are process.c's, which calls the flusher, the registry and
 * the stacks, all of which include this header: so this header has no .c of
 * its name (a recorder.c would close a circle of includes). A file that calls
 * back into a file listed after it (the flusher ending the trace, the crash handler,
 * output.c reading the flusher's CPU time, attach.c ending a window) declares
 * that call in its own header, marked with the file that defines it.
 * Includes: include/ and, of libhatf's internals, ../hatf/hatf_recorder.h alone
 * (ring.h; it brings HATF_PRE, the check of the pre: lines, hatf/hatf_check.h).
 * Names: ht_ internal, HT_ macros and constants.
 */
#ifndef HT_RECORDER_H
#define HT_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include "hatf.h"
#include "../hatf/hatf_recorder.h"  /* libhatf's writer internals, HATF_PRE */
#include "prim.h"
#include "ring.h"

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
 * before the first event that uses it.
 * HT_PACKED (REALLOCARRAY, never in a heap: HT_HEAP's bit): nmemb and elsize
 * both under 2^32, b = nmemb | elsize << 32 and d as a realloc's (the stack
 * id and the call's begin, HATF_RAW_RELEASE_BIT), for its release lead. A
 * realloc in a heap (HT_HEAP) has no room for its begin: d is the heap. */
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
#define HT_PACKED HT_HEAP
#define HT_FAILED 0x80u

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

/* ---- the process's state the hooks and their ways read (process.c) ---- */
enum ht_state { HT_ST_UNINIT = 0, HT_ST_INITING, HT_ST_READY, HT_ST_OFF };
extern _Atomic int ht_state HT_HIDDEN;
extern _Atomic uint32_t ht_poke_word HT_HIDDEN;  /* futex the flusher sleeps on */
extern uint64_t ht_t0 HT_HIDDEN;                 /* ht_now() at start; event times are relative */
extern _Atomic uint64_t ht_lost HT_HIDDEN;         /* events lost outside rings (late, side overflow) */
extern _Atomic uint64_t ht_side_events HT_HIDDEN;  /* events signal handlers queued in side buffers */
extern _Atomic uint32_t ht_side_most HT_HIDDEN;    /* most events one side buffer held at once */
/* 1 while the recorder runs in a process it was loaded into late (by
 * hatrace record -p): no LD_PRELOAD interposition, the calls come through
 * rewritten GOT slots; the program's environment and signal actions are
 * left alone. Set by attach.c; read by process.c and by output.c, which is
 * below both (hence declared here, with the state the hooks test). */
extern int ht_attached HT_HIDDEN;

/* ---- the hot path's ways into the process (process.c) ---- */
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
/* Wake the flusher. */
void ht_poke(void) HT_HIDDEN;
/* r's events crossed its poke mark (ht_ring_publish): wake the flusher if the
 * ring is still half full by the shared tail (ht_ring_poke_needed). */
void ht_poke_ring(ht_ring *r) HT_HIDDEN;
extern _Atomic uint64_t ht_pokes HT_HIDDEN;  /* times a producer woke the flusher */
/* Move events queued by signal handlers into the ring, inside the caller's busy
 * window (pre: busy == 1). Every writer drains them before writing its own
 * event, so a handler that runs just after a window closed cannot put its
 * event ahead of older queued ones. */
void ht_side_drain(ht_ring *r) HT_HIDDEN;
/* The same from outside a window (pre: busy == 0; returns with busy == 0 and
 * the side buffer empty). */
void ht_side_flush(ht_tls *t, ht_ring *r) HT_HIDDEN;
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
        if (HT_UNLIKELY(ht_ring_publish(r, units))) ht_poke_ring(r);
    } else if (HT_KIND_OWNS_COPY(tk & HT_KIND_MASK)) {  /* a constant in most hooks */
        ht_event_dropped((uint32_t)tk, d);
    }
    atomic_signal_fence(memory_order_seq_cst);
    t->busy = 0;
    if (HT_UNLIKELY(r->side_w != r->side_r)) ht_side_flush(t, r);
}

/* Knobs of bench/record_decompose.sh, compiled in only with -DHT_BENCH_KNOBS
 * (a build of its own), to split the recorder's cost per event:
 * HATRACE_BENCH_SKIP=clock: every hook calls the real function and returns
 * (no time stamp, no ring, nothing recorded); =ring: every hook takes its time stamp and
 * returns; =encode: the flusher drains and converts the rings and drops the
 * events instead of coding and writing them. */
#ifdef HT_BENCH_KNOBS
enum { HT_BENCH_RING = 1, HT_BENCH_ENCODE = 2, HT_BENCH_CLOCK = 3 };
extern int ht_bench_skip HT_HIDDEN;
extern volatile uint64_t ht_bench_sink HT_HIDDEN;
#define HT_BENCH_SKIPS(what) HT_UNLIKELY(ht_bench_skip == (what))
/* the hooks record nothing: they stamp (ring) or not even that (clock) */
#define HT_BENCH_SKIPS_RING() HT_UNLIKELY(ht_bench_skip == HT_BENCH_RING || ht_bench_skip == HT_BENCH_CLOCK)
static inline void ht_bench_stamp(void)
{
    if (ht_bench_skip == HT_BENCH_RING) ht_bench_sink = ht_now();
}
#else
#define HT_BENCH_SKIPS(what) 0
#endif

/* The hooks' fast path (ht_emit_ret, ht_emit_free): every way off it is a
 * tail call, so it holds nothing across a call and the hook keeps no
 * callee-saved registers beyond what its real call needs (no prologue of
 * pushes and pops on every event). The ways off, each ending in the real
 * work of ht_emit (process.c): */
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
    if (HT_BENCH_SKIPS_RING() && (kind & HT_KIND_MASK) < HT_K_THREAD_CREATE) {
        ht_bench_stamp();
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
 * queue the flusher drains (process.c; no allocation, no wait): counted lost
 * once it is full. */
void ht_orphan_push(uint64_t tk, uint64_t a, uint64_t b, uint64_t c, uint64_t d) HT_HIDDEN;
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
    if (HT_BENCH_SKIPS_RING()) {
        ht_bench_stamp();
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
/* The comments the recorder writes for the program's own mappings (hooks.c) */
#define HT_MAP_PREFIX HATF_MAP_PREFIX

#endif /* HT_RECORDER_H */
