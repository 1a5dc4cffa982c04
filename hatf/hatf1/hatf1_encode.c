/* hatf1_encode.c — HATF 1.0 encoder (byte layout: docs/format-hatf1.md).
 *
 * The encoder keeps a copy of the state a decoder will have (width,
 * interpretation, arguments and "previous" value per field) and, before each
 * record, emits whatever metadata that record needs. Two policies:
 *
 *   PLAIN  fixed widths set once before the first event: size 8, address 8,
 *          time 8, thread 4, heap 4, all interpretation none; attributes v2
 *          if the first event carries attribute bytes, 8 if it carries a
 *          number, else left absent (default 0). A later event that does not
 *          fit (a 64-bit thread id, attributes of another kind) switches that
 *          field to none and widens it, once.
 *   BEST   size: none, narrowest width. Address and time: delta, narrowest
 *          signed width. Thread, heap and numeric attributes: default while
 *          the value does not change, none with the narrowest width while it
 *          changes often. Attribute bytes: v1, or v2 when longer than 255.
 *          Widening happens at once; narrowing only after NARROW_RUN values
 *          in a row fit, and a value becomes a default only after STABLE_RUN
 *          unchanged uses, so that a field cannot thrash (at most one pair of
 *          4-byte width records per NARROW_RUN uses of a field).
 *          A stream of its own (not the container's records, split_addr) also
 *          takes what the paper measured: the size as a default while runs of
 *          one size last (as thread and heap), and address and time under
 *          stride (no bytes) after STRIDE_RUN equal non-zero differences in a
 *          row, until one differs (then delta again).
 *
 * enc->split_addr writes addresses with width 0 under none: no bytes at all.
 * The container's records (split_addr, hatf1_encode_batch_) keep the plain
 * BEST policy: their bytes and the recorder's cost stay as they were.
 */
#include <stdlib.h>
#include <string.h>

#include "hatf.h"
#include "hatf1_internal.h"
#include "bytes.h"
#include "container/container_plain.h"

#define NARROW_RUN 16
#define STABLE_RUN 16
#define STRIDE_RUN 16

static const uint8_t plain_width[HATF_F_COUNT_] = { 8, 8, 8, 4, 4, 8 };

#define INLINE static inline __attribute__((always_inline))

/* Width code for a number of significant bytes. */
static const uint8_t width_for_bytes[9] = { 0, 1, 2, 4, 4, 8, 8, 8, 8 };

/* Narrowest width holding v unsigned. */
INLINE unsigned uwidth(uint64_t v)
{
    return v ? width_for_bytes[(71 - __builtin_clzll(v)) / 8] : 0;
}

/* Narrowest width holding d as a two's complement number. */
INLINE unsigned swidth(uint64_t d)
{
    if (!d) return 0;
    uint64_t mag = d ^ (uint64_t)((int64_t)d >> 63);  /* bits below the sign */
    return width_for_bytes[(72 - __builtin_clzll(mag | 1)) / 8];
}

static int valid_width(unsigned f, unsigned w)
{
    if (w == HATF_W_V1 || w == HATF_W_V2) return f == HATF_F_ATTR;
    return w == 0 || w == 1 || w == 2 || w == 4 || w == 8;
}

/* ---- metadata, applied to our copy of the decoder's state ------------- */

static void reset_runs(hatf1_encoder *e, unsigned f)
{
    e->run_len[f] = 0;
    e->run_max[f] = 0;
}

static int emit_width(hatf1_encoder *e, unsigned f, unsigned w)
{
    uint8_t b[4] = { HATF_TAG_METADATA, 1, (uint8_t)f, (uint8_t)w };
    hatf_buf_append(e->out, b, sizeof b);
    if (e->out->failed) return HATF_E_NOMEM;
    e->width[f] = (uint8_t)w;
    if (w) e->last_nonzero_width[f] = (uint8_t)w;
    e->metadata++;
    reset_runs(e, f);
    return 0;
}

static int emit_interp(hatf1_encoder *e, unsigned f, unsigned i, uint64_t a3, uint64_t a4)
{
    uint8_t b[20] = { HATF_TAG_METADATA, 2, (uint8_t)f, (uint8_t)i };
    size_t n = 4;
    if (i != HATF_I_NONE) { hatf_store_be(b + 4, a3, 8); n = 12; }
    if (i == HATF_I_STRIDE) { hatf_store_be(b + 12, a4, 8); n = 20; }
    hatf_buf_append(e->out, b, n);
    if (e->out->failed) return HATF_E_NOMEM;
    e->interp[f] = (uint8_t)i;
    if (i != HATF_I_NONE) e->arg[f] = a3;
    if (i == HATF_I_STRIDE) e->stride[f] = a4;
    if (i == HATF_I_DELTA || i == HATF_I_STRIDE) e->prev[f] = a3;
    e->width[f] = (i == HATF_I_DEFAULT || i == HATF_I_STRIDE) ? 0 : e->last_nonzero_width[f];
    e->chosen[f] = 0;
    e->metadata++;
    reset_runs(e, f);
    return 0;
}

HATF_API hatf1_encoder *hatf1_encoder_new(hatf_buf *out, hatf1_mode mode)
{
    hatf1_encoder *e = malloc(sizeof *e);
    if (e) hatf1_encoder_init(e, out, mode);
    return e;
}

HATF_API void hatf1_encoder_free(hatf1_encoder *e) { free(e); }
HATF_API uint64_t hatf1_encoder_records(const hatf1_encoder *e) { return e->records; }
HATF_API uint64_t hatf1_encoder_metadata(const hatf1_encoder *e) { return e->metadata; }

