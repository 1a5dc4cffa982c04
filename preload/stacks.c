/* stacks.c — call stacks of allocations: capture (unwind.c's walk from the
 * call-frame information, libunwind for what it does not walk), dedup per
 * thread on the hot path, ids per process on the flusher.
 *
 * Hot path (ht_stack_here, in the hook, on the calling thread): walk the
 * stack into a stack buffer, hash the frames, probe the thread's table (open
 * addressing, fixed size, mapped when the ring was made). A stack seen before
 * costs the walk, a hash and a compare; a new one is copied into the
 * table's frame pool and announced by a STACK raw event in the ring, before
 * the event that uses it. No lock, no malloc: the table belongs to the ring
 * and libunwind is warmed up on the thread when its ring is attached.
 *
 * Flusher (ht_stacks_take, wlock held): a STACK event's frames are looked up
 * in one process-wide table; a new stack gets the next dense id and goes to
 * the trace's tables stream once. The global id is kept in the thread table's
 * entry (only the flusher reads or writes it), so later events convert their
 * local id with one load. Tables are kept when a ring is reused: their stacks
 * stay known.
 *
 * At the end (ht_stacks_finish) the unique frame addresses go to symbols.c.
 */
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "options.h"
#include "prim.h"
#include "recorder.h"
#include "registry.h"
#include "ring.h"
#include "stacks.h"
#include "symbols.h"
#include "unwind.h"
#include "hatf_container.h"

#ifdef HT_HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

enum {
    STK_SLOTS = 1 << 16,      /* entries per thread table (filled to 3/4) */
    STK_POOL = 1 << 20,       /* frames per thread table */
    STK_SKIP = 2,             /* ht_stack_here and the hook itself */
    STK_SITES = 16            /* hook call sites whose frame layout a thread learnt */
};

/* How to find the hook's caller from ht_stack_here's frame pointer, for one
 * call site in a hook (learnt once with libunwind, see learn_site). */
typedef struct ht_stk_site {
    uintptr_t ra;             /* return address into the hook; 0: free */
    int32_t cfa;              /* hook's CFA - hook's SP at the call */
    int32_t rbp;              /* caller's rbp saved at hook SP + this; -1: still in rbp */
} ht_stk_site;

typedef struct ht_stk_ent {
    uint64_t hash;
    uint32_t off, n;          /* frames in the pool; n == 0: empty slot */
    uint64_t gid;             /* process-wide id: the flusher's, 0 until it took the stack */
} ht_stk_ent;

struct ht_stk {
    uint32_t used, pool_used; /* producer's */
    uint64_t walked, unwound; /* producer's: stacks by unwind.c, by libunwind */
    ht_stk_site site[STK_SITES];
    ht_unw unw;               /* the owning thread's stack bounds and frame rules */
    ht_stk_ent ent[STK_SLOTS];
    uint64_t pool[STK_POOL];
};

int ht_stack_depth;
_Atomic uint64_t ht_stacks_full;
#if defined(HT_HAVE_LIBUNWIND) && defined(__x86_64__)
static int stk_fp;            /* HATRACE_STACKS_FP=1: walk frame pointers (x86-64 only) */
#endif
static int stk_check;         /* HATRACE_STACKS_CHECK=1: compare walks with libunwind's */
#ifdef HT_HAVE_LIBUNWIND
/* The recorder's own code (libhatrace.so's executable segment): a frame in
 * it (its pthread_create wrapper, under the allocations glibc's
 * pthread_create makes) is the recorder's, not the program's. */
static uintptr_t own_lo, own_hi;
#endif
static _Atomic uint64_t stk_checked, stk_mismatch;

#ifdef HT_HAVE_LIBUNWIND
static int find_own_code(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t here = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || here - lo >= ph->p_memsz) continue;
        own_lo = lo;
        own_hi = lo + ph->p_memsz;
        return 1;
    }
    return 0;
}
#endif

