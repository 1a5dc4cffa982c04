/* validate.c — the checks of hatrace validate (see validate.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "check.h"
#include "heaplive.h"
#include "lookahead.h"
#include "validate.h"

#define PENDING_MAX 4096
#define HELD_PER_ADDR 2    /* allocations of one address held back at once */

/* A cell's tag: the thread's dense index | the call family << FAM_SHIFT.
 * The family of the call that made an object must match the one that ends
 * it: new with delete, new[] with delete[], the C functions (malloc, calloc,
 * realloc, the aligned ones) with free and realloc. */
enum { FAM_C = 0, FAM_NEW = 1, FAM_NEW_ARRAY = 2, NFAM = 3 };
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

/* The cell last used by a thread for a family, and its instance (most
 * allocations of a thread stay in one heap: no look-up of the cell). */
typedef struct tcell {
    uint32_t inst, cell;    /* cell UINT32_MAX: none yet */
} tcell;

struct validate {
    validate_opts o;
    validate_figures f;
    uint64_t rec, offset, time;
    heaplive objs;     /* address -> object: rec = the record that made or ended it */
    addrmap tidx;      /* thread id -> dense index, for objects */
    addrmap hinst;     /* heap id -> its current instance (a) */
    heap_inst *inst;
    size_t ninst, capinst;
    tcell *tcells;     /* thread index * NFAM + family -> its last cell */
    uint64_t last_thread, last_ti;  /* tidx's last answer, index + 1 (0: none): runs of one thread skip the look-up */
    size_t captcells;
    addrmap threads;   /* thread -> state (b), create/destroy record (rec), last time (size) */
    addrmap heaps;     /* heap -> state (b), create record (rec), destroy record (size) */
    pending *pend;
    size_t npend;
    int oom;
};

#define U(x) ((unsigned long long)(x))

