/* hatf1_decode.c — HATF 1.0 decoder (byte layout: docs/format-hatf1.md).
 *
 * A stream is a sequence of records, each opening with a one-byte tag:
 *
 *   tag 0..9   event:    tag | field | field | ...      (fields per tag: below)
 *   tag 10     comment:  0a | len (2 bytes BE) | len bytes of text
 *   tag 11     metadata: 0b | 01 | field | width                        fieldSize
 *                        0b | 02 | field | interp [| a3 (8 BE) [| a4 (8 BE)]]
 *
 * Every field is stored big-endian in the field's current width (0, 1, 2, 4
 * or 8 bytes; attributes may also be v1/v2: a 1- or 2-byte length, then that
 * many bytes) and decoded through the field's interpretation:
 *
 *   none        value = stored (unsigned)
 *   default     value = a3                    (stored bytes, if any, ignored)
 *   baseOffset  value = a3 + stored (signed)
 *   delta       value = previous + stored (signed); a3 is the first "previous"
 *   stride      value = previous + a4;          a3 is the first "previous"
 *
 * Example, under the defaults (size 4, address 4, the rest width 0):
 *   00 00000010 00001000   alloc size 16 at 0x1000
 *   01 00001000            free 0x1000
 *
 * Speed: when metadata changes, each field's width and interpretation are
 * folded into a reader kind (constant, unsigned, base + signed, previous +
 * signed, previous + constant) and constants, and each tag's fixed record
 * length is known. A record at least FAST_AVAIL bytes from the end of the
 * buffer is decoded with unaligned 8-byte big-endian loads and no bounds
 * checks; records nearer the end are copied to a zero-padded scratch first.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hatf.h"
#include "hatf1_internal.h"
#include "bytes.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Longest fixed part of a record: tag + 7 fields of 8 bytes. The fast path
 * loads 8 bytes at each field's offset (< FIXED_MAX), so it needs at most
 * FIXED_MAX + 7 readable bytes; FAST_AVAIL rounds that up. */
#define FIXED_MAX (1 + 7 * 8)
#define FAST_AVAIL 72

static const char *const field_name[HATF_F_COUNT_] = {
    "size", "address", "time", "thread", "heap", "attributes",
};

#define FAIL(d, code, at, ...) \
    fail_(d, hatf_err_set(&(d)->err, code, (d)->base_offset + (at), __VA_ARGS__))

static int fail_(hatf1_decoder *d, int code)
{
    d->err.record = d->records + d->metadata;
    return code;
}

static inline uint64_t load_be64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return __builtin_bswap64(x);
}

/* Fold field f's width and interpretation into a reader kind and constants. */
static inline void rebuild_field(hatf1_decoder *d, unsigned f)
{
    unsigned w = d->width[f];
    if (w > 8) {  /* v1/v2 attributes: read apart, the numeric reader is unused */
        d->attr_len_bytes = (uint8_t)(w - 8);
        d->kind[f] = HATF1_K_CONST;
        d->nbytes[f] = 0;
        d->add[f] = 0;
        return;
    }
    if (f == HATF_F_ATTR) d->attr_len_bytes = 0;
    d->nbytes[f] = (uint8_t)w;
    d->shift[f] = (uint8_t)((64 - 8 * w) & 63);
    /* two's complement of the width: (r ^ m) - m with m the width's sign bit */
    d->smask[f] = (w && w < 8) ? (uint64_t)1 << (8 * w - 1) : 0;
    d->add[f] = 0;
    switch (d->interp[f]) {
    case HATF_I_NONE:
        d->kind[f] = w ? HATF1_K_NONE : HATF1_K_CONST;
        break;
    case HATF_I_DEFAULT:     /* stored bytes, if any, are skipped */
        d->kind[f] = w ? HATF1_K_SKIP : HATF1_K_CONST;
        d->add[f] = d->arg[f];
        break;
    case HATF_I_BASEOFFSET:
        d->kind[f] = w ? HATF1_K_BASE : HATF1_K_CONST;
        d->add[f] = d->arg[f];
        break;
    case HATF_I_DELTA:       /* width 0: the previous value again */
        d->kind[f] = w ? HATF1_K_DELTA : HATF1_K_STEP;
        break;
    default:                 /* stride: previous + a4, stored bytes skipped */
        d->kind[f] = HATF1_K_STEP;  /* (width is 0 unless set after the stride) */
        d->add[f] = d->stride[f];
        break;
    }
}

