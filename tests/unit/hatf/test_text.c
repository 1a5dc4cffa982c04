/* test_text.c — the text form: formatting, parsing, round trips, errors. */
#include <string.h>

#include "cunit_main.h"
#include "hatf.h"
#include "hatf_text.h"

static hatf_buf out, scratch;

/* Format ev and compare with the expected line (including '\n'). */
static void check_format(const hatf_event *ev, const char *want)
{
    out.len = 0;
    CU_ASSERT_EQUAL_FATAL(hatf_text_format(ev, &out), 0);
    CU_ASSERT_EQUAL(out.len, strlen(want));
    if (out.len != strlen(want) || memcmp(out.p, want, out.len) != 0)
        fprintf(stderr, "\n got: %.*s want: %s", (int)out.len, (const char *)out.p, want);
    CU_ASSERT(out.len == strlen(want) && memcmp(out.p, want, out.len) == 0);
}

static int parse(const char *line, hatf_event *ev, hatf_err *err)
{
    memset(err, 0, sizeof *err);
    return hatf_text_parse(line, strlen(line), 500, ev, &scratch, err);
}

static int same_event(const hatf_event *a, const hatf_event *b)
{
    return a->op == b->op && a->size == b->size && a->addr == b->addr && a->new_addr == b->new_addr &&
           a->thread == b->thread && a->heap == b->heap && a->time == b->time && a->attr == b->attr &&
           !a->attr_is_bytes == !b->attr_is_bytes && a->data_len == b->data_len &&
           (a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0);
}

/* Format ev, parse the line back, and expect the same event. */
static void check_round_trip(const hatf_event *ev)
{
    out.len = 0;
    CU_ASSERT_EQUAL_FATAL(hatf_text_format(ev, &out), 0);
    CU_ASSERT_FATAL(out.len > 0 && out.p[out.len - 1] == '\n');
    hatf_event back;
    hatf_err err = { 0 };
    CU_ASSERT_EQUAL(hatf_text_parse((const char *)out.p, out.len - 1, 0, &back, &scratch, &err), 1);
    CU_ASSERT(same_event(ev, &back));
}

static void test_format_ops(void)
{
    uint8_t malloc_attr[] = { 1, 1 };         /* func=malloc */
    uint8_t calloc_attr[] = { 1, 2, 7, 4 };   /* func=calloc nmemb=4 */
    uint8_t thr_attr[] = { 4, 0x92, 0x21, 5, 1 }; /* ostid=4242 parent=1 */
    hatf_event ev = { .op = HATF_OP_ALLOC, .time = 1000, .thread = 1, .size = 24,
                      .addr = 0x7f3a00001000, .attr_is_bytes = 1, .data = malloc_attr, .data_len = 2 };
    check_format(&ev, "1000 1 0 alloc 24 0x7f3a00001000 func=malloc\n");
    ev = (hatf_event){ .op = HATF_OP_ALLOC, .time = 1, .thread = 2, .heap = 3, .size = 64, .addr = 0x10,
                       .attr_is_bytes = 1, .data = calloc_attr, .data_len = 4 };
    check_format(&ev, "1 2 3 alloc 64 0x10 func=calloc nmemb=4\n");
    /* the same bytes from another writer mean nothing to hatrace: shown raw */
    ev.attr_is_bytes = HATF_ATTRS_FOREIGN;
    check_format(&ev, "1 2 3 alloc 64 0x10 attr=hex:01020704\n");
    ev = (hatf_event){ .op = HATF_OP_FREE, .time = 1010, .thread = 1, .addr = 0x7f3a00001000 };
    check_format(&ev, "1010 1 0 free 0x7f3a00001000\n");
    ev = (hatf_event){ .op = HATF_OP_FREE, .time = 1030, .thread = 1 };
    check_format(&ev, "1030 1 0 free 0x0\n");
    ev = (hatf_event){ .op = HATF_OP_REALLOC_MOVE, .time = 1020, .thread = 1, .size = 48, .addr = 0x1000,
                       .new_addr = 0x2000 };
    check_format(&ev, "1020 1 0 realloc-move 48 0x1000 -> 0x2000\n");
    ev.op = HATF_OP_REALLOC_INPLACE; ev.new_addr = 0x1000;
    check_format(&ev, "1020 1 0 realloc-inplace 48 0x1000 -> 0x1000\n");
    ev.op = HATF_OP_REALLOC_NEW; ev.addr = 0;
    check_format(&ev, "1020 1 0 realloc-new 48 0x0 -> 0x1000\n");
    ev = (hatf_event){ .op = HATF_OP_REALLOC_FREE, .time = 5, .thread = 1, .addr = 0xabc };
    check_format(&ev, "5 1 0 realloc-free 0 0xabc -> 0x0\n");
    ev = (hatf_event){ .op = HATF_OP_HEAP_CREATE, .time = 7, .thread = 1, .heap = 9 };
    check_format(&ev, "7 1 9 heap-create\n");
    ev.op = HATF_OP_HEAP_DESTROY;
    check_format(&ev, "7 1 9 heap-destroy\n");
    ev = (hatf_event){ .op = HATF_OP_THREAD_CREATE, .time = 1040, .thread = 2, .attr_is_bytes = 1,
                       .data = thr_attr, .data_len = 5 };
    check_format(&ev, "1040 2 0 thread-create ostid=4242 parent=1\n");
    ev = (hatf_event){ .op = HATF_OP_THREAD_DESTROY, .time = UINT64_MAX, .thread = UINT64_MAX };
    check_format(&ev, "18446744073709551615 18446744073709551615 0 thread-destroy\n");
    ev = (hatf_event){ .op = HATF_OP_ALLOC, .size = 1, .addr = UINT64_MAX };
    check_format(&ev, "0 0 0 alloc 1 0xffffffffffffffff\n");
}

