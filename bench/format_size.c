/* format_size.c — bytes per data record of one trace in every encoding of the
 * paper's Table 4, and in our container.
 *
 *   format_size [-n EVENTS] [--seed S] [--no-attrs]      a synthetic trace (bench/synth.h)
 *   format_size [--from FORMAT] FILE                    any trace file hatf_source reads
 *
 * Table 4 of Chilimbi, Jones, Zorn (ISMM 2000) compares, per trace, the size of
 * six encodings, raw and compressed with gzip. The same events go here, in one
 * pass, into each of them (a data record is one event, comments included;
 * metadata records are not counted; multi-byte values of the fixed layouts are
 * little-endian, as a C program would fwrite them on x86-64):
 *
 *   Simple Binary   one 57-byte record per event: the op (1 byte), then size,
 *                   address, new address, thread, heap, time, attributes (8
 *                   bytes each, 0 where the op has none). Attributes: the number,
 *                   or the attribute bytes in 8 bytes, zero-padded (longer lists
 *                   are cut to 8 and counted: "attribute lists over 8 bytes").
 *                   A comment is its op byte, a 2-byte length and its text.
 *   ASCII           hatrace's text form, one line per event (hatf_text_format;
 *                   the "#hatrace-text 1" first line is left out).
 *   HATF naive      HATF 1.0 with fixed widths, interpretation none
 *                   (HATF1_PLAIN: size, address and time 8 bytes, thread and heap
 *                   4, attributes v2).
 *   HATF best       HATF 1.0 with adaptive widths and interpretations
 *                   (HATF1_BEST: delta, default, stride, narrowest widths).
 *   Split Stream    one stream per field of HATF's field list, each compressed
 *                   on its own: op (1 byte per event), size, address (one value
 *                   per address a record carries: a realloc has two), thread,
 *                   heap, time, attributes (8 bytes each, for the records whose
 *                   HATF layout has the field; attributes as in Simple Binary,
 *                   and a comment's 2-byte length and text go there too).
 *   HATF SplitAddr  HATF 1.0 best records with split_addr = 1 (no address
 *                   bytes) and the addresses as a second stream of 8-byte
 *                   values (old then new for a realloc), each compressed on
 *                   its own.
 *
 * Raw is the sum of the variant's streams; each compressed figure is the sum
 * of its streams compressed one by one: zstd level 3 and 19 (as `zstd -3`,
 * `zstd -19` would make of each stream) and gzip level 6 and 9 (zlib, as
 * `gzip -6`, `gzip -9`). zstd -19 runs at ~2 MB/s, so by default it sees the
 * first 2 million records only (--z19-max), and the table says so. Beside them:
 * our container written with the default settings (as the recorder writes;
 * zstd -3 inside) and with the best ones (as `hatrace convert --best` writes;
 * zstd -19 inside), and the figure the paper gives for a row where this file
 * knows one: HATF SplitAddr + gzip, 1.54 bytes/record on average and 1.15 on
 * espresso (no other of the paper's figures is kept here: "-").
 *
 * The ablation rows say where the container's bytes go: the container with
 * every time set to 0 (the difference to the default row is what the
 * timestamps cost); each container without its address chunks (what everything
 * else costs: no model of the addresses can go below it), with the best
 * settings also with times zeroed (sizes and order alone), and the same sizes
 * and order as HATF 1.0 best with zstd -19, a general-purpose coder's figure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "hatf.h"
#include "hatf1/hatf1_internal.h"  /* the encoder and decoder in place, their fields */
#include "hatf_container.h"
#include "hatf_source.h"
#include "hatf_text.h"
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
    uint64_t out;
    double secs;
    uint8_t buf[1 << 17];
} zsink;

static zsink *zsink_new(int level)
{
    zsink *z = malloc(sizeof *z);
    if (!z || !(z->cc = ZSTD_createCCtx())) die("zstd", "out of memory");
    z->out = 0;
    z->secs = 0;
    ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(z->cc, ZSTD_c_checksumFlag, 0);
    return z;
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
    if (end) {  /* level 19's context is large: give it back */
        ZSTD_freeCCtx(z->cc);
        z->cc = NULL;
    }
}

