/* sitediff.h — what changed per allocation site between two traces
 * (analyze/sitediff.c), for hatrace stats --diff OLD NEW (two runs of one
 * program, before and after a change), as heaptrack_print --diff does.
 *
 * Stack ids are the order a process first met its stacks, so they differ
 * between runs: a site is matched by its call chain as --folded names it
 * (folded.h; --by stack) or by its place (--by function, --by line, as
 * sitegroups.h keys it). Sites of one trace with the same key (stacks that
 * differ only in offsets) add up. Per key: calls, bytes, what the sites held
 * at the heap's peak (heaptrack's "peak", which adds up), leaked bytes and
 * temporary allocations, in OLD and NEW.
 */
#ifndef ANALYZE_SITEDIFF_H
#define ANALYZE_SITEDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "site.h"

enum { SITEDIFF_CALLS, SITEDIFF_BYTES, SITEDIFF_PEAK, SITEDIFF_LEAKED, SITEDIFF_TEMPORARY, SITEDIFF_NFIG };

typedef struct sitediff_figs { uint64_t v[SITEDIFF_NFIG]; } sitediff_figs;

/* one key, both sides: f[0] OLD's figures, f[1] NEW's */
typedef struct sitediff_change { const char *key; sitediff_figs f[2]; } sitediff_change;

/* one trace's sites, and the frames that name them */
typedef struct sitediff_side { const site *v; size_t n; frames *fr; } sitediff_side;

typedef struct sitediff {
    sitediff_change *v;  /* the keys whose figures changed, by the change of the sort
                            figure, largest first (in magnitude), then by key */
    size_t n;
    size_t nkeys[2];     /* the keys of each side */
    struct sitediff_entry *e;  /* the keys' strings (the changes point into them) */
    size_t ne;
} sitediff;

/* Compare side[0] (OLD) and side[1] (NEW) by `by` (SITES_BY_*), sorted by
 * sort (SITES_SORT_*; peak and at-peak: what the sites held at the heap's
 * peak). @return 0, or -1 out of memory (sitediff_free is still safe). */
int sitediff_make(sitediff *d, const sitediff_side side[2], int by, int sort);

/* NEW's figure for sort less OLD's. */
int64_t sitediff_delta(const sitediff_change *c, int sort);

/* Sort d's changes by key (for flame graphs: --folded). */
void sitediff_sort_by_key(sitediff *d);

void sitediff_free(sitediff *d);

#endif
