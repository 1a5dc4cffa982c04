/* compile.c — the replay compiler: events in global time order -> plan.
 *
 * Objects become dense slot numbers. A slot freed by thread T goes back to T's
 * own free list, so a slot is only ever reused by the thread that emptied it,
 * after it emptied it in its own program order: reuse never needs a wait.
 *
 * Cross-thread objects. When thread T consumes (frees, reallocs) an object made
 * by thread U, the op that made it is flagged PUBLISH and T gets a WAIT op
 * before its consuming op: the runner on U bumps ready[slot] with a release
 * store after storing the pointer, the runner on T spins until ready[slot]
 * equals the generation the compiler counted (acquire). Every ownership change
 * of a slot passes through such a wait, so the publishing thread always sees
 * the slot's latest generation and generations per slot rise one by one.
 *
 * Inversions. Per-thread timestamps let the merged order show an address
 * handed out again while it still looks live (a moving realloc is stamped once
 * for both halves; its free half may sort after another thread's allocation of
 * the address it released). The new object then displaces the old one, which
 * stays findable under the same address. The next consumer of that address
 * takes the displaced (older) object when the current one was made by another
 * thread — the late record must be the old object's, since the thread that
 * made the current object cannot be inside the call that freed the old one —
 * and the current object otherwise. Anything consumed that is not live at all
 * is an error naming the record.
 *
 * Heaps (docs/heaps.md). A createHeap takes a slot for the heap's handle and
 * emits RP_HEAP_CREATE on its thread. While everything about the heap —
 * create, allocations and frees of its objects, destroy — happens on that
 * runner thread, its objects are made with heap kinds naming the handle's
 * slot, and at destroyHeap the remaining objects get RP_HEAP_DFREE (skipped
 * when the heap is native) before RP_HEAP_DESTROY; the create op is then
 * flagged RP_F_NATIVE. Once another thread allocates in the heap or destroys
 * it, or an object leaves it, the heap stays unflagged: the runner never
 * creates its native heap, so the heap-kind ops already emitted fall back to
 * malloc and free, and later ops are plain. The handle's slot goes back to
 * the creating thread, the only one that writes it.
 *
 * Frees from other threads keep a heap native (both allocators free any
 * block from any thread): such an RP_HEAP_FREE reads the handle (its wait for
 * the object orders it after the create) and then adds one to ready[heap
 * slot] (atomically: several threads may). Before the destroy, and before the
 * slot can be reused, the owner waits until all those frees are done: a WAIT
 * on the heap slot for their count, which only waits for earlier ops.
 */
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "source_thread.h"

#define NONE UINT32_MAX
#define TCACHE_N 64        /* rp_compiler.tcache: entries, a power of two */

typedef struct obj {
    uint64_t addr, size;
    uint64_t create_op;    /* index in the making thread's ops */
    uint32_t slot;
    uint32_t thread;       /* plan thread that made it */
    uint32_t older;        /* displaced object under the same address */
    uint32_t heap;         /* index in heaps[] */
    uint32_t hprev, hnext; /* live objects of the same heap */
    uint8_t displaced;     /* another object was made at its address while it lived */
    uint8_t native;        /* made by a heap-kind op of its heap's live instance */
    uint8_t pad_[14];      /* a cache line: a free's prefetch (prefetch_item) fetches all of it */
} obj;
_Static_assert(sizeof(obj) == 64, "obj is one cache line");

typedef struct heap_rec {
    uint64_t id;
    uint32_t head;         /* newest live object, or NONE */
    uint32_t hslot;        /* slot of the live instance's handle, or NONE (not created) */
    uint32_t owner;        /* plan thread that created the live instance */
    uint8_t confined;      /* the live instance has only been touched on owner */
    uint32_t foreign_frees;/* RP_HEAP_FREEs on other threads that bump ready[hslot] */
    uint64_t create_op;    /* its RP_HEAP_CREATE in owner's ops */
} heap_rec;

/* A slot on a thread's free list, and the op of that thread that emptied it
 * (RP_NO_OP: a heap's handle, never taken over by another thread). */
typedef struct free_slot {
    uint32_t slot;
    uint64_t op;
} free_slot;
#define RP_NO_OP UINT64_MAX

typedef struct thread_rec {
    /* its ops when live bytes peak (at_peak), as of the peak numbered
       peak_epoch: noted at its first push after a new peak (or at the end) */
    uint64_t at_peak, peak_epoch;
    uint64_t first_pos, last_pos;  /* the events of its first and last op (rp_thread_plan) */
    free_slot *free_slots;
    size_t nfree, capfree;
} thread_rec;

struct rp_compiler {
    int single;
    int lost_ok;           /* the trace lost parts: a release of no live object is skipped */
    int attached;          /* recorded by attaching (HATF_INFO_ATTACHED): a release of no live object
                              is of one allocated before tracing, skipped */
    uint64_t size_max;     /* an allocation larger is refused (rp_compile_opts.size_max), 0: none */
    uint64_t record, offset; /* the event being compiled: where the peak was reached */
    rp_plan plan;
    rp_planw *w;           /* the plan's ops: windows, written to a file or kept */
    obj *objs;
    size_t nobjs, capobjs;
    uint32_t free_obj;     /* free list of obj records through .older */
    addrmap addrs;         /* address -> current object (a) */
    addrmap thread_ids;    /* trace thread + 1 -> plan thread (a) */
    addrmap heap_ids;      /* heap + 1 -> heaps[] index (a) */
    /* the last answers of thread_ids and heap_ids (neither loses a key): most
       events name the thread and heap of one a few events before */
    struct { uint64_t key; uint32_t val; } tcache[TCACHE_N];
    uint64_t hkey;         /* 0: none yet */
    uint32_t hval;
    size_t hint;           /* the slot where the lookahead found the address the event frees in addrs, or SIZE_MAX */
    heap_rec *heaps;
    size_t nheaps, capheaps;
    thread_rec *threads;
    uint32_t nthr;         /* entries in threads (outlives the plan moved out) */
    uint32_t *pub;         /* per slot: publications so far */
    size_t cappub;
    size_t nfree_all;      /* slots on all free lists */
    uint32_t donor;        /* the thread whose free slots are taken over lately */
    uint64_t live_bytes, live_objects, calls;
    uint32_t peak_thread;
    uint64_t peak_op;
    int have_peak;
    uint64_t peak_epoch;   /* new peaks so far: each thread's ops then are noted lazily (push) */
    rp_touch *touch;       /* the trace's resident samples (rp_compile_source), or NULL */
    /* phases (rp_compiler_phases): each one's start on the threads known
       when it began (starts[p][0 .. nstarts[p])); the last call's place */
    int want_phases;
    rp_phase *phases;
    uint64_t **starts;
    uint32_t *nstarts;
    uint32_t nphases;
    uint32_t last_thread;
    uint64_t last_pos, phase_ops, phase_calls;
};

