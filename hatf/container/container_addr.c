/* container_addr.c — the address model: storage and the encoder side.
 * The coding itself is described in container_addr.h; the decoder is container_adec.c. */
#include <stdlib.h>
#include <string.h>

#include "container_addr.h"
#include "container_format.h"
#include "cpu.h"
#include "hatf_check.h"

#define TABLE_BITS0 8

void hatf_amodel_init(hatf_amodel *m, int encoder)
{
    memset(m, 0, sizeof *m);
    m->encoder = encoder;
}

void hatf_amodel_free(hatf_amodel *m)
{
    free(m->words);
    free(m->gcount);
    free(m->sbcount);
    free(m->seq_addr);
    free(m->seq_size);
    free(m->pnext);
    free(m->direct);
    free(m->fresh);
    free(m->pred);
    free(m->map);
    free(m->hist);
    /* as after hatf_amodel_init: an encoder stays one (reset's out-of-memory
     * path frees, and a later reset must make the encoder's map again) */
    hatf_amodel_init(m, m->encoder);
}

static uint32_t words_for(uint32_t n) { return (n >> 6) + 1; }
static uint32_t gs_for(uint32_t n) { return (n >> HATF_G_SHIFT) + 1; }
static uint32_t sbs_for(uint32_t n) { return (n >> HATF_SB_SHIFT) + 1; }

int hatf_amodel_reset(hatf_amodel *m, uint32_t max_objects, int coding)
{
    /* coding 6: no model, the group's addresses instead, kept as they are
     * decoded (memory for what the chunk holds, not what it claims) */
    m->hist_max = coding == HATF_ACODE_REF ? max_objects : 0;
    if (coding == HATF_ACODE_REF) max_objects = 0;
    m->nhist = 0;
    m->prev_new = 0;
    if (max_objects < 64) max_objects = 64;
    if (m->words) {
        memset(m->words, 0, words_for(m->nseq) * sizeof *m->words);
        memset(m->gcount, 0, gs_for(m->nseq) * sizeof *m->gcount);
        memset(m->sbcount, 0, sbs_for(m->nseq) * sizeof *m->sbcount);
    }
    if (max_objects > m->cap) {
        free(m->words); free(m->gcount); free(m->sbcount); free(m->seq_addr); free(m->seq_size); free(m->pnext);
        m->words = calloc(words_for(max_objects), sizeof *m->words);
        m->gcount = calloc(gs_for(max_objects), sizeof *m->gcount);
        m->sbcount = calloc(sbs_for(max_objects), sizeof *m->sbcount);
        m->seq_addr = malloc(max_objects * sizeof *m->seq_addr);
        m->seq_size = malloc(max_objects * sizeof *m->seq_size);
        m->pnext = malloc(max_objects * sizeof *m->pnext);
        m->cap = max_objects;
        if (!m->words || !m->gcount || !m->sbcount || !m->seq_addr || !m->seq_size || !m->pnext) {
            hatf_amodel_free(m);
            return HATF_E_NOMEM;
        }
    }
    if (!m->direct) {
        m->direct = calloc(HATF_PRED_DIRECT, sizeof *m->direct);
        if (!m->direct) return HATF_E_NOMEM;
    }
    if (!m->fresh) {
        m->fresh = calloc(HATF_PRED_DIRECT, sizeof *m->fresh);
        if (!m->fresh) return HATF_E_NOMEM;
    }
    if (!m->pred) {
        m->pred_bits = TABLE_BITS0;
        m->pred = calloc(1u << m->pred_bits, sizeof *m->pred);
        if (!m->pred) return HATF_E_NOMEM;
    }
    if (m->encoder && !m->map) {
        m->map_bits = TABLE_BITS0;
        m->map = calloc(1u << m->map_bits, sizeof *m->map);
        if (!m->map) return HATF_E_NOMEM;
    }
    /* a new generation empties both tables without touching them */
    if (++m->gen == 0) {
        memset(m->pred, 0, (sizeof *m->pred) << m->pred_bits);
        memset(m->direct, 0, HATF_PRED_DIRECT * sizeof *m->direct);
        memset(m->fresh, 0, HATF_PRED_DIRECT * sizeof *m->fresh);
        if (m->map) memset(m->map, 0, (sizeof *m->map) << m->map_bits);
        m->gen = 1;
    }
    if ((m->gen & 0xff) == 0) {  /* the address table's 8-bit generation wraps */
        if (m->map) memset(m->map, 0, (sizeof *m->map) << m->map_bits);
        m->gen++;
    }
    m->nseq = m->live = m->pred_count = m->map_count = 0;
    m->coding = coding;
    m->top = m->top_size = 0;
    m->last_new = m->last_size = m->last_esc = 0;
    m->nfreed = 0;
    return 0;
}

