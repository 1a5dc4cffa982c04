/* test_hatf1.c — HATF 1.0 encoder and decoder.
 *
 * Expected bytes are written out by hand from the format (docs/format-hatf1.md),
 * never taken from the encoder's output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "hatf.h"
#include "hatf1/hatf1_internal.h"  /* the encoder and decoder in place, their fields */

#define B(...) ((const uint8_t[]){ __VA_ARGS__ })
#define NB(...) sizeof((const uint8_t[]){ __VA_ARGS__ })
/* 8-byte big-endian argument */
#define A8(v) (uint8_t)((uint64_t)(v) >> 56), (uint8_t)((uint64_t)(v) >> 48), \
    (uint8_t)((uint64_t)(v) >> 40), (uint8_t)((uint64_t)(v) >> 32), (uint8_t)((uint64_t)(v) >> 24), \
    (uint8_t)((uint64_t)(v) >> 16), (uint8_t)((uint64_t)(v) >> 8), (uint8_t)(v)

#define MAXEV 64

/* Decode a whole buffer. @return events decoded, or the error code. */
static int dec_all(const uint8_t *buf, size_t len, hatf_event *ev, hatf1_decoder *d)
{
    hatf1_decoder local;
    if (!d) d = &local;
    hatf1_decoder_init(d, buf, len, 0);
    int n = 0, rc;
    while (n < MAXEV && (rc = hatf1_decode(d, &ev[n])) == 1) n++;
    return rc < 0 ? rc : n;
}
#define DEC(ev, ...) dec_all(B(__VA_ARGS__), NB(__VA_ARGS__), ev, NULL)

static void check_ev(const hatf_event *e, unsigned op, uint64_t size, uint64_t addr,
                     uint64_t naddr, uint64_t thread, uint64_t heap, uint64_t time, uint64_t attr)
{
    CU_ASSERT_EQUAL(e->op, op);
    CU_ASSERT_EQUAL(e->size, size);
    CU_ASSERT_EQUAL(e->addr, addr);
    CU_ASSERT_EQUAL(e->new_addr, naddr);
    CU_ASSERT_EQUAL(e->thread, thread);
    CU_ASSERT_EQUAL(e->heap, heap);
    CU_ASSERT_EQUAL(e->time, time);
    CU_ASSERT_EQUAL(e->attr, attr);
}

/* ---- decoder: records under the defaults --------------------------------- */

static void test_defaults_every_tag(void)
{
    hatf_event ev[MAXEV];
    /* size 4 none, address 4 none, time/thread/heap/attributes width 0 default 0 */
    int n = DEC(ev,
        0x00, 0, 0, 0, 0x10, 0, 0, 0x10, 0,        /* alloc 16 @ 0x1000 */
        0x01, 0, 0, 0x10, 0,                       /* free 0x1000 */
        0x02, 0, 0, 0, 0x20, 0, 0, 0x10, 0, 0, 0, 0x10, 0,
        0x03, 0, 0, 1, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0,
        0x04, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0x30, 0,
        0x05, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0, 0,
        0x06, 0x07, 0x08, 0x09,
        0x0a, 0x00, 0x02, 'h', 'i');
    CU_ASSERT_EQUAL_FATAL(n, 11);
    check_ev(&ev[0], 0, 16, 0x1000, 0, 0, 0, 0, 0);
    check_ev(&ev[1], 1, 0, 0x1000, 0, 0, 0, 0, 0);
    check_ev(&ev[2], 2, 32, 0x1000, 0x1000, 0, 0, 0, 0);
    check_ev(&ev[3], 3, 256, 0x1000, 0x2000, 0, 0, 0, 0);
    check_ev(&ev[4], 4, 8, 0, 0x3000, 0, 0, 0, 0);
    check_ev(&ev[5], 5, 0, 0x3000, 0, 0, 0, 0, 0);
    for (int i = 6; i <= 9; i++) check_ev(&ev[i], (unsigned)i, 0, 0, 0, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(ev[10].op, HATF_OP_COMMENT);
    CU_ASSERT_EQUAL(ev[10].data_len, 2);
    CU_ASSERT_NSTRING_EQUAL(ev[10].data, "hi", 2);
    CU_ASSERT_EQUAL(ev[0].attr_is_bytes, 0);
    CU_ASSERT_EQUAL(ev[0].data_len, 0);
}

/* Field order per tag, every field width 1 none with distinct values. */
static void test_field_order(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 1, 0, 1, 0x0b, 1, 1, 1,                              /* size, address: 1 byte */
        0x0b, 2, 2, 0, 0x0b, 1, 2, 1, 0x0b, 2, 3, 0, 0x0b, 1, 3, 1, /* time, thread */
        0x0b, 2, 4, 0, 0x0b, 1, 4, 1, 0x0b, 2, 5, 0, 0x0b, 1, 5, 1, /* heap, attributes */
        0x00, 1, 2, 3, 4, 5, 6,           /* alloc: size addr thread heap time attr */
        0x01, 2, 3, 4, 5, 6,              /* free: addr thread heap time attr */
        0x03, 1, 2, 7, 3, 4, 5, 6,        /* realloc: size old new thread heap time attr */
        0x06, 4, 3, 5, 6,                 /* createHeap: heap thread time attr */
        0x07, 4, 3, 5, 6,
        0x08, 3, 5, 6,                    /* createThread: thread time attr */
        0x09, 3, 5, 6);
    CU_ASSERT_EQUAL_FATAL(n, 7);
    check_ev(&ev[0], 0, 1, 2, 0, 3, 4, 5, 6);
    check_ev(&ev[1], 1, 0, 2, 0, 3, 4, 5, 6);
    check_ev(&ev[2], 3, 1, 2, 7, 3, 4, 5, 6);
    check_ev(&ev[3], 6, 0, 0, 0, 3, 4, 5, 6);
    check_ev(&ev[4], 7, 0, 0, 0, 3, 4, 5, 6);
    check_ev(&ev[5], 8, 0, 0, 0, 3, 0, 5, 6);
    check_ev(&ev[6], 9, 0, 0, 0, 3, 0, 5, 6);
}

static void test_widths_none(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 1, 0, 1, 0x00, 0xff, 0, 0, 0, 1,
        0x0b, 1, 0, 2, 0x00, 0x12, 0x34, 0, 0, 0, 1,
        0x0b, 1, 0, 8, 0x00, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0, 0, 0, 1,
        0x0b, 1, 0, 4, 0x00, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1,
        0x0b, 1, 0, 0, 0x00, 0, 0, 0, 1);  /* width 0 under none reads 0 */
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_EQUAL(ev[0].size, 0xff);            /* none is unsigned */
    CU_ASSERT_EQUAL(ev[1].size, 0x1234);
    CU_ASSERT_EQUAL(ev[2].size, 0xfedcba9876543210ull);
    CU_ASSERT_EQUAL(ev[3].size, 0xffffffffull);
    CU_ASSERT_EQUAL(ev[4].size, 0);
    for (int i = 0; i < 5; i++) CU_ASSERT_EQUAL(ev[i].addr, 1);
}

