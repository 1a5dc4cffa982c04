/* srclines.h — the source file and line of frame addresses, for the reading
 * tools (cli/srclines.c). The trace names each module by path and build id;
 * the line tables come from that file on this machine, or from its separate
 * debug file (/usr/lib/debug, by build id or .gnu_debuglink), read with
 * elfutils' libdw, and only when the file's build id is the one the trace
 * recorded (a rebuilt program would give wrong lines). A module without
 * debug information, or not found, gives no lines.
 */
#ifndef HATRACE_CLI_SRCLINES_H
#define HATRACE_CLI_SRCLINES_H

#include <stdint.h>

#include "hatf_container.h"

typedef struct srclines srclines;

/* For the modules of r. @return NULL when out of memory. */
srclines *srclines_new(hatf_reader *r);
void srclines_free(srclines *s);

/* The source line of the call that return address ra is after (ra - 1).
 * @return 0 with *file (owned by s) and *line, or -1 when unknown. */
int srclines_of_return(srclines *s, uint64_t ra, const char **file, int *line);

/* The function holding addr by the module's own symbol tables here (the
 * debug file's .symtab when there is one), for frames the trace could not
 * name (static functions of stripped libraries). @return its name (owned by
 * s) with *offset, or NULL. */
const char *srclines_function(srclines *s, uint64_t addr, uint64_t *offset);

#endif
