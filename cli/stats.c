/* stats.c — hatrace stats: its options, and which report they ask for
 * (the counts: analyze/stats.c; printed by cli/stats_print.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "commands.h"
#include "follow.h"
#include "sitediff_print.h"
#include "sites.h"
#include "stats_many.h"
#include "stats_print.h"
#include "stats_read.h"

static const char help[] =
    "usage: hatrace stats [--json] [--from FORMAT] [-j N] FILE\n"
    "       hatrace stats --follow [--json] [--top N] [--interval MS] [--timeout S] FILE\n"
    "       hatrace stats [--json] [--from FORMAT] FILE|FOLDER...\n"
    "       hatrace stats --sites [--by stack|function|line] [--sort KEY] [--top N] [--json | --folded]\n"
    "                     [--no-demangle] [--no-lines] [--suppress FILE] [--no-builtin-suppressions] FILE\n"
    "       hatrace stats --diff [--by stack|function|line] [--sort KEY] [--top N] [--json | --folded] OLD NEW\n"
    "       hatrace stats --timeline [--points N] [--json] FILE\n"
    "       hatrace stats --massif [--points N] [--no-demangle] [--no-lines] FILE > massif.out\n"
    "\n"
    "Count what a trace did, in global time order: alloc, free and realloc\n"
    "records, bytes allocated, the peak number and size of live objects, the\n"
    "average size, per-thread and per-heap breakdowns, a size histogram (powers\n"
    "of two), counts by function, the duration, and for a container its\n"
    "counters (dropped events, ring waits) and any damage.\n"
    "\n"
    "Several traces, or a folder (its *.hatf files: the processes of one\n"
    "recording): one row per process, its program, pid, parent pid, events,\n"
    "peak live bytes, leaked bytes and temporary allocations, and the totals.\n"
    "\n"
    "  --json         print one JSON object instead of a table\n"
    "  --from FORMAT  hatrace (default), hatf1.0, text or metatf\n"
    "  --sites        allocation sites instead (traces recorded with --stacks):\n"
    "                 per call stack, calls, bytes, the site's peak of live objects\n"
    "                 and bytes, objects still live at the end (leaked), and the\n"
    "                 call chain by function name, with each call's source\n"
    "                 file:line where this machine has the module's debug\n"
    "                 information (same build id)\n"
    "  --suppress FILE  with --sites: leaks to take out of the sites' leaked\n"
    "                 figures, in heaptrack's shape (lines leak:PATTERN matched in\n"
    "                 a frame's function, module or source file, * ^ $ as in\n"
    "                 LeakSanitizer's; # comments), each said with what it hid\n"
    "                 (docs/tools.md, \"Suppressions\"); more than one may be given\n"
    "  --no-builtin-suppressions  keep the C++ runtime's one-time allocations\n"
    "                 (libstdc++'s emergency pool), suppressed by default, among\n"
    "                 the leaks\n"
    "  --by WHAT      one line per call stack (stack, the default), or per\n"
    "                 place the allocation was made: the innermost function\n"
    "                 that is not operator new (function), or that and the\n"
    "                 source line of its call (line), each with its sites'\n"
    "                 figures summed (not their own peaks) and its three first\n"
    "                 stacks (text and JSON)\n"
    "  --sort KEY     sites by count (calls, default), bytes, peak (the site's\n"
    "                 own peak of live bytes), at-peak (the bytes it held when the\n"
    "                 whole heap was at its peak, max_live_bytes: heaptrack's peak\n"
    "                 consumers), leaked (bytes still live at the end) or\n"
    "                 temporary (objects freed by their thread before it made any\n"
    "                 other allocation: heaptrack's temporary allocations)\n"
    "  --top N        the first N sites (default 20; 0: all; with --folded, all)\n"
    "  --folded       for flame graphs (flamegraph.pl, speedscope, inferno): one\n"
    "                 line per call chain, 'outermost;...;innermost VALUE', with\n"
    "                 the --sort key's figure (calls, bytes, peak, at-peak or\n"
    "                 leaked bytes, temporary allocations);\n"
    "                 frames by function name, chains that differ only in offsets\n"
    "                 add up, frames without a name as module+0xfile-address\n"
    "  --diff         what changed per site from trace OLD to NEW (two runs of\n"
    "                 one program): sites matched by call chain (--by stack) or\n"
    "                 place (function, line); in each, calls, bytes, bytes held at\n"
    "                 the heap's peak, leaked bytes and temporary allocations,\n"
    "                 old, new and the change; the changed sites by the largest\n"
    "                 absolute change of the --sort figure (default bytes; peak\n"
    "                 and at-peak: the bytes held at the heap's peak); --folded:\n"
    "                 each chain whose figure changed with the change as its\n"
    "                 value (a differential flame graph's input)\n"
    "  --timeline     the heap over time instead: per interval (of equal time,\n"
    "                 from the first event), the live bytes and objects at its\n"
    "                 end, the most live bytes in it (with a bar), alloc and\n"
    "                 realloc records, frees and the bytes asked for; by record\n"
    "                 number when the trace has no times\n"
    "  --massif       the heap over time as valgrind massif's file (for ms_print\n"
    "                 and massif-visualizer): a snapshot per interval, the call\n"
    "                 tree of what was live at the heap's peak, at the end and\n"
    "                 at every tenth interval's end (traces recorded with\n"
    "                 --stacks; callers under 1% summed; the trace is read twice),\n"
    "                 and where the trace has the program's resident memory, the\n"
    "                 resident bytes over the live ones as mem_heap_extra_B\n"
    "  --points N     at most N intervals (default 50, at most 100000)\n"
    "  --no-demangle  C++ and Rust function names as the symbol table has them\n"
    "                 (shown demangled by default; JSON gives both)\n"
    "  --no-lines     no source lines (nor any look at the modules' files)\n"
    "  --phases       the figures split at the trace's comments (hatrace_comment\n"
    "                 in include/hatrace.h): each phase's records, calls, bytes,\n"
    "                 peak and live bytes at its end; they add up to the whole\n"
    "  --strict       stop at the first damaged part of a container (exit 1)\n"
    "                 instead of reading on past it (the damage said, exit 3)\n"
    "  --follow       a trace still being written (hatrace record's, while the\n"
    "                 program runs): every interval, the figures so far, calls\n"
    "                 per second and the top sites (--top, default 5) of the\n"
    "                 interval, until the trace is complete, the user stops it\n"
    "                 (Ctrl-C) or it has not grown for --timeout seconds; the\n"
    "                 last refresh gives the figures of the whole trace; with\n"
    "                 --json one JSON object per line and refresh\n"
    "  --interval MS  --follow: milliseconds between refreshes (default 1000)\n"
    "  --timeout S    --follow: give up on a file that has not grown for S\n"
    "                 seconds (default 30), or sooner when its recording\n"
    "                 process is gone, and read it as a cut trace (exit 3)\n"
    WINDOW_HELP
    "  -j, --jobs N   read on N threads (default: one per core; 1: this thread alone)\n"
    "  -h, --help     this help\n";

/* SITES_SORT_* and SITES_BY_* by name, in their order */
static const char *const sort_words[] = { "count", "bytes", "peak", "at-peak", "leaked", "temporary" };
static const char *const by_words[] = { "stack", "function", "line" };

