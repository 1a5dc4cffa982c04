/* massif.c — massif's call trees (massif.h).
 * Each site's chain, innermost first, is a list of places; the lists are
 * sorted, so every node's sites are a run that shares its path, and the tree
 * is made by splitting runs on the next place. */
#include <stdlib.h>

#include "massif.h"

typedef struct chain { const massif_place *p; size_t n; uint64_t bytes; } chain;
typedef struct group { size_t lo, hi; uint64_t bytes; } group;

static int cmp_chain(const void *a, const void *b)
{
    const chain *x = a, *y = b;
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        if (x->p[i].addr != y->p[i].addr) return x->p[i].addr < y->p[i].addr ? -1 : 1;
        if (x->p[i].inl != y->p[i].inl) return x->p[i].inl < y->p[i].inl ? -1 : 1;
    }
    return (x->n > y->n) - (x->n < y->n);
}

static int cmp_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The node of chains c[lo, hi) at depth d (they share d places), its bytes
 * already summed, then its callers. @return 0, or -1 out of memory. */
static int node(const chain *c, size_t lo, size_t hi, size_t d, uint64_t bytes, uint64_t total, massif_line_fn *put,
                void *ctx)
{
    size_t ng = 0, start = lo;
    while (start < hi && c[start].n <= d) start++;  /* chains that end here: no caller */
    group *g = start < hi ? malloc((hi - start) * sizeof *g) : NULL;  /* at most a group per chain */
    if (start < hi && !g) return -1;
    for (size_t i = start; i < hi; ng++) {
        size_t j = i;
        uint64_t sum = 0;
        while (j < hi && c[j].p[d].addr == c[i].p[d].addr && c[j].p[d].inl == c[i].p[d].inl) sum += c[j++].bytes;
        g[ng] = (group){ i, j, sum };
        i = j;
    }
    if (ng) qsort(g, ng, sizeof *g, cmp_group);
    /* massif's threshold: 1 % of the snapshot */
    size_t sig = 0;
    uint64_t below = 0;
    for (size_t i = 0; i < ng; i++) {
        if (g[i].bytes * 100 >= total && g[i].bytes) sig++;
        else below += g[i].bytes;
    }
    size_t nbelow = ng - sig;
    massif_line l = { .depth = d, .bytes = bytes, .children = sig + (nbelow > 0) };
    if (d) l.place = c[lo].p[d - 1];
    put(ctx, &l);
    int rc = 0;
    for (size_t i = 0; i < sig && !rc; i++)  /* sorted: the significant ones come first */
        rc = node(c, g[i].lo, g[i].hi, d + 1, g[i].bytes, total, put, ctx);
    if (nbelow && !rc) put(ctx, &(massif_line){ .below = 1, .depth = d + 1, .bytes = below, .children = nbelow });
    free(g);
    return rc;
}

/* What site i held for the tree: bytes[i], else at_peak, else live. */
static uint64_t tree_bytes(const site *v, size_t i, int at_peak, const uint64_t *bytes)
{
    return bytes ? bytes[i] : at_peak ? v[i].at_peak_bytes : v[i].live_bytes;
}

int massif_tree(frames *fr, const site *v, size_t n, int at_peak, const uint64_t *bytes, massif_line_fn *put,
                void *ctx)
{
    size_t np = 0, nc = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = tree_bytes(v, i, at_peak, bytes);
        if (!b) continue;
        const uint64_t *f;
        size_t k = sites_stack(fr->r, v[i].stack, &f);
        for (size_t j = 0; j < k; j++) np += frames_places(fr, f[j]);
        nc++;
        total += b;
    }
    chain *c = calloc(nc ? nc : 1, sizeof *c);
    massif_place *p = malloc((np ? np : 1) * sizeof *p);
    int rc = c && p ? 0 : -1;
    size_t ip = 0;
    nc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t b = tree_bytes(v, i, at_peak, bytes);
        if (!b) continue;
        const uint64_t *f;
        size_t k = sites_stack(fr->r, v[i].stack, &f);
        c[nc] = (chain){ p + ip, 0, b };
        for (size_t j = 0; j < k; j++) {
            const srcline *in;
            uint32_t ni = (uint32_t)frames_inlined(fr, f[j], &in);
            for (uint32_t q = 0; q <= ni; q++) p[ip++] = (massif_place){ f[j], q };
        }
        c[nc].n = (size_t)(p + ip - c[nc].p);
        nc++;
    }
    if (!rc) {
        qsort(c, nc, sizeof *c, cmp_chain);
        rc = node(c, 0, nc, 0, total, total, put, ctx);
    }
    free(c);
    free(p);
    return rc;
}
