/* container_order.c — times that keep the order a coarse unit would lose
 * (see container_order.h). */
#include <stdlib.h>
#include <string.h>

#include "container_addr.h"
#include "container_order.h"
#include "container_plain.h"

void hatf_order_init(hatf_order *o, uint64_t num, uint64_t den, uint64_t res_ns)
{
    memset(o, 0, sizeof *o);
    hatf_tconv_init(&o->coarse, num, den, res_ns);
    hatf_tconv_init(&o->fine, num, den, HATF_ORDER_RES_NS);
    o->res_ns = res_ns;
    o->su = UINT64_MAX;
}

void hatf_order_free(hatf_order *o)
{
    free(o->tab);
    o->tab = NULL;
}

/* Whether the use of address a at tick (R unit unit) by thread follows a use
 * of a by another thread in the same unit; notes this use (ends: it ends
 * the object there). An entry taken by another address of this unit may have
 * pushed out a's: marked then too. A release that follows a release of a
 * (stamped before the allocation it ends, on another thread: an early
 * release, causal.h) is marked, so the readers' repair finds that allocation
 * within its window; so is a make that follows a make of a (a realloc on
 * another thread gave a back before its stamp, which comes later: its
 * release lead), so the readers put the realloc before it (container_read). */
static inline __attribute__((always_inline))
int follows_other(hatf_order *o, uint64_t a, uint64_t thread, uint64_t tick, uint64_t unit, unsigned ends)
{
    hatf_oslot *s = &o->tab[hatf_hash64(a, HATF_ORDER_BITS)];
    uint64_t who = thread << 1 | ends, dw = s->who ^ who;  /* dw > 1: another thread; dw & 1: not the same kind */
    int same = s->addr == a;
    int mark = (s->unit == unit && s->addr && (!same || dw > 1)) | (same && !(dw & 1));  /* two releases, or makes */
    if (same && s->tick > tick) {  /* given late: the later use was written before it */
        o->late += (uint64_t)mark;
        return mark;
    }
    *s = (hatf_oslot){ a, tick, unit, who };
    return mark;
}

/* R unit u in F units, rounded down; the last one kept (a unit holds
 * thousands of events: a 128-bit division each cost a tenth of the work). */
static inline uint64_t unit_start(hatf_order *o, uint64_t u)
{
    if (u != o->su) {
        unsigned __int128 x = (unsigned __int128)u * o->res_ns / HATF_ORDER_RES_NS;
        o->su = u;
        o->ss = x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
    }
    return o->ss;
}

/* The table, made at the first event. @return 0, or -1 out of memory. */
static int order_table(hatf_order *o)
{
    if (!o->tab && !(o->tab = calloc((size_t)1 << HATF_ORDER_BITS, sizeof *o->tab))) return -1;
    return 0;
}

/* hatf_order_stamp, the table made. */
static inline __attribute__((always_inline))
uint64_t stamp(hatf_order *o, uint64_t thread, uint64_t tick, uint64_t ends, uint64_t makes, uint64_t gave,
               uint64_t prev, uint64_t *lead)
{
    *lead = 0;
    uint64_t unit = hatf_tconv_next(&o->coarse, tick);
    int mark = ends && follows_other(o, ends, thread, tick, unit, 1);
    mark |= makes && follows_other(o, makes, thread, tick, unit, 0);
    /* a realloc that gave its block back inside its call: both halves to
     * the us, as the readers' promotion takes a make after its release time
     * to have come after the release (container_read) */
    mark |= gave != 0;
    o->marked += (uint64_t)mark;
    uint64_t t = mark ? hatf_tconv_apply(&o->fine, tick) : unit_start(o, unit);
    if (t < prev) t = prev;
    if (__builtin_expect(gave != 0, 0)) {  /* the release half, raised to prev as every time */
        uint64_t rel = hatf_tconv_apply(&o->fine, gave < tick ? tick - gave : 0);
        if (rel < prev) rel = prev;
        *lead = t > rel ? t - rel : 0;
    }
    return t;
}

uint64_t hatf_order_stamp(hatf_order *o, uint64_t thread, uint64_t tick, uint64_t ends, uint64_t makes, uint64_t gave,
                          uint64_t prev, uint64_t *lead)
{
    *lead = 0;
    if (order_table(o)) return UINT64_MAX;
    o->events++;
    return stamp(o, thread, tick, ends, makes, gave, prev, lead);
}

size_t hatf_order_plain_(hatf_order *o, uint64_t thread, const uint64_t *raw, size_t units, size_t max, uint64_t *out,
                         uint64_t *prev)
{
    const size_t W = HATF_RAW_UNIT_WORDS;
    if (order_table(o)) return SIZE_MAX;
    uint64_t p = *prev;
    size_t nu = 0, k = 0;
    for (; nu < units && k < max && hatf_raw_plain(raw[nu * W]); k++) {
        const uint64_t *x = raw + nu * W;
        uint64_t *y = out + nu * W;
        unsigned op;
        uint64_t a, size, na, lead, tick = x[0] >> HATF_RAW_TIME_SHIFT;
        size_t u = hatf_plain_read(x, &op, &a, &size, &na);
        uint64_t ends = 0, makes = 0, gave = 0;
        if (op == HATF_OP_ALLOC) makes = a;
        else if (op == HATF_OP_FREE) ends = a;
        else {  /* the reallocs (hatf_event_ends, _makes) */
            ends = op == HATF_OP_REALLOC_NEW ? 0 : a;
            makes = op == HATF_OP_REALLOC_FREE ? 0 : na;
            if (op == HATF_OP_REALLOC_MOVE || op == HATF_OP_REALLOC_FREE) gave = hatf_raw_release_lead(tick, x[4]);
        }
        uint64_t t = stamp(o, thread, tick, ends, makes, gave, p, &lead);
        y[0] = t << HATF_RAW_TIME_SHIFT | (x[0] & ((1u << HATF_RAW_TIME_SHIFT) - 1));
        y[1] = x[1];
        if (u > 1) {
            memcpy(y + 2, x + 2, (u * W - 2) * sizeof *y);
            /* the lead as its begin in the stored unit (none: the bit clear) */
            y[4] = (x[4] & (HATF_RAW_RELEASE_BIT - 1)) | (lead ? hatf_raw_release_d(t - lead) : 0);
        }
        p = t;
        nu += u;
    }
    o->events += k;
    *prev = p;
    return nu;
}
