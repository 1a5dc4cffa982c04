/* pbwire.c — the protocol buffers wire format; see pbwire.h. */
#include <string.h>

#include "pbwire.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

void pb_varint(hatf_buf *o, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    hatf_buf_append(o, b, n);
}

static void tag(hatf_buf *o, unsigned field, unsigned wire) { pb_varint(o, (uint64_t)field << 3 | wire); }

void pb_uint(hatf_buf *o, unsigned field, uint64_t v)
{
    tag(o, field, WIRE_VARINT);
    pb_varint(o, v);
}

void pb_int(hatf_buf *o, unsigned field, int64_t v) { pb_uint(o, field, (uint64_t)v); }

void pb_bytes(hatf_buf *o, unsigned field, const void *p, size_t n)
{
    tag(o, field, WIRE_LEN);
    pb_varint(o, n);
    hatf_buf_append(o, p, n);
}

void pb_string(hatf_buf *o, unsigned field, const char *s) { pb_bytes(o, field, s, strlen(s)); }

void pb_packed(hatf_buf *o, unsigned field, const uint64_t *v, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        do len++; while ((x >>= 7) != 0);
    }
    tag(o, field, WIRE_LEN);
    pb_varint(o, len);
    for (size_t i = 0; i < n; i++) pb_varint(o, v[i]);
}
