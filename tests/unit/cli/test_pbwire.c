/* test_pbwire.c — the protocol buffers wire writer (cli/pbwire.c) against the
 * encodings the format's documentation works through ("Encoding": a varint
 * field of 150, a string field, a packed repeated field), the limits of a
 * varint and a negative int64. */
#include <string.h>

#include "cunit_main.h"
#include "pbwire.h"

static int bytes_are(const hatf_buf *b, const uint8_t *want, size_t n)
{
    return !b->failed && b->len == n && memcmp(b->p, want, n) == 0;
}

static void test_varint_field(void)
{
    hatf_buf b;
    hatf_buf_init(&b);
    pb_uint(&b, 1, 150);
    static const uint8_t want[] = { 0x08, 0x96, 0x01 };
    CU_ASSERT(bytes_are(&b, want, sizeof want));
    hatf_buf_free(&b);
}

static void test_varint_limits(void)
{
    hatf_buf b;
    hatf_buf_init(&b);
    pb_varint(&b, 0);
    pb_varint(&b, 127);
    pb_varint(&b, 128);
    pb_varint(&b, UINT64_MAX);
    static const uint8_t want[] = { 0x00, 0x7f, 0x80, 0x01,
                                    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    CU_ASSERT(bytes_are(&b, want, sizeof want));
    hatf_buf_free(&b);
}

static void test_negative_int(void)
{
    hatf_buf b;
    hatf_buf_init(&b);
    pb_int(&b, 2, -2);
    static const uint8_t want[] = { 0x10, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    CU_ASSERT(bytes_are(&b, want, sizeof want));
    hatf_buf_free(&b);
}

static void test_string_and_nested(void)
{
    hatf_buf inner, b;
    hatf_buf_init(&inner);
    hatf_buf_init(&b);
    pb_string(&inner, 2, "testing");
    static const uint8_t want_inner[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
    CU_ASSERT(bytes_are(&inner, want_inner, sizeof want_inner));
    pb_bytes(&b, 3, inner.p, inner.len);  /* message Test3 { Test2 c = 3; } */
    static const uint8_t want[] = { 0x1a, 0x09, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
    CU_ASSERT(bytes_are(&b, want, sizeof want));
    hatf_buf_free(&inner);
    hatf_buf_free(&b);
}

static void test_packed(void)
{
    hatf_buf b;
    hatf_buf_init(&b);
    static const uint64_t v[] = { 3, 270, 86942 };
    pb_packed(&b, 4, v, 3);
    static const uint8_t want[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
    CU_ASSERT(bytes_are(&b, want, sizeof want));
    b.len = 0;
    pb_packed(&b, 1, NULL, 0);  /* empty: a zero length */
    static const uint8_t empty[] = { 0x0a, 0x00 };
    CU_ASSERT(bytes_are(&b, empty, sizeof empty));
    hatf_buf_free(&b);
}

static void test_big_field_number(void)
{
    hatf_buf b;
    hatf_buf_init(&b);
    pb_uint(&b, 16, 1);  /* the tag itself takes two bytes from field 16 on */
    static const uint8_t want[] = { 0x80, 0x01, 0x01 };
    CU_ASSERT(bytes_are(&b, want, sizeof want));
    hatf_buf_free(&b);
}

static CU_TestInfo tests[] = {
    { "varint field", test_varint_field },
    { "varint limits", test_varint_limits },
    { "negative int64", test_negative_int },
    { "string and nested message", test_string_and_nested },
    { "packed repeated", test_packed },
    { "field number past 15", test_big_field_number },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = { { .pName = "pbwire", .pTests = tests }, CU_SUITE_INFO_NULL };
