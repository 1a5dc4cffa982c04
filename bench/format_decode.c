/* format_decode.c — how fast the trace formats decode, side by side.
 *
 *   format_decode [-n EVENTS] [-r RUNS] [-t TEXT_EVENTS] [--seed S] [--no-attrs]
 *                 [--time-res NS] [--level L] [--no-best] [-o KEEP]
 *   format_decode [-r RUNS] [-t TEXT_EVENTS] FILE        a container file
 *   format_decode --read FILE                           only read it, once
 *
 * Without FILE it writes a synthetic trace (bench/synth.h, 10 million events
 * by default) into a temporary container with the default and the best
 * writer settings (--no-best: the default only; -o: keep the default one
 * there). Times are stored as the recorder stores them by default, in units
 * of 1 µs (--time-res 0: in ns, as generated); --level: the default
 * container's zstd level (else the writer's default). It then times, in rounds so that every decoder sees the
 * same machine state: the container read through the global iterator and the
 * thread iterators (open included), the same events as a raw HATF 1.0 stream
 * in memory (best and plain encodings), and the text form (first
 * TEXT_EVENTS events, parsed line by line). Each figure is the median of RUNS
 * runs (default 5), single thread. Every decoder must yield the same events;
 * an order-independent checksum proves it, or the program fails.
 *
 * One more row is not a decoder: the container's records and address chunks
 * decompressed by zstd (or copied, if stored) and nothing else (the file in
 * memory, one reused buffer), the floor under any reader of the format as it
 * is; it checks only that the chunks hold every record.
 *
 * --read: open FILE and walk the global iterator once, nothing else, and
 * print the events and their digest: the run to measure under callgrind.
 *
 * Goal (issue 2): the container decodes at >= 100 million records/s.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "chunk_scan.h"
#include "hatf.h"
#include "hatf1/hatf1_internal.h"  /* the encoder and decoder in place, their fields */
#include "hatf_container.h"
#include "hatf_source.h"
#include "hatf_text.h"
#include "synth.h"

#define GOAL_MRPS 100.0
#define MAX_RUNS 51

static char tmp_path[2][4096];
static int kept;  /* tmp_path[0] was kept (-o): not removed at exit */

static void cleanup(void)
{
    for (int i = kept; i < 2; i++)
        if (tmp_path[i][0]) unlink(tmp_path[i]);
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "format_decode: %s: %s\n", what, detail);
    exit(1);
}

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Order-independent digest of an event's fields, so a time-merged view and a
 * per-thread view of the same events agree. */
static inline uint64_t ev_mix(const hatf_event *e)
{
    uint64_t h = e->op * 0x9e3779b97f4a7c15ull ^ e->size * 0xc2b2ae3d27d4eb4full ^
                 e->addr * 0x165667b19e3779f9ull ^ e->new_addr * 0x27d4eb2f165667c5ull ^
                 e->time * 0xff51afd7ed558ccdull ^ e->thread * 0xc4ceb9fe1a85ec53ull ^
                 e->heap ^ e->data_len;
    h ^= h >> 29;
    return h * 0xbf58476d1ce4e5b9ull;
}

typedef struct digest {
    uint64_t n, sum;
} digest;

static inline void digest_add(digest *d, const hatf_event *e)
{
    d->n++;
    d->sum += ev_mix(e);
}

/* The payloads of the container's records and address chunks, the file read
 * into memory once (not timed). */
typedef struct payloads {
    uint8_t *file;
    size_t nck, cap;
    struct { size_t off; uint32_t stored, raw, events; int zstd; } *ck;
    size_t max_raw;
    uint64_t events;  /* the reader's count, from the chunk headers */
} payloads;

