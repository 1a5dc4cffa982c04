/* sitediff_print.h — hatrace stats --diff OLD NEW (cli/sitediff_print.c),
 * analyze/sitediff.h's figures printed: per allocation site, matched by call chain (--by stack) or place (--by function, line),
 * the change in calls, bytes, bytes held at the heap's peak, leaked bytes and
 * temporary allocations, sorted by the largest absolute change of the --sort
 * figure. */
#ifndef HATRACE_CLI_SITEDIFF_PRINT_H
#define HATRACE_CLI_SITEDIFF_PRINT_H

#include "sites.h"

/* Read both traces as o says (o->from, demangle, lines, by, sort, top) and
 * print the sites that changed: text, JSON, or (o->form SITES_FOLDED, by
 * stack) one line per chain whose --sort figure changed, with the change as
 * its value (negative when it shrank). @return a CLI_* exit code. */
int sitediff_report(const char *old_path, const char *new_path, const sites_opts *o);

#endif