static void test_interp_default(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 2, 3, 1, A8(7),                /* thread default 7 */
        0x0b, 2, 0, 1, A8(0x123456789ull),   /* size default: width becomes 0 */
        0x00, 0, 0, 0x10, 0,
        0x0b, 1, 0, 2,                       /* a width under default: bytes skipped */
        0x00, 0xaa, 0xbb, 0, 0, 0x10, 0);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    check_ev(&ev[0], 0, 0x123456789ull, 0x1000, 0, 7, 0, 0, 0);
    check_ev(&ev[1], 0, 0x123456789ull, 0x1000, 0, 7, 0, 0, 0);
}

static void test_interp_baseoffset(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 2, 1, 2, A8(0x10000),     /* address base 0x10000, width stays 4 */
        0x01, 0xff, 0xff, 0xff, 0xf0,   /* -16 */
        0x01, 0x00, 0x00, 0x00, 0x20,
        0x0b, 1, 1, 1, 0x01, 0x80,      /* width 1: -128 */
        0x0b, 1, 1, 2, 0x01, 0x80, 0x00,/* width 2: -32768 */
        0x0b, 1, 1, 8, 0x01, A8(0xffffffffffffffffull),
        0x0b, 1, 1, 0, 0x01);           /* width 0 reads the base */
    CU_ASSERT_EQUAL_FATAL(n, 6);
    CU_ASSERT_EQUAL(ev[0].addr, 0xfff0);
    CU_ASSERT_EQUAL(ev[1].addr, 0x10020);
    CU_ASSERT_EQUAL(ev[2].addr, 0x10000 - 128);
    CU_ASSERT_EQUAL(ev[3].addr, 0x10000 - 32768);
    CU_ASSERT_EQUAL(ev[4].addr, 0xffff);
    CU_ASSERT_EQUAL(ev[5].addr, 0x10000);
}

static void test_interp_delta(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 1, 2, 1,                  /* time width 1 (still default: ignored) */
        0x0b, 2, 2, 3, A8(1000),        /* delta from 1000: width 1 restored */
        0x08, 0x05,                     /* first record: 1000 + 5 */
        0x08, 0xfe,                     /* 1005 - 2: time going backwards */
        0x0b, 1, 2, 0, 0x08,            /* width 0 under delta: the previous value */
        0x0b, 1, 2, 4, 0x08, 0x80, 0, 0, 0,
        0x0b, 2, 2, 3, A8(50), 0x08, 0x00, 0x00, 0x00, 0x01); /* a3 restarts "previous" */
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_EQUAL(ev[0].time, 1005);
    CU_ASSERT_EQUAL(ev[1].time, 1003);
    CU_ASSERT_EQUAL(ev[2].time, 1003);
    CU_ASSERT_EQUAL(ev[3].time, 1003 - 0x80000000ull);
    CU_ASSERT_EQUAL(ev[4].time, 51);
}

/* The first record after delta metadata uses a3 as "previous". */
static void test_delta_first_uses_a3(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev, 0x0b, 2, 1, 3, A8(0x7000), 0x01, 0, 0, 0, 0x10);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(ev[0].addr, 0x7010);
}

/* Old address read before new; both update "previous", across record types. */
static void test_realloc_address_order(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 1, 1, 2, 0x0b, 2, 1, 3, A8(0x1000),
        0x03, 0, 0, 0, 0x40, 0x00, 0x10, 0x00, 0x20,  /* old 0x1010, new 0x1030 */
        0x01, 0xff, 0xf0,                             /* free 0x1020 */
        0x00, 0, 0, 0, 8, 0x00, 0x00);                /* alloc 0x1020 */
    CU_ASSERT_EQUAL_FATAL(n, 3);
    check_ev(&ev[0], 3, 0x40, 0x1010, 0x1030, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(ev[1].addr, 0x1020);
    CU_ASSERT_EQUAL(ev[2].addr, 0x1020);
}

static void test_interp_stride(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 1, 4, 2,                          /* heap width 2 */
        0x0b, 2, 4, 4, A8(10), A8(3),           /* stride: width 0 */
        0x06, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0b, 2, 4, 4, A8(100), A8(0xffffffffffffffffull), 0x06);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(ev[0].heap, 13);  /* a3 is the first "previous" */
    CU_ASSERT_EQUAL(ev[1].heap, 16);
    CU_ASSERT_EQUAL(ev[2].heap, 19);  /* an alloc carries the heap field too */
    CU_ASSERT_EQUAL(ev[2].addr, 0);
    CU_ASSERT_EQUAL(ev[3].heap, 99);  /* a negative stride */
}

/* default/stride make the width 0; none/baseOffset/delta restore the last
 * non-zero width, or 0 when the field never had one. */
