/* sitegroups.h — allocation sites grouped by where the allocation was made
 * (cli/sitegroups.c), for hatrace stats --sites --by function|line, as
 * heaptrack_print groups by location: a function called from many paths is
 * one line, not one per call stack.
 *
 * A site's place is the innermost place of its chain (frames.h: the
 * functions inlined at a call count as places) that is not C++'s operator
 * new, the allocation function of the language; by line, that place's
 * function and the source line of its call. The figures of a group are the
 * sums of its sites' (calls, bytes, what they held at the heap's peak, leaked,
 * temporary allocations); a site's own peak is not summed (the sites of a
 * group reach theirs at different moments).
 */
#ifndef HATRACE_CLI_SITEGROUPS_H
#define HATRACE_CLI_SITEGROUPS_H

#include <stddef.h>

#include "frames.h"
#include "site.h"
#include "sites_opts.h"

/* The header the report starts with, as the site report has it. */
typedef struct sitegroups_head {
    const char *path;
    uint64_t records, stacked, temporary, max_live_bytes;
} sitegroups_head;

/* Site s's place by `by` (SITES_BY_FUNCTION or SITES_BY_LINE), as the
 * groups are keyed: "function", or "function file:line" where the line is
 * known. @return a string to free, or NULL out of memory. */
char *sitegroups_place(const site *s, frames *fr, int by);

/* Print the groups of sites v[0..n) by o->by, sorted by o->sort (not
 * SITES_SORT_PEAK), the first o->top (0: all), as text or JSON (o->form);
 * under each group in text, its three first stacks by the same key.
 * @return 0, or -1 out of memory. */
int sitegroups_print(hatf_buf *out, const site *v, size_t n, frames *fr, const sites_opts *o,
                     const sitegroups_head *h);

#endif
