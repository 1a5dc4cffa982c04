/* sitediff.c — what changed per allocation site between two traces (sitediff.h). */
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "sitediff.h"
#include "sitegroups.h"

/* one site of one side, keyed */
typedef struct sitediff_entry { char *key; int side; sitediff_figs f; } entry;

static void figs_add(sitediff_figs *a, const site *s)
{
    a->v[SITEDIFF_CALLS] += s->calls;
    a->v[SITEDIFF_BYTES] += s->bytes;
    a->v[SITEDIFF_PEAK] += s->at_peak_bytes;
    a->v[SITEDIFF_LEAKED] += s->live_bytes;
    a->v[SITEDIFF_TEMPORARY] += s->temporary;
}

/* the figure --sort names (peak and at-peak: what the site held at the heap's peak) */
static uint64_t figs_get(const sitediff_figs *f, int sort)
{
    switch (sort) {
    case SITES_SORT_BYTES: return f->v[SITEDIFF_BYTES];
    case SITES_SORT_PEAK: case SITES_SORT_AT_PEAK: return f->v[SITEDIFF_PEAK];
    case SITES_SORT_LEAKED: return f->v[SITEDIFF_LEAKED];
    case SITES_SORT_TEMPORARY: return f->v[SITEDIFF_TEMPORARY];
    default: return f->v[SITEDIFF_CALLS];
    }
}

int64_t sitediff_delta(const sitediff_change *c, int sort)
{
    return (int64_t)(figs_get(&c->f[1], sort) - figs_get(&c->f[0], sort));
}

static uint64_t magnitude(int64_t d) { return d < 0 ? -(uint64_t)d : (uint64_t)d; }

static int changed(const sitediff_change *c)
{
    return memcmp(&c->f[0], &c->f[1], sizeof c->f[0]) != 0;
}

/* The entries of one side's sites, after d->e[0..d->ne). @return 0, or -1 out of memory. */
static int collect(sitediff *d, size_t *cap, const sitediff_side *l, int side, int by)
{
    for (size_t i = 0; i < l->n; i++) {
        if (d->ne == *cap) {
            size_t c = *cap ? 2 * *cap : 256;
            entry *p = realloc(d->e, c * sizeof *p);
            if (!p) return -1;
            d->e = p, *cap = c;
        }
        entry *e = &d->e[d->ne];
        memset(e, 0, sizeof *e);
        e->side = side;
        e->key = by == SITES_BY_STACK ? folded_chain(l->fr, l->v[i].stack) : sitegroups_place(&l->v[i], l->fr, by);
        if (!e->key) return -1;
        figs_add(&e->f, &l->v[i]);
        d->ne++;
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b) { return strcmp(((const entry *)a)->key, ((const entry *)b)->key); }

static int cmp_sort;
static int cmp_change(const void *a, const void *b)
{
    const sitediff_change *x = a, *y = b;
    uint64_t mx = magnitude(sitediff_delta(x, cmp_sort)), my = magnitude(sitediff_delta(y, cmp_sort));
    if (mx != my) return mx > my ? -1 : 1;
    return strcmp(x->key, y->key);
}

int sitediff_make(sitediff *d, const sitediff_side side[2], int by, int sort)
{
    memset(d, 0, sizeof *d);
    size_t cap = 0;
    if (collect(d, &cap, &side[0], 0, by) || collect(d, &cap, &side[1], 1, by) ||
        !(d->v = calloc(d->ne ? d->ne : 1, sizeof *d->v)))
        return -1;
    entry *e = d->e;
    size_t ne = d->ne;
    if (ne) qsort(e, ne, sizeof *e, cmp_entry);
    for (size_t i = 0; i < ne;) {  /* runs of one key, both sides summed */
        sitediff_change *c = &d->v[d->n];
        memset(c, 0, sizeof *c);
        c->key = e[i].key;
        int seen[2] = { 0, 0 };
        for (; i < ne && !strcmp(e[i].key, c->key); i++) {
            for (int k = 0; k < SITEDIFF_NFIG; k++) c->f[e[i].side].v[k] += e[i].f.v[k];
            seen[e[i].side] = 1;
        }
        d->nkeys[0] += seen[0], d->nkeys[1] += seen[1];
        if (changed(c)) d->n++;
    }
    cmp_sort = sort;
    if (d->n) qsort(d->v, d->n, sizeof *d->v, cmp_change);
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(((const sitediff_change *)a)->key, ((const sitediff_change *)b)->key);
}

void sitediff_sort_by_key(sitediff *d)
{
    if (d->n) qsort(d->v, d->n, sizeof *d->v, cmp_key);
}

void sitediff_free(sitediff *d)
{
    for (size_t i = 0; i < d->ne; i++) free(d->e[i].key);
    free(d->e);
    free(d->v);
    memset(d, 0, sizeof *d);
}