static void test_format_attrs(void)
{
    hatf_event ev = { .op = HATF_OP_FREE, .addr = 0x20 };
    ev.attr = 123;
    check_format(&ev, "0 0 0 free 0x20 attr=123\n");
    /* empty byte string is not the same as no attribute */
    ev.attr = 0; ev.attr_is_bytes = 1; ev.data = (const uint8_t *)""; ev.data_len = 0;
    check_format(&ev, "0 0 0 free 0x20 attr=hex:\n");
    uint8_t unsorted[] = { 2, 1, 1, 1 };      /* keys out of order: not canonical */
    ev.data = unsorted; ev.data_len = 4;
    check_format(&ev, "0 0 0 free 0x20 attr=hex:02010101\n");
    uint8_t longvar[] = { 1, 0x81, 0x00 };    /* non-shortest varint */
    ev.data = longvar; ev.data_len = 3;
    check_format(&ev, "0 0 0 free 0x20 attr=hex:018100\n");
    uint8_t unknown_key[] = { 9, 1 };
    ev.data = unknown_key; ev.data_len = 2;
    check_format(&ev, "0 0 0 free 0x20 attr=hex:0901\n");
    uint8_t all[] = { 1, 99, 2, 64, 3, 7, 4, 1, 5, 2, 6, 1, 7, 0x80, 0x01 };
    ev.data = all; ev.data_len = sizeof all;
    check_format(&ev, "0 0 0 free 0x20 func=99 align=64 stack=7 ostid=1 parent=2 failed=1 nmemb=128\n");
    uint8_t fn[] = { 1, 12 };
    ev.data = fn; ev.data_len = 2;
    check_format(&ev, "0 0 0 free 0x20 func=delete\n");
}

