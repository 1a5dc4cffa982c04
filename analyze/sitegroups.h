/* sitegroups.h — allocation sites grouped by where the allocation was made
 * (analyze/sitegroups.c), for hatrace stats --sites --by function|line and
 * --diff, as heaptrack_print groups by location: a function called from
 * many paths is one group, not one per call stack.
 *
 * A site's place is the innermost place of its chain (frames.h: the
 * functions inlined at a call count as places) that is not C++'s operator
 * new, the allocation function of the language; by line, that place's
 * function and the source line of its call. The figures of a group are the
 * sums of its sites' (calls, bytes, what they held at the heap's peak, leaked,
 * temporary allocations); a site's own peak is not summed (the sites of a
 * group reach theirs at different moments).
 */
#ifndef ANALYZE_SITEGROUPS_H
#define ANALYZE_SITEGROUPS_H

#include <stddef.h>

#include "frames.h"
#include "site.h"

typedef struct sitegroup {
    const char *key;              /* the place: "function", or "function file:line" where the line is known */
    const char *function, *file;  /* its parts (function NULL: not named; file NULL: no line) */
    int line;
    site sum;                     /* summed figures (stack, peak_*: unused) */
    size_t first, count;          /* its sites: order[first .. first + count) */
} sitegroup;

typedef struct sitegroups {
    sitegroup *g;       /* sorted by the sort key's figure, largest first, then by key */
    size_t ng;
    size_t *order;      /* positions of the sites, a group's sorted by the same figure, then by stack */
    size_t n;           /* the sites grouped */
    struct sitegroups_key *k;  /* the keys' strings (the groups point into them) */
} sitegroups;

/* Group the sites v[0..n) by `by` (SITES_BY_FUNCTION or SITES_BY_LINE) and
 * sort by sort (SITES_SORT_*, not SITES_SORT_PEAK). @return 0, or -1 out of
 * memory (then sitegroups_free is still safe). */
int sitegroups_make(sitegroups *out, const site *v, size_t n, frames *fr, int by, int sort);
void sitegroups_free(sitegroups *g);

/* Site s's place by `by`, as the groups are keyed. @return a string to free,
 * or NULL out of memory. */
char *sitegroups_place(const site *s, frames *fr, int by);

#endif
