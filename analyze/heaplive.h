/* heaplive.h — live objects by address, across heap destroys, for hatrace
 * stats (analyze/stats.c), stats --sites (analyze/sitecount.c) and validate
 * (analyze/validate.c), so all count by one rule (docs/tools.md, "Live objects"): an allocation adds an object to the
 * event's heap (replacing one still live at that address), a free removes it
 * whatever its heap, and a heap-destroy ends every object still live in it.
 *
 * Each object is charged to a cell: a (heap, tag) pair the caller chooses (a
 * cell per heap for stats, per heap and site for --sites). Every change of a
 * cell's live objects and bytes is passed to the caller's callback with the
 * cell's tag and heap. One table can serve two counts of the same events
 * (hatrace report: the sites count by (heap, site), stats by heap through the
 * callback's heap, and stats asks heaplive_live before the sites change it). A heap-destroy costs O(cells of that heap): each cell has a
 * generation, bumped at destroy, that its entries remember; entries of an
 * older generation are dead and swept out when they outnumber the live ones.
 *
 * With keep_freed (validate, analyze/validate.c), a free leaves its entry in
 * the table marked freed and nothing is swept: a later release of the
 * address is told apart as a double free (HEAPLIVE_FREED) or one after its
 * heap's destroy (HEAPLIVE_ENDED), and the entry's rec field, which heaplive
 * never touches, keeps what the caller writes there (validate: the record that
 * made or ended the object).
 */
#ifndef ANALYZE_HEAPLIVE_H
#define ANALYZE_HEAPLIVE_H

#include <stdint.h>

#include "addrmap.h"
#include "hatf.h"

/* Cell tag's (in heap) live objects and bytes change by objects, bytes
 * (negative: ended). */
typedef void heaplive_fn(void *ctx, uint32_t tag, uint32_t heap, int64_t objects, int64_t bytes);

typedef struct heaplive_cell {
    uint64_t objects, bytes;   /* live now */
    uint32_t tag, heap, gen;
    uint32_t next;             /* next cell of the same heap, UINT32_MAX: none */
} heaplive_cell;

typedef struct heaplive {
    addrmap map;        /* address -> size, a = cell, b = the cell's generation */
    addrmap cell_index; /* heap << 32 | tag -> cell */
    heaplive_cell *cells;
    uint32_t *first;    /* per heap: its first cell, UINT32_MAX: none */
    size_t ncells, capcells, capheaps;
    uint64_t objects;   /* live, all cells */
    uint64_t dead;      /* dead entries still in map */
    heaplive_fn *change;
    void *ctx;
    int keep_freed;     /* set after heaplive_init: frees leave their entry (above) */
} heaplive;

/* An entry's b when its object was freed (keep_freed), or ended by
 * heaplive_kill; a cell's generation never reaches them (each destroy of a
 * cell with live objects bumps it by one). */
#define HEAPLIVE_FREED UINT32_MAX
#define HEAPLIVE_KILLED (UINT32_MAX - 1)

enum { HEAPLIVE_LIVE, HEAPLIVE_FREED_OBJ, HEAPLIVE_ENDED };

/* change: NULL when no count follows the cells (validate).
 * @return 0, or -1 out of memory (then heaplive_free is still safe). */
int heaplive_init(heaplive *l, heaplive_fn *change, void *ctx);
void heaplive_free(heaplive *l);

/* The cell of heap (the caller's dense heap number) and tag, made on first use.
 * @return its number, or -1 out of memory. */
long heaplive_cell_of(heaplive *l, uint32_t heap, uint32_t tag);

/* A new object at addr in cell (addr 0, a failed call, adds nothing).
 * @return 0, or -1 out of memory. */
int heaplive_add(heaplive *l, uint64_t addr, uint64_t size, uint32_t cell);

/* (internal) whether entry e's object is not live (freed or ended), and a
 * change of cell c's counts, told to the callback. */
static inline int heaplive_dead_(const heaplive *l, const addrmap_entry *e)
{
    return e->b != l->cells[e->a].gen;
}
static inline void heaplive_change_(heaplive *l, heaplive_cell *c, int64_t objects, int64_t bytes)
{
    c->objects += (uint64_t)objects;
    c->bytes += (uint64_t)bytes;
    l->objects += (uint64_t)objects;
    if (l->change) l->change(l->ctx, c->tag, c->heap, objects, bytes);
}