static void rebuild_lengths(hatf1_decoder *d)
{
    const uint8_t *n = d->nbytes;
    unsigned common = n[HATF_F_THREAD] + n[HATF_F_HEAP] + n[HATF_F_TIME] + n[HATF_F_ATTR];
    d->rec_len[HATF_OP_ALLOC] = (uint8_t)(1 + n[HATF_F_SIZE] + n[HATF_F_ADDR] + common);
    d->rec_len[HATF_OP_FREE] = (uint8_t)(1 + n[HATF_F_ADDR] + common);
    for (unsigned t = 2; t <= 5; t++)
        d->rec_len[t] = (uint8_t)(1 + n[HATF_F_SIZE] + 2 * n[HATF_F_ADDR] + common);
    d->rec_len[6] = d->rec_len[7] = (uint8_t)(1 + common);
    d->rec_len[8] = d->rec_len[9] = (uint8_t)(1 + common - n[HATF_F_HEAP]);
}

HATF_API hatf1_decoder *hatf1_decoder_new(const uint8_t *buf, size_t len, uint64_t base_offset)
{
    hatf1_decoder *d = malloc(sizeof *d);
    if (d) hatf1_decoder_init(d, buf, len, base_offset);
    return d;
}

HATF_API void hatf1_decoder_free(hatf1_decoder *d) { free(d); }
HATF_API const hatf_err *hatf1_decoder_error(const hatf1_decoder *d) { return &d->err; }
HATF_API size_t hatf1_decoder_pos(const hatf1_decoder *d) { return d->pos; }
HATF_API uint64_t hatf1_decoder_records(const hatf1_decoder *d) { return d->records; }
HATF_API uint64_t hatf1_decoder_metadata(const hatf1_decoder *d) { return d->metadata; }

void hatf1_decoder_init(hatf1_decoder *d, const uint8_t *buf, size_t len, uint64_t base_offset)
{
    memset(d, 0, sizeof *d);
    d->buf = buf;
    d->len = buf ? len : 0;
    d->base_offset = base_offset;
    d->err.record = UINT64_MAX;
    /* Defaults before any metadata: size 4 none, address 4 none, the rest
     * width 0 default 0 (interp codes: none = 0, so only these need setting). */
    d->width[HATF_F_SIZE] = d->last_nonzero_width[HATF_F_SIZE] = 4;
    d->width[HATF_F_ADDR] = d->last_nonzero_width[HATF_F_ADDR] = 4;
    for (unsigned f = HATF_F_TIME; f < HATF_F_COUNT_; f++) d->interp[f] = HATF_I_DEFAULT;
    for (unsigned f = 0; f < HATF_F_COUNT_; f++) rebuild_field(d, f);
    rebuild_lengths(d);
}