static void test_width_restore(void)
{
    hatf_event ev[MAXEV];
    hatf1_decoder d;
    static const uint8_t s[] = {
        0x0b, 1, 0, 2,                          /* size width 2 */
        0x0b, 2, 0, 1, A8(5),                   /* default: width 0 */
        0x08,                                   /* (thread-create has no size) */
        0x0b, 1, 0, 0,                          /* explicit width 0 keeps 2 as the last non-zero */
        0x0b, 2, 0, 0,                          /* none: width 2 again */
        0x00, 0x01, 0x02, 0, 0, 0, 1,
        0x0b, 2, 3, 0,                          /* thread never had a width: stays 0 */
        0x08,
        0x0b, 2, 5, 4, A8(1), A8(1),            /* stride: width 0 */
        0x0b, 2, 5, 2, A8(0),                   /* baseOffset, never had a width: 0 */
    };
    int n = dec_all(s, sizeof s, ev, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(ev[1].size, 0x102);
    CU_ASSERT_EQUAL(ev[2].thread, 0);
    CU_ASSERT_EQUAL(d.width[HATF_F_SIZE], 2);
    CU_ASSERT_EQUAL(d.width[HATF_F_THREAD], 0);
    CU_ASSERT_EQUAL(d.width[HATF_F_ATTR], 0);
    CU_ASSERT_EQUAL(d.interp[HATF_F_ATTR], HATF_I_BASEOFFSET);
    CU_ASSERT_EQUAL(d.metadata, 7);
}

static void test_attr_bytes(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev,
        0x0b, 1, 5, 9,                     /* v1 */
        0x08, 0x03, 0xaa, 0xbb, 0xcc,
        0x08, 0x00,                        /* empty byte string */
        0x0b, 1, 5, 10,                    /* v2 */
        0x09, 0x00, 0x02, 0x01, 0x02,
        0x0b, 2, 5, 0,                     /* none (restores v2) */
        0x0b, 1, 5, 1,                     /* numeric again */
        0x09, 0x2a,
        0x0b, 2, 5, 1, A8(0),              /* default: width 0 */
        0x0b, 2, 5, 0,                     /* none restores the last non-zero width: 1 */
        0x09, 0x2b);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_EQUAL(ev[0].attr_is_bytes, 1);
    CU_ASSERT_EQUAL(ev[0].data_len, 3);
    CU_ASSERT_EQUAL(memcmp(ev[0].data, "\xaa\xbb\xcc", 3), 0);
    CU_ASSERT_EQUAL(ev[0].attr, 0);
    CU_ASSERT_EQUAL(ev[1].attr_is_bytes, 1);
    CU_ASSERT_EQUAL(ev[1].data_len, 0);
    CU_ASSERT_EQUAL(ev[2].attr_is_bytes, 1);
    CU_ASSERT_EQUAL(ev[2].data_len, 2);
    CU_ASSERT_EQUAL(ev[2].data[1], 0x02);
    CU_ASSERT_EQUAL(ev[3].attr_is_bytes, 0);
    CU_ASSERT_EQUAL(ev[3].attr, 0x2a);
    CU_ASSERT_EQUAL(ev[4].attr, 0x2b);
}

static void test_comments(void)
{
    hatf_event ev[MAXEV];
    int n = DEC(ev, 0x0b, 2, 2, 1, A8(77), 0x0a, 0x00, 0x00, 0x0a, 0x00, 0x03, 'a', '\n', 'c', 0x08);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(ev[0].op, HATF_OP_COMMENT);
    CU_ASSERT_EQUAL(ev[0].data_len, 0);
    CU_ASSERT_EQUAL(ev[0].time, 0);      /* comments carry only text */
    CU_ASSERT_EQUAL(ev[1].data_len, 3);
    CU_ASSERT_EQUAL(ev[1].data[1], '\n');
    CU_ASSERT_EQUAL(ev[2].time, 77);
}

/* ---- decoder: malformed input ------------------------------------------- */

static void expect_err(const uint8_t *buf, size_t len, int code, uint64_t offset, const char *needle)
{
    hatf1_decoder d;
    hatf_event ev;
    hatf1_decoder_init(&d, buf, len, 1000);
    int rc;
    while ((rc = hatf1_decode(&d, &ev)) == 1) {}
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_EQUAL(d.err.code, code);
    CU_ASSERT_EQUAL(d.err.offset, 1000 + offset);
    char off[32];
    snprintf(off, sizeof off, "offset %llu", (unsigned long long)(1000 + offset));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.err.msg, off));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.err.msg, needle));
    CU_ASSERT_PTR_NULL(strchr(d.err.msg, '\n'));
    CU_ASSERT_EQUAL(hatf1_decode(&d, &ev), code);  /* sticky */
    if (rc != code) printf("\n  got %d '%s'\n", rc, d.err.msg);
}
#define ERR(code, off, needle, ...) expect_err(B(__VA_ARGS__), NB(__VA_ARGS__), code, off, needle)

static void test_errors(void)
{
    ERR(HATF_E_CORRUPT, 5, "tag 12", 0x01, 0, 0, 0, 0, 0x0c);
    ERR(HATF_E_CORRUPT, 0, "tag 255", 0xff);
    ERR(HATF_E_CORRUPT, 5, "metadata operation 3", 0x01, 0, 0, 0, 0, 0x0b, 3, 0, 0);
    ERR(HATF_E_CORRUPT, 0, "metadata operation 0", 0x0b, 0, 0, 0);
    ERR(HATF_E_CORRUPT, 0, "field code 6", 0x0b, 1, 6, 1);
    ERR(HATF_E_CORRUPT, 0, "field code 6", 0x0b, 2, 6, 0);
    ERR(HATF_E_CORRUPT, 4, "width 3", 0x0b, 1, 0, 1, 0x0b, 1, 0, 3);
    ERR(HATF_E_CORRUPT, 0, "width 5", 0x0b, 1, 2, 5);
    ERR(HATF_E_CORRUPT, 0, "width 7", 0x0b, 1, 2, 7);
    ERR(HATF_E_CORRUPT, 0, "width code 11", 0x0b, 1, 5, 11);
    ERR(HATF_E_CORRUPT, 0, "width code 16", 0x0b, 1, 1, 16);
    ERR(HATF_E_CORRUPT, 0, "v1 on the size", 0x0b, 1, 0, 9);
    ERR(HATF_E_CORRUPT, 0, "v2 on the thread", 0x0b, 1, 3, 10);
    ERR(HATF_E_CORRUPT, 0, "interpretation code 5", 0x0b, 2, 2, 5);
    /* truncation inside every kind of record */
    ERR(HATF_E_TRUNCATED, 5, "alloc", 0x01, 0, 0, 0, 0, 0x00, 0, 0, 0, 1, 0, 0, 0);
    ERR(HATF_E_TRUNCATED, 0, "free", 0x01);
    ERR(HATF_E_TRUNCATED, 0, "realloc-move", 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0);
    ERR(HATF_E_TRUNCATED, 0, "metadata", 0x0b);
    ERR(HATF_E_TRUNCATED, 0, "metadata", 0x0b, 1);
    ERR(HATF_E_TRUNCATED, 0, "metadata", 0x0b, 1, 0);
    ERR(HATF_E_TRUNCATED, 0, "metadata", 0x0b, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    ERR(HATF_E_TRUNCATED, 0, "metadata", 0x0b, 2, 0, 4, A8(1), 0, 0, 0, 0, 0, 0, 0);
    ERR(HATF_E_TRUNCATED, 0, "comment", 0x0a, 0x00);
    ERR(HATF_E_TRUNCATED, 0, "comment", 0x0a, 0x00, 0x03, 'a', 'b');
    ERR(HATF_E_TRUNCATED, 4, "attribute length", 0x0b, 1, 5, 10, 0x08, 0x00);
    ERR(HATF_E_TRUNCATED, 4, "attribute bytes", 0x0b, 1, 5, 9, 0x08, 0x02, 0x01);
    ERR(HATF_E_TRUNCATED, 4, "attribute bytes", 0x0b, 1, 5, 10, 0x08, 0xff, 0xff, 0x01);
    /* the same far from the end of the buffer (the decoder's fast path) */
    uint8_t longbuf[200] = { 0x0b, 1, 5, 10, 0x08, 0x00, 0x00, 0x08, 0x01, 0x00 };
    expect_err(longbuf, sizeof longbuf, HATF_E_TRUNCATED, 7, "256 attribute bytes");
    uint8_t longtag[200] = { 0x01, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0x0d };
    expect_err(longtag, sizeof longtag, HATF_E_CORRUPT, 10, "tag 13");
}

/* Every prefix of a valid stream either decodes the records it holds and ends
 * cleanly at a record boundary, or reports truncation at the cut record. */
static void test_every_prefix(void)
{
    static const uint8_t s[] = {
        0x0b, 1, 5, 9, 0x0b, 2, 2, 3, A8(9), 0x0b, 1, 2, 8,
        0x00, 0, 0, 0, 1, 0, 0, 0, 2, A8(1), 0x02, 'a', 'b',
        0x0a, 0x00, 0x01, 'z',
        0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, A8(1), 0x00,
    };
    static const size_t starts[] = { 0, 4, 16, 20, 40, 44 };  /* record boundaries */
    for (size_t cut = 0; cut <= sizeof s; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);  /* exact size: ASan sees any overread */
        memcpy(copy, s, cut);
        hatf1_decoder d;
        hatf_event ev;
        hatf1_decoder_init(&d, copy, cut, 0);
        int rc;
        while ((rc = hatf1_decode(&d, &ev)) == 1) {}
        int boundary = 0;
        size_t start = 0;
        for (size_t i = 0; i < sizeof starts / sizeof *starts; i++) {
            if (starts[i] == cut) boundary = 1;
            if (starts[i] < cut) start = starts[i];
        }
        if (cut == sizeof s) boundary = 1;
        if (boundary) {
            CU_ASSERT_EQUAL(rc, 0);
        } else {
            CU_ASSERT_EQUAL(rc, HATF_E_TRUNCATED);
            CU_ASSERT_EQUAL(d.err.offset, start);
        }
        free(copy);
    }
}