void hatf1_encoder_init(hatf1_encoder *e, hatf_buf *out, hatf1_mode mode)
{
    memset(e, 0, sizeof *e);
    e->out = out;
    e->mode = mode;
    e->width[HATF_F_SIZE] = e->last_nonzero_width[HATF_F_SIZE] = 4;
    e->width[HATF_F_ADDR] = e->last_nonzero_width[HATF_F_ADDR] = 4;
    for (unsigned f = HATF_F_TIME; f < HATF_F_COUNT_; f++) e->interp[f] = HATF_I_DEFAULT;
    for (unsigned f = 0; f < HATF_F_COUNT_; f++) e->stable[f] = STABLE_RUN;
}

HATF_API int hatf1_set_width(hatf1_encoder *e, unsigned field, unsigned width)
{
    if (field >= HATF_F_COUNT_ || !valid_width(field, width)) return HATF_E_USAGE;
    e->started = 1;
    return emit_width(e, field, width);
}

HATF_API int hatf1_set_interp(hatf1_encoder *e, unsigned field, unsigned interp,
                              uint64_t a3, uint64_t a4)
{
    if (field >= HATF_F_COUNT_ || interp > HATF_I_STRIDE) return HATF_E_USAGE;
    e->started = 1;
    return emit_interp(e, field, interp, a3, a4);
}

/* ---- can the current state carry these values? ------------------------ */

/* Width the n values of field f (in record order) need under the current
 * interpretation, or -1 if no width can carry them (a default or stride that
 * does not match, or a byte-string width). */
INLINE int need_width(const hatf1_encoder *e, unsigned f, const uint64_t *v, int n)
{
    if (e->width[f] > 8) return -1;
    uint64_t p = e->prev[f];
    unsigned w = 0, x = 0;
    for (int i = 0; i < n; i++) {
        switch (e->interp[f]) {
        case HATF_I_NONE: x = uwidth(v[i]); break;
        case HATF_I_DEFAULT: if (v[i] != e->arg[f]) return -1; x = 0; break;
        case HATF_I_BASEOFFSET: x = swidth(v[i] - e->arg[f]); break;
        case HATF_I_DELTA: x = swidth(v[i] - p); break;
        default: if (v[i] != p + e->stride[f]) return -1; x = 0; break;
        }
        if (x > w) w = x;
        p = v[i];
    }
    return (int)w;
}

static unsigned max_uwidth(const uint64_t *v, int n)
{
    unsigned w = 0;
    for (int i = 0; i < n; i++) if (uwidth(v[i]) > w) w = uwidth(v[i]);
    return w;
}

/* ---- PLAIN ------------------------------------------------------------- */

static int plain_start(hatf1_encoder *e, const hatf_event *ev)
{
    int rc = 0;
    for (unsigned f = 0; f < HATF_F_COUNT_ && !rc; f++) {
        unsigned w = plain_width[f];
        if (f == HATF_F_ADDR && e->split_addr) w = 0;
        if (f == HATF_F_ATTR && ev->attr_is_bytes) w = HATF_W_V2;
        else if (f == HATF_F_ATTR && ev->attr == 0) continue;  /* absent: keep default 0 */
        if (e->interp[f] != HATF_I_NONE) rc = emit_interp(e, f, HATF_I_NONE, 0, 0);
        if (!rc && e->width[f] != w) rc = emit_width(e, f, w);
    }
    return rc;
}

static int plain_numeric(hatf1_encoder *e, unsigned f, const uint64_t *v, int n)
{
    int need = need_width(e, f, v, n);
    if (need >= 0 && need <= e->width[f]) return 0;
    int rc = 0;
    if (e->interp[f] != HATF_I_NONE && (rc = emit_interp(e, f, HATF_I_NONE, 0, 0))) return rc;
    unsigned w = max_uwidth(v, n);
    if (w < plain_width[f]) w = plain_width[f];
    if (e->width[f] > 8 || e->width[f] < w) rc = emit_width(e, f, w);
    return rc;
}

/* ---- BEST -------------------------------------------------------------- */

/* Widen at once; narrow when NARROW_RUN values in a row fit a narrower width. */
INLINE int adapt_width(hatf1_encoder *e, unsigned f, unsigned need)
{
    unsigned w = e->width[f];
    /* the first value after a change of interpretation picks the width, unless
     * it needs none (a delta's first value usually does: no information) */
    if (w > 8 || need > w || (!e->chosen[f] && need && need < w)) {
        e->chosen[f] = 1;
        return emit_width(e, f, need);
    }
    if (need > e->run_max[f]) e->run_max[f] = (uint8_t)need;
    if (++e->run_len[f] >= NARROW_RUN) {
        unsigned m = e->run_max[f];
        reset_runs(e, f);
        if (m < w) return emit_width(e, f, m);
    }
    return 0;
}

/* Size: none, narrowest width. Address and time: delta, narrowest width. */
INLINE int best_adaptive(hatf1_encoder *e, unsigned f, unsigned interp, const uint64_t *v, int n)
{
    int rc;
    if (e->interp[f] != interp &&
        (rc = emit_interp(e, f, interp, interp == HATF_I_DELTA ? v[0] : 0, 0)))
        return rc;
    return adapt_width(e, f, (unsigned)need_width(e, f, v, n));
}

/* Address and time in a stream of its own: delta, or stride while the
 * differences repeat (entered after STRIDE_RUN equal non-zero ones in a row:
 * its 20-byte record pays for itself within a run of that length). */
INLINE int best_moving(hatf1_encoder *e, unsigned f, const uint64_t *v, int n)
{
    if (e->interp[f] == HATF_I_STRIDE) {
        if (need_width(e, f, v, n) == 0) return 0;
        e->same_delta[f] = 0;  /* the run ended: best_adaptive goes back to delta */
        e->last_delta[f] = 0;
    } else {
        uint64_t d = v[0] - e->prev[f];
        e->same_delta[f] = n == 1 && d && d == e->last_delta[f] ? e->same_delta[f] + 1 : 0;
        e->last_delta[f] = n == 1 ? d : 0;
        if (e->same_delta[f] >= STRIDE_RUN) {
            e->same_delta[f] = 0;
            return emit_interp(e, f, HATF_I_STRIDE, e->prev[f], d);
        }
    }
    return best_adaptive(e, f, HATF_I_DELTA, v, n);
}

