/* synth.h — a deterministic synthetic heap trace for the format benchmarks.
 *
 * One thread, shaped like a typical C program on glibc malloc:
 *   sites      allocations come from 256 call sites of skewed popularity (8
 *              sites make 70 % of them), each with its own size and function,
 *              a fifth of them with a size that varies per call (strings);
 *   sizes      skewed to small (most 8..128 bytes), a tail up to 64 KiB and a
 *              few large blocks;
 *   addresses  from a simulated allocator: 16-byte chunks with an 8-byte header
 *              carved from one heap, freed chunks reused LIFO per chunk size
 *              (tcache-like), large blocks from a separate mmap-like region;
 *   frees      mostly the most recently allocated live object, some random;
 *   reallocs   about 3 %, in place when the chunk size is unchanged, else moved;
 *   time       deltas of tens of ns, with an occasional longer gap;
 *   attributes optional: hatrace's key list with the calling function, as the
 *              recorder writes it.
 * The live set wanders between phases (a few hundred to tens of thousands of
 * objects), so free lists fill and drain as in real programs.
 *
 * Events own no memory: attribute bytes are static, so a batch of events
 * stays valid. Header-only so every benchmark program (bench/<name>.c builds on its own)
 * can include it. Same seed, same trace, on every machine.
 */
#ifndef BENCH_SYNTH_H
#define BENCH_SYNTH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hatf.h"

#define SYNTH_CLASSES 4096          /* chunk sizes 16..64 KiB in 16-byte steps */
#define SYNTH_HEAP_BASE 0x55d0c3a41000ull
#define SYNTH_MMAP_BASE 0x7f3a20000000ull
#define SYNTH_SITES 256

typedef struct synth_site {
    uint64_t size;   /* 0: drawn per call */
    uint8_t fn;
} synth_site;

typedef struct synth_obj {
    uint64_t addr, size;
    uint32_t chunk_class;  /* 0: mmap-like, never reused */
    uint8_t fn;
} synth_obj;

typedef struct synth_stack {
    uint64_t *a;
    uint32_t n, cap;
} synth_stack;

typedef struct synth {
    uint64_t rng;
    uint64_t time;
    uint64_t thread;
    uint64_t limit, emitted;
    int with_attrs;
    uint64_t heap_top, mmap_top;
    synth_obj *live;
    size_t nlive, caplive;
    size_t target;              /* live-set size this phase tends to */
    uint64_t phase_left;
    synth_stack cls[SYNTH_CLASSES];
    synth_site site[SYNTH_SITES];
    int failed;                 /* out of memory */
} synth;

