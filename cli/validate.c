/* validate.c — hatrace validate: a deep check of a trace.
 *
 * Reads the events in global time order and keeps every address it has seen
 * (live or freed, with the record that last changed it), every thread and
 * every heap. One line per problem: "FILE: record R, offset O: what".
 *
 * Inversions (docs/tools.md): a moving realloc cannot stamp both halves with
 * one time, so another thread may be seen receiving an address before the
 * record that releases it, and that thread may be the object's owner (it
 * handed the object to the thread that reallocs it). An allocation of a live
 * address is held back as pending; if a release of that address by a thread other than the allocating one
 * arrives within WINDOW_RECORDS records or WINDOW_NS of trace time, the
 * release applies to the old object, the held allocation is applied after it,
 * and the case is counted as a resolved inversion (a note). Otherwise it is
 * reported as an allocation of a live address.
 *
 * Heaps. Each createHeap starts an instance of its heap id; objects name the
 * instance they were made in. A heap-destroy marks its instance ended, which
 * ends all its objects at once (O(1)): an object is live when it is not freed
 * and its instance is not ended. Heap 0 and heaps used without a create get
 * an instance on first use.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "check.h"
#include "cli_util.h"
#include "commands.h"
#include "lookahead.h"

#define WINDOW_RECORDS 1000
#define WINDOW_NS 10000     /* 10 us */
#define PENDING_MAX 4096
#define HELD_PER_ADDR 2    /* allocations of one address held back at once */

static const char help[] =
    "usage: hatrace validate [--from FORMAT] [--max-errors N] [--strict] [--from-time T]\n"
    "                        [--to-time T] [--phase NAME] [--thread N] [-j N] FILE\n"
    "\n"
    "Check a trace deeply and print one line per problem, with its record\n"
    "number and byte offset, then a summary. Problems: malformed or truncated\n"
    "records, container damage, dropped events, time going backwards on a\n"
    "thread, a free of an address never allocated or already freed, an\n"
    "allocation of an address still live, a realloc of an unknown address,\n"
    "events on a thread after its thread-destroy, a duplicate thread-create,\n"
    "use or destroy of a heap never created, a heap created twice, use of a\n"
    "heap or of its objects after its heap-destroy, a free naming another heap\n"
    "than the object's, a mismatched release (new with free, malloc with delete,\n"
    "new[] with delete, new with delete[], ...).\n"
    "\n"
    "An address handed out again just before the realloc or free that released\n"
    "it (a harmless reordering across threads) is tolerated when the release\n"
    "arrives within 1000 records or 10 us (even when the receiving thread owned\n"
    "the old object: a realloc is stamped after it returns); these are counted as resolved\n"
    "inversions in a note.\n"
    "\n"
    "In a fork child's trace (its header says forked), a release of an address\n"
    "the child never allocated is an object inherited from the parent: counted\n"
    "in a note, not a problem (a second release of it still is).\n"    "Likewise in an attached recording's trace (hatrace record -p; its header\n"
    "says attached), such a release is of an object allocated before tracing.\n"
    "\n"
    "A process that died of a signal (the recorder's note, hatrace-signal ...\n"
    "fatal) is named in a note; its thread's events after the note are problems.\n"
    "\n"
    "  --from FORMAT     hatrace (default), hatf1.0, text or metatf\n"
    "  --max-errors N    print at most N problems (default 100; 0: no limit)\n"
    "  --strict          stop at the first damaged part of a container (exit 1)\n"
    "                    instead of reading on past it (the damage said, exit 3)\n"
    WINDOW_HELP
    "  -j, --jobs N      read on N threads (default: one per core;\n"
    "                    1: this thread alone)\n"
    "  -h, --help        this help\n"
    "\n"
    "exit status: 0 no problem, 1 problems found or the file cannot be read.\n";

/* an object's entry: size, rec (record that made or freed it),
 * a = heap instance | OBJ_FREED, b = owner thread index | call family << FAM_SHIFT */
