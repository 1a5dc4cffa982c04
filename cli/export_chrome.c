/* export_chrome.c — hatrace convert --to chrome: the heap over time in the
 * Trace Event Format (JSON), which Perfetto's UI and chrome://tracing open.
 *
 * Counters ("ph": "C"), one value at the end of each interval of stats
 * --timeline --points N (the same intervals, from the same count:
 * sites_pass_overtime): the heap's live bytes and objects, the most live
 * bytes within the interval, and the process's resident bytes (the
 * recorder's own taken out) where the trace sampled them. Per thread, the
 * live bytes of the objects that thread allocated (freed by any thread),
 * each thread in its own intervals (at most THREAD_POINTS; the threads past
 * the first THREAD_TRACKS share one track, so memory stays bounded). The program's
 * phases (its comments, as stats --phases splits them) as complete slices
 * ("ph": "X") from their first event to their last. Times ("ts") are in
 * microseconds from the trace's first event; a trace without times counts
 * one microsecond per record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "export.h"
#include "export_sink.h"
#include "heaplive.h"
#include "lookahead.h"
#include "overtime.h"
#include "phases.h"
#include "sites.h"

#define U(x) ((unsigned long long)(x))
#define THREAD_POINTS 100
#define THREAD_TRACKS 256  /* threads with a track of their own; later ones share one */
#define OTHER_THREADS UINT64_MAX
#define OTHER_TID 2147483647ull  /* their tid in the file: a number JSON readers keep exact */

typedef struct thread_track {
    uint64_t id, live_bytes, live_objects;
    timeline by_time, by_record;
} thread_track;

typedef struct chrome {
    sites_pass *p;
    heaplive live;       /* cells: (heap, thread number) */
    addrmap threads;     /* thread id -> number */
    addrmap heaps;       /* heap id -> dense number */
    thread_track *t;
    size_t nt;
    uint64_t now, now_record;
    phases ph;
} chrome;

/* heaplive's callback: the thread's live objects changed */
static void thread_live(void *ctx, uint32_t tag, uint32_t heap, int64_t objects, int64_t bytes)
{
    (void)heap;
    chrome *c = ctx;
    thread_track *t = &c->t[tag];
    t->live_objects += (uint64_t)objects;
    t->live_bytes += (uint64_t)bytes;
    timeline_add(&t->by_time, c->now, 0, 0, t->live_bytes, t->live_objects);
    timeline_add(&t->by_record, c->now_record, 0, 0, t->live_bytes, t->live_objects);
}

/* The number of the event's thread, its track made on first sight (past
 * THREAD_TRACKS threads, the one of all later threads). @return it, or -1 out of memory. */
static long thread_of(chrome *c, uint64_t id)
{
    int added;
    if (c->nt >= THREAD_TRACKS && !addrmap_find(&c->threads, id)) id = OTHER_THREADS;
    long i = addrmap_index(&c->threads, id, &added);
    if (i < 0 || !added) return i;
    thread_track *v = realloc(c->t, (c->nt + 1) * sizeof *v);
    if (!v) return -1;
    c->t = v;
    thread_track *t = &c->t[c->nt++];
    memset(t, 0, sizeof *t);
    t->id = id;
    return timeline_init(&t->by_time, THREAD_POINTS) || timeline_init(&t->by_record, THREAD_POINTS) ? -1 : i;
}

/* heaplive_event's cell: the heap's and the event's thread's */
static long thread_cell(void *ctx, uint32_t heap, const hatf_event *ev)
{
    chrome *c = ctx;
    long t = thread_of(c, ev->thread);
    return t < 0 ? -1 : heaplive_cell_of(&c->live, heap, (uint32_t)t);
}

