/* sitecount.c — the allocation sites' figures (see sitecount.h). */
#include <stdlib.h>
#include <string.h>

#include "sitecount.h"


static site *site_of(sitecount *st, uint64_t stack, uint32_t *pos)
{
    int added;
    long i = addrmap_index(&st->index, stack, &added);
    if (i < 0) return NULL;
    if (added) {
        if (st->n == st->cap) {
            size_t c = st->cap ? st->cap * 2 : 256;
            site *v = realloc(st->v, c * sizeof *v);
            if (!v) return NULL;
            st->v = v, st->cap = c;
        }
        st->v[st->n++] = (site){ .stack = stack, .cell = UINT32_MAX };
    }
    *pos = (uint32_t)i;
    return &st->v[i];
}

/* Site pos's live objects and bytes change by n, bytes; its peak follows,
 * and the whole heap's. A site that changes for the first time since the
 * heap's latest peak keeps what it held then: the heap-wide peak is where
 * stats takes max_live_bytes, so the sites' figures at it add up to that. */
static void site_live(void *ctx, uint32_t pos, uint32_t heap, int64_t n, int64_t bytes)
{
    sitecount *st = ctx;
    if (st->observe) st->observe(st->observe_ctx, st->heap_ids[heap], n, bytes);
    site *s = &st->v[pos];
    if (s->tag != st->peak_no) {
        s->tag = st->peak_no;
        s->at_peak_objects = s->live_objects;
        s->at_peak_bytes = s->live_bytes;
    }
    s->live_objects += (uint64_t)n;
    s->live_bytes += (uint64_t)bytes;
    if (s->live_objects > s->peak_objects) s->peak_objects = s->live_objects;
    if (s->live_bytes > s->peak_bytes) s->peak_bytes = s->live_bytes;
    st->live_bytes += (uint64_t)bytes;
    if (st->live_bytes > st->max_live_bytes) {
        st->max_live_bytes = st->live_bytes;
        st->peak_no++;  /* every site holds now what it will hold at this peak */
        st->peak_time = st->now;
        st->peak_record = st->now_record;
    }
}

/* After the last event: each site's figures at the heap's peak. */
void sitecount_settle(sitecount *st)
{
    for (size_t i = 0; i < st->n; i++) {
        site *s = &st->v[i];
        if (s->tag == st->peak_no) continue;  /* changed since: kept when it did */
        s->at_peak_objects = s->live_objects;
        s->at_peak_bytes = s->live_bytes;
    }
}

/* A free (or realloc to 0) of the live object at addr by ev's thread. */
static int note_free(sitecount *st, const hatf_event *ev, uint64_t addr)
{
    uint32_t pos;
    int t = temporary_ended(&st->tmp, ev->thread, addr, &pos);
    if (t > 0) st->v[pos].temporary++;
    return t < 0 ? -1 : 0;
}

static int add_event(sitecount *st, const hatf_event *ev)
{
    int added;
    uint32_t pos;
    switch (ev->op) {
    case HATF_OP_ALLOC:
    case HATF_OP_REALLOC_NEW:
    case HATF_OP_REALLOC_INPLACE:
    case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_FREE: {
        hatf_attrs a;
        hatf_event_attrs(ev, &a);
        uint64_t stack = hatf_attrs_get(&a, HATF_A_STACK, 0);
        st->records++;
        if (stack) st->stacked++;
        site *s = site_of(st, stack, &pos);
        if (!s) return -1;
        s->calls++;
        if (hatf_event_failed_by(ev, &a)) return 0;  /* a call only: no object made, a realloc's block left as it was */
        int ended = ev->op != HATF_OP_ALLOC && ev->op != HATF_OP_REALLOC_NEW && ev->addr &&
                    heaplive_remove(&st->live, ev->addr);
        if (ev->op == HATF_OP_REALLOC_FREE) return ended ? note_free(st, ev, ev->addr) : 0;
        uint64_t addr = ev->op == HATF_OP_ALLOC ? ev->addr : ev->new_addr;
        if (!addr) return 0;  /* a failed call: its (often absurd) size made no object, as in stats */
        if (temporary_made(&st->tmp, ev->thread, addr, pos)) return -1;
        s->bytes += ev->size;
        if (ev->heap != st->last_heap_id || !st->nheaps) {  /* most events stay in one heap */
            long heap = addrmap_index(&st->heaps, ev->heap, &added);
            if (heap < 0) return -1;
            if (added && !(st->nheaps & (st->nheaps - 1))) {  /* 0, 1, 2, 4...: room for twice as many */
                uint64_t *ids = realloc(st->heap_ids, (st->nheaps ? 2 * st->nheaps : 1) * sizeof *ids);
                if (!ids) return -1;
                st->heap_ids = ids;
            }
            if (added) st->heap_ids[heap] = ev->heap;
            st->last_heap_id = ev->heap;
            st->last_heap = (uint32_t)heap;
            st->nheaps += added;
        }
        if (s->cell == UINT32_MAX || s->heap != st->last_heap) {
            long cell = heaplive_cell_of(&st->live, st->last_heap, pos);
            if (cell < 0) return -1;
            s->heap = st->last_heap;
            s->cell = (uint32_t)cell;
        }
        return heaplive_add(&st->live, addr, ev->size, s->cell);
    }
    case HATF_OP_FREE:
        /* only a free that ends a live object (not one a heap-destroy ended) */
        return ev->addr && heaplive_remove(&st->live, ev->addr) ? note_free(st, ev, ev->addr) : 0;
    case HATF_OP_HEAP_DESTROY: {
        addrmap_entry *h = addrmap_find(&st->heaps, ev->heap);
        if (h) heaplive_destroy_heap(&st->live, h->a);  /* not there: nothing was allocated in it */
        return 0;
    }
    default:
        return 0;
    }
}

