/* container_addr.h — the address stream coding of a chunk group (internal).
 *
 * Addresses of one thread's chunk group are coded against a model of that
 * thread's heap, rebuilt from nothing in every group so a group decodes alone
 * (docs/format-container.md, "Address chunk"). The model keeps:
 *   - the live objects this thread allocated in this group, in allocation
 *     order (a bitmap over allocation numbers, with a count per 4096), so a
 *     free is coded as its object's rank among them, 0 = most recent;
 *   - for each size class ((size + 23) / 16), the addresses freed with that
 *     class, last freed first: the prediction for the next allocation;
 *   - the last 256 freed addresses of any size (allocators split and merge
 *     free chunks, so a miss often gets an address freed with another size).
 *   - two places fresh memory comes from, for the addresses no list predicts:
 *     the top (glibc carves new chunks off its top: the last address coded
 *     from the top, plus its chunk) and each small size class's fresh address
 *     (allocators with size-class slabs, jemalloc, tcmalloc, mimalloc, hand
 *     out a slab's slots in turn: that class's last fresh address, plus a chunk).
 * Codes (unsigned LEB128 varints, one per address):
 *   freed address F:  0 = NULL, 1 = escape + zigzag(addr - last escape),
 *                     2 + rank = the live object of that rank
 *   new address A:    0 = the prediction for this size, 1 = same as the
 *                     realloc's old address, 2 = escape + varint(addr),
 *                     3 + 3 * zigzag(addr - (top + hatf_chunk_guess(top's size))),
 *                     4 + 3 * i = the i-th most recently freed address (i < 256),
 *                     5 + 3 * zigzag(addr - (the class's fresh address + hatf_chunk_guess(size)))
 *   (coding 2, still read: 3 + 2 * zigzag(addr - (newest object + its chunk)),
 *   4 + 2 * i the i-th most recent free; no class code.)
 * Every op with addresses is coded in event order: alloc A(addr); free F(addr);
 * realloc F(old addr) then A(new addr).
 */
#ifndef HATF_CONTAINER_ADDR_H
#define HATF_CONTAINER_ADDR_H

#include <stdint.h>
#include "hatf.h"
#include "bytes.h"

#define HATF_SB_SHIFT 12  /* allocation numbers per superblock count: 4096 */
#define HATF_G_SHIFT 9    /* allocation numbers per group count: 512 */
#define HATF_PRED_DIRECT 2048  /* size classes (hatf_pred_key) below this predict from a plain array */
#define HATF_RECENT 256        /* freed addresses a new one may name by recency */

/* head: allocation number + 1 of the last object freed with this size, 0 none;
 * the ones freed before it follow through pnext (a LIFO, like allocators' free lists). */
typedef struct hatf_pred_slot { uint64_t size; uint32_t head, gen; } hatf_pred_slot;
/* encoder: an address -> its newest object (or none); tag: its latest free number + 1
 * (0 none) << 8 | the low 8 bits of the generation (0: an empty slot) */
typedef struct hatf_map_slot { uint64_t addr; uint32_t seq, tag; } hatf_map_slot;
/* a small size class's last fresh address (valid in generation gen) */
typedef struct hatf_fresh_slot { uint64_t addr; uint32_t gen; } hatf_fresh_slot;

