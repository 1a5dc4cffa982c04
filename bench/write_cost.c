/* write_cost.c — the container writer's cost per event, the recorder's flusher
 * path without the program: a recorded trace is read into memory, then written
 * again through hatf_writer the way the flusher feeds it (batches of 256 events
 * of one thread, a flush every --flush-events events), to /dev/null.
 *
 *   write_cost [-r RUNS] [-n MAX_EVENTS] [--level N] [--time-res NS] [--chunk N] [--flush-events N]
 *              [--defer] [--fast|--packed] [--raw [--merged]] [--out OUT] FILE
 *
 * --raw feeds the recorder's own path instead of hatf_writer_add: each
 * thread's plain records (malloc, calloc with its func and nmemb alone, free,
 * realloc) as the rings hold them (16-byte units, hatf_recorder.h; a
 * realloc's release lead as its begin), coded straight from the units by hatf_writer_add_plain_,
 * any other record through hatf_writer_add as the flusher converts it. Their
 * times become clock ticks of 1/3 ns (the trace's time, spread inside its
 * unit), so --time-res converts them as the recorder's writer does.
 * --merged gives them in time order across threads, each thread's run up to
 * the next event of another, as the recorder's merged drain does at a
 * --time-res above 1 us (preload/flusher_order.c); without it, batches of
 * BATCH events thread after thread.
 *
 * Prints the median ns per event over RUNS runs (CPU time of this thread) and
 * the bytes per event the writer produced. -n reads only the first MAX_EVENTS
 * events. The output goes to OUT (default /dev/null;
 * a file lets two builds be compared byte for byte). --fast codes every group the
 * recorder's fast way, stored (hatf_writer_set_coding_, --effort stored); --packed, the
 * recorder's default (fast, packed by zstd on this thread). --defer gives full groups to a
 * helper thread as the recorder does (container_jobs.h): the time is then the
 * writer thread's alone. For instruction counts run one pass
 * under callgrind (`-r 1`, then subtract a `--read-only` run) or `perf stat`.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hatf.h"
#include "hatf_container.h"
#include "container/container_jobs.h"
#include "hatf_recorder.h"

#define BATCH 256
#define MAX_RUNS 51

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "write_cost: %s: %s\n", what, detail);
    exit(1);
}

typedef struct tstream {
    hatf_event *ev;
    size_t n, cap;
    uint64_t *raw;   /* --raw: the units of the plain events, ev's others as 0 units */
    size_t *at;      /* --raw: event i's first unit */
    uint64_t *tick;  /* --raw: event i's tick (a comment: the last event's) */
    uint8_t *plain;  /* --raw: event i is plain (raw_plain, found once: not the writer's cost) */
} tstream;

/* A plain event as the recorder writes it (a malloc, a calloc with its
 * func and nmemb alone, a free or a realloc; hatf_recorder.h), its call in
 * *fn and a calloc's nmemb in *nmemb; or 0 if ev is not one. */
static int raw_plain(const hatf_event *ev, unsigned *fn, uint64_t *nmemb)
{
    if (ev->attr || ev->heap) return 0;
    if (ev->attr_is_bytes || ev->data_len) {
        hatf_attrs at;
        if (!(HATF_PLAIN_FNS >> HATF_FN_CALLOC & 1) || ev->op != HATF_OP_ALLOC || hatf_event_attrs(ev, &at) ||
            at.present != (1u << HATF_A_FUNC | 1u << HATF_A_NMEMB) || at.value[HATF_A_FUNC] != HATF_FN_CALLOC)
            return 0;
        *fn = HATF_FN_CALLOC;
        *nmemb = at.value[HATF_A_NMEMB];
        return 1;
    }
    if (ev->op == HATF_OP_ALLOC) *fn = HATF_FN_MALLOC;
    else if (ev->op == HATF_OP_FREE) *fn = HATF_FN_FREE;
    else if (hatf_op_is_realloc(ev->op)) *fn = HATF_FN_REALLOC;
    else return 0;
    return 1;
}

/* ts->raw and ts->at from ts->ev: ticks of 1/3 ns, events that share a time
 * unit 100 ticks apart inside it (a thread's ticks never go back); the
 * others' ticks too (add_raw gives them with theirs). */