void ht_stacks_init(void)
{
    HATF_PRE(ht_t.untraced > 0);
    ht_stack_depth = (int)ht_opt(HT_OPT_STACKS);
    if (ht_stack_depth > HATF_STACK_MAX) ht_stack_depth = HATF_STACK_MAX;
#ifdef HT_HAVE_LIBUNWIND
#ifdef __x86_64__
    stk_fp = (int)ht_opt(HT_OPT_STACKS_FP);
#else
    if (ht_stack_depth && ht_opt(HT_OPT_STACKS_FP)) ht_warn("HATRACE_STACKS_FP is for x86-64 only: ignored");
#endif
    stk_check = (int)ht_opt(HT_OPT_STACKS_CHECK);
    if (ht_stack_depth) dl_iterate_phdr(find_own_code, (void *)(uintptr_t)&ht_stacks_init);
    /* per-thread caches: no lock shared between threads while unwinding */
    if (ht_stack_depth) {
        unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
        /* the default (128 entries) thrashes on interpreters' many call sites */
        unw_set_cache_size(unw_local_addr_space, 1024, 0);
    }
#else
    if (ht_stack_depth) {
        ht_warn("built without libunwind: HATRACE_STACKS is ignored");
        ht_stack_depth = 0;
    }
#endif
}

void ht_stacks_attach(ht_ring *r)
{
    HATF_PRE(ht_t.untraced > 0 && ht_stack_depth > 0);
    if (!r->stk) {
        void *m = mmap(NULL, sizeof(struct ht_stk), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            ht_warn("out of memory for a stack table: this thread's stacks are not recorded");
            return;
        }
        r->stk = m;
    }
    struct ht_stk *s = r->stk;
    /* the ring may have served another thread: its stack and call sites were not
     * ours (frame rules hold for the whole process: kept) */
    memset(s->site, 0, sizeof s->site);
    ht_unwind_attach(&s->unw);
#ifdef HT_HAVE_LIBUNWIND
    /* libunwind sets up its per-thread cache on first use (it may allocate) */
    void *b[8];
    unw_backtrace(b, 8);
#endif
}

#ifdef HT_HAVE_LIBUNWIND  /* (the hot path below) */
/* Hash of frames[0..n): a multiply-add per frame (XXH3 costs ~440
 * instructions on 35 frames). The high bits depend on every frame; the last
 * step folds them into the low ones the tables index with. */
static uint64_t frames_hash(const uint64_t *fr, uint32_t n)
{
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++) h = (h + fr[i]) * 0x9e3779b97f4a7c15ULL;
    return h ^ h >> 29 ^ h >> 43;
}

/* The local id of frames[0..n), added (and announced) if new; 0 if full. */
static uint64_t lookup(ht_ring *r, struct ht_stk *s, const uint64_t *fr, uint32_t n)
{
    uint64_t h = frames_hash(fr, n);
    uint32_t i = (uint32_t)h & (STK_SLOTS - 1);
    for (;; i = (i + 1) & (STK_SLOTS - 1)) {
        ht_stk_ent *e = &s->ent[i];
        if (!e->n) break;
        if (e->hash == h && e->n == n && !memcmp(s->pool + e->off, fr, n * sizeof *fr)) return i + 1;
    }
    if (s->used >= STK_SLOTS / 4 * 3 || s->pool_used + n > STK_POOL) {
        atomic_fetch_add_explicit(&ht_stacks_full, 1, memory_order_relaxed);
        return 0;
    }
    ht_stk_ent *e = &s->ent[i];
    memcpy(s->pool + s->pool_used, fr, n * sizeof *fr);
    e->hash = h;
    e->off = s->pool_used;
    e->n = n;
    s->pool_used += n;
    s->used++;
    /* the flusher learns the frames before any event uses the id */
    ht_rawev *ev = ht_ring_slot(r);
    if (HT_UNLIKELY(!ev)) ev = ht_ring_full(r);
    if (ev) {
        uint64_t tk = (ht_now() - ht_t0) << HT_TK_SHIFT | HT_K_STACK;
        unsigned units = ht_rawev_put(ev, tk, i + 1, e->off, n, 0);
        r->last_tk = tk;
        if (HT_UNLIKELY(ht_ring_publish(r, units))) ht_poke_ring(r);
    }
    return i + 1;
}
#endif