/* ---- small containers ------------------------------------------------------ */

#define GROW(arr, n, cap) \
    ((n) < (cap) ? 0 : grow_array((void **)&(arr), &(cap), sizeof *(arr)))

static int grow_array(void **a, size_t *cap, size_t elem)
{
    size_t c = *cap ? 2 * *cap : 64;
    void *p = realloc(*a, c * elem);
    if (!p) return -1;
    *a = p;
    *cap = c;
    return 0;
}

/* The object records: one per live object (megabytes on a big trace), each
 * on a line of its own and touched at random: cache-line aligned, on huge
 * pages from 2 MiB on (addrmap.h). */
static void objs_free(obj *o, size_t cap)
{
    size_t bytes = cap * sizeof *o;
    if (bytes >= ((size_t)2 << 20)) addrmap_big_free(o, bytes);
    else free(o);
}

static int objs_grow(rp_compiler *c)
{
    size_t cap = c->capobjs ? 2 * c->capobjs : 1024, bytes = cap * sizeof(obj);
    obj *o = bytes >= ((size_t)2 << 20) ? addrmap_big_alloc(bytes) : aligned_alloc(64, bytes);
    if (!o) return -1;
    if (c->nobjs) memcpy(o, c->objs, c->nobjs * sizeof *o);
    objs_free(c->objs, c->capobjs);
    c->objs = o;
    c->capobjs = cap;
    return 0;
}

/* ---- compiler -------------------------------------------------------------- */

rp_compiler *rp_compiler_new(int single)
{
    rp_compiler *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->single = single;
    c->plan.single = single;
    c->free_obj = NONE;
    c->hint = SIZE_MAX;
    if (addrmap_init(&c->addrs) || addrmap_init(&c->thread_ids) || addrmap_init(&c->heap_ids) ||
        !(c->w = rp_planw_new(-1, RP_WINDOW_OPS))) {
        rp_compiler_free(c);
        return NULL;
    }
    return c;
}

void rp_compiler_to_file(rp_compiler *c, int fd, uint64_t window_ops)
{
    rp_planw *w = rp_planw_new(fd, window_ops ? window_ops : RP_WINDOW_OPS);
    if (!w || c->plan.nthreads) {  /* too late: ops pushed already */
        rp_planw_free(w);
        return;
    }
    rp_planw_free(c->w);
    c->w = w;
}

void rp_compiler_free(rp_compiler *c)
{
    if (!c) return;
    free(c->touch);
    rp_plan_free(&c->plan);
    rp_planw_free(c->w);
    objs_free(c->objs, c->capobjs);
    addrmap_free(&c->addrs);
    addrmap_free(&c->thread_ids);
    addrmap_free(&c->heap_ids);
    free(c->heaps);
    for (uint32_t t = 0; t < c->nthr; t++) free(c->threads[t].free_slots);
    free(c->threads);
    free(c->pub);
    for (uint32_t k = 0; k < c->nphases; k++) free(c->starts[k]);
    free(c->starts);
    free(c->nstarts);
    free(c->phases);
    free(c);
}

/* Out of memory, or the plan file could not be written. */
static int nomem(const rp_compiler *c, hatf_err *err)
{
    int e = c ? rp_planw_error(c->w) : 0;
    if (e) return hatf_err_set(err, HATF_E_IO, 0, "replay plan file: cannot write: %s", strerror(e));
    return hatf_err_set(err, HATF_E_NOMEM, 0, "replay compiler: out of memory");
}

static inline uint64_t next_op(const rp_compiler *c, uint32_t t)
{
    uint64_t n, calls, bump;
    rp_planw_counts(c->w, t, &n, &calls, &bump);
    return n;
}

/* Every op goes through here: a thread's first op after a new peak of live
 * bytes notes how many ops it had at that peak (the runners' barrier there,
 * rp_thread_plan.peak_pos), so a peak costs nothing per thread. */
static inline int64_t push(rp_compiler *c, uint32_t t, rp_op op)
{
    thread_rec *tr = &c->threads[t];
    tr->last_pos = c->plan.st.events;  /* where its runner may end, and start (run.c) */
    if (__builtin_expect(!tr->first_pos, 0)) tr->first_pos = tr->last_pos;
    if (__builtin_expect(tr->peak_epoch != c->peak_epoch, 0)) {
        tr->at_peak = next_op(c, t);
        tr->peak_epoch = c->peak_epoch;
    }
    return rp_planw_push(c->w, t, op);
}

/* Plan thread for an event. @return its index, or -1 on allocation failure. */
static int64_t plan_thread(rp_compiler *c, uint64_t trace_thread)
{
    uint64_t key = c->single ? 1 : trace_thread + 1;
    if (!key) key = 1;  /* thread UINT64_MAX shares with thread 0; harmless */
    unsigned ci = (unsigned)(key ^ key >> 16) & (TCACHE_N - 1);
    if (c->tcache[ci].key == key) return c->tcache[ci].val;
    addrmap_entry *e = addrmap_find(&c->thread_ids, key);
    if (e) {
        c->tcache[ci].key = key;
        c->tcache[ci].val = e->a;
        return e->a;
    }
    int64_t t = rp_plan_add_thread(&c->plan, c->single ? 0 : trace_thread);
    if (t < 0 || rp_planw_thread(c->w, (uint32_t)t)) return -1;
    thread_rec *tr = realloc(c->threads, c->plan.nthreads * sizeof *tr);
    if (!tr) return -1;
    c->threads = tr;
    memset(&tr[t], 0, sizeof tr[t]);
    c->nthr = c->plan.nthreads;
    int added;
    if (!(e = addrmap_put(&c->thread_ids, key, &added))) return -1;
    e->a = (uint32_t)t;
    return t;
}

