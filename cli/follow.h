/* follow.h — hatrace stats --follow: a running program's heap, live. */
#ifndef HATRACE_CLI_FOLLOW_H
#define HATRACE_CLI_FOLLOW_H

#include <stdint.h>

/* hatrace stats --follow (cli/follow.c): the figures of a trace still being
 * written, refreshed every interval_ms until it is complete, the user stops
 * it (SIGINT) or it has not grown for timeout_s seconds. top: sites shown per
 * refresh. @return a CLI_* code. */
int stats_follow(const char *path, int json, uint64_t interval_ms, uint64_t timeout_s, uint64_t top);

#endif