typedef struct hatf_amodel {
    uint64_t *words;        /* live bit per allocation number */
    uint16_t *gcount;       /* live objects per 512 allocation numbers */
    uint32_t *sbcount;      /* live objects per 4096 allocation numbers */
    uint64_t *seq_addr, *seq_size;
    uint32_t *pnext;        /* freed object -> the one freed before it with its size */
    uint32_t nseq, cap, live;
    uint32_t gen;           /* slots of the tables below with another gen are empty */
    hatf_pred_slot *direct; /* small size class -> its list of freed objects (head; pnext) */
    hatf_pred_slot *pred;   /* larger size class -> the same (linear probing, load <= 1/2) */
    hatf_fresh_slot *fresh; /* small size class -> its last fresh address */
    uint32_t pred_bits, pred_count;
    hatf_map_slot *map;     /* encoder only: every address seen in the group */
    uint32_t map_bits, map_count;
    int encoder;
    int coding;             /* HATF_ACODE_MODEL (3), or 2 when decoding an older trace */
    uint64_t top, top_size; /* coding 3: the last address coded from the top (or escaped), its size */
    uint64_t last_new, last_size, last_esc;  /* last_new, last_size: coding 2 only */
    uint64_t *hist;         /* coding 6: the group's non-NULL addresses so far (nhist of hist_cap, */
    uint32_t nhist, hist_cap, hist_max;  /* grown as they come, to at most hist_max) */
    uint64_t prev_new;      /* coding 6: the last non-NULL new address (last_new: of any kind) */
    uint32_t nfreed;        /* addresses freed in the group; the decoder keeps the last HATF_RECENT in recent */
    uint64_t recent[HATF_RECENT];
} hatf_amodel;

void hatf_amodel_init(hatf_amodel *m, int encoder);
/* Release the model's memory; it is then as hatf_amodel_init left it (an
 * encoder still), ready for another hatf_amodel_reset. */
void hatf_amodel_free(hatf_amodel *m);
/* Empty the model for a group of at most max_objects allocations, coded
 * with coding (HATF_ACODE_MODEL; a decoder also takes HATF_ACODE_MODEL2, and
 * the fast codings: for HATF_ACODE_REF max_objects bounds its addresses).
 * @return 0 or HATF_E_NOMEM. */
int hatf_amodel_reset(hatf_amodel *m, uint32_t max_objects, int coding);

/* One event's address fields, as the encoder needs them. */
typedef struct hatf_aitem { uint64_t size, addr, new_addr; uint8_t op; } hatf_aitem;

/* Bytes the codes of one event may take: hatf_aenc_run on n items appends
 * at most n times this. */
#define HATF_AENC_EVENT_MAX (2 * (1 + HATF_VARINT_MAX))

/* Code the addresses of events a[0..n) (op, size, addr, new_addr used) onto
 * out, in order; out->failed on out of memory.
 * pre, not checked (the group's allocs are not counted here): hatf_amodel_reset with room for each. */
void hatf_aenc_run(hatf_amodel *m, const hatf_aitem *a, size_t n, hatf_buf *out);

/* Coding 6 (HATF_ACODE_REF), the recorder's fast groups: an address the
 * group has coded before is named by its distance back, the others by a
 * difference, in one varint each: 0 NULL; odd v, the non-NULL address coded
 * (v + 1) / 2 addresses back (v = 1: the last one coded); even v >= 4,
 * ref + unzigzag((v - 4) / 2), ref being the group's previous non-NULL new
 * address (an alloc's, a realloc's new one) for a new address, else its
 * previous non-NULL address of any kind (0 at the start); 2, the address
 * itself in the varint that follows (a difference of 2^61 or more: tagged
 * pointers, say). Most frees name an
 * object allocated shortly before and most allocations reuse a block freed
 * shortly before: on real programs zstd then packs the addresses 2-3 times
 * smaller than coding 5's differences (docs/format-container.md). The encoder
 * finds an earlier address in a table by hash, shared by every group of a
 * writer (a slot names the group that wrote it: only its own count); the
 * decoder keeps the group's addresses (hatf_amodel.hist). */
#define HATF_AREF_MAX (1 + HATF_VARINT_MAX)  /* the escape and the address */
#define HATF_AREF_BITS 12  /* as small as a table can be and match as often on the corpus (4096-65536 tried) */
typedef struct hatf_aref_slot { uint64_t addr; uint32_t group, pos; } hatf_aref_slot;
/* One group's coding 6 state: its references and the addresses coded so far. */
typedef struct hatf_aref {
    uint64_t prev, prev_new;
    uint32_t n;               /* non-NULL addresses coded */
    uint32_t group;           /* the group's number in the table (never 0) */
} hatf_aref;

