/* stats.c — hatrace stats: its options, and which report they ask for
 * (the counts: analyze/stats.c; printed by cli/stats_print.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "commands.h"
#include "follow.h"
#include "sitediff.h"
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

int cmd_stats(int argc, char **argv)
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
    hatf_format fmt = HATF_FMT_AUTO;
    int follow = 0, follow_opts = 0;
    uint64_t interval_ms = 1000, timeout_s = 30;
    int json = 0, c, rc, by_site = 0, folded = 0, top_given = 0, sort_given = 0, timeline = 0, massif = 0,
        points_given = 0, by_given = 0, diff = 0, phases_given = 0, no_builtin = 0;
    const char **supp_files = NULL;
    size_t nsupp = 0;
    sites_opts so = { .form = SITES_TEXT, .sort = SITES_SORT_COUNT, .top = 20, .demangle = 1, .lines = 1,
                      .points = 50 };
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":hj:", opts, NULL)) != -1) {
        if (window_option(c)) {
            if ((rc = window_parse("stats", c, optarg))) return rc;
            continue;
        }
        switch (c) {
        case 'f': if ((rc = cli_parse_format("stats", "--from", optarg, &fmt))) return rc; break;
        case 'J': json = 1; break;
        case 's': by_site = 1; break;
        case 'o':
            sort_given = 1;
            rc = cli_parse_word("stats", "--sort", optarg, sort_words, sizeof sort_words / sizeof *sort_words, &so.sort);
            if (rc) return rc;
            break;
        case 't':
            if ((rc = cli_parse_u64("stats", "--top", optarg, &so.top))) return rc;
            top_given = 1;
            break;
        case 'F': folded = 1; break;
        case 'B':
            by_given = 1;
            if ((rc = cli_parse_word("stats", "--by", optarg, by_words, sizeof by_words / sizeof *by_words, &so.by)))
                return rc;
            break;
        case 'T': timeline = 1; break;
        case 'X': diff = by_site = 1; break;
        case 'P': phases_given = 1; break;
        case 'S':
            if (!supp_files) supp_files = calloc((size_t)argc, sizeof *supp_files);
            if (!supp_files) return cli_usage("stats", "out of memory");
            supp_files[nsupp++] = optarg;
            break;
        case 'N': no_builtin = 1; break;
        case 'M': massif = 1; break;
        case 'p':
            if ((rc = cli_parse_u64("stats", "--points", optarg, &so.points))) return rc;
            if (so.points < 1 || so.points > 100000) return cli_usage("stats", "--points: %s is not 1 to 100000", optarg);
            points_given = 1;
            break;
        case 'D': so.demangle = 0; break;
        case 'L': so.lines = 0; break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'W': follow = 1; break;
        case 'I':
            if ((rc = cli_parse_u64("stats", "--interval", optarg, &interval_ms))) return rc;
            if (interval_ms < 10 || interval_ms > 3600000)
                return cli_usage("stats", "--interval: %s is not 10 to 3600000 (milliseconds)", optarg);
            follow_opts = 1;
            break;
        case 'Z':
            if ((rc = cli_parse_u64("stats", "--timeout", optarg, &timeout_s))) return rc;
            if (timeout_s < 1) return cli_usage("stats", "--timeout: at least 1 (seconds)");
            follow_opts = 1;
            break;
        case 'j': if ((rc = cli_parse_jobs("stats", optarg))) return rc; break;
        case 'h': return cli_help(help);
        default: return cli_bad_option("stats", c, argv);
        }
    }
    if (follow_opts && !follow) return cli_usage("stats", "--interval and --timeout go with --follow");
    if (follow) {
        if (diff || by_site || timeline || massif || phases_given || folded || sort_given || by_given ||
            points_given || window_given() || fmt == HATF_FMT_HATF1 || fmt == HATF_FMT_TEXT)
            return cli_usage("stats", "--follow reads one container as it is written: with --json, --top, "
                                      "--interval, --timeout and --strict only");
        if (argc - optind != 1) return cli_usage("stats", "--follow takes one trace file");
        return cli_finish_stdout(stats_follow(argv[optind], json, interval_ms, timeout_s, top_given ? so.top : 5));
    }
    if (diff && (timeline || massif)) return cli_usage("stats", "--diff compares sites: not with --timeline or --massif");
    if (phases_given && (by_site || timeline || massif))
        return cli_usage("stats", "--phases splits the main figures: not with --sites, --timeline or --massif");
    if (timeline + massif + by_site > 1) return cli_usage("stats", "--sites, --timeline and --massif are three reports: choose one");
    if ((nsupp || no_builtin) && (!by_site || diff))
        return cli_usage("stats", "--suppress and --no-builtin-suppressions go with --sites (leaks by call stack)");
    if ((timeline || massif) && (sort_given || top_given || folded))
        return cli_usage("stats", "--sort, --top and --folded go with --sites");
    if (massif && json) return cli_usage("stats", "--massif and --json are two different outputs: choose one");
    if (points_given && !timeline && !massif) return cli_usage("stats", "--points goes with --timeline or --massif");
    if (folded && !by_site) return cli_usage("stats", "--folded goes with --sites");
    if (by_given && !by_site) return cli_usage("stats", "--by goes with --sites");
    if (so.by != SITES_BY_STACK && folded)
        return cli_usage("stats", "--by %s and --folded: a flame graph merges by function itself; choose one",
                         so.by == SITES_BY_LINE ? "line" : "function");
    if (so.by != SITES_BY_STACK && so.sort == SITES_SORT_PEAK && !diff)
        return cli_usage("stats", "--sort peak goes with --by stack (a group's sites reach their peaks at "
                                  "different moments); at-peak sums");
    if (folded && json) return cli_usage("stats", "--folded and --json are two different outputs: choose one");
    if (diff) {
        if (argc - optind != 2) return cli_usage("stats", "--diff takes two traces, OLD and NEW");
        so.from = fmt;
        so.form = folded ? SITES_FOLDED : json ? SITES_JSON : SITES_TEXT;
        if (!sort_given) so.sort = SITES_SORT_BYTES;
        if (folded && !top_given) so.top = 0;
        return cli_finish_stdout(sitediff_report(argv[optind], argv[optind + 1], &so));
    }
    struct stat dir;
    if (argc - optind > 1 || (argc - optind == 1 && stat(argv[optind], &dir) == 0 && S_ISDIR(dir.st_mode))) {
        if (by_site || timeline || massif || phases_given)
            return cli_usage("stats", "--sites, --timeline, --massif and --phases read one trace (several: the "
                                      "processes' table)");
        return stats_many(argc - optind, argv + optind, fmt, json);
    }
    const char *path;
    if ((rc = cli_one_file("stats", argc, argv, &path))) return rc;
    hatf_source *s = cli_open_source(path, fmt);
    if (!s) return CLI_FAIL;
    if (by_site || timeline || massif) {
        so.from = fmt;
        suppressions supp = { 0 };
        if (by_site && !timeline && !massif) {
            for (size_t i = 0; i < nsupp; i++)
                if (suppress_load(&supp, supp_files[i])) {
                    suppress_free(&supp);
                    hatf_source_close(s);
                    return CLI_FAIL;
                }
            if (!no_builtin && suppress_builtin(&supp)) {
                cli_error("out of memory");
                return CLI_FAIL;
            }
            so.supp = &supp;
        }
        if (timeline) so.form = json ? SITES_TIMELINE_JSON : SITES_TIMELINE;
        else if (massif) so.form = SITES_MASSIF;
        else so.form = folded ? SITES_FOLDED : json ? SITES_JSON : SITES_TEXT;
        if (folded && !top_given) so.top = 0;
        rc = cli_read_end(path, s, sites_report(s, path, &so));
        suppress_free(&supp);
        free(supp_files);
        hatf_source_close(s);
        return cli_finish_stdout(rc);
    }

    stats *st = stats_read(s, path, phases_given);
    rc = st ? CLI_OK : CLI_FAIL;
    if (st) {
        hatf_buf o;
        hatf_buf_init(&o);
        if (json) stats_json(&o, st, path, s);
        else stats_table(&o, st, path, s);
        fwrite(o.p, 1, o.len, stdout);
        hatf_buf_free(&o);
        stats_free(st);
    }
    rc = cli_read_end(path, s, rc);
    hatf_source_close(s);
    return cli_finish_stdout(rc);
}
