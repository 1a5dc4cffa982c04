/* phases_print.h — stats --phases' table and JSON (analyze/phases.h counts). */
#ifndef HATRACE_CLI_PHASES_PRINT_H
#define HATRACE_CLI_PHASES_PRINT_H

#include "phases.h"

/* The phases as a table, or as a JSON array (the value of "phases"). */
void phases_print(hatf_buf *o, const phases *p, int json);

#endif