static int64_t heap_index(rp_compiler *c, uint64_t heap)
{
    uint64_t key = heap + 1 ? heap + 1 : 1;
    if (key == c->hkey) return c->hval;
    addrmap_entry *e = addrmap_find(&c->heap_ids, key);
    if (e) {
        c->hkey = key;
        c->hval = e->a;
        return c->hval;
    }
    if (GROW(c->heaps, c->nheaps, c->capheaps)) return -1;
    c->heaps[c->nheaps] = (heap_rec){ .id = heap, .head = NONE, .hslot = NONE };
    int added;
    if (!(e = addrmap_put(&c->heap_ids, key, &added))) return -1;
    e->a = (uint32_t)c->nheaps;
    return (int64_t)c->nheaps++;
}

/* Slots on other threads' free lists above this many, and above the live
 * objects, are taken over rather than new ones made: a thread that only
 * allocates, fed by one that only frees, would otherwise grow the slot table
 * with every object. */
#define STEAL_MIN 65536

/* Take over a free slot of another thread for thread t: its free op then
 * publishes (VACATE) and t waits for it. @return the slot, NONE when none is
 * worth taking, or -1. */
static int64_t slot_steal(rp_compiler *c, uint32_t t)
{
    if (c->single || c->nfree_all <= STEAL_MIN || c->nfree_all <= c->live_objects) return NONE;
    thread_rec *d = &c->threads[c->donor];
    if (c->donor == t || !d->nfree || d->free_slots[d->nfree - 1].op == RP_NO_OP) {
        size_t best = 0;
        for (uint32_t u = 0; u < c->nthr; u++) {
            thread_rec *x = &c->threads[u];
            if (u != t && x->nfree > best && x->free_slots[x->nfree - 1].op != RP_NO_OP) {
                best = x->nfree;
                c->donor = u;
            }
        }
        if (!best) return NONE;
        d = &c->threads[c->donor];
    }
    free_slot f = d->free_slots[--d->nfree];
    c->nfree_all--;
    uint32_t gen = ++c->pub[f.slot];
    c->plan.st.slot_waits++;
    if (rp_planw_flag(c->w, c->donor, f.op, RP_F_VACATE) ||
        push(c, t, (rp_op){ rp_op_pack(RP_WAIT, 0, 0), f.slot, gen }) < 0)
        return -1;
    return f.slot;
}

static int64_t slot_take(rp_compiler *c, uint32_t t)
{
    thread_rec *tr = &c->threads[t];
    if (tr->nfree) {
        c->nfree_all--;
        return tr->free_slots[--tr->nfree].slot;
    }
    int64_t st = slot_steal(c, t);
    if (st != NONE) return st;
    if (c->plan.nslots == NONE - 1) return -1;
    uint32_t s = c->plan.nslots++;
    if (s >= c->cappub) {
        size_t cap = c->cappub ? 2 * c->cappub : 1024;
        uint32_t *p = realloc(c->pub, cap * sizeof *p);
        if (!p) return -1;
        memset(p + c->cappub, 0, (cap - c->cappub) * sizeof *p);
        c->pub = p;
        c->cappub = cap;
    }
    return s;
}

/* Slot s is free on thread t from its op `op` on (RP_NO_OP: not to be taken over). */
static int slot_give(rp_compiler *c, uint32_t t, uint32_t s, uint64_t op)
{
    thread_rec *tr = &c->threads[t];
    if (GROW(tr->free_slots, tr->nfree, tr->capfree)) return -1;
    tr->free_slots[tr->nfree++] = (free_slot){ s, op };
    c->nfree_all++;
    return 0;
}

static void heap_link(rp_compiler *c, uint32_t o)
{
    heap_rec *h = &c->heaps[c->objs[o].heap];
    c->objs[o].hprev = NONE;
    c->objs[o].hnext = h->head;
    if (h->head != NONE) c->objs[h->head].hprev = o;
    h->head = o;
}

static void heap_unlink(rp_compiler *c, uint32_t o)
{
    obj *b = &c->objs[o];
    if (b->hprev != NONE) c->objs[b->hprev].hnext = b->hnext;
    else c->heaps[b->heap].head = b->hnext;
    if (b->hnext != NONE) c->objs[b->hnext].hprev = b->hprev;
}

/* With phases: a call of thread t just pushed; live bytes after it. */
static void phase_call(rp_compiler *c, uint32_t t)
{
    c->last_thread = t;
    c->last_pos = next_op(c, t);  /* after the call (and a heap realloc's RP_ARG) */
    rp_phase *ph = &c->phases[c->nphases - 1];
    if (c->live_bytes > ph->peak_live_bytes) {
        ph->peak_live_bytes = c->live_bytes;
        ph->peak_thread = t;
        ph->peak_pos = c->last_pos;
    }
}

/* Account a finished call and mark the op where live bytes first peak. */
static void after_call(rp_compiler *c, uint32_t t, int64_t idx)
{
    c->calls++;
    if (c->want_phases > 0) phase_call(c, t);
    rp_plan_stats *st = &c->plan.st;
    if (c->live_objects > st->peak_live_objects) st->peak_live_objects = c->live_objects;
    if (c->live_bytes > st->peak_live_bytes) {  /* flagged RP_F_PEAK at the end */
        c->peak_thread = t;
        c->peak_op = (uint64_t)idx;
        c->have_peak = 1;
        c->peak_epoch++;
        c->threads[t].at_peak = next_op(c, t);  /* its call (and a heap realloc's RP_ARG) done */
        c->threads[t].peak_epoch = c->peak_epoch;
        st->peak_live_bytes = c->live_bytes;
        st->peak_live_index = c->calls;
        st->peak_record = c->record;
        st->peak_offset = c->offset;
    }
}

