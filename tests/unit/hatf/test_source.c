/* test_source.c — opening each format, record numbers and offsets, errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "hatf.h"
#include "hatf_source.h"
#include "hatf_text.h"

static char path[256];

static const char *write_file(const char *name, const void *data, size_t len)
{
    ut_path(path, sizeof path, "%s", name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

static void test_names(void)
{
    CU_ASSERT_EQUAL(hatf_format_from_name("hatrace"), HATF_FMT_CONTAINER);
    CU_ASSERT_EQUAL(hatf_format_from_name("hatf1.0"), HATF_FMT_HATF1);
    CU_ASSERT_EQUAL(hatf_format_from_name("text"), HATF_FMT_TEXT);
    CU_ASSERT_EQUAL(hatf_format_from_name("auto"), -1);
    CU_ASSERT_EQUAL(hatf_format_from_name("hatf1"), -1);
    CU_ASSERT_STRING_EQUAL(hatf_format_name(HATF_FMT_HATF1), "hatf1.0");
}

/* each format by its first bytes; too few bytes name none */
static void test_format_of_head(void)
{
    CU_ASSERT_EQUAL(hatf_format_of_head("HATRACE\0\1\0\0\0\0\0\0\0", 16), HATF_FMT_CONTAINER);
    CU_ASSERT_EQUAL(hatf_format_of_head("HATRACE\0", 8), HATF_FMT_CONTAINER);
    CU_ASSERT_EQUAL(hatf_format_of_head("HATRACE\0", 7), HATF_FMT_AUTO);
    CU_ASSERT_EQUAL(hatf_format_of_head("HATRACEX", 8), HATF_FMT_AUTO);
    CU_ASSERT_EQUAL(hatf_format_of_head("\177MTF\1\2", 6), HATF_FMT_METATF);
    CU_ASSERT_EQUAL(hatf_format_of_head("#hatrace-text 1\n", 16), HATF_FMT_TEXT);
    CU_ASSERT_EQUAL(hatf_format_of_head("#hatrace-text 1", 14), HATF_FMT_AUTO);
    CU_ASSERT_EQUAL(hatf_format_of_head("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16), HATF_FMT_AUTO);
    CU_ASSERT_EQUAL(hatf_format_of_head("", 0), HATF_FMT_AUTO);
}

static const char text[] =
    "#hatrace-text 1\n"                        /* 0 */
    "\n"                                       /* 16 */
    "# remark\n"                               /* 17 */
    "10 1 0 alloc 8 0x10\n"                    /* 26 */
    "  \r\n"                                   /* 46 */
    "20 1 0 free 0x10 func=free\r\n"           /* 50 */
    "30 1 0 free 0x0";                         /* 78, no final newline */

static void test_text_positions(void)
{
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(write_file("a.txt", text, strlen(text)), HATF_FMT_TEXT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hatf_source_format(s), HATF_FMT_TEXT);
    CU_ASSERT_PTR_NULL(hatf_source_container(s));
    hatf_event ev;
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT(ev.op == HATF_OP_ALLOC && ev.size == 8 && ev.addr == 0x10 && ev.time == 10);
    CU_ASSERT_EQUAL(hatf_source_record(s), 0);
    CU_ASSERT_EQUAL(hatf_source_offset(s), 26);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT(ev.op == HATF_OP_FREE && ev.data_len == 2 && ev.data[0] == 1 && ev.data[1] == HATF_FN_FREE);
    CU_ASSERT_EQUAL(hatf_source_record(s), 1);
    CU_ASSERT_EQUAL(hatf_source_offset(s), 50);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT(ev.op == HATF_OP_FREE && ev.addr == 0 && ev.time == 30);
    CU_ASSERT_EQUAL(hatf_source_offset(s), 78);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 0);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 0);
    hatf_source_close(s);
}

