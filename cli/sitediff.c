/* sitediff.c — hatrace stats --diff OLD NEW: what changed per allocation site
 * between two traces (two runs of one program, before and after a change), as
 * heaptrack_print --diff does.
 *
 * Stack ids are the order a process first met its stacks, so they differ
 * between runs: a site is matched by its call chain as --folded names it
 * (functions, outermost first; --by stack) or by its place (--by function,
 * --by line, as sitegroups.c keys it). Sites of one trace with the same key
 * (stacks that differ only in offsets) add up. Per key: calls, bytes, what
 * the sites held at the heap's peak (heaptrack's "peak", which adds up),
 * leaked bytes and temporary allocations, in OLD and NEW and their change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "sitediff.h"
#include "sitegroups.h"

#define U(x) ((unsigned long long)(x))

enum { F_CALLS, F_BYTES, F_PEAK, F_LEAKED, F_TEMPORARY, F_N };
typedef struct figs { uint64_t v[F_N]; } figs;

/* one site of one side, keyed */
typedef struct entry { char *key; int side; figs f; } entry;

/* one key, both sides */
typedef struct change { const char *key; figs f[2]; } change;

static void figs_add(figs *a, const site *s)
{
    a->v[F_CALLS] += s->calls;
    a->v[F_BYTES] += s->bytes;
    a->v[F_PEAK] += s->at_peak_bytes;
    a->v[F_LEAKED] += s->live_bytes;
    a->v[F_TEMPORARY] += s->temporary;
}

/* the figure --sort names (peak and at-peak: what the site held at the heap's peak) */
static uint64_t figs_get(const figs *f, int sort)
{
    switch (sort) {
    case SITES_SORT_BYTES: return f->v[F_BYTES];
    case SITES_SORT_PEAK: case SITES_SORT_AT_PEAK: return f->v[F_PEAK];
    case SITES_SORT_LEAKED: return f->v[F_LEAKED];
    case SITES_SORT_TEMPORARY: return f->v[F_TEMPORARY];
    default: return f->v[F_CALLS];
    }
}

static int64_t delta(const change *c, int sort) { return (int64_t)(figs_get(&c->f[1], sort) - figs_get(&c->f[0], sort)); }
static uint64_t magnitude(int64_t d) { return d < 0 ? -(uint64_t)d : (uint64_t)d; }

static int changed(const change *c)
{
    return memcmp(&c->f[0], &c->f[1], sizeof c->f[0]) != 0;
}

