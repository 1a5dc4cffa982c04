/* window.c — the part of a trace a reading command looks at; see window.h.
 *
 * The filter follows every object live in the trace, in or out of the
 * window, by address: the free of an object outside the window is passed
 * over, and a free of an address no one made (the program's bug, which
 * validate reports) is kept when in the window.
 */
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "phases.h"
#include "window.h"

/* An object's entry: size = its heap, rec = 1 when it is the window's. */
typedef struct window {
    window_spec spec;
    uint64_t num, den;       /* the trace's time unit, num/den ns */
    addrmap live;
    enum { PH_BEFORE, PH_IN, PH_AFTER } phase;
    int in_time;             /* the last timed event was within the window's times */
} window;

static uint64_t to_ns(const window *w, uint64_t t)
{
    return w->num == w->den ? t : (uint64_t)((unsigned __int128)t * w->num / w->den);
}

/* An object leaves the trace (a free, a realloc's old block). @return 1 when it was the window's. */
static int end_object(window *w, uint64_t addr, int *known)
{
    addrmap_entry *e = addr ? addrmap_find(&w->live, addr) : NULL;
    *known = e != NULL;
    if (!e) return 0;
    int mine = e->rec == 1;
    addrmap_remove(&w->live, e);
    return mine;
}

static int add_object(window *w, uint64_t addr, uint64_t heap, int mine)
{
    int added;
    if (!addr) return 0;
    addrmap_entry *e = addrmap_put(&w->live, addr, &added);
    if (!e) return HATF_E_NOMEM;
    e->size = heap;
    e->rec = mine ? 1 : 0;
    return 0;
}

/* A heap destroyed: its objects end. */
static void destroy_heap(window *w, uint64_t heap)
{
    for (size_t i = 0; i <= w->live.mask; i++) {
        addrmap_entry *e;
        while ((e = addrmap_slot(&w->live, i)) && e->size == heap) addrmap_remove(&w->live, e);
    }
}

/* The phase state at a comment. @return 1 when the comment is in the window. */
static int phase_comment(window *w, const hatf_event *ev)
{
    if (!w->spec.phase || !phases_is_phase(ev->data, ev->data_len)) return w->phase == PH_IN;
    int named = strlen(w->spec.phase) == ev->data_len && !memcmp(w->spec.phase, ev->data, ev->data_len);
    if (w->phase == PH_IN) w->phase = PH_AFTER;
    else if (w->phase == PH_BEFORE && named) w->phase = PH_IN;
    return w->phase == PH_IN;
}

static int filter(void *ctx, hatf_event *ev)
{
    window *w = ctx;
    if (ev->op == HATF_OP_COMMENT) return phase_comment(w, ev) && w->in_time;
    uint64_t t = to_ns(w, ev->time);
    w->in_time = t >= w->spec.from_ns && t < w->spec.to_ns;
    int in = w->in_time && w->phase == PH_IN;
    int by = !w->spec.has_thread || ev->thread == w->spec.thread;
    int known, mine, rc;
    switch (ev->op) {
    case HATF_OP_ALLOC:
        in = in && by;
        return (rc = add_object(w, ev->addr, ev->heap, in)) < 0 ? rc : in;
    case HATF_OP_FREE:
        mine = end_object(w, ev->addr, &known);
        return in && (mine || (!known && by));
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE: {
        int failed = hatf_event_failed(ev);
        mine = end_object(w, ev->addr, &known);
        if (failed && known) add_object(w, ev->addr, ev->heap, mine);  /* a failed call leaves it as it was */
        int pass = in && (mine || by);
        if (pass && ev->addr && known && !mine) {  /* another's object: made anew in the window */
            if (ev->op == HATF_OP_REALLOC_FREE || failed) pass = 0;
            else ev->op = HATF_OP_REALLOC_NEW, ev->addr = 0;
        }
        if (!failed && (rc = add_object(w, ev->new_addr, ev->heap, pass)) < 0) return rc;
        return pass;
    }
    case HATF_OP_HEAP_CREATE:
        return 1;
    case HATF_OP_HEAP_DESTROY:
        destroy_heap(w, ev->heap);
        return in;
    default:  /* thread records */
        return in && by;
    }
}

static void done(void *ctx)
{
    window *w = ctx;
    addrmap_free(&w->live);
    free(w);
}

int window_filter(hatf_source *s, const window_spec *spec, uint64_t unit_num, uint64_t unit_den)
{
    window *w = calloc(1, sizeof *w);
    if (!w || addrmap_init(&w->live)) {
        free(w);
        return -1;
    }
    w->spec = *spec;
    w->num = unit_num;
    w->den = unit_den;
    w->phase = !spec->phase || !strcmp(spec->phase, "(start)") ? PH_IN : PH_BEFORE;
    w->in_time = spec->from_ns == 0;
    hatf_source_filter(s, filter, done, w);
    return 0;
}