/* One metadata record at d->pos (tag already seen). @return 0 or an error. */
static int read_metadata(hatf1_decoder *d)
{
    const uint8_t *p = d->buf + d->pos;
    size_t avail = d->len - d->pos;
    size_t at = d->pos;
    if (avail < 2) return FAIL(d, HATF_E_TRUNCATED, at, "hatf1: metadata record cut off at offset %llu", (unsigned long long)(d->base_offset + at));
    unsigned op = p[1];
    if (op != 1 && op != 2)
        return FAIL(d, HATF_E_CORRUPT, at, "hatf1: unknown metadata operation %u at offset %llu", op, (unsigned long long)(d->base_offset + at));
    if (avail < 3) return FAIL(d, HATF_E_TRUNCATED, at, "hatf1: metadata record cut off at offset %llu", (unsigned long long)(d->base_offset + at));
    unsigned f = p[2];
    if (f >= HATF_F_COUNT_)
        return FAIL(d, HATF_E_CORRUPT, at, "hatf1: unknown field code %u in metadata at offset %llu", f, (unsigned long long)(d->base_offset + at));
    if (avail < 4) return FAIL(d, HATF_E_TRUNCATED, at, "hatf1: metadata record cut off at offset %llu", (unsigned long long)(d->base_offset + at));
    unsigned code = p[3];
    if (op == 1) {
        if (code == HATF_W_V1 || code == HATF_W_V2) {
            if (f != HATF_F_ATTR)
                return FAIL(d, HATF_E_CORRUPT, at, "hatf1: width v%u on the %s field (attributes only) at offset %llu", code - 8, field_name[f], (unsigned long long)(d->base_offset + at));
        } else if (code > 10) {
            return FAIL(d, HATF_E_CORRUPT, at, "hatf1: unknown width code %u for %s at offset %llu", code, field_name[f], (unsigned long long)(d->base_offset + at));
        } else if (code != 0 && code != 1 && code != 2 && code != 4 && code != 8) {
            return FAIL(d, HATF_E_CORRUPT, at, "hatf1: width %u for %s is not 0, 1, 2, 4 or 8 bytes at offset %llu", code, field_name[f], (unsigned long long)(d->base_offset + at));
        }
        d->width[f] = (uint8_t)code;
        if (code) d->last_nonzero_width[f] = (uint8_t)code;
        d->pos += 4;
    } else {
        if (code > HATF_I_STRIDE)
            return FAIL(d, HATF_E_CORRUPT, at, "hatf1: unknown interpretation code %u for %s at offset %llu", code, field_name[f], (unsigned long long)(d->base_offset + at));
        size_t need = code == HATF_I_NONE ? 4 : code == HATF_I_STRIDE ? 20 : 12;
        if (avail < need) return FAIL(d, HATF_E_TRUNCATED, at, "hatf1: metadata record cut off at offset %llu", (unsigned long long)(d->base_offset + at));
        uint64_t a3 = need >= 12 ? hatf_load_be(p + 4, 8) : 0;
        uint64_t a4 = need >= 20 ? hatf_load_be(p + 12, 8) : 0;
        d->interp[f] = (uint8_t)code;
        switch (code) {
        case HATF_I_NONE:
            d->width[f] = d->last_nonzero_width[f];
            break;
        case HATF_I_DEFAULT:
            d->arg[f] = a3; d->width[f] = 0;
            break;
        case HATF_I_BASEOFFSET:
            d->arg[f] = a3; d->width[f] = d->last_nonzero_width[f];
            break;
        case HATF_I_DELTA:
            d->arg[f] = a3; d->prev[f] = a3; d->width[f] = d->last_nonzero_width[f];
            break;
        default:
            d->arg[f] = a3; d->prev[f] = a3; d->stride[f] = a4; d->width[f] = 0;
            break;
        }
        d->pos += need;
    }
    d->metadata++;
    rebuild_field(d, f);
    return 0;
}

/* The reader of one numeric field at p + *off. m is ~0 when the record has
 * the field and 0 when it does not (alloc, free and realloc share one path,
 * so that a mix of them costs no mispredicted branches): an absent field
 * takes no bytes, reads as 0 and leaves "previous" alone. The branches are on
 * a kind that only metadata changes, so each call site predicts them;
 * HATF1_K_CONST means no stored bytes. */
static inline __attribute__((always_inline)) uint64_t
rd(hatf1_decoder *restrict d, const uint8_t *restrict p, unsigned *restrict off, unsigned f, uint64_t m)
{
    unsigned k = d->kind[f];
    uint64_t v, r, sm;
    if (LIKELY(k == HATF1_K_CONST))  /* the most common kind: no bytes */
        return d->add[f] & m;
    if (k == HATF1_K_NONE) {
        v = load_be64(p + *off) >> d->shift[f];
    } else if (k == HATF1_K_DELTA) {
        r = load_be64(p + *off) >> d->shift[f];
        sm = d->smask[f];
        v = d->prev[f] + ((r ^ sm) - sm);
        d->prev[f] = m ? v : d->prev[f];
    } else if (k == HATF1_K_BASE) {
        r = load_be64(p + *off) >> d->shift[f];
        sm = d->smask[f];
        v = d->add[f] + ((r ^ sm) - sm);
    } else if (k == HATF1_K_STEP) {
        v = d->prev[f] + d->add[f];
        d->prev[f] = m ? v : d->prev[f];
    } else {  /* HATF1_K_SKIP: a default with stored bytes to skip */
        v = d->add[f];
    }
    *off += d->nbytes[f] & (unsigned)m;
    return v & m;
}

