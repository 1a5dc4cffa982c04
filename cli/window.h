/* window.h — the part of a trace a reading command looks at: a time window
 * (--from-time, --to-time), a phase (--phase NAME) and a thread (--thread N),
 * applied once, as a filter on the source every command reads
 * (hatf_source_filter), so stats (with --sites, --timeline, --massif,
 * --phases), report, validate and replay see the same events
 * (docs/tools.md, "Windows").
 *
 * What a window holds: the calls made in it (by the thread, with --thread)
 * and the objects they made. An object made before the window, or by another
 * thread, is outside it: its free in the window is passed over, and a
 * realloc of it in the window is given as realloc(NULL, size), which makes
 * an object of the window. The free of a window's object is kept whichever
 * thread makes it. So live bytes start at 0 when the window opens, its peak
 * is the most bytes its own objects held at once, and what it leaves live
 * at its end (the objects it made and did not free in it) is "leaked".
 * Heap creations pass at any time (a heap the window uses exists), other
 * heap and thread records and comments only within the window.
 */
#ifndef HATRACE_CLI_WINDOW_H
#define HATRACE_CLI_WINDOW_H

#include <getopt.h>

#include "hatf_source.h"

enum { WINDOW_O_FROM = 950, WINDOW_O_TO, WINDOW_O_PHASE, WINDOW_O_THREAD };

#define WINDOW_OPTIONS                                                  \
    { "from-time", required_argument, NULL, WINDOW_O_FROM },            \
    { "to-time", required_argument, NULL, WINDOW_O_TO },                \
    { "phase", required_argument, NULL, WINDOW_O_PHASE },               \
    { "thread", required_argument, NULL, WINDOW_O_THREAD }

/* The options' lines of a command's --help. */
#define WINDOW_HELP                                                                      \
    "  --from-time T, --to-time T  only the events from T on, and before T: a time\n"   \
    "                 since the trace's start, in s, ms, us or ns (1.5s, 250ms;\n"      \
    "                 s when no unit is given)\n"                                        \
    "  --phase NAME   only the phase NAME (as stats --phases names them: from the\n"     \
    "                 program's comment NAME to its next one; \"(start)\": before\n"     \
    "                 the first)\n"                                                      \
    "  --thread N     only the calls of thread N and the objects they made (their\n"     \
    "                 frees by any thread included); docs/tools.md, \"Windows\"\n"

/* 1 when opt is one of WINDOW_OPTIONS. */
static inline int window_option(int opt) { return opt >= WINDOW_O_FROM && opt <= WINDOW_O_THREAD; }

/* Take a window option's value for the sources cli_open_source opens next.
 * @return 0, or CLI_USAGE after saying why. */
int window_parse(const char *cmd, int opt, const char *arg);

/* 1 when a window option was given. */
int window_given(void);

/* "T" as nanoseconds ("1.5s", "250ms", "20us", "100ns", "2"). @return 0 or -1. */
int window_parse_time(const char *arg, uint64_t *ns);

/* Put the window on s (cli_open_source does). @return 0, or -1 out of memory
 * (said). */
int window_install(hatf_source *s);

#endif
