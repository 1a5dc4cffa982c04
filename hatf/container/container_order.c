/* container_order.c — times that keep the order a coarse unit would lose
 * (see container_order.h). */
#include <stdlib.h>
#include <string.h>

#include "container_addr.h"
#include "container_order.h"

void hatf_order_init(hatf_order *o, uint64_t num, uint64_t den, uint64_t res_ns)
{
    memset(o, 0, sizeof *o);
    hatf_tconv_init(&o->coarse, num, den, res_ns);
    hatf_tconv_init(&o->fine, num, den, HATF_ORDER_RES_NS);
    o->res_ns = res_ns;
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
static int follows_other(hatf_order *o, uint64_t a, uint64_t thread, uint64_t tick, uint64_t unit, int ends)
{
    hatf_oslot *s = &o->tab[hatf_hash64(a, HATF_ORDER_BITS)];
    int mark = s->addr && s->unit == unit && (s->addr != a || s->thread != thread);
    mark |= s->addr == a && s->ended == (uint64_t)ends;  /* two releases, or two makes, in a row */
    if (s->addr == a && s->tick > tick) {  /* given late: the later use was written before it */
        if (mark) o->late++;
        return mark;
    }
    *s = (hatf_oslot){ a, thread, tick, unit, (uint64_t)ends };
    return mark;
}

/* R unit u in F units, rounded down. */
static uint64_t unit_start(const hatf_order *o, uint64_t u)
{
    unsigned __int128 x = (unsigned __int128)u * o->res_ns / HATF_ORDER_RES_NS;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

uint64_t hatf_order_time(hatf_order *o, const hatf_event *e, uint64_t prev, uint64_t *lead)
{
    *lead = 0;
    if (!o->tab && !(o->tab = calloc((size_t)1 << HATF_ORDER_BITS, sizeof *o->tab))) return UINT64_MAX;
    uint64_t tick = e->time, unit = hatf_tconv_next(&o->coarse, tick);
    uint64_t ends = hatf_event_ends(e), makes = hatf_event_makes(e);
    int mark_end = ends && follows_other(o, ends, e->thread, tick, unit, 1);
    int mark = (makes && follows_other(o, makes, e->thread, tick, unit, 0)) | mark_end;
    /* a realloc that gave its block back inside its call: both halves to
     * the us, as the readers' promotion takes a make after its release time
     * to have come after the release (container_read) */
    int gives_back = hatf_event_releases_early(e) && e->release_lead;
    mark |= gives_back;
    o->events++;
    o->marked += (uint64_t)mark;
    uint64_t t = mark ? hatf_tconv_apply(&o->fine, tick) : unit_start(o, unit);
    if (t < prev) t = prev;
    if (gives_back) {  /* the release half, raised to prev as every time */
        uint64_t rt = e->release_lead < tick ? tick - e->release_lead : 0;
        uint64_t rel = hatf_tconv_apply(&o->fine, rt);
        if (rel < prev) rel = prev;
        *lead = t > rel ? t - rel : 0;
    }
    return t;
}