/* ---- a gzip stream (zlib's deflate with the gzip wrapper) that counts ---- */
typedef struct gzsink {
    z_stream zs;
    uint64_t out;
    double secs;
    uint8_t buf[1 << 17];
} gzsink;

static gzsink *gzsink_new(int level)
{
    gzsink *g = calloc(1, sizeof *g);
    if (!g) die("zlib", "out of memory");
    if (deflateInit2(&g->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) die("zlib", "deflateInit2");
    return g;
}

static void gzsink_feed(gzsink *g, const uint8_t *p, size_t n, int end)
{
    double t0 = now_s();
    g->zs.next_in = (Bytef *)p;
    g->zs.avail_in = (uInt)n;
    for (;;) {
        g->zs.next_out = g->buf;
        g->zs.avail_out = sizeof g->buf;
        int rc = deflate(&g->zs, end ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_ERROR) die("zlib", "deflate");
        g->out += sizeof g->buf - g->zs.avail_out;
        if (end ? rc == Z_STREAM_END : g->zs.avail_in == 0 && g->zs.avail_out != 0) break;
    }
    g->secs += now_s() - t0;
    if (end) deflateEnd(&g->zs);
}

/* ---- one byte stream, counted raw and compressed four ways ------------- */
enum { C_RAW, C_Z3, C_Z19, C_GZ6, C_GZ9, C_COUNT_ };
static const char *const c_name[C_COUNT_] = { "raw", "zstd -3", "zstd -19", "gzip -6", "gzip -9" };

typedef struct stream {
    hatf_buf buf;
    uint64_t raw;
    zsink *z3, *z19;
    gzsink *g6, *g9;
    int z19_done;  /* zstd -19 ended at the prefix */
} stream;

static void stream_init(stream *s)
{
    hatf_buf_init(&s->buf);
    s->raw = 0;
    s->z3 = zsink_new(3);
    s->z19 = zsink_new(19);
    s->g6 = gzsink_new(6);
    s->g9 = gzsink_new(9);
    s->z19_done = 0;
}

/* Hand the buffered bytes to every coder. end: the trace is over; prefix_end:
 * the records zstd -19 sees end here. */
static void stream_drain(stream *s, int end, int prefix_end)
{
    if (s->buf.failed) die("stream", "out of memory");
    s->raw += s->buf.len;
    zsink_feed(s->z3, s->buf.p, s->buf.len, end);
    gzsink_feed(s->g6, s->buf.p, s->buf.len, end);
    gzsink_feed(s->g9, s->buf.p, s->buf.len, end);
    if (!s->z19_done) {
        s->z19_done = end || prefix_end;
        zsink_feed(s->z19, s->buf.p, s->buf.len, s->z19_done);
    }
    s->buf.len = 0;
}

static uint64_t stream_bytes(const stream *s, int c)
{
    switch (c) {
    case C_RAW: return s->raw;
    case C_Z3: return s->z3->out;
    case C_Z19: return s->z19->out;
    case C_GZ6: return s->g6->out;
    default: return s->g9->out;
    }
}

static void put64(hatf_buf *b, uint64_t v)
{
    uint8_t *p = hatf_buf_reserve(b, 8);
    if (!p) return;
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i);
    b->len += 8;
}

static void put8(hatf_buf *b, uint8_t v)
{
    hatf_buf_append(b, &v, 1);
}

/* A comment's text: 2-byte length, then the bytes (as in HATF). */
static void put_text(hatf_buf *b, const hatf_event *ev)
{
    uint8_t len[2] = { (uint8_t)ev->data_len, (uint8_t)(ev->data_len >> 8) };
    hatf_buf_append(b, len, 2);
    if (ev->data_len) hatf_buf_append(b, ev->data, ev->data_len);
}