static void test_last_record_offset(void)
{
    hatf1_decoder d;
    hatf_event ev;
    static const uint8_t s[] = { 0x0b, 1, 0, 1, 0x00, 5, 0, 0, 0, 1, 0x0b, 1, 0, 1, 0x07, 0x4d };
    hatf1_decoder_init(&d, s, sizeof s, 100);
    CU_ASSERT_EQUAL(hatf1_decode(&d, &ev), 1);
    CU_ASSERT_EQUAL(d.last_record_offset, 104);
    CU_ASSERT_EQUAL(hatf1_decode(&d, &ev), 1);
    CU_ASSERT_EQUAL(d.last_record_offset, 114);
    CU_ASSERT_EQUAL(hatf1_decode(&d, &ev), HATF_E_CORRUPT);
    CU_ASSERT_EQUAL(d.err.offset, 115);
    CU_ASSERT_EQUAL(d.err.record, 4);   /* 2 events + 2 metadata before it */
    CU_ASSERT_EQUAL(d.records, 2);
    CU_ASSERT_EQUAL(d.metadata, 2);
}

/* ---- encoder: exact bytes ------------------------------------------------ */

static void check_bytes(const hatf_buf *b, const uint8_t *want, size_t n)
{
    CU_ASSERT_EQUAL(b->len, n);
    int same = b->len == n && memcmp(b->p, want, n) == 0;
    CU_ASSERT(same);
    if (!same) {
        printf("\n  got :");
        for (size_t i = 0; i < b->len; i++) printf(" %02x", b->p[i]);
        printf("\n  want:");
        for (size_t i = 0; i < n; i++) printf(" %02x", want[i]);
        printf("\n");
    }
}
#define CHECK_BYTES(buf, ...) check_bytes(buf, B(__VA_ARGS__), NB(__VA_ARGS__))

static void test_encode_plain_bytes(void)
{
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, HATF1_PLAIN);
    hatf_event ev = { .op = HATF_OP_ALLOC, .size = 24, .addr = 0x7f0000001000ull,
                      .thread = 1, .heap = 0, .time = 500 };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &ev), 0);
    hatf_event fr = { .op = HATF_OP_FREE, .addr = 0x7f0000001000ull, .thread = 1, .time = 501 };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &fr), 0);
    CHECK_BYTES(&b,
        0x0b, 1, 0, 8,                 /* size 8 (interpretation none already) */
        0x0b, 1, 1, 8,                 /* address 8 */
        0x0b, 2, 2, 0, 0x0b, 1, 2, 8,  /* time none, 8 */
        0x0b, 2, 3, 0, 0x0b, 1, 3, 4,  /* thread none, 4 */
        0x0b, 2, 4, 0, 0x0b, 1, 4, 4,  /* heap none, 4 */
                                       /* no attributes: left default 0 */
        0x00, A8(24), A8(0x7f0000001000ull), 0, 0, 0, 1, 0, 0, 0, 0, A8(500),
        0x01, A8(0x7f0000001000ull), 0, 0, 0, 1, 0, 0, 0, 0, A8(501));
    hatf_event num = { .op = HATF_OP_THREAD_CREATE, .thread = 2, .time = 502, .attr = 9 };
    b.len = 0;
    CU_ASSERT_EQUAL(hatf1_encode(&e, &num), 0);
    CHECK_BYTES(&b,
        0x0b, 2, 5, 0, 0x0b, 1, 5, 8,  /* numeric attributes: none, 8 */
        0x08, 0, 0, 0, 2, A8(502), A8(9));
    CU_ASSERT_EQUAL(e.records, 3);
    CU_ASSERT_EQUAL(e.metadata, 10);
    hatf_buf_free(&b);
}

static void test_encode_plain_bytes_attrs_split(void)
{
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, HATF1_PLAIN);
    e.split_addr = 1;
    hatf_event ev = { .op = HATF_OP_REALLOC_MOVE, .size = 0x10, .addr = 0x1000, .new_addr = 0x2000,
                      .thread = 0x100000000ull, .time = 1, .attr_is_bytes = 1, .data_len = 2,
                      .data = B(0x01, 0x03) };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &ev), 0);
    hatf_event c = { .op = HATF_OP_COMMENT, .data_len = 2, .data = (const uint8_t *)"ok" };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &c), 0);
    CHECK_BYTES(&b,
        0x0b, 1, 0, 8,
        0x0b, 1, 1, 0,                 /* split addresses: width 0 */
        0x0b, 2, 2, 0, 0x0b, 1, 2, 8,
        0x0b, 2, 3, 0, 0x0b, 1, 3, 4,
        0x0b, 2, 4, 0, 0x0b, 1, 4, 4,
        0x0b, 2, 5, 0, 0x0b, 1, 5, 10, /* attribute bytes: v2 */
        0x0b, 1, 3, 8,                 /* a 64-bit thread id widens the thread */
        0x03, A8(0x10), A8(0x100000000ull), 0, 0, 0, 0, A8(1), 0x00, 0x02, 0x01, 0x03,
        0x0a, 0x00, 0x02, 'o', 'k');
    hatf_buf_free(&b);
}

