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

int cmd_replay_tune(int argc, char **argv)
{
    static const struct option opts[] = {
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
    static const char *const objectives[] = { "rss", "throughput", "latency", "balanced" };
    static const char *const touches[] = { "none", "page", "all" };
    static const char *const threadings[] = { "trace", "1" };
    const char *list = NULL, *file = NULL, *plot = NULL;
    char **specs = calloc((size_t)argc, sizeof *specs);
    unsigned nspecs = 0;
    int builtin = 1, only_list = 0, json = 0, obj = RP_OBJ_RSS, touch = RP_TOUCH_PAGE, single = 0, c, rc = 0;
    uint64_t repeat = RP_TUNE_REPEAT, every = 64;
    hatf_format fmt = HATF_FMT_AUTO;
    if (!specs) return CLI_FAIL;
    cli_getopt_begin();
    while (!rc && (c = getopt_long(argc, argv, ":hj:", opts, NULL)) != -1) {
        switch (c) {
        case O_TUNE: break;
        case O_ALLOC: list = optarg; break;
        case O_OBJ: rc = cli_parse_word("replay", "--objective", optarg, objectives, 4, &obj); break;
        case O_SETTING: specs[nspecs++] = optarg; break;
        case O_FILE: file = optarg; break;
        case O_NOBUILTIN: builtin = 0; break;
        case O_LIST: only_list = 1; break;
        case O_REPEAT:
            if (!(rc = cli_parse_u64("replay", "--repeat", optarg, &repeat)) && (repeat < 1 || repeat > 1000))
                rc = cli_usage("replay", "--repeat must be 1 to 1000");
            break;
        case O_EVERY:
            if (!(rc = cli_parse_u64("replay", "--latency-every", optarg, &every)) && (every < 1 || every > 1000000))
                rc = cli_usage("replay", "--latency-every must be 1 to 1000000");
            break;
        case O_JSON: json = 1; break;
        case O_PLOT: plot = optarg; break;
        case O_TOUCH: rc = cli_parse_word("replay", "--touch", optarg, touches, 3, &touch); break;
        case O_THREADS: rc = cli_parse_word("replay", "--threads", optarg, threadings, 2, &single); break;
        case O_FROM: rc = cli_parse_format("replay", "--from", optarg, &fmt); break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'j': rc = cli_parse_jobs("replay", optarg); break;
        case 'h': free(specs); return cli_help(help);
        default: rc = cli_bad_option("replay", c, argv);
        }
    }
    cli_tune t = { 0 };
    cli_replay x = { 0 };
    const char *path = NULL;
    int partial = CLI_OK, plot_made = 0, drawn = 0;
    if (!rc && !only_list) rc = cli_one_file("replay", argc, argv, &path);
    if (!rc && plot && !only_list) rc = plot_ok(plot, &plot_made);
    if (!rc) rc = cli_tune_settings("replay", list, specs, nspecs, file, builtin, &t);
    if (!rc && only_list) {
        print_list(&t);
        rc = cli_finish_stdout(CLI_OK);
        goto out;
    }
    if (rc) goto out;
    if (cli_replay_compile("replay", path, fmt, single, 1, &x, &partial) ||
        cli_tune_run("replay", &x, &t, (rp_run_opts){ .touch = touch, .latency_every = (unsigned)every }, (unsigned)repeat)) {
        rc = CLI_FAIL;
        goto out;
    }
    int best = rp_tune_best(t.rows, t.n, (rp_tune_objective)obj);
    rp_tune_ctx ctx = cli_tune_ctx(&x, &t, path, touch, (unsigned)repeat, (rp_tune_objective)obj);
    if (json) rp_tune_print_json(stdout, &ctx, t.rows, t.n, best);
    else rp_tune_print_table(stdout, &ctx, t.rows, t.n, best);
    rc = cli_finish_stdout(best < 0 ? CLI_FAIL : CLI_OK);
    hatf_err err = { 0 };
    if (plot && rp_tune_plot(plot, &ctx, t.rows, t.n, best, &err)) {
        cli_error("replay: %s", err.msg);
        rc = CLI_FAIL;
    } else {
        drawn = 1;
    }
out:
    if (plot_made && !drawn) unlink(plot);
    cli_tune_free(&t);
    cli_replay_free(&x);
    free(specs);
    return rc == CLI_OK ? partial : rc;
}