static uint64_t attrs_long;  /* attribute lists cut to 8 bytes in the fixed layouts */

/* The attributes as one 8-byte value: the number, or the bytes zero-padded. */
static uint64_t attr_value(const hatf_event *ev)
{
    if (!ev->attr_is_bytes) return ev->attr;
    uint64_t v = 0;
    size_t n = ev->data_len;
    if (n > 8) {
        attrs_long++;
        n = 8;
    }
    for (size_t i = 0; i < n; i++) v |= (uint64_t)ev->data[i] << 8 * i;
    return v;
}

/* Simple Binary: op, size, address, new address, thread, heap, time, attributes. */
static void simple_put(hatf_buf *b, const hatf_event *ev)
{
    put8(b, ev->op);
    if (ev->op == HATF_OP_COMMENT) {
        put_text(b, ev);
        return;
    }
    put64(b, ev->size);
    put64(b, ev->addr);
    put64(b, ev->new_addr);
    put64(b, ev->thread);
    put64(b, ev->heap);
    put64(b, ev->time);
    put64(b, attr_value(ev));
}

/* Split Stream: the fields HATF's record layout gives the op, each to its stream. */
enum { S_OP, S_SIZE, S_ADDR, S_THREAD, S_HEAP, S_TIME, S_ATTR, S_COUNT_ };
static void split_put(stream *s, const hatf_event *ev)
{
    unsigned op = ev->op;
    put8(&s[S_OP].buf, ev->op);
    if (op == HATF_OP_COMMENT) {
        put_text(&s[S_ATTR].buf, ev);
        return;
    }
    if (hatf_op_has_size(op)) put64(&s[S_SIZE].buf, ev->size);
    if (hatf_op_has_addr(op)) put64(&s[S_ADDR].buf, ev->addr);
    if (hatf_op_is_realloc(op)) put64(&s[S_ADDR].buf, ev->new_addr);
    put64(&s[S_THREAD].buf, ev->thread);
    if (op <= HATF_OP_HEAP_DESTROY) put64(&s[S_HEAP].buf, ev->heap);
    put64(&s[S_TIME].buf, ev->time);
    put64(&s[S_ATTR].buf, attr_value(ev));
}

/* The addresses HATF SplitAddr keeps apart (old then new for a realloc). */
static void addr_put(hatf_buf *b, const hatf_event *ev)
{
    if (hatf_op_has_addr(ev->op)) put64(b, ev->addr);
    if (hatf_op_is_realloc(ev->op)) put64(b, ev->new_addr);
}

/* One of Table 4's rows: its streams, and the paper's figure where known. */
typedef struct variant {
    const char *name;
    stream *s;
    int ns;
} variant;