static void test_text_errors(void)
{
    hatf_err err = { 0 };
    const char bad[] = "#hatrace-text 1\n1 1 0 alloc 8 0x10\n2 1 0 free 0x1z\n";
    hatf_source *s = hatf_source_open(write_file("b.txt", bad, strlen(bad)), HATF_FMT_TEXT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hatf_event ev;
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), HATF_E_CORRUPT);
    const hatf_err *e = hatf_source_error(s);
    CU_ASSERT_EQUAL(e->offset, 35);
    CU_ASSERT_EQUAL(e->record, 1);
    CU_ASSERT_STRING_EQUAL(e->msg, "line 3, column 15: bad hex digit in address");
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), HATF_E_CORRUPT);  /* sticky */
    hatf_source_close(s);

    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(hatf_source_open(write_file("c.txt", "10 1 0 free 0x1\n", 16), HATF_FMT_TEXT, &err));
    CU_ASSERT_EQUAL(err.code, HATF_E_CORRUPT);
    CU_ASSERT_EQUAL(err.offset, 0);
    CU_ASSERT_STRING_EQUAL(err.msg, "not a text trace: first line must be '#hatrace-text 1'");

    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(hatf_source_open(write_file("d.txt", "#hatrace-text 2\n", 16), HATF_FMT_TEXT, &err));
    CU_ASSERT_EQUAL(err.code, HATF_E_VERSION);

    /* a line one byte over the limit, after a good one */
    size_t n = 16 + 20 + HATF_TEXT_LINE_MAX + 1;
    char *big = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memcpy(big, "#hatrace-text 1\n1 1 0 alloc 8 0x10\n ", 36);
    memset(big + 36, ' ', n - 36);
    big[n - 1] = '\n';
    memset(&err, 0, sizeof err);
    s = hatf_source_open(write_file("e.txt", big, n), HATF_FMT_TEXT, &err);
    free(big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), HATF_E_LIMIT);
    CU_ASSERT_EQUAL(hatf_source_error(s)->offset, 35);
    hatf_source_close(s);
}

