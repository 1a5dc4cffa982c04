/* window.c — the part of a trace a reading command looks at; see window.h.
 *
 * The filter follows every object live in the trace, in or out of the
 * window, by address: the free of an object outside the window is passed
 * over, and a free of an address no one made (the program's bug, which
 * validate reports) is kept when in the window.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "cli_util.h"
#include "phases.h"
#include "window.h"

static struct {
    int given;
    uint64_t from_ns, to_ns;  /* [from, to) */
    const char *phase;        /* NULL: none */
    int has_thread;
    uint64_t thread;
} opts = { 0, 0, UINT64_MAX, NULL, 0, 0 };

/* An object's entry: size = its heap, rec = 1 when it is the window's. */
typedef struct window {
    uint64_t num, den;       /* the trace's time unit, num/den ns */
    addrmap live;
    enum { PH_BEFORE, PH_IN, PH_AFTER } phase;
    int in_time;             /* the last timed event was within the window's times */
} window;

int window_parse_time(const char *arg, uint64_t *ns)
{
    char *end;
    if (!arg[0] || arg[0] == '-' || arg[0] == '+') return -1;
    double v = strtod(arg, &end);
    double scale = 1e9;
    if (!strcmp(end, "ns")) scale = 1;
    else if (!strcmp(end, "us")) scale = 1e3;
    else if (!strcmp(end, "ms")) scale = 1e6;
    else if (strcmp(end, "s") && *end) return -1;
    double x = v * scale;
    if (!(x >= 0) || x >= 1.8e19) return -1;
    *ns = (uint64_t)(x + 0.5);
    return 0;
}

int window_parse(const char *cmd, int opt, const char *arg)
{
    opts.given = 1;
    switch (opt) {
    case WINDOW_O_FROM:
    case WINDOW_O_TO: {
        uint64_t ns;
        if (window_parse_time(arg, &ns))
            return cli_usage(cmd, "%s: %s is not a time (a number of s, ms, us or ns: 1.5s, 250ms)",
                             opt == WINDOW_O_FROM ? "--from-time" : "--to-time", arg);
        if (opt == WINDOW_O_FROM) opts.from_ns = ns;
        else opts.to_ns = ns;
        if (opts.from_ns >= opts.to_ns) return cli_usage(cmd, "--from-time must be before --to-time");
        return 0;
    }
    case WINDOW_O_PHASE:
        opts.phase = arg;
        return 0;
    default:
        opts.has_thread = 1;
        return cli_parse_u64(cmd, "--thread", arg, &opts.thread);
    }
}

int window_given(void) { return opts.given; }

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
    if (!opts.phase || !phases_is_phase(ev->data, ev->data_len)) return w->phase == PH_IN;
    int named = strlen(opts.phase) == ev->data_len && !memcmp(opts.phase, ev->data, ev->data_len);
    if (w->phase == PH_IN) w->phase = PH_AFTER;
    else if (w->phase == PH_BEFORE && named) w->phase = PH_IN;
    return w->phase == PH_IN;
}

static int filter(void *ctx, hatf_event *ev)
{
    window *w = ctx;
    if (ev->op == HATF_OP_COMMENT) return phase_comment(w, ev) && w->in_time;
    uint64_t t = to_ns(w, ev->time);
    w->in_time = t >= opts.from_ns && t < opts.to_ns;
    int in = w->in_time && w->phase == PH_IN;
    int by = !opts.has_thread || ev->thread == opts.thread;
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

int window_install(hatf_source *s)
{
    if (!opts.given) return 0;
    window *w = calloc(1, sizeof *w);
    if (!w || addrmap_init(&w->live)) {
        free(w);
        cli_error("out of memory");
        return -1;
    }
    cli_time_unit(s, &w->num, &w->den);
    w->phase = !opts.phase || !strcmp(opts.phase, "(start)") ? PH_IN : PH_BEFORE;
    w->in_time = opts.from_ns == 0;
    hatf_source_filter(s, filter, done, w);
    return 0;
}