static void test_encode_best_bytes(void)
{
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, HATF1_BEST);
    hatf_event a = { .op = HATF_OP_ALLOC, .size = 16, .addr = 0x1000, .time = 100 };
    hatf_event f = { .op = HATF_OP_FREE, .addr = 0x1000, .time = 130 };
    hatf_event h = { .op = HATF_OP_HEAP_CREATE, .heap = 3, .time = 90,
                     .attr_is_bytes = 1, .data_len = 1, .data = B(0x55) };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &a), 0);
    CU_ASSERT_EQUAL(hatf1_encode(&e, &f), 0);
    CU_ASSERT_EQUAL(hatf1_encode(&e, &h), 0);
    CHECK_BYTES(&b,
        0x0b, 1, 0, 1,                 /* size needs 1 byte */
        0x0b, 2, 1, 3, A8(0x1000),     /* address delta from itself: width 4 restored */
        0x0b, 2, 2, 3, A8(100),        /* time delta from itself: width 0 (never had one) */
        0x00, 0x10, 0, 0, 0, 0,        /* thread, heap, attributes: default 0, no bytes */
        0x0b, 1, 2, 1,                 /* time +30 needs 1 byte */
        0x01, 0, 0, 0, 0, 0x1e,
        0x0b, 2, 4, 1, A8(3),          /* a stable heap changes: a new default */
        0x0b, 2, 5, 0,                 /* attribute bytes: none (width 0) ... */
        0x0b, 1, 5, 9,                 /* ... then v1 */
        0x06, 0xd8, 0x01, 0x55);       /* time 130 - 40 */
    hatf_buf_free(&b);
}

static void test_encode_low_level(void)
{
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, HATF1_PLAIN);
    CU_ASSERT_EQUAL(hatf1_set_width(&e, HATF_F_SIZE, 3), HATF_E_USAGE);
    CU_ASSERT_EQUAL(hatf1_set_width(&e, HATF_F_TIME, HATF_W_V1), HATF_E_USAGE);
    CU_ASSERT_EQUAL(hatf1_set_width(&e, 6, 1), HATF_E_USAGE);
    CU_ASSERT_EQUAL(hatf1_set_interp(&e, 0, 5, 0, 0), HATF_E_USAGE);
    CU_ASSERT_EQUAL(b.len, 0);
    CU_ASSERT_EQUAL(hatf1_set_interp(&e, HATF_F_HEAP, HATF_I_STRIDE, 10, 2), 0);
    CU_ASSERT_EQUAL(hatf1_set_interp(&e, HATF_F_SIZE, HATF_I_BASEOFFSET, 0x100, 0), 0);
    CU_ASSERT_EQUAL(hatf1_set_width(&e, HATF_F_SIZE, 1), 0);
    /* PLAIN after hand-set metadata changes only what an event needs */
    hatf_event ev = { .op = HATF_OP_ALLOC, .size = 0x80, .addr = 0x20, .heap = 12 };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &ev), 0);
    CHECK_BYTES(&b,
        0x0b, 2, 4, 4, A8(10), A8(2),
        0x0b, 2, 0, 2, A8(0x100),
        0x0b, 1, 0, 1,
        0x00, 0x80, 0, 0, 0, 0x20);    /* size 0x100 - 0x80, address 4 bytes */
    hatf_event big = { .op = HATF_OP_ALLOC, .size = 0x1000, .addr = 0x20, .heap = 13 };
    b.len = 0;
    CU_ASSERT_EQUAL(hatf1_encode(&e, &big), 0);
    CHECK_BYTES(&b,
        0x0b, 2, 0, 0, 0x0b, 1, 0, 8,  /* size: none, plain width 8 */
        0x0b, 2, 4, 0, 0x0b, 1, 4, 4,  /* heap off its stride: none, 4 */
        0x00, A8(0x1000), 0, 0, 0, 0x20, 0, 0, 0, 13);
    hatf_event bad = { .op = 11 };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &bad), HATF_E_LIMIT);
    hatf_event nodata = { .op = HATF_OP_COMMENT, .data_len = 3 };
    CU_ASSERT_EQUAL(hatf1_encode(&e, &nodata), HATF_E_USAGE);
    size_t len = b.len;
    b.failed = 1;  /* a buffer that could not grow */
    CU_ASSERT_EQUAL(hatf1_encode(&e, &big), HATF_E_NOMEM);
    CU_ASSERT_EQUAL(hatf1_set_width(&e, HATF_F_SIZE, 2), HATF_E_NOMEM);
    CU_ASSERT_EQUAL(b.len, len);
    hatf_buf_free(&b);
}

/* ---- round trips ---------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state += 0x9e3779b97f4a7c15ull;  /* splitmix64 */
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value of random magnitude: 0, small, 16/32/64-bit. */
static uint64_t rnd_mag(void)
{
    switch (rnd() % 6) {
    case 0: return 0;
    case 1: return rnd() & 0xff;
    case 2: return rnd() & 0xffff;
    case 3: return rnd() & 0xffffffff;
    default: return rnd();
    }
}

static uint8_t attr_pool[70000];

/* An event with every field its op does not carry left 0 (what a decoder gives). */
static void random_event(hatf_event *ev, uint64_t *clock, uint64_t *addr)
{
    memset(ev, 0, sizeof *ev);
    unsigned r = (unsigned)(rnd() % 100);
    ev->op = r < 45 ? HATF_OP_ALLOC : r < 85 ? HATF_OP_FREE : r < 95 ? (uint8_t)(2 + rnd() % 4)
           : r < 98 ? (uint8_t)(6 + rnd() % 4) : HATF_OP_COMMENT;
    if (ev->op == HATF_OP_COMMENT) {
        ev->data_len = (uint16_t)(rnd() % 4 == 0 ? 0 : rnd() % 300);
        ev->data = attr_pool + rnd() % 1000;
        return;
    }
    /* mostly small steps, sometimes anything (time going backwards included) */
    *clock += rnd() % 8 == 0 ? rnd_mag() : rnd() % 200;
    *addr += rnd() % 8 == 0 ? rnd_mag() : (rnd() % 512) - 256;
    ev->time = *clock;
    if (hatf_op_has_size(ev->op)) ev->size = rnd() % 4 ? rnd() % 300 : rnd_mag();
    if (hatf_op_has_addr(ev->op)) ev->addr = *addr;
    if (hatf_op_is_realloc(ev->op)) ev->new_addr = rnd() % 2 ? *addr + rnd() % 64 : rnd_mag();
    ev->thread = rnd() % 20 == 0 ? rnd_mag() : 1;
    if (ev->op <= HATF_OP_HEAP_DESTROY) ev->heap = rnd() % 10 == 0 ? rnd_mag() : 0;
    switch (rnd() % 8) {
    case 0: ev->attr = rnd_mag(); break;
    case 1: case 2: case 3:
        ev->attr_is_bytes = 1;
        ev->data_len = (uint16_t)(rnd() % 50 == 0 ? rnd() % 65536 : rnd() % 5);
        ev->data = attr_pool + rnd() % 4000;
        break;
    default: break;
    }
}

