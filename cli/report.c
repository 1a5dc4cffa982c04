/* report.c — hatrace report: one self-contained HTML page per trace.
 *
 * The trace is read once, by stats' counting and the sites' (with the heap
 * over time) side by side; their JSON outputs, as stats --json, --timeline
 * --json, --sites --json (by stack, function and line) and the folded chains
 * give them, go into the page (report_page.h) between its two halves. The
 * browser only draws: the figures are computed here. What a large trace
 * would make too big is cut here, and the page says what was left out: the
 * first --top sites by the sort key, the flame graph's sites among the first
 * --flame-top by each figure, the heap over time in at most --points intervals.
 * The callers and callees of each function in the chains of the sites shown
 * come from analyze/callgraph.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callgraph.h"
#include "cli_util.h"
#include "commands.h"
#include "replay_run.h"
#include "replay_tune.h"
#include "report_page.h"
#include "sites.h"
#include "stats_print.h"
#include "suppress.h"

static const char help[] =
    "usage: hatrace report [--top N] [--flame-top N] [--points N] [--sort KEY] [--from FORMAT]\n"
    "                      [--replay ALLOCATORS] [--tune ALLOCATORS] [--no-demangle] [--no-lines]\n"
    "                      [--strict] [-j N]\n"
    "                      FILE -o REPORT.html\n"
    "\n"
    "Write one HTML page about a trace that opens from disk in a browser, with\n"
    "no server and no network (its data and scripts are inside): a summary\n"
    "(program, threads, duration, calls by function, the heap's peak, leaks,\n"
    "temporary allocations, and whether the trace is complete), the live bytes\n"
    "over time with the peak marked, the allocation sites as a table that sorts\n"
    "and searches (by call stack, function or source line, as stats --sites\n"
    "--by gives them; traces recorded with --stacks; a click on a site shows\n"
    "its call chain), the callers and callees of each function in the sites'\n"
    "chains, a flame graph of the sites by a figure you choose, and the size\n"
    "histogram, threads and heaps.\n"
    "The figures are those of hatrace stats --json, --timeline and --sites.\n"
    "With --replay, the trace is also replayed against allocators (as hatrace\n"
    "replay --allocator) and the page shows them side by side.\n"
    "\n"
    "  -o, --output FILE  the page to write (required; replaced if it exists)\n"
    "  --top N        at most N rows in the sites table, by stack, function or\n"
    "                 line (default 5000; 0: all); the page says what was left out\n"
    "  --flame-top N  the flame graph's sites: those among the first N by any\n"
    "                 figure (default 1000; 0: all); the page says how much of\n"
    "                 each figure was left out\n"
    "  --sort KEY     which sites are the first N: count, bytes (default), peak,\n"
    "                 at-peak, leaked or temporary (as stats --sites --sort)\n"
    "  --points N     at most N intervals of the heap over time (default 2000,\n"
    "                 at most 100000)\n"
    "  --from FORMAT  hatrace (default), hatf1.0, text or metatf\n"
    "  --replay ALLOCATORS  replay the trace against these allocators, comma-\n"
    "                 separated as hatrace replay --allocator takes them (glibc,\n"
    "                 jemalloc, tcmalloc, mimalloc, null or a shared object), with\n"
    "                 replay's defaults, and add a view of their time, latency,\n"
    "                 memory and fragmentation, and resident memory over time\n"
    "  --tune ALLOCATORS  also replay the trace under the built-in grid of these\n"
    "                 allocators' settings (glibc, jemalloc, tcmalloc, mimalloc),\n"
    "                 as hatrace replay --tune --allocator gives it (3 runs per\n"
    "                 setting), and add a view of the settings' figures and a\n"
    "                 chart of peak resident memory against throughput\n"
    "  --no-demangle  C++ and Rust names as the symbol table has them\n"
    "  --no-lines     no source lines (nor any look at the modules' files)\n"
    "  --suppress FILE  leaks to take out of the sites' leaked figures, in\n"
    "                 heaptrack's shape (lines leak:PATTERN, # comments); the\n"
    "                 summary says what each hid (docs/tools.md, \"Suppressions\")\n"
    "  --no-builtin-suppressions  keep the C++ runtime's one-time allocations\n"
    "                 (libstdc++'s emergency pool) among the leaks\n"
    "  --strict       stop at the first damaged part of a container (exit 1)\n"
    "                 instead of reading on past it\n"
    WINDOW_HELP
    "  -j, --jobs N   read on N threads (default: one per core; 1: this thread alone)\n"
    "  -h, --help     this help\n"
    "\n"
    "exit status: 0 ok, 1 failure, 2 bad usage, 3 the trace is damaged or cut\n"
    "(the page is written from what could be read, and says so).\n";

static const char *const sort_words[] = { "count", "bytes", "peak", "at-peak", "leaked", "temporary" };

/* Both countings, fed by one reading, with one table of live objects (the
 * sites', which stats shares): stats sees each event first. */
