/* count_out.h — how the counting workloads report what they did: one
 * "key value" line per count on stdout, written with write(2) so printing
 * allocates nothing the trace would show. */
#ifndef COUNT_OUT_H
#define COUNT_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static inline void out(const char *key, uint64_t v)
{
    char line[96];
    int n = snprintf(line, sizeof line, "%s %llu\n", key, (unsigned long long)v);
    if (write(1, line, (size_t)n) != n) _exit(3);
}

#endif