static void payloads_load(payloads *pl, const char *path)
{
    size_t size;
    pl->file = chunk_file_load(path, &size);
    if (!pl->file) die(path, strerror(errno));
    hatf_err err = { 0 };
    hatf_reader *r = hatf_reader_open(path, &err);
    if (!r) die(path, err.msg);
    pl->events = hatf_reader_event_count(r);
    hatf_reader_close(r);
    size_t pos = 0;
    hatf_chunk_hdr h;
    for (; chunk_next(pl->file, size, &pos, &h); chunk_skip(&pos, &h)) {
        if (h.kind == HATF_CK_RECORDS || h.kind == HATF_CK_ADDRS) {
            if (pl->nck == pl->cap) {
                pl->cap = pl->cap ? 2 * pl->cap : 256;
                pl->ck = realloc(pl->ck, pl->cap * sizeof *pl->ck);
                if (!pl->ck) die(path, "out of memory");
            }
            pl->ck[pl->nck].off = pos + HATF_CK_HDR;
            pl->ck[pl->nck].stored = h.stored_len;
            pl->ck[pl->nck].raw = h.raw_len;
            pl->ck[pl->nck].zstd = h.codec == HATF_CODEC_ZSTD;
            pl->ck[pl->nck++].events = h.kind == HATF_CK_RECORDS ? h.events : 0;
            if (h.raw_len > pl->max_raw) pl->max_raw = h.raw_len;
        }
    }
}

/* Decompress every payload; it must find every record the reader counts. */
static void run_zstd(const payloads *pl)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    uint8_t *out = malloc(pl->max_raw + 1);
    if (!dc || !out) die("zstd", "out of memory");
    uint64_t n = 0;
    for (size_t i = 0; i < pl->nck; i++) {
        const uint8_t *src = pl->file + pl->ck[i].off;
        if (!pl->ck[i].zstd) {  /* stored: the reader copies it */
            memcpy(out, src, pl->ck[i].raw);
        } else {
            size_t z = ZSTD_decompressDCtx(dc, out, pl->ck[i].raw, src, pl->ck[i].stored);
            if (ZSTD_isError(z) || z != pl->ck[i].raw) die("zstd", "a chunk does not decompress");
        }
        n += pl->ck[i].events;
    }
    if (n != pl->events) die("zstd", "the chunks walked do not hold every record");
    free(out);
    ZSTD_freeDCtx(dc);
}

/* ---- what gets timed ---------------------------------------------------- */
typedef enum { K_GLOBAL, K_THREADS, K_SOURCE, K_ZSTD, K_HATF1, K_TEXT } kind;

typedef struct method {
    const char *name;
    kind k;
    const char *path;        /* container */
    const payloads *pl;      /* its chunks' payloads */
    const uint8_t *buf;      /* HATF 1.0 or text in memory */
    size_t len;
    digest expect;
    double wall[MAX_RUNS], cpu[MAX_RUNS];
} method;

static digest run_container(const char *path, int global)
{
    hatf_err err = { 0 };
    hatf_reader *r = hatf_reader_open(path, &err);
    if (!r) die(path, err.msg);
    digest d = { 0, 0 };
    hatf_event ev;
    int rc = 0;
    if (global) {
        hatf_iter *it = hatf_iter_global(r);
        if (!it) die(path, "no global iterator");
        while ((rc = hatf_iter_next(it, &ev)) == 1) digest_add(&d, &ev);
        if (rc < 0) die(path, hatf_iter_error(it)->msg);
        hatf_iter_free(it);
    } else {
        const uint64_t *threads;
        size_t nt = hatf_reader_threads(r, &threads);
        for (size_t i = 0; i < nt; i++) {
            hatf_iter *it = hatf_iter_thread(r, threads[i]);
            if (!it) die(path, "no thread iterator");
            while ((rc = hatf_iter_next(it, &ev)) == 1) digest_add(&d, &ev);
            if (rc < 0) die(path, hatf_iter_error(it)->msg);
            hatf_iter_free(it);
        }
    }
    hatf_reader_close(r);
    return d;
}

/* hatf_source: the global iterator with equal times across threads in causal
 * order (hatf/readers/causal.c), as the tools read. */
static digest run_source(const char *path)
{
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(path, HATF_FMT_CONTAINER, &err);
    if (!s) die(path, err.msg);
    digest d = { 0, 0 };
    hatf_event ev;
    int rc;
    while ((rc = hatf_source_next(s, &ev)) == 1) digest_add(&d, &ev);
    if (rc < 0) die(path, hatf_source_error(s)->msg);
    hatf_source_close(s);
    return d;
}