/* Thread, heap, numeric attributes: default while stable, else none. */
INLINE int best_constant(hatf1_encoder *e, unsigned f, uint64_t v)
{
    int rc;
    if (e->interp[f] == HATF_I_DEFAULT && e->width[f] <= 8) {
        if (v == e->arg[f]) {
            if (e->stable[f] < STABLE_RUN) e->stable[f]++;
            return 0;
        }
        if (e->stable[f] >= STABLE_RUN) {  /* a rare change: a new default */
            e->stable[f] = 0;
            return emit_interp(e, f, HATF_I_DEFAULT, v, 0);
        }
        e->stable[f] = 0;                  /* changing often: store it */
        if ((rc = emit_interp(e, f, HATF_I_NONE, 0, 0))) return rc;
    } else if (e->interp[f] != HATF_I_NONE || e->width[f] > 8) {
        e->stable[f] = 0;
        return emit_interp(e, f, HATF_I_DEFAULT, v, 0);
    } else {
        e->stable[f] = v == e->prev[f] ? e->stable[f] + 1 : 0;
        if (e->stable[f] >= STABLE_RUN) {
            e->stable[f] = 0;
            return emit_interp(e, f, HATF_I_DEFAULT, v, 0);
        }
    }
    return adapt_width(e, f, uwidth(v));
}

/* Attribute bytes: none, v1, or v2 while some are longer than 255 bytes. */
INLINE int best_attr_bytes(hatf1_encoder *e, size_t len)
{
    const unsigned f = HATF_F_ATTR;
    unsigned need = len > 255 ? HATF_W_V2 : HATF_W_V1;
    int rc;
    if (e->interp[f] != HATF_I_NONE && (rc = emit_interp(e, f, HATF_I_NONE, 0, 0))) return rc;
    unsigned w = e->width[f];
    if (w <= 8 || need > w) return emit_width(e, f, need);
    if (need == w) { e->run_len[f] = 0; return 0; }
    if (++e->run_len[f] >= NARROW_RUN) return emit_width(e, f, need);
    return 0;
}

/* ---- records ----------------------------------------------------------- */

static int split_addr_state(hatf1_encoder *e)
{
    int rc = 0;
    if (e->interp[HATF_F_ADDR] != HATF_I_NONE) rc = emit_interp(e, HATF_F_ADDR, HATF_I_NONE, 0, 0);
    if (!rc && e->width[HATF_F_ADDR] != 0) rc = emit_width(e, HATF_F_ADDR, 0);
    return rc;
}

/* Emit the metadata the event needs. */
INLINE int prepare(hatf1_encoder *e, const hatf_event *ev)
{
    unsigned op = ev->op;
    uint64_t addrs[2] = { ev->addr, ev->new_addr };
    int naddr = hatf_op_is_realloc(op) ? 2 : 1;
    int rc = 0;
    if (e->mode == HATF1_PLAIN) {
        if (!e->started) {
            e->started = 1;
            if ((rc = plain_start(e, ev))) return rc;
        }
        if (hatf_op_has_size(op) && (rc = plain_numeric(e, HATF_F_SIZE, &ev->size, 1))) return rc;
        if (hatf_op_has_addr(op) && !e->split_addr && (rc = plain_numeric(e, HATF_F_ADDR, addrs, naddr))) return rc;
        if ((rc = plain_numeric(e, HATF_F_THREAD, &ev->thread, 1))) return rc;
        if (op <= HATF_OP_HEAP_DESTROY && (rc = plain_numeric(e, HATF_F_HEAP, &ev->heap, 1))) return rc;
        if ((rc = plain_numeric(e, HATF_F_TIME, &ev->time, 1))) return rc;
        if (ev->attr_is_bytes) {
            const unsigned f = HATF_F_ATTR;
            if (e->interp[f] != HATF_I_NONE && (rc = emit_interp(e, f, HATF_I_NONE, 0, 0))) return rc;
            if (e->width[f] <= 8 || (e->width[f] == HATF_W_V1 && ev->data_len > 255))
                rc = emit_width(e, f, HATF_W_V2);
        } else {
            rc = plain_numeric(e, HATF_F_ATTR, &ev->attr, 1);
        }
    } else {
        e->started = 1;
        const int own = !e->split_addr;  /* a stream of its own: runs of sizes, strides */
        if (hatf_op_has_size(op) &&
            (rc = own ? best_constant(e, HATF_F_SIZE, ev->size) : best_adaptive(e, HATF_F_SIZE, HATF_I_NONE, &ev->size, 1)))
            return rc;
        if (hatf_op_has_addr(op) && own && (rc = best_moving(e, HATF_F_ADDR, addrs, naddr))) return rc;
        if ((rc = best_constant(e, HATF_F_THREAD, ev->thread))) return rc;
        if (op <= HATF_OP_HEAP_DESTROY && (rc = best_constant(e, HATF_F_HEAP, ev->heap))) return rc;
        if ((rc = own ? best_moving(e, HATF_F_TIME, &ev->time, 1) : best_adaptive(e, HATF_F_TIME, HATF_I_DELTA, &ev->time, 1)))
            return rc;
        rc = ev->attr_is_bytes ? best_attr_bytes(e, ev->data_len) : best_constant(e, HATF_F_ATTR, ev->attr);
    }
    if (!rc && e->split_addr && hatf_op_has_addr(op)) rc = split_addr_state(e);
    return rc;
}