static uint64_t variant_bytes(const variant *v, int c)
{
    uint64_t sum = 0;
    for (int i = 0; i < v->ns; i++) sum += stream_bytes(&v->s[i], c);
    return sum;
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
static uint64_t total_records, z19_records;

static double per_record(uint64_t bytes, uint64_t records)
{
    return records ? (double)bytes / (double)records : 0;
}

/* One of Table 4's rows: bytes per data record raw and with each coder. */
static void table4_row(const variant *v, const char *paper)
{
    printf("%-40s", v->name);
    for (int c = 0; c < C_COUNT_; c++)
        printf(" %9.3f", per_record(variant_bytes(v, c), c == C_Z19 ? z19_records : total_records));
    printf("  %s\n", paper);
}

/* Our container in Table 4's columns: its file under the coder it uses. */
static void table4_container(const char *name, uint64_t bytes, int coder)
{
    printf("%-40s", name);
    for (int c = 0; c < C_COUNT_; c++)
        if (c == coder) printf(" %9.3f", per_record(bytes, total_records));
        else printf(" %9s", "-");
    printf("  -\n");
}

static void row(const char *name, uint64_t bytes, uint64_t records, double secs)
{
    char label[80];
    if (records != total_records) {  /* a prefix of the trace: say so */
        snprintf(label, sizeof label, "%s (first %llu)", name, (unsigned long long)records);
        name = label;
    }
    double bpr = per_record(bytes, records);
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
    if (!z19_max) z19_max = UINT64_MAX;

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

    /* Table 4's streams, in the paper's order, then the ablation's HATF stream */
    enum { T_SIMPLE, T_ASCII, T_NAIVE, T_BEST, T_SPLIT, T_SA = T_SPLIT + S_COUNT_, T_BARE = T_SA + 2, T_COUNT_ };
    static stream st[T_COUNT_];
    const size_t nstreams = T_COUNT_;
    for (size_t i = 0; i < nstreams; i++) stream_init(&st[i]);
    stream *simple = &st[T_SIMPLE], *ascii = &st[T_ASCII], *naive = &st[T_NAIVE], *best = &st[T_BEST],
           *split = &st[T_SPLIT], *sa = &st[T_SA], *bare = &st[T_BARE];  /* sa: records, addresses */
    variant table4[] = {
        { "Simple Binary (57-byte records)", simple, 1 },
        { "ASCII (hatrace text form)", ascii, 1 },
        { "HATF naive (HATF 1.0 plain)", naive, 1 },
        { "HATF best (HATF 1.0 best)", best, 1 },
        { "Split Stream (7 field streams)", split, S_COUNT_ },
        { "HATF SplitAddr (best records + addrs)", sa, 2 },
    };
    const int nvar = (int)(sizeof table4 / sizeof table4[0]);
    hatf1_encoder enc_naive, enc_best, enc_sa, enc_bare;
    hatf1_encoder_init(&enc_naive, &naive->buf, HATF1_PLAIN);
    hatf1_encoder_init(&enc_best, &best->buf, HATF1_BEST);
    hatf1_encoder_init(&enc_sa, &sa[0].buf, HATF1_BEST);
    enc_sa.split_addr = 1;
    hatf1_encoder_init(&enc_bare, &bare->buf, HATF1_BEST);

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
        simple_put(&simple->buf, &ev);
        if (hatf_text_format(&ev, &ascii->buf) < 0) die("hatf_text_format", "out of memory");
        if (hatf1_encode(&enc_naive, &ev) < 0 || hatf1_encode(&enc_best, &ev) < 0 ||
            hatf1_encode(&enc_sa, &ev) < 0)
            die("hatf1_encode", "refused an event");
        split_put(split, &ev);
        addr_put(&sa[1].buf, &ev);
        cont_add(&cdef, &ev, !src);
        cont_add(&cbest, &ev, !src);
        hatf_event part = ev;  /* ablations */
        part.time = 0;
        cont_add(&cnotime, &part, !src);
        cont_add(&cbest_notime, &part, !src);
        part.addr = part.new_addr = 0;
        if (hatf1_encode(&enc_bare, &part) < 0) die("hatf1_encode", "refused an event");
        n++;
        int prefix_end = n == z19_max;
        for (size_t i = 0; i < nstreams; i++)
            if (prefix_end || st[i].buf.len >= (1u << 20)) stream_drain(&st[i], 0, prefix_end);
    }
    for (size_t i = 0; i < nstreams; i++) stream_drain(&st[i], 1, 0);
    cont_close(&cdef, n);
    cont_close(&cbest, n);
    cont_close(&cnotime, n);
    cont_close(&cbest_notime, n);
    double total = now_s() - t0;
    total_records = n;
    z19_records = n < z19_max ? n : z19_max;

    if (file)
        printf("format_size: %s (%s), %llu data records\n", file,
               hatf_format_name(hatf_source_format(src)), (unsigned long long)n);
    else
        printf("format_size: synthetic trace, seed %llu, %s, %llu data records\n",
               (unsigned long long)seed, attrs ? "attributes {func}" : "no attributes",
               (unsigned long long)n);

    printf("\nTable 4, bytes per data record%s:\n",
           z19_records < n ? " (zstd -19: the first records only, see below)" : "");
    printf("%-40s", "encoding (the paper's row)");
    for (int c = 0; c < C_COUNT_; c++) printf(" %9s", c_name[c]);
    printf("  paper, gzip (avg / espresso)\n");
    char paper[64];
    snprintf(paper, sizeof paper, "%.2f / %.2f", PAPER_AVG, PAPER_ESPRESSO);
    for (int v = 0; v < nvar; v++) table4_row(&table4[v], v == nvar - 1 ? paper : "-");
    table4_container("container, default (zstd -3 inside)", cdef.bytes, C_Z3);
    table4_container("container, best (zstd -19 inside)", cbest.bytes, C_Z19);
    if (z19_records < n)
        printf("zstd -19 column: the first %llu records of %llu (--z19-max)\n",
               (unsigned long long)z19_records, (unsigned long long)n);
    if (attrs_long)
        printf("attribute lists over 8 bytes, cut to 8 in Simple Binary and Split Stream: %llu\n",
               (unsigned long long)attrs_long);
    double secs[C_COUNT_] = { 0 };
    for (size_t i = 0; i < nstreams; i++) {
        secs[C_Z3] += st[i].z3->secs;
        secs[C_Z19] += st[i].z19->secs;
        secs[C_GZ6] += st[i].g6->secs;
        secs[C_GZ9] += st[i].g9->secs;
    }
    printf("compression time, s (all rows):");
    for (int c = C_Z3; c < C_COUNT_; c++) printf(" %s %.1f%s", c_name[c], secs[c], c + 1 < C_COUNT_ ? "," : "\n");
    printf("\nContainer and ablations:\n");
    printf("%-48s %14s %9s %10s %10s %9s\n", "encoding", "bytes", "B/record", "/paper1.54",
           "/espr.1.15", "Mrec/s");
    if (file) row("input file as given", (uint64_t)in_st.st_size, n, 0);
    row("HATF SplitAddr + gzip -6", variant_bytes(&table4[nvar - 1], C_GZ6), n, 0);
    row("container, default (recorder)", cdef.bytes, n, cdef.secs);
    row("container, best (convert --best)", cbest.bytes, n, cbest.secs);
    row("ablation: container default, times zeroed", cnotime.bytes, n, 0);
    row("ablation: container default, no address chunks", cdef.bytes - cdef.addr_bytes, n, 0);
    row("ablation: container best, no address chunks", cbest.bytes - cbest.addr_bytes, n, 0);
    row("ablation: best, times zeroed, no address chunks", cbest_notime.bytes - cbest_notime.addr_bytes, n, 0);
    row("ablation: sizes+order, HATF best + zstd -19", bare->z19->out, z19_records, 0);
    double bdef = per_record(cdef.bytes, n), bbest = per_record(cbest.bytes, n);
    double hbest19 = per_record(best->z19->out, z19_records);
    printf("container default vs HATF best + zstd -19: %.3fx; container best: %.3fx\n",
           bdef / hbest19, bbest / hbest19);
    printf("goals: default %.4f <= %.2f B/record %s; best %.4f <= %.2f B/record %s\n", bdef,
           GOAL_RECORDED, bdef <= GOAL_RECORDED ? "met" : "MISSED", bbest, GOAL_BEST,
           bbest <= GOAL_BEST ? "met" : "MISSED");
    double rdef = per_record(cdef.bytes - cdef.addr_bytes, n),
           rbest = per_record(cbest.bytes - cbest.addr_bytes, n);
    printf("without any address: default %.4f (%.0f%% of its goal), best %.4f (%.0f%% of its goal)\n", rdef,
           100 * rdef / GOAL_RECORDED, rbest, 100 * rbest / GOAL_BEST);
    printf("(Mrec/s: container writing speed alone; whole run %.1f s)\n", total);

    if (src) hatf_source_close(src);
    else synth_free(&syn);
    return 0;
}