int hatf_amodel_grow_hist_(hatf_amodel *m)
{
    if (m->hist_cap >= m->hist_max) return -1;
    uint32_t cap = m->hist_cap ? 2 * m->hist_cap : 4096;  /* hist_max <= 2^21: no overflow */
    if (cap > m->hist_max) cap = m->hist_max;
    uint64_t *h = realloc(m->hist, (size_t)cap * sizeof *h);
    if (!h) return -1;
    m->hist = h;
    m->hist_cap = cap;
    return 0;
}

int hatf_amodel_grow_pred_(hatf_amodel *m)
{
    if (m->pred_bits >= 30) return -1;
    unsigned bits = m->pred_bits + 1;
    hatf_pred_slot *t = calloc(1u << bits, sizeof *t);
    if (!t) return -1;
    uint32_t mask = (1u << bits) - 1;
    for (uint32_t j = 0; j < 1u << m->pred_bits; j++) {
        const hatf_pred_slot *s = &m->pred[j];
        if (s->gen != m->gen) continue;
        uint32_t i = (uint32_t)hatf_hash64(s->size, bits);
        while (t[i].gen == m->gen) i = (i + 1) & mask;
        t[i] = *s;
    }
    free(m->pred);
    m->pred = t;
    m->pred_bits = bits;
    return 0;
}

/* hatf_amodel_kill for a size past the direct array: the hashed table. */
int hatf_amodel_kill_big_(hatf_amodel *m, uint32_t seq, uint64_t size)
{
    uint32_t mask = (1u << m->pred_bits) - 1;
    for (uint32_t i = (uint32_t)hatf_hash64(size, m->pred_bits);; i = (i + 1) & mask) {
        hatf_pred_slot *s = &m->pred[i];
        if (s->gen != m->gen) {
            if ((m->pred_count + 1) * 2 > mask + 1) {
                if (hatf_amodel_grow_pred_(m)) return -1;
                mask = (1u << m->pred_bits) - 1;
                i = (uint32_t)hatf_hash64(size, m->pred_bits) - 1;  /* probe again */
                continue;
            }
            m->pred_count++;
            s->gen = m->gen;
            s->size = size;
            s->head = 0;
        } else if (s->size != size) {
            continue;
        }
        m->pnext[seq] = s->head;
        s->head = seq + 1;
        return 0;
    }
}

/* ---- encoder: address -> its object and its latest free -----------------
 * One entry per address the group has seen, allocated or freed, so each code
 * costs one probe: a free finds the address's object (live while its bit is
 * set) and notes its free number there; a new address reads its latest free
 * there (the recency code: within the last HATF_RECENT frees?) and becomes
 * the entry's object. Entries are never deleted (a dead object's bit says it
 * all); hatf_amodel_reset empties the table by generation. */

#define NO_SEQ UINT32_MAX
#define GEN8(m) ((m)->gen & 0xff)
/* Free numbers past this are not noted: the entry keeps an older one, whose
 * recency code is still right, only longer (groups hold at most 2^20 events). */
#define FREED_MAX ((1u << 24) - 1)

static int map_grow(hatf_amodel *m)
{
    if (m->map_bits >= 30) return -1;
    unsigned bits = m->map_bits + 1;
    hatf_map_slot *t = calloc(1u << bits, sizeof *t);
    if (!t) return -1;
    uint32_t mask = (1u << bits) - 1;
    for (uint32_t j = 0; j < 1u << m->map_bits; j++) {
        const hatf_map_slot *s = &m->map[j];
        if ((s->tag & 0xff) != GEN8(m)) continue;
        uint32_t i = (uint32_t)hatf_hash64(s->addr, bits);
        while ((t[i].tag & 0xff) == GEN8(m)) i = (i + 1) & mask;
        t[i] = *s;
    }
    free(m->map);
    m->map = t;
    m->map_bits = bits;
    return 0;
}

/* The entry of addr, added (no object, no free) if the group has not seen it;
 * NULL if the table cannot grow (the codes then just miss what it knew).
 * pre: addr != 0. */
