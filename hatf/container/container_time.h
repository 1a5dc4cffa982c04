/* container_time.h — the writer's time resolution (internal to libhatf).
 *
 * A recorder stamps events in its clock's unit (TSC ticks, ns); most of those
 * bits are jitter that costs ~1.6 compressed bytes per record. With
 * hatf_writer_opts.time_res_ns = R the writer stores time in units of R ns:
 * t' = floor(t * num / den / R) for every event, then raised to the thread's
 * previous t' so a thread's times never go backwards. Rounding every time the
 * same way keeps real order: t1 < t2 gives t1' <= t2', so only equal stored
 * times of different threads are ambiguous; readers order those by address
 * liveness (causal.h). The header's time unit becomes R/1 ns.
 */
#ifndef HATF_CONTAINER_TIME_H
#define HATF_CONTAINER_TIME_H

#include <stdint.h>
#include "hatf.h"

/* t * num / (den * R) as a 64.64 fixed-point factor: integer part fi, fraction
 * ff, rounded down, so a product may come out one short of the exact quotient:
 * num and d = den * R check it; ri, rf: an inverse (ticks per coarse unit)
 * rounded down from above the factor, so it never reaches past a unit's first
 * tick. A clock of many ticks per unit gives several events in a row the same
 * unit, so hatf_tconv_next remembers the ticks [lo, lo + span) known to give
 * unit u (a span, not the end: the check is one subtraction). */
typedef struct hatf_tconv {
    uint64_t fi, ff, ri, rf, lo, span, u, num;
    unsigned __int128 d;
} hatf_tconv;

/* pre: num, den, res_ns > 0. */
void hatf_tconv_init(hatf_tconv *c, uint64_t num, uint64_t den, uint64_t res_ns);

/* @return floor(t * num / (den * R)), at most UINT64_MAX. */
static inline uint64_t hatf_tconv_apply(const hatf_tconv *c, uint64_t t)
{
    unsigned __int128 x = (unsigned __int128)t * c->ff;
    unsigned __int128 q = (unsigned __int128)t * c->fi + (uint64_t)(x >> 64);
    if (q >= UINT64_MAX) return UINT64_MAX;
    if (__builtin_expect(c->d >> 64 != 0, 0))  /* a factor under 2^-64 units per tick: exact */
        return (uint64_t)((unsigned __int128)t * c->num / c->d);
    /* q + 1 and d < 2^64 here: one 64 x 64 product */
    if ((unsigned __int128)((uint64_t)q + 1) * (uint64_t)c->d <= (unsigned __int128)t * c->num) q++;
    return (uint64_t)q;
}

/* hatf_tconv_apply(c, t) that notes t's unit and where it ends. apply(t) is
 * the exact floor(t * num / d) (below the clamp), so unit u + 1 starts at tick
 * ceil((u + 1) * d / num); est, from an inverse of a factor above the true
 * one, is at most that, and every tick in [t, est) gives u: at least u as t
 * does, under u + 1 as it is below the start. A tick in [est, the start) just
 * comes here again. [t, t + 1) is a range too:
 * with units of a tick or less, a repeated tick costs a compare; with such
 * units (fi >= 1: a tick moves at least a unit) the next unit starts at
 * t + 1 at the latest, so est is not needed. Inline, so that a copy of c in
 * locals stays in registers. */
static inline uint64_t hatf_tconv_miss_(hatf_tconv *c, uint64_t t)
{
    uint64_t u = hatf_tconv_apply(c, t), hi = UINT64_MAX;
    if (u < UINT64_MAX) {
        if (c->fi) {
            hi = t + 1;  /* u >= t, so t < UINT64_MAX */
        } else {
            unsigned __int128 x = (unsigned __int128)(u + 1) * c->rf;
            unsigned __int128 est = (unsigned __int128)(u + 1) * c->ri + (uint64_t)(x >> 64);
            if (est < UINT64_MAX) hi = (uint64_t)est > t ? (uint64_t)est : t + 1;  /* t itself at least */
        }
    }
    c->lo = t;
    c->span = hi - t;
    c->u = u;
    return u;
}

/* hatf_tconv_apply(c, t), the same result, a compare when t is in the unit
 * of the last one converted. */
static inline uint64_t hatf_tconv_next(hatf_tconv *c, uint64_t t)
{
    if (t - c->lo < c->span) return c->u;
    return hatf_tconv_miss_(c, t);
}

/* hatf1_encode over ev[0..n) with every time replaced by 0 (hatf1_encode.c:
 * the container's times are in the time section), stopping before an event
 * when e->out->len >= stop_len (the writer's cut of a group).
 * @return the number of events encoded; *rc is 0, or the error of event
 * [return value], which is not encoded. */
size_t hatf1_encode_batch_(hatf1_encoder *e, const hatf_event *ev, size_t n, size_t stop_len, int *rc);

#endif /* HATF_CONTAINER_TIME_H */
