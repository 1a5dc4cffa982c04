/* folded.h — the sites' call chains as flame graphs take them (analyze/folded.c):
 * stats --sites --folded, --diff's keys by stack, and the report's flame
 * graph with every figure at once.
 *
 * A chain is a site's frames by node name (frames_node: the function, else
 * "module+0xvaddr"), outermost first, each frame followed by the functions
 * inlined at its call (outermost first), ';' between them; a chain cut at the
 * recording's stack depth starts with SITES_TRUNCATED. Stacks whose frames
 * differ only in offsets within the same functions have one chain: their
 * figures add up.
 */
#ifndef ANALYZE_FOLDED_H
#define ANALYZE_FOLDED_H

#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "site.h"

#define FOLDED_NFIG (SITES_SORT_TEMPORARY + 1)  /* the figures, in SITES_SORT_* order */

/* Site stack's chain. @return a string to free, or NULL out of memory. */
char *folded_chain(frames *fr, uint64_t stack);

typedef struct folded {
    char *chain;
    uint64_t value[FOLDED_NFIG];  /* the sums of its sites' figures (folded_sorted: value[0] alone) */
    int cut;                      /* cut at the recording's depth */
} folded;

typedef struct folded_set {
    folded *v;            /* distinct chains, sorted by chain */
    size_t n;
    size_t shown;         /* the sites taken */
    size_t depth;         /* the recording's stack depth (0: the trace does not say) */
    uint64_t totals[FOLDED_NFIG];  /* per figure, over all the sites given */
} folded_set;

/* The chains of the sites v[0..n) with a non-zero figure for sort
 * (SITES_SORT_*), each with the sum of that figure in value[0].
 * @return 0, or -1 out of memory (folded_free is still safe). */
int folded_sorted(folded_set *out, const site *v, size_t n, frames *fr, int sort);

/* The chains of the sites among the first top of v[0..n) by any figure (all
 * when top is 0 or n <= top) with any figure non-zero, with every figure.
 * @return 0, or -1 out of memory (folded_free is still safe). */
int folded_all(folded_set *out, const site *v, size_t n, frames *fr, uint64_t top);

void folded_free(folded_set *s);

#endif
