/* replay_tune.c — hatrace replay --tune: which settings of an allocator suit a
 * trace (docs/replay.md, "Tuning"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "replay_tune.h"

static const char help[] =
    "usage: hatrace replay --tune [options] FILE\n"
    "       hatrace replay --tune --list [--allocator LIST] [--setting S]... [--settings-file F]\n"
    "\n"
    "Replay the trace under each setting of a grid of each allocator's settings\n"
    "(glibc's GLIBC_TUNABLES, jemalloc's MALLOC_CONF, tcmalloc's TCMALLOC_* and\n"
    "mimalloc's MIMALLOC_* variables), each run in its own process, repeated; print\n"
    "per setting the median and min-max over the runs of its peak resident memory,\n"
    "the four fragmentation measures, throughput and p99 latency, mark the Pareto\n"
    "front (peak resident against throughput), and name the best setting for the\n"
    "objective with the line that sets it in production (docs/replay.md, \"Tuning\").\n"
    "A setting whose run fails or crashes is said, and the others run.\n"
    "\n"
    "  --allocator LIST   comma-separated among glibc, jemalloc, tcmalloc and\n"
    "                     mimalloc (default: each that is installed)\n"
    "  --objective rss|throughput|latency|balanced  what \"best\" means: least peak\n"
    "                     resident memory (default), most calls per second, least\n"
    "                     p99 latency, or the point of the Pareto front least worse\n"
    "                     than the best of both\n"
    "  --setting 'ALLOC:KEY=VALUE[,KEY=VALUE]'  one more setting (repeatable), as\n"
    "                     'glibc:arena_max=2', 'jemalloc:dirty_decay_ms=0,narenas=1'\n"
    "  --settings-file F  more settings, one a line ('#' starts a comment)\n"
    "  --no-builtin       only the settings given, beside each allocator's defaults\n"
    "  --list             print the settings that would run, one a line, and stop\n"
    "  --repeat N         runs per setting (default 3)\n"
    "  --json             a JSON object: the settings with their figures\n"
    "  --plot FILE        peak resident against throughput, one point per setting,\n"
    "                     with gnuplot (.png or .svg)\n"
    "  --touch none|page|all, --threads trace|1, --latency-every N, --from FORMAT,\n"
    "  --strict, -j N     as for hatrace replay\n"
    "  -h, --help         this help\n";

enum { O_TUNE = 1000, O_ALLOC, O_OBJ, O_SETTING, O_FILE, O_NOBUILTIN, O_LIST, O_REPEAT, O_JSON, O_PLOT, O_TOUCH,
       O_THREADS, O_EVERY, O_FROM };

static void print_list(const cli_tune *t)
{
    char env[RP_TUNE_KEYS * RP_TUNE_ENV_LEN];
    for (unsigned i = 0; i < t->n; i++) {
        rp_tune_env_line(&t->set[i], env, sizeof env);
        printf("%s\t%s\t%s\n", t->set[i].alloc, t->set[i].label, env);
    }
}

/* Check the chart's name and that it can be made before the runs, which may
 * take minutes; *made: the file is new (removed if no chart gets drawn). */