/* The entries of one side's sites. @return 0, or -1 out of memory. */
static int collect(entry **v, size_t *n, size_t *cap, sites_list *l, int side, int by)
{
    for (size_t i = 0; i < l->n; i++) {
        if (*n == *cap) {
            size_t c = *cap ? 2 * *cap : 256;
            entry *p = realloc(*v, c * sizeof *p);
            if (!p) return -1;
            *v = p, *cap = c;
        }
        entry *e = &(*v)[*n];
        memset(e, 0, sizeof *e);
        e->side = side;
        e->key = by == SITES_BY_STACK ? sites_chain(&l->fr, l->v[i].stack) : sitegroups_place(&l->v[i], &l->fr, by);
        if (!e->key) return -1;
        figs_add(&e->f, &l->v[i]);
        (*n)++;
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b) { return strcmp(((const entry *)a)->key, ((const entry *)b)->key); }

static int cmp_sort;
static int cmp_change(const void *a, const void *b)
{
    const change *x = a, *y = b;
    uint64_t mx = magnitude(delta(x, cmp_sort)), my = magnitude(delta(y, cmp_sort));
    if (mx != my) return mx > my ? -1 : 1;
    return strcmp(x->key, y->key);
}

static void put_figure(hatf_buf *o, const char *name, uint64_t a, uint64_t b, int json)
{
    if (json) cli_put(o, "\"%s\": {\"old\": %llu, \"new\": %llu, \"change\": %lld}", name, U(a), U(b), (long long)(b - a));
    else cli_put(o, "%s %llu -> %llu (%+lld)", name, U(a), U(b), (long long)(b - a));
}

static void put_figures(hatf_buf *o, const change *c, int json)
{
    static const char *const names[2][F_N] = {
        { "calls", "bytes", "at the heap's peak", "leaked", "temporary" },
        { "calls", "bytes", "peak", "leaked", "temporary" },
    };
    for (int i = 0; i < F_N; i++) {
        if (i) cli_put(o, ", ");
        put_figure(o, names[json][i], c->f[0].v[i], c->f[1].v[i], json);
    }
}

static const char *const by_names[] = { "stack", "function", "line" };

static void print_text(hatf_buf *o, const change *v, size_t nv, size_t nchanged, const size_t nkeys[2],
                       const sites_list l[2], const char *paths[2], const sites_opts *opt)
{
    cli_put(o, "sites by %s, %s -> %s: %zu -> %zu, %zu changed; heap peak %llu -> %llu bytes (%+lld)\n",
            by_names[opt->by], paths[0], paths[1], nkeys[0], nkeys[1], nchanged, U(l[0].max_live_bytes),
            U(l[1].max_live_bytes), (long long)(l[1].max_live_bytes - l[0].max_live_bytes));
    for (size_t i = 0; i < nv; i++) {
        cli_put(o, "\n#%zu %s\n    ", i + 1, v[i].key);
        put_figures(o, &v[i], 0);
        cli_put(o, "\n");
    }
}

static void print_json(hatf_buf *o, const change *v, size_t nv, size_t nchanged, const size_t nkeys[2],
                       const sites_list l[2], const char *paths[2], const sites_opts *opt)
{
    cli_put(o, "{\"old\": ");
    cli_json_string(o, paths[0]);
    cli_put(o, ", \"new\": ");
    cli_json_string(o, paths[1]);
    cli_put(o, ", \"by\": \"%s\", \"sites\": [%zu, %zu], \"changed\": %zu, \"max_live_bytes\": [%llu, %llu], \"top\": [",
            by_names[opt->by], nkeys[0], nkeys[1], nchanged, U(l[0].max_live_bytes), U(l[1].max_live_bytes));
    for (size_t i = 0; i < nv; i++) {
        cli_put(o, "%s\n  {\"site\": ", i ? "," : "");
        cli_json_string(o, v[i].key);
        cli_put(o, ", ");
        put_figures(o, &v[i], 1);
        cli_put(o, "}");
    }
    cli_put(o, "\n]}\n");
}

static int cmp_key(const void *a, const void *b) { return strcmp(((const change *)a)->key, ((const change *)b)->key); }

/* flame graph input: each chain whose figure changed, with the change */
static void print_folded(hatf_buf *o, change *v, size_t nv, int sort)
{
    if (nv) qsort(v, nv, sizeof *v, cmp_key);
    for (size_t i = 0; i < nv; i++)
        if (delta(&v[i], sort)) cli_put(o, "%s %lld\n", v[i].key, (long long)delta(&v[i], sort));
}

int sitediff_report(const char *old_path, const char *new_path, const sites_opts *opt)
{
    const char *paths[2] = { old_path, new_path };
    sites_list l[2];
    int rc = sites_list_read(old_path, opt, &l[0]);
    if (rc == CLI_FAIL) return CLI_FAIL;
    int rc2 = sites_list_read(new_path, opt, &l[1]);
    if (rc2 == CLI_FAIL) {
        sites_list_free(&l[0]);
        return CLI_FAIL;
    }
    if (rc2 != CLI_OK) rc = rc2;
    for (int i = 0; i < 2; i++)
        if (l[i].records && !l[i].stacked)
            sites_say_no_stacks(paths[i]);

    entry *e = NULL;
    change *v = NULL;
    size_t ne = 0, cap = 0, nv = 0, nkeys[2] = { 0, 0 };
    int bad = collect(&e, &ne, &cap, &l[0], 0, opt->by) || collect(&e, &ne, &cap, &l[1], 1, opt->by) ||
              !(v = calloc(ne ? ne : 1, sizeof *v));
    if (!bad) {
        if (ne) qsort(e, ne, sizeof *e, cmp_entry);
        for (size_t i = 0; i < ne;) {  /* runs of one key, both sides summed */
            change *c = &v[nv];
            memset(c, 0, sizeof *c);
            c->key = e[i].key;
            int seen[2] = { 0, 0 };
            for (; i < ne && !strcmp(e[i].key, c->key); i++) {
                for (int k = 0; k < F_N; k++) c->f[e[i].side].v[k] += e[i].f.v[k];
                seen[e[i].side] = 1;
            }
            nkeys[0] += seen[0], nkeys[1] += seen[1];
            if (changed(c)) nv++;
        }
        cmp_sort = opt->sort;
        if (nv) qsort(v, nv, sizeof *v, cmp_change);
        size_t shown = opt->top && opt->top < nv ? (size_t)opt->top : nv;
        hatf_buf o;
        hatf_buf_init(&o);
        if (opt->form == SITES_FOLDED) print_folded(&o, v, nv, opt->sort);
        else if (opt->form == SITES_JSON) print_json(&o, v, shown, nv, nkeys, l, paths, opt);
        else print_text(&o, v, shown, nv, nkeys, l, paths, opt);
        bad = o.failed;
        if (!bad) fwrite(o.p, 1, o.len, stdout);
        hatf_buf_free(&o);
    }
    if (bad) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    }
    for (size_t i = 0; i < ne; i++) free(e[i].key);
    free(e);
    free(v);
    sites_list_free(&l[0]);
    sites_list_free(&l[1]);
    return rc;
}