/* Store one numeric field as the current state says; @return bytes written. */
INLINE size_t put(hatf1_encoder *e, uint8_t *p, unsigned f, uint64_t v)
{
    unsigned w = e->width[f], i = e->interp[f];
    uint64_t prev = e->prev[f];
    /* Our "previous" is the true last value: it is what a decoder holds under
     * delta and stride, and what BEST compares against under the others. */
    e->prev[f] = v;
    if (!w) return 0;
    uint64_t s = i == HATF_I_NONE ? v : i == HATF_I_DELTA ? v - prev
               : i == HATF_I_BASEOFFSET ? v - e->arg[f] : 0;  /* default, stride: unread */
    /* one 8-byte store; the record's reserve leaves room for it */
    uint64_t be = __builtin_bswap64(s << ((64 - 8 * w) & 63));
    memcpy(p, &be, 8);
    return w;
}

static int encode_general(hatf1_encoder *e, const hatf_event *ev);

HATF_API int hatf1_encode(hatf1_encoder *e, const hatf_event *ev) { return encode_general(e, ev); }

/* The events the batch's runs (encode_run) do not take: the general path,
 * with time 0 (hatf1_encode_batch_). */
static int encode_at_zero(hatf1_encoder *e, const hatf_event *ev)
{
    if (ev->time == 0 || ev->op == HATF_OP_COMMENT) return encode_general(e, ev);
    hatf_event c = *ev;
    c.time = 0;
    return encode_general(e, &c);
}

static int encode_general(hatf1_encoder *e, const hatf_event *ev)
{
    unsigned op = ev->op;
    if (op > HATF_OP_COMMENT) return HATF_E_LIMIT;
    if (ev->data_len && !ev->data) return HATF_E_USAGE;
    if (e->out->failed) return HATF_E_NOMEM;
    if (op == HATF_OP_COMMENT) {  /* data_len is 16 bits: always fits */
        uint8_t *p = hatf_buf_reserve(e->out, 3 + (size_t)ev->data_len);
        if (!p) return HATF_E_NOMEM;
        p[0] = HATF_OP_COMMENT;
        hatf_store_be(p + 1, ev->data_len, 2);
        if (ev->data_len) memcpy(p + 3, ev->data, ev->data_len);
        e->out->len += 3 + (size_t)ev->data_len;
        e->records++;
        return 0;
    }
    int rc = prepare(e, ev);
    if (rc) return rc;
    /* tag, 7 fields, the last field's 8-byte store, a v2 length, the bytes */
    hatf_buf *out = e->out;
    size_t need = 1 + 7 * 8 + 8 + 2 + (size_t)ev->data_len;
    uint8_t *p = out->cap - out->len >= need ? out->p + out->len : hatf_buf_reserve(out, need);
    if (!p) return HATF_E_NOMEM;
    size_t n = 1;
    p[0] = (uint8_t)op;
    switch (op) {
    case HATF_OP_ALLOC:
        n += put(e, p + n, HATF_F_SIZE, ev->size);
        n += put(e, p + n, HATF_F_ADDR, ev->addr);
        n += put(e, p + n, HATF_F_THREAD, ev->thread);
        n += put(e, p + n, HATF_F_HEAP, ev->heap);
        break;
    case HATF_OP_FREE:
        n += put(e, p + n, HATF_F_ADDR, ev->addr);
        n += put(e, p + n, HATF_F_THREAD, ev->thread);
        n += put(e, p + n, HATF_F_HEAP, ev->heap);
        break;
    case 2: case 3: case 4: case 5:
        n += put(e, p + n, HATF_F_SIZE, ev->size);
        n += put(e, p + n, HATF_F_ADDR, ev->addr);
        n += put(e, p + n, HATF_F_ADDR, ev->new_addr);
        n += put(e, p + n, HATF_F_THREAD, ev->thread);
        n += put(e, p + n, HATF_F_HEAP, ev->heap);
        break;
    case HATF_OP_HEAP_CREATE: case HATF_OP_HEAP_DESTROY:
        n += put(e, p + n, HATF_F_HEAP, ev->heap);
        n += put(e, p + n, HATF_F_THREAD, ev->thread);
        break;
    default:
        n += put(e, p + n, HATF_F_THREAD, ev->thread);
        break;
    }
    n += put(e, p + n, HATF_F_TIME, ev->time);
    if (ev->attr_is_bytes) {
        size_t len = ev->data_len;
        if (e->width[HATF_F_ATTR] == HATF_W_V2) p[n++] = (uint8_t)(len >> 8);
        p[n++] = (uint8_t)len;
        /* the recorder's attributes are a few bytes: no call for them */
        if (len <= 8) for (size_t i = 0; i < len; i++) p[n + i] = ev->data[i];
        else memcpy(p + n, ev->data, len);
        n += len;
    } else {
        n += put(e, p + n, HATF_F_ATTR, ev->attr);
    }
    out->len += n;
    e->records++;
    return 0;
}

/* ---- a batch of the container's records -------------------------------- */

/* One field's width choice kept in locals (adapt_width's steps). */
typedef struct lwidth { unsigned w, run_len, run_max, chosen, last_nz; } lwidth;

/* adapt_width on locals, the width record written at q. @return bytes written. */
INLINE size_t ladapt(lwidth *s, unsigned f, unsigned need, uint8_t *q, uint64_t *meta)
{
    unsigned to;
    if (need > s->w || (!s->chosen && need && need < s->w)) {
        s->chosen = 1;
        to = need;
    } else {
        if (need > s->run_max) s->run_max = need;
        if (++s->run_len < NARROW_RUN) return 0;
        to = s->run_max;
        s->run_len = s->run_max = 0;
        if (to >= s->w) return 0;
    }
    q[0] = HATF_TAG_METADATA; q[1] = 1; q[2] = (uint8_t)f; q[3] = (uint8_t)to;
    s->w = to;
    if (to) s->last_nz = to;
    s->run_len = s->run_max = 0;
    ++*meta;
    return 4;
}