static int count_event(void *ctx, const lookahead_item *x)
{
    chrome *c = ctx;
    const hatf_event *ev = &x->ev;
    static const phase_counts none;
    if (ev->op == HATF_OP_COMMENT) {  /* as stats --phases: a comment opens its phase, with no time of its own */
        if (phases_comment(&c->ph, ev->data, ev->data_len, &none)) return -1;
        return sites_pass_count(c->p, x);
    }
    phases_event(&c->ph, ev->time, 0);
    int rc = sites_pass_count(c->p, x);
    if (rc) return rc;
    c->now = ev->time;
    c->now_record++;
    return heaplive_event(&c->live, &c->heaps, ev, thread_cell, c);
}

static void prefetch_event(void *ctx, const hatf_event *ev)
{
    chrome *c = ctx;
    sites_pass_prefetch(c->p, ev);
    heaplive_prefetch(&c->live, ev);
}

typedef struct clock_ {
    int by_records;
    uint64_t num, den, x0;
} clock_;

/* x (a time in the trace's units, or a record number) in µs from the first event */
static double us_of(const clock_ *k, uint64_t x)
{
    uint64_t dx = x > k->x0 ? x - k->x0 : 0;
    return k->by_records ? (double)dx : (double)((unsigned __int128)dx * k->num / k->den) / 1000.0;
}

static void counter(hatf_buf *o, const char *name, double ts, uint64_t pid, uint64_t tid, const char *arg,
                    uint64_t v)
{
    cli_put(o, ",\n{\"name\": ");
    cli_json_string(o, name);
    cli_put(o, ", \"cat\": \"heap\", \"ph\": \"C\", \"ts\": %.3f, \"pid\": %llu, \"tid\": %llu, \"args\": {\"%s\": %llu}}", ts, U(pid),
            U(tid), arg, U(v));
}

static void metadata(hatf_buf *o, const char *what, uint64_t pid, uint64_t tid, const char *name)
{
    cli_put(o, ",\n{\"name\": \"%s\", \"cat\": \"__metadata\", \"ph\": \"M\", \"pid\": %llu, \"tid\": %llu, \"args\": {\"name\": ", what, U(pid),
            U(tid));
    cli_json_string(o, name);
    cli_put(o, "}}");
}