/* heaplive_add for any addr (0 too: only with keep_freed, as nothing is swept
 * then), replacing what the address held. Inline: validate calls it for
 * every allocation. @return its entry (valid until the next add or remove;
 * rec is the caller's), or NULL out of memory. */
static inline addrmap_entry *heaplive_put(heaplive *l, uint64_t addr, uint64_t size, uint32_t cell)
{
    int added;
    addrmap_entry *e = addrmap_put(&l->map, addr, &added);
    if (!e) return NULL;
    if (!added && heaplive_dead_(l, e)) l->dead--;
    else if (!added)  /* address already live (validate reports it): replace */
        heaplive_change_(l, &l->cells[e->a], -1, -(int64_t)e->size);
    e->size = size;
    e->a = cell;
    e->b = l->cells[cell].gen;
    heaplive_change_(l, &l->cells[cell], 1, (int64_t)size);
    return e;
}

/* The entry at addr whatever its state (heaplive_state), or NULL. */
static inline addrmap_entry *heaplive_find(heaplive *l, uint64_t addr) { return addrmap_find(&l->map, addr); }

/* HEAPLIVE_LIVE, HEAPLIVE_FREED_OBJ (keep_freed: freed since it was made) or
 * HEAPLIVE_ENDED (its heap was destroyed while it lived). */
static inline int heaplive_state(const heaplive *l, const addrmap_entry *e)
{
    if (e->b == l->cells[e->a].gen) return HEAPLIVE_LIVE;
    return e->b == HEAPLIVE_FREED ? HEAPLIVE_FREED_OBJ : HEAPLIVE_ENDED;
}

/* The cell an entry's object is charged to. */
static inline const heaplive_cell *heaplive_cell_at(const heaplive *l, const addrmap_entry *e)
{
    return &l->cells[e->a];
}

/* End the live object of entry e (from heaplive_find or heaplive_put), as
 * heaplive_remove would. e stays valid with keep_freed (marked freed). */
static inline void heaplive_end(heaplive *l, addrmap_entry *e)
{
    heaplive_change_(l, &l->cells[e->a], -1, -(int64_t)e->size);
    if (!l->keep_freed) {
        addrmap_remove(&l->map, e);
        return;
    }
    e->b = HEAPLIVE_FREED;
    l->dead++;
}

/* keep_freed: end the live object of entry e as its heap's destroy would
 * (HEAPLIVE_ENDED): for an object made in a heap already destroyed. */
void heaplive_kill(heaplive *l, addrmap_entry *e);

/* Remove the object at addr. @return 1 if it was live, 0 if not. */
int heaplive_remove(heaplive *l, uint64_t addr);

/* @return 1 if an object is live at addr (heaplive_remove would end it), 0 if not. */
int heaplive_live(heaplive *l, uint64_t addr);

/* Start loading the entries of the event's addresses, some events before it
 * adds or removes them (lookahead.h). always_inline: see addrmap_prefetch. */
static inline __attribute__((always_inline)) void heaplive_prefetch(const heaplive *l, const hatf_event *ev)
{
    if (ev->addr) addrmap_prefetch(&l->map, ev->addr);
    if (ev->new_addr && ev->new_addr != ev->addr) addrmap_prefetch(&l->map, ev->new_addr);
}

/* End every object still live in heap. */
void heaplive_destroy_heap(heaplive *l, uint32_t heap);

/* The cell (heaplive_cell_of) of the object ev makes, in dense heap heap.
 * @return it, or -1 out of memory. */
typedef long heaplive_cell_fn(void *ctx, uint32_t heap, const hatf_event *ev);

/* Follow one event by the rule above, for a count that charges objects to
 * cells of its own (the exports): a free ends its object, a heap-destroy
 * its heap's, an alloc or realloc that made an object ends the block it
 * replaced and adds the new one in cell_of's cell; a failed call changes
 * nothing. heaps: heap id -> dense number (addrmap_index). @return 0, or -1
 * out of memory. */
int heaplive_event(heaplive *l, addrmap *heaps, const hatf_event *ev, heaplive_cell_fn *cell_of, void *ctx);

#endif
