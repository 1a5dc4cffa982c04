/* container_order.h — the order a coarse time unit would lose, kept where it
 * is needed (internal to libhatf; the container writer uses it).
 *
 * With time_res_ns R above HATF_ORDER_RES_NS (F, 1 us), a writer stores times
 * in units of F: every event's time rounded down to R, as before, except an
 * event whose address was last used by ANOTHER thread in the SAME R unit,
 * which keeps its time rounded down to F (it is "marked"). A thread's times
 * never go backwards (each is raised to the thread's previous one), so an
 * unmarked event inherits the time of its thread's last marked one in the
 * unit. Every stored time is at most the real one, and for each pair of
 * consecutive uses of an address by two threads in one R unit the later is
 * marked: its stored time is the real one (to F), above the earlier's. So the
 * readers' merge by time keeps every address's uses in their real order, up
 * to ties of one F unit, which they order by liveness as in any 1 us trace
 * (causal.h). Readers need nothing new: the header's unit is F.
 *
 * This needs the events of all threads given in time order (the recorder's
 * flusher drains its rings merged by time at such units; a reader's global
 * order does it for `hatrace convert`). An event older than the last use of
 * one of its addresses by another thread in its unit (given late) is marked
 * and counted: the later use, already written, may have no mark.
 *
 * A release that follows a release of its address (stamped early, causal.h)
 * is marked too, so the readers' repair window of 2 us reaches the allocation;
 * and a make that follows a make of its address (a moving realloc on another
 * thread gave it back before its own later stamp), so the readers' promotion
 * of that realloc (its release lead) sees the make after its release. A
 * realloc that gave its block back inside its call (a release lead) is always
 * marked, its release time to F too: the readers take a make of its old
 * block after that time to be after the release, which a time rounded down
 * to R would not say.
 *
 * Cost: a table of 2^16 recent addresses (2.5 MiB, made at the first event),
 * one lookup per address of an event; nothing when R <= F.
 */
#ifndef HATF_CONTAINER_ORDER_H
#define HATF_CONTAINER_ORDER_H

#include <stdint.h>
#include "container_time.h"
#include "hatf.h"
#include "hatf_recorder.h"  /* HATF_ORDER_RES_NS (F), hatf_order_wanted: R above F */

#define HATF_ORDER_BITS 16        /* the table of recent addresses: 2^16 entries */

typedef struct hatf_oslot {
    uint64_t addr, thread, tick, unit, ended;  /* the last use of addr: by thread, at tick, in R unit; it ended the object */
} hatf_oslot;

typedef struct hatf_order {
    hatf_tconv coarse;            /* ticks -> R units */
    hatf_tconv fine;              /* ticks -> F units */
    uint64_t res_ns;              /* R */
    hatf_oslot *tab;              /* 2^HATF_ORDER_BITS, made at the first event */
    uint64_t marked, late, events;
} hatf_order;


void hatf_order_init(hatf_order *o, uint64_t num, uint64_t den, uint64_t res_ns);
void hatf_order_free(hatf_order *o);

/* The stored time (F units) of e, given its thread's previous stored time
 * prev (0 at its start), and in *lead its release lead in F units.
 * @return UINT64_MAX when out of memory (the table). */
uint64_t hatf_order_time(hatf_order *o, const hatf_event *e, uint64_t prev, uint64_t *lead);

#endif /* HATF_CONTAINER_ORDER_H */