/* Fixed part of event record `tag` at p (at least FAST_AVAIL readable bytes).
 * @return its length. */
static inline __attribute__((always_inline)) unsigned
read_fields(hatf1_decoder *restrict d, const uint8_t *restrict p, unsigned tag, hatf_event *restrict ev)
{
    unsigned off = 1;
    uint64_t size = 0, addr = 0, naddr = 0, thread, heap = 0;
    const uint64_t all = ~(uint64_t)0;
    if (LIKELY(tag <= HATF_OP_REALLOC_FREE)) {
        uint64_t has_size = (uint64_t)0 - (tag != HATF_OP_FREE);
        uint64_t has_new = (uint64_t)0 - (tag >= HATF_OP_REALLOC_INPLACE);
        /* hide the masks' origin, or the compiler splits the path per tag again */
        __asm__("" : "+r"(has_size), "+r"(has_new));
        size = rd(d, p, &off, HATF_F_SIZE, has_size);
        addr = rd(d, p, &off, HATF_F_ADDR, all);
        naddr = rd(d, p, &off, HATF_F_ADDR, has_new);
        thread = rd(d, p, &off, HATF_F_THREAD, all);
        heap = rd(d, p, &off, HATF_F_HEAP, all);
    } else if (tag <= HATF_OP_HEAP_DESTROY) {
        heap = rd(d, p, &off, HATF_F_HEAP, all);
        thread = rd(d, p, &off, HATF_F_THREAD, all);
    } else {
        thread = rd(d, p, &off, HATF_F_THREAD, all);
    }
    ev->op = (uint8_t)tag;
    ev->size = size;
    ev->addr = addr;
    ev->new_addr = naddr;
    ev->thread = thread;
    ev->heap = heap;
    ev->time = rd(d, p, &off, HATF_F_TIME, all);
    ev->attr = rd(d, p, &off, HATF_F_ATTR, all);  /* 0 under v1/v2 */
    return off;
}

static __attribute__((noinline, cold)) int attr_cut(hatf1_decoder *d, size_t rec, unsigned op, int in_len, size_t n)
{
    if (in_len)
        return FAIL(d, HATF_E_TRUNCATED, rec, "hatf1: %s record cut off in its attribute length at offset %llu", hatf_op_name(op), (unsigned long long)(d->base_offset + rec));
    return FAIL(d, HATF_E_TRUNCATED, rec, "hatf1: %s record cut off in its %zu attribute bytes at offset %llu", hatf_op_name(op), n, (unsigned long long)(d->base_offset + rec));
}

/* A byte-string attribute (v1/v2) at d->pos; rec is the record's start. */
static inline __attribute__((always_inline)) int read_attr_bytes(hatf1_decoder *restrict d, size_t rec, hatf_event *restrict ev)
{
    size_t avail = d->len - d->pos, lb = d->attr_len_bytes;
    const uint8_t *p = d->buf + d->pos;
    if (UNLIKELY(avail < lb)) return attr_cut(d, rec, ev->op, 1, 0);
    size_t n = lb == 1 ? p[0] : (size_t)p[0] << 8 | p[1];
    if (UNLIKELY(avail - lb < n)) return attr_cut(d, rec, ev->op, 0, n);
    ev->attr_is_bytes = 1;
    ev->data = p + lb;
    ev->data_len = (uint16_t)n;
    d->pos += lb + n;
    return 0;
}

static int read_comment(hatf1_decoder *d, hatf_event *ev)
{
    size_t at = d->pos, avail = d->len - d->pos;
    const uint8_t *p = d->buf + at;
    if (avail < 3)
        return FAIL(d, HATF_E_TRUNCATED, at, "hatf1: comment cut off in its length at offset %llu", (unsigned long long)(d->base_offset + at));
    size_t n = (size_t)p[1] << 8 | p[2];
    if (avail - 3 < n)
        return FAIL(d, HATF_E_TRUNCATED, at, "hatf1: comment of %zu bytes cut off at offset %llu", n, (unsigned long long)(d->base_offset + at));
    memset(ev, 0, sizeof *ev);
    ev->op = HATF_OP_COMMENT;
    ev->data = p + 3;
    ev->data_len = (uint16_t)n;
    d->pos += 3 + n;
    d->last_record_offset = d->base_offset + at;
    d->records++;
    return 1;
}