static int same_event(const hatf_event *a, const hatf_event *b, int split)
{
    if (a->op != b->op || a->size != b->size || a->thread != b->thread || a->heap != b->heap ||
        a->time != b->time || a->attr != b->attr || a->attr_is_bytes != b->attr_is_bytes ||
        a->data_len != b->data_len)
        return 0;
    if (!split && (a->addr != b->addr || a->new_addr != b->new_addr)) return 0;
    if (split && (b->addr != 0 || b->new_addr != 0)) return 0;
    return a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0;
}

static void round_trip(hatf1_mode mode, int split, uint64_t seed, size_t n, size_t *bytes)
{
    rng_state = seed;
    hatf_event *evs = calloc(n, sizeof *evs);
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, mode);
    e.split_addr = split;
    uint64_t clock = 1000, addr = 0x55550000;
    int enc_ok = 1;
    for (size_t i = 0; i < n; i++) {
        random_event(&evs[i], &clock, &addr);
        if (hatf1_encode(&e, &evs[i]) != 0) enc_ok = 0;
    }
    CU_ASSERT(enc_ok);
    CU_ASSERT_EQUAL(e.records, n);
    hatf1_decoder d;
    hatf1_decoder_init(&d, b.p, b.len, 0);
    hatf_event got;
    size_t i = 0, bad = 0;
    int rc;
    while ((rc = hatf1_decode(&d, &got)) == 1 && i < n) {
        if (!same_event(&evs[i], &got, split) && bad++ == 0)
            printf("\n  mode %d split %d: event %zu (op %u) differs\n", mode, split, i, evs[i].op);
        i++;
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(i, n);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(d.metadata, e.metadata);
    if (bytes) *bytes = b.len;
    hatf_buf_free(&b);
    free(evs);
}

static void test_round_trip_random(void)
{
    for (size_t i = 0; i < sizeof attr_pool; i++) attr_pool[i] = (uint8_t)(i * 131 + 7);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        round_trip(HATF1_PLAIN, 0, seed, 20000, NULL);
        round_trip(HATF1_BEST, 0, seed, 20000, NULL);
        round_trip(HATF1_PLAIN, 1, seed, 5000, NULL);
        round_trip(HATF1_BEST, 1, seed, 5000, NULL);
    }
}

/* Extremes: 64-bit values, alternating signs, empty and maximal byte strings. */
static void test_round_trip_extremes(void)
{
    static uint8_t big[65535];
    hatf_event evs[] = {
        { .op = HATF_OP_ALLOC, .size = UINT64_MAX, .addr = UINT64_MAX, .thread = UINT64_MAX,
          .heap = UINT64_MAX, .time = UINT64_MAX, .attr = UINT64_MAX },
        { .op = HATF_OP_FREE, .addr = 0, .time = 0, .attr_is_bytes = 1 },
        { .op = HATF_OP_REALLOC_MOVE, .size = 1, .addr = 0x8000000000000000ull, .new_addr = 1,
          .time = 0x7fffffffffffffffull, .attr_is_bytes = 1, .data_len = 65535, .data = big },
        { .op = HATF_OP_REALLOC_NEW, .new_addr = 0x8000000000000000ull, .time = 0x8000000000000000ull },
        { .op = HATF_OP_COMMENT, .data_len = 65535, .data = big },
        { .op = HATF_OP_THREAD_CREATE, .thread = 0x80, .time = 1, .attr = 1 },
        { .op = HATF_OP_THREAD_DESTROY, .thread = 0x80, .time = 2, .attr_is_bytes = 1, .data_len = 1, .data = big },
        { .op = HATF_OP_HEAP_DESTROY, .heap = 1, .time = 1 },
    };
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)i;
    size_t n = sizeof evs / sizeof *evs;
    for (int mode = 0; mode < 2; mode++) {
        hatf_buf b;
        hatf1_encoder e;
        hatf_buf_init(&b);
        hatf1_encoder_init(&e, &b, (hatf1_mode)mode);
        for (size_t i = 0; i < n; i++) CU_ASSERT_EQUAL(hatf1_encode(&e, &evs[i]), 0);
        hatf1_decoder d;
        hatf1_decoder_init(&d, b.p, b.len, 0);
        hatf_event got;
        for (size_t i = 0; i < n; i++) {
            CU_ASSERT_EQUAL_FATAL(hatf1_decode(&d, &got), 1);
            CU_ASSERT(same_event(&evs[i], &got, 0));
        }
        CU_ASSERT_EQUAL(hatf1_decode(&d, &got), 0);
        hatf_buf_free(&b);
    }
}

/* The worked example of docs/format-hatf1.md, byte for byte. */
static void test_doc_example(void)
{
    static const uint8_t s[] = {
        0x0b, 0x01, 0x00, 0x02,
        0x0b, 0x02, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,
        0x0b, 0x01, 0x02, 0x01,
        0x00, 0x00, 0x20, 0x00, 0x00, 0x10, 0x00, 0x05,
        0x01, 0x00, 0x00, 0x10, 0x00, 0x0a,
        0x03, 0x00, 0x40, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x30, 0x00, 0x14,
        0x0a, 0x00, 0x02, 0x68, 0x69,
    };
    hatf_event ev[MAXEV];
    hatf1_decoder d;
    CU_ASSERT_EQUAL(sizeof s, 51);
    CU_ASSERT_EQUAL_FATAL(dec_all(s, sizeof s, ev, &d), 4);
    check_ev(&ev[0], HATF_OP_ALLOC, 32, 0x1000, 0, 0, 0, 1005, 0);
    check_ev(&ev[1], HATF_OP_FREE, 0, 0x1000, 0, 0, 0, 1015, 0);
    check_ev(&ev[2], HATF_OP_REALLOC_MOVE, 64, 0x2000, 0x3000, 0, 0, 1035, 0);
    CU_ASSERT_EQUAL(ev[3].op, HATF_OP_COMMENT);
    CU_ASSERT_EQUAL(ev[3].data_len, 2);
    CU_ASSERT_EQUAL(memcmp(ev[3].data, "hi", 2), 0);
    CU_ASSERT_EQUAL(d.metadata, 3);
}