#if defined(HT_HAVE_LIBUNWIND) && defined(__x86_64__)
/* Learn, with one slow libunwind walk, where the hook that called
 * ht_stack_here (frame pointer fa) keeps its caller's return address and rbp.
 * A hook's frame at a given call is fixed, so this holds for every later call
 * through the same return address. Checked against what libunwind found;
 * st->cfa stays -1 (unwind with libunwind) when it does not fit. */
__attribute__((noinline, cold)) static void learn_site(ht_stk_site *st, const uintptr_t *fa)
{
    st->ra = fa[1];
    st->cfa = -1;
    unw_context_t uc;
    unw_cursor_t c;
    unw_word_t ip = 0, sp, cfa, rip, v;
    unw_save_loc_t loc;
    if (unw_getcontext(&uc) < 0 || unw_init_local(&c, &uc) < 0) return;
    for (int i = 0; ip != st->ra; i++)  /* learn_site, maybe fp_walk, ht_stack_here, hook */
        if (i > 4 || unw_step(&c) <= 0 || unw_get_reg(&c, UNW_REG_IP, &ip) < 0) return;
    if (unw_get_reg(&c, UNW_REG_SP, &sp) < 0 || sp != (uintptr_t)(fa + 2)) return;
    if (unw_step(&c) <= 0 || unw_get_reg(&c, UNW_REG_SP, &cfa) < 0 ||
        unw_get_reg(&c, UNW_REG_IP, &rip) < 0 || unw_get_reg(&c, UNW_X86_64_RBP, &v) < 0)
        return;
    if (cfa <= sp || cfa - sp > 65536 || *(const uintptr_t *)(cfa - 8) != rip) return;
    if (!unw_get_save_loc(&c, UNW_X86_64_RBP, &loc) && loc.type == UNW_SLT_MEMORY &&
        loc.u.addr >= sp && loc.u.addr + 8 <= cfa && *(const uintptr_t *)loc.u.addr == v)
        st->rbp = (int32_t)(loc.u.addr - sp);
    else if (fa[0] == v)
        st->rbp = -1;  /* the hook left rbp alone: ht_stack_here saved it */
    else
        return;
    st->cfa = (int32_t)(cfa - sp);
}

/* Frame-pointer walk from the hook's caller into out[0..max); 0 when this call
 * site cannot be walked (then libunwind does it). Every frame pointer must lie
 * in the thread's stack, above the last one: the walk cannot fault or loop. */
static int fp_walk(struct ht_stk *s, const uintptr_t *fa, uint64_t *out, int max)
{
    ht_stk_site *st = s->site;
    for (; st < s->site + STK_SITES && st->ra != fa[1]; st++)
        if (!st->ra) {
            learn_site(st, fa);
            break;
        }
    if (st == s->site + STK_SITES || st->cfa < 0) return 0;
    uintptr_t sp = (uintptr_t)(fa + 2), cfa = sp + (uint32_t)st->cfa;
    if (sp < s->unw.lo || cfa > s->unw.hi) return 0;  /* an alternate signal stack */
    uintptr_t bp = st->rbp < 0 ? fa[0] : *(const uintptr_t *)(sp + (uint32_t)st->rbp);
    out[0] = *(const uintptr_t *)(cfa - 8);
    int n = 1;
    for (uintptr_t low = cfa; n < max; n++) {
        if (bp < low || bp > s->unw.hi - 16 || (bp & 7)) break;
        const uintptr_t *f = (const uintptr_t *)bp;
        if (f[1] < 4096) break;
        out[n] = f[1];
        low = bp + 16;
        bp = f[0];
    }
    return n;
}
#endif

#ifdef HT_HAVE_LIBUNWIND
/* HATRACE_STACKS_CHECK: the frames unwind.c found, against libunwind's from
 * the same caller (ht_stack_here, whose return address differs: not compared). */