/* What stats' options asked for. */
typedef struct stats_args {
    hatf_format fmt;
    int follow, follow_opts;
    uint64_t interval_ms, timeout_s;
    int json, by_site, folded, top_given, sort_given, timeline, massif, points_given, by_given, diff,
        phases_given, no_builtin;
    const char **supp_files;
    size_t nsupp;
    sites_opts so;
} stats_args;

/* Read the options into *a. @return 0 to go on, else the exit code (with
 * *stop set when it is not an error: --help). */
static int parse_args(int argc, char **argv, stats_args *a, int *stop)
{
    static const struct option opts[] = {
        { "from", required_argument, NULL, 'f' },
        { "json", no_argument, NULL, 'J' },
        { "sites", no_argument, NULL, 's' },
        { "sort", required_argument, NULL, 'o' },
        { "top", required_argument, NULL, 't' },
        { "folded", no_argument, NULL, 'F' },
        { "no-demangle", no_argument, NULL, 'D' },
        { "no-lines", no_argument, NULL, 'L' },
        { "timeline", no_argument, NULL, 'T' },
        { "massif", no_argument, NULL, 'M' },
        { "points", required_argument, NULL, 'p' },
        { "by", required_argument, NULL, 'B' },
        { "diff", no_argument, NULL, 'X' },
        { "phases", no_argument, NULL, 'P' },
        { "suppress", required_argument, NULL, 'S' },
        { "no-builtin-suppressions", no_argument, NULL, 'N' },
        { "strict", no_argument, NULL, CLI_O_STRICT },
        { "follow", no_argument, NULL, 'W' },
        { "interval", required_argument, NULL, 'I' },
        { "timeout", required_argument, NULL, 'Z' },
        CLI_JOBS_OPTION,
        WINDOW_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    int c, rc;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":hj:", opts, NULL)) != -1) {
        if (window_option(c)) {
            if ((rc = window_parse("stats", c, optarg))) return rc;
            continue;
        }
        switch (c) {
        case 'f': if ((rc = cli_parse_format("stats", "--from", optarg, &a->fmt))) return rc; break;
        case 'J': a->json = 1; break;
        case 's': a->by_site = 1; break;
        case 'o':
            a->sort_given = 1;
            rc = cli_parse_word("stats", "--sort", optarg, sort_words, sizeof sort_words / sizeof *sort_words, &a->so.sort);
            if (rc) return rc;
            break;
        case 't':
            if ((rc = cli_parse_u64("stats", "--top", optarg, &a->so.top))) return rc;
            a->top_given = 1;
            break;
        case 'F': a->folded = 1; break;
        case 'B':
            a->by_given = 1;
            if ((rc = cli_parse_word("stats", "--by", optarg, by_words, sizeof by_words / sizeof *by_words, &a->so.by)))
                return rc;
            break;
        case 'T': a->timeline = 1; break;
        case 'X': a->diff = a->by_site = 1; break;
        case 'P': a->phases_given = 1; break;
        case 'S':
            if (!a->supp_files) a->supp_files = calloc((size_t)argc, sizeof *a->supp_files);
            if (!a->supp_files) return cli_usage("stats", "out of memory");
            a->supp_files[a->nsupp++] = optarg;
            break;
        case 'N': a->no_builtin = 1; break;
        case 'M': a->massif = 1; break;
        case 'p':
            if ((rc = cli_parse_u64("stats", "--points", optarg, &a->so.points))) return rc;
            if (a->so.points < 1 || a->so.points > 100000) return cli_usage("stats", "--points: %s is not 1 to 100000", optarg);
            a->points_given = 1;
            break;
        case 'D': a->so.demangle = 0; break;
        case 'L': a->so.lines = 0; break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'W': a->follow = 1; break;
        case 'I':
            if ((rc = cli_parse_u64("stats", "--interval", optarg, &a->interval_ms))) return rc;
            if (a->interval_ms < 10 || a->interval_ms > 3600000)
                return cli_usage("stats", "--interval: %s is not 10 to 3600000 (milliseconds)", optarg);
            a->follow_opts = 1;
            break;
        case 'Z':
            if ((rc = cli_parse_u64("stats", "--timeout", optarg, &a->timeout_s))) return rc;
            if (a->timeout_s < 1) return cli_usage("stats", "--timeout: at least 1 (seconds)");
            a->follow_opts = 1;
            break;
        case 'j': if ((rc = cli_parse_jobs("stats", optarg))) return rc; break;
        case 'h': *stop = 1; return cli_help(help);
        default: return cli_bad_option("stats", c, argv);
        }
    }
    return 0;
}