/* hatf_event_attrs / hatf_event_failed: what readers of the attributes see. */
static void test_event_attrs(void)
{
    hatf_attrs a;
    hatf_event ev = { .op = HATF_OP_ALLOC, .addr = 0x20, .attr = 6 };
    CU_ASSERT_EQUAL(hatf_event_attrs(&ev, &a), -1);  /* a number, not hatrace's key list */
    CU_ASSERT_EQUAL(a.present, 0);
    uint8_t ok[] = { 3, 7, 6, 1 };
    ev.attr_is_bytes = 1; ev.data = ok; ev.data_len = sizeof ok;
    CU_ASSERT_EQUAL(hatf_event_attrs(&ev, &a), 0);
    CU_ASSERT_EQUAL(hatf_attrs_get(&a, HATF_A_STACK, 0), 7);
    CU_ASSERT_EQUAL(hatf_attrs_get(&a, HATF_A_NMEMB, 1), 1);  /* absent */
    CU_ASSERT(hatf_attrs_failed(&a));
    CU_ASSERT(!hatf_event_failed(&ev));  /* it made 0x20: an attribute never contradicts the record */
    ev.addr = 0;
    CU_ASSERT(hatf_event_failed(&ev));
    hatf_event re = { .op = HATF_OP_REALLOC_MOVE, .addr = 0x20, .new_addr = 0x40, .attr_is_bytes = 1,
                      .data = ok, .data_len = sizeof ok };
    CU_ASSERT(!hatf_event_failed(&re));  /* it moved the block */
    re.new_addr = 0x20;  /* a failed realloc, as the recorder writes it: its block left as it was */
    CU_ASSERT(hatf_event_failed(&re));
    re.new_addr = 0;
    CU_ASSERT(hatf_event_failed(&re));
    /* failed=1 read before the key that makes the bytes invalid: nothing is kept */
    uint8_t bad[] = { 6, 1, 6, 1 };
    ev.data = bad; ev.data_len = sizeof bad;
    CU_ASSERT_EQUAL(hatf_event_attrs(&ev, &a), -1);
    CU_ASSERT_EQUAL(a.present, 0);
    CU_ASSERT(!hatf_event_failed(&ev));
    ev.data_len = 0;  /* no bytes: valid, no keys */
    CU_ASSERT_EQUAL(hatf_event_attrs(&ev, &a), 0);
    CU_ASSERT_EQUAL(a.present, 0);
}

static void test_format_comment(void)
{
    const char *txt = "text\n with \"escapes\" \\ \t\r\x01\x7f\xc3\xa9";
    hatf_event ev = { .op = HATF_OP_COMMENT, .data = (const uint8_t *)txt, .data_len = (uint16_t)strlen(txt) };
    check_format(&ev, "0 0 0 comment \"text\\n with \\\"escapes\\\" \\\\ \\t\\r\\x01\\x7f\xc3\xa9\"\n");
    check_round_trip(&ev);
    ev.data_len = 0;
    check_format(&ev, "0 0 0 comment \"\"\n");
    check_round_trip(&ev);
    /* 65535 control bytes do not fit quoted in one line: written as hex */
    static uint8_t big[65535];
    memset(big, 1, sizeof big);
    ev.data = big; ev.data_len = 65535;
    out.len = 0;
    CU_ASSERT_EQUAL(hatf_text_format(&ev, &out), 0);
    CU_ASSERT_EQUAL(out.len, strlen("0 0 0 comment hex:") + 2 * 65535 + 1);
    CU_ASSERT(out.len <= HATF_TEXT_LINE_MAX);
    check_round_trip(&ev);
    /* 65535 printable bytes stay quoted */
    memset(big, 'a', sizeof big);
    out.len = 0;
    CU_ASSERT_EQUAL(hatf_text_format(&ev, &out), 0);
    CU_ASSERT_EQUAL(out.len, strlen("0 0 0 comment \"\"") + 65535 + 1);
    check_round_trip(&ev);
}

