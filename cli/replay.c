/* replay.c — hatrace replay: drive allocators from a trace and measure them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"
#include "replay_run.h"
#include "replay_tune.h"

static const char help[] =
    "usage: hatrace replay [options] FILE\n"
    "\n"
    "Compile the trace into a plan (objects as dense slots, one op list per\n"
    "thread) written to a file ($TMPDIR when set, else in memory when it takes\n"
    "at most a quarter of the memory available, else /tmp), and run it against\n"
    "each allocator in its own process, then print speed, latency, memory and\n"
    "fragmentation per allocator (docs/replay.md). A trace asking for more than\n"
    "the machine has (an allocation larger than its memory, live bytes beyond the\n"
    "memory available) is refused before any run, naming the record.\n"
    "\n"
    "  --allocator LIST   comma-separated: glibc, jemalloc, tcmalloc, mimalloc,\n"
    "                     null (a bump allocator: the runner's own cost), or a\n"
    "                     path to a shared object exporting malloc/free.\n"
    "                     Default: each of the four that is installed\n"
    "  --threads trace|1  a runner per trace thread (default), on as many OS\n"
    "                     threads as the trace has threads alive at once (more\n"
    "                     than 1024: on one, said), or the whole trace in\n"
    "                     global order on one thread\n"
    "  --touch none|page|all  how allocated memory is written (default page:\n"
    "                     one write per page, in the share of each block the\n"
    "                     trace's resident samples show the program kept resident)\n"
    "  --repeat N         run each allocator N times, report medians (default 1)\n"
    "  --latency-every N  time one call in N on average (default 64; 1 = all)\n"
    "  --heaps native|free-each  trace heaps as the allocator's own heaps where\n"
    "                     it has them (mimalloc heaps, jemalloc arenas; default),\n"
    "                     or always malloc'd and freed one by one at destroyHeap\n"
    "  --json             a JSON array of objects, one per allocator\n"
    "  --phases           the figures split at the trace's comments (hatrace_comment\n"
    "                     in include/hatrace.h), as stats --phases splits them:\n"
    "                     per allocator and phase its ops, calls, time, peak live\n"
    "                     and resident bytes and fragmentation\n"
    "  --series FILE      memory over time as CSV: allocator,op,live_bytes,rss_bytes\n"
    "  --plot FILE        draw the series with gnuplot (.png or .svg)\n"
    "  --from FORMAT      hatrace (default), hatf1.0, text or metatf\n"
    "  --tune             replay under a grid of each allocator's settings, each\n"
    "                     run repeated, and name the best for --objective; with\n"
    "                     --setting, --settings-file, --no-builtin and --list\n"
    "                     ('hatrace replay --tune --help')\n"
    "  --window-ops N     ops per runner thread the compiler holds in memory\n"
    "                     before writing the older half to the plan file\n"
    "                     (default 262144; at least 4; the figures do not\n"
    "                     depend on it)\n"
    "  --strict           stop at the first damaged part of a container (exit 1)\n"
    "                     instead of reading on past it (the damage said)\n"
    WINDOW_HELP
    "  -j, --jobs N       read on N threads (default: one per core;\n"
    "                     1: this thread alone)\n"
    "  -h, --help         this help\n";

enum { O_ALLOC = 1000, O_THREADS, O_TOUCH, O_REPEAT, O_EVERY, O_JSON, O_SERIES, O_PLOT, O_FROM, O_HEAPS, O_WINDOW, O_PHASES };

/* Make sure an output file can be written before the runs, which may take
 * minutes, made with the permission bits of the trace it comes from (a
 * private trace's series and chart are private too). @return 0, or -1 after
 * printing the problem; *made says whether the file is new (to be removed if
 * nothing gets written to it). */
static int can_write(const char *path, const char *trace, int *made)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, cli_derived_mode(trace));
    *made = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

/* What the command line asks for. */
typedef struct replay_args {
    const char *alloc_list, *series, *plot, *path;
    int single, json, phases, touch, free_each;
    uint64_t repeat, every, window;
    hatf_format fmt;
} replay_args;