#define OBJ_FREED 0x80000000u
/* The family of the call that made an object must match the one that ends it,
 * as valgrind's memcheck checks: new with delete, new[] with delete[], the C
 * functions (malloc, calloc, realloc, the aligned ones) with free and realloc. */
enum { FAM_C = 0, FAM_NEW = 1, FAM_NEW_ARRAY = 2 };
#define FAM_SHIFT 30
#define THREAD_MASK ((1u << FAM_SHIFT) - 1)
static const char *const fam_made[] = { "a C allocation function", "new", "new[]" };
enum { TH_SEEN = 0, TH_CREATED = 1, TH_DESTROYED = 2, TH_DIED = 3 };
enum { HEAP_UNKNOWN = 0, HEAP_LIVE = 1, HEAP_DESTROYED = 2 };

typedef struct pending {
    uint64_t addr, size, rec, offset, time;
    uint64_t live_rec;      /* record of the live object it found */
    uint32_t heap, thread;  /* instance, thread index | call family << FAM_SHIFT */
} pending;

typedef struct heap_inst {
    uint64_t id;
    uint64_t end_rec;       /* record of its heap-destroy */
    int ended;
} heap_inst;

typedef struct vstate {
    const char *path;
    uint64_t problems, shown, max_shown, resolved;
    uint64_t rec, offset, time, records;
    double ns_per_unit;
    addrmap objs;      /* address -> object (see OBJ_FREED) */
    addrmap tidx;      /* thread id -> dense index, for objects */
    addrmap hinst;     /* heap id -> its current instance (a) */
    heap_inst *inst;
    size_t ninst, capinst;
    addrmap threads;   /* thread -> state (b), create/destroy record (rec), last time (size) */
    addrmap heaps;     /* heap -> state (b), create record (rec), destroy record (size) */
    pending *pend;
    size_t npend;
    int oom;
    int forked;        /* a fork child's trace: objects may come from the parent */
    int attached;      /* recorded by attaching to a running process: objects may predate the trace */
    uint64_t inherited; /* releases of objects the parent allocated before the fork */
    int died;          /* the recorder noted the signal the process died of */
    hatf_signal death;
    uint64_t death_rec;
} vstate;

#define U(x) ((unsigned long long)(x))