typedef struct both { stats *st; sites_pass *sp; } both;

static int count_both(void *ctx, const lookahead_item *x)
{
    both *b = ctx;
    int rc = stats_count(b->st, x);
    return rc ? rc : sites_pass_count(b->sp, x);
}

static void prefetch_both(void *ctx, const hatf_event *ev) { sites_pass_prefetch(((both *)ctx)->sp, ev); }

/* Append what the tools printed as a JSON value in a <script> element: '<'
 * only occurs in strings there, where \u003c is the same character. */
static void put_data(FILE *f, const hatf_buf *d)
{
    const unsigned char *p = d->p, *end = p + d->len;
    while (p < end) {
        const unsigned char *lt = memchr(p, '<', (size_t)(end - p));
        size_t n = lt ? (size_t)(lt - p) : (size_t)(end - p);
        fwrite(p, 1, n, f);
        if (!lt) break;
        fputs("\\u003c", f);
        p = lt + 1;
    }
}

static void put_figs(hatf_buf *d, const callgraph_figs *x)
{
    cli_put(d, "[%llu,%llu,%llu,%llu,%llu]", (unsigned long long)x->calls, (unsigned long long)x->bytes,
            (unsigned long long)x->at_peak_bytes, (unsigned long long)x->leaked_bytes, (unsigned long long)x->temporary);
}

/* The callers (up) or the callees of function e, as a JSON list. */
static void put_edges(hatf_buf *d, const callgraph *g, const callgraph_fn *e, uint32_t up)
{
    int first = 1;
    cli_put(d, ",[");
    for (size_t j = e->first_edge; j < e->first_edge + e->nedges; j++) {
        const callgraph_edge *x = &g->edges[j];
        if (x->up != up) continue;
        cli_put(d, "%s[%zu,", first ? "" : ",", callgraph_other(g, x));
        first = 0;
        put_figs(d, &x->x);
        cli_put(d, "]");
    }
    cli_put(d, "]");
}

/* The callers and callees of the functions in the chains of the first top
 * sites of sp as they are sorted now (those of the sites table):
 * {"sites": the sites with a chain, "figures": their names, "names": the
 * functions' names, then CALLGRAPH_OUTERMOST and CALLGRAPH_HERE,
 * "functions": [[self, inclusive, callers, callees]]}: function i is named
 * names[i], self and inclusive are figures, callers and callees lists of
 * [name's number, figures] in the order to show. @return 0 or -1 out of memory. */