static const struct option replay_opts[] = {
    { "allocator", required_argument, NULL, O_ALLOC },
    { "threads", required_argument, NULL, O_THREADS },
    { "touch", required_argument, NULL, O_TOUCH },
    { "repeat", required_argument, NULL, O_REPEAT },
    { "latency-every", required_argument, NULL, O_EVERY },
    { "json", no_argument, NULL, O_JSON },
    { "phases", no_argument, NULL, O_PHASES },
    { "series", required_argument, NULL, O_SERIES },
    { "plot", required_argument, NULL, O_PLOT },
    { "from", required_argument, NULL, O_FROM },
    { "heaps", required_argument, NULL, O_HEAPS },
    { "window-ops", required_argument, NULL, O_WINDOW },
    { "strict", no_argument, NULL, CLI_O_STRICT },
    CLI_JOBS_OPTION,
    WINDOW_OPTIONS,
    { "help", no_argument, NULL, 'h' },
    { 0 },
};

/* One option c but -h and the windows' (its value optarg) into a.
 * @return 0, or a CLI_* exit code. */
static int replay_option(replay_args *a, int c, char **argv)
{
    int rc = 0;
    switch (c) {
    case O_ALLOC: a->alloc_list = optarg; break;
    case O_THREADS:
        if (strcmp(optarg, "trace") == 0) a->single = 0;
        else if (strcmp(optarg, "1") == 0) a->single = 1;
        else return cli_usage("replay", "--threads must be 'trace' or '1', not '%s'", optarg);
        break;
    case O_TOUCH:
        if (strcmp(optarg, "none") == 0) a->touch = RP_TOUCH_NONE;
        else if (strcmp(optarg, "page") == 0) a->touch = RP_TOUCH_PAGE;
        else if (strcmp(optarg, "all") == 0) a->touch = RP_TOUCH_ALL;
        else return cli_usage("replay", "--touch must be none, page or all, not '%s'", optarg);
        break;
    case O_REPEAT:
        if ((rc = cli_parse_u64("replay", "--repeat", optarg, &a->repeat))) return rc;
        if (a->repeat < 1 || a->repeat > 1000) return cli_usage("replay", "--repeat must be 1 to 1000");
        break;
    case O_EVERY:
        if ((rc = cli_parse_u64("replay", "--latency-every", optarg, &a->every))) return rc;
        if (a->every < 1 || a->every > 1000000) return cli_usage("replay", "--latency-every must be 1 to 1000000");
        break;
    case O_WINDOW:
        if ((rc = cli_parse_u64("replay", "--window-ops", optarg, &a->window))) return rc;
        if (a->window < 4 || a->window > ((uint64_t)1 << 32))
            return cli_usage("replay", "--window-ops must be 4 to 4294967296");
        break;
    case O_JSON: a->json = 1; break;
    case O_PHASES: a->phases = 1; break;
    case O_SERIES:
        /* "-" is standard input for inputs and standard output for convert -o; here
         * standard output takes the results, so no file may be called "-" */
        if (!strcmp(optarg, "-")) return cli_usage("replay", "--series -: standard output takes the results; name a file");
        a->series = optarg;
        break;
    case O_PLOT: a->plot = optarg; break;
    case O_FROM: return cli_parse_format("replay", "--from", optarg, &a->fmt);
    case CLI_O_STRICT: cli_strict = 1; break;
    case O_HEAPS:
        if (strcmp(optarg, "native") == 0) a->free_each = 0;
        else if (strcmp(optarg, "free-each") == 0) a->free_each = 1;
        else return cli_usage("replay", "--heaps must be native or free-each, not '%s'", optarg);
        break;
    case 'j': return cli_parse_jobs("replay", optarg);
    default: return cli_bad_option("replay", c, argv);
    }
    return 0;
}

/* The series (to a->series, or a temporary file for the plot) and the plot,
 * after the runs. @return CLI_OK, CLI_FAIL (said), or -1 (said) when no
 * temporary file could be made (nothing written). */
