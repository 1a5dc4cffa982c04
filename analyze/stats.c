/* stats.c — hatrace stats: the figures of the paper's Table 3 and more.
 *
 * Live objects are tracked in an address map as the events come in global
 * time order: alloc and realloc-new add an object, free and realloc-free
 * remove one, realloc-inplace replaces its size, realloc-move moves it, and
 * heap-destroy removes what is still live in that heap (heaplive.c, which
 * stats --sites shares; here a cell per heap). Peaks are taken after every
 * event. Addresses that are not live when freed are counted, not fatal
 * (validate reports them). Heaps that share a name (one per request, say) are
 * also summed per name.
 */
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "stats.h"

static __attribute__((noinline)) counts *table_get_slow(table *t, uint64_t id)
{
    int added;
    long i = addrmap_index(&t->index, id, &added);
    if (i < 0) return NULL;
    if (added) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 16;
            counts *v = realloc(t->v, cap * sizeof *v);
            if (!v) return NULL;
            t->v = v;
            t->cap = cap;
        }
        memset(&t->v[t->n], 0, sizeof t->v[0]);
        t->v[t->n].group = -1;
        t->v[t->n++].id = id;
    }
    t->last_id = id;
    t->last = (size_t)i;
    return &t->v[i];
}

/* id's counts, made on first use (NULL out of memory); the last id's without a lookup */
static inline counts *table_get(table *t, uint64_t id)
{
    return t->n && id == t->last_id ? &t->v[t->last] : table_get_slow(t, id);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The group of a newly seen heap, by its name in the container. @return 0, or HATF_E_NOMEM. */
static int heap_group(stats *st, counts *h)
{
    const char *nm = st->reader ? hatf_reader_heap_name(st->reader, h->id) : NULL;
    if (!nm) return 0;
    int added;
    addrmap_entry *e = addrmap_put(&st->name_index, name_hash(nm), &added);
    if (!e) return HATF_E_NOMEM;
    long g = -1;
    if (!added && strcmp(st->names[e->a].name, nm) == 0) g = e->a;
    for (size_t i = 0; g < 0 && !added && i < st->nnames; i++)  /* a hash collision */
        if (strcmp(st->names[i].name, nm) == 0) g = (long)i;
    if (g < 0) {
        if (st->nnames == st->capnames) {
            size_t cap = st->capnames ? 2 * st->capnames : 16;
            counts *v = realloc(st->names, cap * sizeof *v);
            if (!v) return HATF_E_NOMEM;
            st->names = v;
            st->capnames = cap;
        }
        g = (long)st->nnames++;
        memset(&st->names[g], 0, sizeof st->names[g]);
        st->names[g].name = nm;
        if (added) e->a = (uint32_t)g;
    }
    h->group = (int32_t)g;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const counts *)a)->name, ((const counts *)b)->name);
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const counts *)a)->id, y = ((const counts *)b)->id;
    return x < y ? -1 : x > y;
}

static unsigned hist_bucket(uint64_t size)
{
    return size ? 64 - (unsigned)__builtin_clzll(size) : 0;
}

/* The program's live bytes and objects change by n objects, bytes; the peaks
 * follow (an event ends objects before it makes one, so the peaks seen after
 * each change are those seen after each event). */
static inline void live_change(stats *st, int64_t n, int64_t bytes)
{
    st->live_objects += (uint64_t)n;
    st->live_bytes += (uint64_t)bytes;
    if (st->live_objects > st->max_live_objects) st->max_live_objects = st->live_objects;
    if (st->live_bytes > st->max_live_bytes) st->max_live_bytes = st->live_bytes;
}

