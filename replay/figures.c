/* figures.c — latency quantiles, fragmentation, medians, and their output:
 * an aligned table, JSON, a CSV series, and a gnuplot chart.
 *
 * Fragmentation follows Johnstone and Wilson ("The memory fragmentation
 * problem: solved?", ISMM 1998): the allocator's memory (resident bytes over
 * the baseline) against the program's live memory (requested bytes), taken
 * four ways — averaged over time, at the peak of live memory, at the peak of
 * the allocator's memory, and peak over peak. Time is measured in calls, so
 * the average weighs each sample by the calls since the one before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

double rp_hist_value(unsigned b)
{
    if (b < 16) return b;
    unsigned msb = b / 8 + 2, sub = b % 8;
    double width = (double)(1ull << (msb - 3));
    return (double)(8 + sub) * width + width / 2;
}

double rp_hist_quantile(const rp_hist *h, double q)
{
    uint64_t n = 0;
    for (unsigned b = 0; b < RP_HIST_BUCKETS; b++) n += h->n[b];
    if (!n) return 0;
    uint64_t want = (uint64_t)(q * (double)n);
    if (want >= n) want = n - 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < RP_HIST_BUCKETS; b++) {
        seen += h->n[b];
        if (seen > want) return rp_hist_value(b);
    }
    return rp_hist_value(RP_HIST_BUCKETS - 1);
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }

void rp_figures_frag(rp_result *r)
{
    double rss = 0, live = 0;
    uint64_t prev = 0;
    for (uint32_t i = 0; i < r->nsamples; i++) {
        const rp_sample *s = &r->samples[i];
        double w = (double)(s->op - prev);
        prev = s->op;
        rss += w * (double)s->rss;
        live += w * (double)s->live;
    }
    r->frag_time_avg = live > 0 ? rss / live : 0;
    r->frag_at_peak_live = ratio(r->rss_at_peak_live, r->peak_live_bytes);
    r->frag_at_peak_rss = ratio(r->peak_rss_busy_bytes, r->live_at_peak_rss);
    r->frag_peak_over_peak = ratio(r->peak_rss_bytes, r->peak_live_bytes);
}

/* a sample taken while the program's live bytes were at least floor (and some) */
static int busy(const rp_sample *s, uint64_t floor) { return s->live && s->live >= floor; }

