/* make_seeds.c — writes the fuzzers' seed corpora (tests/fuzz/corpus/<name>/).
 *
 * Small valid inputs of every kind, made with the library itself so they stay
 * valid as the formats evolve: run tests/fuzz/make-seeds.sh and commit the
 * result. Each seed is a few hundred bytes; fuzzers grow them from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hatf.h"
#include "hatf1/hatf1_internal.h"  /* the encoder and decoder in place, their fields */
#include "hatf_container.h"
#include "hatf_text.h"
#include "container/container_format.h"
#include "hatf_recorder.h"  /* the recorder's fast coding */
#include "synth.h"
#include <zstd.h>

static const char *root;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "make_seeds: %s: %s\n", what, detail);
    exit(1);
}

static void put(const char *dir, const char *name, const void *p, size_t n);

/* fuzz_source gets one seed of each format: the others cover the rest. */
static void put_source(const char *name, const void *p, size_t n)
{
    if (!strcmp(name, "zoo-plain") || !strcmp(name, "zoo-text") || !strcmp(name, "cut"))
        put("source", name, p, n);
}

static void put(const char *dir, const char *name, const void *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, dir);
    if (mkdir(path, 0755) < 0 && errno != EEXIST) die(path, strerror(errno));
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) die(path, "cannot write");
}

/* A hand-picked set of events covering every op and attribute kind. */
static size_t zoo(hatf_event *ev)
{
    static const uint8_t attrs[] = { HATF_A_FUNC, HATF_FN_POSIX_MEMALIGN, HATF_A_ALIGN, 64 };
    static const char note[] = "phase 2: warm cache";
    size_t n = 0;
    memset(ev, 0, 16 * sizeof *ev);
    ev[n++] = (hatf_event){ .op = HATF_OP_THREAD_CREATE, .thread = 1, .time = 1000 };
    ev[n++] = (hatf_event){ .op = HATF_OP_HEAP_CREATE, .thread = 1, .heap = 2, .time = 1010 };
    ev[n++] = (hatf_event){ .op = HATF_OP_ALLOC, .size = 24, .addr = 0x55d0c3a41010, .thread = 1, .time = 1030 };
    ev[n++] = (hatf_event){ .op = HATF_OP_ALLOC, .size = 4096, .addr = 0x55d0c3a42000, .thread = 1, .heap = 2,
                            .time = 1065, .attr_is_bytes = 1, .data = attrs, .data_len = sizeof attrs };
    ev[n++] = (hatf_event){ .op = HATF_OP_REALLOC_INPLACE, .size = 20, .addr = 0x55d0c3a41010,
                            .new_addr = 0x55d0c3a41010, .thread = 1, .time = 1090 };
    ev[n++] = (hatf_event){ .op = HATF_OP_REALLOC_MOVE, .size = 100, .addr = 0x55d0c3a41010,
                            .new_addr = 0x55d0c3a43000, .thread = 1, .time = 1200 };
    ev[n++] = (hatf_event){ .op = HATF_OP_COMMENT, .data = (const uint8_t *)note, .data_len = sizeof note - 1 };
    ev[n++] = (hatf_event){ .op = HATF_OP_REALLOC_NEW, .size = 7, .new_addr = 0x55d0c3a41010, .thread = 1, .time = 1300 };
    ev[n++] = (hatf_event){ .op = HATF_OP_REALLOC_FREE, .addr = 0x55d0c3a41010, .thread = 1, .time = 1310 };
    ev[n++] = (hatf_event){ .op = HATF_OP_FREE, .addr = 0x55d0c3a42000, .thread = 1, .heap = 2, .time = 1400, .attr = 7 };
    ev[n++] = (hatf_event){ .op = HATF_OP_FREE, .addr = 0, .thread = 1, .time = 1401 };
    ev[n++] = (hatf_event){ .op = HATF_OP_FREE, .addr = 0x55d0c3a43000, .thread = 1, .time = 0x1234567890ull };
    ev[n++] = (hatf_event){ .op = HATF_OP_HEAP_DESTROY, .thread = 1, .heap = 2, .time = 0x1234567891ull };
    ev[n++] = (hatf_event){ .op = HATF_OP_THREAD_DESTROY, .thread = 1, .time = 0x1234567899ull };
    return n;
}