/* hatf1_decode_many gives the same events as hatf1_decode, then the error. */
static void test_decode_many(void)
{
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, HATF1_BEST);
    uint64_t clock = 5, addr = 0x1000;
    rng_state = 99;
    hatf_event src[3000];
    for (int i = 0; i < 3000; i++) {
        random_event(&src[i], &clock, &addr);
        CU_ASSERT_EQUAL(hatf1_encode(&e, &src[i]), 0);
    }
    size_t good = b.len;
    hatf_buf_append(&b, "\x0c", 1);  /* an unknown tag after the last record */
    hatf1_decoder d;
    hatf1_decoder_init(&d, b.p, b.len, 0);
    static hatf_event got[700];
    size_t total = 0, bad = 0;
    int rc;
    while ((rc = hatf1_decode_many(&d, got, 700)) > 0) {
        for (int i = 0; i < rc; i++)
            if (total + (size_t)i >= 3000 || !same_event(&src[total + (size_t)i], &got[i], 0)) bad++;
        total += (size_t)rc;
    }
    CU_ASSERT_EQUAL(total, 3000);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(rc, HATF_E_CORRUPT);
    CU_ASSERT_EQUAL(d.err.offset, good);
    CU_ASSERT_EQUAL(hatf1_decode_many(&d, got, 700), HATF_E_CORRUPT);
    hatf_buf_free(&b);
}

/* hatf1_decode_many against hatf1_decode on a stream whose field states
 * change while records are decoded in bulk: a time stride with stored bytes
 * (skipped), then a time delta, attributes switching between v1 bytes and a
 * default, and size widths changing. */
static void test_decode_many_states(void)
{
    static const uint8_t head[] = {
        0x0b, 0x02, 0x01, 0x01, A8(0),              /* address: default 0 */
        0x0b, 0x02, 0x02, 0x04, A8(1000), A8(10),   /* time: stride 10 from 1000 */
        0x0b, 0x01, 0x02, 0x04,                     /* ... with 4 stored bytes */
    };
    hatf_buf b;
    hatf_buf_init(&b);
    hatf_buf_append(&b, head, sizeof head);
    for (int i = 0; i < 300; i++) {
        uint8_t r[16];
        size_t n = 0;
        if (i == 100) {  /* time: delta from 5000, 2 bytes */
            static const uint8_t m[] = { 0x0b, 0x02, 0x02, 0x03, A8(5000), 0x0b, 0x01, 0x02, 0x02 };
            hatf_buf_append(&b, m, sizeof m);
        }
        if (i >= 150 && i % 10 == 0) {  /* attributes: v1 bytes, then a default */
            static const uint8_t v1[] = { 0x0b, 0x01, 0x05, 0x09, 0x0b, 0x02, 0x05, 0x00 };
            static const uint8_t def[] = { 0x0b, 0x02, 0x05, 0x01, A8(77) };
            if (i % 20) hatf_buf_append(&b, def, sizeof def); else hatf_buf_append(&b, v1, sizeof v1);
        }
        if (i % 7 == 3) {  /* size: 1 byte, then back to 4 */
            static const uint8_t w1[] = { 0x0b, 0x01, 0x00, 0x01 }, w4[] = { 0x0b, 0x01, 0x00, 0x04 };
            if (i % 2) hatf_buf_append(&b, w1, sizeof w1); else hatf_buf_append(&b, w4, sizeof w4);
        }
        hatf1_decoder probe;  /* the current widths, from a decoder at the end so far */
        hatf1_decoder_init(&probe, b.p, b.len, 0);
        hatf_event ev;
        while (hatf1_decode(&probe, &ev) == 1) {}
        unsigned sw = probe.width[HATF_F_SIZE], tw = probe.width[HATF_F_TIME];
        r[n++] = (uint8_t)(i % 3 == 0 ? HATF_OP_FREE : HATF_OP_ALLOC);
        if (r[0] != HATF_OP_FREE)
            for (unsigned k = sw; k-- > 0;) r[n++] = (uint8_t)((i + 1) >> (8 * k));
        for (unsigned k = tw; k-- > 0;) r[n++] = (uint8_t)((i * 3) >> (8 * k));
        if (probe.attr_len_bytes) { r[n++] = 2; r[n++] = 'a'; r[n++] = (uint8_t)i; }
        hatf_buf_append(&b, r, n);
    }
    hatf1_decoder d1, d2;
    hatf1_decoder_init(&d1, b.p, b.len, 0);
    hatf1_decoder_init(&d2, b.p, b.len, 0);
    static hatf_event one[300], many[300];
    int n1 = 0, n2 = 0, rc;
    while (n1 < 300 && hatf1_decode(&d1, &one[n1]) == 1) n1++;
    while (n2 < 300 && (rc = hatf1_decode_many(&d2, many + n2, (size_t)(300 - n2) < 37 ? (size_t)(300 - n2) : 37)) > 0) n2 += rc;
    CU_ASSERT_EQUAL(n1, 300);
    CU_ASSERT_EQUAL(n2, 300);
    size_t bad = 0;
    for (int i = 0; i < n1 && i < n2; i++) bad += !same_event(&one[i], &many[i], 0);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(one[1].time, 1020);   /* the stride's bytes are skipped */
    CU_ASSERT_EQUAL(d1.pos, b.len);
    CU_ASSERT_EQUAL(d2.pos, b.len);
    CU_ASSERT_EQUAL(d1.metadata, d2.metadata);
    CU_ASSERT_EQUAL(d1.records, d2.records);
    hatf_buf_free(&b);
}

/* A program's mix: one thread, heap 0, sizes mostly small, LIFO-ish frees,
 * ns timestamps a few hundred apart, hatrace attribute bytes (func key). */
