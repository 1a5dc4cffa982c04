/* format_size.c — compressed bytes per data record, side by side with the paper.
 *
 *   format_size [-n EVENTS] [--seed S] [--no-attrs]      a synthetic trace (bench/synth.h)
 *   format_size [--from FORMAT] FILE                    any trace file hatf_source reads
 *
 * The same events go, in one pass, into: HATF 1.0 plain and best, each
 * compressed as one zstd stream at levels 3 and 19 (what `zstd -3`/`zstd -19`
 * would make of the file; level 19 runs at ~2 MB/s, so by default it sees the
 * first 2 million records only, and the table says so), and our container written with the default
 * settings (as the recorder writes) and with the best settings (as
 * `hatrace convert --best` writes). It prints bytes per data record next to
 * the paper's Table 4 figures (Chilimbi, Jones, Zorn, ISMM 2000): HATF with
 * split addresses and gzip, 1.54 bytes/record on average and 1.15 on espresso.
 *
 * The ablation rows say where the bytes go: the container with every time
 * set to 0 (the difference to the default row is what the timestamps cost);
 * each container without its address chunks (what everything else costs: no
 * model of the addresses can go below it), with the best settings also with
 * times zeroed (sizes and order alone), and the same sizes and order as HATF
 * 1.0 best with zstd -19, a general-purpose coder's figure for them.
 *
 * A data record is one event (metadata records are not counted).
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

#include "hatf.h"
#include "hatf_container.h"
#include "hatf_source.h"
#include "chunk_scan.h"
#include "synth.h"

#define PAPER_AVG 1.54
#define PAPER_ESPRESSO 1.15
#define GOAL_RECORDED 0.35
#define GOAL_BEST 0.25

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "format_size: %s: %s\n", what, detail);
    exit(1);
}

/* ---- a zstd stream that only counts its output ------------------------- */
typedef struct zsink {
    ZSTD_CCtx *cc;
    int level;
    uint64_t out;
    double secs;
    uint8_t buf[1 << 17];
} zsink;

static void zsink_init(zsink *z, int level)
{
    z->cc = ZSTD_createCCtx();
    if (!z->cc) die("zstd", "out of memory");
    z->level = level;
    z->out = 0;
    z->secs = 0;
    ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(z->cc, ZSTD_c_checksumFlag, 0);
}

static void zsink_feed(zsink *z, const uint8_t *p, size_t n, int end)
{
    double t0 = now_s();
    ZSTD_inBuffer in = { p, n, 0 };
    for (;;) {
        ZSTD_outBuffer out = { z->buf, sizeof z->buf, 0 };
        size_t left = ZSTD_compressStream2(z->cc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) die("zstd", ZSTD_getErrorName(left));
        z->out += out.pos;
        if (end ? left == 0 : in.pos == in.size) break;
    }
    z->secs += now_s() - t0;
}

/* ---- one HATF 1.0 encoding, compressed at two levels ------------------ */
typedef struct hatf1_pipe {
    hatf_buf buf;
    hatf1_encoder enc;
    uint64_t raw, records;
    uint64_t z19_max, z19_records;  /* level 19 is slow: it sees the first z19_max records */
    int z19_done;
    zsink *z3, *z19;
} hatf1_pipe;

static void pipe_init(hatf1_pipe *p, hatf1_mode mode, uint64_t z19_max)
{
    hatf_buf_init(&p->buf);
    hatf1_encoder_init(&p->enc, &p->buf, mode);
    p->raw = p->records = p->z19_records = 0;
    p->z19_max = z19_max ? z19_max : UINT64_MAX;
    p->z19_done = 0;
    p->z3 = malloc(sizeof *p->z3);
    p->z19 = malloc(sizeof *p->z19);
    if (!p->z3 || !p->z19) die("pipe", "out of memory");
    zsink_init(p->z3, 3);
    zsink_init(p->z19, 19);
}

static void pipe_drain(hatf1_pipe *p, int end)
{
    if (p->buf.failed) die("hatf1 encoder", "out of memory");
    p->raw += p->buf.len;
    zsink_feed(p->z3, p->buf.p, p->buf.len, end);
    if (!p->z19_done) {
        int last = end || p->records >= p->z19_max;
        zsink_feed(p->z19, p->buf.p, p->buf.len, last);
        p->z19_records = p->records;
        p->z19_done = last;
    }
    p->buf.len = 0;
}

static void pipe_add(hatf1_pipe *p, const hatf_event *ev)
{
    if (hatf1_encode(&p->enc, ev) < 0) die("hatf1_encode", "refused an event");
    p->records++;
    if (p->buf.len >= (1u << 20) || p->records == p->z19_max) pipe_drain(p, 0);
}