/* Options that do not go together. @return 0, or CLI_USAGE after saying why;
 * --follow: its exit code with *stop set. */
static int check_args(int argc, char **argv, stats_args *a, int *stop)
{
    if (a->follow_opts && !a->follow) return cli_usage("stats", "--interval and --timeout go with --follow");
    if (a->follow) {
        if (a->diff || a->by_site || a->timeline || a->massif || a->phases_given || a->folded || a->sort_given || a->by_given ||
            a->points_given || window_given() || a->fmt == HATF_FMT_HATF1 || a->fmt == HATF_FMT_TEXT)
            return cli_usage("stats", "--follow reads one container as it is written: with --json, --top, "
                                      "--interval, --timeout and --strict only");
        if (argc - optind != 1) return cli_usage("stats", "--follow takes one trace file");
        *stop = 1;
        return cli_finish_stdout(stats_follow(argv[optind], a->json, a->interval_ms, a->timeout_s, a->top_given ? a->so.top : 5));
    }
    if (a->diff && (a->timeline || a->massif)) return cli_usage("stats", "--diff compares sites: not with --timeline or --massif");
    if (a->phases_given && (a->by_site || a->timeline || a->massif))
        return cli_usage("stats", "--phases splits the main figures: not with --sites, --timeline or --massif");
    if (a->timeline + a->massif + a->by_site > 1) return cli_usage("stats", "--sites, --timeline and --massif are three reports: choose one");
    if ((a->nsupp || a->no_builtin) && (!a->by_site || a->diff))
        return cli_usage("stats", "--suppress and --no-builtin-suppressions go with --sites (leaks by call stack)");
    if ((a->timeline || a->massif) && (a->sort_given || a->top_given || a->folded))
        return cli_usage("stats", "--sort, --top and --folded go with --sites");
    if (a->massif && a->json) return cli_usage("stats", "--massif and --json are two different outputs: choose one");
    if (a->points_given && !a->timeline && !a->massif) return cli_usage("stats", "--points goes with --timeline or --massif");
    if (a->folded && !a->by_site) return cli_usage("stats", "--folded goes with --sites");
    if (a->by_given && !a->by_site) return cli_usage("stats", "--by goes with --sites");
    if (a->so.by != SITES_BY_STACK && a->folded)
        return cli_usage("stats", "--by %s and --folded: a flame graph merges by function itself; choose one",
                         a->so.by == SITES_BY_LINE ? "line" : "function");
    if (a->so.by != SITES_BY_STACK && a->so.sort == SITES_SORT_PEAK && !a->diff)
        return cli_usage("stats", "--sort peak goes with --by stack (a group's sites reach their peaks at "
                                  "different moments); at-peak sums");
    if (a->folded && a->json) return cli_usage("stats", "--folded and --json are two different outputs: choose one");
    return 0;
}