/* Find the object a consumer on thread t means by addr, unlink it from the
 * address map and its heap. @return its index, or NONE if addr is not live. */
static uint32_t consume_obj(rp_compiler *c, uint64_t addr, uint32_t t)
{
    /* the lookahead's answer holds while the entry there is still addr's (keys are unique) */
    addrmap_entry *e = c->hint <= c->addrs.mask && addr && c->addrs.t[c->hint].key == addr ? &c->addrs.t[c->hint]
                                                                                            : addrmap_find(&c->addrs, addr);
    if (!e) return NONE;
    uint32_t cur = e->a;
    uint32_t o;
    if (c->objs[cur].older != NONE && c->objs[cur].thread != t) {
        /* late consumer of the oldest displaced object */
        uint32_t prev = cur;
        o = c->objs[cur].older;
        while (c->objs[o].older != NONE) { prev = o; o = c->objs[o].older; }
        c->objs[prev].older = NONE;
        c->plan.st.late_consumed++;
    } else {
        o = cur;
        if (c->objs[cur].older != NONE) e->a = c->objs[cur].older;
        else addrmap_remove(&c->addrs, e);
    }
    heap_unlink(c, o);
    return o;
}

static void obj_release(rp_compiler *c, uint32_t o)
{
    c->objs[o].older = c->free_obj;
    c->free_obj = o;
}

/* Cross-thread consumption: publish at the maker; the consumer on t waits for
 * the generation *gen (0: same thread, no wait), in the consuming op itself
 * (RP_F_WAIT) or in a WAIT op before it (cross_thread). @return 0 or -1. */
static int cross_gen(rp_compiler *c, uint32_t o, uint32_t t, uint32_t *gen)
{
    obj *b = &c->objs[o];
    *gen = 0;
    if (c->single || b->thread == t) return 0;
    if (rp_planw_flag(c->w, b->thread, b->create_op, RP_F_PUBLISH)) return -1;
    *gen = ++c->pub[b->slot];
    c->plan.st.waits++;
    return 0;
}

static int cross_thread(rp_compiler *c, uint32_t o, uint32_t t)
{
    uint32_t gen;
    if (cross_gen(c, o, t, &gen)) return -1;
    return gen && push(c, t, (rp_op){ rp_op_pack(RP_WAIT, 0, 0), c->objs[o].slot, gen }) < 0 ? -1 : 0;
}

/* New live object at addr made on thread t by op idx (filled in later). */
static int64_t obj_new(rp_compiler *c, uint64_t addr, uint64_t size, uint64_t heap, uint32_t t)
{
    uint32_t o;
    if (c->free_obj != NONE) {
        o = c->free_obj;
        c->free_obj = c->objs[o].older;
    } else {
        if (c->nobjs == NONE - 1 || (c->nobjs == c->capobjs && objs_grow(c))) return -1;
        o = (uint32_t)c->nobjs++;
    }
    int64_t h = heap_index(c, heap);
    int64_t s = slot_take(c, t);
    if (h < 0 || s < 0) return -1;
    c->objs[o] = (obj){ .addr = addr, .size = size, .slot = (uint32_t)s, .thread = t,
                        .older = NONE, .heap = (uint32_t)h };
    int added;
    addrmap_entry *e = addrmap_put(&c->addrs, addr, &added);
    if (!e) return -1;
    if (!added) {
        c->objs[e->a].displaced = 1;
        c->objs[o].older = e->a;
        c->plan.st.reused_live++;
    }
    e->a = o;
    heap_link(c, o);
    c->live_bytes += size;
    c->live_objects++;
    c->plan.st.total_bytes += size;
    return o;
}

static unsigned log2_align(uint64_t a)
{
    if (a < 2) return 0;
    unsigned l = 63u - (unsigned)__builtin_clzll(a);
    return (a & (a - 1)) ? l + 1 : l;  /* a non-power of two rounds up */
}

/* The call to replay for an allocating event, from its func attribute. */
static unsigned alloc_kind(const hatf_attrs *a, unsigned *arg)
{
    *arg = 0;
    uint64_t fn = hatf_attrs_get(a, HATF_A_FUNC, 0);
    uint64_t align = hatf_attrs_get(a, HATF_A_ALIGN, 0);
    switch (fn) {
    case HATF_FN_CALLOC: {
        uint64_t n = hatf_attrs_get(a, HATF_A_NMEMB, 1);
        *arg = n <= UINT32_MAX ? (uint32_t)n : 1;
        return RP_CALLOC;
    }
    case HATF_FN_MEMALIGN: *arg = log2_align(align ? align : 16); return RP_MEMALIGN;
    case HATF_FN_POSIX_MEMALIGN: *arg = log2_align(align ? align : 16); return RP_POSIX_MEMALIGN;
    case HATF_FN_ALIGNED_ALLOC: *arg = log2_align(align ? align : 16); return RP_ALIGNED_ALLOC;
    case HATF_FN_VALLOC: return RP_VALLOC;
    case HATF_FN_PVALLOC: return RP_PVALLOC;
    case HATF_FN_NEW: case HATF_FN_NEW_ARRAY:  /* as the recorder serves them: malloc, or aligned */
        if (!align) return RP_MALLOC;
        *arg = log2_align(align);
        return RP_POSIX_MEMALIGN;
    default: return RP_MALLOC;  /* malloc, unknown or absent */
    }
}

/* May thread t use heap h's native instance? Touching it from another thread
 * ends that for good. */
static int heap_native_use(rp_compiler *c, uint32_t h, uint32_t t)
{
    heap_rec *r = &c->heaps[h];
    if (r->hslot == NONE) return 0;
    if (r->owner != t) r->confined = 0;
    return r->confined;
}

