/* container_plain.h — the recorder's plain events coded in one pass (internal
 * to libhatf).
 *
 * Nearly every event of a program is a malloc, calloc, free or realloc with
 * nothing more to say (no stack, heap, failure or attribute but a calloc's
 * func and nmemb: perl makes two of three objects with calloc). The recorder hands them
 * over as its ring holds them (hatf_writer_add_plain_, container_jobs.h), and
 * hatf1_encode_plain_ writes each one's record, time and addresses in one
 * pass: the steps and bytes of hatf1_encode_batch_ followed by the writer's
 * time and address code (container_write.c), without a hatf_event between.
 */
#ifndef HATF_CONTAINER_PLAIN_H
#define HATF_CONTAINER_PLAIN_H

#include "container_jobs.h"
#include "container_time.h"
#include "container_addr.h"

/* A thread's times in the writer: the last stored one (time_res_ns: times
 * never go back), the pending group's first time, its current run's time
 * and length (0: no timed event yet; comments have no time). */
typedef struct hatf_tclock {
    uint64_t t_prev, t_first, t_cur;
    uint32_t t_run;
} hatf_tclock;

/* A varint of the time section; nearly all fit in one byte. */
static inline uint8_t *hatf_time_put(uint8_t *o, uint64_t v)
{
    if (v < 0x80) { *o = (uint8_t)v; return o + 1; }
    return o + hatf_varint_put(o, v);
}

/* The next timed event's time into the thread's time section at o (room for
 * two varints): the events of one time make a run; a run ends with its
 * length - 1 and the step to the next time (zigzag, - 1: never 0), so a
 * group that stays within one time unit for a while costs a byte or two per
 * run, not one per event. */
static inline uint8_t *hatf_time_add(hatf_tclock *c, uint64_t time, uint8_t *o)
{
    if (time == c->t_cur && c->t_run) { c->t_run++; return o; }  /* the time first: fine units differ */
    if (c->t_run) {
        o = hatf_time_put(o, c->t_run - 1);
        o = hatf_time_put(o, hatf_zigzag((int64_t)(time - c->t_cur)) - 1);
    } else {
        c->t_first = time;  /* the first run's time is the chunk header's */
    }
    c->t_cur = time;
    c->t_run = 1;
    return o;
}

/* The release lead (hatf_event.release_lead, raw clock) of a REALLOC_MOVE or
 * REALLOC_FREE stamped at time, as stored: the step back from its stored time
 * to its release's (time - lead converted by conv, if not NULL, and neither
 * before the thread's previous stored time in c), a varint into rs
 * (container_write.c). pre: c is as before this event's time is added. */
void hatf_release_add_(hatf_buf *rs, const hatf_tclock *c, const hatf_tconv *conv, uint64_t time, uint64_t lead);

/* The plain event at x (a unit of the recorder's stream, hatf_recorder.h):
 * the op, size, address and second address of its record (a calloc's size:
 * nmemb * elsize, UINT64_MAX past 64 bits, as the flusher converts it).
 * @return the units it takes. */
static inline size_t hatf_plain_read(const uint64_t *x, unsigned *op, uint64_t *addr, uint64_t *size,
                                     uint64_t *new_addr)
{
    uint64_t tk = x[0];
    unsigned fn = (unsigned)tk & 0xffu;
    if (tk & HATF_RAW_SHORT) {  /* a malloc, a free, a realloc of NULL or a calloc (hatf_raw_short) */
        uint64_t v = x[1] & ((1ull << HATF_RAW_ADDR_BITS) - 1), hi = x[1] >> HATF_RAW_ADDR_BITS;
        int renew = fn == HATF_FN_REALLOC;
        *addr = renew ? 0 : v;
        *new_addr = renew ? v : 0;
        *size = __builtin_expect(fn == HATF_FN_CALLOC, 0) ? (hi & 0xffu) * (hi >> 8) : hi;
        *op = fn == HATF_FN_FREE ? HATF_OP_FREE : renew ? HATF_OP_REALLOC_NEW : HATF_OP_ALLOC;
        return 1;
    }
    uint64_t a = x[1], c = x[3];
    *addr = a;
    *size = fn == HATF_FN_FREE ? 0 : x[2];
    *new_addr = fn == HATF_FN_REALLOC ? c : 0;
    if (__builtin_expect(fn == HATF_FN_CALLOC, 0) && __builtin_mul_overflow(x[2], c, size)) *size = UINT64_MAX;
    *op = fn == HATF_FN_MALLOC || fn == HATF_FN_CALLOC ? HATF_OP_ALLOC : fn == HATF_FN_FREE ? HATF_OP_FREE
        : !a ? HATF_OP_REALLOC_NEW : !c ? HATF_OP_REALLOC_FREE
        : c == a ? HATF_OP_REALLOC_INPLACE : HATF_OP_REALLOC_MOVE;
    return HATF_RAW_LONG_UNITS;
}

/* A plain calloc's attribute bytes, as the flusher converts its call
 * (hatf_attrs_encode of func and nmemb: keys 1 and 7, each with its varint)
 * into p (HATF_PLAIN_CALLOC_ATTRS bytes). @return their length. */
#define HATF_PLAIN_CALLOC_ATTRS (3 + HATF_VARINT_MAX)
static inline size_t hatf_plain_calloc_attrs(uint8_t *p, uint64_t nmemb)
{
    p[0] = HATF_A_FUNC;
    p[1] = HATF_FN_CALLOC;
    p[2] = HATF_A_NMEMB;
    return 3 + hatf_varint_put(p + 3, nmemb);
}

/* Where hatf1_encode_plain_ puts the times and addresses, and takes them up
 * again: the thread's clock, the writer's conversion (NULL: times as they
 * are), the time section's end, the release section; a fast group's coding 6 end, state and
 * table (it NULL), else the items for the model; the units the events took;
 * pdep: the CPU has a fast pdep for coding 6's varints (hatf_adec_isa). */
typedef struct hatf_plain_io {
    hatf_tclock c;
    hatf_tconv *conv;
    uint8_t *tso;
    hatf_buf *rsec;
    uint8_t *ao;
    hatf_aref r;
    hatf_aref_slot *tab;
    hatf_aitem *it;
    size_t units;
    int pdep;
} hatf_plain_io;

/* Encode thread's plain events that start in the first units units of the
 * recorder's stream at raw, at most n, up to the first that is not plain,
 * while the stream is in the state the common records need; stop before an
 * event when e->out->len >= stop_len. Room: two time varints, two address
 * codes (fast) or one item per event at io, for n events. @return the number
 * encoded (io->units: the units they took); 0 when the state needs the
 * general path first (a group's first record, an attribute run). */
size_t hatf1_encode_plain_(hatf1_encoder *e, uint64_t thread, const uint64_t *raw, size_t units, size_t n,
                           size_t stop_len, hatf_plain_io *io);

#endif /* HATF_CONTAINER_PLAIN_H */