static void problem_at(validate *v, uint64_t rec, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem_at(validate *v, uint64_t rec, uint64_t off, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    v->o.problem(v->o.ctx, rec, off, msg);
}

#define problem(v, ...) problem_at(v, (v)->rec, (v)->offset, __VA_ARGS__)

static addrmap_entry *put(validate *v, addrmap *m, uint64_t key, int *added)
{
    addrmap_entry *e = addrmap_put(m, key, added);
    if (!e) v->oom = 1;
    return e;
}

/* The cell of instance inst and tag (thread | family), from the thread's
 * last one when it is in inst (pre: the thread's tcells made, check()).
 * @return it, or -1 (v->oom). */
static inline long cell_of(validate *v, uint32_t inst, uint32_t tag)
{
    tcell *t = &v->tcells[(size_t)(tag & THREAD_MASK) * NFAM + (tag >> FAM_SHIFT)];
    if (t->inst == inst && t->cell != UINT32_MAX) return t->cell;
    long c = heaplive_cell_of(&v->objs, inst, tag);
    if (c < 0) { v->oom = 1; return -1; }
    *t = (tcell){ inst, (uint32_t)c };
    return c;
}

/* Room in tcells for thread index ti. @return 0, or -1 (v->oom). */
static int thread_cells(validate *v, size_t ti)
{
    if ((ti + 1) * NFAM <= v->captcells) return 0;
    size_t cap = v->captcells ? 2 * v->captcells : 64;
    while (cap < (ti + 1) * NFAM) cap *= 2;
    tcell *n = realloc(v->tcells, cap * sizeof *n);
    if (!n) { v->oom = 1; return -1; }
    memset(n + v->captcells, 0xff, (cap - v->captcells) * sizeof *n);  /* none yet */
    v->tcells = n;
    v->captcells = cap;
    return 0;
}

/* A new object at addr in instance heap, live. @return its entry, or NULL (v->oom). */
static inline __attribute__((always_inline)) addrmap_entry *obj_put(validate *v, uint64_t addr, uint64_t size, uint32_t heap, uint32_t thread)
{
    long c = cell_of(v, heap, thread);
    addrmap_entry *e = c < 0 ? NULL : heaplive_put(&v->objs, addr, size, (uint32_t)c);
    if (!e) {
        v->oom = 1;
        return NULL;
    }
    e->rec = v->rec;
    return e;
}

/* A new object at addr (alloc, realloc-new, the new half of a realloc); in
 * an instance ended meanwhile (an allocation held back past its heap's
 * destroy), ended at once. */
static inline __attribute__((always_inline)) void obj_new(validate *v, uint64_t addr, uint64_t size, uint32_t heap, uint32_t thread)
{
    addrmap_entry *e = obj_put(v, addr, size, heap, thread);
    if (e && v->inst[heap].ended) heaplive_kill(&v->objs, e);
}

/* The current instance of heap, or a new one. @return its index, or -1 (v->oom). */
static long cur_inst(validate *v, uint64_t heap, int fresh)
{
    int added;
    addrmap_entry *e = put(v, &v->hinst, heap, &added);
    if (!e) return -1;
    if (!added && !fresh) return e->a;
    if (v->ninst == v->capinst) {
        size_t cap = v->capinst ? 2 * v->capinst : 64;
        heap_inst *n = cap < UINT32_MAX ? realloc(v->inst, cap * sizeof *n) : NULL;
        if (!n) { v->oom = 1; return -1; }
        v->inst = n;
        v->capinst = cap;
    }
    v->inst[v->ninst] = (heap_inst){ .id = heap };
    e->a = (uint32_t)v->ninst;
    return (long)v->ninst++;
}

static inline int obj_live(const validate *v, const addrmap_entry *e)
{
    return heaplive_state(&v->objs, e) == HEAPLIVE_LIVE;
}

/* The heap instance and tag (thread | family) of an object. */
static inline uint32_t obj_inst(const validate *v, const addrmap_entry *e)
{
    return heaplive_cell_at(&v->objs, e)->heap;
}
static inline uint32_t obj_tag(const validate *v, const addrmap_entry *e)
{
    return heaplive_cell_at(&v->objs, e)->tag;
}

static pending *find_pending(validate *v, uint64_t addr)
{
    for (size_t i = 0; i < v->npend; i++)
        if (v->pend[i].addr == addr) return &v->pend[i];
    return NULL;
}

/* Allocations of addr held back now: a thread's own double allocation and
 * another thread's early reuse can wait for the same release. */
static size_t held_at(const validate *v, uint64_t addr)
{
    size_t n = 0;
    for (size_t i = 0; i < v->npend; i++) n += v->pend[i].addr == addr;
    return n;
}

static void drop_pending(validate *v, pending *p)
{
    /* keep arrival order: pending entries are reported in the order they came */
    size_t i = (size_t)(p - v->pend);
    memmove(p, p + 1, (v->npend - i - 1) * sizeof *p);
    v->npend--;
}

/* Held-back allocation p takes effect, as of its own record. */
static void settle(validate *v, pending *p)
{
    uint64_t saved = v->rec;
    v->rec = p->rec;
    obj_new(v, p->addr, p->size, p->heap, p->thread);
    v->rec = saved;
    drop_pending(v, p);
}

static void report_unresolved(validate *v, pending *p)
{
    problem_at(v, p->rec, p->offset, "allocation of 0x%llx, still live (allocated at record %llu)",
               U(p->addr), U(p->live_rec));
    settle(v, p);
}

/* An allocation at addr by thread: checks reuse of a live address. */
static void allocate(validate *v, uint64_t addr, uint64_t size, uint32_t heap, uint32_t thread)
{
    if (!addr) return;  /* a failed call */
    addrmap_entry *e = heaplive_find(&v->objs, addr);
    if (!e || !obj_live(v, e)) { obj_new(v, addr, size, heap, thread); return; }
    if (v->npend < PENDING_MAX && held_at(v, addr) < HELD_PER_ADDR) {
        v->pend[v->npend++] = (pending){ addr, size, v->rec, v->offset, v->time, e->rec, heap, thread };
        return;
    }
    problem(v, "allocation of 0x%llx, still live (allocated at record %llu)", U(addr), U(e->rec));
    obj_new(v, addr, size, heap, thread);
}

/* Why the object at e is not live (pre: !obj_live). */
static void not_live(validate *v, const addrmap_entry *e, const char *what)
{
    HATF_PRE(!obj_live(v, e));
    if (heaplive_state(&v->objs, e) == HEAPLIVE_FREED_OBJ) {
        problem(v, "%s of 0x%llx, already freed at record %llu", what, U(e->key), U(e->rec));
    } else {
        const heap_inst *h = &v->inst[obj_inst(v, e)];
        problem(v, "%s of 0x%llx, an object of heap %llu, after its heap-destroy at record %llu", what, U(e->key),
                U(h->id), U(h->end_rec));
    }
}

/* A fork child releases an address it never allocated: the parent's object,
 * inherited with the address space (its trace holds the allocation). Counted,
 * and remembered as freed, so a second release is still a double free.
 * @return 1 if so accepted. */
static int inherited(validate *v, uint64_t addr, uint32_t thread)
{
    if (!v->o.forked && !v->o.attached) return 0;
    v->f.inherited++;
    addrmap_entry *e = obj_put(v, addr, 0, 0, thread);
    if (e) heaplive_end(&v->objs, e);
    return 1;
}

/* A release by a call of family fam of the live object e: the same family as
 * the call that made it? A sized delete (sized: its size, UINT64_MAX: none)
 * must give the size the matching new was asked for (C++'s rule; the
 * aligned forms too, and new[]'s size holds the array cookie in both), which
 * is the size the trace holds for the object. */
static inline __attribute__((always_inline)) void check_family(validate *v, const addrmap_entry *e, const char *what, unsigned fam, uint64_t sized)
{
    unsigned made = obj_tag(v, e) >> FAM_SHIFT;
    if (made != fam)
        problem(v, "mismatched release: %s of 0x%llx, allocated with %s at record %llu", what, U(e->key),
                fam_made[made], U(e->rec));
    else if (sized != UINT64_MAX && sized != e->size)
        problem(v, "sized %s of 0x%llx with size %llu, allocated with size %llu at record %llu", what, U(e->key),
                U(sized), U(e->size), U(e->rec));
}

/* The end of the object at addr (free, realloc's old half). what: "free", "realloc".
 * heap: the heap the record names (a free that names one must name the object's). */
static void release(validate *v, uint64_t addr, uint64_t heap, uint32_t thread, const char *what, unsigned fam,
                    uint64_t sized)
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
    addrmap_entry *e = heaplive_find(&v->objs, addr);
    if (!e) {
        if (!inherited(v, addr, thread)) problem(v, "%s of 0x%llx, never allocated", what, U(addr));
        return;
    }
    if (!obj_live(v, e)) {
        not_live(v, e, what);
        return;
    }
    const heap_inst *h = &v->inst[obj_inst(v, e)];
    if (heap && h->id != heap)
        problem(v, "%s of 0x%llx in heap %llu, but it was allocated in heap %llu at record %llu", what, U(addr),
                U(heap), U(h->id), U(e->rec));
    check_family(v, e, what, fam, sized);
    heaplive_end(&v->objs, e);
    e->rec = v->rec;
    if (p) {
        v->f.resolved++;
        settle(v, p);
    }
}