static size_t synthetic(hatf_event *ev, size_t max, uint64_t seed, uint64_t thread, int attrs)
{
    synth s;
    synth_init(&s, seed, max, attrs);
    s.thread = thread;
    s.heap_top += (thread - 1) << 28;  /* threads get their own arenas, as in glibc */
    s.mmap_top += (thread - 1) << 32;
    size_t n = 0;
    while (n < max && synth_next(&s, &ev[n]) == 1) n++;
    synth_free(&s);
    return n;
}

static void hatf1_seed(const char *name, const hatf_event *ev, size_t n, hatf1_mode mode)
{
    hatf_buf b;
    hatf_buf_init(&b);
    hatf1_encoder enc;
    hatf1_encoder_init(&enc, &b, mode);
    for (size_t i = 0; i < n; i++)
        if (hatf1_encode(&enc, &ev[i]) < 0) die(name, "encode failed");
    put("hatf1", name, b.p, b.len);
    put_source(name, b.p, b.len);
    hatf_buf_free(&b);
}

/* Metadata of every kind, set by hand, so the fuzzer starts from each decoder path. */
static void hatf1_metadata_seed(void)
{
    hatf_buf b;
    hatf_buf_init(&b);
    hatf1_encoder enc;
    hatf1_encoder_init(&enc, &b, HATF1_PLAIN);
    hatf1_set_width(&enc, HATF_F_SIZE, 2);
    hatf1_set_interp(&enc, HATF_F_SIZE, HATF_I_BASEOFFSET, 1000, 0);
    hatf1_set_width(&enc, HATF_F_ADDR, 4);
    hatf1_set_interp(&enc, HATF_F_ADDR, HATF_I_DELTA, 0x55d0c3a41000, 0);
    hatf1_set_interp(&enc, HATF_F_TIME, HATF_I_STRIDE, 500, 25);
    hatf1_set_interp(&enc, HATF_F_THREAD, HATF_I_DEFAULT, 3, 0);
    hatf1_set_interp(&enc, HATF_F_HEAP, HATF_I_NONE, 0, 0);
    hatf1_set_width(&enc, HATF_F_HEAP, 1);
    hatf1_set_width(&enc, HATF_F_ATTR, HATF_W_V1);
    /* raw records under these settings: alloc, free, comment */
    static const uint8_t recs[] = {
        0, 0xff, 0xf0, 0x00, 0x00, 0x00, 0x10, 0x01, 0x02, 0x01, 0x01,  /* alloc size 984 */
        1, 0x00, 0x00, 0x00, 0x20, 0x01, 0x00,                          /* free */
        10, 0x00, 0x03, 'a', 'b', 'c',                                  /* comment "abc" */
    };
    hatf_buf_append(&b, recs, sizeof recs);
    hatf1_set_width(&enc, HATF_F_ATTR, 2);
    hatf1_set_interp(&enc, HATF_F_ATTR, HATF_I_NONE, 0, 0);
    static const uint8_t rec2[] = { 1, 0x00, 0x00, 0x00, 0x08, 0x01, 0x12, 0x34 };
    hatf_buf_append(&b, rec2, sizeof rec2);
    if (b.failed) die("metadata", "out of memory");
    put("hatf1", "metadata", b.p, b.len);
    hatf_buf_free(&b);
}

static void text_seed(const char *name, const hatf_event *ev, size_t n)
{
    hatf_buf b;
    hatf_buf_init(&b);
    hatf_buf_append(&b, HATF_TEXT_MAGIC "\n", strlen(HATF_TEXT_MAGIC) + 1);
    for (size_t i = 0; i < n; i++)
        if (hatf_text_format(&ev[i], &b) < 0) die(name, "format failed");
    put("text", name, b.p, b.len);
    put_source(name, b.p, b.len);
    hatf_buf_free(&b);
}

/* fast: the groups coded as the recorder's fast ones, stored (address coding
 * 5 bare for the mutations) */