/* ---- a container written to a temporary file --------------------------- */
typedef struct cont_pipe {
    hatf_writer *w;
    char path[4096];
    uint64_t thread;        /* of the pending batch */
    hatf_event batch[256];
    size_t n;
    double secs;
    uint64_t bytes, addr_bytes;  /* the file; its address chunks, headers included */
} cont_pipe;

static void cont_init(cont_pipe *c, const hatf_info *info, int best)
{
    const char *dir = getenv("TMPDIR");
    snprintf(c->path, sizeof c->path, "%s/format_size.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(c->path);
    if (fd < 0) die(c->path, strerror(errno));
    hatf_writer_opts opts = { .best = best };
    hatf_err err = { 0 };
    c->w = hatf_writer_open_fd(fd, info, &opts, &err);
    if (!c->w) die("hatf_writer_open_fd", err.msg);
    c->n = 0;
    c->secs = 0;
}

static void cont_flush_batch(cont_pipe *c)
{
    if (!c->n) return;
    double t0 = now_s();
    if (hatf_writer_add(c->w, c->batch, c->n) < 0) die("hatf_writer_add", "failed");
    c->secs += now_s() - t0;
    c->n = 0;
}

/* ev->data must stay valid until the batch is flushed (cont_add_now otherwise). */
static void cont_add(cont_pipe *c, const hatf_event *ev, int data_is_stable)
{
    if (c->n && (ev->thread != c->thread || c->n == sizeof c->batch / sizeof c->batch[0]))
        cont_flush_batch(c);
    c->thread = ev->thread;
    c->batch[c->n++] = *ev;
    if (!data_is_stable) cont_flush_batch(c);
}

static void cont_close(cont_pipe *c, uint64_t events)
{
    cont_flush_batch(c);
    hatf_counters counters = { .events = events };
    hatf_err err = { 0 };
    double t0 = now_s();
    if (hatf_writer_close(c->w, &counters, &err) < 0) die("hatf_writer_close", err.msg);
    c->secs += now_s() - t0;
    size_t size, pos = 0;
    uint8_t *file = chunk_file_load(c->path, &size);
    if (!file) die(c->path, strerror(errno));
    hatf_chunk_hdr h;
    c->bytes = size;
    c->addr_bytes = 0;
    for (; chunk_next(file, size, &pos, &h); chunk_skip(&pos, &h))
        if (h.kind == HATF_CK_ADDRS) c->addr_bytes += HATF_CK_HDR + h.stored_len;
    free(file);
    unlink(c->path);
}

/* ---- report ------------------------------------------------------------- */
static uint64_t total_records;

static void row(const char *name, uint64_t bytes, uint64_t records, double secs)
{
    char label[80];
    if (records != total_records) {  /* a prefix of the trace: say so */
        snprintf(label, sizeof label, "%s (first %llu)", name, (unsigned long long)records);
        name = label;
    }
    double bpr = records ? (double)bytes / (double)records : 0;
    printf("%-48s %14llu %9.4f %9.3fx %9.3fx", name, (unsigned long long)bytes, bpr,
           bpr / PAPER_AVG, bpr / PAPER_ESPRESSO);
    if (secs > 0) printf(" %9.1f", (double)records / secs / 1e6);
    printf("\n");
}

static void usage(void)
{
    fprintf(stderr, "usage: format_size [-n EVENTS] [--seed S] [--no-attrs] [--z19-max RECORDS]\n"
                    "       format_size [--from hatrace|hatf1.0|text] [--z19-max RECORDS] FILE\n"
                    "--z19-max: zstd -19 sees only the first RECORDS records (default 2000000, 0 = all)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t nevents = 10000000, seed = 1, z19_max = 2000000;
    int attrs = 1;
    const char *file = NULL;
    hatf_format fmt = HATF_FMT_AUTO;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) nevents = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--no-attrs")) attrs = 0;
        else if (!strcmp(argv[i], "--z19-max") && i + 1 < argc) z19_max = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
            int f = hatf_format_from_name(argv[++i]);
            if (f < 0) usage();
            fmt = (hatf_format)f;
        } else if (argv[i][0] == '-' || file) usage();
        else file = argv[i];
    }

    hatf_info info;
    memset(&info, 0, sizeof info);
    info.address_bits = 64;
    info.time_unit_ns_num = info.time_unit_ns_den = 1;
    strcpy(info.clock, "CLOCK_MONOTONIC");
    snprintf(info.cmdline, sizeof info.cmdline, "format_size synthetic");

    synth syn;
    hatf_source *src = NULL;
    struct stat in_st = { 0 };
    if (file) {
        hatf_err err = { 0 };
        src = hatf_source_open(file, fmt, &err);
        if (!src) die(file, err.msg);
        if (hatf_source_container(src)) info = *hatf_reader_info(hatf_source_container(src));
        if (stat(file, &in_st) < 0) die(file, strerror(errno));
    } else {
        synth_init(&syn, seed, nevents, attrs);
    }

    hatf1_pipe plain, best;
    pipe_init(&plain, HATF1_PLAIN, z19_max);
    pipe_init(&best, HATF1_BEST, z19_max);
    hatf1_pipe bare;
    pipe_init(&bare, HATF1_BEST, z19_max);
    static cont_pipe cdef, cbest, cnotime, cbest_notime;
    cont_init(&cdef, &info, 0);
    cont_init(&cbest, &info, 1);
    cont_init(&cnotime, &info, 0);
    cont_init(&cbest_notime, &info, 1);

    double t0 = now_s();
    uint64_t n = 0;
    hatf_event ev;
    for (;;) {
        int rc = src ? hatf_source_next(src, &ev) : synth_next(&syn, &ev);
        if (rc == 0) break;
        if (rc < 0) die(file ? file : "synthetic", src ? hatf_source_error(src)->msg : "out of memory");
        pipe_add(&plain, &ev);
        pipe_add(&best, &ev);
        cont_add(&cdef, &ev, !src);
        cont_add(&cbest, &ev, !src);
        hatf_event part = ev;  /* ablations */
        part.time = 0;
        cont_add(&cnotime, &part, !src);
        cont_add(&cbest_notime, &part, !src);
        part.addr = part.new_addr = 0;
        pipe_add(&bare, &part);
        n++;
    }
    pipe_drain(&plain, 1);
    pipe_drain(&best, 1);
    pipe_drain(&bare, 1);
    cont_close(&cdef, n);
    cont_close(&cbest, n);
    cont_close(&cnotime, n);
    cont_close(&cbest_notime, n);
    double total = now_s() - t0;
    total_records = n;

    if (file)
        printf("format_size: %s (%s), %llu data records\n", file,
               hatf_format_name(hatf_source_format(src)), (unsigned long long)n);
    else
        printf("format_size: synthetic trace, seed %llu, %s, %llu data records\n",
               (unsigned long long)seed, attrs ? "attributes {func}" : "no attributes",
               (unsigned long long)n);
    printf("%-48s %14s %9s %10s %10s %9s\n", "encoding", "bytes", "B/record", "/paper1.54",
           "/espr.1.15", "Mrec/s");
    if (file) row("input file as given", (uint64_t)in_st.st_size, n, 0);
    row("HATF 1.0 plain, uncompressed", plain.raw, n, 0);
    row("HATF 1.0 plain + zstd -3", plain.z3->out, n, plain.z3->secs);
    row("HATF 1.0 plain + zstd -19", plain.z19->out, plain.z19_records, plain.z19->secs);
    row("HATF 1.0 best, uncompressed", best.raw, n, 0);
    row("HATF 1.0 best + zstd -3", best.z3->out, n, best.z3->secs);
    row("HATF 1.0 best + zstd -19", best.z19->out, best.z19_records, best.z19->secs);
    row("container, default (recorder)", cdef.bytes, n, cdef.secs);
    row("container, best (convert --best)", cbest.bytes, n, cbest.secs);
    row("ablation: container default, times zeroed", cnotime.bytes, n, 0);
    row("ablation: container default, no address chunks", cdef.bytes - cdef.addr_bytes, n, 0);
    row("ablation: container best, no address chunks", cbest.bytes - cbest.addr_bytes, n, 0);
    row("ablation: best, times zeroed, no address chunks", cbest_notime.bytes - cbest_notime.addr_bytes, n, 0);
    row("ablation: sizes+order, HATF best + zstd -19", bare.z19->out, bare.z19_records, 0);
    double bdef = n ? (double)cdef.bytes / (double)n : 0, bbest = n ? (double)cbest.bytes / (double)n : 0;
    printf("container default vs HATF best + zstd -19: %.3fx; container best: %.3fx\n",
           bdef / ((double)best.z19->out / (double)best.z19_records),
           bbest / ((double)best.z19->out / (double)best.z19_records));
    printf("goals: default %.4f <= %.2f B/record %s; best %.4f <= %.2f B/record %s\n", bdef,
           GOAL_RECORDED, bdef <= GOAL_RECORDED ? "met" : "MISSED", bbest, GOAL_BEST,
           bbest <= GOAL_BEST ? "met" : "MISSED");
    double rdef = n ? (double)(cdef.bytes - cdef.addr_bytes) / (double)n : 0,
           rbest = n ? (double)(cbest.bytes - cbest.addr_bytes) / (double)n : 0;
    printf("without any address: default %.4f (%.0f%% of its goal), best %.4f (%.0f%% of its goal)\n", rdef,
           100 * rdef / GOAL_RECORDED, rbest, 100 * rbest / GOAL_BEST);
    printf("(Mrec/s: compression or container writing speed alone; whole run %.1f s)\n", total);

    if (src) hatf_source_close(src);
    else synth_free(&syn);
    return 0;
}