/* And those of heap hpos and its name. */
static inline __attribute__((always_inline)) void heap_change(stats *st, uint32_t hpos, int64_t n, int64_t bytes)
{
    counts *h = &st->heaps.v[hpos];
    live_change(st, n, bytes);
    h->live_objects += (uint64_t)n;
    h->live_bytes += (uint64_t)bytes;
    if (h->live_objects > h->max_live_objects) h->max_live_objects = h->live_objects;
    if (h->live_bytes > h->max_live_bytes) h->max_live_bytes = h->live_bytes;
    if (h->group >= 0) {
        counts *g = &st->names[h->group];
        g->live_objects += (uint64_t)n;
        g->live_bytes += (uint64_t)bytes;
        if (g->live_objects > g->max_live_objects) g->max_live_objects = g->live_objects;
        if (g->live_bytes > g->max_live_bytes) g->max_live_bytes = g->live_bytes;
    }
}

/* heaplive's callbacks: our tags are the heaps */
static void heap_live(void *ctx, uint32_t hpos, uint32_t heap, int64_t n, int64_t bytes)
{
    (void)heap;
    heap_change(ctx, hpos, n, bytes);
}

static void summary_live(void *ctx, uint32_t hpos, uint32_t heap, int64_t n, int64_t bytes)
{
    (void)hpos, (void)heap;
    live_change(ctx, n, bytes);
}

void stats_heap_changed(void *ctx, uint64_t heap_id, int64_t n, int64_t bytes)
{
    stats *st = ctx;
    if (!st->last_known || heap_id != st->last_heap_id) {
        /* counted by us first: the heap is in the table */
        addrmap_entry *e = addrmap_find(&st->heaps.index, heap_id);
        if (!e) return;
        st->last_heap_id = heap_id;
        st->last_hpos = e->a;
        st->last_known = 1;
    }
    heap_change(st, st->last_hpos, n, bytes);
}

void stats_share_live(stats *st, heaplive *l) { st->shared = l; }

/* Whether the event's free ends a live object: it does so here, or the
 * sharing count will after this one. */
static int end_live(stats *st, uint64_t addr)
{
    return st->shared ? heaplive_live(st->shared, addr) : heaplive_remove(&st->live, addr);
}

/* A new live object, unless the sharing count adds it. @return 0 or -1 out of memory. */
static int add_live(stats *st, uint64_t addr, uint64_t size, const counts *h)
{
    return st->shared ? 0 : heaplive_add(&st->live, addr, size, h->cell);
}

/* A comment the recorder wrote for one of the program's own mappings
 * (docs/FORMAT.md, "Mappings and phases"): counted. */
static void count_mapping(stats *st, const hatf_event *ev)
{
    hatf_map m;
    if (!hatf_map_parse(ev, &m)) return;
    if (m.kind == HATF_MAP_MMAP) st->mmaps++, st->mmap_bytes += m.len;
    else if (m.kind == HATF_MAP_MUNMAP) st->munmaps++, st->munmap_bytes += m.len;
    else if (m.kind == HATF_MAP_MREMAP) st->mremaps++;
    else st->brks++, st->brk_bytes += m.delta;
}

static void counts_now(const stats *st, phase_counts *c)
{
    *c = (phase_counts){ st->records, st->allocs, st->frees, st->reallocs, st->total_bytes, st->live_bytes,
                         st->live_objects };
}

/* An event's counts per thread, heap and heap name, and by size and function
 * (h: its heap's, first: the heap's first event). @return 0, or HATF_E_NOMEM. */
