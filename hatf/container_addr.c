/* container_addr.c — the address model: storage and the encoder side.
 * The coding itself is described in container_addr.h; the decoder is inline there. */
#include <stdlib.h>
#include <string.h>

#include "container_addr.h"

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
    free(m->pred);
    free(m->map);
    free(m->rmap);
    memset(m, 0, sizeof *m);
}

static uint32_t words_for(uint32_t n) { return (n >> 6) + 1; }
static uint32_t gs_for(uint32_t n) { return (n >> HATF_G_SHIFT) + 1; }
static uint32_t sbs_for(uint32_t n) { return (n >> HATF_SB_SHIFT) + 1; }

int hatf_amodel_reset(hatf_amodel *m, uint32_t max_objects)
{
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
    if (m->encoder && !m->rmap) {
        m->rmap = calloc(1u << HATF_RECENT_BITS, sizeof *m->rmap);
        if (!m->rmap) return HATF_E_NOMEM;
    }
    /* a new generation empties both tables without touching them */
    if (++m->gen == 0) {
        memset(m->pred, 0, (sizeof *m->pred) << m->pred_bits);
        memset(m->direct, 0, HATF_PRED_DIRECT * sizeof *m->direct);
        if (m->map) memset(m->map, 0, (sizeof *m->map) << m->map_bits);
        if (m->rmap) memset(m->rmap, 0, (sizeof *m->rmap) << HATF_RECENT_BITS);
        m->gen = 1;
    }
    m->nseq = m->live = m->pred_count = m->map_count = 0;
    m->last_new = m->last_size = m->last_esc = 0;
    m->nfreed = 0;
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

/* ---- encoder: live address -> allocation number ------------------------- */

static int map_grow(hatf_amodel *m)
{
    unsigned bits = m->map_bits + 1;
    hatf_map_slot *t = calloc(1u << bits, sizeof *t);
    if (!t) return -1;
    uint32_t mask = (1u << bits) - 1;
    for (uint32_t j = 0; j < 1u << m->map_bits; j++) {
        const hatf_map_slot *s = &m->map[j];
        if (s->gen != m->gen) continue;
        uint32_t i = (uint32_t)hatf_hash64(s->addr, bits);
        while (t[i].gen == m->gen) i = (i + 1) & mask;
        t[i] = *s;
    }
    free(m->map);
    m->map = t;
    m->map_bits = bits;
    return 0;
}

/* @return the slot holding addr, or -1. */
static int64_t map_find(const hatf_amodel *m, uint64_t addr)
{
    uint32_t mask = (1u << m->map_bits) - 1;
    for (uint32_t i = (uint32_t)hatf_hash64(addr, m->map_bits);; i = (i + 1) & mask) {
        if (m->map[i].gen != m->gen) return -1;
        if (m->map[i].addr == addr) return i;
    }
}

/* addr is now object seq (a newer object at the same address replaces an
 * older one, which stays live in the model: the decoder cannot tell either). */
static void map_put(hatf_amodel *m, uint64_t addr, uint32_t seq)
{
    if ((m->map_count + 1) * 2 > 1u << m->map_bits && map_grow(m) != 0) return;
    uint32_t mask = (1u << m->map_bits) - 1;
    uint32_t i = (uint32_t)hatf_hash64(addr, m->map_bits);
    while (m->map[i].gen == m->gen && m->map[i].addr != addr) i = (i + 1) & mask;
    if (m->map[i].gen != m->gen) m->map_count++;
    m->map[i].addr = addr;
    m->map[i].seq = seq;
    m->map[i].gen = m->gen;
}

/* Linear-probing deletion that shifts later members of the run back. */
static void map_del(hatf_amodel *m, uint32_t i)
{
    uint32_t mask = (1u << m->map_bits) - 1;
    for (uint32_t j = i;;) {
        j = (j + 1) & mask;
        if (m->map[j].gen != m->gen) break;
        uint32_t k = (uint32_t)hatf_hash64(m->map[j].addr, m->map_bits);
        /* move j back to i unless its home k lies cyclically in (i, j] */
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) { m->map[i] = m->map[j]; i = j; }
    }
    m->map[i].gen = 0;
    m->map_count--;
}

/* Live objects newer than seq: the rest of its word, of its group, of its
 * superblock, then the superblocks above. */
static uint32_t rank_of(const hatf_amodel *m, uint32_t seq)
{
    uint32_t w = seq >> 6, g = seq >> HATF_G_SHIFT, sb = seq >> HATF_SB_SHIFT;
    uint32_t top = m->nseq - 1;
    uint32_t r = hatf_popcount64((m->words[w] >> (seq & 63)) >> 1);
    uint32_t wend = ((g + 1) << (HATF_G_SHIFT - 6)) - 1, gend = ((sb + 1) << (HATF_SB_SHIFT - HATF_G_SHIFT)) - 1;
    if (wend > top >> 6) wend = top >> 6;
    if (gend > top >> HATF_G_SHIFT) gend = top >> HATF_G_SHIFT;
    for (uint32_t x = w + 1; x <= wend; x++) r += hatf_popcount64(m->words[x]);
    for (uint32_t x = g + 1; x <= gend; x++) r += m->gcount[x];
    for (uint32_t x = sb + 1; x <= top >> HATF_SB_SHIFT; x++) r += m->sbcount[x];
    return r;
}

