/* container_adec.c — the address model's decoder (codes: container_addr.h).
 *
 * One loop decodes the addresses of a batch of events. The rank of a freed
 * object is first looked for in the newest word of live bits, where three
 * frees in four find it (python3 and synthetic traces), and picked there
 * with pdep where the CPU has a fast one; varints of up to three bytes are
 * read without a loop (hatf_varint_next).
 */
#include <stdatomic.h>

#include "container_addr.h"
#include "container_format.h"
#include "cpu.h"
#include "hatf_check.h"

/* The allocation number of the live object of rank r (0 = most recent).
 * hw: HATF_ADEC_* (a constant in each copy of the loop).
 * pre: r < m->live. */
HATF_AINLINE uint32_t select_rank(const hatf_amodel *m, uint32_t r, int hw)
{
    HATF_PRE(r < m->live);
    const uint64_t *words = m->words;
    uint32_t top = m->nseq - 1, w = top >> 6, c;
    uint64_t x = words[w];
    if (__builtin_expect(r >= (c = hatf_popcount_(x, hw)), 0)) {
        /* down the superblock counts, then the group counts, then the words */
        uint32_t sb = top >> HATF_SB_SHIFT;
        while (r >= m->sbcount[sb]) r -= m->sbcount[sb--];
        uint32_t g = (sb << (HATF_SB_SHIFT - HATF_G_SHIFT)) + 7, gt = top >> HATF_G_SHIFT;
        if (g > gt) g = gt;
        while (r >= m->gcount[g]) r -= m->gcount[g--];
        w = (g << (HATF_G_SHIFT - 6)) + 7;
        if (w > top >> 6) w = top >> 6;
        while (r >= (c = hatf_popcount_(words[w], hw))) { r -= c; w--; }
        x = words[w];
    }
#ifdef __x86_64__
    if (hw == HATF_ADEC_BMI2) {
        /* the (c - 1 - r)-th lowest set bit of x (c: its bits), without a loop;
         * asm, so that no function needs the target attribute to compile */
        uint64_t bit;
        __asm__("pdep %2, %1, %0" : "=r"(bit) : "r"(1ull << (c - 1 - r)), "r"(x));
        return (w << 6) + (uint32_t)__builtin_ctzll(bit);
    }
#endif
    while (r--) x &= ~(1ull << (63 - __builtin_clzll(x)));
    return (w << 6) + 63 - (uint32_t)__builtin_clzll(x);
}

/* A freed address. @return 0 or -1 (bad code). */
HATF_AINLINE int freed(hatf_amodel *m, const uint8_t **pp, const uint8_t *end,
                       uint64_t *addr, int hw)
{
    uint64_t v, a;
    if (!hatf_varint_next(pp, end, &v)) return -1;
    if (v >= 2) {
        if (v - 2 >= m->live) return -1;
        uint32_t seq = select_rank(m, (uint32_t)(v - 2), hw);
        a = m->seq_addr[seq];
        *addr = a;
        m->recent[m->nfreed++ & (HATF_RECENT - 1)] = a;
        return hatf_amodel_kill(m, seq);
    }
    if (v == 0) { *addr = 0; return 0; }
    if (!hatf_varint_next(pp, end, &v)) return -1;
    a = m->last_esc += (uint64_t)hatf_unzigzag(v);
    *addr = a;
    m->recent[m->nfreed++ & (HATF_RECENT - 1)] = a;
    return 0;
}

/* The k-th most recently freed address (0 the newest). @return -1 if there is none. */
HATF_AINLINE int recent_free(const hatf_amodel *m, uint64_t k, uint64_t *a)
{
    if (k >= HATF_RECENT || k >= m->nfreed) return -1;
    *a = m->recent[(m->nfreed - 1 - k) & (HATF_RECENT - 1)];
    return 0;
}

