/* follow.c — hatrace stats --follow: a running program's heap, live.
 *
 * The trace is read with a following source (hatf_source_open_follow): each
 * refresh takes in what the recorder has sealed since the last one and counts
 * it with stats' own counts, so the last refresh, once the trace is complete,
 * gives the figures hatrace stats gives of the finished trace. Between
 * refreshes the figures are those of the events up to the time every running
 * thread has reached in the file (include/hatf_container.h says why).
 *
 * A thread the file shows only after events of a later time were counted
 * comes late (hatf_reader_follow_late): its events are counted after them,
 * so the peaks of the refreshes may be off; the last refresh then reads the
 * finished file once more, whole, so that it gives stats' figures.
 *
 * The follow ends when the trace is complete (its index and trailer are
 * written), when the user stops it (SIGINT: the figures read so far), or
 * when the file has not grown for the timeout, or for a refresh after its
 * recording process is gone (the header's pid no longer exists): the rest is
 * then read as a cut trace and the output is partial (exit 3).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "addrmap.h"
#include "cli_util.h"
#include "lookahead.h"
#include "sites.h"
#include "follow.h"
#include "stats_print.h"

#define U(x) ((unsigned long long)(x))

/* A call stack's calls and bytes, in all and in this interval. */
typedef struct fsite {
    uint64_t stack, calls, bytes, calls_now, bytes_now;
} fsite;

typedef struct follow {
    stats *st;
    addrmap index;            /* stack id -> position in v */
    fsite *v;
    size_t n, cap;
    uint64_t calls_now;       /* allocation calls in this interval */
    int nomem;
} follow;

static volatile sig_atomic_t stop_asked;

static void on_sigint(int sig)
{
    (void)sig;
    stop_asked = 1;
}

static int site_count(follow *f, const hatf_event *ev)
{
    uint64_t size = ev->op == HATF_OP_ALLOC || ev->op == HATF_OP_REALLOC_INPLACE || ev->op == HATF_OP_REALLOC_MOVE ||
                            ev->op == HATF_OP_REALLOC_NEW ? ev->size : 0;
    if (ev->op != HATF_OP_ALLOC && !hatf_op_is_realloc(ev->op)) return 0;
    f->calls_now++;
    uint64_t stack = sites_event_stack(ev);
    int added;
    long i = addrmap_index(&f->index, stack, &added);
    if (i < 0) return HATF_E_NOMEM;
    if (added) {
        if (f->n == f->cap) {
            size_t cap = f->cap ? 2 * f->cap : 64;
            fsite *v = realloc(f->v, cap * sizeof *v);
            if (!v) return HATF_E_NOMEM;
            f->v = v;
            f->cap = cap;
        }
        memset(&f->v[f->n], 0, sizeof *f->v);
        f->v[f->n++].stack = stack;
    }
    fsite *s = &f->v[i];
    s->calls++, s->calls_now++;
    s->bytes += size, s->bytes_now += size;
    return 0;
}

static int follow_count(void *ctx, const lookahead_item *x)
{
    follow *f = ctx;
    int rc = stats_count(f->st, x);
    return rc ? rc : site_count(f, &x->ev);
}

static void follow_prefetch(void *ctx, const hatf_event *ev) { stats_prefetch(((follow *)ctx)->st, ev); }

