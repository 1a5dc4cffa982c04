/* sites.h — allocation sites from call stacks (cli/sites.c). */
#ifndef HATRACE_CLI_SITES_H
#define HATRACE_CLI_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "hatf_container.h"
#include "hatf_source.h"

enum { SITES_SORT_COUNT, SITES_SORT_BYTES, SITES_SORT_PEAK };

/* Read every event of src and print its allocation sites, sorted (SITES_SORT_*),
 * the first top of them (0: all). @return a CLI_* exit code. */
int sites_report(hatf_source *src, const char *path, int json, int sort, uint64_t top);

/* The frames of stack id, innermost first, or 0 frames when the trace has no
 * stack tables (a text or raw HATF 1.0 trace: r is NULL) or not this one. */
size_t sites_stack(hatf_reader *r, uint64_t id, const uint64_t **frames);
/* "function+0xoff (module)" for a frame address, "0x..." when unknown.
 * r may be NULL (not a container). */
void sites_frame_name(hatf_reader *r, uint64_t addr, char *out, size_t cap);

/* The event's HATF_A_STACK id, 0 if it has none. */
uint64_t sites_event_stack(const hatf_event *ev);

#endif