INLINE void lwidth_load(lwidth *s, const hatf1_encoder *e, unsigned f)
{
    *s = (lwidth){ e->width[f], e->run_len[f], e->run_max[f], e->chosen[f], e->last_nonzero_width[f] };
}

INLINE void lwidth_store(const lwidth *s, hatf1_encoder *e, unsigned f)
{
    e->width[f] = (uint8_t)s->w;
    e->run_len[f] = s->run_len;
    e->run_max[f] = (uint8_t)s->run_max;
    e->chosen[f] = (uint8_t)s->chosen;
    e->last_nonzero_width[f] = (uint8_t)s->last_nz;
}

/* A record's op and its size in w bytes at q (8 bytes stored: the run
 * reserves them). @return the record's length so far. */
INLINE size_t put_size(uint8_t *q, unsigned op, uint64_t size, unsigned w)
{
    uint64_t be = __builtin_bswap64(size << ((64 - 8 * w) & 63));
    q[0] = (uint8_t)op;
    memcpy(q + 1, &be, 8);
    return 1 + w;
}

/* A record's op and, but for a free, its size in w bytes at q (8 bytes
 * stored). @return the record's length so far. */
INLINE size_t put_record(uint8_t *q, unsigned op, uint64_t size, unsigned w)
{
    if (op == HATF_OP_FREE) {
        q[0] = (uint8_t)op;
        return 1;
    }
    return put_size(q, op, size, w);
}

INLINE uint32_t sat_add(uint32_t s, size_t k)
{
    return k >= STABLE_RUN || s + k >= STABLE_RUN ? (s < STABLE_RUN ? STABLE_RUN : s) : s + (uint32_t)k;
}

/* Below this length a record neither stops the run nor needs more room
 * (one test per record). */
INLINE size_t run_lim(const hatf_buf *out, size_t len, size_t stop_len, size_t room)
{
    if (out->cap - len < room) return 0;
    return out->cap - room < stop_len ? out->cap - room : stop_len;
}

/* A run's output at len reached lim: more room, or the end of the run at
 * stop_len. @return 0 to stop (stop_len, or out of memory), else 1 with the
 * buffer's new start at *p and the next limit at *lim. */
INLINE int run_grow(hatf_buf *out, size_t len, size_t stop_len, size_t room, uint8_t **p, size_t *lim)
{
    if (len >= stop_len) return 0;
    out->len = len;
    if (!hatf_buf_reserve(out, room)) return 0;
    *p = out->p;
    *lim = run_lim(out, len, stop_len, room);
    return 1;
}

/* BEST with split addresses, the container's common records, over a run of
 * events with the state in locals: an alloc, free or realloc whose thread and
 * heap equal their defaults, whose attribute is the default or bytes in v1,
 * size under none, time 0 under delta with width 0 (the container keeps times
 * in its time section, so every record's time is 0 and stores nothing: the
 * time field's only work is its narrowing count, done once at the end). The
 * stream state is checked once, each event only for its own values. Same
 * steps and bytes as the general path.
 * @return the number of events encoded (it stops at the first event that
 * needs the general path, or before one when out->len >= stop_len). */
/* The stream state a run needs: BEST with split addresses, thread and heap
 * under a default, time 0 under delta with width 0. */
static int run_state_ok(const hatf1_encoder *e)
{
    return !e->out->failed && e->mode == HATF1_BEST && e->split_addr &&
           e->interp[HATF_F_ADDR] == HATF_I_NONE && e->width[HATF_F_ADDR] == 0 &&
           e->interp[HATF_F_THREAD] == HATF_I_DEFAULT && e->width[HATF_F_THREAD] == 0 &&
           e->interp[HATF_F_HEAP] == HATF_I_DEFAULT && e->width[HATF_F_HEAP] == 0 &&
           e->interp[HATF_F_TIME] == HATF_I_DELTA && e->width[HATF_F_TIME] == 0 && e->prev[HATF_F_TIME] == 0;
}

/* The attribute field's state a run leaves: v1 (bytes) or the default attr,
 * and its width-choice counters (the previous value and the stable count are
 * the caller's: encode_run and encode_plain count them their own ways). */
static inline void attr_end(hatf1_encoder *e, int attr_v1, uint64_t attr, uint32_t run, unsigned max, unsigned chosen)
{
    const unsigned A = HATF_F_ATTR;
    e->interp[A] = attr_v1 ? HATF_I_NONE : HATF_I_DEFAULT;
    e->width[A] = attr_v1 ? HATF_W_V1 : 0;
    e->arg[A] = attr;
    e->run_len[A] = run;
    e->run_max[A] = (uint8_t)max;
    e->chosen[A] = (uint8_t)chosen;
}

/* The state a run of k records leaves (k > 0), besides the attribute's:
 * the size's width state, the metadata count, the previous values the loop
 * did not keep (prev_a: the last record's address, its new address for a
 * realloc; prev_s: the last size, e's when no record had one), the time
 * field's narrowing count (a need of 0 at width 0 per record: adapt_width
 * counts NARROW_RUN of them, then starts again, never narrowing). */
static void run_end(hatf1_encoder *e, size_t k, const lwidth *ws, uint64_t meta, uint64_t prev_a, uint64_t prev_s,
                    uint64_t thread, uint64_t heap)
{
    e->started = 1;
    lwidth_store(ws, e, HATF_F_SIZE);
    uint32_t t_run = e->run_len[HATF_F_TIME] + (uint32_t)k;
    if (t_run >= NARROW_RUN) {
        t_run %= NARROW_RUN;
        e->run_max[HATF_F_TIME] = 0;
    }
    e->run_len[HATF_F_TIME] = t_run;
    e->prev[HATF_F_SIZE] = prev_s;
    e->prev[HATF_F_ADDR] = prev_a;
    e->prev[HATF_F_THREAD] = thread;
    e->prev[HATF_F_HEAP] = heap;
    e->stable[HATF_F_THREAD] = sat_add(e->stable[HATF_F_THREAD], k);
    e->stable[HATF_F_HEAP] = sat_add(e->stable[HATF_F_HEAP], k);
    e->metadata = meta;
    e->records += k;
}