static void test_parse_ops(void)
{
    hatf_event ev;
    hatf_err err;
    CU_ASSERT_EQUAL(parse("1000 1 0 alloc 24 0x7f3a00001000 func=malloc", &ev, &err), 1);
    CU_ASSERT_EQUAL(ev.op, HATF_OP_ALLOC);
    CU_ASSERT_EQUAL(ev.time, 1000);
    CU_ASSERT_EQUAL(ev.thread, 1);
    CU_ASSERT_EQUAL(ev.size, 24);
    CU_ASSERT_EQUAL(ev.addr, 0x7f3a00001000);
    CU_ASSERT_EQUAL(ev.attr_is_bytes, 1);
    CU_ASSERT_EQUAL(ev.data_len, 2);
    CU_ASSERT(ev.data[0] == 1 && ev.data[1] == 1);
    /* tabs, several blanks, CR at the end, upper-case hex, keys in any order */
    CU_ASSERT_EQUAL(parse("\t5  2\t7 realloc-move 48 0XABC ->  0x2000 nmemb=2 func=reallocarray \r", &ev, &err), 1);
    CU_ASSERT_EQUAL(ev.op, HATF_OP_REALLOC_MOVE);
    CU_ASSERT_EQUAL(ev.heap, 7);
    CU_ASSERT_EQUAL(ev.addr, 0xabc);
    CU_ASSERT_EQUAL(ev.new_addr, 0x2000);
    CU_ASSERT_EQUAL(ev.data_len, 4);
    CU_ASSERT(memcmp(ev.data, "\x01\x04\x07\x02", 4) == 0);
    CU_ASSERT_EQUAL(parse("1 1 0 free 0x0", &ev, &err), 1);
    CU_ASSERT(ev.op == HATF_OP_FREE && ev.addr == 0 && !ev.attr_is_bytes && ev.attr == 0);
    CU_ASSERT_EQUAL(parse("1 1 0 free 0x10 attr=18446744073709551615", &ev, &err), 1);
    CU_ASSERT(ev.attr == UINT64_MAX && !ev.attr_is_bytes);
    CU_ASSERT_EQUAL(parse("1 1 0 free 0x10 attr=hex:", &ev, &err), 1);
    CU_ASSERT(ev.attr_is_bytes == HATF_ATTRS_FOREIGN && ev.data_len == 0);  /* raw bytes: no hatrace meaning */
    CU_ASSERT_EQUAL(parse("1 1 0 free 0x10 attr=hex:0aFf", &ev, &err), 1);
    CU_ASSERT(ev.data_len == 2 && ev.data[0] == 0x0a && ev.data[1] == 0xff);
    CU_ASSERT_EQUAL(parse("1 1 4 heap-destroy", &ev, &err), 1);
    CU_ASSERT(ev.op == HATF_OP_HEAP_DESTROY && ev.heap == 4);
    CU_ASSERT_EQUAL(parse("0 0 0 comment hex:4869", &ev, &err), 1);
    CU_ASSERT(ev.op == HATF_OP_COMMENT && ev.data_len == 2 && memcmp(ev.data, "Hi", 2) == 0);
    /* not events */
    CU_ASSERT_EQUAL(parse("", &ev, &err), 0);
    CU_ASSERT_EQUAL(parse("   \t", &ev, &err), 0);
    CU_ASSERT_EQUAL(parse("# a remark", &ev, &err), 0);
    CU_ASSERT_EQUAL(parse("  #hatrace-text 1", &ev, &err), 0);
}

static void test_round_trip_all(void)
{
    uint8_t a1[] = { 1, 2, 2, 64, 3, 0xff, 0xff, 0x03, 6, 1, 7, 3 };
    uint8_t raw[] = { 0, 1, 2, 3 };
    for (unsigned op = 0; op < HATF_OP_COMMENT; op++) {
        hatf_event ev = { .op = (uint8_t)op, .time = 123456789012345ull, .thread = 3, .heap = 2 };
        if (hatf_op_has_size(op)) ev.size = 4096;
        if (hatf_op_has_addr(op)) ev.addr = 0x55550000abcdull;
        if (hatf_op_is_realloc(op)) ev.new_addr = 0x5555ffff0000ull;
        check_round_trip(&ev);
        ev.attr = 77; check_round_trip(&ev);
        ev.attr = 0; ev.attr_is_bytes = 1; ev.data = a1; ev.data_len = sizeof a1; check_round_trip(&ev);
        ev.data = raw; ev.data_len = sizeof raw; check_round_trip(&ev);
        ev.data_len = 0; check_round_trip(&ev);
    }
}

/* Each bad line gives an error at the expected column, with the line's offset. */
static void check_error(const char *line, int code, unsigned col)
{
    hatf_event ev;
    hatf_err err;
    int rc = parse(line, &ev, &err);
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_EQUAL(err.code, code);
    CU_ASSERT_EQUAL(err.offset, 500);
    char want[32];
    snprintf(want, sizeof want, "column %u: ", col);
    if (strncmp(err.msg, want, strlen(want)) != 0)
        fprintf(stderr, "\n line '%s': got '%s', want '%s...'", line, err.msg, want);
    CU_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);
}

