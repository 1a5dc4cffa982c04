/* temporary.h — temporary allocations (heaptrack's measure of short-lived
 * waste), counted by one rule for stats and stats --sites (analyze/stats.c,
 * analyze/sitecount.c): an object its own thread frees before that thread makes any
 * other allocation. Frees of other objects and other threads' calls in
 * between do not matter; a realloc counts as an allocation (its result can be
 * temporary, the block it replaced is not); a free by another thread is not
 * temporary. The caller says which frees end a live object (heaplive.h): a
 * free of an object a heap-destroy already ended is none.
 */
#ifndef ANALYZE_TEMPORARY_H
#define ANALYZE_TEMPORARY_H

#include <stdint.h>

#include "addrmap.h"

typedef struct temporary {
    /* thread id -> its newest object (rec: address, 0 when freed or none;
     * a: the caller's tag); the last thread's entry cached */
    addrmap newest;
    uint64_t last_thread;
    addrmap_entry *last;
    uint64_t count;   /* temporary allocations so far */
} temporary;

/* @return 0, or -1 out of memory (then temporary_free is still safe). */
int temporary_init(temporary *t);
void temporary_free(temporary *t);

/* Thread made an object at addr (not 0), charged to tag (a site, say).
 * @return 0, or -1 out of memory. */
static inline int temporary_made(temporary *t, uint64_t thread, uint64_t addr, uint32_t tag);

/* Thread ended the live object at addr (a free, or a realloc to size 0).
 * @return 1 when it was temporary (*tag: the tag it was made with, counted),
 * 0 when not, -1 out of memory. */
static inline int temporary_ended(temporary *t, uint64_t thread, uint64_t addr, uint32_t *tag);

/* (internal) the thread's newest-object entry, made on first use and cached
 * (NULL when out of memory). Inline below: stats calls them for every event. */
addrmap_entry *temporary_newest_(temporary *t, uint64_t thread);
static inline addrmap_entry *temporary_newest(temporary *t, uint64_t thread)
{
    return t->last && t->last_thread == thread ? t->last : temporary_newest_(t, thread);
}

static inline int temporary_made(temporary *t, uint64_t thread, uint64_t addr, uint32_t tag)
{
    addrmap_entry *e = temporary_newest(t, thread);
    if (!e) return -1;
    e->rec = addr;
    e->a = tag;
    return 0;
}

static inline int temporary_ended(temporary *t, uint64_t thread, uint64_t addr, uint32_t *tag)
{
    addrmap_entry *e = temporary_newest(t, thread);
    if (!e) return -1;
    if (!addr || e->rec != addr) return 0;
    e->rec = 0;
    *tag = e->a;
    t->count++;
    return 1;
}

#endif
