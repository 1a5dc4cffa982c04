/* sitegroups_print.h — hatrace stats --sites --by function|line
 * (cli/sitegroups_print.c): the groups of analyze/sitegroups.h as text or JSON. */
#ifndef HATRACE_CLI_SITEGROUPS_PRINT_H
#define HATRACE_CLI_SITEGROUPS_PRINT_H

#include <stddef.h>

#include "frames.h"
#include "site.h"
#include "sitegroups.h"
#include "sites_opts.h"

/* The header the report starts with, as the site report has it. */
typedef struct sitegroups_head {
    const char *path;
    uint64_t records, stacked, temporary, max_live_bytes;
} sitegroups_head;

/* Print the groups of sites v[0..n) by o->by, sorted by o->sort (not
 * SITES_SORT_PEAK), the first o->top (0: all), as text or JSON (o->form);
 * under each group in text, its three first stacks by the same key.
 * @return 0, or -1 out of memory. */
int sitegroups_print(hatf_buf *out, const site *v, size_t n, frames *fr, const sites_opts *o,
                     const sitegroups_head *h);

#endif