/* Finish an event record whose fixed part was read from p (the buffer or the
 * scratch copy): byte-string attributes, counters. */
static inline __attribute__((always_inline)) int
finish_event(hatf1_decoder *restrict d, size_t at, unsigned used, hatf_event *restrict ev)
{
    d->pos += used;
    ev->attr_is_bytes = 0;
    ev->data = NULL;
    ev->data_len = 0;
    ev->release_lead = 0;
    if (UNLIKELY(d->attr_len_bytes)) {
        int rc = read_attr_bytes(d, at, ev);
        if (rc) return rc;
    }
    d->last_record_offset = d->base_offset + at;
    d->records++;
    return 1;
}

/* Everything but an event record far from the end: metadata, comments,
 * records near the end of the buffer, errors. Kept out of line so that the
 * fast path has a small frame. */
static __attribute__((noinline)) int decode_slow(hatf1_decoder *d, hatf_event *ev)
{
    if (d->err.code) return d->err.code;
    for (;;) {
        size_t avail = d->len - d->pos, at = d->pos;
        if (avail == 0) return 0;
        const uint8_t *p = d->buf + at;
        unsigned tag = p[0];
        if (tag < HATF_OP_COMMENT) {
            if (avail >= FAST_AVAIL) return finish_event(d, at, read_fields(d, p, tag, ev), ev);
            rebuild_lengths(d);  /* only needed here, near the end: not kept up to date */
            if (avail < d->rec_len[tag])
                return FAIL(d, HATF_E_TRUNCATED, at, "hatf1: %s record needs %u bytes, %zu left, at offset %llu", hatf_op_name(tag), d->rec_len[tag], avail, (unsigned long long)(d->base_offset + at));
            uint8_t tmp[FAST_AVAIL];
            memset(tmp, 0, sizeof tmp);
            memcpy(tmp, p, avail);
            return finish_event(d, at, read_fields(d, tmp, tag, ev), ev);
        }
        if (tag == HATF_OP_COMMENT) return read_comment(d, ev);
        if (tag != HATF_TAG_METADATA)
            return FAIL(d, HATF_E_CORRUPT, at, "hatf1: unknown record tag %u at offset %llu", tag, (unsigned long long)(d->base_offset + at));
        int rc = read_metadata(d);
        if (rc) return rc;
    }
}

static inline __attribute__((always_inline)) int decode_one(hatf1_decoder *restrict d, hatf_event *restrict ev)
{
    if (LIKELY(d->len - d->pos >= FAST_AVAIL && !d->err.code)) {
        const uint8_t *p = d->buf + d->pos;
        unsigned tag = p[0];
        if (LIKELY(tag < HATF_OP_COMMENT)) return finish_event(d, d->pos, read_fields(d, p, tag, ev), ev);
    }
    return decode_slow(d, ev);
}

HATF_API int hatf1_decode(hatf1_decoder *d, hatf_event *ev)
{
    return decode_one(d, ev);
}

/* The field state the container writer keeps (HATF best with split
 * addresses): address 0, thread, heap and numeric attributes constant, size
 * stored unsigned or constant, time a delta or a step. Under it an alloc,
 * free or realloc reads without a branch on field kinds (fast_run): every
 * constant field comes from a template event, and each of size and time is
 * one masked load, shift and add:
 *   size = s_add + ((be64 & s_hmask) >> s_shift)             (unsigned)
 *   time = prev + t_add + ((int64)(be64 & t_hmask) >> t_shift) (signed)
 * where hmask keeps the field's stored bytes (none: 0, and then the shift is
 * 0 too) and s_add / t_add hold a constant or a stride. */
typedef struct fast_state {
    hatf_event tmpl;
    uint64_t s_add, s_hmask, t_add, t_hmask;
    unsigned s_shift, s_nb, t_shift, t_nb;
} fast_state;