__attribute__((noinline, cold)) static void check_walk(const uint64_t *fr, int n)
{
    void *b[HATF_STACK_MAX + STK_SKIP + 1];
    int m = unw_backtrace(b, ht_stack_depth + STK_SKIP + 1) - STK_SKIP - 1;
    const uint64_t *lu = (const uint64_t *)(const void *)(b + STK_SKIP + 1);
    atomic_fetch_add_explicit(&stk_checked, 1, memory_order_relaxed);
    int i = 0;
    while (i < n && i < m && fr[i] == lu[i]) i++;
    if (i == n && n == m) return;
    if (atomic_fetch_add_explicit(&stk_mismatch, 1, memory_order_relaxed) == 0)
        ht_warn("stack check: frame %d of %d differs: %#llx, libunwind %#llx (of %d)", i, n,
                (unsigned long long)(i < n ? fr[i] : 0), (unsigned long long)(i < m ? lu[i] : 0), m);
}
#endif

#ifdef HT_HAVE_LIBUNWIND
/* frames[0..n) without the recorder's own. @return how many are left. */
static inline int drop_own_frames(uint64_t *fr, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (fr[i] - own_lo >= own_hi - own_lo) fr[k++] = fr[i];
    return k;
}
#endif

__attribute__((noinline)) uint64_t ht_stack_here(void)
{
#ifdef HT_HAVE_LIBUNWIND
    ht_tls *t = &ht_t;
    /* exited: glibc's calls after the thread's last key destructor, when
     * libunwind's per-thread cache is gone, are recorded without a stack */
    if (t->busy || t->untraced || t->exited) return 0;
    ht_ring *r = t->ring;
    if (HT_UNLIKELY(!r)) {
        /* the thread's first event: attach now, so it has a stack too */
        ht_current_tid();
        if (!(r = t->ring)) return 0;
    }
    struct ht_stk *s = r->stk;
    if (HT_UNLIKELY(!s)) return 0;
    /* busy: a signal handler allocating meanwhile queues in the side buffer */
    t->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    if (HT_UNLIKELY(r->side_w != r->side_r)) ht_side_drain(r);  /* older events first */
    void *buf[HATF_STACK_MAX + STK_SKIP];
    uint64_t *fr = (uint64_t *)(void *)(buf + STK_SKIP);
    int n = 0;
#ifdef __x86_64__
    if (stk_fp && s->unw.hi)
        n = fp_walk(s, (const uintptr_t *)__builtin_frame_address(0), fr, ht_stack_depth);
#endif
    if (!n) {
        n = ht_unwind(&s->unw, (uint64_t *)(void *)buf, ht_stack_depth + STK_SKIP) - STK_SKIP;
        if (n > 0) {
            s->walked++;
            if (HT_UNLIKELY(stk_check)) check_walk(fr, n);
        } else {
            s->unwound++;
            n = unw_backtrace(buf, ht_stack_depth + STK_SKIP) - STK_SKIP;
        }
    }
    uint64_t id = 0;
    if (n > 0) n = drop_own_frames(fr, n);
    if (n > 0) id = lookup(r, s, fr, (uint32_t)n);
    atomic_signal_fence(memory_order_seq_cst);
    t->busy = 0;
    if (HT_UNLIKELY(r->side_w != r->side_r)) ht_side_flush(t, r);
    return id;
#else
    return 0;
#endif
}

/* ---- flusher side ---------------------------------------------------------- */

typedef struct gstk { uint64_t hash; size_t off; uint32_t n; } gstk;

static gstk *gs;              /* gs[gid - 1] */
static size_t ngs, capgs;
static uint64_t *gpool;
static size_t ngpool, capgpool;
static uint32_t *gslot;       /* open addressing: gid or 0 */
static size_t gmask;

static int gslot_grow(void)
{
    size_t cap = gmask ? (gmask + 1) * 2 : 4096;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    for (size_t k = 0; k < ngs; k++) {
        size_t i = gs[k].hash & (cap - 1);
        while (t[i]) i = (i + 1) & (cap - 1);
        t[i] = (uint32_t)(k + 1);
    }
    free(gslot);
    gslot = t;
    gmask = cap - 1;
    return 0;
}