/* A new address coded from a reference (codes v >= 3; container_addr.h). */
HATF_AINLINE int new_ref(hatf_amodel *m, uint64_t v, uint64_t size, uint64_t *addr)
{
    uint64_t a, k;
    if (__builtin_expect(m->coding == HATF_ACODE_MODEL2, 0)) {
        if (v & 1) {
            a = m->last_new + hatf_chunk_guess(m->last_size) + (uint64_t)hatf_unzigzag((v - 3) >> 1);
        } else if (recent_free(m, (v - 4) >> 1, &a)) {
            return -1;
        }
        *addr = a;
        return 0;
    }
    k = (v - 3) / 3;
    switch (v - 3 - 3 * k) {
    case 0:
        a = m->top + hatf_chunk_guess(m->top_size) + (uint64_t)hatf_unzigzag(k);
        if (a) hatf_amodel_fresh(m, a, size, 1);
        break;
    case 1:
        if (recent_free(m, k, &a)) return -1;
        break;
    default: {
        hatf_fresh_slot *f = hatf_fresh_of(m, size);
        if (!f || f->gen != m->gen) return -1;
        a = f->addr + hatf_chunk_guess(size) + (uint64_t)hatf_unzigzag(k);
        if (a) hatf_amodel_fresh(m, a, size, 0);
        break;
    }
    }
    *addr = a;
    return 0;
}

/* A new address of an object of this size (old: the realloc's old address). */
HATF_AINLINE int new_addr(hatf_amodel *m, const uint8_t **pp, const uint8_t *end,
                          uint64_t size, uint64_t old, uint64_t *addr)
{
    uint64_t v, a;
    if (!hatf_varint_next(pp, end, &v)) return -1;
    if (v == 0) {
        hatf_pred_slot *p = hatf_pred_get(m, size);
        if (!p || !p->head) return -1;
        a = m->seq_addr[p->head - 1];
        p->head = m->pnext[p->head - 1];
    } else if (v == 1) {
        a = old;
    } else if (v == 2) {
        if (!hatf_varint_next(pp, end, &a)) return -1;
        if (a && m->coding == HATF_ACODE_MODEL) hatf_amodel_fresh(m, a, size, 1);
    } else {
        if (new_ref(m, v, size, &a)) return -1;
    }
    *addr = a;
    if (a) {
        if (m->nseq >= m->cap) return -1;
        if (m->coding == HATF_ACODE_MODEL2) { m->last_new = a; m->last_size = size; }
        hatf_amodel_add(m, a, size);
    }
    return 0;
}

HATF_AINLINE uint32_t run_(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp,
                           const uint8_t *end, int hw)
{
    const uint8_t *p = *pp;
    uint32_t k;
    for (k = 0; k < n; k++) {
        hatf_event *ev = &e[k];
        unsigned op = ev->op;
        if (op == HATF_OP_FREE) {
            if (freed(m, &p, end, &ev->addr, hw)) break;
        } else if (op == HATF_OP_ALLOC) {
            if (new_addr(m, &p, end, ev->size, 0, &ev->addr)) break;
        } else if (op <= HATF_OP_REALLOC_FREE) {
            if (freed(m, &p, end, &ev->addr, hw) ||
                new_addr(m, &p, end, ev->size, ev->addr, &ev->new_addr))
                break;
        }
    }
    *pp = p;
    return k;
}

/* Rank selection counts bits and picks one; the portable build lacks the
 * instructions for both, so further copies of the loop use them where the
 * CPU has them (hatf_adec_isa). */
#if defined(__x86_64__) || defined(__i386__)
static __attribute__((noinline, target("popcnt"))) uint32_t
run_popcnt(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp, const uint8_t *end)
{
    return run_(m, e, n, pp, end, HATF_ADEC_POPCNT);
}
#endif

#ifdef __x86_64__
static __attribute__((noinline, target("popcnt"))) uint32_t
run_bmi2(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp, const uint8_t *end)
{
    return run_(m, e, n, pp, end, HATF_ADEC_BMI2);
}
#endif

static __attribute__((noinline)) uint32_t
run_plain(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp, const uint8_t *end)
{
#ifdef __POPCNT__
    return run_(m, e, n, pp, end, HATF_ADEC_POPCNT);
#else
    return run_(m, e, n, pp, end, HATF_ADEC_PLAIN);
#endif
}

/* Codings 4 and 5 (HATF_ACODE_DELTA, _N): every address is the previous
 * non-NULL one plus a zigzag varint; no model. With nul (coding 5) the code
 * 0 is NULL and the others are one up. @return 0 or -1 (the stream ended). */