static void realistic(hatf1_mode mode, size_t n, size_t *bytes)
{
    rng_state = 42;
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, mode);
    e.split_addr = 1;
    uint64_t t = 1700000000000000000ull, live[256];
    size_t nlive = 0;
    static const uint8_t fmalloc[] = { 1, 1 }, ffree[] = { 1, 5 };
    for (size_t i = 0; i < n; i++) {
        hatf_event ev = { .thread = 7, .attr_is_bytes = 1, .data_len = 2 };
        t += 50 + rnd() % 400;
        ev.time = t;
        if (nlive < 256 && (nlive == 0 || rnd() % 2)) {
            ev.op = HATF_OP_ALLOC;
            ev.size = rnd() % 16 ? 8 + rnd() % 120 : rnd() % 100000;
            ev.addr = live[nlive++] = 0x5555000000ull + rnd() % (1 << 20) * 16;
            ev.data = fmalloc;
        } else {
            ev.op = HATF_OP_FREE;
            ev.addr = live[--nlive];
            ev.data = ffree;
        }
        CU_ASSERT_EQUAL(hatf1_encode(&e, &ev), 0);
    }
    *bytes = b.len;
    hatf_buf_free(&b);
}

static void test_best_smaller(void)
{
    size_t plain, best;
    realistic(HATF1_PLAIN, 10000, &plain);
    realistic(HATF1_BEST, 10000, &best);
    /* plain: size 8 + thread 4 + heap 4 + time 8 + v2 attributes 4 = 28 per alloc */
    printf("\n  realistic mix, 10000 events: plain %zu bytes, best %zu bytes\n", plain, best);
    CU_ASSERT(best * 3 < plain);
}

/* BEST narrows only after a run of narrow values, and never thrashes. */
static void test_best_hysteresis(void)
{
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, HATF1_BEST);
    e.split_addr = 1;
    hatf_event ev = { .op = HATF_OP_ALLOC };
    /* sizes alternating 1 and 2 bytes wide: one widening, then no more metadata */
    for (int i = 0; i < 100; i++) {
        ev.size = i % 2 ? 0x1234 : 0x12;
        CU_ASSERT_EQUAL(hatf1_encode(&e, &ev), 0);
    }
    uint64_t m = e.metadata;
    CU_ASSERT_EQUAL(e.width[HATF_F_SIZE], 2);
    for (int i = 0; i < 15; i++) {
        ev.size = 0x12;
        hatf1_encode(&e, &ev);
    }
    CU_ASSERT_EQUAL(e.width[HATF_F_SIZE], 2);
    ev.size = 0x12;
    hatf1_encode(&e, &ev);   /* 16 in a row (the window may have started earlier) */
    for (int i = 0; i < 16; i++) hatf1_encode(&e, &ev);
    CU_ASSERT_EQUAL(e.width[HATF_F_SIZE], 1);
    CU_ASSERT_EQUAL(e.metadata, m + 1);
    /* a thread id that changes on every event goes to none, not a default per event */
    m = e.metadata;
    for (int i = 0; i < 100; i++) {
        ev.thread = (uint64_t)i;
        hatf1_encode(&e, &ev);
    }
    CU_ASSERT_EQUAL(e.interp[HATF_F_THREAD], HATF_I_NONE);
    CU_ASSERT(e.metadata - m <= 4);
    hatf_buf_free(&b);
}

/* A stream of its own takes the paper's encodings where they pay: a run of
 * equal sizes as a default, strided addresses and times under stride (no
 * bytes). A bump allocator's run of 100000 equal allocations every 10 time
 * units: the tag alone per record, where delta coding needs 4.25 bytes. A
 * broken run goes back to delta; everything decodes as it was. */
static void test_best_strides(void)
{
    enum { N = 100000 };
    hatf_buf b;
    hatf1_encoder e;
    hatf_buf_init(&b);
    hatf1_encoder_init(&e, &b, HATF1_BEST);
    hatf_event *evs = calloc(N + 3, sizeof *evs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(evs);
    for (size_t i = 0; i < N; i++)
        evs[i] = (hatf_event){ .op = HATF_OP_ALLOC, .size = 48, .addr = 0x7f0000001000 + 64 * i, .thread = 1,
                               .time = 1000 + 10 * i };
    /* the run breaks: a free elsewhere, an odd size, a realloc */
    evs[N] = (hatf_event){ .op = HATF_OP_FREE, .addr = 0x7f0000001000, .thread = 1, .time = 1000 + 10 * N + 3 };
    evs[N + 1] = (hatf_event){ .op = HATF_OP_ALLOC, .size = 4000, .addr = 0x5000, .thread = 1, .time = 1000 + 10 * N + 7 };
    evs[N + 2] = (hatf_event){ .op = HATF_OP_REALLOC_MOVE, .size = 9000, .addr = 0x5000, .new_addr = 0x9000,
                               .thread = 1, .time = 1000 + 10 * N + 9 };
    int ok = 1;
    for (size_t i = 0; i < N; i++) ok &= hatf1_encode(&e, &evs[i]) == 0;
    size_t run_bytes = b.len;
    for (size_t i = N; i < N + 3; i++) ok &= hatf1_encode(&e, &evs[i]) == 0;
    CU_ASSERT(ok);
    printf("\n  strided run of equal sizes: %.3f bytes/record, %llu metadata records\n", (double)run_bytes / N,
           (unsigned long long)e.metadata);
    CU_ASSERT(run_bytes < N + N / 50);  /* the tag, and a few metadata records at the start */
    hatf1_decoder d;
    hatf1_decoder_init(&d, b.p, b.len, 0);
    hatf_event got;
    size_t i = 0, bad = 0;
    while (hatf1_decode(&d, &got) == 1 && i < N + 3) bad += !same_event(&evs[i++], &got, 0);
    CU_ASSERT_EQUAL(i, N + 3);
    CU_ASSERT_EQUAL(bad, 0);
    free(evs);
    hatf_buf_free(&b);
}

static CU_TestInfo tests[] = {
    { "defaults, every tag", test_defaults_every_tag },
    { "best: runs and strides", test_best_strides },
    { "field order", test_field_order },
    { "widths under none", test_widths_none },
    { "default", test_interp_default },
    { "baseOffset", test_interp_baseoffset },
    { "delta", test_interp_delta },
    { "delta uses a3 first", test_delta_first_uses_a3 },
    { "realloc address order", test_realloc_address_order },
    { "stride", test_interp_stride },
    { "width restore", test_width_restore },
    { "attribute bytes", test_attr_bytes },
    { "comments", test_comments },
    { "errors", test_errors },
    { "every prefix", test_every_prefix },
    { "record offsets", test_last_record_offset },
    { "encode plain", test_encode_plain_bytes },
    { "encode plain split, bytes", test_encode_plain_bytes_attrs_split },
    { "encode best", test_encode_best_bytes },
    { "encode low level", test_encode_low_level },
    { "round trip random", test_round_trip_random },
    { "round trip extremes", test_round_trip_extremes },
    { "doc example", test_doc_example },
    { "decode many", test_decode_many },
    { "decode many, changing states", test_decode_many_states },
    { "best smaller than plain", test_best_smaller },
    { "best hysteresis", test_best_hysteresis },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "hatf1", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
