/* bytes.h — byte-level helpers shared inside libhatf (not installed).
 * Big-endian loads/stores (HATF 1.0 is big-endian), LEB128 varints, zigzag. */
#ifndef HATF_BYTES_H
#define HATF_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"
#include "hatf_check.h"

static inline uint64_t hatf_load_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v = (v << 8) | p[i];
    return v;
}

static inline void hatf_store_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = n; i-- > 0;) { p[i] = (uint8_t)v; v >>= 8; }
}

static inline uint32_t hatf_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t hatf_load_le64(const uint8_t *p)
{
    return (uint64_t)hatf_load_le32(p) | (uint64_t)hatf_load_le32(p + 4) << 32;
}
static inline void hatf_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void hatf_store_le64(uint8_t *p, uint64_t v)
{
    hatf_store_le32(p, (uint32_t)v); hatf_store_le32(p + 4, (uint32_t)(v >> 32));
}

/* Sign-extend the low `bytes` bytes of v (two's complement of that width). */
static inline uint64_t hatf_sext(uint64_t v, unsigned bytes)
{
    if (bytes == 0 || bytes >= 8) return v;
    unsigned sh = 64 - 8 * bytes;
    return (uint64_t)((int64_t)(v << sh) >> sh);
}

static inline uint64_t hatf_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t hatf_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

#define HATF_VARINT_MAX 10
/* Write v as unsigned LEB128. @return bytes written (1..10). */
static inline size_t hatf_varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) { p[n++] = (uint8_t)(v | 0x80); v >>= 7; }
    p[n++] = (uint8_t)v;
    return n;
}

/* hatf_varint_put, the same bytes, for the recorder's hot loops: a value
 * under 2^56 is spread over 7-bit groups and written with one 8-byte store,
 * no loop (the bytes past the code are scratch). pre, not checked (p comes
 * without its end): HATF_VARINT_MAX bytes of room at p. @return bytes
 * written (1..10).
 *
 * The spread takes three doubling steps, each moving the upper group of every
 * field up by k bits, x + t * (2^k - 1) with t that group: 28|28 bits into
 * 32-bit halves (k = 4), 14|14 into 16-bit quarters (k = 2), 7|7 into bytes
 * (k = 1). The spread value's highest set byte is the code's last: the
 * index of its highest set bit / 8 (bsr and a shift, no division by 7) gives
 * the length, and the continuation bits below it from a table of 8 (a few
 * instructions fewer than shifting them into place, measured in the
 * recorder's write loop). With BMI2, pdep(v, 0x7f7f7f7f7f7f7f7f) spreads them
 * in one instruction (hatf_varint_put8_pdep), but the default build is
 * baseline x86-64 and pdep is microcoded (slow) on AMD before Zen 3: callers
 * choose at run time. */
static inline size_t hatf_varint_put8(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (v < (1ull << 56)) {
        static const uint64_t cont[8] = { 0, 0x80, 0x8080, 0x808080, 0x80808080, 0x8080808080ull,
                                          0x808080808080ull, 0x80808080808080ull };
        uint64_t x = v;
        x += (x & 0x00fffffff0000000ull) * 15;  /* bits 28..55 -> 32..59 */
        x += (x & 0x0fffc0000fffc000ull) * 3;   /* 14..27 -> 16..29, in each half */
        x += x & 0x3f803f803f803f80ull;         /* 7..13 -> 8..14, in each quarter */
        unsigned b = (63 ^ (unsigned)__builtin_clzll(x | 1)) / 8;  /* bsr: the last byte */
        x |= cont[b];  /* every byte but the last continues */
        memcpy(p, &x, 8);
        return b + 1;
    }
#endif
    return hatf_varint_put(p, v);
}

/* hatf_varint_put8 with pdep spreading the 7-bit groups (one instruction for
 * the three doubling steps): the same bytes. pre: the CPU has pdep (BMI2;
 * callers take it where it is fast too, hatf_adec_isa() == HATF_ADEC_BMI2);
 * elsewhere it is hatf_varint_put8. */
static inline size_t hatf_varint_put8_pdep(uint8_t *p, uint64_t v)
{
#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    HATF_PRE(hatf_cpu_bmi2());
    if (v < (1ull << 56)) {
        static const uint64_t cont[8] = { 0, 0x80, 0x8080, 0x808080, 0x80808080, 0x8080808080ull,
                                          0x808080808080ull, 0x80808080808080ull };
        uint64_t x;
        __asm__("pdep %2, %1, %0" : "=r"(x) : "r"(v), "r"(0x7f7f7f7f7f7f7f7full));
        unsigned b = (63 ^ (unsigned)__builtin_clzll(x | 1)) / 8;  /* bsr: the last byte */
        x |= cont[b];
        memcpy(p, &x, 8);
        return b + 1;
    }
#endif
    return hatf_varint_put8(p, v);
}

/* Read an unsigned LEB128 from p[0..len). @return bytes used, or 0 if it is
 * truncated or longer than 10 bytes / overflows 64 bits. */
static inline size_t hatf_varint_get(const uint8_t *p, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len && i < HATF_VARINT_MAX; i++) {
        uint64_t b = p[i] & 0x7f;
        if (i == 9 && b > 1) return 0;
        v |= b << (7 * i);
        if (!(p[i] & 0x80)) { *out = v; return i + 1; }
    }
    return 0;
}

/* hatf_varint_get at *pp..end, moving *pp past it; codes of one to three
 * bytes (nearly all in the container's streams) without a loop.
 * @return 0 when it is truncated or malformed (*pp then unchanged). */
static inline __attribute__((always_inline)) int hatf_varint_next(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (__builtin_expect(end - p >= 3, 1)) {
        uint64_t b0 = p[0], b1 = p[1], b2 = p[2];
        if (b0 < 0x80) { *v = b0; *pp = p + 1; return 1; }
        b0 &= 0x7f;
        if (b1 < 0x80) { *v = b0 | b1 << 7; *pp = p + 2; return 1; }
        if (b2 < 0x80) { *v = b0 | (b1 & 0x7f) << 7 | b2 << 14; *pp = p + 3; return 1; }
    }
    size_t n = hatf_varint_get(p, (size_t)(end - p), v);
    *pp = p + n;
    return n != 0;
}

#endif /* HATF_BYTES_H */
