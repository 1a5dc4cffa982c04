/* srclines.h — the source file and line of frame addresses, for the reading
 * tools (analyze/srclines.c). The trace names each module by path and build id;
 * the line tables come from that file on this machine, or from its separate
 * debug file (/usr/lib/debug, by build id or .gnu_debuglink), read with
 * elfutils' libdw, and only when the file's build id is the one the trace
 * recorded (a rebuilt program would give wrong lines). A module without
 * debug information, or not found, gives no lines.
 */
#ifndef ANALYZE_SRCLINES_H
#define ANALYZE_SRCLINES_H

#include <stdint.h>

#include "hatf_container.h"

typedef struct srclines srclines;

/* For the modules of r. @return NULL when out of memory. */
srclines *srclines_new(hatf_reader *r);
void srclines_free(srclines *s);

/* One function at a place in the source. */
typedef struct srcline {
    const char *inlined;  /* an inlined function's name as the debug information has
                             it (C++: the mangled linkage name when there is one);
                             NULL for the frame's own function */
    const char *file;
    int line;
} srcline;

/* The source of the call that return address ra is after (ra - 1): the
 * functions the compiler inlined at that place, innermost first, each with
 * the file and line it was at, then the frame's own function (inlined NULL)
 * with the line of the outermost inlined call (or of the call itself).
 * Strings owned by s. @return the count, 0 when unknown. */
size_t srclines_of_return(srclines *s, uint64_t ra, const srcline **out);

/* The function holding addr by the module's own symbol tables here (the
 * debug file's .symtab when there is one), for frames the trace could not
 * name (static functions of stripped libraries). @return its name (owned by
 * s) with *offset, or NULL. */
const char *srclines_function(srclines *s, uint64_t addr, uint64_t *offset);

#endif