/* The top 8 * w bits of a 64-bit load. */
static inline uint64_t top_mask(unsigned w)
{
    return w ? ~(uint64_t)0 << ((64 - 8 * w) & 63) : 0;
}

static inline int fast_size(const hatf1_decoder *d, fast_state *f)
{
    unsigned k = d->kind[HATF_F_SIZE];
    if (k != HATF1_K_NONE && k != HATF1_K_CONST) return 0;
    f->s_nb = d->nbytes[HATF_F_SIZE];  /* 0 when constant */
    f->s_hmask = top_mask(f->s_nb);
    f->s_shift = d->shift[HATF_F_SIZE];
    f->s_add = d->add[HATF_F_SIZE];
    return 1;
}

static inline int fast_time(const hatf1_decoder *d, fast_state *f)
{
    unsigned k = d->kind[HATF_F_TIME];
    if (k != HATF1_K_DELTA && k != HATF1_K_STEP) return 0;
    /* a step skips its stored bytes, if any (a width set after a stride) */
    f->t_nb = d->nbytes[HATF_F_TIME];
    f->t_hmask = k == HATF1_K_DELTA ? top_mask(f->t_nb) : 0;
    f->t_shift = k == HATF1_K_DELTA ? d->shift[HATF_F_TIME] : 0;
    f->t_add = k == HATF1_K_STEP ? d->add[HATF_F_TIME] : 0;
    return 1;
}

static inline int fast_state_get(const hatf1_decoder *d, fast_state *f)
{
    const uint8_t *k = d->kind;
    if (k[HATF_F_ADDR] != HATF1_K_CONST || d->add[HATF_F_ADDR] != 0 || k[HATF_F_THREAD] != HATF1_K_CONST ||
        k[HATF_F_HEAP] != HATF1_K_CONST || k[HATF_F_ATTR] != HATF1_K_CONST)
        return 0;
    if (!fast_size(d, f) || !fast_time(d, f)) return 0;
    memset(&f->tmpl, 0, sizeof f->tmpl);
    f->tmpl.thread = d->add[HATF_F_THREAD];
    f->tmpl.heap = d->add[HATF_F_HEAP];
    f->tmpl.attr = d->add[HATF_F_ATTR];  /* 0 under v1/v2 */
    return 1;
}

/* The fast state after a metadata record on field f. @return whether it holds. */
static int fast_refresh(const hatf1_decoder *d, fast_state *fs, unsigned f, int fast)
{
    if (fast && f == HATF_F_SIZE) return fast_size(d, fs);
    if (fast && f == HATF_F_TIME) return fast_time(d, fs);
    if (fast && f == HATF_F_ATTR && d->kind[HATF_F_ATTR] == HATF1_K_CONST) {
        fs->tmpl.attr = d->add[HATF_F_ATTR];  /* 0 under v1/v2 */
        return 1;
    }
    return fast_state_get(d, fs);
}

/* Two adjacent 64-bit fields of an event, stored at once. */
typedef uint64_t u64x2 __attribute__((vector_size(16)));
_Static_assert(offsetof(hatf_event, new_addr) == offsetof(hatf_event, addr) + 8 &&
               offsetof(hatf_event, heap) == offsetof(hatf_event, thread) + 8 &&
               offsetof(hatf_event, data) == offsetof(hatf_event, attr) + 8 &&
               offsetof(hatf_event, size) == 8, "hatf_event layout");

/* An event of fast_run: op, size and time, the rest as in its template
 * (addresses 0, thread and heap, attr, data NULL) held in vector registers
 * rather than copied from memory for every event. */
static inline __attribute__((always_inline)) void
put_event(hatf_event *ev, unsigned tag, uint64_t size, uint64_t time, u64x2 zero2, u64x2 th_heap, u64x2 attr_data)
{
    /* op, attr_is_bytes 0, data_len 0 (and the padding) */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint64_t w0 = (uint64_t)tag << 56;
#else
    uint64_t w0 = tag;
#endif
    char *p = (char *)ev;
    memcpy(p, &w0, 8);
    ev->size = size;
    memcpy(p + offsetof(hatf_event, addr), &zero2, 16);
    memcpy(p + offsetof(hatf_event, thread), &th_heap, 16);
    ev->time = time;
    memcpy(p + offsetof(hatf_event, attr), &attr_data, 16);
    ev->release_lead = 0;  /* a container's release section sets it */
}