static inline uint64_t synth_rand(synth *s)
{
    /* splitmix64: small, fast, good enough for workload shapes */
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline uint64_t synth_below(synth *s, uint64_t n) { return synth_rand(s) % n; }

/* Skewed small sizes: most requests are a few words, like strings and list nodes. */
static inline uint64_t synth_size(synth *s)
{
    static const uint16_t small[] = { 8, 16, 16, 24, 24, 24, 32, 32, 32, 32, 40, 48, 48,
                                      56, 64, 64, 72, 80, 96, 112, 128, 160, 192, 256 };
    uint64_t r = synth_below(s, 1000);
    if (r < 900) return small[synth_below(s, sizeof small / sizeof small[0])] - synth_below(s, 4) * (r & 1);
    if (r < 995) return 256 + synth_below(s, 1u << (8 + synth_below(s, 8)));  /* up to 64 KiB */
    return 65536 + synth_below(s, 1u << 20);                                  /* large */
}

static inline void synth_init(synth *s, uint64_t seed, uint64_t limit, int with_attrs)
{
    memset(s, 0, sizeof *s);
    s->rng = seed;
    s->time = 123456789012345ull;  /* a monotonic clock some hours after boot */
    s->thread = 1;
    s->limit = limit;
    s->with_attrs = with_attrs;
    s->heap_top = SYNTH_HEAP_BASE;
    s->mmap_top = SYNTH_MMAP_BASE;
    for (unsigned i = 0; i < SYNTH_SITES; i++) {
        uint64_t fr = synth_below(s, 100);
        s->site[i].fn = fr < 75 ? HATF_FN_MALLOC : fr < 85 ? HATF_FN_CALLOC : HATF_FN_NEW;
        s->site[i].size = synth_below(s, 5) == 0 ? 0 : synth_size(s);
    }
}

/* Skewed popularity: 70 % from 8 hot sites, 25 % from 56 warm ones, the rest cold. */
static inline const synth_site *synth_pick_site(synth *s)
{
    uint64_t r = synth_below(s, 100);
    unsigned i = r < 70 ? (unsigned)synth_below(s, 8)
               : r < 95 ? 8 + (unsigned)synth_below(s, 56) : 64 + (unsigned)synth_below(s, SYNTH_SITES - 64);
    return &s->site[i];
}

static inline void synth_free(synth *s)
{
    for (unsigned i = 0; i < SYNTH_CLASSES; i++) free(s->cls[i].a);
    free(s->live);
    memset(s, 0, sizeof *s);
}

static inline int synth_push(synth_stack *st, uint64_t v)
{
    if (st->n == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 64;
        uint64_t *a = (uint64_t *)realloc(st->a, cap * sizeof *a);
        if (!a) return -1;
        st->a = a;
        st->cap = cap;
    }
    st->a[st->n++] = v;
    return 0;
}

/* Chunk class of a request: glibc-like 16-byte chunks with an 8-byte header. */
static inline uint32_t synth_class(uint64_t size)
{
    uint64_t chunk = (size + 8 + 15) & ~15ull;
    if (chunk < 32) chunk = 32;
    return chunk / 16 < SYNTH_CLASSES ? (uint32_t)(chunk / 16) : 0;
}

static inline uint64_t synth_place(synth *s, uint64_t size, uint32_t *cls)
{
    *cls = synth_class(size);
    if (*cls == 0) {
        uint64_t a = s->mmap_top + 16;
        s->mmap_top += ((size + 16 + 4095) & ~4095ull) + 4096;
        return a;
    }
    synth_stack *st = &s->cls[*cls];
    if (st->n) return st->a[--st->n];
    uint64_t a = s->heap_top + 16;
    s->heap_top += (uint64_t)*cls * 16;
    return a;
}

static inline void synth_release(synth *s, const synth_obj *o)
{
    if (o->chunk_class && synth_push(&s->cls[o->chunk_class], o->addr) < 0) s->failed = 1;
}

/* Attribute bytes {func = fn}; static, so events stay valid after the next call. */
static inline void synth_set_attr(synth *s, hatf_event *ev, unsigned fn)
{
    static const uint8_t tab[HATF_FN_COUNT_][2] = {
#define SYNTH_FN(f) [f] = { HATF_A_FUNC, f }
        SYNTH_FN(HATF_FN_MALLOC), SYNTH_FN(HATF_FN_CALLOC), SYNTH_FN(HATF_FN_REALLOC),
        SYNTH_FN(HATF_FN_FREE), SYNTH_FN(HATF_FN_NEW), SYNTH_FN(HATF_FN_DELETE),
#undef SYNTH_FN
    };
    if (!s->with_attrs) return;
    ev->attr_is_bytes = 1;
    ev->data = tab[fn];
    ev->data_len = 2;
}

/* Next event. @return 1 with *ev, 0 when limit events were produced, -1 out of memory. */
static inline int synth_next(synth *s, hatf_event *ev)
{
    if (s->failed) return -1;
    if (s->emitted >= s->limit) return 0;
    memset(ev, 0, sizeof *ev);
    ev->thread = s->thread;
    uint64_t r = synth_rand(s);
    s->time += 10 + (r & 31) + ((r >> 8 & 63) == 0 ? (r >> 16 & 2047) : 0);
    ev->time = s->time;
    s->emitted++;
    if (s->emitted == 1) { ev->op = HATF_OP_THREAD_CREATE; return 1; }
    if (s->emitted == s->limit) { ev->op = HATF_OP_THREAD_DESTROY; return 1; }

    if (s->phase_left == 0) {
        s->phase_left = 200000 + synth_below(s, 800000);
        s->target = 100 + synth_below(s, 1u << (8 + synth_below(s, 8)));
    }
    s->phase_left--;

    uint64_t pick = synth_below(s, 1000);
    if (s->nlive > 0 && pick < 30) {          /* realloc, mostly growing a recent buffer */
        size_t i = pick < 24 ? s->nlive - 1 : synth_below(s, s->nlive);
        synth_obj *o = &s->live[i];
        uint64_t size = pick < 20 ? o->size + 1 + o->size / 2 + synth_below(s, 16)
                                  : 1 + synth_below(s, o->size + 1);
        uint32_t cls = synth_class(size);
        ev->size = size;
        ev->addr = o->addr;
        if (cls != 0 && cls == o->chunk_class) {
            ev->op = HATF_OP_REALLOC_INPLACE;
            ev->new_addr = o->addr;
        } else {
            ev->op = HATF_OP_REALLOC_MOVE;
            ev->new_addr = synth_place(s, size, &cls);
            synth_release(s, o);
            o->addr = ev->new_addr;
            o->chunk_class = cls;
        }
        o->size = size;
        synth_set_attr(s, ev, HATF_FN_REALLOC);
        return 1;
    }
    int alloc = s->nlive == 0 || synth_below(s, 100) < (s->nlive < s->target ? 56u : 44u);
    if (alloc) {
        if (s->nlive == s->caplive) {
            size_t cap = s->caplive ? s->caplive * 2 : 4096;
            synth_obj *l = (synth_obj *)realloc(s->live, cap * sizeof *l);
            if (!l) { s->failed = 1; return -1; }
            s->live = l;
            s->caplive = cap;
        }
        synth_obj *o = &s->live[s->nlive++];
        const synth_site *site = synth_pick_site(s);
        o->fn = site->fn;
        o->size = site->size ? site->size : synth_size(s);
        o->addr = synth_place(s, o->size, &o->chunk_class);
        if (synth_below(s, 100) == 0) {     /* realloc(NULL, n) */
            ev->op = HATF_OP_REALLOC_NEW;
            ev->size = o->size;
            ev->new_addr = o->addr;
            o->fn = HATF_FN_REALLOC;
        } else {
            ev->op = HATF_OP_ALLOC;
            ev->size = o->size;
            ev->addr = o->addr;
        }
        synth_set_attr(s, ev, o->fn);
        return 1;
    }
    /* free: most often the newest object, else one at random */
    size_t i = synth_below(s, 100) < 80 ? s->nlive - 1 : synth_below(s, s->nlive);
    synth_obj o = s->live[i];
    s->live[i] = s->live[--s->nlive];
    synth_release(s, &o);
    ev->op = HATF_OP_FREE;
    ev->addr = o.addr;
    synth_set_attr(s, ev, o.fn == HATF_FN_NEW ? HATF_FN_DELETE : HATF_FN_FREE);
    return 1;
}

#endif /* BENCH_SYNTH_H */