static void test_parse_errors(void)
{
    check_error("x 1 0 free 0x1", HATF_E_CORRUPT, 1);
    check_error("1", HATF_E_CORRUPT, 2);                          /* missing thread */
    check_error("1 2", HATF_E_CORRUPT, 4);                        /* missing heap */
    check_error("1 2 3", HATF_E_CORRUPT, 6);                      /* missing op */
    check_error("1 2 3 allocate 1 0x1", HATF_E_CORRUPT, 7);       /* unknown op */
    check_error("18446744073709551616 1 0 free 0x1", HATF_E_CORRUPT, 20); /* 2^64 */
    check_error("1 1 0 alloc 12a 0x1", HATF_E_CORRUPT, 15);
    check_error("1 1 0 alloc 12", HATF_E_CORRUPT, 15);            /* missing address */
    check_error("1 1 0 free 16", HATF_E_CORRUPT, 12);             /* decimal address */
    check_error("1 1 0 free 0x", HATF_E_CORRUPT, 12);
    check_error("1 1 0 free 0x12g", HATF_E_CORRUPT, 16);
    check_error("1 1 0 free 0x10000000000000000", HATF_E_CORRUPT, 30); /* 17 digits */
    check_error("1 1 0 realloc-move 8 0x1 0x2", HATF_E_CORRUPT, 26);   /* no arrow */
    check_error("1 1 0 realloc-move 8 0x1 ->", HATF_E_CORRUPT, 28);    /* no new address */
    check_error("1 1 0 free 0x1 color=red", HATF_E_CORRUPT, 16);
    check_error("1 1 0 free 0x1 func", HATF_E_CORRUPT, 16);
    check_error("1 1 0 free 0x1 func=frobnicate", HATF_E_CORRUPT, 21);
    check_error("1 1 0 free 0x1 align=1x", HATF_E_CORRUPT, 23);
    check_error("1 1 0 free 0x1 func=free func=free", HATF_E_CORRUPT, 26);
    check_error("1 1 0 free 0x1 func=free attr=3", HATF_E_CORRUPT, 26);
    check_error("1 1 0 free 0x1 attr=3 func=free", HATF_E_CORRUPT, 23);
    check_error("1 1 0 free 0x1 attr=hex:abc", HATF_E_CORRUPT, 28);   /* odd digits */
    check_error("1 1 0 free 0x1 attr=hex:zz", HATF_E_CORRUPT, 25);
    check_error("1 1 0 free 0x1 attr=-1", HATF_E_CORRUPT, 21);
    check_error("0 0 0 comment", HATF_E_CORRUPT, 14);
    check_error("0 0 0 comment \"abc", HATF_E_CORRUPT, 19);
    check_error("0 0 0 comment \"a\\qb\"", HATF_E_CORRUPT, 17);
    check_error("0 0 0 comment \"a\\x4\"", HATF_E_CORRUPT, 17);
    check_error("0 0 0 comment \"a\"b", HATF_E_CORRUPT, 18);
    check_error("0 0 0 comment \"a\" b", HATF_E_CORRUPT, 19);
    check_error("0 0 0 comment \"a\x01\"", HATF_E_CORRUPT, 17);
    check_error("0 0 0 comment text", HATF_E_CORRUPT, 15);
    /* a line over the limit */
    static char longline[HATF_TEXT_LINE_MAX + 2];
    memset(longline, ' ', sizeof longline - 1);
    hatf_event ev;
    hatf_err err = { 0 };
    CU_ASSERT_EQUAL(hatf_text_parse(longline, HATF_TEXT_LINE_MAX + 1, 9, &ev, &scratch, &err), HATF_E_LIMIT);
    CU_ASSERT_EQUAL(err.offset, 9);
    /* attribute bytes longer than 65535 */
    static char hugeattr[32 + 2 * 65536 + 1];
    strcpy(hugeattr, "1 1 0 free 0x1 attr=hex:");
    memset(hugeattr + strlen(hugeattr), 'a', 2 * 65536);
    check_error(hugeattr, HATF_E_CORRUPT, 25);
}

static int setup(void)
{
    hatf_buf_init(&out);
    hatf_buf_init(&scratch);
    return 0;
}

static int cleanup(void)
{
    hatf_buf_free(&out);
    hatf_buf_free(&scratch);
    return 0;
}

static CU_TestInfo tests[] = {
    { "format every op", test_format_ops },
    { "format attributes", test_format_attrs },
    { "event attributes", test_event_attrs },
    { "format comments", test_format_comment },
    { "parse every op", test_parse_ops },
    { "round trip", test_round_trip_all },
    { "parse errors", test_parse_errors },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "text", .pInitFunc = setup, .pCleanupFunc = cleanup, .pTests = tests },
    CU_SUITE_INFO_NULL,
};