/* The global id of these frames, added (and written) if new; 0 out of memory. */
static uint64_t global_id(hatf_writer *w, uint64_t h, const uint64_t *fr, uint32_t n)
{
    if ((ngs + 1) * 4 > gmask * 3 && gslot_grow() < 0) return 0;
    size_t i = h & gmask;
    for (; gslot[i]; i = (i + 1) & gmask) {
        gstk *g = &gs[gslot[i] - 1];
        if (g->hash == h && g->n == n && !memcmp(gpool + g->off, fr, n * sizeof *fr)) return gslot[i];
    }
    if (ngs == capgs) {
        size_t c = capgs ? capgs * 2 : 1024;
        gstk *p = realloc(gs, c * sizeof *p);
        if (!p) return 0;
        gs = p, capgs = c;
    }
    if (ngpool + n > capgpool) {
        size_t c = capgpool ? capgpool * 2 : 16384;
        while (c < ngpool + n) c *= 2;
        uint64_t *p = realloc(gpool, c * sizeof *p);
        if (!p) return 0;
        gpool = p, capgpool = c;
    }
    memcpy(gpool + ngpool, fr, n * sizeof *fr);
    gs[ngs] = (gstk){ h, ngpool, n };
    ngpool += n;
    gslot[i] = (uint32_t)++ngs;
    if (w) hatf_writer_stack(w, ngs, fr, n);
    return ngs;
}

void ht_stacks_take(hatf_writer *w, ht_ring *r, const ht_rawev *e)
{
    struct ht_stk *s = r->stk;
    uint64_t id = e->a;
    if (!s || id == 0 || id > STK_SLOTS || e->c == 0 || e->c > HATF_STACK_MAX || e->b + e->c > STK_POOL)
        return;  /* cannot happen: the producer wrote it */
    ht_stk_ent *ent = &s->ent[id - 1];
    ent->gid = global_id(w, ent->hash, s->pool + e->b, (uint32_t)e->c);
}

uint64_t ht_stacks_gid(ht_ring *r, uint64_t local)
{
    if (!r->stk || local == 0 || local > STK_SLOTS) return 0;
    return r->stk->ent[local - 1].gid;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void ht_stacks_finish(hatf_writer *w)
{
    if (!ht_stack_depth) return;
    /* the unique frames, sorted: dedup first (a frame is in many stacks),
     * then sort the few left */
    size_t cap = 64;
    int shift = 58;
    while (cap < ngpool * 2) cap *= 2, shift--;
    uint64_t *set = calloc(cap, sizeof *set), *a = malloc((ngpool ? ngpool : 1) * sizeof *a);
    if (!set || !a) {
        free(set);
        free(a);
        return;
    }
    size_t n = 0, zero = 0;
    for (size_t i = 0; i < ngpool; i++) {
        uint64_t f = gpool[i];
        if (!f) {  /* 0 marks an empty slot: counted apart */
            if (!zero++) a[n++] = 0;
            continue;
        }
        size_t k = (size_t)((f * 0x9e3779b97f4a7c15ULL) >> shift);
        while (set[k] && set[k] != f) k = (k + 1) & (cap - 1);
        if (!set[k]) set[k] = a[n++] = f;
    }
    free(set);
    qsort(a, n, sizeof *a, cmp_u64);
    ht_symbols_write(w, a, n);
    free(a);
    uint64_t walked = 0, unwound = 0;
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next)
        if (r->stk) walked += r->stk->walked, unwound += r->stk->unwound;
    if (ht_opt(HT_OPT_VERBOSE))
        ht_warn("stacks: %llu walked from call-frame information, %llu by libunwind",
                (unsigned long long)walked, (unsigned long long)unwound);
    if (stk_check)
        ht_warn("stack check: %llu of %llu walks differ from libunwind's",
                (unsigned long long)atomic_load(&stk_mismatch), (unsigned long long)atomic_load(&stk_checked));
    uint64_t full = atomic_load(&ht_stacks_full);
    if (full) ht_warn("%llu allocations had no stack id (a thread's stack table was full)",
                      (unsigned long long)full);
}

void ht_stacks_atfork_child(void)
{
    ngs = ngpool = 0;
    if (gslot) memset(gslot, 0, (gmask + 1) * sizeof *gslot);
    atomic_store(&ht_stacks_full, 0);
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        struct ht_stk *s = r->stk;
        if (!s) continue;
        memset(s->ent, 0, sizeof s->ent);
        s->used = s->pool_used = 0;
    }
}