static int count_detail(stats *st, const hatf_event *ev, counts *h, int first, const hatf_attrs *a)
{
    counts *t = table_get(&st->threads, ev->thread);
    if (!t || (first && heap_group(st, h))) return HATF_E_NOMEM;
    counts *g = h->group >= 0 ? &st->names[h->group] : NULL;
    if (g && (first || ev->op == HATF_OP_HEAP_CREATE)) g->id++;  /* ids can be reused (addresses) */

    unsigned fn = 0;
    if (hatf_attrs_has(a, HATF_A_FUNC))
        fn = a->value[HATF_A_FUNC] > 0 && a->value[HATF_A_FUNC] < HATF_FN_COUNT_ ? (unsigned)a->value[HATF_A_FUNC]
                                                                                : FUNC_SLOTS - 1;
    if (!fn) fn = hatf_plain_func(ev->op);  /* an absent func is the plain call */
    if (hatf_op_has_addr(ev->op)) st->funcs[fn]++;

    switch (ev->op) {
    case HATF_OP_ALLOC:
        t->allocs++; h->allocs++;
        if (g) g->allocs++;
        if (!ev->addr) break;  /* failed: its (often absurd) size made no object */
        t->bytes += ev->size; h->bytes += ev->size;
        if (g) g->bytes += ev->size;
        st->hist[hist_bucket(ev->size)]++;
        break;
    case HATF_OP_FREE:
        t->frees++; h->frees++;
        if (g) g->frees++;
        break;
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE:
        t->reallocs++; h->reallocs++;
        if (g) g->reallocs++;
        break;
    case HATF_OP_HEAP_DESTROY:
        h->destroy_frees += h->live_objects;
        h->destroy_bytes += h->live_bytes;
        if (g) g->destroy_frees += h->live_objects, g->destroy_bytes += h->live_bytes;
        break;
    default:
        break;
    }
    return 0;
}

static int add_event(stats *st, const hatf_event *ev)
{
    if (ev->op == HATF_OP_COMMENT && st->want_phases) {  /* the comment opens its phase */
        phase_counts now;
        counts_now(st, &now);
        if (phases_comment(&st->ph, ev->data, ev->data_len, &now)) return HATF_E_NOMEM;
    }
    st->records++;
    st->kinds[ev->op]++;
    if (ev->op == HATF_OP_COMMENT) {
        hatf_signal sig;
        if (!hatf_signal_parse(ev, &sig)) count_mapping(st, ev);
        else if (!sig.fatal) st->signals_handled++;
        else if (!st->died) st->died = 1, st->death = sig;
        return 0;
    }
    if (!st->timed || ev->time < st->first_time) st->first_time = ev->time;
    if (!st->timed || ev->time > st->last_time) st->last_time = ev->time;
    st->timed = 1;

    size_t nheaps = st->heaps.n;
    counts *h = table_get(&st->heaps, ev->heap);
    if (!h) return HATF_E_NOMEM;
    int first = st->heaps.n != nheaps;
    if (first) {
        uint32_t hpos = (uint32_t)(h - st->heaps.v);
        long cell = st->shared ? 0 : heaplive_cell_of(&st->live, hpos, hpos);
        if (cell < 0) return HATF_E_NOMEM;
        h->cell = (uint32_t)cell;
    }
    hatf_attrs a;
    a.present = 0;  /* most events carry none: nothing to decode */
    if (ev->data_len) hatf_event_attrs(ev, &a);
    /* the detail first: a heap-destroy's counts its objects before they end */
    if (!st->summary_only && count_detail(st, ev, h, first, &a)) return HATF_E_NOMEM;

    uint32_t tag;
    int ended;
    switch (ev->op) {
    case HATF_OP_ALLOC:
        st->allocs++;
        if (!ev->addr) {  /* failed: its (often absurd) size made no object */
            st->failed_allocs++;
            break;
        }
        st->total_bytes += ev->size;
        if (add_live(st, ev->addr, ev->size, h) ||
            temporary_made(&st->tmp, ev->thread, ev->addr, 0))
            return HATF_E_NOMEM;
        break;
    case HATF_OP_FREE:
        st->frees++;
        if (!ev->addr) st->free_null++;
        else if (!end_live(st, ev->addr)) st->unknown_frees++;
        else if (temporary_ended(&st->tmp, ev->thread, ev->addr, &tag) < 0) return HATF_E_NOMEM;
        break;
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE:
        st->reallocs++;
        /* a failed realloc left its block as it was (the requested size, often absurd, is not its size) */
        if (hatf_event_failed_by(ev, &a)) break;
        ended = ev->op != HATF_OP_REALLOC_NEW && ev->addr && end_live(st, ev->addr);
        if (ev->op != HATF_OP_REALLOC_NEW && ev->addr && !ended) st->unknown_frees++;
        if (ev->op == HATF_OP_REALLOC_FREE) {
            if (ended && temporary_ended(&st->tmp, ev->thread, ev->addr, &tag) < 0) return HATF_E_NOMEM;
        } else if (add_live(st, ev->new_addr, ev->size, h) ||
                   (ev->new_addr && temporary_made(&st->tmp, ev->thread, ev->new_addr, 0))) {
            return HATF_E_NOMEM;
        }
        break;
    case HATF_OP_HEAP_DESTROY:
        if (!st->shared) heaplive_destroy_heap(&st->live, (uint32_t)(h - st->heaps.v));
        break;
    default:
        break;
    }
    if (st->want_phases) phases_event(&st->ph, ev->time, st->live_bytes);
    return 0;
}