/* The attribute bytes of a record at buf[*end] (lb length bytes) into ev.
 * @return 1, or 0 when they are cut off: the record is then left to
 * decode_one, which reports it (the stream is failed, so reading the fields
 * again is harmless). */
static inline __attribute__((always_inline)) int
take_attr(const uint8_t *buf, size_t len, size_t *end, size_t lb, hatf_event *ev)
{
    size_t at = *end;
    if (len - at < lb) return 0;
    const uint8_t *q = buf + at;
    size_t k = lb == 1 ? q[0] : (size_t)q[0] << 8 | q[1];
    if (len - at - lb < k) return 0;
    ev->attr_is_bytes = 1;
    ev->data = q + lb;
    ev->data_len = (uint16_t)k;
    *end = at + lb + k;
    return 1;
}

/* Alloc, free and realloc records at buf[*ppos] on, each at most lim, into
 * e[0..max) under the fast state, with lb attribute length bytes (a constant
 * at each call, so each copy keeps one). Stops at anything else, or before a
 * record cut off in its attribute bytes. @return events stored; *ppos and
 * *last (the last one's offset) moved. */
static inline __attribute__((always_inline)) size_t
fast_run(const uint8_t *restrict buf, size_t *ppos, size_t *last, size_t lim, size_t len,
         hatf_event *restrict e, size_t max, const fast_state *restrict fs, uint64_t *tp, const unsigned lb)
{
    size_t pos = *ppos, at = *last, n = 0;
    uint64_t tprev = *tp;
    const uint64_t s_add = fs->s_add, s_hmask = fs->s_hmask, t_add = fs->t_add, t_hmask = fs->t_hmask;
    const unsigned s_shift = fs->s_shift, s_nb = fs->s_nb, t_shift = fs->t_shift, t_nb = fs->t_nb;
    const u64x2 zero2 = { 0, 0 }, th_heap = { fs->tmpl.thread, fs->tmpl.heap }, attr_data = { fs->tmpl.attr, 0 };
    if (!lb) {
        /* records of at most 1 + s_nb + t_nb bytes: this many start by lim */
        size_t fit = (lim - pos) / (1 + s_nb + t_nb) + 1;
        if (pos > lim) fit = 0;
        if (fit < max) max = fit;
    }
    while (n < max && (!lb || pos <= lim)) {
        const uint8_t *p = buf + pos;
        unsigned tag = p[0];
        if (UNLIKELY(tag > HATF_OP_REALLOC_FREE)) break;
        uint64_t has_size = (uint64_t)0 - (tag != HATF_OP_FREE);
        uint64_t size = (s_add + ((load_be64(p + 1) & s_hmask) >> s_shift)) & has_size;
        unsigned off = 1 + (s_nb & (unsigned)has_size);
        tprev += t_add + (uint64_t)((int64_t)(load_be64(p + off) & t_hmask) >> t_shift);
        size_t end = pos + off + t_nb;
        hatf_event *ev = &e[n];
        put_event(ev, tag, size, tprev, zero2, th_heap, attr_data);
        if (lb && UNLIKELY(!take_attr(buf, len, &end, lb, ev))) break;
        at = pos;
        pos = end;
        n++;
    }
    *ppos = pos;
    *last = at;
    *tp = tprev;
    return n;
}

static __attribute__((noinline)) size_t
fast_run0(const uint8_t *b, size_t *pp, size_t *l, size_t lim, size_t len, hatf_event *e, size_t max, const fast_state *fs, uint64_t *tp)
{
    return fast_run(b, pp, l, lim, len, e, max, fs, tp, 0);
}

static __attribute__((noinline)) size_t
fast_run1(const uint8_t *b, size_t *pp, size_t *l, size_t lim, size_t len, hatf_event *e, size_t max, const fast_state *fs, uint64_t *tp)
{
    return fast_run(b, pp, l, lim, len, e, max, fs, tp, 1);
}