static void container_seed(const char *name, const hatf_event *a, size_t na, const hatf_event *b,
                           size_t nb, int best, size_t cut, int fast)
{
    char path[512];
    snprintf(path, sizeof path, "%s/.seed.tmp", root);
    unlink(path);
    hatf_info info;
    memset(&info, 0, sizeof info);
    info.address_bits = 64;
    info.pid = 4242;
    info.ppid = 1;
    info.start_realtime_ns = 1700000000000000000ull;
    info.time_unit_ns_num = info.time_unit_ns_den = 1;
    strcpy(info.clock, "CLOCK_MONOTONIC");
    strcpy(info.cmdline, "./seed --small");
    hatf_writer_opts opts = { .zstd_level = 1, .chunk_events = 16, .best = best };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(path, 1, &info, &opts, &err);
    if (!w) die(name, err.msg);
    if (fast) hatf_writer_set_coding_(w, HATF_CODING_STORED_);
    if (hatf_writer_name_thread(w, a[0].thread, "main") < 0 || hatf_writer_name_heap(w, 2, "arena") < 0)
        die(name, "naming failed");
    /* interleave the two threads a few events at a time, as a flusher would */
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        size_t k = na - i < 5 ? na - i : 5;
        if (k && hatf_writer_add(w, a + i, k) < 0) die(name, "add failed");
        i += k;
        k = nb - j < 3 ? nb - j : 3;
        if (k && hatf_writer_add(w, b + j, k) < 0) die(name, "add failed");
        j += k;
        if (hatf_writer_flush(w) < 0) die(name, "flush failed");
    }
    hatf_counters c = { .events = na + nb };
    if (hatf_writer_close(w, &c, &err) < 0) die(name, err.msg);
    FILE *f = fopen(path, "rb");
    if (!f) die(path, strerror(errno));
    static uint8_t buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unlink(path);
    if (cut) len = len * 2 / 3;  /* mid-file: some chunks whole, one cut */
    put("container", name, buf, len);
    put_source(name, buf, len);
}

/* The same file with every chunk stored uncompressed (codec 0) and without the
 * index and trailer: a valid, incomplete file whose records, addresses and
 * tables lie bare for the fuzzer's mutations. */
static void container_stored_seed(const char *from, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/container/%s", root, from);
    FILE *f = fopen(path, "rb");
    if (!f) die(path, strerror(errno));
    static uint8_t in[1 << 16], out[1 << 18];
    size_t len = fread(in, 1, sizeof in, f);
    fclose(f);
    uint32_t hlen = hatf_load_le32(in + 12);
    memcpy(out, in, hlen);
    size_t off = hlen, o = hlen;
    hatf_chunk_hdr h;
    while (off + HATF_CK_HDR <= len && hatf_ck_hdr_unpack(in + off, &h) == 0 && h.kind != HATF_CK_INDEX) {
        const uint8_t *payload = in + off + HATF_CK_HDR;
        uint8_t *dst = out + o + HATF_CK_HDR;
        if (o + HATF_CK_HDR + h.raw_len > sizeof out) die(name, "too big");
        if (h.codec == HATF_CODEC_ZSTD) {
            size_t n = ZSTD_decompress(dst, h.raw_len, payload, h.stored_len);
            if (ZSTD_isError(n) || n != h.raw_len) die(name, "cannot decompress a chunk");
        } else {
            memcpy(dst, payload, h.stored_len);
        }
        off += HATF_CK_HDR + h.stored_len;
        h.codec = HATF_CODEC_STORED;
        h.stored_len = h.raw_len;
        h.payload_hash = XXH3_64bits(dst, h.raw_len);
        hatf_ck_hdr_pack(out + o, &h);
        o += HATF_CK_HDR + h.raw_len;
    }
    put("container", name, out, o);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
        return 2;
    }
    root = argv[1];
    static hatf_event z[16], s1[40], s2[40], s3[60];
    size_t nz = zoo(z);
    size_t n1 = synthetic(s1, 40, 1, 1, 1);
    size_t n2 = synthetic(s2, 40, 2, 2, 0);
    size_t n3 = synthetic(s3, 60, 3, 1, 1);

    /* a minimal stream written by hand: one alloc under the default widths */
    static const uint8_t raw[] = { 0, 0, 0, 0, 24, 0x10, 0x00, 0x00, 0x10 };
    put("hatf1", "raw-alloc", raw, sizeof raw);
    hatf1_seed("zoo-plain", z, nz, HATF1_PLAIN);
    hatf1_seed("zoo-best", z, nz, HATF1_BEST);
    hatf1_seed("synth-best", s3, n3, HATF1_BEST);
    hatf1_metadata_seed();

    text_seed("zoo-text", z, nz);
    text_seed("synth-text", s1, 12);

    container_seed("two-threads", s1, n1, s2, n2, 0, 0, 0);
    container_seed("zoo-best", z, nz, s2, 10, 1, 0, 0);
    container_seed("cut", s1, n1, s2, n2, 0, 1, 0);
    container_seed("zoo-fast", z, nz, s2, 10, 0, 0, 1);
    container_stored_seed("zoo-best", "zoo-stored");
    return 0;
}