static size_t encode_run(hatf1_encoder *e, const hatf_event *ev, size_t n, size_t stop_len)
{
    hatf_buf *out = e->out;
    if (!run_state_ok(e)) return 0;
    const int size_ok = e->interp[HATF_F_SIZE] == HATF_I_NONE && e->width[HATF_F_SIZE] <= 8;
    /* ops the run takes (0..5): with a size only when the size field can carry it */
    const unsigned ok_ops = size_ok ? 0x3fu : 1u << HATF_OP_FREE;
    const unsigned A = HATF_F_ATTR;
    int attr_v1 = e->interp[A] == HATF_I_NONE && e->width[A] == HATF_W_V1;
    if (!attr_v1 && !(e->interp[A] == HATF_I_DEFAULT && e->width[A] == 0)) return 0;
    /* a calloc's attribute bytes and the plain records around it switch the
     * field between v1 and a default here too (best_attr_bytes, best_constant) */
    const int v1_back = e->last_nonzero_width[A] == HATF_W_V1;
    const uint64_t thread = e->arg[HATF_F_THREAD], heap = e->arg[HATF_F_HEAP];
    uint64_t attr = e->arg[A], prev_at = e->prev[A];
    uint32_t a_run = e->run_len[A];
    size_t def_at = SIZE_MAX;  /* the run's last new attribute default */
    unsigned a_max = e->run_max[A], a_chosen = e->chosen[A];
    lwidth ws;
    lwidth_load(&ws, e, HATF_F_SIZE);
    uint64_t meta = e->metadata;
    uint8_t *p = out->p;
    size_t len = out->len;
    /* a width record, an attribute's interpretation, a record's 8-byte store, a v1 string */
    enum { ROOM = 4 + 12 + 1 + 8 + 1 + 255 };
    size_t lim = run_lim(out, len, stop_len, ROOM);
    size_t k = 0;
    for (; k < n; k++) {
        /* the common record first, in a loop of its own with fewer values
         * live: no attribute bytes, the attribute the default's value, room
         * ahead; it changes only the size's width state */
        if (!attr_v1) {
            for (; k < n; k++) {
                const hatf_event *x = &ev[k];
                /* op, and above it the fields that must be 0: one test */
                uint32_t op = x->op | (uint32_t)x->attr_is_bytes << 8 | (uint32_t)x->data_len << 16;
                if (op > 5 || !((ok_ops >> op) & 1) || x->thread != thread || x->heap != heap ||
                    x->attr != attr || len >= lim)
                    break;
                if (op != HATF_OP_FREE) {
                    len += ladapt(&ws, HATF_F_SIZE, uwidth(x->size), p + len, &meta);
                    len += put_size(p + len, op, x->size, ws.w);
                } else {
                    p[len++] = (uint8_t)op;
                }
            }
            if (k == n) break;
        }
        const hatf_event *x = &ev[k];
        unsigned op = x->op;
        if (op > 5 || !((ok_ops >> op) & 1) || x->thread != thread || x->heap != heap) break;
        int has_size = op != HATF_OP_FREE;
        size_t dlen = x->data_len;
        int bytes = x->attr_is_bytes, to_v1 = 0, to_def = 0;
        if (bytes) {
            if (dlen > 255 || (dlen && !x->data)) break;
            if (!attr_v1) { if (!v1_back) break; to_v1 = 1; }
        } else {
            if (dlen) break;
            if (attr_v1) to_def = 1;
            else if (x->attr != attr) break;
        }
        if (len >= lim && !run_grow(out, len, stop_len, ROOM, &p, &lim)) break;
        if (has_size) len += ladapt(&ws, HATF_F_SIZE, uwidth(x->size), p + len, &meta);
        if (to_v1) {  /* interpretation none: the width is v1 again */
            uint8_t *r = p + len;
            r[0] = HATF_TAG_METADATA; r[1] = 2; r[2] = (uint8_t)A; r[3] = HATF_I_NONE;
            len += 4;
            meta++;
            attr_v1 = 1;
            a_chosen = 0;
            a_max = 0;
        } else if (to_def) {  /* a default of this value */
            uint8_t *r = p + len;
            r[0] = HATF_TAG_METADATA; r[1] = 2; r[2] = (uint8_t)A; r[3] = HATF_I_DEFAULT;
            hatf_store_be(r + 4, x->attr, 8);
            len += 12;
            meta++;
            attr_v1 = 0;
            attr = x->attr;
            def_at = k;
            a_chosen = 0;
            a_run = a_max = 0;
        }
        uint8_t *q = p + len;
        size_t m = has_size ? put_size(q, op, x->size, ws.w) : (q[0] = (uint8_t)op, 1);
        if (bytes) {
            a_run = 0;
            q[m++] = (uint8_t)dlen;
            if (dlen <= 8) for (size_t i = 0; i < dlen; i++) q[m + i] = x->data[i];
            else memcpy(q + m, x->data, dlen);
            m += dlen;
        }
        len += m;
    }
    out->len = len;
    if (!k) return 0;
    /* the previous values the loop did not need: the last event's that has them */
    const hatf_event *last = &ev[k - 1];
    uint64_t prev_a = last->op >= 2 ? last->new_addr : last->addr;
    uint64_t prev_s = e->prev[HATF_F_SIZE];
    for (size_t j = k; j-- > 0;)
        if (ev[j].op != HATF_OP_FREE) { prev_s = ev[j].size; break; }
    for (size_t j = k; j-- > 0;)
        if (!ev[j].attr_is_bytes) { prev_at = ev[j].attr; break; }
    /* a default is stable after STABLE_RUN plain records (best_constant) */
    uint32_t plain = 0;
    for (size_t j = k; j-- > (def_at == SIZE_MAX ? 0 : def_at + 1) && plain < STABLE_RUN;)
        plain += !ev[j].attr_is_bytes;
    uint32_t a_stable = def_at == SIZE_MAX ? sat_add(e->stable[A], plain) : plain;
    run_end(e, k, &ws, meta, prev_a, prev_s, thread, heap);
    attr_end(e, attr_v1, attr, a_run, a_max, a_chosen);
    e->prev[A] = prev_at;
    e->stable[A] = a_stable;
    return k;
}

