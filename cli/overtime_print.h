/* overtime_print.h — the heap over time as people and tools read it
 * (cli/overtime_print.c), from analyze/overtime.h's figures: hatrace stats
 * --timeline (a table with a bar per interval, or JSON) and --massif
 * (valgrind massif's file format, for ms_print and massif-visualizer: the
 * heap's size over time, with the call tree of what was live at the heap's
 * peak, at the end and at every tenth interval's end: analyze/massif.h).
 */
#ifndef HATRACE_CLI_OVERTIME_PRINT_H
#define HATRACE_CLI_OVERTIME_PRINT_H

#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "hatf_container.h"
#include "overtime.h"
#include "site.h"

/* The table: one line per interval, the peak and the end above it; with
 * resident samples (and times), a column of overtime_resident's figures;
 * "-" (JSON: no resident_bytes) before the first sample. */
void overtime_text(hatf_buf *o, const overtime *ot);
void overtime_json(hatf_buf *o, const overtime *ot);

/* A massif file: a snapshot at the end of each interval, one at the peak
 * (with resident samples, each snapshot's mem_heap_extra_B is what the
 * interval's resident figure, as the table's column, is over its live bytes)
 * with the call tree of what the sites v[0..n) held then (at_peak_bytes;
 * heap_tree=peak), the last one with the tree of what was still live
 * (live_bytes; detailed), and with d (may be NULL) the trees of d's
 * intervals (detailed). cmd: the traced command line (NULL: the trace's
 * path). @return 0, or -1 out of memory. */
int overtime_massif(hatf_buf *o, const overtime *ot, frames *fr, const site *v, size_t n,
                    const overtime_detail *d, const char *cmd);

#endif