static inline uint64_t hatf_hash64(uint64_t x, unsigned bits);

/* One address in coding 6; is_new: an alloc's or a realloc's new address;
 * tab: the writer's 1 << HATF_AREF_BITS slots; pdep: the varint spread by
 * pdep (hatf_varint_put8_pdep's pre; the same bytes). pre, not checked (o has no end): HATF_AREF_MAX
 * bytes of room at o (those past the code are scratch). @return the end of
 * the code (at most HATF_AREF_MAX bytes). */
static inline __attribute__((always_inline))
uint8_t *hatf_aref_put(uint8_t *o, uint64_t a, int is_new, hatf_aref *r, hatf_aref_slot *tab, int pdep)
{
    if (!a) {
        *o = 0;
        return o + 1;
    }
    hatf_aref_slot *s = &tab[hatf_hash64(a, HATF_AREF_BITS)];
    uint64_t v;
    if (s->addr == a && s->group == r->group) {
        v = 2 * (uint64_t)(r->n - 1 - s->pos) + 1;
    } else {
        v = hatf_zigzag((int64_t)(a - (is_new ? r->prev_new : r->prev)));
        if (__builtin_expect(v >> 62 != 0, 0)) {
            *o++ = 2;
            v = a;
        } else {
            v = 2 * v + 4;
        }
    }
    *s = (hatf_aref_slot){ a, r->group, r->n++ };
    r->prev = a;
    if (is_new) r->prev_new = a;
    return o + (pdep ? hatf_varint_put8_pdep(o, v) : hatf_varint_put8(o, v));
}

/* hatf_aenc_run for one event. */
void hatf_aenc_event(hatf_amodel *m, unsigned op, uint64_t size, uint64_t addr,
                     uint64_t new_addr, hatf_buf *out);

/* ---- shared by the encoder and the decoder ------------------------------- */

static inline uint64_t hatf_hash64(uint64_t x, unsigned bits)
{
    return (x * 0x9E3779B97F4A7C15ull) >> (64 - bits);
}

int hatf_amodel_grow_pred_(hatf_amodel *m);
/* Room for one more of coding 6's addresses, up to hist_max. @return 0, or
 * -1 at hist_max (more addresses than the chunk can have) or out of memory. */
int hatf_amodel_grow_hist_(hatf_amodel *m);

/* Rank counting takes hw: nonzero when the caller is built for the
 * popcnt instruction (target("popcnt"), chosen at run time), else 0; it is a
 * constant at every call, so each build keeps one of the two counts. */
#define HATF_AINLINE static inline __attribute__((always_inline))

static inline uint32_t hatf_popcount64(uint64_t x)
{
#ifdef __POPCNT__
    return (uint32_t)__builtin_popcountll(x);
#else  /* not a libgcc call on baseline x86-64 */
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
#endif
}

HATF_AINLINE uint32_t hatf_popcount_(uint64_t x, int hw)
{
    return hw ? (uint32_t)__builtin_popcountll(x) : hatf_popcount64(x);
}

/* Where a bump allocator puts the next object after one of this size
 * (glibc: 16-byte chunks with an 8-byte header, 32 at least). */
static inline uint64_t hatf_chunk_guess(uint64_t size)
{
    if (size == 0) return 0;  /* nothing allocated yet */
    uint64_t c = (size + 23) & ~(uint64_t)15;
    return c < 32 ? 32 : c;
}

/* Sizes that allocators serve from one free list share a prediction: glibc's
 * chunk classes (finer than jemalloc's, tcmalloc's and mimalloc's small classes). */
static inline uint64_t hatf_pred_key(uint64_t size) { return (size + 23) >> 4; }