/* encode_run's common records for the recorder's plain events
 * (container_plain.h), each one's time and addresses taken in the same pass
 * (the writer's take_events: times converted when coarse and kept from
 * going back, a realloc's release lead, addresses as codes when fast, else
 * as items); the attribute is the default of value 0 that such a record
 * has, or with attrs, a calloc's bytes in v1: the field switches between
 * the two as encode_run switches it (a v1 run's first calloc of a group,
 * with no v1 width yet, takes the general path). Without attrs it stops at
 * a calloc, and needs the default: the loop of the programs that make few
 * callocs keeps its registers (attrs costs them 10-15 instructions an
 * event; callgrind of write_cost, bench/results/recorder.md). */
static inline __attribute__((always_inline))
size_t encode_plain(hatf1_encoder *e, uint64_t thread, const uint64_t *raw, size_t units, size_t n,
                    size_t stop_len, hatf_plain_io *io, int coarse, int fast, int pdep, int attrs)
{
    hatf_buf *out = e->out;
    const unsigned A = HATF_F_ATTR;
    io->units = 0;
    int attr_v1 = attrs && e->interp[A] == HATF_I_NONE && e->width[A] == HATF_W_V1;
    if (!run_state_ok(e) || e->interp[HATF_F_SIZE] != HATF_I_NONE || e->width[HATF_F_SIZE] > 8 ||
        (!attr_v1 && (e->interp[A] != HATF_I_DEFAULT || e->width[A] != 0 || e->arg[A] != 0)) ||
        e->arg[HATF_F_THREAD] != thread || e->arg[HATF_F_HEAP] != 0)
        return 0;
    const int v1_back = e->last_nonzero_width[A] == HATF_W_V1;
    uint64_t attr = e->arg[A];
    uint32_t a_run = e->run_len[A], a_max = e->run_max[A], a_chosen = e->chosen[A];
    /* callocs (their bytes) in the run, and since its last new default (at
     * def_at, SIZE_MAX: none): the others are counted from k at the end */
    size_t nbytes = 0, nbytes_def = 0, def_at = SIZE_MAX;
    lwidth ws;
    lwidth_load(&ws, e, HATF_F_SIZE);
    uint64_t meta = e->metadata, prev_s = e->prev[HATF_F_SIZE];
    uint8_t *p = out->p;
    size_t len = out->len;
    /* a width record, an attribute's interpretation, a record's 8-byte store, a calloc's bytes */
    enum { ROOM = 4 + 12 + 1 + 8 + 1 + HATF_PLAIN_CALLOC_ATTRS };
    size_t lim = run_lim(out, len, stop_len, ROOM);
    hatf_tclock c = io->c;
    hatf_tconv cv;
    if (coarse) cv = *io->conv;  /* in registers too */
    uint8_t *o = io->tso, *ao = io->ao;
    hatf_aref r = io->r;  /* in registers */
    hatf_aref_slot *tab = io->tab;
    hatf_aitem *it = io->it;
    const uint64_t *x = raw, *xend = raw + units * HATF_RAW_UNIT_WORDS;
    uint64_t last_a = 0;
    size_t k = 0;
    /* hatf_raw_plain's test for the common records (the attribute the
     * default, no calloc), so one test finds the others: when the attribute
     * is in v1 every record needs more steps */
    enum { COMMON_FNS = HATF_PLAIN_FNS & ~(1u << HATF_FN_CALLOC) };
    unsigned short_ok = attr_v1 ? 0 : HATF_RAW_SHORT;
    uint32_t fns_ok = attr_v1 ? 0 : COMMON_FNS;
    for (; k < n && x < xend; k++) {
        const unsigned low = (unsigned)x[0] & 0x1ffu;
        enum { SHORT_CALLOC = HATF_RAW_SHORT | HATF_FN_CALLOC };
        if (!attrs) {  /* the constants: as hatf_raw_plain, a calloc (short or long) not */
            if ((low & HATF_RAW_SHORT) ? low == SHORT_CALLOC : !(low < 32 && (COMMON_FNS >> low & 1))) break;
        }
        const int slow = attrs && (low == SHORT_CALLOC || !((low & short_ok) || (low < 32 && (fns_ok >> low & 1))));
        if (__builtin_expect(slow, 0) &&
            (!hatf_raw_plain(x[0]) || (hatf_raw_calloc(low) && !attr_v1 && !v1_back)))
            break;
        if (len >= lim && !run_grow(out, len, stop_len, ROOM, &p, &lim)) break;
        uint64_t a, size, na;
        unsigned op;
        uint64_t time = x[0] >> HATF_RAW_TIME_SHIFT;
        const uint64_t *x0 = x;
        x += hatf_plain_read(x, &op, &a, &size, &na) * HATF_RAW_UNIT_WORDS;
        if (__builtin_expect(op == HATF_OP_REALLOC_MOVE || op == HATF_OP_REALLOC_FREE, 0))  /* before its time is added */
            hatf_release_add_(io->rsec, &c, coarse ? &cv : NULL, time, hatf_raw_release_lead(time, x0[4]));
        if (op != HATF_OP_FREE) {
            len += ladapt(&ws, HATF_F_SIZE, uwidth(size), p + len, &meta);
            prev_s = size;
        }
        if (__builtin_expect(slow, 0)) {
            const int bytes = hatf_raw_calloc(low);
            if (attr_v1 != bytes) {
                /* encode_run's to_v1 (interpretation none: the width is v1
                 * again) and to_def (a default of 0) */
                uint8_t *q = p + len;
                q[0] = HATF_TAG_METADATA; q[1] = 2; q[2] = (uint8_t)A; q[3] = bytes ? HATF_I_NONE : HATF_I_DEFAULT;
                if (!bytes) {
                    hatf_store_be(q + 4, 0, 8);
                    len += 8;
                    attr = 0;
                    def_at = k;
                    nbytes_def = 0;
                    a_run = 0;
                }
                len += 4;
                meta++;
                attr_v1 = bytes;
                a_chosen = 0;
                a_max = 0;
                short_ok = attr_v1 ? 0 : HATF_RAW_SHORT;
                fns_ok = attr_v1 ? 0 : COMMON_FNS;
            }
            len += put_record(p + len, op, size, ws.w);
            if (bytes) {
                a_run = 0;
                size_t m = hatf_plain_calloc_attrs(p + len + 1, hatf_raw_calloc_nmemb(x0));
                p[len] = (uint8_t)m;
                len += 1 + m;
                nbytes++, nbytes_def++;
            }
        } else {
            len += put_record(p + len, op, size, ws.w);
        }
        if (coarse && time - cv.lo < cv.span && cv.u == c.t_cur && c.t_run) {
            /* the unit of the thread's last event (then t_prev = t_cur): its
             * run goes on, what the steps below would do in a dozen more
             * instructions, for most events of a busy thread */
            c.t_run++;
        } else {
            if (coarse) {
                time = hatf_tconv_next(&cv, time);
                if (time < c.t_prev) time = c.t_prev;
                c.t_prev = time;
            }
            o = hatf_time_add(&c, time, o);
        }
        if (fast) {
            ao = hatf_aref_put(ao, a, op == HATF_OP_ALLOC, &r, tab, pdep);  /* the order of container_addr.h */
            if (op >= HATF_OP_REALLOC_INPLACE) ao = hatf_aref_put(ao, na, 1, &r, tab, pdep);
        } else {
            *it++ = (hatf_aitem){ size, a, na, (uint8_t)op };
        }
        last_a = op >= HATF_OP_REALLOC_INPLACE ? na : a;
    }
    out->len = len;
    if (coarse) *io->conv = cv;
    io->c = c;
    io->tso = o;
    io->ao = ao;
    io->r = r;
    io->it = it;
    io->units = (size_t)(x - raw) / HATF_RAW_UNIT_WORDS;
    if (!k) return 0;
    run_end(e, k, &ws, meta, last_a, prev_s, thread, 0);
    /* the attribute's state as encode_run leaves it: its stable count is
     * of the records without bytes after the last new default (not it) */
    attr_end(e, attr_v1, attr, a_run, a_max, a_chosen);
    if (k > nbytes) e->prev[A] = 0;  /* the last record's attribute without bytes */
    if (def_at == SIZE_MAX) {
        e->stable[A] = sat_add(e->stable[A], k - nbytes);
    } else {
        size_t plain = k - def_at - 1 - nbytes_def;
        e->stable[A] = plain < STABLE_RUN ? (uint32_t)plain : STABLE_RUN;
    }
    return k;
}

