/* replay_run.h — what hatrace replay and hatrace report --replay share: the
 * allocators named, the trace compiled into a plan, and each allocator run on
 * it in its own process (medians over the repeats). */
#ifndef HATRACE_CLI_REPLAY_RUN_H
#define HATRACE_CLI_REPLAY_RUN_H

#include <stdint.h>

#include "hatf_source.h"
#include "../replay/replay.h"

typedef struct cli_replay {
    rp_allocator *allocs;
    unsigned nalloc;
    rp_plan plan;
    int have_plan;
    uint64_t program_rss;     /* the recorded program's peak resident bytes, the recorder's own memory taken out; 0: not sampled */
    rp_report *rep;           /* nalloc reports after cli_replay_run */

    /* the plan's file and how it was compiled */
    int plan_fd;              /* the plan's file (unlinked), or -1; 0 before the compile */
    const char *plan_where;   /* "memory" or its directory (rp_plan_tmpfile) */
    uint64_t window_ops;      /* compiler window per thread (0: RP_WINDOW_OPS) */
    int phases;               /* split the plan at the program's comments (replay --phases) */
    double compile_s;         /* the compile's wall time */
    double compile_cpu_s;     /* and its CPU time, the reading thread's included */
    uint32_t trace_threads;   /* the trace's threads with ops (0: compiled with --threads 1) */
    uint32_t at_once;         /* the most of them alive at once (rp_plan_at_once); past
                                 RP_RUNNERS_MAX the plan is compiled again on one thread */
} cli_replay;

/* The allocators of a LIST given to option opt (NULL: each of the four that
 * is installed); none is an error. cmd names the command in messages.
 * @return 0, or CLI_USAGE / CLI_FAIL (said). */
int cli_replay_allocators(const char *cmd, const char *opt, const char *list, cli_replay *x);
/* Compile the trace at path into x->plan, a file in $TMPDIR written through
 * windows of x->window_ops ops per thread (single: one runner thread), and find
 * the program's peak resident bytes. say_damage: say what cli_read_end says
 * of a damaged or cut trace (*partial its status either way). A trace with
 * more than RP_RUNNERS_MAX threads alive at once is compiled again on one
 * thread (said in a line). Refused, before any run: an allocation larger than
 * the machine's memory, a peak of live bytes beyond the memory available
 * (docs/replay.md, "Limits").
 * @return 0, or CLI_FAIL (said). */
int cli_replay_compile(const char *cmd, const char *path, hatf_format fmt, int single, int say_damage,
                       cli_replay *x, int *partial);
/* Run each allocator repeat times on the plan into x->rep (run.progress is set
 * per run). @return 0, or CLI_FAIL (said). */
int cli_replay_run(const char *cmd, cli_replay *x, rp_run_opts run, unsigned repeat);
/* The context rp_print_* take, for a trace at path. */
rp_report_ctx cli_replay_ctx(const cli_replay *x, const char *path, int touch, unsigned repeat, unsigned every);
void cli_replay_free(cli_replay *x);

#endif
