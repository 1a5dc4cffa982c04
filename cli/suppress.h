/* suppress.h — leak suppressions (cli/suppress.c; docs/tools.md,
 * "Suppressions"): leaks a user or the C++ runtime knows of, taken out of
 * the leak figures of stats --sites and report, each said with what it hid.
 *
 * A file has heaptrack's shape (which is LeakSanitizer's): one suppression a
 * line, "leak:PATTERN"; blank lines and lines starting with '#' are
 * comments. PATTERN matches a frame of a leak's call stack when it is found
 * in the frame's function name (as shown, demangled, or as stored), its
 * module's file name or its source file name: "*" stands for any text, a
 * leading "^" anchors it at the start, a trailing "$" at the end.
 * The built-in list (on unless --no-builtin-suppressions) names the C++
 * runtime's one-time allocations: libstdc++'s, made while the dynamic linker
 * runs its initialisers (its emergency exception pool, 72,704 bytes with
 * GCC 12 on x86-64).
 */
#ifndef HATRACE_CLI_SUPPRESS_H
#define HATRACE_CLI_SUPPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "hatf.h"

typedef struct suppression {
    char *pattern;          /* leak:PATTERN's PATTERN; a built-in: what its frames match */
    const char *innermost;  /* a built-in: the pattern frame 0 (the allocating call) must match too */
    const char *what;       /* a built-in's description; NULL for a file's */
    char origin[256];       /* "FILE:LINE" or "built-in" */
    uint64_t sites, objects, bytes;  /* what it hid */
} suppression;

typedef struct suppressions {
    suppression *v;
    size_t n;
    int user;               /* a file was given */
} suppressions;

/* Add the lines of file path. @return 0, or CLI_FAIL after saying why (the
 * file and line of a bad line). */
int suppress_load(suppressions *s, const char *path);
/* Add the built-in list. @return 0, or -1 out of memory. */
int suppress_builtin(suppressions *s);
void suppress_free(suppressions *s);

/* 1 when pattern (with * ^ $) matches text. */
int suppress_match_text(const char *pattern, const char *text);

/* The first suppression matching the stack's frames (f[0..n), innermost
 * first, named by fr), or NULL. */
suppression *suppress_find(suppressions *s, frames *fr, const uint64_t *f, size_t n);

/* 1 when what the suppressions did is worth saying: a file was given, or
 * one hid a leak (the built-in list alone, hiding nothing, is not said). */
int suppress_said(const suppressions *s);

/* What each suppression hid, as lines after the sites ("suppressed leaks:")
 * or as the JSON array of "suppressed". */
void suppress_print(hatf_buf *o, const suppressions *s, int json);

#endif