static void expire_pending(validate *v, int all)
{
    while (v->npend) {
        pending *p = &v->pend[0];
        uint64_t dt = v->time > p->time ? v->time - p->time : 0;
        if (!all && (v->rec - p->rec <= VALIDATE_WINDOW_RECORDS ||
                     (double)dt * v->o.ns_per_unit <= VALIDATE_WINDOW_NS))
            return;
        report_unresolved(v, p);
    }
}

static void check_heap_use(validate *v, uint64_t heap)
{
    if (!heap) return;
    addrmap_entry *h = addrmap_find(&v->heaps, heap);
    if (!h) problem(v, "use of heap %llu, never created", U(heap));
    else if (h->a == HEAP_DESTROYED) problem(v, "use of heap %llu after its heap-destroy at record %llu", U(heap), U(h->size));
}

/* The family of an event's call (its func attribute; none: a C function),
 * and the size a sized delete was given (its sized attribute) in *sized,
 * UINT64_MAX when it has none. */
static unsigned call_family(const hatf_event *ev, uint64_t *sized)
{
    *sized = UINT64_MAX;
    if (!ev->data_len) return FAM_C;
    hatf_attrs a;
    hatf_event_attrs(ev, &a);
    if (ev->op == HATF_OP_FREE) *sized = hatf_attrs_get(&a, HATF_A_SIZED, UINT64_MAX);
    switch (hatf_attrs_get(&a, HATF_A_FUNC, 0)) {
    case HATF_FN_NEW: case HATF_FN_DELETE: return FAM_NEW;
    case HATF_FN_NEW_ARRAY: case HATF_FN_DELETE_ARRAY: return FAM_NEW_ARRAY;
    default: return FAM_C;
    }
}

/* The recorder's note of the signal the process died of: its thread makes
 * no event after it. */
static void note_signal(validate *v, const hatf_event *ev)
{
    hatf_signal s;
    if (!hatf_signal_parse(ev, &s) || !s.fatal) return;
    if (v->f.died) {
        problem(v, "a second signal the process died of (the first at record %llu)", U(v->f.death_rec));
        return;
    }
    v->f.died = 1;
    v->f.death = s;
    v->f.death_rec = v->rec;
    int added;
    addrmap_entry *t = put(v, &v->threads, s.thread, &added);
    if (!t) return;
    if (added) t->size = ev->time;
    t->a = TH_DIED;
}

/* A realloc in place (addr == new_addr): the object's size changes, and it
 * is now a C function's object. */