static void problem_at(vstate *v, uint64_t rec, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem_at(vstate *v, uint64_t rec, uint64_t off, const char *fmt, ...)
{
    v->problems++;
    if (v->max_shown && v->shown >= v->max_shown) return;
    v->shown++;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("%s: record %llu, offset %llu: %s\n", v->path, U(rec), U(off), msg);
}

#define problem(v, ...) problem_at(v, (v)->rec, (v)->offset, __VA_ARGS__)

static addrmap_entry *put(vstate *v, addrmap *m, uint64_t key, int *added)
{
    addrmap_entry *e = addrmap_put(m, key, added);
    if (!e) v->oom = 1;
    return e;
}

/* A new object at addr (alloc, realloc-new, the new half of a realloc). */
static void obj_new(vstate *v, uint64_t addr, uint64_t size, uint32_t heap, uint32_t thread)
{
    int added;
    addrmap_entry *e = put(v, &v->objs, addr, &added);
    if (!e) return;
    e->size = size;
    e->rec = v->rec;
    e->a = heap;
    e->b = thread;
}

/* The current instance of heap, or a new one. @return its index, or -1 (v->oom). */
static long cur_inst(vstate *v, uint64_t heap, int fresh)
{
    int added;
    addrmap_entry *e = put(v, &v->hinst, heap, &added);
    if (!e) return -1;
    if (!added && !fresh) return e->a;
    if (v->ninst == v->capinst) {
        size_t cap = v->capinst ? 2 * v->capinst : 64;
        heap_inst *n = cap < OBJ_FREED ? realloc(v->inst, cap * sizeof *n) : NULL;
        if (!n) { v->oom = 1; return -1; }
        v->inst = n;
        v->capinst = cap;
    }
    v->inst[v->ninst] = (heap_inst){ .id = heap };
    e->a = (uint32_t)v->ninst;
    return (long)v->ninst++;
}

static inline int obj_live(const vstate *v, const addrmap_entry *e)
{
    return !(e->a & OBJ_FREED) && !v->inst[e->a].ended;
}

static pending *find_pending(vstate *v, uint64_t addr)
{
    for (size_t i = 0; i < v->npend; i++)
        if (v->pend[i].addr == addr) return &v->pend[i];
    return NULL;
}

/* Allocations of addr held back now: a thread's own double allocation and
 * another thread's early reuse can wait for the same release. */
static size_t held_at(const vstate *v, uint64_t addr)
{
    size_t n = 0;
    for (size_t i = 0; i < v->npend; i++) n += v->pend[i].addr == addr;
    return n;
}

static void drop_pending(vstate *v, pending *p)
{
    /* keep arrival order: pending entries are reported in the order they came */
    size_t i = (size_t)(p - v->pend);
    memmove(p, p + 1, (v->npend - i - 1) * sizeof *p);
    v->npend--;
}

/* Held-back allocation p takes effect, as of its own record. */
static void settle(vstate *v, pending *p)
{
    uint64_t saved = v->rec;
    v->rec = p->rec;
    obj_new(v, p->addr, p->size, p->heap, p->thread);
    v->rec = saved;
    drop_pending(v, p);
}

static void report_unresolved(vstate *v, pending *p)
{
    problem_at(v, p->rec, p->offset, "allocation of 0x%llx, still live (allocated at record %llu)",
               U(p->addr), U(p->live_rec));
    settle(v, p);
}

/* An allocation at addr by thread: checks reuse of a live address. */
static void allocate(vstate *v, uint64_t addr, uint64_t size, uint32_t heap, uint32_t thread)
{
    if (!addr) return;  /* a failed call */
    addrmap_entry *e = addrmap_find(&v->objs, addr);
    if (!e || !obj_live(v, e)) { obj_new(v, addr, size, heap, thread); return; }
    if (v->npend < PENDING_MAX && held_at(v, addr) < HELD_PER_ADDR) {
        v->pend[v->npend++] = (pending){ addr, size, v->rec, v->offset, v->time, e->rec, heap, thread };
        return;
    }
    problem(v, "allocation of 0x%llx, still live (allocated at record %llu)", U(addr), U(e->rec));
    obj_new(v, addr, size, heap, thread);
}

/* Why the object at e is not live (pre: !obj_live). */
static void not_live(vstate *v, const addrmap_entry *e, const char *what)
{
    HATF_PRE(!obj_live(v, e));
    if (e->a & OBJ_FREED) {
        problem(v, "%s of 0x%llx, already freed at record %llu", what, U(e->key), U(e->rec));
    } else {
        const heap_inst *h = &v->inst[e->a];
        problem(v, "%s of 0x%llx, an object of heap %llu, after its heap-destroy at record %llu", what, U(e->key),
                U(h->id), U(h->end_rec));
    }
}

/* A fork child releases an address it never allocated: the parent's object,
 * inherited with the address space (its trace holds the allocation). Counted,
 * and remembered as freed, so a second release is still a double free.
 * @return 1 if so accepted. */
static int inherited(vstate *v, uint64_t addr, uint32_t thread)
{
    if (!v->forked && !v->attached) return 0;
    v->inherited++;
    obj_new(v, addr, 0, 0, thread);
    addrmap_entry *e = addrmap_find(&v->objs, addr);
    if (e) e->a |= OBJ_FREED;
    return 1;
}

/* A release by a call of family fam of the live object e: the same family as
 * the call that made it? */
static void check_family(vstate *v, const addrmap_entry *e, const char *what, unsigned fam)
{
    unsigned made = e->b >> FAM_SHIFT;
    if (made != fam)
        problem(v, "mismatched release: %s of 0x%llx, allocated with %s at record %llu", what, U(e->key),
                fam_made[made], U(e->rec));
}

/* The end of the object at addr (free, realloc's old half). what: "free", "realloc".
 * heap: the heap the record names (a free that names one must name the object's). */
static void release(vstate *v, uint64_t addr, uint64_t heap, uint32_t thread, const char *what, unsigned fam)
{
    pending *p = v->npend ? find_pending(v, addr) : NULL;
    if (p && (p->thread & THREAD_MASK) == thread) {
        /* the allocating thread releases its own allocation: the old object was
         * never released, and this release ends the held one (unless another
         * thread's allocation of the address waits too: then it is the next one) */
        report_unresolved(v, p);
        p = v->npend ? find_pending(v, addr) : NULL;
        if (p && (p->thread & THREAD_MASK) == thread) p = NULL;
    }
    addrmap_entry *e = addrmap_find(&v->objs, addr);
    if (!e) {
        if (!inherited(v, addr, thread)) problem(v, "%s of 0x%llx, never allocated", what, U(addr));
        return;
    }
    if (!obj_live(v, e)) {
        not_live(v, e, what);
        return;
    }
    if (heap && v->inst[e->a].id != heap)
        problem(v, "%s of 0x%llx in heap %llu, but it was allocated in heap %llu at record %llu", what, U(addr),
                U(heap), U(v->inst[e->a].id), U(e->rec));
    check_family(v, e, what, fam);
    e->a |= OBJ_FREED;
    e->rec = v->rec;
    if (p) {
        v->resolved++;
        settle(v, p);
    }
}

static void expire_pending(vstate *v, int all)
{
    while (v->npend) {
        pending *p = &v->pend[0];
        uint64_t dt = v->time > p->time ? v->time - p->time : 0;
        if (!all && (v->rec - p->rec <= WINDOW_RECORDS || (double)dt * v->ns_per_unit <= WINDOW_NS)) return;
        report_unresolved(v, p);
    }
}

static void check_heap_use(vstate *v, uint64_t heap)
{
    if (!heap) return;
    addrmap_entry *h = addrmap_find(&v->heaps, heap);
    if (!h) problem(v, "use of heap %llu, never created", U(heap));
    else if (h->a == HEAP_DESTROYED) problem(v, "use of heap %llu after its heap-destroy at record %llu", U(heap), U(h->size));
}

/* The family of an event's call (its func attribute; none: a C function). */
static unsigned call_family(const hatf_event *ev)
{
    if (!ev->data_len) return FAM_C;
    hatf_attrs a;
    hatf_event_attrs(ev, &a);
    switch (hatf_attrs_get(&a, HATF_A_FUNC, 0)) {
    case HATF_FN_NEW: case HATF_FN_DELETE: return FAM_NEW;
    case HATF_FN_NEW_ARRAY: case HATF_FN_DELETE_ARRAY: return FAM_NEW_ARRAY;
    default: return FAM_C;
    }
}

/* The recorder's note of the signal the process died of: its thread makes
 * no event after it. */
static void note_signal(vstate *v, const hatf_event *ev)
{
    hatf_signal s;
    if (!hatf_signal_parse(ev, &s) || !s.fatal) return;
    if (v->died) {
        problem(v, "a second signal the process died of (the first at record %llu)", U(v->death_rec));
        return;
    }
    v->died = 1;
    v->death = s;
    v->death_rec = v->rec;
    int added;
    addrmap_entry *t = put(v, &v->threads, s.thread, &added);
    if (!t) return;
    if (added) t->size = ev->time;
    t->a = TH_DIED;
}

static void check(vstate *v, const hatf_event *ev)
{
    int added;
    v->time = ev->time;
    if (ev->op == HATF_OP_COMMENT) {
        note_signal(v, ev);
        return;
    }

    addrmap_entry *t = put(v, &v->threads, ev->thread, &added);
    if (!t) return;
    if (added) { t->a = TH_SEEN; t->size = ev->time; }
    if (t->a == TH_DESTROYED)
        problem(v, "event on thread %llu after its thread-destroy at record %llu", U(ev->thread), U(t->rec));
    if (t->a == TH_DIED)
        problem(v, "event on thread %llu after the signal the process died of (record %llu)", U(ev->thread),
                U(v->death_rec));
    if (ev->time < t->size)
        problem(v, "time goes backwards on thread %llu (%llu after %llu)", U(ev->thread), U(ev->time), U(t->size));
    else
        t->size = ev->time;
    long ti = addrmap_index(&v->tidx, ev->thread, &added);
    if (ti < 0) { v->oom = 1; return; }
    long hi = 0;
    if (hatf_op_has_addr(ev->op)) {
        if ((hi = cur_inst(v, ev->heap, 0)) < 0) return;
        check_heap_use(v, ev->heap);  /* once, also for an in-place realloc checked as a move */
    }

    unsigned fam = call_family(ev);
    switch (ev->op) {
    case HATF_OP_ALLOC:  /* a failed call made no object, whatever its address (as stats and replay) */
        if (!hatf_event_failed(ev)) allocate(v, ev->addr, ev->size, (uint32_t)hi, (uint32_t)ti | fam << FAM_SHIFT);
        break;
    case HATF_OP_FREE:
        if (ev->addr) release(v, ev->addr, ev->heap, (uint32_t)ti, fam == FAM_NEW ? "delete" : fam ? "delete[]" : "free", fam);
        break;
    case HATF_OP_REALLOC_INPLACE:
        if (ev->addr == ev->new_addr) {
            addrmap_entry *e = addrmap_find(&v->objs, ev->addr);
            if (!e) {
                if (!inherited(v, ev->addr, (uint32_t)ti)) problem(v, "realloc of 0x%llx, never allocated", U(ev->addr));
            } else if (!obj_live(v, e)) not_live(v, e, "realloc");
            else {
                check_family(v, e, "realloc", FAM_C);
                e->size = ev->size;
                e->b &= THREAD_MASK;  /* now a C function's object */
                break;
            }
            obj_new(v, ev->new_addr, ev->size, (uint32_t)hi, (uint32_t)ti);
            break;
        }
        /* a foreign writer's in-place realloc that moved: check it as a move */
        __attribute__((fallthrough));
    case HATF_OP_REALLOC_MOVE:
        release(v, ev->addr, 0, (uint32_t)ti, "realloc", FAM_C);
        allocate(v, ev->new_addr, ev->size, (uint32_t)hi, (uint32_t)ti);
        break;
    case HATF_OP_REALLOC_NEW:
        if (!hatf_event_failed(ev)) allocate(v, ev->new_addr, ev->size, (uint32_t)hi, (uint32_t)ti);
        break;
    case HATF_OP_REALLOC_FREE:
        release(v, ev->addr, 0, (uint32_t)ti, "realloc", FAM_C);
        break;
    case HATF_OP_HEAP_CREATE: {
        if (!ev->heap) { problem(v, "heap-create of heap 0 (the default heap always exists)"); break; }
        addrmap_entry *h = put(v, &v->heaps, ev->heap, &added);
        if (!h) break;
        if (!added && h->a == HEAP_LIVE) {
            problem(v, "heap %llu created twice (first at record %llu)", U(ev->heap), U(h->rec));
            break;
        }
        h->a = HEAP_LIVE;
        h->rec = v->rec;
        cur_inst(v, ev->heap, 1);
        break;
    }
    case HATF_OP_HEAP_DESTROY: {
        if (!ev->heap) { problem(v, "heap-destroy of heap 0 (the default heap)"); break; }
        addrmap_entry *h = addrmap_find(&v->heaps, ev->heap);
        if (!h) { problem(v, "heap-destroy of heap %llu, never created", U(ev->heap)); break; }
        if (h->a == HEAP_DESTROYED) {
            problem(v, "heap %llu destroyed twice (first at record %llu)", U(ev->heap), U(h->size));
            break;
        }
        h->a = HEAP_DESTROYED;
        h->size = v->rec;
        addrmap_entry *ie = addrmap_find(&v->hinst, ev->heap);
        if (ie) {
            v->inst[ie->a].ended = 1;
            v->inst[ie->a].end_rec = v->rec;
            addrmap_remove(&v->hinst, ie);  /* later use (a problem) gets a new instance */
        }
        break;
    }
    case HATF_OP_THREAD_CREATE:
        if (t->a == TH_CREATED)
            problem(v, "duplicate thread-create of thread %llu (first at record %llu)", U(ev->thread), U(t->rec));
        if (t->a != TH_DESTROYED) { t->a = TH_CREATED; t->rec = v->rec; }
        break;
    case HATF_OP_THREAD_DESTROY:
        if (t->a != TH_DESTROYED) { t->a = TH_DESTROYED; t->rec = v->rec; }
        break;
    default:
        break;
    }
}

/* check() on an event back from the lookahead, where the source read it. */
static void check_item(vstate *v, const lookahead_item *x)
{
    v->rec = x->rec;
    v->offset = x->off;
    v->records++;
    check(v, &x->ev);
    if (v->npend) expire_pending(v, 0);
}

/* A read error as a problem line, at the offset of the bad record or chunk. */
static void report_read_error(vstate *v, const hatf_err *e)
{
    problem_at(v, e->record == UINT64_MAX ? v->records : e->record, e->offset, "%s", hatf_err_text(e));
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "from", required_argument, NULL, 'f' },
        { "max-errors", required_argument, NULL, 'm' },
        { "strict", no_argument, NULL, CLI_O_STRICT },
        CLI_JOBS_OPTION,
        WINDOW_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    hatf_format fmt = HATF_FMT_AUTO;
    uint64_t max_errors = 100;
    int c, rc;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":hj:", opts, NULL)) != -1) {
        if (window_option(c)) {
            if ((rc = window_parse("validate", c, optarg))) return rc;
            continue;
        }
        switch (c) {
        case 'f': if ((rc = cli_parse_format("validate", "--from", optarg, &fmt))) return rc; break;
        case 'm': if ((rc = cli_parse_u64("validate", "--max-errors", optarg, &max_errors))) return rc; break;
        case 'j': if ((rc = cli_parse_jobs("validate", optarg))) return rc; break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'h': return cli_help(help);
        default: return cli_bad_option("validate", c, argv);
        }
    }
    const char *path;
    if ((rc = cli_one_file("validate", argc, argv, &path))) return rc;
    hatf_source *s = cli_open_source(path, fmt);
    if (s) hatf_source_read_on(s, 0);  /* validate reports each damaged group itself, as a problem */
    if (!s) return CLI_FAIL;

    vstate v = { .path = path, .max_shown = max_errors };
    uint64_t num, den;
    cli_time_unit(s, &num, &den);
    v.ns_per_unit = (double)num / (double)den;
    const hatf_info *info = hatf_source_info(s);  /* NULL: a source without a header */
    v.forked = info && (info->flags & HATF_INFO_FORKED);
    v.attached = info && (info->flags & HATF_INFO_ATTACHED);
    v.pend = malloc(PENDING_MAX * sizeof *v.pend);
    if (!v.pend || addrmap_init(&v.objs) || addrmap_init(&v.tidx) || addrmap_init(&v.hinst) || addrmap_init(&v.threads) ||
        addrmap_init(&v.heaps)) {
        cli_error("out of memory");
        return CLI_FAIL;
    }

    hatf_reader *r = hatf_source_container(s);
    if (r) {
        const char *const *lines;
        size_t n = hatf_reader_damage(r, &lines);
        for (size_t i = 0; i < n; i++) {  /* damage lines name their own offset */
            v.problems++;
            if (!v.max_shown || v.shown < v.max_shown) { v.shown++; printf("%s: container damage: %s\n", path, lines[i]); }
        }
        const hatf_counters *ct = hatf_reader_counters(r);
        if (ct->dropped) {
            v.problems++;
            if (!v.max_shown || v.shown < v.max_shown) {
                v.shown++;
                printf("%s: the recorder dropped %llu events (counted in the index)\n", path, U(ct->dropped));
            }
        }
    }

    hatf_event ev;
    int got;
    lookahead q;  /* each event's object slot is prefetched LOOKAHEAD_N events before its check */
    lookahead_init(&q);
    const lookahead_item *x;
    for (;;) {
        while ((got = hatf_source_next(s, &ev)) > 0) {
            addrmap_prefetch(&v.objs, ev.addr);
            if (ev.new_addr != ev.addr) addrmap_prefetch(&v.objs, ev.new_addr);
            if (lookahead_push(&q, &ev, hatf_source_record(s), hatf_source_offset(s), &x) < 0) v.oom = 1;
            else if (x) check_item(&v, x);
            if (v.oom) break;
        }
        /* the events read are checked before a read error is told, as without the lookahead */
        while (!v.oom && (x = lookahead_pop(&q)) != NULL) check_item(&v, x);
        if (got >= 0 || v.oom) break;
        /* a damaged chunk group of a container: say so and check the rest */
        hatf_err damage = *hatf_source_error(s);
        if (cli_strict || hatf_source_resume(s) != 0) break;  /* --strict: the first damage ends the check */
        report_read_error(&v, &damage);
    }
    lookahead_free(&q);
    expire_pending(&v, 1);
    if (got < 0) report_read_error(&v, hatf_source_error(s));
    hatf_order_stats ord;
    hatf_source_order_stats(s, &ord);
    if (ord.unresolved) {
        v.problems++;
        if (!v.max_shown || v.shown < v.max_shown) {
            v.shown++;
            printf("%s: %llu group%s of events with one time on several threads ha%s no order consistent "
                   "with address liveness (read in tie order)\n",
                   path, U(ord.unresolved), ord.unresolved == 1 ? "" : "s", ord.unresolved == 1 ? "s" : "ve");
        }
    }
    rc = CLI_OK;
    if (v.oom) {
        cli_error("%s: out of memory after %llu records", path, U(v.records));
        rc = CLI_FAIL;
    } else {
        if (v.shown < v.problems)
            printf("%s: %llu more problems not shown (--max-errors)\n", path, U(v.problems - v.shown));
        if (v.died) {
            char how[160];
            cli_signal_text(&v.death, how, sizeof how);
            printf("%s: note: the process died of %s: objects live then are not leaks\n", path, how);
        }
        if (v.inherited && v.attached)
            printf("%s: note: %llu release%s of objects allocated before tracing (an attached recording)\n",
                   path, U(v.inherited), v.inherited == 1 ? "" : "s");
        else if (v.inherited)
            printf("%s: note: %llu release%s of objects inherited from the parent (a fork child's trace)\n",
                   path, U(v.inherited), v.inherited == 1 ? "" : "s");
        if (v.resolved)
            printf("%s: note: resolved %llu inversion%s (address reused just before its release arrived)\n",
                   path, U(v.resolved), v.resolved == 1 ? "" : "s");
        if (ord.early_releases)
            printf("%s: note: %llu release%s stamped before the allocation of its object on another thread, "
                   "put after it\n", path, U(ord.early_releases), ord.early_releases == 1 ? "" : "s");
        if (ord.tie_groups)
            printf("%s: note: %llu group%s of events with one time on several threads sharing an address, "
                   "%llu put in another order than the tie order by address liveness\n",
                   path, U(ord.tie_groups), ord.tie_groups == 1 ? "" : "s", U(ord.reordered));
        if (v.problems)
            printf("%s: %llu records, %llu problem%s\n", path, U(v.records), U(v.problems),
                   v.problems == 1 ? "" : "s");
        else
            printf("%s: %llu records, no problems\n", path, U(v.records));
        rc = v.problems ? CLI_FAIL : CLI_OK;
    }
    addrmap_free(&v.objs);
    addrmap_free(&v.tidx);
    addrmap_free(&v.hinst);
    free(v.inst);
    addrmap_free(&v.threads);
    addrmap_free(&v.heaps);
    free(v.pend);
    hatf_source_close(s);
    return cli_finish_stdout(rc);
}
