/* sites_opts.h — what a site report shows (stats --sites, --timeline,
 * --massif, --diff; hatrace report): its form, order, length and details. */
#ifndef HATRACE_CLI_SITES_OPTS_H
#define HATRACE_CLI_SITES_OPTS_H

#include <stdint.h>

#include "hatf_source.h"
#include "suppress.h"

enum { SITES_TEXT, SITES_JSON, SITES_FOLDED, SITES_TIMELINE, SITES_TIMELINE_JSON, SITES_MASSIF,
       SITES_FOLDED_JSON };

typedef struct sites_opts {
    int form;         /* SITES_TEXT, SITES_JSON, or SITES_FOLDED: one line per call
                         chain, outermost frame first, with the sort key's figure;
                         SITES_FOLDED_JSON: the chains of the first top sites by
                         any figure, with every figure (hatrace report);
                         or the heap over time (overtime.h): SITES_TIMELINE (a
                         table), SITES_TIMELINE_JSON, SITES_MASSIF */
    int sort;         /* SITES_SORT_* */
    uint64_t top;     /* the first top sites (0: all) */
    int demangle;     /* C++ and Rust names demangled (text and folded; JSON has both) */
    int lines;        /* source file:line of each frame where known (text and JSON), and
                         names from the modules here for frames the trace left unnamed */
    uint64_t points;  /* the heap over time: at most this many intervals */
    int by;           /* SITES_BY_* (sitegroups.h): one line per stack, or grouped */
    hatf_format from; /* the trace's format as given: --massif reads it twice */
    int frame_table;  /* SITES_JSON by stack: frames as numbers into one "frame_table" */
    suppressions *supp; /* leaks to take out of the sites' leaked figures (suppress.h), or NULL */
} sites_opts;

#endif