/* The prediction slot of a size, or NULL when there is none. */
static inline hatf_pred_slot *hatf_pred_get(hatf_amodel *m, uint64_t size)
{
    size = hatf_pred_key(size);
    if (size < HATF_PRED_DIRECT) {
        hatf_pred_slot *s = &m->direct[size];
        return s->gen == m->gen ? s : NULL;
    }
    uint32_t mask = (1u << m->pred_bits) - 1;
    for (uint32_t i = (uint32_t)hatf_hash64(size, m->pred_bits);; i = (i + 1) & mask) {
        hatf_pred_slot *s = &m->pred[i];
        if (s->gen != m->gen) return NULL;
        if (s->size == size) return s;
    }
}

int hatf_amodel_kill_big_(hatf_amodel *m, uint32_t seq, uint64_t size);

/* The fresh slot of a small size's class (NULL past HATF_PRED_DIRECT): the
 * class's last fresh address when its gen is the model's. */
static inline hatf_fresh_slot *hatf_fresh_of(hatf_amodel *m, uint64_t size)
{
    size = hatf_pred_key(size);
    return size < HATF_PRED_DIRECT ? &m->fresh[size] : NULL;
}

/* addr (not NULL) came from fresh memory: coded from the top, from its class
 * or escaped. top: it also becomes the top (not for a class code). */
HATF_AINLINE void hatf_amodel_fresh(hatf_amodel *m, uint64_t addr, uint64_t size, int top)
{
    hatf_fresh_slot *f = hatf_fresh_of(m, size);
    if (f) *f = (hatf_fresh_slot){ .addr = addr, .gen = m->gen };
    if (top) { m->top = addr; m->top_size = size; }
}

/* Object number seq leaves the live set; its address becomes the prediction
 * for its size. @return 0 or -1 (out of memory). */
HATF_AINLINE int hatf_amodel_kill(hatf_amodel *m, uint32_t seq)
{
    m->words[seq >> 6] &= ~(1ull << (seq & 63));
    m->gcount[seq >> HATF_G_SHIFT]--;
    m->sbcount[seq >> HATF_SB_SHIFT]--;
    m->live--;
    uint64_t size = hatf_pred_key(m->seq_size[seq]);
    if (__builtin_expect(size >= HATF_PRED_DIRECT, 0)) return hatf_amodel_kill_big_(m, seq, size);
    hatf_pred_slot *s = &m->direct[size];
    if (s->gen != m->gen) { s->gen = m->gen; s->head = 0; }
    m->pnext[seq] = s->head;
    s->head = seq + 1;
    return 0;
}

static inline uint32_t hatf_amodel_add(hatf_amodel *m, uint64_t addr, uint64_t size)
{
    uint32_t seq = m->nseq++;
    m->words[seq >> 6] |= 1ull << (seq & 63);
    m->gcount[seq >> HATF_G_SHIFT]++;
    m->sbcount[seq >> HATF_SB_SHIFT]++;
    m->live++;
    m->seq_addr[seq] = addr;
    m->seq_size[seq] = size;
    return seq;
}

/* The instructions the address decoder may use on this CPU: popcnt, and
 * pdep as well (where it is fast). */
enum { HATF_ADEC_PLAIN = 0, HATF_ADEC_POPCNT = 1, HATF_ADEC_BMI2 = 2 };
int hatf_adec_isa(void);

/* Decode the addresses of e[0..n) (op and size read, addr / new_addr set)
 * from *pp..end (container_adec.c). isa: HATF_ADEC_*, from hatf_adec_isa.
 * pre, not checked (the group's allocs are not counted here): hatf_amodel_reset with room for each (codings 4
 * and 5, HATF_ACODE_DELTA and _N, need none: last_new holds the previous
 * address; coding 6, room for its non-NULL addresses).
 * @return the events done; fewer than n when the next one's code is bad. */
uint32_t hatf_adec_run(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp,
                       const uint8_t *end, int isa);

/* One event's addresses. @return 0 or -1 (corrupt). */
static inline int hatf_adec_event(hatf_amodel *m, hatf_event *ev, const uint8_t **pp, const uint8_t *end)
{
    return hatf_adec_run(m, ev, 1, pp, end, HATF_ADEC_PLAIN) == 1 ? 0 : -1;
}

#endif /* HATF_CONTAINER_ADDR_H */