/* The event as the timelines count it (after add_event). */
static void add_to_timelines(sitecount *st, const hatf_event *ev)
{
    int kind = 0;
    uint64_t bytes = 0;
    if (ev->op == HATF_OP_FREE) {
        kind = ev->addr ? TIMELINE_FREE : 0;
    } else if (ev->op == HATF_OP_ALLOC || hatf_op_is_realloc(ev->op)) {
        kind = TIMELINE_ALLOC;
        /* the bytes of an object made, as the sites count them */
        uint64_t addr = ev->op == HATF_OP_ALLOC ? ev->addr : ev->new_addr;
        if (ev->op != HATF_OP_REALLOC_FREE && addr && !hatf_event_failed(ev)) bytes = ev->size;
    }
    timeline_add(st->by_time, ev->time, kind, bytes, st->live_bytes, st->live.objects);
    timeline_add(st->by_record, st->now_record, kind, bytes, st->live_bytes, st->live.objects);
}

int sitecount_event(void *ctx, const lookahead_item *x)
{
    sitecount *st = ctx;
    const hatf_event *ev = &x->ev;
    if (ev->op == HATF_OP_COMMENT) return 0;  /* no time, nothing live changes */
    st->now = ev->time;
    st->now_record++;
    int rc = add_event(st, ev);
    if (!rc && st->by_time) add_to_timelines(st, ev);
    return rc;
}

void sitecount_detail_take(sitecount_detail *d, uint64_t x)
{
    while (d->next < d->nsnap && x >= timeline_end(d->tl, (d->next + 1) * SITECOUNT_DETAIL_EVERY - 1)) {
        uint64_t *b = d->bytes + d->next * d->nsites;
        for (size_t i = 0; i < d->st.n && i < d->nsites; i++) b[i] = d->st.v[i].live_bytes;
        d->next++;
    }
}

int sitecount_detail_event(void *ctx, const lookahead_item *x)
{
    sitecount_detail *d = ctx;
    if (x->ev.op == HATF_OP_COMMENT || d->st.now_record >= d->limit) return 0;
    sitecount_detail_take(d, d->by_records ? d->st.now_record + 1 : x->ev.time);
    return sitecount_event(&d->st, x);
}
void sitecount_detail_prefetch(void *ctx, const hatf_event *ev) { sitecount_prefetch(&((sitecount_detail *)ctx)->st, ev); }

int sitecount_init(sitecount *st)
{
    memset(st, 0, sizeof *st);
    return addrmap_init(&st->index) || addrmap_init(&st->heaps) || temporary_init(&st->tmp) ||
           heaplive_init(&st->live, site_live, st) ? -1 : 0;
}

void sitecount_free(sitecount *st)
{
    addrmap_free(&st->index);
    addrmap_free(&st->heaps);
    temporary_free(&st->tmp);
    heaplive_free(&st->live);
    free(st->heap_ids);
    free(st->v);
}