static __attribute__((noinline)) size_t
fast_run2(const uint8_t *b, size_t *pp, size_t *l, size_t lim, size_t len, hatf_event *e, size_t max, const fast_state *fs, uint64_t *tp)
{
    return fast_run(b, pp, l, lim, len, e, max, fs, tp, 2);
}

/* Event and metadata records at least FAST_AVAIL bytes from the end, none
 * cut off in its attribute bytes, into ev[0..max): the hot loop of
 * hatf1_decode_many, runs of alloc, free and realloc records under the fast
 * state going through fast_run. Stops before anything else (a comment, the
 * end, an error), which decode_one then reads. @return events stored. */
static inline __attribute__((always_inline)) size_t
decode_run(hatf1_decoder *restrict d, hatf_event *restrict ev, size_t max)
{
    const uint8_t *buf = d->buf;
    size_t pos = d->pos, last = pos, n = 0;
    if (d->err.code || d->len - pos < FAST_AVAIL) return 0;
    const size_t lim = d->len - FAST_AVAIL, len = d->len;
    size_t lb = d->attr_len_bytes, counted = 0;
    fast_state fs;
    int fast = fast_state_get(d, &fs);
    uint64_t tprev = d->prev[HATF_F_TIME];
    while (n < max && pos <= lim) {
        unsigned tag = buf[pos];
        if (UNLIKELY(tag >= HATF_OP_COMMENT)) {
            /* metadata (the writer changes a width about one record in ten,
             * on some traces the attributes' interpretation too) is read
             * here; a comment is left to decode_slow */
            if (tag != HATF_TAG_METADATA) break;
            const uint8_t *p = buf + pos;
            unsigned f = p[2], w = p[3];
            if (p[1] == 1 && f < HATF_F_ATTR && w <= 8 && ((0x117u >> w) & 1)) {
                d->width[f] = (uint8_t)w;  /* a valid fieldSize of a numeric field */
                if (w) d->last_nonzero_width[f] = (uint8_t)w;
                d->metadata++;
                rebuild_field(d, f);
                pos += 4;
            } else {
                /* errors count the events before them */
                d->records += n - counted;
                counted = n;
                d->pos = pos;
                d->prev[HATF_F_TIME] = tprev;
                int rc = read_metadata(d);
                tprev = d->prev[HATF_F_TIME];
                if (rc) break;
                pos = d->pos;
                lb = d->attr_len_bytes;
            }
            fast = fast_refresh(d, &fs, f, fast);
            continue;
        }
        if (LIKELY(fast && tag <= HATF_OP_REALLOC_FREE)) {
            size_t k = lb == 0 ? fast_run0(buf, &pos, &last, lim, len, ev + n, max - n, &fs, &tprev)
                     : lb == 1 ? fast_run1(buf, &pos, &last, lim, len, ev + n, max - n, &fs, &tprev)
                     : fast_run2(buf, &pos, &last, lim, len, ev + n, max - n, &fs, &tprev);
            n += k;
            if (k) continue;
            break;  /* a cut-off attribute */
        }
        hatf_event *e = &ev[n];
        size_t at = pos;
        d->prev[HATF_F_TIME] = tprev;
        size_t end = at + read_fields(d, buf + at, tag, e);
        tprev = d->prev[HATF_F_TIME];
        e->attr_is_bytes = 0;
        e->data = NULL;
        e->data_len = 0;
        e->release_lead = 0;
        if (UNLIKELY(lb) && !take_attr(buf, len, &end, lb, e)) break;
        last = at;
        pos = end;
        n++;
    }
    d->prev[HATF_F_TIME] = tprev;
    d->pos = pos;  /* metadata may have been read even when no event was */
    if (n) {
        d->records += n - counted;
        d->last_record_offset = d->base_offset + last;
    }
    return n;
}

HATF_API int hatf1_decode_many(hatf1_decoder *restrict d, hatf_event *restrict ev, size_t max)
{
    if (max > INT_MAX) max = INT_MAX;
    size_t n = 0;
    int rc = 0;
    while (n < max) {
        n += decode_run(d, ev + n, max - n);
        if (n == max || (rc = decode_slow(d, &ev[n])) != 1) break;
        n++;
    }
    return n ? (int)n : rc;
}