/* stats --sites, --timeline, --massif of the trace s at path. */
static int run_sites(stats_args *a, hatf_source *s, const char *path)
{
    int rc;
    a->so.from = a->fmt;
    suppressions supp = { 0 };
    if (a->by_site && !a->timeline && !a->massif) {
        for (size_t i = 0; i < a->nsupp; i++)
            if (suppress_load(&supp, a->supp_files[i])) {
                suppress_free(&supp);
                hatf_source_close(s);
                return CLI_FAIL;
            }
        if (!a->no_builtin && suppress_builtin(&supp)) {
            cli_error("out of memory");
            return CLI_FAIL;
        }
        a->so.supp = &supp;
    }
    if (a->timeline) a->so.form = a->json ? SITES_TIMELINE_JSON : SITES_TIMELINE;
    else if (a->massif) a->so.form = SITES_MASSIF;
    else a->so.form = a->folded ? SITES_FOLDED : a->json ? SITES_JSON : SITES_TEXT;
    if (a->folded && !a->top_given) a->so.top = 0;
    rc = cli_read_end(path, s, sites_report(s, path, &a->so));
    suppress_free(&supp);
    free(a->supp_files);
    hatf_source_close(s);
    return cli_finish_stdout(rc);
}

int cmd_stats(int argc, char **argv)
{
    stats_args args = { .fmt = HATF_FMT_AUTO, .interval_ms = 1000, .timeout_s = 30,
                        .so = { .form = SITES_TEXT, .sort = SITES_SORT_COUNT, .top = 20, .demangle = 1,
                                .lines = 1, .points = 50 } };
    stats_args *a = &args;
    int rc, stop = 0;
    if (!(rc = parse_args(argc, argv, a, &stop)) && !stop) rc = check_args(argc, argv, a, &stop);
    if (rc || stop) {  /* a usage error may come after --suppress */
        free(a->supp_files);
        return rc;
    }
    if (a->diff) {
        if (argc - optind != 2) return cli_usage("stats", "--diff takes two traces, OLD and NEW");
        a->so.from = a->fmt;
        a->so.form = a->folded ? SITES_FOLDED : a->json ? SITES_JSON : SITES_TEXT;
        if (!a->sort_given) a->so.sort = SITES_SORT_BYTES;
        if (a->folded && !a->top_given) a->so.top = 0;
        return cli_finish_stdout(sitediff_report(argv[optind], argv[optind + 1], &a->so));
    }
    struct stat dir;
    if (argc - optind > 1 || (argc - optind == 1 && stat(argv[optind], &dir) == 0 && S_ISDIR(dir.st_mode))) {
        if (a->by_site || a->timeline || a->massif || a->phases_given)
            return cli_usage("stats", "--sites, --timeline, --massif and --phases read one trace (several: the "
                                      "processes' table)");
        return stats_many(argc - optind, argv + optind, a->fmt, a->json);
    }
    const char *path;
    if ((rc = cli_one_file("stats", argc, argv, a->fmt, &path))) return rc;
    hatf_source *s = cli_open_source(path, a->fmt);
    if (!s) return CLI_FAIL;
    if (a->by_site || a->timeline || a->massif) return run_sites(a, s, path);

    stats *st = stats_read(s, path, a->phases_given ? STATS_READ_PHASES : 0);
    rc = st ? CLI_OK : CLI_FAIL;
    if (st) {
        hatf_buf o;
        hatf_buf_init(&o);
        if (a->json) stats_json(&o, st, path, s);
        else stats_table(&o, st, path, s);
        fwrite(o.p, 1, o.len, stdout);
        hatf_buf_free(&o);
        stats_free(st);
    }
    rc = cli_read_end(path, s, rc);
    hatf_source_close(s);
    return cli_finish_stdout(rc);
}
