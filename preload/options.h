/* options.h — the recorder's options (options.c): HATRACE_* read without
 * allocating, the output name pattern. */
#ifndef HT_OPTIONS_H
#define HT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "prim.h"

typedef enum ht_opt_id {
    HT_OPT_ZSTD_LEVEL, HT_OPT_RING_SIZE, HT_OPT_FLUSH_MS, HT_OPT_FOLLOW_CHILDREN,
    HT_OPT_DROP, HT_OPT_VERBOSE, HT_OPT_STACKS, HT_OPT_STACKS_FP, HT_OPT_STACKS_CHECK, HT_OPT_TIME_RES,
    HT_OPT_ENCODE_HELPER, HT_OPT_EFFORT,
    HT_OPT_COUNT_
} ht_opt_id;
/* HT_OPT_EFFORT's values (HATRACE_EFFORT=auto|fast|full|stored, effort.c; auto: fast, the default). */
enum { HT_EFFORT_AUTO = 0, HT_EFFORT_FAST = 1, HT_EFFORT_FULL = 2, HT_EFFORT_STORED = 3 };
/* Parse HATRACE_* from the environment (no allocation); invalid values warn once
 * and keep the default. Strings: HATRACE_OUTPUT, HATRACE_CLOCK, HATRACE_REPORT. */
void ht_options_init(void) HT_HIDDEN;
long ht_opt(ht_opt_id id) HT_HIDDEN;
const char *ht_opt_output(void) HT_HIDDEN;  /* output pattern */
const char *ht_opt_clock(void) HT_HIDDEN;   /* "auto", "tsc" or "monotonic" */
const char *ht_opt_report(void) HT_HIDDEN;  /* file to append a summary line to, or NULL */
/* Parse a decimal number with an optional k/m/g suffix. @return 0 or -1. */
int ht_parse_long(const char *s, long *out) HT_HIDDEN;
/* Expand %p %e %t %% of pattern into out. @return 0, or -1 if it does not fit. */
int ht_expand_pattern(const char *pattern, char *out, size_t cap, uint32_t pid,
                      const char *prog, uint64_t start_s) HT_HIDDEN;
/* Where the options are read from: getenv by default, attach.c's own text once attached. */
void ht_options_from(const char *(*get)(const char *name)) HT_HIDDEN;

#endif /* HT_OPTIONS_H */