static int plot_ok(const char *plot, int *made)
{
    const char *dot = strrchr(plot, '.');
    if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg")))
        return cli_usage("replay", "--plot %s: the name must end in .png or .svg", plot);
    int fd = open(plot, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    *made = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = open(plot, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("%s: cannot write: %s", plot, strerror(errno));
        return CLI_FAIL;
    }
    close(fd);
    return 0;
}

/* What the command line asks for. */
typedef struct tune_args {
    const char *list, *file, *plot, *path;
    char **specs;             /* the --setting values, nspecs of them */
    unsigned nspecs;
    int builtin, only_list, json, obj, touch, single;
    uint64_t repeat, every;
    hatf_format fmt;
} tune_args;

static const struct option tune_opts[] = {
    { "tune", no_argument, NULL, O_TUNE },
    { "allocator", required_argument, NULL, O_ALLOC },
    { "objective", required_argument, NULL, O_OBJ },
    { "setting", required_argument, NULL, O_SETTING },
    { "settings-file", required_argument, NULL, O_FILE },
    { "no-builtin", no_argument, NULL, O_NOBUILTIN },
    { "list", no_argument, NULL, O_LIST },
    { "repeat", required_argument, NULL, O_REPEAT },
    { "json", no_argument, NULL, O_JSON },
    { "plot", required_argument, NULL, O_PLOT },
    { "touch", required_argument, NULL, O_TOUCH },
    { "threads", required_argument, NULL, O_THREADS },
    { "latency-every", required_argument, NULL, O_EVERY },
    { "from", required_argument, NULL, O_FROM },
    { "strict", no_argument, NULL, CLI_O_STRICT },
    CLI_JOBS_OPTION,
    { "help", no_argument, NULL, 'h' },
    { 0 },
};

/* One option c but -h (its value optarg) into a. @return 0, or a CLI_* exit code. */
static int tune_option(tune_args *a, int c, char **argv)
{
    static const char *const objectives[] = { "rss", "throughput", "latency", "balanced" };
    static const char *const touches[] = { "none", "page", "all" };
    static const char *const threadings[] = { "trace", "1" };
    int rc = 0;
    switch (c) {
    case O_TUNE: break;
    case O_ALLOC: a->list = optarg; break;
    case O_OBJ: rc = cli_parse_word("replay", "--objective", optarg, objectives, 4, &a->obj); break;
    case O_SETTING: a->specs[a->nspecs++] = optarg; break;
    case O_FILE: a->file = optarg; break;
    case O_NOBUILTIN: a->builtin = 0; break;
    case O_LIST: a->only_list = 1; break;
    case O_REPEAT:
        if (!(rc = cli_parse_u64("replay", "--repeat", optarg, &a->repeat)) && (a->repeat < 1 || a->repeat > 1000))
            rc = cli_usage("replay", "--repeat must be 1 to 1000");
        break;
    case O_EVERY:
        if (!(rc = cli_parse_u64("replay", "--latency-every", optarg, &a->every)) && (a->every < 1 || a->every > 1000000))
            rc = cli_usage("replay", "--latency-every must be 1 to 1000000");
        break;
    case O_JSON: a->json = 1; break;
    case O_PLOT: a->plot = optarg; break;
    case O_TOUCH: rc = cli_parse_word("replay", "--touch", optarg, touches, 3, &a->touch); break;
    case O_THREADS: rc = cli_parse_word("replay", "--threads", optarg, threadings, 2, &a->single); break;
    case O_FROM: rc = cli_parse_format("replay", "--from", optarg, &a->fmt); break;
    case CLI_O_STRICT: cli_strict = 1; break;
    case 'j': rc = cli_parse_jobs("replay", optarg); break;
    default: rc = cli_bad_option("replay", c, argv);
    }
    return rc;
}

/* Compile the trace, run the settings, print and draw them.
 * @return a CLI_* exit code; *drawn: the chart was drawn. */
static int tune_trace(const tune_args *a, cli_tune *t, cli_replay *x, int *partial, int *drawn)
{
    if (cli_replay_compile("replay", a->path, a->fmt, a->single, 1, x, partial) ||
        cli_tune_run("replay", x, t, (rp_run_opts){ .touch = a->touch, .latency_every = (unsigned)a->every },
                     (unsigned)a->repeat))
        return CLI_FAIL;
    int best = rp_tune_best(t->rows, t->n, (rp_tune_objective)a->obj);
    rp_tune_ctx ctx = cli_tune_ctx(x, t, a->path, a->touch, (unsigned)a->repeat, (rp_tune_objective)a->obj);
    if (a->json) rp_tune_print_json(stdout, &ctx, t->rows, t->n, best);
    else rp_tune_print_table(stdout, &ctx, t->rows, t->n, best);
    int rc = cli_finish_stdout(best < 0 ? CLI_FAIL : CLI_OK);
    hatf_err err = { 0 };
    if (a->plot && rp_tune_plot(a->plot, &ctx, t->rows, t->n, best, &err)) {
        cli_error("replay: %s", err.msg);
        return CLI_FAIL;
    }
    *drawn = 1;
    return rc;
}

int cmd_replay_tune(int argc, char **argv)
{
    tune_args a = { .builtin = 1, .obj = RP_OBJ_RSS, .touch = RP_TOUCH_PAGE, .repeat = RP_TUNE_REPEAT, .every = 64,
                    .fmt = HATF_FMT_AUTO, .specs = calloc((size_t)argc, sizeof *a.specs) };
    int c, rc = 0;
    if (!a.specs) return CLI_FAIL;
    cli_getopt_begin();
    while (!rc && (c = getopt_long(argc, argv, ":hj:", tune_opts, NULL)) != -1) {
        if (c == 'h') {
            free(a.specs);
            return cli_help(help);
        }
        rc = tune_option(&a, c, argv);
    }
    cli_tune t = { 0 };
    cli_replay x = { 0 };
    int partial = CLI_OK, plot_made = 0, drawn = 0;
    if (!rc && !a.only_list) rc = cli_one_file("replay", argc, argv, a.fmt, &a.path);
    if (!rc && a.plot && !a.only_list) rc = plot_ok(a.plot, &plot_made);
    if (!rc) rc = cli_tune_settings("replay", a.list, a.specs, a.nspecs, a.file, a.builtin, &t);
    if (!rc && a.only_list) {
        print_list(&t);
        rc = cli_finish_stdout(CLI_OK);
    } else if (!rc) {
        rc = tune_trace(&a, &t, &x, &partial, &drawn);
    }
    if (plot_made && !drawn) unlink(a.plot);
    cli_tune_free(&t);
    cli_replay_free(&x);
    free(a.specs);
    return rc == CLI_OK ? partial : rc;
}