static int callers_json(hatf_buf *d, sites_pass *sp, uint64_t top)
{
    const site *v;
    frames *fr;
    size_t n = sites_pass_sites(sp, &v, &fr), shown = top && top < n ? (size_t)top : n;
    callgraph g;
    int rc = callgraph_init(&g);
    for (size_t i = 0; i < shown && !rc; i++) {
        const uint64_t *f;
        size_t nf = sites_stack(fr->r, v[i].stack, &f);
        rc = callgraph_add(&g, fr, &v[i], f, nf);
    }
    if (!rc) {
        callgraph_finish(&g);
        cli_put(d, "{\"sites\": %llu, \"figures\": [\"calls\", \"bytes\", \"at_peak_bytes\", \"leaked_bytes\", "
                   "\"temporary\"],\n\"names\": [", (unsigned long long)g.sites);
        for (size_t i = 0; i < g.nfns + 2; i++) {
            if (i) cli_put(d, ",");
            cli_json_string(d, callgraph_name(&g, i < g.nfns ? g.fns[i].name : (uint32_t)(i - g.nfns)));
        }
        cli_put(d, "],\n\"functions\": [");
        for (size_t i = 0; i < g.nfns; i++) {
            const callgraph_fn *e = &g.fns[i];
            cli_put(d, "%s[", i ? ",\n" : "");
            put_figs(d, &e->self);
            cli_put(d, ",");
            put_figs(d, &e->incl);
            put_edges(d, &g, e, 1);
            put_edges(d, &g, e, 0);
            cli_put(d, "]");
        }
        cli_put(d, "]}");
    }
    callgraph_free(&g);
    return rc || d->failed ? -1 : 0;
}

/* The page's data: {"hatrace", "partial", "limits", "stats", "timeline",
 * "sites": {"stack", "function", "line"}, "flame", "callers"}, and "replay"
 * (replay_json) and "tune" (replay --tune --json's object) when there are.
 * @return 0, -1 out of memory, or CLI_FAIL (said). */
static int make_data(hatf_buf *d, both *b, hatf_source *s, const char *path, const sites_opts *base,
                     uint64_t flame_top, int partial, const hatf_buf *replay, const hatf_buf *tune)
{
    static const char *const sort_keys[] = { "calls", "bytes", "peak", "at-peak", "leaked", "temporary" };
    int group_sort = base->sort == SITES_SORT_PEAK ? SITES_SORT_BYTES : base->sort;  /* peaks do not add up */
    cli_put(d, "{\"hatrace\": \"%s\", \"partial\": %s, \"limits\": {\"top\": %llu, \"flame_top\": %llu, \"points\": %llu, "
               "\"sort\": \"%s\", \"group_sort\": \"%s\"},\n\"stats\": ", HATRACE_VERSION, partial ? "true" : "false",
            (unsigned long long)base->top, (unsigned long long)flame_top, (unsigned long long)base->points,
            sort_keys[base->sort], sort_keys[group_sort]);
    stats_json(d, b->st, path, s);
    static const struct { const char *key; int form, by; } parts[] = {
        { ",\n\"timeline\": ", SITES_TIMELINE_JSON, SITES_BY_STACK },
        { ",\n\"sites\": {\"stack\": ", SITES_JSON, SITES_BY_STACK },
        { ",\n\"function\": ", SITES_JSON, SITES_BY_FUNCTION },
        { ",\n\"line\": ", SITES_JSON, SITES_BY_LINE },
        { "},\n\"flame\": ", SITES_FOLDED_JSON, SITES_BY_STACK },
    };
    sites_opts o = *base;
    o.frame_table = 1;
    int rc = 0;
    hatf_buf callers;
    hatf_buf_init(&callers);
    for (size_t i = 0; i < sizeof parts / sizeof *parts && !rc; i++) {
        o.form = parts[i].form;
        o.by = parts[i].by;
        o.sort = o.by == SITES_BY_STACK ? base->sort : group_sort;
        if (o.form == SITES_FOLDED_JSON) o.top = flame_top;
        cli_put(d, "%s", parts[i].key);
        rc = sites_pass_print(b->sp, s, path, &o, d);
        /* the sites are in the table's order now (the next forms sort them again) */
        if (!rc && o.form == SITES_JSON && o.by == SITES_BY_STACK) rc = callers_json(&callers, b->sp, o.top);
    }
    if (!rc) {
        cli_put(d, ",\n\"callers\": ");
        hatf_buf_append(d, callers.p, callers.len);
    }
    hatf_buf_free(&callers);
    if (!rc && replay) {
        cli_put(d, ",\n\"replay\": ");
        hatf_buf_append(d, replay->p, replay->len);
    }
    if (!rc && tune) {
        cli_put(d, ",\n\"tune\": ");
        hatf_buf_append(d, tune->p, tune->len);
    }
    cli_put(d, "}\n");
    return rc ? rc : d->failed ? -1 : 0;
}