static void make_raw(tstream *ts, uint64_t unit_ns)
{
    ts->raw = malloc((ts->n * HATF_RAW_LONG_UNITS + HATF_RAW_LONG_UNITS) * HATF_RAW_UNIT_WORDS * sizeof *ts->raw);
    ts->at = malloc((ts->n + 1) * sizeof *ts->at);
    ts->tick = malloc((ts->n + 1) * sizeof *ts->tick);
    ts->plain = calloc(ts->n + 1, 1);
    if (!ts->raw || !ts->at || !ts->tick || !ts->plain) die("memory", "out of memory");
    uint64_t per_unit = 3 * unit_ns, last = 0, spread = 0;
    size_t u = 0;
    for (size_t i = 0; i < ts->n; i++) {
        const hatf_event *e = &ts->ev[i];
        ts->at[i] = u;
        ts->tick[i] = last;
        if (e->op == HATF_OP_COMMENT) continue;
        spread = i && e->time == ts->ev[i - 1].time ? spread + 100 : 0;
        uint64_t tick = e->time * per_unit + (spread < per_unit ? spread : per_unit - 1);
        if (tick < last) tick = last;
        last = ts->tick[i] = tick;
        unsigned fn;
        uint64_t nmemb = 0;
        if (!raw_plain(e, &fn, &nmemb)) continue;
        ts->plain[i] = 1;
        uint64_t *x = &ts->raw[u * HATF_RAW_UNIT_WORDS], tk = tick << HATF_RAW_TIME_SHIFT | fn;
        uint64_t size = fn == HATF_FN_FREE ? 0 : e->size, word;
        /* b and c as the hook gives them: a calloc's count and element size, a realloc's result */
        uint64_t b = fn == HATF_FN_CALLOC ? nmemb : size;
        uint64_t c = fn == HATF_FN_CALLOC ? (nmemb ? size / nmemb : 0) : fn == HATF_FN_REALLOC ? e->new_addr : 0;
        if (hatf_raw_short(fn, e->addr, b, c, 0, &word)) {  /* a realloc of NULL has no lead */
            x[0] = tk | HATF_RAW_SHORT;
            x[1] = word;
        } else if (fn == HATF_FN_CALLOC) {  /* a result, b nmemb, c elsize */
            x[0] = tk, x[1] = e->addr, x[2] = b, x[3] = c, x[4] = x[5] = 0;
        } else if (fn == HATF_FN_REALLOC) {  /* a old, b size, c result, d its begin when it gave its block early */
            uint64_t lead = e->release_lead * per_unit;
            x[0] = tk, x[1] = e->addr, x[2] = size, x[3] = e->new_addr, x[5] = 0;
            x[4] = lead && lead <= tick ? hatf_raw_release_d(tick - lead) : 0;
        } else {
            x[0] = tk, x[1] = e->addr, x[2] = size, x[3] = x[4] = x[5] = 0;
        }
        u += hatf_raw_units(x[0]);
    }
    ts->at[ts->n] = u;
}

/* --raw: thread i's events [from, from + n) the flusher's way. */
static void add_raw(hatf_writer *w, const tstream *ts, uint64_t thread, size_t from, size_t n)
{
    size_t i = from, end = from + n;
    while (i < end) {
        if (!ts->plain[i]) {
            hatf_event e = ts->ev[i];
            if (e.op != HATF_OP_COMMENT) e.time = ts->tick[i];  /* a tick as the plain ones' */
            if (hatf_writer_add(w, &e, 1) != 0) die("write", "hatf_writer_add failed");
            i++;
            continue;
        }
        /* the run of plain events up to the next other one (which has no
         * units: the units past it would be taken ahead of it) */
        size_t j = i + 1;
        while (j < end && ts->plain[j]) j++;
        size_t events = 0;
        long took = hatf_writer_add_plain_(w, thread, ts->raw + ts->at[i] * HATF_RAW_UNIT_WORDS,
                                           ts->at[j] - ts->at[i], &events);
        if (took < 0) die("write", "hatf_writer_add_plain_ failed");
        i += events;
        if (!events) die("write", "hatf_writer_add_plain_ took no event");
    }
}

/* --merged: the thread whose next event is the oldest, and how many of its
 * events come before the next of any other (at least one, at most BATCH). */
