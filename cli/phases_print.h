/* phases_print.h — stats --phases' table (analyze/phases.h counts; the
 * JSON array is analyze/stats_json.h's phases_json). */
#ifndef HATRACE_CLI_PHASES_PRINT_H
#define HATRACE_CLI_PHASES_PRINT_H

#include "phases.h"

/* The phases as a table. */
void phases_print(hatf_buf *o, const phases *p);

#endif