/* The replay's part of the page's data: {"allocators": what replay --json
 * prints, "series": [{"allocator", "op": [...], "live": [...], "rss": [...]}]
 * (each run's samples, as replay --series), "program_peak_resident_bytes"
 * (0: not sampled), "peak_live_bytes", "ops"}. @return 0 or -1 out of memory. */
static int replay_json(hatf_buf *d, const cli_replay *x, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return -1;
    rp_report_ctx ctx = cli_replay_ctx(x, path, RP_TOUCH_PAGE, 1, 64);
    rp_print_json(m, &ctx, x->rep, x->nalloc);
    if (fclose(m)) {
        free(text);
        return -1;
    }
    cli_put(d, "{\"allocators\": ");
    hatf_buf_append(d, text, len);
    free(text);
    cli_put(d, ",\n\"program_peak_resident_bytes\": %llu, \"peak_live_bytes\": %llu, \"ops\": %llu,\n\"series\": [",
            (unsigned long long)x->program_rss, (unsigned long long)x->plan.st.peak_live_bytes,
            (unsigned long long)x->plan.st.ops);
    static const char *const keys[] = { "op", "live", "rss" };
    for (unsigned i = 0; i < x->nalloc; i++) {
        const rp_result *r = &x->rep[i].r;
        cli_put(d, "%s\n {\"allocator\": ", i ? "," : "");
        cli_json_string(d, x->rep[i].allocator);
        for (unsigned k = 0; k < 3; k++) {
            cli_put(d, ", \"%s\": [", keys[k]);
            for (uint32_t j = 0; j < r->nsamples; j++) {
                const rp_sample *sm = &r->samples[j];
                uint64_t v = k == 0 ? sm->op : k == 1 ? sm->live : sm->rss;
                cli_put(d, "%s%llu", j ? "," : "", (unsigned long long)v);
            }
            cli_put(d, "]");
        }
        cli_put(d, "}");
    }
    cli_put(d, "]}");
    return d->failed ? -1 : 0;
}

/* Remove a page left unfinished (only a regular file: -o may name a device). */
static void remove_output(const char *out)
{
    struct stat sb;
    if (!stat(out, &sb) && S_ISREG(sb.st_mode)) unlink(out);
}

/* Open out for writing (append: only to see that it can be), made with the
 * mode of the trace at in_path (cli_derived_mode). @return it, or NULL with errno set. */
static FILE *open_page(const char *out, const char *in_path, int append)
{
    int fd = open(out, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), cli_derived_mode(in_path));
    FILE *f = fd < 0 ? NULL : fdopen(fd, append ? "a" : "w");
    if (fd >= 0 && !f) close(fd);
    return f;
}

/* Write the page to out. @return 0, or -1 with errno set. */
static int write_page(const char *out, const char *in_path, const hatf_buf *d)
{
    FILE *f = open_page(out, in_path, 0);
    if (!f) return -1;
    fwrite(report_page_before, 1, report_page_before_len, f);
    put_data(f, d);
    fwrite(report_page_after, 1, report_page_after_len, f);
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) && !err) err = errno;
    if (err) {
        remove_output(out);
        errno = err;
        return -1;
    }
    return 0;
}