static void write_json(hatf_buf *o, chrome *c, const overtime *ot, hatf_source *src, const char *path)
{
    hatf_reader *r = hatf_source_container(src);
    const hatf_info *info = r ? hatf_reader_info(r) : NULL;
    uint64_t pid = info && info->pid ? info->pid : 1;
    const timeline *tl = ot->tl;
    clock_ k = { ot->by_records, ot->num, ot->den, tl->x0 };
    cli_put(o, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"exporter\": \"hatrace %s\", \"trace\": ", HATRACE_VERSION);
    cli_json_string(o, path);
    cli_put(o, ", \"ts\": \"%s\", \"intervals\": %zu, \"max_live_bytes\": %llu},\n\"traceEvents\": [\n",
            ot->by_records ? "records from the first event" : "microseconds from the first event", tl->n,
            U(ot->max_live_bytes));
    cli_put(o, "{\"name\": \"process_name\", \"cat\": \"__metadata\", \"ph\": \"M\", \"pid\": %llu, \"tid\": 0, \"args\": {\"name\": ", U(pid));
    cli_json_string(o, info && info->cmdline[0] ? info->cmdline : path);
    cli_put(o, "}}");
    metadata(o, "thread_name", pid, 0, "heap and phases");
    size_t rk = 0;
    uint64_t rlast = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const timeline_span *s = &tl->v[i];
        uint64_t end = overtime_end(ot, i);
        double ts = ot->by_records ? (double)end : (double)end / 1000.0;
        counter(o, "heap live bytes", ts, pid, 0, "live_bytes", s->live_bytes);
        counter(o, "heap live objects", ts, pid, 0, "live_objects", s->live_objects);
        counter(o, "heap most live bytes in the interval", ts, pid, 0, "max_live_bytes", s->max_live_bytes);
        if (overtime_has_resident(ot)) {
            uint64_t res = overtime_resident(ot, i, &rk, &rlast);
            if (rk) counter(o, "resident bytes", ts, pid, 0, "resident_bytes", res);  /* none before the first sample */
        }
    }
    for (size_t j = 0; j < c->nt; j++) {
        thread_track *t = &c->t[j];
        const timeline *ttl = ot->by_records ? &t->by_record : &t->by_time;
        char name[160];
        const char *tn = r && t->id != OTHER_THREADS ? hatf_reader_thread_name(r, t->id) : NULL;
        if (t->id == OTHER_THREADS) snprintf(name, sizeof name, "the threads after the first %d", THREAD_TRACKS);
        else snprintf(name, sizeof name, "thread %llu%s%s", U(t->id), tn ? " " : "", tn ? tn : "");
        uint64_t tid = t->id == OTHER_THREADS ? OTHER_TID : t->id;
        metadata(o, "thread_name", pid, tid, name);
        timeline_finish((timeline *)ttl, THREAD_POINTS);
        if (t->id == OTHER_THREADS) snprintf(name, sizeof name, "live bytes of the threads after the first %d", THREAD_TRACKS);
        else snprintf(name, sizeof name, "live bytes of thread %llu", U(t->id));
        for (size_t i = 0; i < ttl->n; i++)
            counter(o, name, us_of(&k, timeline_end(ttl, i)), pid, tid, "live_bytes", ttl->v[i].live_bytes);
    }
    if (!ot->by_records)
        for (size_t i = 0; i < c->ph.n; i++) {
            const phase *ph = &c->ph.v[i];
            if (!ph->timed) continue;  /* "(start)" when the first event is a comment */
            double ts = us_of(&k, ph->first_time);
            cli_put(o, ",\n{\"name\": ");
            cli_json_string(o, ph->name);
            cli_put(o, ", \"cat\": \"phase\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": %llu, \"tid\": 0}", ts,
                    us_of(&k, ph->last_time) - ts, U(pid));
        }
    cli_put(o, "\n]}\n");
}

int export_chrome(const export_opts *o)
{
    hatf_source *src = cli_open_source(o->in, o->from);
    if (!src) return CLI_FAIL;
    chrome c = { 0 };
    static const phase_counts none;
    c.p = sites_pass_new(src, 0, 0, o->points);
    int rc = CLI_OK, bad = !c.p || heaplive_init(&c.live, thread_live, &c) || addrmap_init(&c.threads) ||
                           addrmap_init(&c.heaps) || phases_init(&c.ph, &none);
    if (bad) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    } else {
        int count_rc, k = lookahead_run(src, count_event, prefetch_event, &c, &count_rc);
        if (k == LOOKAHEAD_STOPPED) {
            cli_error("%s: out of memory", o->in);
            rc = CLI_FAIL;
        } else if (k < 0) {
            rc = cli_source_failed(o->in, src);
        }
    }
    export_sink *k = rc == CLI_OK ? sink_open(o->out, o->in, o->force, SINK_PLAIN) : NULL;
    if (k) {
        overtime ot;
        sites_pass_overtime(c.p, src, o->in, o->points, &ot);
        write_json(sink_buf(k), &c, &ot, src, o->in);
        if (sink_buf(k)->failed) cli_error("%s: out of memory", o->out);
        if (sink_close(k, !sink_buf(k)->failed) < 0) rc = CLI_FAIL;
    } else {
        rc = CLI_FAIL;
    }
    for (size_t i = 0; i < c.nt; i++) {
        timeline_free(&c.t[i].by_time);
        timeline_free(&c.t[i].by_record);
    }
    free(c.t);
    heaplive_free(&c.live);
    addrmap_free(&c.threads);
    addrmap_free(&c.heaps);
    phases_free(&c.ph);
    sites_pass_free(c.p);
    rc = cli_read_end(o->in, src, rc);
    hatf_source_close(src);
    return rc;
}