static inline hatf_map_slot *map_at(hatf_amodel *m, uint64_t addr)
{
    HATF_PRE(addr != 0);
    for (;;) {
        uint32_t mask = (1u << m->map_bits) - 1, gen = GEN8(m), i;
        hatf_map_slot *t = m->map, *s;
        for (i = (uint32_t)hatf_hash64(addr, m->map_bits);; i = (i + 1) & mask) {
            s = &t[i];
            if ((s->tag & 0xff) != gen) break;
            if (s->addr == addr) return s;
        }
        /* a new address: the load stays at most 1/2 */
        if (__builtin_expect((m->map_count + 1) * 2 <= mask + 1, 1)) {
            m->map_count++;
            *s = (hatf_map_slot){ .addr = addr, .seq = NO_SEQ, .tag = gen };
            return s;
        }
        if (map_grow(m)) return NULL;
    }
}

/* Live objects newer than seq: the rest of its word, of its group, of its
 * superblock, then the superblocks above. */
HATF_AINLINE uint32_t rank_of(const hatf_amodel *m, uint32_t seq, int hw)
{
    uint32_t w = seq >> 6, g = seq >> HATF_G_SHIFT, sb = seq >> HATF_SB_SHIFT;
    uint32_t top = m->nseq - 1;
    uint32_t r = hatf_popcount_((m->words[w] >> (seq & 63)) >> 1, hw);
    if (w == top >> 6) return r;  /* the newest word (most frees): nothing above it */
    uint32_t wend = ((g + 1) << (HATF_G_SHIFT - 6)) - 1, gend = ((sb + 1) << (HATF_SB_SHIFT - HATF_G_SHIFT)) - 1;
    if (wend > top >> 6) wend = top >> 6;
    if (gend > top >> HATF_G_SHIFT) gend = top >> HATF_G_SHIFT;
    for (uint32_t x = w + 1; x <= wend; x++) r += hatf_popcount_(m->words[x], hw);
    for (uint32_t x = g + 1; x <= gend; x++) r += m->gcount[x];
    for (uint32_t x = sb + 1; x <= top >> HATF_SB_SHIFT; x++) r += m->sbcount[x];
    return r;
}

HATF_AINLINE uint8_t *put_varint(uint8_t *o, uint64_t v)
{
    if (__builtin_expect(v < 0x80, 1)) { *o = (uint8_t)v; return o + 1; }
    return o + hatf_varint_put(o, v);
}

/* The codes of one event take at most two escapes. */
#define EVENT_MAX HATF_AENC_EVENT_MAX

HATF_AINLINE uint8_t *enc_freed(hatf_amodel *m, uint64_t addr, uint8_t *o, hatf_buf *out, int hw)
{
    if (!addr) { *o = 0; return o + 1; }
    hatf_map_slot *s = map_at(m, addr);
    uint32_t seq = s ? s->seq : NO_SEQ;
    if (seq != NO_SEQ && (m->words[seq >> 6] >> (seq & 63)) & 1) {
        o = put_varint(o, 2 + (uint64_t)rank_of(m, seq, hw));
        if (hatf_amodel_kill(m, seq)) out->failed = 1;
    } else {
        *o++ = 1;
        o = put_varint(o, hatf_zigzag((int64_t)(addr - m->last_esc)));
        m->last_esc = addr;
    }
    m->nfreed++;
    if (s && m->nfreed <= FREED_MAX) s->tag = m->nfreed << 8 | (s->tag & 0xff);  /* its free number + 1 */
    return o;
}

/* zigzag(d) as the code base + 3 * zigzag, or 2 (escape) if it does not fit. */
HATF_AINLINE uint64_t code3(uint64_t base, uint64_t d)
{
    uint64_t zz = hatf_zigzag((int64_t)d);
    return zz <= (UINT64_MAX - base) / 3 ? base + 3 * zz : 2;
}