static int replay_outputs(const replay_args *a, rp_report *rep, unsigned nalloc)
{
    hatf_err err = { 0 };
    int rc = CLI_OK;
    char tmpcsv[64] = "";
    const char *csv = a->series;
    if (a->plot && !csv) {
        int tfd;
        snprintf(tmpcsv, sizeof tmpcsv, "/tmp/hatrace-series-XXXXXX");
        if ((tfd = mkstemp(tmpcsv)) < 0) {
            cli_error("replay: cannot create a temporary file for the plot");
            return -1;
        }
        close(tfd);
        csv = tmpcsv;
    }
    if (csv && rp_write_series(csv, rep, nalloc, &err)) {
        cli_error("replay: %s", err.msg);
        rc = CLI_FAIL;
    } else if (a->plot) {
        char title[512];
        snprintf(title, sizeof title, "%s: allocator resident memory and live bytes (touch %s, threads %s)",
                 a->path, rp_touch_names[a->touch], a->single ? "1" : "trace");
        if (rp_plot(a->plot, csv, rep, nalloc, title, &err)) {
            cli_error("replay: %s", err.msg);
            rc = CLI_FAIL;
        }
    }
    if (tmpcsv[0]) unlink(tmpcsv);
    return rc;
}

/* Compile the trace, run the allocators, print the results and write the
 * outputs. @return a CLI_* exit code. */
static int replay_trace(const replay_args *a)
{
    cli_replay x = { .window_ops = a->window, .phases = a->phases };
    int partial = CLI_OK, rc;
    if ((rc = cli_replay_allocators("replay", "--allocator", a->alloc_list, &x))) return rc;
    if (cli_replay_compile("replay", a->path, a->fmt, a->single, 1, &x, &partial)) {
        cli_replay_free(&x);
        return CLI_FAIL;
    }
    int series_made = 0, plot_made = 0, written = 0;
    rc = CLI_FAIL;
    if ((a->series && can_write(a->series, a->path, &series_made)) || (a->plot && can_write(a->plot, a->path, &plot_made)))
        goto out;
    rp_run_opts run = { .touch = a->touch, .latency_every = (unsigned)a->every, .heaps_free_each = a->free_each };
    if (cli_replay_run("replay", &x, run, (unsigned)a->repeat)) goto out;
    rp_report_ctx ctx = cli_replay_ctx(&x, a->path, a->touch, (unsigned)a->repeat, (unsigned)a->every);
    if (a->json) rp_print_json(stdout, &ctx, x.rep, x.nalloc);
    else rp_print_table(stdout, &ctx, x.rep, x.nalloc);
    rc = cli_finish_stdout(CLI_OK);
    int out_rc = replay_outputs(a, x.rep, x.nalloc);
    if (out_rc != CLI_OK) rc = CLI_FAIL;
    written = out_rc >= 0;
out:
    if (!written && series_made) unlink(a->series);
    if (!written && plot_made) unlink(a->plot);
    cli_replay_free(&x);
    return rc == CLI_OK ? partial : rc;
}

int cmd_replay(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0) return rp_child_main(argc - 2, argv + 2);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--tune") == 0) return cmd_replay_tune(argc, argv);
    replay_args a = { .touch = RP_TOUCH_PAGE, .repeat = 1, .every = 64, .window = RP_WINDOW_OPS, .fmt = HATF_FMT_AUTO };
    int c, rc;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, "+:hj:", replay_opts, NULL)) != -1) {
        if (c == 'h') return cli_help(help);
        rc = window_option(c) ? window_parse("replay", c, optarg) : replay_option(&a, c, argv);
        if (rc) return rc;
    }
    if ((rc = cli_one_file("replay", argc, argv, a.fmt, &a.path))) return rc;
    if (a.plot) {
        const char *dot = strrchr(a.plot, '.');
        if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg")))
            return cli_usage("replay", "--plot %s: the name must end in .png or .svg", a.plot);
    }
    return replay_trace(&a);
}