static void realloc_inplace(validate *v, const hatf_event *ev, uint32_t hi, uint32_t ti)
{
    addrmap_entry *e = heaplive_find(&v->objs, ev->addr);
    if (!e) {
        if (!inherited(v, ev->addr, ti)) problem(v, "realloc of 0x%llx, never allocated", U(ev->addr));
    } else if (!obj_live(v, e)) {
        not_live(v, e, "realloc");
    } else {
        check_family(v, e, "realloc", FAM_C, UINT64_MAX);
        uint64_t rec = e->rec;  /* still the record that made it */
        long c = cell_of(v, obj_inst(v, e), obj_tag(v, e) & THREAD_MASK);
        if (c >= 0 && (e = heaplive_put(&v->objs, ev->addr, ev->size, (uint32_t)c)) != NULL) e->rec = rec;
        else v->oom = 1;
        return;
    }
    obj_new(v, ev->new_addr, ev->size, hi, ti);
}

static void heap_create(validate *v, const hatf_event *ev)
{
    int added;
    if (!ev->heap) { problem(v, "heap-create of heap 0 (the default heap always exists)"); return; }
    addrmap_entry *h = put(v, &v->heaps, ev->heap, &added);
    if (!h) return;
    if (!added && h->a == HEAP_LIVE) {
        problem(v, "heap %llu created twice (first at record %llu)", U(ev->heap), U(h->rec));
        return;
    }
    h->a = HEAP_LIVE;
    h->rec = v->rec;
    cur_inst(v, ev->heap, 1);
}

static void heap_destroy(validate *v, const hatf_event *ev)
{
    if (!ev->heap) { problem(v, "heap-destroy of heap 0 (the default heap)"); return; }
    addrmap_entry *h = addrmap_find(&v->heaps, ev->heap);
    if (!h) { problem(v, "heap-destroy of heap %llu, never created", U(ev->heap)); return; }
    if (h->a == HEAP_DESTROYED) {
        problem(v, "heap %llu destroyed twice (first at record %llu)", U(ev->heap), U(h->size));
        return;
    }
    h->a = HEAP_DESTROYED;
    h->size = v->rec;
    addrmap_entry *ie = addrmap_find(&v->hinst, ev->heap);
    if (ie) {
        v->inst[ie->a].ended = 1;
        v->inst[ie->a].end_rec = v->rec;
        heaplive_destroy_heap(&v->objs, ie->a);  /* its objects end (an instance is never used again) */
        addrmap_remove(&v->hinst, ie);  /* later use (a problem) gets a new instance */
    }
}

/* The thread of ev: its state checked and its time. @return its entry, or NULL (v->oom). */
static addrmap_entry *check_thread(validate *v, const hatf_event *ev)
{
    int added;
    addrmap_entry *t = put(v, &v->threads, ev->thread, &added);
    if (!t) return NULL;
    if (added) { t->a = TH_SEEN; t->size = ev->time; }
    if (t->a == TH_DESTROYED)
        problem(v, "event on thread %llu after its thread-destroy at record %llu", U(ev->thread), U(t->rec));
    if (t->a == TH_DIED)
        problem(v, "event on thread %llu after the signal the process died of (record %llu)", U(ev->thread),
                U(v->f.death_rec));
    if (ev->time < t->size)
        problem(v, "time goes backwards on thread %llu (%llu after %llu)", U(ev->thread), U(ev->time), U(t->size));
    else
        t->size = ev->time;
    return t;
}

/* The dense index of thread (addrmap_index of tidx), the last one kept. */
static inline long thread_index(validate *v, uint64_t thread, int *added)
{
    if (v->last_ti && v->last_thread == thread) {
        *added = 0;
        return (long)v->last_ti - 1;
    }
    long ti = addrmap_index(&v->tidx, thread, added);
    if (ti >= 0) v->last_thread = thread, v->last_ti = (uint64_t)ti + 1;
    return ti;
}