/* lookahead_run's callbacks */
int stats_count(void *ctx, const lookahead_item *x) { return add_event(ctx, &x->ev); }
void stats_prefetch(void *ctx, const hatf_event *ev) { heaplive_prefetch(&((stats *)ctx)->live, ev); }

stats *stats_new(hatf_source *s)
{
    stats *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    if (heaplive_init(&st->live, heap_live, st) || addrmap_init(&st->threads.index) || addrmap_init(&st->heaps.index) ||
        addrmap_init(&st->name_index) || temporary_init(&st->tmp)) {
        stats_free(st);  /* what was made is freed */
        return NULL;
    }
    st->reader = s ? hatf_source_container(s) : NULL;
    return st;
}

void stats_free(stats *st)
{
    if (!st) return;
    heaplive_free(&st->live);
    addrmap_free(&st->threads.index);
    addrmap_free(&st->heaps.index);
    addrmap_free(&st->name_index);
    temporary_free(&st->tmp);
    if (st->want_phases) phases_free(&st->ph);
    free(st->names);
    free(st->threads.v);
    free(st->heaps.v);
    free(st);
}

void stats_summary_only(stats *st)
{
    st->summary_only = 1;
    st->live.change = summary_live;
}

uint64_t stats_records(const stats *st) { return st->records; }

void stats_sort(stats *st)
{
    if (st->threads.n) qsort(st->threads.v, st->threads.n, sizeof(counts), cmp_id);
    if (st->heaps.n) qsort(st->heaps.v, st->heaps.n, sizeof(counts), cmp_id);
    if (st->nnames) qsort(st->names, st->nnames, sizeof(counts), cmp_name);
}

int stats_want_phases(stats *st)
{
    phase_counts zero = { 0 };
    st->want_phases = phases_init(&st->ph, &zero) == 0;
    return st->want_phases ? 0 : -1;
}

void stats_end(stats *st)
{
    if (st->want_phases) {
        phase_counts now;
        counts_now(st, &now);
        phases_finish(&st->ph, &now);
    }
}

void stats_figures(const stats *st, stats_summary *out)
{
    *out = (stats_summary){ .records = st->records, .allocs = st->allocs, .frees = st->frees,
                            .reallocs = st->reallocs, .max_live_objects = st->max_live_objects,
                            .max_live_bytes = st->max_live_bytes, .live_objects = st->live_objects,
                            .live_bytes = st->live_bytes, .temporary = st->tmp.count,
                            .total_bytes = st->total_bytes, .first_time = st->first_time,
                            .last_time = st->last_time, .died = st->died, .death = st->death,
                            .signals_handled = st->signals_handled };
}

uint64_t stats_resident_peak(hatf_reader *r, uint64_t *max)
{
    const hatf_resident *v;
    size_t n = hatf_reader_resident(r, &v);
    *max = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].bytes - v[i].own > *max) *max = v[i].bytes - v[i].own;
    return n;
}