/* encode_plain with attrs when the attribute is in v1 or the first event a
 * calloc (then for the whole call: programs that make callocs make many). */
static inline __attribute__((always_inline))
size_t encode_plain_by(hatf1_encoder *e, uint64_t thread, const uint64_t *raw, size_t units, size_t n,
                       size_t stop_len, hatf_plain_io *io, int coarse, int fast, int pdep)
{
    int attrs = (e->interp[HATF_F_ATTR] == HATF_I_NONE && e->width[HATF_F_ATTR] == HATF_W_V1) ||
                (units && hatf_raw_calloc(raw[0]));
    return attrs ? encode_plain(e, thread, raw, units, n, stop_len, io, coarse, fast, pdep, 1)
                 : encode_plain(e, thread, raw, units, n, stop_len, io, coarse, fast, pdep, 0);
}

size_t hatf1_encode_plain_(hatf1_encoder *e, uint64_t thread, const uint64_t *raw, size_t units, size_t n,
                           size_t stop_len, hatf_plain_io *io)
{
    if (io->conv) {
        if (io->it) return encode_plain_by(e, thread, raw, units, n, stop_len, io, 1, 0, 0);
        return io->pdep ? encode_plain_by(e, thread, raw, units, n, stop_len, io, 1, 1, 1)
                        : encode_plain_by(e, thread, raw, units, n, stop_len, io, 1, 1, 0);
    }
    if (io->it) return encode_plain_by(e, thread, raw, units, n, stop_len, io, 0, 0, 0);
    return io->pdep ? encode_plain_by(e, thread, raw, units, n, stop_len, io, 0, 1, 1)
                    : encode_plain_by(e, thread, raw, units, n, stop_len, io, 0, 1, 0);
}

size_t hatf1_encode_batch_(hatf1_encoder *e, const hatf_event *ev, size_t n, size_t stop_len, int *rc)
{
    size_t i = 0;
    *rc = 0;
    while (i < n) {
        i += encode_run(e, ev + i, n - i, stop_len);
        if (i == n || e->out->len >= stop_len) break;
        if ((*rc = encode_at_zero(e, &ev[i])) != 0) break;
        i++;
    }
    return i;
}
