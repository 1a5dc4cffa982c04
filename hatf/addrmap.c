/* addrmap.c — open-addressing hash table of 64-bit keys (see addrmap.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "addrmap.h"

#define INITIAL_BITS 10
/* up to 2^21 slots (64 MiB) a table grows at half full, above at 3/4 (addrmap.h) */
#define HALF_FULL_BITS 21

/* A table of millions of entries is touched at random: on 2 MiB pages its
 * lookups (and prefetches) do not each wait for a page walk. */
#define HUGE_MIN ((size_t)2 << 20)

void *addrmap_big_alloc(size_t bytes)
{
    if (bytes < HUGE_MIN) return calloc(1, bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    madvise(p, bytes, MADV_HUGEPAGE);  /* a hint: without it (or THP off) 4 KiB pages */
    return p;
}

void addrmap_big_free(void *p, size_t bytes)
{
    if (bytes < HUGE_MIN) free(p);
    else if (p) munmap(p, bytes);
}

static int alloc_table(addrmap *m, unsigned bits)
{
    addrmap_entry *t = addrmap_big_alloc(((size_t)1 << bits) * sizeof *t);
    if (!t) return -1;
    m->t = t;
    m->mask = ((size_t)1 << bits) - 1;
    m->shift = 64 - bits;
    m->limit = bits <= HALF_FULL_BITS ? (size_t)1 << (bits - 1) : ((size_t)3 << bits) / 4;
    return 0;
}

int addrmap_init(addrmap *m)
{
    memset(m, 0, sizeof *m);
    return alloc_table(m, INITIAL_BITS);
}

void addrmap_clear(addrmap *m)
{
    memset(m->t, 0, (m->mask + 1) * sizeof *m->t);
    m->count = 0;
    m->has_zero = 0;
}

void addrmap_free(addrmap *m)
{
    if (m->t) addrmap_big_free(m->t, (m->mask + 1) * sizeof *m->t);
    memset(m, 0, sizeof *m);
}

addrmap_entry *addrmap_find_slow_(addrmap *m, uint64_t key)
{
    if (!key) return m->has_zero ? &m->zero : NULL;
    for (size_t i = addrmap_slot_of_(m, key);; i = (i + 1) & m->mask) {
        if (m->t[i].key == key) return &m->t[i];
        if (!m->t[i].key) return NULL;
    }
}

static int grow(addrmap *m)
{
    addrmap old = *m;
    unsigned bits = 64 - m->shift + 1;
    if (bits >= 8 * sizeof(size_t) - 6 || alloc_table(m, bits) < 0) return -1;
    for (size_t j = 0; j <= old.mask; j++) {
        if (!old.t[j].key) continue;
        size_t i = addrmap_slot_of_(m, old.t[j].key);
        while (m->t[i].key) i = (i + 1) & m->mask;
        m->t[i] = old.t[j];
    }
    addrmap_big_free(old.t, (old.mask + 1) * sizeof *old.t);
    return 0;
}

addrmap_entry *addrmap_put_slow_(addrmap *m, uint64_t key, int *added)
{
    *added = 0;
    if (!key) {
        if (!m->has_zero) {
            memset(&m->zero, 0, sizeof m->zero);
            m->has_zero = 1;
            m->count++;
            *added = 1;
        }
        return &m->zero;
    }
    if (m->count + 1 > m->limit && grow(m) < 0) {
        addrmap_entry *e = addrmap_find(m, key);  /* a full table can still update */
        return e;
    }
    size_t i = addrmap_slot_of_(m, key);
    for (;; i = (i + 1) & m->mask) {
        if (m->t[i].key == key) return &m->t[i];
        if (!m->t[i].key) break;
    }
    memset(&m->t[i], 0, sizeof m->t[i]);
    m->t[i].key = key;
    m->count++;
    *added = 1;
    return &m->t[i];
}

void addrmap_remove(addrmap *m, addrmap_entry *e)
{
    m->count--;
    if (e == &m->zero) { m->has_zero = 0; return; }
    /* backward shift: pull later entries of the probe run into the hole when
     * their home slot does not lie strictly between the hole and them */
    size_t hole = (size_t)(e - m->t);
    for (size_t i = (hole + 1) & m->mask; m->t[i].key; i = (i + 1) & m->mask) {
        size_t home = addrmap_slot_of_(m, m->t[i].key);
        if (((i - home) & m->mask) >= ((i - hole) & m->mask)) {
            m->t[hole] = m->t[i];
            hole = i;
        }
    }
    m->t[hole].key = 0;
}

long addrmap_index(addrmap *m, uint64_t id, int *added)
{
    size_t n = m->count;
    addrmap_entry *e = addrmap_put(m, id, added);
    if (!e) return -1;
    if (*added) e->a = (uint32_t)n;
    return (long)e->a;
}