/* What hatrace report was asked, and what it holds while it runs. */
typedef struct report_run {
    hatf_format fmt;
    const char *out, *path, *replay_list, *tune_list;
    uint64_t flame_top;
    sites_opts so;
    suppressions supp;
    int no_builtin;
    cli_replay x;
    cli_tune t;
} report_run;

#define REPORT_GO (-1)  /* parse_options, prepare: go on */

/* @return REPORT_GO, or the command's exit code (help, a bad option: said). */
static int parse_options(int argc, char **argv, report_run *a)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "from", required_argument, NULL, 'f' },
        { "top", required_argument, NULL, 't' },
        { "flame-top", required_argument, NULL, 'F' },
        { "sort", required_argument, NULL, 's' },
        { "points", required_argument, NULL, 'p' },
        { "no-demangle", no_argument, NULL, 'D' },
        { "no-lines", no_argument, NULL, 'L' },
        { "replay", required_argument, NULL, 'R' },
        { "tune", required_argument, NULL, 'U' },
        { "strict", no_argument, NULL, CLI_O_STRICT },
        CLI_JOBS_OPTION,
        WINDOW_OPTIONS,
        { "suppress", required_argument, NULL, 'S' },
        { "no-builtin-suppressions", no_argument, NULL, 'N' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    sites_opts *so = &a->so;
    int c, rc = 0;
    cli_getopt_begin();
    while (!rc && (c = getopt_long(argc, argv, ":ho:j:", opts, NULL)) != -1) {
        if (window_option(c)) {
            rc = window_parse("report", c, optarg);
            continue;
        }
        switch (c) {
        case 'o': a->out = optarg; break;
        case 'f': rc = cli_parse_format("report", "--from", optarg, &a->fmt); break;
        case 't': rc = cli_parse_u64("report", "--top", optarg, &so->top); break;
        case 'F': rc = cli_parse_u64("report", "--flame-top", optarg, &a->flame_top); break;
        case 's': rc = cli_parse_word("report", "--sort", optarg, sort_words, sizeof sort_words / sizeof *sort_words,
                                      &so->sort); break;
        case 'p':
            if (!(rc = cli_parse_u64("report", "--points", optarg, &so->points)) && (so->points < 1 || so->points > 100000))
                rc = cli_usage("report", "--points: %s is not 1 to 100000", optarg);
            break;
        case 'D': so->demangle = 0; break;
        case 'L': so->lines = 0; break;
        case 'R': a->replay_list = optarg; break;
        case 'U': a->tune_list = optarg; break;
        case 'S': rc = suppress_load(&a->supp, optarg) ? CLI_FAIL : 0; break;
        case 'N': a->no_builtin = 1; break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'j': rc = cli_parse_jobs("report", optarg); break;
        case 'h': return cli_help(help);
        default: return cli_bad_option("report", c, argv);
        }
    }
    return rc ? rc : REPORT_GO;
}

/* The checks before the trace is read: an output, the page built in, one
 * file, the allocators and settings known, the output writable.
 * @return REPORT_GO, or the exit code (said). */
static int prepare(int argc, char **argv, report_run *a)
{
    int rc;
    if (!a->out) return cli_usage("report", "missing -o REPORT.html");
    if (!*a->out) return cli_usage("report", "-o: an empty file name");
    if (!report_page_made) {
        cli_error("report: this hatrace was built without the report's page (node and npm were missing at build time)");
        return CLI_FAIL;
    }
    if ((rc = cli_one_file("report", argc, argv, a->fmt, &a->path))) return rc;
    if (a->replay_list && (rc = cli_replay_allocators("report", "--replay", a->replay_list, &a->x))) return rc;
    if (a->tune_list && (rc = cli_tune_settings("report", a->tune_list, NULL, 0, NULL, 1, &a->t))) return rc;
    FILE *probe = open_page(a->out, a->path, 1);  /* said before the trace is read */
    if (!probe) {
        cli_error("%s: %s", a->out, strerror(errno));
        return CLI_FAIL;
    }
    fclose(probe);
    return REPORT_GO;
}

