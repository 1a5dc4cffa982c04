/* callgraph.c — callers and callees from the sites' chains; see callgraph.h. */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

int callgraph_init(callgraph *g)
{
    memset(g, 0, sizeof *g);
    if (strtab_init(&g->names) || addrmap_init(&g->edge_index)) return -1;
    /* names 0 and 1: never a function's, only the ends of the edges */
    return strtab_id(&g->names, CALLGRAPH_OUTERMOST, NULL) < 0 || strtab_id(&g->names, CALLGRAPH_HERE, NULL) < 0 ? -1 : 0;
}

void callgraph_free(callgraph *g)
{
    strtab_free(&g->names);
    addrmap_free(&g->edge_index);
    free(g->fn_of);
    free(g->fns);
    free(g->edges);
    free(g->chain);
    memset(g, 0, sizeof *g);
}

/* Grow *v (of elem-byte items, *cap of them) to hold n. @return 0, or -1 out of memory. */
static int grow(void *v, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < n) c *= 2;
    void *p = realloc(*(void **)v, c * elem);
    if (!p) return -1;
    *(void **)v = p;
    *cap = c;
    return 0;
}

/* Append name to the chain being made (k names so far). @return 0, or -1 out of memory. */
static int push(callgraph *g, size_t k, const char *name)
{
    long id = strtab_id(&g->names, name, NULL);
    if (id < 0 || grow(&g->chain, &g->capchain, k + 1, sizeof *g->chain)) return -1;
    g->chain[k] = (uint32_t)id;
    return 0;
}

/* The chain of frames f[0..n-1] into g->chain, named as the report's page
 * names its frames (sites.c's "demangled", else "node"), the functions
 * inlined at each call before the frame's own. @return its length, or -1. */
static long chain_of(callgraph *g, frames *fr, const uint64_t *f, size_t n)
{
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        const srcline *in;
        size_t ni = frames_inlined(fr, f[j], &in);
        for (size_t i = 0; i < ni; i++) {
            const char *d = frames_demangled(fr, in[i].inlined);
            if (push(g, k++, d ? d : in[i].inlined)) return -1;
        }
        uint64_t off;
        const char *name = frames_function(fr, f[j], &off), *d = name ? frames_demangled(fr, name) : NULL;
        const char *shown = d ? d : name ? name : "";
        char node[1024];
        if (!*shown) {
            frames_node(fr, f[j], node, sizeof node);
            shown = node;
        }
        if (push(g, k++, shown)) return -1;
    }
    return (long)k;
}

static void add_figs(callgraph_figs *a, const callgraph_figs *x)
{
    a->calls += x->calls;
    a->bytes += x->bytes;
    a->at_peak_bytes += x->at_peak_bytes;
    a->leaked_bytes += x->leaked_bytes;
    a->temporary += x->temporary;
}

/* The function named name, made on first use. @return it, or NULL out of memory. */
static callgraph_fn *fn_named(callgraph *g, uint32_t name)
{
    size_t had = g->capfn_of;
    if (grow(&g->fn_of, &g->capfn_of, g->names.n, sizeof *g->fn_of)) return NULL;
    for (size_t i = had; i < g->capfn_of; i++) g->fn_of[i] = -1;
    if (g->fn_of[name] >= 0) return &g->fns[g->fn_of[name]];
    if (grow(&g->fns, &g->capfns, g->nfns + 1, sizeof *g->fns)) return NULL;
    callgraph_fn *e = &g->fns[g->nfns];
    memset(e, 0, sizeof *e);
    e->name = name;
    g->fn_of[name] = (int32_t)g->nfns++;
    return e;
}

/* The sites through the call between function fn and name other add x. @return 0, or -1. */
static int add_edge(callgraph *g, uint32_t fn, uint32_t other, uint32_t up, const callgraph_figs *x)
{
    int added;
    addrmap_entry *e = addrmap_put(&g->edge_index, ((uint64_t)fn << 33 | (uint64_t)other << 1 | up) + 1, &added);
    if (!e) return -1;
    if (added) {
        if (grow(&g->edges, &g->capedges, g->nedges + 1, sizeof *g->edges)) {
            addrmap_remove(&g->edge_index, e);
            return -1;
        }
        g->edges[g->nedges] = (callgraph_edge){ .fn = fn, .other = other, .up = up, .seq = (uint32_t)g->nedges };
        e->size = g->nedges++;
    }
    add_figs(&g->edges[e->size].x, x);
    return 0;
}

static int is_new(const callgraph *g, uint32_t name)
{
    return strncmp(callgraph_name(g, name), "operator new", 12) == 0;
}

int callgraph_add(callgraph *g, frames *fr, const site *s, const uint64_t *f, size_t n)
{
    long len = chain_of(g, fr, f, n);
    if (len <= 0) return (int)len;
    const uint32_t *c = g->chain;
    while (len > 1 && is_new(g, c[0])) c++, len--;  /* the operator new the chain starts with */
    callgraph_figs x = { s->calls, s->bytes, s->at_peak_bytes, s->live_bytes, s->temporary };
    g->sites++;
    callgraph_fn *e = fn_named(g, c[0]);
    if (!e) return -1;
    add_figs(&e->self, &x);
    for (long i = 0; i < len; i++) {
        if (!(e = fn_named(g, c[i]))) return -1;
        if (e->last_site == g->sites) continue;  /* once per site */
        e->last_site = g->sites;
        add_figs(&e->incl, &x);
        uint32_t fn = (uint32_t)(e - g->fns);
        if (add_edge(g, fn, i + 1 < len ? c[i + 1] : 0, 1, &x) || add_edge(g, fn, i ? c[i - 1] : 1, 0, &x)) return -1;
    }
    return 0;
}

static int cmp_edge(const void *pa, const void *pb)
{
    const callgraph_edge *a = pa, *b = pb;
    if (a->fn != b->fn) return a->fn < b->fn ? -1 : 1;
    if (a->up != b->up) return a->up > b->up ? -1 : 1;
    if (a->x.bytes != b->x.bytes) return a->x.bytes > b->x.bytes ? -1 : 1;
    if (a->x.calls != b->x.calls) return a->x.calls > b->x.calls ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void callgraph_finish(callgraph *g)
{
    if (g->nedges) qsort(g->edges, g->nedges, sizeof *g->edges, cmp_edge);
    for (size_t i = 0; i < g->nedges; i++) {
        callgraph_fn *e = &g->fns[g->edges[i].fn];
        if (!e->nedges) e->first_edge = i;
        e->nedges++;
    }
}

size_t callgraph_other(const callgraph *g, const callgraph_edge *x)
{
    return x->other < 2 ? g->nfns + x->other : (size_t)g->fn_of[x->other];  /* every name of a chain is a function */
}