static digest run_hatf1(const uint8_t *buf, size_t len)
{
    hatf1_decoder dec;
    hatf1_decoder_init(&dec, buf, len, 0);
    digest d = { 0, 0 };
    hatf_event ev;
    int rc;
    while ((rc = hatf1_decode(&dec, &ev)) == 1) digest_add(&d, &ev);
    if (rc < 0) die("hatf1_decode", dec.err.msg);
    return d;
}

static digest run_text(const uint8_t *buf, size_t len)
{
    hatf_buf scratch;
    hatf_buf_init(&scratch);
    digest d = { 0, 0 };
    hatf_event ev;
    hatf_err err = { 0 };
    const char *p = (const char *)buf, *end = p + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int rc = hatf_text_parse(p, n, (uint64_t)(p - (const char *)buf), &ev, &scratch, &err);
        if (rc < 0) die("hatf_text_parse", err.msg);
        if (rc == 1) digest_add(&d, &ev);
        p += n + 1;
    }
    hatf_buf_free(&scratch);
    return d;
}

static void time_one(method *m, int run)
{
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    digest d;
    switch (m->k) {
    case K_GLOBAL: d = run_container(m->path, 1); break;
    case K_THREADS: d = run_container(m->path, 0); break;
    case K_SOURCE: d = run_source(m->path); break;
    case K_ZSTD: run_zstd(m->pl); d = m->expect; break;
    case K_HATF1: d = run_hatf1(m->buf, m->len); break;
    default: d = run_text(m->buf, m->len); break;
    }
    m->wall[run] = clock_s(CLOCK_MONOTONIC) - w0;
    m->cpu[run] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (d.n != m->expect.n || d.sum != m->expect.sum) {
        fprintf(stderr, "format_decode: %s yields %llu events (digest %016llx), expected %llu (%016llx)\n",
                m->name, (unsigned long long)d.n, (unsigned long long)d.sum,
                (unsigned long long)m->expect.n, (unsigned long long)m->expect.sum);
        exit(1);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    double s[MAX_RUNS];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* ---- building the inputs -------------------------------------------------- */
typedef struct inputs {
    hatf_buf best, plain, text;
    hatf1_encoder ebest, eplain;
    digest all, text_part;
    uint64_t text_max;
    hatf_writer *w[2];
    hatf_event batch[1024];
    size_t nbatch;
} inputs;

static void add_event(inputs *in, const hatf_event *ev)
{
    if (hatf1_encode(&in->ebest, ev) < 0 || hatf1_encode(&in->eplain, ev) < 0)
        die("hatf1_encode", "refused an event");
    if (in->all.n < in->text_max) {
        if (hatf_text_format(ev, &in->text) < 0) die("hatf_text_format", "out of memory");
        digest_add(&in->text_part, ev);
    }
    digest_add(&in->all, ev);
}

static void flush_batch(inputs *in)
{
    for (int i = 0; i < 2; i++)
        if (in->w[i] && in->nbatch && hatf_writer_add(in->w[i], in->batch, in->nbatch) < 0)
            die("hatf_writer_add", "failed");
    in->nbatch = 0;
}

static hatf_writer *temp_writer(int slot, int best, int level, const hatf_info *info)
{
    const char *dir = getenv("TMPDIR");
    snprintf(tmp_path[slot], sizeof tmp_path[slot], "%s/format_decode.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp_path[slot]);
    if (fd < 0) die(tmp_path[slot], strerror(errno));
    hatf_writer_opts opts = { .best = best, .zstd_level = level };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_open_fd(fd, info, &opts, &err);
    if (!w) die("hatf_writer_open_fd", err.msg);
    return w;
}

/* The recorder's time resolution, applied here so that every decoder sees the
 * same events: a unit of res ns, rounded down, never before the previous
 * event (container_time.h). */
static uint64_t coarse_time(const hatf_event *ev, uint64_t res, uint64_t *prev)
{
    uint64_t t = ev->time / res;
    if (t < *prev) t = *prev;
    return *prev = t;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) die(path, strerror(errno));
    return (uint64_t)st.st_size;
}

static void usage(void)
{
    fprintf(stderr, "usage: format_decode [-n EVENTS] [-r RUNS] [-t TEXT_EVENTS] [--seed S] [--no-attrs]\n"
                    "                     [--time-res NS] [--level L] [--no-best] [-o KEEP] [FILE]\n"
                    "       format_decode --read FILE\n");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t nevents = 10000000, seed = 1, text_max = 2000000, time_res = 1000;
    int runs = 5, attrs = 1, best = 1, level = 0, read_only = 0;
    const char *file = NULL, *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) nevents = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) text_max = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--no-attrs")) attrs = 0;
        else if (!strcmp(argv[i], "--time-res") && i + 1 < argc) time_res = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--no-best")) best = 0;
        else if (!strcmp(argv[i], "--level") && i + 1 < argc) level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) keep = argv[++i];
        else if (!strcmp(argv[i], "--read")) read_only = 1;
        else if (argv[i][0] == '-' || file) usage();
        else file = argv[i];
    }
    if (runs < 1 || runs > MAX_RUNS || (read_only && !file)) usage();
    if (read_only) {
        digest d = run_container(file, 1);
        printf("%llu events, digest %016llx\n", (unsigned long long)d.n, (unsigned long long)d.sum);
        return 0;
    }
    atexit(cleanup);

    static inputs in;
    hatf_buf_init(&in.best);
    hatf_buf_init(&in.plain);
    hatf_buf_init(&in.text);
    hatf1_encoder_init(&in.ebest, &in.best, HATF1_BEST);
    hatf1_encoder_init(&in.eplain, &in.plain, HATF1_PLAIN);
    in.text_max = text_max;
    hatf_buf_append(&in.text, HATF_TEXT_MAGIC "\n", strlen(HATF_TEXT_MAGIC) + 1);

    hatf_event ev;
    int rc;
    if (file) {
        hatf_err err = { 0 };
        hatf_source *src = hatf_source_open(file, HATF_FMT_CONTAINER, &err);
        if (!src) die(file, err.msg);
        while ((rc = hatf_source_next(src, &ev)) == 1) add_event(&in, &ev);
        if (rc < 0) die(file, hatf_source_error(src)->msg);
        hatf_source_close(src);
    } else {
        hatf_info info;
        memset(&info, 0, sizeof info);
        info.address_bits = 64;
        info.time_unit_ns_num = time_res ? time_res : 1;
        info.time_unit_ns_den = 1;
        strcpy(info.clock, "CLOCK_MONOTONIC");
        strcpy(info.cmdline, "format_decode synthetic");
        in.w[0] = temp_writer(0, 0, level, &info);
        if (best) in.w[1] = temp_writer(1, 1, 0, &info);
        synth s;
        synth_init(&s, seed, nevents, attrs);
        uint64_t tprev = 0;
        while ((rc = synth_next(&s, &ev)) == 1) {
            if (time_res) ev.time = coarse_time(&ev, time_res, &tprev);
            add_event(&in, &ev);
            in.batch[in.nbatch++] = ev;
            if (in.nbatch == sizeof in.batch / sizeof in.batch[0]) flush_batch(&in);
        }
        if (rc < 0) die("synthetic", "out of memory");
        flush_batch(&in);
        synth_free(&s);
        hatf_counters c = { .events = in.all.n };
        for (int i = 0; i < 2; i++) {
            hatf_err err = { 0 };
            if (in.w[i] && hatf_writer_close(in.w[i], &c, &err) < 0) die("hatf_writer_close", err.msg);
        }
        if (keep && rename(tmp_path[0], keep) == 0) {
            snprintf(tmp_path[0], sizeof tmp_path[0], "%s", keep);
            kept = 1;
        } else if (keep) {
            die(keep, strerror(errno));
        }
    }
    if (in.best.failed || in.plain.failed || in.text.failed) die("inputs", "out of memory");

    method m[9];
    int nm = 0;
    const char *cpath = file ? file : tmp_path[0];
    m[nm++] = (method){ .name = "container, global iterator", .k = K_GLOBAL, .path = cpath, .expect = in.all };
    m[nm++] = (method){ .name = "container, thread iterators", .k = K_THREADS, .path = cpath, .expect = in.all };
    m[nm++] = (method){ .name = "container, hatf_source (causal)", .k = K_SOURCE, .path = cpath, .expect = in.all };
    static payloads pl[2];
    payloads_load(&pl[0], cpath);
    m[nm++] = (method){ .name = "container, zstd alone (no decoding)", .k = K_ZSTD, .pl = &pl[0], .expect = in.all };
    if (!file && best) {
        payloads_load(&pl[1], tmp_path[1]);
        m[nm++] = (method){ .name = "container --best, zstd alone", .k = K_ZSTD, .pl = &pl[1], .expect = in.all };
        m[nm++] = (method){ .name = "container --best, global iterator", .k = K_GLOBAL, .path = tmp_path[1], .expect = in.all };
        m[nm++] = (method){ .name = "container --best, thread iterators", .k = K_THREADS, .path = tmp_path[1], .expect = in.all };
    }
    m[nm++] = (method){ .name = "HATF 1.0 best, in memory", .k = K_HATF1, .buf = in.best.p, .len = in.best.len, .expect = in.all };
    m[nm++] = (method){ .name = "HATF 1.0 plain, in memory", .k = K_HATF1, .buf = in.plain.p, .len = in.plain.len, .expect = in.all };
    m[nm++] = (method){ .name = "text form, in memory", .k = K_TEXT, .buf = in.text.p, .len = in.text.len, .expect = in.text_part };

    for (int r = 0; r < runs; r++)
        for (int i = 0; i < nm; i++) time_one(&m[i], r);

    if (file)
        printf("format_decode: %s, %llu records, %llu bytes (%.4f B/record)\n", file,
               (unsigned long long)in.all.n, (unsigned long long)file_size(file),
               (double)file_size(file) / (double)in.all.n);
    else
        printf("format_decode: synthetic trace, seed %llu, %s, time unit %llu ns, %llu records;"
               " container %llu bytes (%.4f B/record), --best %llu bytes (%.4f B/record)\n",
               (unsigned long long)seed, attrs ? "attributes {func}" : "no attributes",
               (unsigned long long)(time_res ? time_res : 1),
               (unsigned long long)in.all.n, (unsigned long long)file_size(tmp_path[0]),
               (double)file_size(tmp_path[0]) / (double)in.all.n,
               best ? (unsigned long long)file_size(tmp_path[1]) : 0ull,
               best ? (double)file_size(tmp_path[1]) / (double)in.all.n : 0.0);
    printf("HATF 1.0 best %zu bytes (%.2f B/record), plain %zu bytes (%.2f B/record), text %zu bytes for %llu records\n",
           in.best.len, (double)in.best.len / (double)in.all.n, in.plain.len,
           (double)in.plain.len / (double)in.all.n, in.text.len, (unsigned long long)in.text_part.n);
    printf("median of %d runs, one thread; identical events from every decoder (digest %016llx)\n", runs,
           (unsigned long long)in.all.sum);
    printf("%-36s %10s %9s %9s %12s\n", "decoder", "Mrec/s", "ns/rec", "cpu ns/rec", "vs container");
    double base = 0, goal_rate = 0;
    for (int i = 0; i < nm; i++) {
        double w = median(m[i].wall, runs), c = median(m[i].cpu, runs);
        double n = (double)m[i].expect.n;
        double rate = n / w / 1e6;
        if (i == 0) base = rate, goal_rate = rate;
        printf("%-36s %10.1f %9.2f %10.2f %11.2fx\n", m[i].name, rate, w * 1e9 / n, c * 1e9 / n,
               rate / base);
    }
    printf("goal: container global iterator >= %.0f Mrec/s: %.1f, %s\n", GOAL_MRPS, goal_rate,
           goal_rate >= GOAL_MRPS ? "met" : "MISSED");
    for (int i = 0; i < nm; i++) {
        if (m[i].k != K_ZSTD) continue;
        double c = median(m[i].cpu, runs) * 1e9 / (double)m[i].expect.n;
        printf("%s: %.2f cpu ns/record, %.0f%% of the goal's %.0f ns budget\n", m[i].name, c,
               c * GOAL_MRPS / 10.0, 1e3 / GOAL_MRPS);
    }
    for (int i = 0; i < 2; i++) {
        free(pl[i].file);
        free(pl[i].ck);
    }
    hatf_buf_free(&in.best);
    hatf_buf_free(&in.plain);
    hatf_buf_free(&in.text);
    return 0;
}