/* Read the trace once into both counts (b: made here, freed by the caller).
 * @return a CLI_* code (said). */
static int count_trace(report_run *a, hatf_source *s, both *b)
{
    a->so.from = a->fmt;
    a->so.supp = &a->supp;
    *b = (both){ stats_new(s), sites_pass_new(s, a->so.demangle, a->so.lines, a->so.points) };
    if (!b->st || !b->sp || (!a->no_builtin && suppress_builtin(&a->supp))) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    stats_share_live(b->st, sites_pass_live(b->sp, stats_heap_changed, b->st));
    int count_rc, r = lookahead_run(s, count_both, prefetch_both, b, &count_rc);
    if (r == LOOKAHEAD_STOPPED) {
        cli_error("%s: out of memory after %llu records", a->path, (unsigned long long)stats_records(b->st));
        return CLI_FAIL;
    }
    if (r < 0) return cli_source_failed(a->path, s);
    if (sites_pass_unstacked(b->sp)) sites_say_no_stacks(a->path);  /* the page is still written: "(no stack)" */
    return CLI_OK;
}

/* The replays asked for, then the page. @return a CLI_* code (said). */
static int write_report(report_run *a, both *b, hatf_source *s)
{
    hatf_reader *r = hatf_source_container(s);
    const char *const *lines;
    int partial = r && (hatf_reader_damage(r, &lines) || !hatf_reader_complete(r));
    hatf_buf d, rj, tj;
    hatf_buf_init(&d);
    hatf_buf_init(&rj);
    hatf_buf_init(&tj);
    int k = 0, ignored, rc = CLI_OK;
    /* the replay reads the trace again, compiled into a plan (its damage said once, by this reading) */
    if (a->replay_list) {
        rp_run_opts run = { .touch = RP_TOUCH_PAGE, .latency_every = 64 };
        if (cli_replay_compile("report", a->path, a->fmt, 0, 0, &a->x, &ignored) || cli_replay_run("report", &a->x, run, 1))
            k = CLI_FAIL;
        else
            k = replay_json(&rj, &a->x, a->path);
    }
    if (!k && a->tune_list) k = cli_tune_page_json("report", a->path, a->fmt, &a->x, &a->t, &tj);
    if (!k) k = make_data(&d, b, s, a->path, &a->so, a->flame_top, partial, a->replay_list ? &rj : NULL,
                          a->tune_list ? &tj : NULL);
    if (k) {
        if (k != CLI_FAIL) cli_error("%s: out of memory", a->path);
        rc = CLI_FAIL;
    } else if (write_page(a->out, a->path, &d)) {
        cli_error("%s: %s", a->out, strerror(errno));
        rc = CLI_FAIL;
    }
    hatf_buf_free(&d);
    hatf_buf_free(&rj);
    hatf_buf_free(&tj);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    report_run a = { .fmt = HATF_FMT_AUTO, .flame_top = 1000,
                     .so = { .form = SITES_JSON, .sort = SITES_SORT_BYTES, .top = 5000, .demangle = 1, .lines = 1,
                             .points = 2000 } };
    int rc = parse_options(argc, argv, &a);
    if (rc == REPORT_GO) rc = prepare(argc, argv, &a);
    hatf_source *s = rc == REPORT_GO ? cli_open_source(a.path, a.fmt) : NULL;
    if (rc == REPORT_GO && !s) rc = CLI_FAIL;
    if (s) {
        both b = { NULL, NULL };
        rc = count_trace(&a, s, &b);
        if (rc == CLI_OK) rc = write_report(&a, &b, s);
        if (rc != CLI_OK) remove_output(a.out);
        stats_free(b.st);
        sites_pass_free(b.sp);
        rc = cli_read_end(a.path, s, rc);
        hatf_source_close(s);
    }
    cli_tune_free(&a.t);
    cli_replay_free(&a.x);
    suppress_free(&a.supp);
    return rc;
}