void rp_peak_rss_busy(const rp_sample *s, uint32_t n, uint64_t peak_live, uint64_t *rss, uint64_t *live)
{
    uint64_t floor = peak_live / RP_BUSY_SHARE, peak = 0;
    *live = 0;
    for (uint32_t i = 0; i < n; i++)
        if (busy(&s[i], floor) && s[i].rss > peak) peak = s[i].rss;
    for (uint32_t i = 0; i < n && peak; i++)
        if (busy(&s[i], floor) && s[i].rss >= peak - peak / 100) {
            *live = s[i].live;
            break;
        }
    *rss = peak;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rp_median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void rp_figures_median(const rp_result *runs, unsigned n, rp_result *out)
{
    double v[n ? n : 1];
    /* the samples (and the figures tied to them) of the run with the median time */
    for (unsigned i = 0; i < n; i++) v[i] = runs[i].wall_s;
    double mid = rp_median(v, n);
    unsigned pick = 0;
    for (unsigned i = 0; i < n; i++)
        if (runs[i].wall_s <= mid && (runs[pick].wall_s > mid || runs[i].wall_s > runs[pick].wall_s)) pick = i;
    memcpy(out, &runs[pick], sizeof *out);
#define MED(field)                                               \
    do {                                                         \
        for (unsigned i = 0; i < n; i++) v[i] = (double)runs[i].field; \
        out->field = rp_median(v, n);                               \
    } while (0)
    MED(wall_s);
    MED(ns_per_op);
    MED(ops_per_s);
    for (unsigned k = 0; k < RP_LAT_COUNT_; k++)
        for (unsigned q = 0; q < 3; q++) MED(lat_ns[k][q]);
    MED(peak_rss_bytes);
    MED(peak_rss_busy_bytes);
    MED(rss_at_peak_live);
    MED(frag_time_avg);
    MED(frag_at_peak_live);
    MED(frag_at_peak_rss);
    MED(frag_peak_over_peak);
    for (uint32_t k = 0; k < out->nphases && k < RP_PHASES_MAX; k++) {
        MED(phases[k].time_s);
        MED(phases[k].ns_per_op);
        MED(phases[k].peak_rss_bytes);
        MED(phases[k].rss_at_peak_live);
        MED(phases[k].frag_at_peak_live);
        MED(phases[k].frag_peak_over_peak);
    }
#undef MED
    /* waits for the plan's read-ahead in any run are said: summed */
    out->plan_stalls = 0;
    out->plan_stall_s = 0;
    for (unsigned i = 0; i < n; i++) {
        out->plan_stalls += runs[i].plan_stalls;
        out->plan_stall_s += runs[i].plan_stall_s;
    }
}

const char *rp_human(uint64_t b, char *buf, size_t cap)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    unsigned u = 0;
    while (v >= 1024 && u < 4) { v /= 1024; u++; }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

/* The share of each block --touch page writes (touch.c), 0..1. */
static double touch_share(const rp_plan_stats *s)
{
    return s->touch_share ? (double)s->touch_share / RP_TOUCH_FULL : 1;
}

static void print_notes(FILE *f, const rp_report_ctx *c)
{
    const rp_plan_stats *s = c->st;
    char on[160] = "";
    uint32_t runners = c->runner_threads ? c->runner_threads : c->nthreads;
    if (c->nthreads == 1 && c->at_once > RP_RUNNERS_MAX)  /* cli/replay_run.c */
        snprintf(on, sizeof on, ": the trace's %u threads, %u alive at once, are more than %u", c->trace_threads,
                 c->at_once, RP_RUNNERS_MAX);
    else if (c->trace_threads && c->trace_threads != runners)
        snprintf(on, sizeof on, " for the trace's %u threads, as many as are alive at once", c->trace_threads);
    fprintf(f, "trace: %s   threads: %s (%u runner thread%s%s)   touch: %s   repeat: %u (medians)"
               "   latency: 1 call in %u timed\n",
            c->trace, c->threads, runners, runners == 1 ? "" : "s", on, c->touch, c->repeat,
            c->latency_every);
    if (strcmp(c->touch, "page") == 0 && touch_share(s) < 1)
        fprintf(f, "touch: the first %.1f%% of each block's pages: the recorded program kept that share of its "
                   "live bytes resident (docs/replay.md, \"Touching\")\n", 100 * touch_share(s));
    fprintf(f, "plan: %llu ops (+%llu frees at destroyHeap), %llu cross-thread waits; "
               "free(NULL) replayed: %llu; failed allocations skipped: %llu; "
               "realloc(p,0) replayed as free: %llu\n",
            (unsigned long long)s->ops, (unsigned long long)s->heap_frees, (unsigned long long)s->waits,
            (unsigned long long)s->free_null, (unsigned long long)s->skipped_failed,
            (unsigned long long)s->realloc_free);
    fprintf(f, "inversions resolved: %llu (address reused while live; %llu old objects freed late, "
               "%llu never freed)\n",
            (unsigned long long)s->reused_live, (unsigned long long)s->late_consumed,
            (unsigned long long)s->left_displaced);
    if (s->before_tracing)
        fprintf(f, "released, allocated before tracing: %llu frees or reallocs of objects made before the "
                   "recorder was attached, not replayed\n", (unsigned long long)s->before_tracing);
    if (s->lost_objects)
        fprintf(f, "lost with the damage: %llu frees or reallocs of objects made in a damaged part of the "
                   "trace, not replayed\n", (unsigned long long)s->lost_objects);
    if (c->program_rss && s->peak_live_bytes) {
        char a[32], b[32];
        fprintf(f, "recorded program: peak resident %s (sampled while recording, the recorder's own memory "
                   "taken out), peak live %s: peak/peak %.3f\n",
                rp_human(c->program_rss, a, sizeof a), rp_human(s->peak_live_bytes, b, sizeof b),
                (double)c->program_rss / (double)s->peak_live_bytes);
    }
    if (s->heaps_created)
        fprintf(f, "heaps: %llu created, %llu destroyed; %llu on one thread (native where the allocator "
                   "has heaps), %llu shared (free-each)\n",
                (unsigned long long)s->heaps_created, (unsigned long long)s->heaps_destroyed,
                (unsigned long long)s->heaps_confined, (unsigned long long)s->heaps_shared);
    if (c->compile_s > 0) {
        char a[32], b[32];
        fprintf(f, "compile: %.2f s (CPU %.2f s: reading the trace %.2f s and compiling %.2f s, on two threads) "
                   "into a plan file of %s%s%s (%llu segments, windows of %llu ops per thread); hatrace's own peak "
                   "resident %s; slots taken over: %llu\n",
                c->compile_s, c->compile_cpu_s, c->cpu_read_s, c->cpu_compile_s, rp_human(c->plan_bytes, a, sizeof a),
                c->plan_where ? " in " : "", c->plan_where ? c->plan_where : "", (unsigned long long)c->plan_segments,
                (unsigned long long)c->window_ops, rp_human(c->own_peak_rss, b, sizeof b),
                (unsigned long long)s->slot_waits);
    }
}

/* A runner that waited for its plan's read-ahead: said with the figures. */
static void print_stalls(FILE *f, const char *allocator, const rp_result *r)
{
    if (r->plan_stalls)
        fprintf(f, "  %s: the runners waited %llu times for the plan's read-ahead, %.3f s in all (in wall_s)\n",
                allocator, (unsigned long long)r->plan_stalls, r->plan_stall_s);
}

/* Is phase k shown? Not a "(start)" with nothing in it (the trace begins with a comment). */
static int phase_shown(const rp_report_ctx *c, uint32_t k)
{
    return k || c->phases[0].ops || c->phases[0].calls;
}

/* An allocator's figures per phase (replay --phases), after the table. */
static void print_phases(FILE *f, const rp_report_ctx *c, const rp_report *rep)
{
    const rp_result *r = &rep->r;
    fprintf(f, "\nphases, %s:\n%-24s %10s %10s %10s %8s %11s %11s %9s %9s\n", rep->allocator, "phase", "ops",
            "calls", "time_s", "ns/op", "peak_live", "peak_rss", "frag@live", "peak/peak");
    for (uint32_t k = 0; k < c->nphases && k < r->nphases; k++) {
        if (!phase_shown(c, k)) continue;
        const rp_phase *ph = &c->phases[k];
        const rp_phase_result *q = &r->phases[k];
        char a[32], b[32];
        fprintf(f, "%-24.24s %10llu %10llu %10.4f %8.1f %11s %11s %9.3f %9.3f\n", ph->name,
                (unsigned long long)ph->ops, (unsigned long long)q->calls, q->time_s, q->ns_per_op,
                rp_human(ph->peak_live_bytes, a, sizeof a), rp_human(q->peak_rss_bytes, b, sizeof b),
                q->frag_at_peak_live, q->frag_peak_over_peak);
    }
}

void rp_print_table(FILE *f, const rp_report_ctx *c, const rp_report *rep, unsigned n)
{
    print_notes(f, c);
    fprintf(f, "\n%-12s %10s %9s %9s %7s %11s %11s %8s %9s %8s %9s  %-20s %-20s\n", "allocator", "ops",
            "wall_s", "Mops/s", "ns/op", "peak_live", "peak_rss", "frag_avg", "frag@live", "frag@rss",
            "peak/peak", "malloc p50/p99/p99.9", "free p50/p99/p99.9");
    for (unsigned i = 0; i < n; i++) {
        const rp_result *r = &rep[i].r;
        char a[32], b[32], ml[40], fl[40];
        snprintf(ml, sizeof ml, "%.0f/%.0f/%.0f", r->lat_ns[RP_LAT_MALLOC][0], r->lat_ns[RP_LAT_MALLOC][1],
                 r->lat_ns[RP_LAT_MALLOC][2]);
        snprintf(fl, sizeof fl, "%.0f/%.0f/%.0f", r->lat_ns[RP_LAT_FREE][0], r->lat_ns[RP_LAT_FREE][1],
                 r->lat_ns[RP_LAT_FREE][2]);
        fprintf(f, "%-12s %10llu %9.4f %9.2f %7.1f %11s %11s %8.3f %9.3f %8.3f %9.3f  %-20s %-20s\n",
                rep[i].allocator, (unsigned long long)r->ops, r->wall_s, r->ops_per_s / 1e6, r->ns_per_op,
                rp_human(r->peak_live_bytes, a, sizeof a), rp_human(r->peak_rss_bytes, b, sizeof b),
                r->frag_time_avg, r->frag_at_peak_live, r->frag_at_peak_rss, r->frag_peak_over_peak, ml, fl);
        if (c->st->heaps_created)
            fprintf(f, "  %s: heaps %s (api %s): %llu native, %llu free-each\n", rep[i].allocator, r->heap_mode,
                    r->heap_api, (unsigned long long)r->heaps_native, (unsigned long long)r->heaps_free_each);
        print_stalls(f, rep[i].allocator, r);
        if (r->msg[0]) fprintf(f, "  %s: %s\n", rep[i].allocator, r->msg);
    }
    for (unsigned i = 0; c->nphases && i < n; i++) print_phases(f, c, &rep[i]);
}

void rp_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

void rp_print_json(FILE *f, const rp_report_ctx *c, const rp_report *rep, unsigned n)
{
    const rp_plan_stats *s = c->st;
    fputs("[", f);
    for (unsigned i = 0; i < n; i++) {
        const rp_result *r = &rep[i].r;
        fputs(i ? ",\n {" : "\n {", f);
        fputs("\"allocator\": ", f);
        rp_json_str(f, rep[i].allocator);
        fputs(", \"trace\": ", f);
        rp_json_str(f, c->trace);
        fprintf(f, ", \"threads\": \"%s\", \"runner_threads\": %u, \"trace_threads\": %u, \"threads_at_once\": %u,"
                   " \"process_threads\": %u, \"touch\": \"%s\", \"touch_share\": %.4f,"
                   " \"repeat\": %u, \"latency_every\": %u,\n  \"ops\": %llu, \"calls\": %llu, \"wall_s\": %.6f,"
                   " \"ops_per_s\": %.1f, \"ns_per_op\": %.2f,\n  \"latency_ns\": {",
                c->threads, r->runner_threads ? r->runner_threads : c->nthreads, c->trace_threads, c->at_once,
                r->process_threads, c->touch,
                strcmp(c->touch, "page") == 0 ? touch_share(c->st) : strcmp(c->touch, "none") == 0 ? 0 : 1,
                c->repeat, c->latency_every,
                (unsigned long long)r->ops, (unsigned long long)r->calls, r->wall_s, r->ops_per_s,
                r->ns_per_op);
        int first = 1;
        for (unsigned k = 0; k < RP_LAT_COUNT_; k++) {
            if (!r->lat_count[k]) continue;
            fprintf(f, "%s\"%s\": {\"p50\": %.1f, \"p99\": %.1f, \"p99.9\": %.1f, \"samples\": %llu}",
                    first ? "" : ", ", rp_lat_names[k], r->lat_ns[k][0], r->lat_ns[k][1], r->lat_ns[k][2],
                    (unsigned long long)r->lat_count[k]);
            first = 0;
        }
        fprintf(f, "},\n  \"peak_live_bytes\": %llu, \"peak_live_objects\": %llu, \"peak_rss_bytes\": %llu,"
                   " \"peak_rss_busy_bytes\": %llu, \"rss_at_peak_live\": %llu, \"live_at_peak_rss\": %llu,"
                   " \"baseline_rss_bytes\": %llu,\n"
                   "  \"frag_time_avg\": %.4f, \"frag_at_peak_live\": %.4f, \"frag_at_peak_rss\": %.4f,"
                   " \"frag_peak_over_peak\": %.4f,\n",
                (unsigned long long)r->peak_live_bytes, (unsigned long long)s->peak_live_objects,
                (unsigned long long)r->peak_rss_bytes, (unsigned long long)r->peak_rss_busy_bytes,
                (unsigned long long)r->rss_at_peak_live, (unsigned long long)r->live_at_peak_rss,
                (unsigned long long)r->baseline_rss_bytes,
                r->frag_time_avg, r->frag_at_peak_live, r->frag_at_peak_rss, r->frag_peak_over_peak);
        if (c->program_rss)
            fprintf(f, "  \"program_peak_resident_bytes\": %llu,\n", (unsigned long long)c->program_rss);
        fprintf(f, "  \"heap_mode\": \"%s\", \"heap_api\": \"%s\", \"heaps_native\": %llu,"
                   " \"heaps_free_each\": %llu, \"skipped_calls\": %llu,\n",
                r->heap_mode, r->heap_api, (unsigned long long)r->heaps_native,
                (unsigned long long)r->heaps_free_each, (unsigned long long)r->skipped_calls);
        fprintf(f, "  \"plan_stalls\": %llu, \"plan_stall_s\": %.6f, \"plan_ring_bytes\": %llu,"
                   " \"compile_s\": %.3f, \"compile_cpu_s\": %.3f, \"compile_cpu_read_s\": %.3f,"
                   " \"compile_cpu_compile_s\": %.3f, \"window_ops\": %llu, \"plan_bytes\": %llu, \"plan_segments\": %llu,"
                   " \"hatrace_peak_rss_bytes\": %llu,\n",
                (unsigned long long)r->plan_stalls, r->plan_stall_s, (unsigned long long)r->plan_ring_bytes,
                c->compile_s, c->compile_cpu_s, c->cpu_read_s, c->cpu_compile_s,
                (unsigned long long)c->window_ops, (unsigned long long)c->plan_bytes,
                (unsigned long long)c->plan_segments, (unsigned long long)c->own_peak_rss);
        if (c->plan_where) {
            fputs("  \"plan_where\": ", f);
            rp_json_str(f, c->plan_where);
            fputs(",\n", f);
        }
        fprintf(f, "  \"plan\": {\"heaps_created\": %llu, \"heaps_destroyed\": %llu, \"heaps_confined\": %llu,"
                   " \"heaps_shared\": %llu, \"heap_frees\": %llu, \"waits\": %llu, \"free_null_replayed\": %llu,"
                   " \"failed_skipped\": %llu, \"realloc_free_as_free\": %llu, \"pvalloc_as_memalign\": %llu,"
                   " \"inversions_resolved\": %llu, \"late_frees\": %llu, \"displaced_left_live\": %llu,"
                   " \"lost_objects\": %llu, \"before_tracing\": %llu, \"slot_waits\": %llu}",
                (unsigned long long)s->heaps_created, (unsigned long long)s->heaps_destroyed,
                (unsigned long long)s->heaps_confined, (unsigned long long)s->heaps_shared,
                (unsigned long long)s->heap_frees, (unsigned long long)s->waits,
                (unsigned long long)s->free_null, (unsigned long long)s->skipped_failed,
                (unsigned long long)s->realloc_free, (unsigned long long)s->pvalloc,
                (unsigned long long)s->reused_live, (unsigned long long)s->late_consumed,
                (unsigned long long)s->left_displaced, (unsigned long long)s->lost_objects,
                (unsigned long long)s->before_tracing, (unsigned long long)s->slot_waits);
        if (c->nphases) {
            fputs(",\n  \"phases\": [", f);
            int shown = 0;
            for (uint32_t k = 0; k < c->nphases && k < r->nphases; k++) {
                if (!phase_shown(c, k)) continue;
                const rp_phase *ph = &c->phases[k];
                const rp_phase_result *q = &r->phases[k];
                fputs(shown++ ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
                rp_json_str(f, ph->name);
                fprintf(f, ", \"ops\": %llu, \"calls\": %llu, \"time_s\": %.6f, \"ns_per_op\": %.2f,"
                           " \"peak_live_bytes\": %llu, \"peak_rss_bytes\": %llu, \"rss_at_peak_live\": %llu,"
                           " \"frag_at_peak_live\": %.4f, \"frag_peak_over_peak\": %.4f}",
                        (unsigned long long)ph->ops, (unsigned long long)q->calls, q->time_s, q->ns_per_op,
                        (unsigned long long)ph->peak_live_bytes, (unsigned long long)q->peak_rss_bytes,
                        (unsigned long long)q->rss_at_peak_live, q->frag_at_peak_live, q->frag_peak_over_peak);
            }
            fputs("\n  ]", f);
        }
        if (r->msg[0]) {
            fputs(",\n  \"warning\": ", f);
            rp_json_str(f, r->msg);
        }
        fputs("}", f);
    }
    fputs("\n]\n", f);
}

int rp_write_series(const char *path, const rp_report *rep, unsigned n, hatf_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return hatf_err_set(err, HATF_E_IO, 0, "%s: %s", path, strerror(errno));
    fputs("allocator,op,live_bytes,rss_bytes\n", f);
    for (unsigned i = 0; i < n; i++)
        for (uint32_t j = 0; j < rep[i].r.nsamples; j++) {
            const rp_sample *s = &rep[i].r.samples[j];
            fprintf(f, "%s,%llu,%llu,%llu\n", rep[i].allocator, (unsigned long long)s->op,
                    (unsigned long long)s->live, (unsigned long long)s->rss);
        }
    if ((ferror(f) | fclose(f)) != 0) return hatf_err_set(err, HATF_E_IO, 0, "%s: %s", path, strerror(errno));
    return 0;
}

/* Quote a string for a gnuplot double-quoted literal. */
void rp_gnuplot_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

FILE *rp_gnuplot_open(const char *out, hatf_err *err)
{
    const char *dot = strrchr(out, '.');
    const char *term;
    if (dot && strcmp(dot, ".png") == 0) term = "pngcairo size 1200,700";
    else if (dot && strcmp(dot, ".svg") == 0) term = "svg size 1200,700 dynamic";
    else {
        hatf_err_set(err, HATF_E_USAGE, 0, "--plot %s: the name must end in .png or .svg", out);
        return NULL;
    }
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        hatf_err_set(err, HATF_E_USAGE, 0, "--plot needs gnuplot (install the Debian package gnuplot-nox)");
        return NULL;
    }
    /* gnuplot's own output stays off ours: when it cannot open the output it
     * draws to its stdout, and its errors span several lines */
    FILE *g = popen("gnuplot >/dev/null 2>&1", "w");
    if (!g) {
        hatf_err_set(err, HATF_E_IO, 0, "cannot run gnuplot: %s", strerror(errno));
        return NULL;
    }
    fprintf(g, "set terminal %s\nset output ", term);
    rp_gnuplot_str(g, out);
    fputc('\n', g);
    return g;
}

int rp_plot(const char *out, const char *csv, const rp_report *rep, unsigned n, const char *title,
            hatf_err *err)
{
    FILE *g = rp_gnuplot_open(out, err);
    if (!g) return err->code;
    fputs("set datafile separator ','\nset key top left\nset grid\n"
          "set xlabel 'allocator calls'\nset ylabel 'MiB'\nset title ", g);
    rp_gnuplot_str(g, title);
    fputs("\nplot ", g);
    for (unsigned i = 0; i < n; i++) {
        fputs(i ? ", " : "", g);
        rp_gnuplot_str(g, csv);
        fprintf(g, " every ::1 using 2:(strcol(1) eq ");
        rp_gnuplot_str(g, rep[i].allocator);
        fputs(" ? $4/1048576 : NaN) with lines lw 2 title ", g);
        char t[96];
        snprintf(t, sizeof t, "%s resident", rep[i].allocator);
        rp_gnuplot_str(g, t);
    }
    if (n) {
        fputs(", ", g);
        rp_gnuplot_str(g, csv);
        fputs(" every ::1 using 2:(strcol(1) eq ", g);
        rp_gnuplot_str(g, rep[0].allocator);
        fputs(" ? $3/1048576 : NaN) with lines lw 2 dt 2 lc 'black' title 'live (requested)'", g);
    }
    fputs("\n", g);
    int st = pclose(g);
    if (st != 0) return hatf_err_set(err, HATF_E_IO, 0, "gnuplot failed drawing %s", out);
    return 0;
}
