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

/* t * num / (den * R) as a 64.64 fixed-point factor: integer part fi, fraction ff. */
typedef struct hatf_tconv { uint64_t fi, ff; } hatf_tconv;

/* pre: num, den, res_ns > 0. */
void hatf_tconv_init(hatf_tconv *c, uint64_t num, uint64_t den, uint64_t res_ns);

/* @return t in the coarse unit, rounded down. */
static inline uint64_t hatf_tconv_apply(const hatf_tconv *c, uint64_t t)
{
    unsigned __int128 x = (unsigned __int128)t * c->ff;
    unsigned __int128 q = (unsigned __int128)t * c->fi + (uint64_t)(x >> 64);
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* hatf1_encode with ev->time replaced by time (hatf1_encode.c): the writer
 * encodes its converted times without copying each event. */
int hatf1_encode_at_(hatf1_encoder *e, const hatf_event *ev, uint64_t time);

/* hatf1_encode_at_ over ev[0..n) with times time[0..n), stopping before an
 * event when e->out->len >= stop_len (the writer's cut of a group).
 * @return the number of events encoded; *rc is 0, or the error of event
 * [return value], which is not encoded. */
size_t hatf1_encode_batch_(hatf1_encoder *e, const hatf_event *ev, const uint64_t *time,
                           size_t n, size_t stop_len, int *rc);

#endif /* HATF_CONTAINER_TIME_H */