static int by_bytes_now(const void *a, const void *b)
{
    const fsite *x = a, *y = b;
    if (x->bytes_now != y->bytes_now) return x->bytes_now < y->bytes_now ? 1 : -1;
    if (x->calls_now != y->calls_now) return x->calls_now < y->calls_now ? 1 : -1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The site's name: its innermost frame by name where the trace has it yet
 * (symbols are written at the end), else its address. */
static void site_name(char *out, size_t cap, hatf_reader *r, uint64_t stack)
{
    const uint64_t *fr;
    if (!stack) { snprintf(out, cap, "(no stack)"); return; }
    size_t n = sites_stack(r, stack, &fr);
    const hatf_symbol *sym = n ? hatf_reader_symbol(r, fr[0]) : NULL;
    if (sym && sym->name[0]) snprintf(out, cap, "stack %llu %s", U(stack), sym->name);
    else if (n) snprintf(out, cap, "stack %llu 0x%llx", U(stack), U(fr[0]));
    else snprintf(out, cap, "stack %llu", U(stack));
}

/* One refresh: the figures so far, the interval's calls per second and its
 * top sites. The sites' interval counts are reset. */
static void refresh(follow *f, hatf_source *s, const char *path, int json, uint64_t top, uint64_t elapsed_ms,
                    uint64_t interval_ms, int final, uint64_t late)
{
    stats_summary m;
    stats_figures(f->st, &m);
    hatf_reader *r = hatf_source_container(s);
    uint64_t num, den;
    cli_time_unit(s, &num, &den);
    double trace_s = m.last_time > m.first_time ? (double)(m.last_time - m.first_time) * (double)num / (double)den / 1e9 : 0;
    double per_s = interval_ms ? (double)f->calls_now * 1000.0 / (double)interval_ms : 0;
    size_t ntop = f->n < top ? f->n : (size_t)top;
    if (ntop) qsort(f->v, f->n, sizeof *f->v, by_bytes_now);
    for (size_t i = 0; i < f->n; i++) {  /* positions moved: the index again */
        int added;
        addrmap_entry *e = addrmap_put(&f->index, f->v[i].stack, &added);
        if (e) e->a = (uint32_t)i;
    }
    hatf_buf o;
    hatf_buf_init(&o);
    char name[160];
    if (json) {
        cli_put(&o, "{\"file\": ");
        cli_json_string(&o, path);
        cli_put(&o, ", \"elapsed_ms\": %llu, \"final\": %s, \"complete\": %s, \"records\": %llu, \"allocs\": %llu, "
                    "\"frees\": %llu, \"reallocs\": %llu, \"total_bytes\": %llu, \"max_live_objects\": %llu, "
                    "\"max_live_bytes\": %llu, \"live_objects\": %llu, \"live_bytes\": %llu, \"trace_seconds\": %.6f, "
                    "\"calls_per_second\": %.1f, \"late_events\": %llu, \"top_sites\": [",
                U(elapsed_ms), final ? "true" : "false", hatf_reader_complete(r) ? "true" : "false", U(m.records),
                U(m.allocs), U(m.frees), U(m.reallocs), U(m.total_bytes), U(m.max_live_objects),
                U(m.max_live_bytes), U(m.live_objects), U(m.live_bytes), trace_s, per_s,
                U(late));
        for (size_t i = 0; i < ntop && f->v[i].calls_now; i++) {
            site_name(name, sizeof name, r, f->v[i].stack);
            cli_put(&o, "%s{\"stack\": %llu, \"name\": ", i ? ", " : "", U(f->v[i].stack));
            cli_json_string(&o, name);
            cli_put(&o, ", \"calls\": %llu, \"bytes\": %llu, \"calls_total\": %llu, \"bytes_total\": %llu}",
                    U(f->v[i].calls_now), U(f->v[i].bytes_now), U(f->v[i].calls), U(f->v[i].bytes));
        }
        cli_put(&o, "]}\n");
    } else {
        cli_put(&o, "[%7.1f s] trace %.1f s  records %llu  calls/s %.0f  live %llu bytes in %llu objects  "
                    "peak %llu bytes\n",
                (double)elapsed_ms / 1000.0, trace_s, U(m.records), per_s, U(m.live_bytes), U(m.live_objects),
                U(m.max_live_bytes));
        for (size_t i = 0; i < ntop && f->v[i].calls_now; i++) {
            site_name(name, sizeof name, r, f->v[i].stack);
            cli_put(&o, "    %12llu calls %16llu bytes  %s\n", U(f->v[i].calls_now), U(f->v[i].bytes_now), name);
        }
    }
    fwrite(o.p, 1, o.len, stdout);
    fflush(stdout);
    hatf_buf_free(&o);
    for (size_t i = 0; i < f->n; i++) f->v[i].calls_now = f->v[i].bytes_now = 0;
    f->calls_now = 0;
}

/* Is the process that wrote the trace gone? (Not known: 0.) */
static int writer_gone(hatf_source *s)
{
    const hatf_info *in = hatf_source_info(s);
    if (!in || !in->pid) return 0;
    return kill((pid_t)in->pid, 0) != 0 && errno == ESRCH;
}

int stats_follow(const char *path, int json, uint64_t interval_ms, uint64_t timeout_s, uint64_t top)
{
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open_follow(path, &err);
    if (!s) {
        cli_error_at(path, &err);
        return CLI_FAIL;
    }
    hatf_source_read_on(s, !cli_strict);
    hatf_reader *r = hatf_source_container(s);
    follow f = { .st = stats_new(s) };
    if (!f.st || addrmap_init(&f.index)) {
        cli_error("out of memory");
        stats_free(f.st);
        hatf_source_close(s);
        return CLI_FAIL;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);

    int rc = CLI_OK;
    const char *ended = NULL;  /* why the follow was given up */
    uint64_t start = cli_now_ms(), last = start, grew_at = start;
    for (;;) {
        int count_rc = 0, k = lookahead_run(s, follow_count, follow_prefetch, &f, &count_rc);
        if (k == LOOKAHEAD_STOPPED) {
            cli_error("%s: out of memory after %llu records", path, U(stats_records(f.st)));
            rc = CLI_FAIL;
            break;
        }
        if (k < 0) {
            rc = cli_source_failed(path, s);
            break;
        }
        if (!hatf_reader_following(r) || stop_asked) break;
        /* wait for the next refresh, looking at the file every 50 ms */
        uint64_t t = cli_now_ms();
        if (t - last >= interval_ms) {
            refresh(&f, s, path, json, top, t - start, t - last, 0, hatf_reader_follow_late(r));
            last = t;
        }
        uint64_t wait = interval_ms - (t - last);
        if (wait > 50) wait = 50;
        struct timespec ts = { (time_t)(wait / 1000), (long)(wait % 1000) * 1000000L };
        nanosleep(&ts, NULL);
        int g = hatf_reader_follow(r);
        if (g < 0) {
            cli_error("%s: %s while following", path, hatf_strerror(g));
            rc = CLI_FAIL;
            break;
        }
        t = cli_now_ms();
        if (g > 0) {
            grew_at = t;
        } else if (t - grew_at >= timeout_s * 1000u) {
            ended = "has not grown for the timeout";
        } else if (t - grew_at >= interval_ms && writer_gone(s)) {
            ended = "its recording process is gone";
        }
        if (ended) {
            const hatf_info *in = hatf_source_info(s);
            struct stat fs;
            cli_error("%s: offset %llu: the trace %s (pid %u) and has no end index: read as a cut trace", path,
                      U(stat(path, &fs) == 0 ? fs.st_size : 0), ended, in ? in->pid : 0);
            if (hatf_reader_follow_stop(r) < 0) {
                cli_error("%s: out of memory", path);
                rc = CLI_FAIL;
                break;
            }
        }
    }
    sigaction(SIGINT, &old, NULL);
    hatf_source *whole = NULL;
    uint64_t late = hatf_reader_follow_late(r);
    if (rc == CLI_OK && !hatf_reader_following(r) && late) {
        /* a thread came late: its events were counted after later ones, so
         * the peaks may be off; the finished file read whole gives them */
        stats *again = NULL;
        whole = cli_open_source(path, HATF_FMT_CONTAINER);
        if (whole && (again = stats_new(whole))) {
            int count_rc = 0;
            if (lookahead_run(whole, stats_count, stats_prefetch, again, &count_rc) == 0) {
                stats_free(f.st);
                f.st = again;
                hatf_source_close(s);
                s = whole;
                r = hatf_source_container(s);
                whole = NULL;
            } else {
                stats_free(again);
            }
        }
        hatf_source_close(whole);
    }
    if (rc == CLI_OK) {
        uint64_t t = cli_now_ms();
        refresh(&f, s, path, json, top, t - start, t - last, 1, late);
        if (!json) {
            hatf_buf o;
            hatf_buf_init(&o);
            cli_put(&o, "\n");
            stats_table(&o, f.st, path, s);
            fwrite(o.p, 1, o.len, stdout);
            hatf_buf_free(&o);
        }
        if (stop_asked && hatf_reader_following(r))
            fprintf(stderr, "hatrace: %s: stopped; the figures are those read so far (the trace goes on)\n", path);
        else
            rc = cli_read_end(path, s, rc);
    }
    addrmap_free(&f.index);
    free(f.v);
    stats_free(f.st);
    hatf_source_close(s);
    return rc;
}