static void check(validate *v, const hatf_event *ev)
{
    int added;
    v->time = ev->time;
    if (ev->op == HATF_OP_COMMENT) {
        note_signal(v, ev);
        return;
    }
    addrmap_entry *t = check_thread(v, ev);
    if (!t) return;
    long ti = thread_index(v, ev->thread, &added);
    if (ti < 0) { v->oom = 1; return; }
    if (added && thread_cells(v, (size_t)ti)) return;
    long hi = 0;
    if (hatf_op_has_addr(ev->op)) {
        if ((hi = cur_inst(v, ev->heap, 0)) < 0) return;
        check_heap_use(v, ev->heap);  /* once, also for an in-place realloc checked as a move */
    }

    uint64_t sized;
    unsigned fam = call_family(ev, &sized);
    switch (ev->op) {
    case HATF_OP_ALLOC:  /* a failed call made no object, whatever its address (as stats and replay) */
        if (!hatf_event_failed(ev)) allocate(v, ev->addr, ev->size, (uint32_t)hi, (uint32_t)ti | fam << FAM_SHIFT);
        break;
    case HATF_OP_FREE:
        if (ev->addr)
            release(v, ev->addr, ev->heap, (uint32_t)ti, fam == FAM_NEW ? "delete" : fam ? "delete[]" : "free", fam,
                    sized);
        break;
    case HATF_OP_REALLOC_INPLACE:
        if (ev->addr == ev->new_addr) {
            realloc_inplace(v, ev, (uint32_t)hi, (uint32_t)ti);
            break;
        }
        /* a foreign writer's in-place realloc that moved: check it as a move */
        __attribute__((fallthrough));
    case HATF_OP_REALLOC_MOVE:
        release(v, ev->addr, 0, (uint32_t)ti, "realloc", FAM_C, UINT64_MAX);
        allocate(v, ev->new_addr, ev->size, (uint32_t)hi, (uint32_t)ti);
        break;
    case HATF_OP_REALLOC_NEW:
        if (!hatf_event_failed(ev)) allocate(v, ev->new_addr, ev->size, (uint32_t)hi, (uint32_t)ti);
        break;
    case HATF_OP_REALLOC_FREE:
        release(v, ev->addr, 0, (uint32_t)ti, "realloc", FAM_C, UINT64_MAX);
        break;
    case HATF_OP_HEAP_CREATE:
        heap_create(v, ev);
        break;
    case HATF_OP_HEAP_DESTROY:
        heap_destroy(v, ev);
        break;
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

validate *validate_new(const validate_opts *o)
{
    validate *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->o = *o;
    v->pend = malloc(PENDING_MAX * sizeof *v->pend);
    if (!v->pend || heaplive_init(&v->objs, NULL, NULL) || addrmap_init(&v->tidx) || addrmap_init(&v->hinst) ||
        addrmap_init(&v->threads) || addrmap_init(&v->heaps)) {
        validate_free(v);
        return NULL;
    }
    v->objs.keep_freed = 1;
    return v;
}

void validate_free(validate *v)
{
    if (!v) return;
    heaplive_free(&v->objs);
    addrmap_free(&v->tidx);
    addrmap_free(&v->hinst);
    addrmap_free(&v->threads);
    addrmap_free(&v->heaps);
    free(v->inst);
    free(v->tcells);
    free(v->pend);
    free(v);
}

/* Start loading the table slots ev will touch, some events before
 * validate_event checks it (lookahead.h). */
static inline __attribute__((always_inline)) void prefetch(validate *v, const hatf_event *ev)
{
    addrmap_prefetch(&v->objs.map, ev->addr);
    if (ev->new_addr != ev->addr) addrmap_prefetch(&v->objs.map, ev->new_addr);
}

static inline int check_at(validate *v, const hatf_event *ev, uint64_t rec, uint64_t off)
{
    v->rec = rec;
    v->offset = off;
    v->f.records++;
    check(v, ev);
    if (v->npend) expire_pending(v, 0);
    return v->oom ? -1 : 0;
}

int validate_event(validate *v, const hatf_event *ev, uint64_t rec, uint64_t off)
{
    return check_at(v, ev, rec, off);
}

void validate_read_error(validate *v, const hatf_err *e)
{
    problem_at(v, e->record == UINT64_MAX ? v->f.records : e->record, e->offset, "%s", hatf_err_text(e));
}

/* lookahead_run's callbacks */
static int check_item(void *ctx, const lookahead_item *x) { return check_at(ctx, &x->ev, x->rec, x->off) < 0 ? -1 : 0; }
static void prefetch_item(void *ctx, const hatf_event *ev) { prefetch(ctx, ev); }

int validate_run(validate *v, hatf_source *s, int stop_at_damage)
{
    for (;;) {
        /* each event's object slot is prefetched LOOKAHEAD_N events before its check; the
         * events read are checked before a read error is told */
        int count_rc, got = lookahead_run(s, check_item, prefetch_item, v, &count_rc);
        if (got == LOOKAHEAD_STOPPED) return VALIDATE_OOM;
        if (got >= 0) return 0;
        /* a damaged chunk group of a container: say so and check the rest */
        hatf_err damage = *hatf_source_error(s);
        if (stop_at_damage || hatf_source_resume(s) != 0) return got;
        validate_read_error(v, &damage);
    }
}

void validate_finish(validate *v) { expire_pending(v, 1); }

const validate_figures *validate_result(const validate *v) { return &v->f; }