HATF_AINLINE uint8_t *enc_new(hatf_amodel *m, uint64_t size, int has_old, uint64_t old, uint64_t addr,
                              uint8_t *o)
{
    hatf_pred_slot *p = hatf_pred_get(m, size);
    hatf_map_slot *s = addr ? map_at(m, addr) : NULL;
    if (p && p->head && m->seq_addr[p->head - 1] == addr) {
        p->head = m->pnext[p->head - 1];
        *o++ = 0;
    } else if (has_old && addr == old) {
        *o++ = 1;
    } else {
        /* the smallest code that applies: from the top, a recent free, from the class */
        uint64_t code = code3(3, addr - m->top - hatf_chunk_guess(m->top_size));
        int fresh = 2;  /* who takes addr as fresh memory: 2 the top and its class, 1 the class, 0 neither */
        uint32_t freed = s ? s->tag >> 8 : 0, ago;  /* ago: frees since addr's latest */
        if (code != 3) {
            if (freed && (ago = m->nfreed - freed) < HATF_RECENT) {
                uint64_t rc = 4 + 3 * (uint64_t)ago;
                if (rc < code || code == 2) { code = rc; fresh = 0; }
            }
            hatf_fresh_slot *f = hatf_fresh_of(m, size);
            if (f && f->gen == m->gen) {
                uint64_t cc = code3(5, addr - f->addr - hatf_chunk_guess(size));
                if (cc != 2 && (cc < code || code == 2)) { code = cc; fresh = 1; }
            }
        }
        o = put_varint(o, code);
        if (code == 2) { o = put_varint(o, addr); fresh = 2; }
        if (addr && fresh) hatf_amodel_fresh(m, addr, size, fresh == 2);
    }
    if (addr && m->nseq < m->cap) {
        uint32_t seq = hatf_amodel_add(m, addr, size);
        if (s) s->seq = seq;
    }
    return o;
}

HATF_AINLINE uint8_t *enc_event(hatf_amodel *m, const hatf_aitem *a, uint8_t *o, hatf_buf *out, int hw)
{
    switch (a->op) {
    case HATF_OP_ALLOC:
        return enc_new(m, a->size, 0, 0, a->addr, o);
    case HATF_OP_FREE:
        return enc_freed(m, a->addr, o, out, hw);
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE:
        o = enc_freed(m, a->addr, o, out, hw);
        return enc_new(m, a->size, 1, a->addr, a->new_addr, o);
    default:
        return o;
    }
}

/* Items ahead: far enough for a miss to arrive before its probe (perf on
 * redis: 8 ahead cut the loop's time by a sixth, 16 to 64 by a quarter or
 * more; bench/results/recorder.md). */
#define PREFETCH_AHEAD 32

/* The codes of a[0..n) in one loop, EVENT_MAX bytes reserved per event for a
 * slice at a time (a group's worst case would be megabytes). */
HATF_AINLINE void enc_run_(hatf_amodel *m, const hatf_aitem *a, size_t n, hatf_buf *out, int hw)
{
    enum { SLICE = 1024 };
    for (size_t i = 0; i < n;) {
        size_t k = n - i < SLICE ? n - i : SLICE;
        uint8_t *o = hatf_buf_reserve(out, k * EVENT_MAX);
        if (!o) return;
        uint8_t *o0 = o;
        size_t end = i + k, ahead = n > PREFETCH_AHEAD ? n - PREFETCH_AHEAD : 0;  /* prefetch up to here */
        if (ahead > end) ahead = end;
        /* the table entry an item probes first (its first address's): the
         * table is megabytes for a large group, so a probe is a cache miss
         * unless fetched ahead; the table as of the slice's start (a grown
         * one only makes a prefetch useless) */
        const hatf_map_slot *map = m->map;
        unsigned bits = m->map_bits;
        for (; i < ahead; i++) {
            __builtin_prefetch(&map[hatf_hash64(a[i + PREFETCH_AHEAD].addr, bits)], 1);
            o = enc_event(m, &a[i], o, out, hw);
        }
        for (; i < end; i++) o = enc_event(m, &a[i], o, out, hw);
        out->len += (size_t)(o - o0);
    }
}

/* Ranks count bits; the portable build lacks the instruction, so a second
 * copy of the loop uses it where the CPU has it (as the decoder does). */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__POPCNT__)
static __attribute__((noinline, target("popcnt")))
void enc_run_popcnt(hatf_amodel *m, const hatf_aitem *a, size_t n, hatf_buf *out)
{
    enc_run_(m, a, n, out, 1);
}
#define HAVE_RUN_POPCNT 1
#endif

void hatf_aenc_run(hatf_amodel *m, const hatf_aitem *a, size_t n, hatf_buf *out)
{
#ifdef HAVE_RUN_POPCNT
    if (hatf_cpu_popcnt()) { enc_run_popcnt(m, a, n, out); return; }
    enc_run_(m, a, n, out, 0);
#elif defined(__POPCNT__)
    enc_run_(m, a, n, out, 1);
#else
    enc_run_(m, a, n, out, 0);
#endif
}

void hatf_aenc_event(hatf_amodel *m, unsigned op, uint64_t size, uint64_t addr,
                     uint64_t new_addr, hatf_buf *out)
{
    hatf_aitem a = { .size = size, .addr = addr, .new_addr = new_addr, .op = (uint8_t)op };
    hatf_aenc_run(m, &a, 1, out);
}