/* Free object o on thread t: RP_FREE, or kind (RP_HEAP_FREE, RP_HEAP_DFREE)
 * when o is a native object of a heap still confined (an RP_HEAP_FREE may
 * come from another thread: it publishes on the heap slot). */
static int emit_free(rp_compiler *c, uint32_t t, uint32_t o, unsigned heap_kind)
{
    uint32_t gen;
    if (cross_gen(c, o, t, &gen)) return -1;
    obj *b = &c->objs[o];
    unsigned kind = RP_FREE, flags = gen ? RP_F_WAIT : 0;
    uint32_t arg = gen;
    heap_rec *h = &c->heaps[b->heap];
    if (b->native && h->hslot != NONE && h->confined) {
        if (t == h->owner || heap_kind == RP_HEAP_FREE) {
            kind = heap_kind;
            arg = h->hslot;
            flags = 0;
        }
        if (t != h->owner && heap_kind == RP_HEAP_FREE) {
            flags = RP_F_PUBLISH;
            h->foreign_frees++;
        } else if (t != h->owner) {
            h->confined = 0;
        }
    }
    /* a heap's kinds hold the heap slot in arg: their wait is an op of its own */
    if (gen && kind != RP_FREE && push(c, t, (rp_op){ rp_op_pack(RP_WAIT, 0, 0), b->slot, gen }) < 0) return -1;
    int64_t idx = push(c, t, (rp_op){ rp_op_pack(kind, flags, 0), b->slot, arg });
    if (idx < 0 || slot_give(c, t, b->slot, (uint64_t)idx)) return -1;
    c->live_bytes -= b->size;
    c->live_objects--;
    obj_release(c, o);
    after_call(c, t, idx);
    return 0;
}

void rp_compiler_lost_ok(rp_compiler *c) { c->lost_ok = 1; }

/* ---- phases ------------------------------------------------------------------ */

/* A phase named by text begins here; the one before it ends. Comments that
 * are hatrace's own (its HATF 1.0 mark, the program's mappings) and those
 * past RP_PHASES_MAX phases start none. @return 0 or -1 (out of memory). */