HATF_AINLINE int delta_next(uint64_t *prev, const uint8_t **pp, const uint8_t *end, uint64_t *addr, int nul)
{
    uint64_t v;
    if (!hatf_varint_next(pp, end, &v)) return -1;
    uint64_t a = nul && !v ? 0 : *prev + (uint64_t)hatf_unzigzag(v - (uint64_t)nul);
    if (a) *prev = a;
    *addr = a;
    return 0;
}

static uint32_t run_delta(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint64_t prev = m->last_new;
    int nul = m->coding == HATF_ACODE_DELTA_N;
    uint32_t k;
    for (k = 0; k < n; k++) {
        hatf_event *ev = &e[k];
        unsigned op = ev->op;
        if (op > HATF_OP_REALLOC_FREE) continue;
        if (delta_next(&prev, &p, end, &ev->addr, nul)) break;
        if (op >= HATF_OP_REALLOC_INPLACE && delta_next(&prev, &p, end, &ev->new_addr, nul)) break;
    }
    m->last_new = prev;
    *pp = p;
    return k;
}

/* Coding 6 (HATF_ACODE_REF, container_addr.h): one address, is_new an
 * alloc's or a realloc's new one. @return 0 or -1 (the stream ended, or a
 * distance back past the group's first address). */
HATF_AINLINE int ref_next(hatf_amodel *m, uint64_t *prev, const uint8_t **pp, const uint8_t *end, uint64_t *addr,
                          int is_new)
{
    uint64_t v, a;
    if (!hatf_varint_next(pp, end, &v)) return -1;
    if (!v) {
        *addr = 0;
        return 0;
    }
    if (v & 1) {
        uint64_t back = (v - 1) >> 1;
        if (back >= m->nhist) return -1;
        a = m->hist[m->nhist - 1 - back];
    } else if (v == 2) {
        if (!hatf_varint_next(pp, end, &a)) return -1;
        if (!a) return -1;  /* the encoder codes NULL as 0 */
    } else {
        a = (is_new ? m->prev_new : *prev) + (uint64_t)hatf_unzigzag((v - 4) >> 1);
        if (!a) return -1;
    }
    if (m->nhist == m->hist_cap && hatf_amodel_grow_hist_(m)) return -1;
    m->hist[m->nhist++] = a;
    *prev = a;
    if (is_new) m->prev_new = a;
    *addr = a;
    return 0;
}

static uint32_t run_ref(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint64_t prev = m->last_new;
    uint32_t k;
    for (k = 0; k < n; k++) {
        hatf_event *ev = &e[k];
        unsigned op = ev->op;
        if (op > HATF_OP_REALLOC_FREE) continue;
        if (ref_next(m, &prev, &p, end, &ev->addr, op == HATF_OP_ALLOC)) break;
        if (op >= HATF_OP_REALLOC_INPLACE && ref_next(m, &prev, &p, end, &ev->new_addr, 1)) break;
    }
    m->last_new = prev;
    *pp = p;
    return k;
}

static int adec_isa_of_cpu(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (!hatf_cpu_popcnt()) return HATF_ADEC_PLAIN;
#ifdef __x86_64__
    if (hatf_cpu_pdep_fast()) return HATF_ADEC_BMI2;
#endif
    return HATF_ADEC_POPCNT;
#else
    return HATF_ADEC_PLAIN;
#endif
}

int hatf_adec_isa(void)
{
    /* once a process: on AMD it costs a CPUID (hatf/cpu.h); threads racing
     * here find the same answer */
    static _Atomic int isa = -1;
    int v = atomic_load_explicit(&isa, memory_order_relaxed);
    if (v < 0) atomic_store_explicit(&isa, v = adec_isa_of_cpu(), memory_order_relaxed);
    return v;
}

uint32_t hatf_adec_run(hatf_amodel *m, hatf_event *e, uint32_t n, const uint8_t **pp,
                       const uint8_t *end, int isa)
{
    if (m->coding == HATF_ACODE_REF) return run_ref(m, e, n, pp, end);
    if (hatf_acode_is_fast(m->coding)) return run_delta(m, e, n, pp, end);
#ifdef __x86_64__
    if (isa == HATF_ADEC_BMI2) return run_bmi2(m, e, n, pp, end);
#endif
#if defined(__x86_64__) || defined(__i386__)
    if (isa == HATF_ADEC_POPCNT) return run_popcnt(m, e, n, pp, end);
#endif
    (void)isa;
    return run_plain(m, e, n, pp, end);
}