/* ---- encoder: recently freed address -> its free number ----------------
 * The window of HATF_RECENT addresses as a hash table, so a new address finds
 * its recency code in O(1) instead of by a scan of the window. An entry holds
 * the latest free of its address and leaves when that free leaves the window. */

#define RMASK ((1u << HATF_RECENT_BITS) - 1)

/* @return the free number of the latest free of addr in the window, or -1. */
static int64_t recent_find(const hatf_amodel *m, uint64_t addr)
{
    for (uint32_t i = (uint32_t)hatf_hash64(addr, HATF_RECENT_BITS);; i = (i + 1) & RMASK) {
        const hatf_recent_slot *s = &m->rmap[i];
        if (s->gen != m->gen) return -1;
        if (s->addr == addr) return s->nr;
    }
}

/* Linear-probing deletion that shifts later members of the run back. */
static void recent_del(hatf_amodel *m, uint32_t i)
{
    for (uint32_t j = i;;) {
        j = (j + 1) & RMASK;
        if (m->rmap[j].gen != m->gen) break;
        uint32_t k = (uint32_t)hatf_hash64(m->rmap[j].addr, HATF_RECENT_BITS);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) { m->rmap[i] = m->rmap[j]; i = j; }
    }
    m->rmap[i].gen = 0;
}

/* hatf_amodel_freed plus the table. pre: addr != 0. */
static void enc_note_freed(hatf_amodel *m, uint64_t addr)
{
    uint32_t nr = m->nfreed;
    if (nr >= HATF_RECENT) {  /* free number nr - HATF_RECENT leaves the window */
        uint64_t old = m->recent[nr & (HATF_RECENT - 1)];
        for (uint32_t i = (uint32_t)hatf_hash64(old, HATF_RECENT_BITS);; i = (i + 1) & RMASK) {
            hatf_recent_slot *s = &m->rmap[i];
            if (s->gen != m->gen) break;
            if (s->addr == old) {
                if (s->nr == nr - HATF_RECENT) recent_del(m, i);
                break;
            }
        }
    }
    uint32_t i = (uint32_t)hatf_hash64(addr, HATF_RECENT_BITS);
    while (m->rmap[i].gen == m->gen && m->rmap[i].addr != addr) i = (i + 1) & RMASK;
    m->rmap[i] = (hatf_recent_slot){ addr, nr, m->gen };
    hatf_amodel_freed(m, addr);
}

static inline void put_varint(hatf_buf *out, uint64_t v)
{
    /* most codes are one byte and the buffer has room: no call */
    if (__builtin_expect(v < 0x80 && out->len < out->cap, 1)) { out->p[out->len++] = (uint8_t)v; return; }
    uint8_t *p = hatf_buf_reserve(out, HATF_VARINT_MAX);
    if (p) out->len += hatf_varint_put(p, v);
}

static void enc_freed(hatf_amodel *m, uint64_t addr, hatf_buf *out)
{
    if (!addr) { put_varint(out, 0); return; }
    int64_t i = map_find(m, addr);
    if (i >= 0) {
        uint32_t seq = m->map[i].seq;
        put_varint(out, 2 + (uint64_t)rank_of(m, seq));
        map_del(m, (uint32_t)i);
        enc_note_freed(m, addr);
        if (hatf_amodel_kill(m, seq)) out->failed = 1;
        return;
    }
    put_varint(out, 1);
    put_varint(out, hatf_zigzag((int64_t)(addr - m->last_esc)));
    m->last_esc = addr;
    enc_note_freed(m, addr);
}

static void enc_new(hatf_amodel *m, uint64_t size, int has_old, uint64_t old, uint64_t addr, hatf_buf *out)
{
    hatf_pred_slot *s = hatf_pred_get(m, size);
    if (s && s->head && m->seq_addr[s->head - 1] == addr) {
        put_varint(out, 0);
        s->head = m->pnext[s->head - 1];
    } else if (has_old && addr == old) {
        put_varint(out, 1);
    } else {
        uint64_t zz = hatf_zigzag((int64_t)(addr - m->last_new - hatf_chunk_guess(m->last_size)));
        uint64_t code = zz <= (UINT64_MAX - 3) / 2 ? 3 + 2 * zz : 2;
        int64_t nr;
        if (code != 3 && (nr = recent_find(m, addr)) >= 0) {
            uint64_t rc = 4 + 2 * (uint64_t)(m->nfreed - 1 - (uint32_t)nr);
            if (rc < code || code == 2) code = rc;
        }
        put_varint(out, code);
        if (code == 2) put_varint(out, addr);
    }
    if (addr && m->nseq < m->cap) {
        m->last_new = addr;
        m->last_size = size;
        map_put(m, addr, hatf_amodel_add(m, addr, size));
    }
}

void hatf_aenc_event(hatf_amodel *m, unsigned op, uint64_t size, uint64_t addr,
                     uint64_t new_addr, hatf_buf *out)
{
    switch (op) {
    case HATF_OP_ALLOC:
        enc_new(m, size, 0, 0, addr, out);
        break;
    case HATF_OP_FREE:
        enc_freed(m, addr, out);
        break;
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE:
        enc_freed(m, addr, out);
        enc_new(m, size, 1, addr, new_addr, out);
        break;
    default:
        break;
    }
}
