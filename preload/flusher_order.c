/* flusher_order.c — the merged drain: the rings' events given to the writer
 * in time order across threads, for a time unit above 1 us (--time-res).
 * The writer then marks each use of an address that follows another
 * thread's use in the same unit, and keeps its time to 1 us
 * (hatf/container/container_order.h): that needs the uses of each address in the
 * order they were stamped, which a drain ring after ring does not give.
 *
 * Each step drains the ring whose oldest event is the oldest, up to the
 * oldest event of the others. Only events stamped before the drain began
 * are taken: one stamped earlier but published after the others were taken
 * would come out of order (the writer counts such events, hatf_writer_order_counts_).
 * Cost: a look at every ring's oldest event per step, and a step per run of
 * one thread's events between two of another's; with many threads at once
 * (over MAX_RINGS with events) the rings are drained one after the other. */
#include <stdint.h>

#include "flusher.h"
#include "flusher_state.h"
#include "recorder.h"
#include "registry.h"

enum { MAX_RINGS = 64 };

size_t ht_ring_cut(const uint64_t *raw, size_t n, uint64_t upto)
{
    size_t i = 0;
    while (i < n && raw[i * HT_UNIT_WORDS] >> HT_TK_SHIFT <= upto) i += hatf_raw_units(raw[i * HT_UNIT_WORDS]);
    return i;
}

/* The time of r's oldest event, UINT64_MAX when it has none. */
static uint64_t oldest(ht_ring *r)
{
    const uint64_t *raw;
    if (atomic_load_explicit(&r->state, memory_order_acquire) == HT_RING_FREE || !ht_ring_fill(r)) return UINT64_MAX;
    if (!ht_ring_peek(r, &raw, 1)) return UINT64_MAX;
    return raw[0] >> HT_TK_SHIFT;
}

/* Events given to the writer after a later use of their address by another
 * thread of their unit (stamped, then published after the drain that took
 * that use; or drained by their own thread, or with too many rings): that
 * later use may have no 1 us time, and the readers may order the two wrong.
 * Said once, not lost silently. */
static void warn_late(void)
{
    static uint64_t said;
    uint64_t events, marked, late;
    if (!ht_fs.writer) return;
    hatf_writer_order_counts_(ht_fs.writer, &events, &marked, &late);
    if (late && !said) {
        said = late;
        ht_warn("--time-res: %llu events came to the writer after a later use of their address by another "
                "thread in their time unit; those pairs may be read out of order", (unsigned long long)late);
    }
}

long ht_drain_merged(void)
{
    HATF_PRE(ht_wlock_held());
    uint64_t now = ht_now() - ht_t0;
    ht_ring *rings[MAX_RINGS];
    size_t n = 0;
    long total = 0;
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        if (oldest(r) > now) continue;
        if (n == MAX_RINGS) {  /* too many at once: one after the other */
            for (ht_ring *s = atomic_load(&ht_rings); s; s = s->next) total += ht_drain_ring_upto(s, now);
            return total;
        }
        rings[n++] = r;
    }
    for (;;) {
        size_t first = n;
        uint64_t t1 = UINT64_MAX, t2 = UINT64_MAX;  /* the oldest event, and the oldest of the other rings */
        for (size_t i = 0; i < n; i++) {
            uint64_t t = oldest(rings[i]);
            if (t < t1) t2 = t1, t1 = t, first = i;
            else if (t < t2) t2 = t;
        }
        if (first == n || t1 > now) break;
        uint64_t tail = atomic_load_explicit(&rings[first]->tail, memory_order_relaxed);
        long k = ht_drain_ring_upto(rings[first], t2 < now ? t2 : now);
        if (k < 0 || atomic_load_explicit(&rings[first]->tail, memory_order_relaxed) == tail) {
            for (size_t i = 0; i < n; i++) total += ht_drain_ring_upto(rings[i], now);
            break;
        }
        total += k;
    }
    /* a ring whose thread has exited and that was drained by the steps is
     * reclaimed by them; one that was empty already (skipped above) here, with
     * its thread-destroy if its thread is gone */
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        uint32_t st = atomic_load_explicit(&r->state, memory_order_acquire);
        if ((st == HT_RING_DEAD || st == HT_RING_EXITING) && !ht_ring_fill(r)) total += ht_drain_ring_upto(r, now);
    }
    warn_late();
    return total;
}
