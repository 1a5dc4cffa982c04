/* callgraph.h — the callers and callees of each function in the call chains
 * of a set of allocation sites, as heaptrack_gui shows them (hatrace report's
 * "callers and callees" view; analyze/callgraph.c).
 *
 * A site's chain is its functions, innermost first: at each frame the
 * functions inlined at its call (innermost first), then the frame's own,
 * named as the report names frames (demangled, else the flame graph's node);
 * the operator new it starts with is left out. A function's figures: self,
 * of the sites whose chain starts with it; inclusive, of the sites whose
 * chain holds it (once per site, recursion or not); and per caller and
 * callee, of the sites that pass through that call. The figures that add up
 * are counted: calls, bytes, at the heap's peak, leaked, temporary.
 */
#ifndef ANALYZE_CALLGRAPH_H
#define ANALYZE_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "addrmap.h"
#include "frames.h"
#include "site.h"
#include "strtab.h"

/* The caller of a chain's outermost function, the callee of its innermost. */
#define CALLGRAPH_OUTERMOST "(outermost: no caller)"
#define CALLGRAPH_HERE "(allocates here)"

typedef struct callgraph_figs {
    uint64_t calls, bytes, at_peak_bytes, leaked_bytes, temporary;
} callgraph_figs;

typedef struct callgraph_edge {
    uint32_t fn;     /* the function (its number in fns) */
    uint32_t other;  /* the caller's or callee's name (in names) */
    uint32_t up;     /* 1: other calls fn; 0: fn calls other */
    uint32_t seq;    /* order of first use */
    callgraph_figs x;
} callgraph_edge;

typedef struct callgraph_fn {
    uint32_t name;   /* in names */
    callgraph_figs self, incl;
    uint64_t last_site;  /* the last site that counted it inclusively, + 1 */
    size_t first_edge, nedges;  /* after callgraph_finish: its edges in edges */
} callgraph_fn;

typedef struct callgraph {
    strtab names;         /* every name met, CALLGRAPH_OUTERMOST and _HERE first */
    int32_t *fn_of;       /* name -> function number, -1: none */
    size_t capfn_of;
    callgraph_fn *fns;    /* in order of first use */
    size_t nfns, capfns;
    callgraph_edge *edges;
    size_t nedges, capedges;
    addrmap edge_index;   /* (fn, other, up) -> edge */
    uint32_t *chain;      /* the current site's chain (names) */
    size_t capchain;
    uint64_t sites;       /* sites added with a chain */
} callgraph;

/* @return 0, or -1 out of memory (callgraph_free is still safe). */
int callgraph_init(callgraph *g);
void callgraph_free(callgraph *g);

/* Add site s, its frames f[0..n-1] named by fr. @return 0, or -1 out of memory. */
int callgraph_add(callgraph *g, frames *fr, const site *s, const uint64_t *f, size_t n);

/* After the last site: each function's edges in edges[first_edge ..
 * first_edge + nedges), its callers first, each side by bytes then calls,
 * most first, and in order of first use among equals. */
void callgraph_finish(callgraph *g);

/* The function at the other end of edge x (its number in fns), or g->nfns
 * for CALLGRAPH_OUTERMOST and g->nfns + 1 for CALLGRAPH_HERE. */
size_t callgraph_other(const callgraph *g, const callgraph_edge *x);

/* A name's text. */
static inline const char *callgraph_name(const callgraph *g, uint32_t name) { return g->names.v[name]; }

#endif
