/* addrmap.h — an open-addressing hash table keyed by 64-bit values (addresses,
 * thread and heap ids), for the readers' causal order (causal.c) and thread
 * index (container_read.c), and for the tools (stats, validate, the replay
 * compiler, through analyze/addrmap.h). Not installed.
 *
 * Its functions carry hatf_ names (the defines below: libhatf.a defines no
 * name outside hatf_); the analysis links them from libhatf.a.
 *
 * Linear probing with Fibonacci hashing (addresses differ mostly in their
 * middle bits; multiplying by 2^64/phi spreads them), at most half full up to
 * 64 MiB (a lookup probes 1.5 slots on average, 2.5 for a new key, against
 * 2.5 and 8.5 at 3/4: the tools' cost per event) and 3/4 above (a table of
 * millions of objects keeps to its memory), and backward-shift deletion, so there are no tombstones and lookups stay short
 * however many objects come and go. One entry is 32 bytes: millions of live
 * objects cost tens of MB. Key 0 is stored aside, so every key is allowed.
 */
#ifndef HATF_ADDRMAP_H
#define HATF_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>

#define addrmap_big_alloc hatf_addrmap_big_alloc_
#define addrmap_big_free hatf_addrmap_big_free_
#define addrmap_init hatf_addrmap_init_
#define addrmap_free hatf_addrmap_free_
#define addrmap_clear hatf_addrmap_clear_
#define addrmap_find_slow_ hatf_addrmap_find_slow_
#define addrmap_put_slow_ hatf_addrmap_put_slow_
#define addrmap_remove hatf_addrmap_remove_
#define addrmap_index hatf_addrmap_index_

typedef struct addrmap_entry {
    uint64_t key;
    uint64_t size;   /* the user's values */
    uint64_t rec;
    uint32_t a, b;
} addrmap_entry;

typedef struct addrmap {
    addrmap_entry *t;
    size_t mask;      /* capacity - 1 (capacity a power of two) */
    size_t count;     /* entries, key 0 included */
    size_t limit;     /* the count at which the table grows */
    unsigned shift;   /* 64 - log2(capacity) */
    int has_zero;
    addrmap_entry zero;
} addrmap;

/* The home slot of a nonzero key. */
static inline size_t addrmap_slot_of_(const addrmap *m, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> m->shift);
}

/* Start loading key's home slot, for a find or put a few events later: a big
 * table is a cache miss per key, and misses started together overlap.
 * always_inline: gcc 12 takes a static function made only of prefetches for a
 * const one and drops the call whose result is unused. */
static inline __attribute__((always_inline)) void addrmap_prefetch(const addrmap *m, uint64_t key)
{
    size_t i = addrmap_slot_of_(m, key);
    __builtin_prefetch(&m->t[i]);
    /* and the slots after it, two to a line: a remove reads on to the end of
     * the probe run (2-3 slots at the table's load, under 3/4) */
    __builtin_prefetch(&m->t[(i + 2) & m->mask]);
}

/* Zeroed memory for any table touched at random, on 2 MiB pages from that size
 * on (each lookup and prefetch in it would otherwise wait for a page walk).
 * Free with addrmap_big_free and the same size. @return NULL when out of memory. */
void *addrmap_big_alloc(size_t bytes);
void addrmap_big_free(void *p, size_t bytes);

/* @return 0, or -1 when out of memory. */
int addrmap_init(addrmap *m);
void addrmap_free(addrmap *m);

/* Remove every entry, keeping the table. */
void addrmap_clear(addrmap *m);

/* (internal) the lookups past their first probe */
addrmap_entry *addrmap_find_slow_(addrmap *m, uint64_t key);
addrmap_entry *addrmap_put_slow_(addrmap *m, uint64_t key, int *added);

/* @return the entry for key, or NULL. Valid until the next insert or remove.
 * The first probe inline: the tools look up every event's address, and most
 * are found, or found missing, there. */
static inline addrmap_entry *addrmap_find(addrmap *m, uint64_t key)
{
    if (__builtin_expect(key != 0, 1)) {
        addrmap_entry *e = &m->t[addrmap_slot_of_(m, key)];
        if (e->key == key) return e;
        if (!e->key) return NULL;
    }
    return addrmap_find_slow_(m, key);
}

/* Find or add key (a new entry is zeroed but for its key; *added says which).
 * @return the entry, or NULL when out of memory. */
static inline addrmap_entry *addrmap_put(addrmap *m, uint64_t key, int *added)
{
    if (__builtin_expect(key != 0 && m->count + 1 <= m->limit, 1)) {
        addrmap_entry *e = &m->t[addrmap_slot_of_(m, key)];
        *added = 0;
        if (e->key == key) return e;
        if (!e->key) {
            *e = (addrmap_entry){ .key = key };
            m->count++;
            *added = 1;
            return e;
        }
    }
    return addrmap_put_slow_(m, key, added);
}

/* Remove an entry returned by find/put. Entries after it in probe order may
 * move into its slot: a scan that removes must look at the same slot again. */
void addrmap_remove(addrmap *m, addrmap_entry *e);

/* Slot i of the table (0 <= i <= mask) if it is used, else NULL. Key 0 is
 * reported through addrmap_zero(). */
static inline addrmap_entry *addrmap_slot(addrmap *m, size_t i)
{
    return m->t[i].key ? &m->t[i] : NULL;
}
static inline addrmap_entry *addrmap_zero(addrmap *m) { return m->has_zero ? &m->zero : NULL; }

/* Dense numbering of ids (threads, heaps): the index of id in order of first
 * appearance, kept in the entry's a. @return the index, or -1 out of memory. */
long addrmap_index(addrmap *m, uint64_t id, int *added);

#endif