static int phase_begin(rp_compiler *c, const uint8_t *text, size_t len)
{
    static const char *const not_phases[] = { HATF1_HATRACE_MARK, HATF_MAP_PREFIX };
    for (size_t i = 0; i < sizeof not_phases / sizeof *not_phases; i++) {
        size_t mark = strlen(not_phases[i]);
        if (len >= mark && memcmp(text, not_phases[i], mark) == 0) return 0;
    }
    if (c->nphases == RP_PHASES_MAX) return 0;
    uint32_t n = c->nphases;
    if ((n & (n - 1)) == 0) {  /* grow at powers of two */
        uint32_t cap = n ? 2 * n : 4;
        rp_phase *ph = realloc(c->phases, cap * sizeof *ph);
        uint64_t **st = realloc(c->starts, cap * sizeof *st);
        if (ph) c->phases = ph;
        if (st) c->starts = st;
        uint32_t *ns = realloc(c->nstarts, cap * sizeof *ns);
        if (ns) c->nstarts = ns;
        if (!ph || !st || !ns) return -1;
    }
    if (n) {
        c->phases[n - 1].ops = c->plan.st.ops - c->phase_ops;
        c->phases[n - 1].calls = c->calls - c->phase_calls;
    }
    c->phase_ops = c->plan.st.ops;
    c->phase_calls = c->calls;
    rp_phase *ph = &c->phases[n];
    memset(ph, 0, sizeof *ph);
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < sizeof ph->name; i++) {
        unsigned char ch = text[i];
        ph->name[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    ph->name[k] = 0;
    /* its peak so far: the live bytes it starts with, reached after the last call */
    ph->peak_live_bytes = c->live_bytes;
    ph->peak_thread = c->calls ? c->last_thread : RP_NO_SLOT;
    ph->peak_pos = c->last_pos;
    uint32_t nt = c->plan.nthreads;
    c->starts[n] = malloc((nt ? nt : 1) * sizeof **c->starts);
    if (!c->starts[n]) return -1;
    for (uint32_t t = 0; t < nt; t++) c->starts[n][t] = next_op(c, t);
    c->nstarts[n] = nt;
    c->nphases = n + 1;
    return 0;
}

void rp_compiler_phases(rp_compiler *c)
{
    if (c->want_phases || c->plan.nthreads) return;  /* too late: ops pushed already */
    c->want_phases = 1;
    if (phase_begin(c, (const uint8_t *)"(start)", 7)) c->want_phases = -1;  /* said at the finish */
}

/* The phases into the plan: the last one ends, each one's starts on every thread. */
static int phases_finish(rp_compiler *c, rp_plan *p)
{
    uint32_t n = c->nphases, nt = p->nthreads;
    c->phases[n - 1].ops = p->st.ops - c->phase_ops;
    c->phases[n - 1].calls = c->calls - c->phase_calls;
    p->phase_start = calloc((size_t)n * (nt ? nt : 1), sizeof *p->phase_start);
    p->phases = malloc(n * sizeof *p->phases);
    if (!p->phase_start || !p->phases) return -1;
    memcpy(p->phases, c->phases, n * sizeof *p->phases);
    for (uint32_t k = 0; k < n; k++)  /* a thread that began later: 0 */
        for (uint32_t t = 0; t < c->nstarts[k]; t++) p->phase_start[(size_t)k * nt + t] = c->starts[k][t];
    p->nphases = n;
    return 0;
}

/* A release of addr, which is not live: an error, or, when the trace lost
 * parts, the release of an object made in one (skipped, counted). */
static int not_live(rp_compiler *c, hatf_err *err, const hatf_event *ev, uint64_t record, uint64_t offset,
                    uint64_t addr)
{
    if (c->attached) {
        c->plan.st.before_tracing++;
        return 0;
    }
    if (c->lost_ok) {
        c->plan.st.lost_objects++;
        return 0;
    }
    int e = hatf_err_set(err, HATF_E_CORRUPT, offset,
                         "record %llu: %s of 0x%llx on thread %llu, which is not live",
                         (unsigned long long)record,
                         hatf_op_name(ev->op), (unsigned long long)addr, (unsigned long long)ev->thread);
    if (err) err->record = record;
    return e;
}

/* An allocation larger than the machine's memory (rp_compile_opts.size_max). */
static int too_large(const rp_compiler *c, hatf_err *err, uint64_t size, uint64_t record, uint64_t offset)
{
    int e = hatf_err_set(err, HATF_E_LIMIT, offset,
                         "record %llu: an allocation of %llu bytes, more than the machine's memory (%llu bytes): "
                         "not replayed (docs/replay.md, \"Limits\")",
                         (unsigned long long)record, (unsigned long long)size, (unsigned long long)c->size_max);
    if (err) err->record = record;
    return e;
}

/* A live instance ends (destroyHeap, or the end of the trace when destroyed is 0):
 * flag its create op if it stayed confined, and give the handle's slot back. */
static int heap_instance_end(rp_compiler *c, uint32_t hi, int destroyed)
{
    heap_rec *h = &c->heaps[hi];
    if (h->hslot == NONE) return 0;
    if (destroyed && h->foreign_frees) {  /* the owner waits for the other threads' frees */
        uint32_t gen = c->pub[h->hslot] += h->foreign_frees;
        if (push(c, h->owner, (rp_op){ rp_op_pack(RP_WAIT, 0, 0), h->hslot, gen }) < 0) return -1;
        c->plan.st.waits++;
        h->foreign_frees = 0;
    }
    if (h->confined) {
        if (rp_planw_flag(c->w, h->owner, h->create_op, RP_F_NATIVE)) return -1;
        c->plan.st.heaps_confined++;
        if (destroyed) {
            int64_t idx = push(c, h->owner, (rp_op){ rp_op_pack(RP_HEAP_DESTROY, 0, 0), h->hslot, 0 });
            if (idx < 0) return -1;
            after_call(c, h->owner, idx);
        }
    } else {
        c->plan.st.heaps_shared++;
    }
    if (destroyed && slot_give(c, h->owner, h->hslot, RP_NO_OP)) return -1;
    h->hslot = NONE;
    return 0;
}

static int create_heap(rp_compiler *c, uint32_t t, uint64_t heap)
{
    int64_t hi = heap_index(c, heap);
    if (hi < 0) return -1;
    heap_rec *h = &c->heaps[hi];
    if (h->hslot != NONE) return 0;  /* created twice: the first instance goes on */
    int64_t s = slot_take(c, t);
    if (s < 0) return -1;
    int64_t idx = push(c, t, (rp_op){ rp_op_pack(RP_HEAP_CREATE, 0, 0), (uint32_t)s, 0 });
    if (idx < 0) return -1;
    h = &c->heaps[hi];
    h->hslot = (uint32_t)s;
    h->owner = t;
    h->confined = 1;
    h->create_op = (uint64_t)idx;
    after_call(c, t, idx);
    return 0;
}

static int destroy_heap(rp_compiler *c, uint32_t t, uint64_t heap)
{
    addrmap_entry *he = addrmap_find(&c->heap_ids, heap + 1 ? heap + 1 : 1);
    if (!he) return 0;
    uint32_t hi = he->a;
    heap_rec *h = &c->heaps[hi];
    heap_native_use(c, hi, t);
    while (h->head != NONE) {
        uint32_t o = h->head;
        /* unlink from the address map wherever it sits in its chain */
        addrmap_entry *a = addrmap_find(&c->addrs, c->objs[o].addr);
        uint32_t cur = a->a;
        if (cur == o) {
            if (c->objs[o].older != NONE) a->a = c->objs[o].older;
            else addrmap_remove(&c->addrs, a);
        } else {
            while (c->objs[cur].older != o) cur = c->objs[cur].older;
            c->objs[cur].older = c->objs[o].older;
        }
        heap_unlink(c, o);
        c->plan.st.heap_frees++;
        if (emit_free(c, t, o, RP_HEAP_DFREE)) return -1;
    }
    return heap_instance_end(c, hi, 1);
}

int rp_compiler_add(rp_compiler *c, const hatf_event *ev, uint64_t record, uint64_t offset,
                    hatf_err *err)
{
    rp_plan_stats *st = &c->plan.st;
    st->events++;
    c->record = record;
    c->offset = offset;
    if (c->touch) rp_touch_note(c->touch, ev->time, c->live_bytes);
    unsigned op = ev->op;
    if (op == HATF_OP_COMMENT && c->want_phases > 0) return phase_begin(c, ev->data, ev->data_len) ? nomem(c, err) : 0;
    if (op == HATF_OP_COMMENT || op == HATF_OP_THREAD_CREATE || op == HATF_OP_THREAD_DESTROY) return 0;
    int64_t t64 = plan_thread(c, ev->thread);
    if (t64 < 0) return nomem(c, err);
    uint32_t t = (uint32_t)t64;
    if (op == HATF_OP_HEAP_CREATE) {
        st->heaps_created++;
        return create_heap(c, t, ev->heap) ? nomem(c, err) : 0;
    }
    if (op == HATF_OP_HEAP_DESTROY) {
        st->heaps_destroyed++;
        return destroy_heap(c, t, ev->heap) ? nomem(c, err) : 0;
    }
    if (op > HATF_OP_REALLOC_FREE)
        return hatf_err_set(err, HATF_E_CORRUPT, offset, "record %llu: unknown op %u",
                            (unsigned long long)record, op);

    st->ops++;  /* every operation record counts, replayed or skipped */
    hatf_attrs a;
    hatf_event_attrs(ev, &a);
    int failed = hatf_event_failed_by(ev, &a);
    if (hatf_op_has_size(op) && ev->size >> RP_SIZE_BITS)
        return hatf_err_set(err, HATF_E_LIMIT, offset, "record %llu: size %llu too large to replay",
                            (unsigned long long)record,
                            (unsigned long long)ev->size);
    /* A moving or in-place realloc of NULL is a realloc-new in all but name. */
    if ((op == HATF_OP_REALLOC_INPLACE || op == HATF_OP_REALLOC_MOVE) && !ev->addr) op = HATF_OP_REALLOC_NEW;
    uint64_t made = op == HATF_OP_ALLOC ? ev->addr : ev->new_addr;

    switch (op) {
    case HATF_OP_ALLOC:
    case HATF_OP_REALLOC_NEW: {
        if (failed || !made) {
            st->skipped_failed++;
            return 0;
        }
        if (c->size_max && ev->size > c->size_max) return too_large(c, err, ev->size, record, offset);
        unsigned arg, kind = op == HATF_OP_ALLOC ? alloc_kind(&a, &arg) : (arg = 0, RP_REALLOC_NULL);
        if (kind == RP_PVALLOC) st->pvalloc++;
        int64_t o = obj_new(c, made, ev->size, ev->heap, t);
        if (o < 0) return nomem(c, err);
        uint32_t slot = c->objs[o].slot, h = c->objs[o].heap;
        unsigned flags = 0;
        if (heap_native_use(c, h, t)) {
            if (kind == RP_MALLOC || kind == RP_CALLOC || kind == RP_REALLOC_NULL) {
                flags = kind == RP_CALLOC ? RP_F_ZERO : 0;
                kind = RP_HEAP_ALLOC;
                arg = c->heaps[h].hslot;
                c->objs[o].native = 1;
            } else {
                c->heaps[h].confined = 0;  /* no aligned calls in the heap APIs we drive */
            }
        }
        int64_t idx = push(c, t, (rp_op){ rp_op_pack(kind, flags, ev->size), slot, arg });
        if (idx < 0) return nomem(c, err);
        c->objs[o].create_op = (uint64_t)idx;
        after_call(c, t, idx);
        return 0;
    }
    case HATF_OP_FREE:
    case HATF_OP_REALLOC_FREE: {
        if (!ev->addr) {
            if (op == HATF_OP_REALLOC_FREE) {  /* realloc(NULL, 0): nothing made, nothing freed */
                st->skipped_failed++;
                return 0;
            }
            int64_t idx = push(c, t, (rp_op){ rp_op_pack(RP_FREE_NULL, 0, 0), RP_NO_SLOT, 0 });
            if (idx < 0) return nomem(c, err);
            st->free_null++;
            after_call(c, t, idx);
            return 0;
        }
        if (failed) {
            st->skipped_failed++;
            return 0;
        }
        uint32_t o = consume_obj(c, ev->addr, t);
        if (o == NONE) return not_live(c, err, ev, record, offset, ev->addr);
        if (op == HATF_OP_REALLOC_FREE) st->realloc_free++;
        return emit_free(c, t, o, RP_HEAP_FREE) ? nomem(c, err) : 0;
    }
    default: { /* REALLOC_INPLACE, REALLOC_MOVE */
        if (failed || !made) {  /* the old object stays live */
            st->skipped_failed++;
            return 0;
        }
        if (c->size_max && ev->size > c->size_max) return too_large(c, err, ev->size, record, offset);
        uint32_t o = consume_obj(c, ev->addr, t);
        if (o == NONE) return not_live(c, err, ev, record, offset, ev->addr);
        if (cross_thread(c, o, t)) return nomem(c, err);
        uint32_t old_slot = c->objs[o].slot, old_heap = c->objs[o].heap;
        int was_native = c->objs[o].native;
        c->live_bytes -= c->objs[o].size;
        c->live_objects--;
        obj_release(c, o);
        /* the realloc op, pushed below, empties the old slot (a slot taken over
           for the new object would come from another thread: none is, as t's
           list now holds old_slot) */
        if (slot_give(c, t, old_slot, next_op(c, t))) return nomem(c, err);
        int64_t n = obj_new(c, made, ev->size, ev->heap, t);
        if (n < 0) return nomem(c, err);
        unsigned kind = RP_REALLOC;
        if (was_native && c->objs[n].heap != old_heap) c->heaps[old_heap].confined = 0;  /* it left */
        else if (was_native && heap_native_use(c, old_heap, t)) kind = RP_HEAP_REALLOC;
        int64_t idx = push(c, t, (rp_op){ rp_op_pack(kind, 0, ev->size), old_slot, c->objs[n].slot });
        if (idx < 0) return nomem(c, err);
        if (kind == RP_HEAP_REALLOC) {
            c->objs[n].native = 1;
            if (push(c, t, (rp_op){ rp_op_pack(RP_ARG, 0, 0), c->heaps[old_heap].hslot, 0 }) < 0)
                return nomem(c, err);
        }
        c->objs[n].create_op = (uint64_t)idx;
        after_call(c, t, idx);
        return 0;
    }
    }
}

int rp_compiler_finish(rp_compiler *c, rp_plan *out, hatf_err *err)
{
    rp_plan_stats *st = &c->plan.st;
    st->end_live_bytes = c->live_bytes;
    st->touch_share = c->touch ? rp_touch_share(c->touch, st->peak_live_bytes) : RP_TOUCH_FULL;
    for (size_t h = 0; h < c->nheaps; h++)  /* heaps never destroyed */
        if (heap_instance_end(c, (uint32_t)h, 0)) return nomem(c, err);
    /* displaced objects never consumed stay live to the end */
    for (size_t i = 0; i <= c->addrs.mask + 1; i++) {  /* the slots, then key 0's entry */
        const addrmap_entry *e = i <= c->addrs.mask ? addrmap_slot(&c->addrs, i) : addrmap_zero(&c->addrs);
        for (uint32_t o = e ? e->a : NONE; o != NONE; o = c->objs[o].older) st->left_displaced += c->objs[o].displaced;
    }
    if (c->have_peak && rp_planw_flag(c->w, c->peak_thread, c->peak_op, RP_F_PEAK)) return nomem(c, err);
    /* where each runner thread is when live bytes peak: there if it pushed
       nothing after the peak, else where its first op after it was noted */
    for (uint32_t t = 0; t < c->nthr; t++) {
        c->plan.threads[t].first_pos = c->threads[t].first_pos;
        c->plan.threads[t].last_pos = c->threads[t].last_pos;
    }
    for (uint32_t t = 0; c->have_peak && t < c->nthr; t++)
        c->plan.threads[t].peak_pos = c->threads[t].peak_epoch == c->peak_epoch ? c->threads[t].at_peak
                                                                                  : next_op(c, t);
    if (c->want_phases < 0 || (c->want_phases > 0 && phases_finish(c, &c->plan))) return nomem(NULL, err);
    int rc = rp_planw_finish(c->w, &c->plan, err);
    if (rc) return rc;
    *out = c->plan;
    memset(&c->plan, 0, sizeof c->plan);
    return 0;
}

/* rp_source_run's callbacks: the compiler and where its errors go, and the
 * objects stage 2 found, for stage 3 */
#define AHEAD_RING 32  /* a power of two above the events between stages 2 and 3 */
_Static_assert(AHEAD_RING > RP_AHEAD_2 - RP_AHEAD_3 + 1, "stage 3 finds what stage 2 left");
typedef struct compile_run {
    rp_compiler *c;
    hatf_err *err;
    uint64_t counted;             /* events counted so far: the number of the next one */
    uint32_t obj[AHEAD_RING];     /* by event number modulo AHEAD_RING: what stage 2 found, or NONE */
    size_t at[AHEAD_RING];        /* ... and where in the address map, or SIZE_MAX */
} compile_run;

static int compile_item(void *ctx, const lookahead_item *x, int damaged)
{
    compile_run *cr = ctx;
    /* a damaged group passed over, or lost before a copy: its objects are unknown */
    if (!cr->c->lost_ok && damaged) rp_compiler_lost_ok(cr->c);
    cr->c->hint = cr->at[cr->counted++ % AHEAD_RING];
    return rp_compiler_add(cr->c, &x->ev, x->rec, x->off, cr->err);
}

/* A free reaches three places one after another, each a cache miss on a big
 * trace: the address map's slot, the object it names, and the object's
 * creating op in another thread's plan (cross_thread) with its heap-list
 * neighbours (heap_unlink). Stage 1 starts the first for an event's
 * addresses; stage 2, once the slot has arrived, finds the object of the
 * address the event frees and fetches it; stage 3, once that has arrived,
 * fetches the rest. Only fetches: what an event in between changes just
 * makes one useless, but where stage 2 found the address is rp_compiler_add's
 * first guess (consume_obj). Stages 2 and 3 for multi-threaded plans only: on
 * python3's trace (one thread) the second probe of the map cost what the
 * fetches saved. */
static void prefetch_item(void *ctx, const hatf_event *const ev[3], const uint64_t g[3])
{
    compile_run *cr = ctx;
    rp_compiler *c = cr->c;
    if (ev[0]) {
        addrmap_prefetch(&c->addrs, ev[0]->addr);
        if (ev[0]->new_addr != ev[0]->addr) addrmap_prefetch(&c->addrs, ev[0]->new_addr);
    }
    if (ev[1]) {
        uint32_t *o = &cr->obj[g[1] % AHEAD_RING];
        uint64_t freed = hatf_event_ends(ev[1]);
        const addrmap_entry *e = c->plan.nthreads < 2 || !freed ? NULL : addrmap_find(&c->addrs, freed);
        *o = e ? e->a : NONE;
        cr->at[g[1] % AHEAD_RING] = e ? (size_t)(e - c->addrs.t) : SIZE_MAX;  /* freed != 0: a slot */
        if (*o != NONE) __builtin_prefetch(&c->objs[*o]);
    }
    if (ev[2]) {
        uint32_t o = cr->obj[g[2] % AHEAD_RING];
        if (o < c->nobjs) {
            const obj *b = &c->objs[o];
            const rp_op *op = b->thread < c->plan.nthreads ? rp_planw_peek(c->w, b->thread, b->create_op) : NULL;
            if (op) __builtin_prefetch(op);
            if (b->hprev < c->nobjs) __builtin_prefetch(&c->objs[b->hprev]);
            if (b->hnext < c->nobjs) __builtin_prefetch(&c->objs[b->hnext]);
        }
    }
}

int rp_compile_source(hatf_source *src, const rp_compile_opts *o, rp_plan *out, hatf_err *err)
{
    rp_compiler *c = rp_compiler_new(o->single);
    if (!c) return nomem(c, err);
    if (o->plan_fd >= 0) rp_compiler_to_file(c, o->plan_fd, o->window_ops);
    c->size_max = o->size_max;
    if (o->phases) rp_compiler_phases(c);
    /* the program's resident samples, for the share of each block to touch */
    const hatf_resident *res;
    hatf_reader *rd = hatf_source_container(src);
    size_t nres = rd ? hatf_reader_resident(rd, &res) : 0;
    const hatf_info *in = hatf_source_info(src);
    c->attached = in && (in->flags & HATF_INFO_ATTACHED);
    if (nres && in && (c->touch = malloc(sizeof *c->touch)))
        rp_touch_begin(c->touch, res, nres, in->time_unit_ns_num, in->time_unit_ns_den);
    compile_run cr = { .c = c, .err = err };
    double cpu[2] = { 0, 0 };
    int count_rc, r = rp_source_run(src, compile_item, prefetch_item, &cr, &count_rc, cpu);
    if (r == LOOKAHEAD_STOPPED) {  /* rp_compiler_add said why */
        r = count_rc;
        if (err && !err->code) nomem(c, err);
    }
    if (r < 0 && err && !err->code) {
        const hatf_err *se = hatf_source_error(src);
        if (se) *err = *se;
        else hatf_err_set(err, r, 0, "%s", hatf_strerror(r));
    }
    if (r == 0) r = rp_compiler_finish(c, out, err);
    if (r == 0) {
        out->cpu_read_s = cpu[0];
        out->cpu_compile_s = cpu[1];
    }
    rp_compiler_free(c);
    return r;
}