static size_t merged_next(const tstream *ts, size_t nth, const size_t *pos, size_t *n)
{
    size_t first = nth;
    uint64_t t1 = UINT64_MAX, t2 = UINT64_MAX;
    for (size_t i = 0; i < nth; i++) {
        if (pos[i] == ts[i].n) continue;
        uint64_t t = ts[i].tick[pos[i]];
        if (first == nth || t < t1) t2 = t1, t1 = t, first = i;
        else if (t < t2) t2 = t;
    }
    if (first == nth) return nth;
    const tstream *f = &ts[first];
    size_t k = pos[first] + 1;
    while (k < f->n && k - pos[first] < BATCH && f->tick[k] <= t2) k++;
    *n = k - pos[first];
    return first;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long arg_num(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end) die("not a number", s);
    return v;
}

static void *helper(void *q)
{
    hatf_jobq_run_(q, NULL);
    return NULL;
}

int main(int argc, char **argv)
{
    int defer = 0, fast = 0, raw = 0, merged = 0;
    int runs = 5, read_only = 0;
    size_t max_events = SIZE_MAX;
    hatf_writer_opts o = { 0 };
    long flush_events = 300000;  /* ~100 ms of a program making 3 M events/s */
    const char *path = NULL, *out = "/dev/null";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-r") && i + 1 < argc) runs = (int)arg_num(argv[++i]);
        else if (!strcmp(a, "--level") && i + 1 < argc) o.zstd_level = (int)arg_num(argv[++i]);
        else if (!strcmp(a, "--time-res") && i + 1 < argc) o.time_res_ns = (uint64_t)arg_num(argv[++i]);
        else if (!strcmp(a, "--chunk") && i + 1 < argc) o.chunk_events = (size_t)arg_num(argv[++i]);
        else if (!strcmp(a, "--flush-events") && i + 1 < argc) flush_events = arg_num(argv[++i]);
        else if (!strcmp(a, "-n") && i + 1 < argc) max_events = (size_t)arg_num(argv[++i]);
        else if (!strcmp(a, "--read-only")) read_only = 1;
        else if (!strcmp(a, "--defer")) defer = 1;
        else if (!strcmp(a, "--fast")) fast = 1;
        else if (!strcmp(a, "--packed")) fast = 2;
        else if (!strcmp(a, "--raw")) raw = 1;
        else if (!strcmp(a, "--merged")) merged = 1;
        else if (!strcmp(a, "--out") && i + 1 < argc) out = argv[++i];
        else if (a[0] != '-' && !path) path = a;
        else die("usage", "write_cost [-r RUNS] [-n MAX] [--level N] [--time-res NS] [--chunk N] "
                          "[--flush-events N] [--read-only] [--defer] [--fast|--packed] [--raw [--merged]] [--out OUT] FILE");
    }
    if (!path) die("usage", "a container FILE is needed");
    if (runs < 1 || runs > MAX_RUNS) die("-r", "1..51");
    if (merged && !raw) die("--merged", "needs --raw");

    hatf_err err;
    memset(&err, 0, sizeof err);
    hatf_reader *r = hatf_reader_open(path, &err);
    if (!r) die(path, err.msg);
    hatf_info info = *hatf_reader_info(r);
    const uint64_t *threads;
    size_t nth = hatf_reader_threads(r, &threads);
    tstream *ts = calloc(nth, sizeof *ts);
    uint64_t *threads_copy = malloc((nth ? nth : 1) * sizeof *threads_copy);
    if (!ts || !threads_copy) die("memory", "out of memory");
    memcpy(threads_copy, threads, nth * sizeof *threads);
    size_t total = 0;
    for (size_t i = 0; i < nth; i++) {
        hatf_iter *it = hatf_iter_thread(r, threads[i]);
        const hatf_event *evs;
        int k = 0;
        while (total + ts[i].n < max_events && (k = hatf_iter_next_batch(it, &evs)) > 0) {
            for (int j = 0; j < k && total + ts[i].n < max_events; j++) {
                if (ts[i].n == ts[i].cap) {
                    ts[i].cap = ts[i].cap ? 2 * ts[i].cap : 4096;
                    ts[i].ev = realloc(ts[i].ev, ts[i].cap * sizeof *ts[i].ev);
                    if (!ts[i].ev) die("memory", "out of memory");
                }
                hatf_event e = evs[j];
                if (e.data_len) {
                    uint8_t *d = malloc(e.data_len);
                    if (!d) die("memory", "out of memory");
                    memcpy(d, e.data, e.data_len);
                    e.data = d;
                }
                ts[i].ev[ts[i].n++] = e;
            }
        }
        if (total + ts[i].n < max_events && k < 0) die("decode", hatf_iter_error(it)->msg);
        hatf_iter_free(it);
        total += ts[i].n;
    }
    hatf_reader_close(r);
    if (!total) die(path, "no events");
    if (raw) {  /* the recorder's clock: ticks of 1/3 ns */
        uint64_t unit_ns = info.time_unit_ns_den ? info.time_unit_ns_num / info.time_unit_ns_den : 1;
        for (size_t i = 0; i < nth; i++) make_raw(&ts[i], unit_ns ? unit_ns : 1);
        info.time_unit_ns_num = 1;
        info.time_unit_ns_den = 3;
    }

    double ns[MAX_RUNS];
    uint64_t bytes = 0;
    for (int run = 0; run < runs; run++) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) die(out, "cannot open");
        double t0 = cpu_s();
        hatf_writer *w = read_only ? NULL : hatf_writer_open_fd(fd, &info, &o, &err);
        if (!read_only && !w) die("writer", err.msg);
        if (w && fast) hatf_writer_set_coding_(w, fast == 2 ? HATF_CODING_PACKED_ : HATF_CODING_STORED_);
        if (w && defer) {
            hatf_jobq *q = hatf_writer_defer_(w, 4);
            pthread_t th;
            pthread_attr_t at;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            if (!q || pthread_create(&th, &at, helper, q)) die("helper", "cannot start");
            pthread_attr_destroy(&at);
        }
        size_t done = 0, since_flush = 0;
        size_t *pos = calloc(nth, sizeof *pos);
        /* in time order, as the merged drain, or round robin over threads, a
         * batch each, like a drain pass (a flush due at the end of a round) */
        for (size_t rr = 0; done < total;) {
            size_t n = 0, i = rr;
            if (merged) {
                i = merged_next(ts, nth, pos, &n);
            } else {
                rr = (rr + 1) % nth;
                n = ts[i].n - pos[i] < BATCH ? ts[i].n - pos[i] : BATCH;
            }
            if (w && raw) add_raw(w, &ts[i], threads_copy[i], pos[i], n);
            else if (w && n && hatf_writer_add(w, ts[i].ev + pos[i], n) != 0) die("write", "hatf_writer_add failed");
            pos[i] += n;
            done += n;
            since_flush += n;
            if (w && since_flush >= (size_t)flush_events && (merged || rr == 0)) {
                if (hatf_writer_flush(w)) die("write", "hatf_writer_flush failed");
                since_flush = 0;
            }
        }
        if (w) {
            hatf_counters c = { .events = total };
            if (hatf_writer_flush(w)) die("write", "hatf_writer_flush failed");
            bytes = hatf_writer_bytes(w);
            if (defer && run == runs - 1) {
                uint64_t a, b, c2;
                hatf_writer_defer_counts_(w, &a, &b, &c2);
                printf("groups encoded by the helper %llu, by the writer %llu\n", (unsigned long long)a,
                       (unsigned long long)b);
            }
            if (run == runs - 1 && o.time_res_ns > HATF_ORDER_RES_NS) {  /* the order kept (container_order.h) */
                uint64_t ev, marked, late;
                hatf_writer_order_counts_(w, &ev, &marked, &late);
                printf("order: %llu events, %llu at a 1 us time, %llu given late\n", (unsigned long long)ev,
                       (unsigned long long)marked, (unsigned long long)late);
            }
            if (hatf_writer_close(w, &c, &err)) die("close", err.msg);
        } else {
            close(fd);
        }
        ns[run] = (cpu_s() - t0) * 1e9 / (double)total;
        free(pos);
    }
    qsort(ns, (size_t)runs, sizeof *ns, cmp_d);
    printf("%s: %zu events, %zu threads; level %d, time_res %llu ns, chunk %zu: "
           "%.1f ns/event (median of %d, min %.1f), %.3f bytes/event\n",
           path, total, nth, o.zstd_level, (unsigned long long)o.time_res_ns, o.chunk_events,
           ns[runs / 2], runs, ns[0], (double)bytes / (double)total);
    return 0;
}
