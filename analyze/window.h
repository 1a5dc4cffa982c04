/* window.h — the part of a trace a reading command looks at: a time window
 * (--from-time, --to-time), a phase (--phase NAME) and a thread (--thread N),
 * applied once (cli/cli_util.c installs it on every source it opens), as a filter on the source every command reads
 * (hatf_source_filter), so stats (with --sites, --timeline, --massif,
 * --phases), report, validate and replay see the same events
 * (docs/tools.md, "Windows").
 *
 * What a window holds: the calls made in it (by the thread, with --thread)
 * and the objects they made. An object made before the window, or by another
 * thread, is outside it: its free in the window is passed over, and a
 * realloc of it in the window is given as realloc(NULL, size), which makes
 * an object of the window. The free of a window's object is kept whichever
 * thread makes it. So live bytes start at 0 when the window opens, its peak
 * is the most bytes its own objects held at once, and what it leaves live
 * at its end (the objects it made and did not free in it) is "leaked".
 * Heap creations pass at any time (a heap the window uses exists), other
 * heap and thread records and comments only within the window.
 */
#ifndef ANALYZE_WINDOW_H
#define ANALYZE_WINDOW_H

#include <stdint.h>

#include "hatf_source.h"

/* What a window holds, as the options gave it. */
typedef struct window_spec {
    uint64_t from_ns, to_ns;  /* [from, to) since the trace's start */
    const char *phase;        /* NULL: none; kept, not copied */
    int has_thread;
    uint64_t thread;
} window_spec;

/* Put the window spec on s (hatf_source_filter), the trace's time unit being
 * unit_num/unit_den ns. @return 0, or -1 out of memory. */
int window_filter(hatf_source *s, const window_spec *spec, uint64_t unit_num, uint64_t unit_den);

#endif
