/* replay_tune.h — hatrace replay --tune: the trace replayed under each
 * setting of a grid, shared with hatrace report --tune (docs/replay.md,
 * "Tuning"). */
#ifndef HATRACE_CLI_REPLAY_TUNE_H
#define HATRACE_CLI_REPLAY_TUNE_H

#include "replay_run.h"
#include "../replay/tune.h"

typedef struct cli_tune {
    rp_tune_setting *set;      /* the settings, in the order they run */
    unsigned n;
    rp_allocator *alloc;       /* per setting: its allocator, resolved */
    const char **paths;        /* per setting: the shared object preloaded ("" for glibc) */
    rp_tune_row *rows;         /* per setting, after cli_tune_run */
} cli_tune;

/* The settings to run: per allocator of list (NULL: the four, those installed),
 * its built-in grid (builtin = 0: its defaults alone), then the given specs
 * ('ALLOC:KEY=VALUE') and the lines of file (NULL: none). cmd names the
 * command in messages. @return 0, or CLI_USAGE / CLI_FAIL (said). */
int cli_tune_settings(const char *cmd, const char *list, char **specs, unsigned nspecs, const char *file,
                      int builtin, cli_tune *t);
/* Run each setting repeat times, each run in its own process, on x's plan. A
 * setting whose run fails or crashes is marked failed and the next one runs.
 * @return 0, or CLI_FAIL (said) when the runs cannot start. */
int cli_tune_run(const char *cmd, cli_replay *x, cli_tune *t, rp_run_opts run, unsigned repeat);
/* The context of rp_tune_print_* for x's trace at path. */
rp_tune_ctx cli_tune_ctx(const cli_replay *x, const cli_tune *t, const char *path, int touch, unsigned repeat,
                         rp_tune_objective obj);
void cli_tune_free(cli_tune *t);

#define RP_TUNE_REPEAT 3  /* runs per setting unless --repeat says otherwise */

/* hatrace report --tune: compile x's plan from path unless there is one, run
 * the settings RP_TUNE_REPEAT times each, and append replay --tune --json's
 * object (objective rss) to out. @return 0, -1 out of memory, or CLI_FAIL (said). */
int cli_tune_page_json(const char *cmd, const char *path, hatf_format fmt, cli_replay *x, cli_tune *t, hatf_buf *out);

/* hatrace replay --tune (cmd_replay hands its argv over). */
int cmd_replay_tune(int argc, char **argv);

#endif
