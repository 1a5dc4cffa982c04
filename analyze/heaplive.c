/* heaplive.c — live objects by address across heap destroys (see heaplive.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "heaplive.h"

#define NONE UINT32_MAX

int heaplive_init(heaplive *l, heaplive_fn *change, void *ctx)
{
    memset(l, 0, sizeof *l);
    l->change = change;
    l->ctx = ctx;
    if (addrmap_init(&l->map) || addrmap_init(&l->cell_index)) return -1;
    return 0;
}

void heaplive_free(heaplive *l)
{
    addrmap_free(&l->map);
    addrmap_free(&l->cell_index);
    free(l->cells);
    free(l->first);
    memset(l, 0, sizeof *l);
}

long heaplive_cell_of(heaplive *l, uint32_t heap, uint32_t tag)
{
    int added;
    long c = addrmap_index(&l->cell_index, (uint64_t)heap << 32 | tag, &added);
    if (c < 0 || !added) return c;
    if (heap >= l->capheaps) {
        size_t cap = l->capheaps ? 2 * l->capheaps : 16;
        while (cap <= heap) cap *= 2;
        uint32_t *f = realloc(l->first, cap * sizeof *f);
        if (!f) return -1;
        memset(f + l->capheaps, 0xff, (cap - l->capheaps) * sizeof *f);  /* NONE */
        l->first = f;
        l->capheaps = cap;
    }
    if (l->ncells == l->capcells) {
        size_t cap = l->capcells ? 2 * l->capcells : 64;
        heaplive_cell *v = realloc(l->cells, cap * sizeof *v);
        if (!v) return -1;
        l->cells = v;
        l->capcells = cap;
    }
    /* addrmap_index numbers new keys densely: c == ncells */
    l->cells[c] = (heaplive_cell){ .tag = tag, .heap = heap, .next = l->first[heap] };
    l->first[heap] = (uint32_t)c;
    l->ncells++;
    return c;
}

int heaplive_add(heaplive *l, uint64_t addr, uint64_t size, uint32_t cell)
{
    if (!addr) return 0;
    return heaplive_put(l, addr, size, cell) ? 0 : -1;
}

void heaplive_kill(heaplive *l, addrmap_entry *e)
{
    HATF_PRE(l->keep_freed && !heaplive_dead_(l, e));
    heaplive_change_(l, &l->cells[e->a], -1, -(int64_t)e->size);
    e->b = HEAPLIVE_KILLED;
    l->dead++;
}

int heaplive_remove(heaplive *l, uint64_t addr)
{
    addrmap_entry *e = addrmap_find(&l->map, addr);
    if (!e) return 0;
    if (heaplive_dead_(l, e)) {
        if (!l->keep_freed) {
            l->dead--;
            addrmap_remove(&l->map, e);
        }
        return 0;
    }
    heaplive_end(l, e);
    return 1;
}

int heaplive_live(heaplive *l, uint64_t addr)
{
    addrmap_entry *e = addrmap_find(&l->map, addr);
    return e && !heaplive_dead_(l, e);
}

void heaplive_destroy_heap(heaplive *l, uint32_t heap)
{
    if (heap >= l->capheaps) return;  /* nothing ever allocated in it */
    for (uint32_t i = l->first[heap]; i != NONE; i = l->cells[i].next) {
        heaplive_cell *c = &l->cells[i];
        if (!c->objects) continue;
        l->dead += c->objects;
        heaplive_change_(l, c, -(int64_t)c->objects, -(int64_t)c->bytes);
        c->gen++;
    }
    if (l->keep_freed || l->dead < 65536 || l->dead < l->objects) return;
    /* sweep (address 0 is never added); a removal shifts later entries back into slot i: look at it again */
    for (size_t i = 0; i <= l->map.mask;) {
        addrmap_entry *e = addrmap_slot(&l->map, i);
        if (e && heaplive_dead_(l, e)) { heaplive_remove(l, e->key); continue; }
        i++;
    }
}

int heaplive_event(heaplive *l, addrmap *heaps, const hatf_event *ev, heaplive_cell_fn *cell_of, void *ctx)
{
    int added;
    if (ev->op == HATF_OP_FREE) {
        if (ev->addr) heaplive_remove(l, ev->addr);
        return 0;
    }
    if (ev->op == HATF_OP_HEAP_DESTROY) {
        addrmap_entry *h = addrmap_find(heaps, ev->heap);
        if (h) heaplive_destroy_heap(l, h->a);  /* not there: nothing was allocated in it */
        return 0;
    }
    if ((ev->op != HATF_OP_ALLOC && !hatf_op_is_realloc(ev->op)) || hatf_event_failed(ev)) return 0;
    if (ev->op != HATF_OP_ALLOC && ev->op != HATF_OP_REALLOC_NEW && ev->addr) heaplive_remove(l, ev->addr);
    uint64_t addr = ev->op == HATF_OP_ALLOC ? ev->addr : ev->new_addr;
    if (ev->op == HATF_OP_REALLOC_FREE || !addr) return 0;
    long heap = addrmap_index(heaps, ev->heap, &added);
    long cell = heap < 0 ? -1 : cell_of(ctx, (uint32_t)heap, ev);
    return cell < 0 ? -1 : heaplive_add(l, addr, ev->size, (uint32_t)cell);
}