static void test_auto(void)
{
    hatf_err err = { 0 };
    CU_ASSERT_PTR_NULL(hatf_source_open(write_file("f.txt", text, strlen(text)), HATF_FMT_AUTO, &err));
    CU_ASSERT_EQUAL(err.offset, 0);
    CU_ASSERT_STRING_EQUAL(err.msg, "not a hatrace container (use --from hatf1.0 or --from text)");
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(hatf_source_open(write_file("g", "", 0), HATF_FMT_AUTO, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "empty file, not a hatrace container (use --from hatf1.0 or --from text)");
    memset(&err, 0, sizeof err);
    ut_path(path, sizeof path, "none");
    CU_ASSERT_PTR_NULL(hatf_source_open(path, HATF_FMT_TEXT, &err));
    CU_ASSERT_EQUAL(err.code, HATF_E_IO);
    CU_ASSERT(strstr(err.msg, "cannot open") != NULL);
}

/* Hand-made HATF 1.0: an alloc and a free with default widths (size 4, address 4). */
static void test_hatf1(void)
{
    const uint8_t raw[] = {
        0x00, 0, 0, 0, 24, 0, 0, 0x10, 0,  /* alloc 24 at 0x1000 */
        0x01, 0, 0, 0x10, 0,               /* free 0x1000, at offset 9 */
        0x0e,                              /* unknown tag at offset 14 */
    };
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(write_file("h.hatf1", raw, sizeof raw), HATF_FMT_HATF1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hatf_event ev;
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT(ev.op == HATF_OP_ALLOC && ev.size == 24 && ev.addr == 0x1000);
    CU_ASSERT_EQUAL(hatf_source_offset(s), 0);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT(ev.op == HATF_OP_FREE && ev.addr == 0x1000);
    CU_ASSERT_EQUAL(hatf_source_record(s), 1);
    CU_ASSERT_EQUAL(hatf_source_offset(s), 9);
    CU_ASSERT(hatf_source_next(s, &ev) < 0);
    CU_ASSERT_EQUAL(hatf_source_error(s)->offset, 14);
    CU_ASSERT_EQUAL(hatf_source_error(s)->record, 2);
    hatf_source_close(s);

    /* an empty raw stream is a valid trace of no events */
    memset(&err, 0, sizeof err);
    s = hatf_source_open(write_file("i.hatf1", "", 0), HATF_FMT_HATF1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 0);
    hatf_source_close(s);
}

/* A container written here reads back in time order across threads. */
static void test_container(void)
{
    ut_path(path, sizeof path, "j.hatf");
    hatf_info info = { .address_bits = 64, .time_unit_ns_num = 1, .time_unit_ns_den = 1, .pid = 77 };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(path, 1, &info, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hatf_event a[2] = { { .op = HATF_OP_ALLOC, .size = 8, .addr = 0x10, .thread = 1, .time = 5 },
                        { .op = HATF_OP_FREE, .addr = 0x10, .thread = 1, .time = 30 } };
    hatf_event b[1] = { { .op = HATF_OP_ALLOC, .size = 9, .addr = 0x20, .thread = 2, .time = 20 } };
    CU_ASSERT_EQUAL(hatf_writer_add(w, a, 2), 0);
    CU_ASSERT_EQUAL(hatf_writer_add(w, b, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);

    hatf_source *s = hatf_source_open(path, HATF_FMT_AUTO, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hatf_source_format(s), HATF_FMT_CONTAINER);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hatf_source_container(s));
    CU_ASSERT_EQUAL(hatf_reader_info(hatf_source_container(s))->pid, 77);
    hatf_event ev;
    uint64_t times[3];
    int n = 0;
    while (n < 3 && hatf_source_next(s, &ev) == 1) {
        CU_ASSERT_EQUAL(hatf_source_record(s), (uint64_t)n);
        CU_ASSERT(hatf_source_offset(s) > 0);  /* a chunk, after the header */
        times[n++] = ev.time;
    }
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT(times[0] == 5 && times[1] == 20 && times[2] == 30);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 0);
    hatf_source_close(s);
}

/* A container whose thread 2 records chunk is damaged: read as it is, the
 * source fails there; read on (hatf_source_read_on), it gives every event of
 * the other threads and notes the skipped group once. */
static void test_container_read_on(void)
{
    ut_path(path, sizeof path, "d.hatf");
    hatf_info info = { .address_bits = 64, .time_unit_ns_num = 1, .time_unit_ns_den = 1 };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(path, 1, &info, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (uint64_t t = 1; t <= 3; t++)
        for (int i = 0; i < 100; i++) {
            hatf_event e = { .op = HATF_OP_ALLOC, .size = 8 + (uint64_t)i, .addr = (t << 20) + 64 * (uint64_t)i,
                             .thread = t, .time = 10 * (uint64_t)i + t };
            CU_ASSERT_EQUAL_FATAL(hatf_writer_add(w, &e, 1), 0);
        }
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    /* flip a payload byte of thread 2's records chunk */
    FILE *f = fopen(path, "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static uint8_t b[1 << 16];
    size_t len = fread(b, 1, sizeof b, f);
    long hit = -1;
    for (size_t i = 0; i + 64 < len && hit < 0; i++)
        if (!memcmp(b + i, "HCHK", 4) && b[i + 4] == 1 && b[i + 8] == 2) hit = (long)i + 64;
    CU_ASSERT_FATAL(hit > 0);
    b[hit] ^= 0xff;
    fseek(f, hit, SEEK_SET);
    fputc(b[hit], f);
    fclose(f);

    hatf_event ev;
    for (int on = 0; on <= 1; on++) {
        hatf_source *s = hatf_source_open(path, HATF_FMT_CONTAINER, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        hatf_source_read_on(s, on);
        int n = 0, rc, bad = 0;
        while ((rc = hatf_source_next(s, &ev)) == 1) n++, bad += ev.thread == 2;
        const char *const *lines;
        size_t k = hatf_source_skips(s, &lines);
        if (on) {
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_EQUAL(n, 200);
            CU_ASSERT_EQUAL(bad, 0);
            CU_ASSERT_EQUAL_FATAL(k, 1);
            CU_ASSERT_PTR_NOT_NULL(strstr(lines[0], "100 events of thread 2 skipped"));
        } else {
            CU_ASSERT_EQUAL(rc, HATF_E_CORRUPT);
            CU_ASSERT_EQUAL(k, 0);
        }
        hatf_source_close(s);
    }
}

/* A container of nt threads, 300 events each, times interleaved: thread t's
 * i-th at 10 i + t. */
static void write_threads(const char *name, uint64_t nt)
{
    ut_path(path, sizeof path, "%s", name);
    hatf_info info = { .address_bits = 64, .time_unit_ns_num = 1, .time_unit_ns_den = 1 };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(path, 1, &info, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (uint64_t t = 1; t <= nt; t++)
        for (uint64_t i = 0; i < 300; i++) {
            hatf_event e = { .op = HATF_OP_ALLOC, .size = 8 + i, .addr = (t << 20) + 64 * i, .thread = t,
                             .time = 10 * i + t };
            if (i % 3 == 2) e = (hatf_event){ .op = HATF_OP_FREE, .addr = (t << 20) + 64 * (i - 1), .thread = t,
                                              .time = 10 * i + t };
            CU_ASSERT_EQUAL_FATAL(hatf_writer_add(w, &e, 1), 0);
        }
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
}

/* hatf_source_peek and _take hand out what hatf_source_next does, in the same
 * order, with the same record numbers and offsets, whatever the takes' sizes;
 * a peek again before a take gives the same events; a single thread's events
 * come as runs. */
static void test_peek_take(void)
{
    enum { N = 900 };
    static hatf_event want[N];
    static uint64_t off[N];
    for (uint64_t nt = 1; nt <= 3; nt += 2) {
        write_threads("p.hatf", nt);
        hatf_err err = { 0 };
        hatf_source *s = hatf_source_open(path, HATF_FMT_CONTAINER, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        size_t n = 0;
        while (n < N && hatf_source_next(s, &want[n]) == 1) off[n++] = hatf_source_offset(s);
        CU_ASSERT_EQUAL_FATAL(n, 300 * nt);
        hatf_source_close(s);

        s = hatf_source_open(path, HATF_FMT_CONTAINER, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        size_t got = 0, longest = 0, bad = 0;
        unsigned step = 0;
        const hatf_event *evs, *again;
        uint64_t first, first2;
        int k;
        while ((k = hatf_source_peek(s, &evs, &first)) > 0) {
            CU_ASSERT_EQUAL(hatf_source_peek(s, &again, &first2), k);
            CU_ASSERT(again == evs && first2 == first);
            if ((size_t)k > longest) longest = (size_t)k;
            unsigned take = 1 + step++ % 5;
            if (take > (unsigned)k) take = (unsigned)k;
            for (unsigned i = 0; i < take && got + i < n; i++) {
                const hatf_event *a = &evs[i], *b = &want[got + i];
                bad += first + i != got + i || a->op != b->op || a->addr != b->addr || a->time != b->time ||
                       a->thread != b->thread || hatf_source_offset(s) != off[got + i];
            }
            hatf_source_take(s, take);
            got += take;
            CU_ASSERT_EQUAL(hatf_source_record(s), got - 1);
        }
        CU_ASSERT_EQUAL(k, 0);
        CU_ASSERT_EQUAL(got, n);
        CU_ASSERT_EQUAL(bad, 0);
        if (nt == 1) CU_ASSERT(longest >= 100);  /* a group's events at once, not one by one */
        hatf_source_close(s);
    }
}

static CU_TestInfo tests[] = {
    { "format names", test_names },
    { "format of a file's first bytes", test_format_of_head },
    { "text positions", test_text_positions },
    { "text errors", test_text_errors },
    { "auto and open errors", test_auto },
    { "hatf1.0", test_hatf1 },
    { "container", test_container },
    { "container read on past a damaged group", test_container_read_on },
    { "peek and take", test_peek_take },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "source", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
