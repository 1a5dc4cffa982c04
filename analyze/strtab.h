/* strtab.h — a table of distinct strings numbered in order of first use
 * (analyze/strtab.c): the string table of a pprof profile, the frames of a
 * speedscope file, the strings of a heaptrack file.
 */
#ifndef ANALYZE_STRTAB_H
#define ANALYZE_STRTAB_H

#include <stddef.h>

#include "addrmap.h"

typedef struct strtab {
    addrmap index;   /* a string's hash (moved on past a clash) -> its number */
    char **v;        /* copies, by number */
    size_t n, cap;
} strtab;

/* @return 0, or -1 out of memory. */
int strtab_init(strtab *t);
void strtab_free(strtab *t);

/* The number of s, given it when new (*added set then, if added is not NULL).
 * @return it, or -1 out of memory. */
long strtab_id(strtab *t, const char *s, int *added);

#endif
