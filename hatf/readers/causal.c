/* causal.c — equal times across threads put in causal order (see causal.h).
 *
 * Events flow from the global iterator's runs (hatf_iter_next_batch) straight
 * to the caller, except each run's tail, its events with the run's last time:
 * those are copied into the group (with their attribute bytes, since the run
 * goes away on the next call) until a run starts with another time. The group
 * is then resolved (an order chosen) and handed out before that run.
 */
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "causal.h"
#include "container/container_internal.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct gev {
    hatf_event ev;
    uint64_t off;       /* chunk offset */
    size_t data;        /* offset of its bytes in the arena */
} gev;

/* an event read ahead by the early-release stage */
typedef struct qev {
    hatf_event ev;
    uint64_t off;       /* chunk offset */
    size_t data;        /* offset of its bytes in the queue's arena */
    uint8_t suspect;    /* a release of an address not live when it was ordered */
} qev;

/* one address of a group, for sorting: which event uses it and how */
typedef struct guse {
    uint64_t addr;
    uint32_t ev, th;
    uint32_t ent;                 /* its address's entry in addrs */
    uint8_t is_new;
} guse;

/* One address of a group (resolve's table, open addressing; addr 0: empty). */
typedef struct gaddr {
    uint64_t addr;
    uint32_t th;                  /* the first thread that used it */
    int32_t slot;                 /* -1: one thread so far; -2: shared, no slot yet; else its slot */
} gaddr;

struct hatf_causal {
    hatf_reader *r;
    hatf_iter *it;
    /* the iterator's current run: run[run_i..run_end) goes out as it is, the tail
     * [run_end..run_n) joins the group */
    const hatf_event *run;
    uint32_t run_n, run_i, run_end;
    uint64_t run_off;
    /* the group, and its order once resolved: out[iout..nout) still to hand out */
    gev *g;
    size_t ng, capg;
    uint64_t g_time, g_thread;
    int g_multi;
    hatf_buf arena;
    uint32_t *out;                /* the order, when not the group's own (ordered) */
    size_t nout, iout;
    int ordered;
    int pending;                  /* an iterator error to return after the group */
    /* resolution scratch, sized with capg (and twice for uses) */
    guse *use;
    int32_t *nxt, *so, *sn;       /* per event: next event of its thread; shared slots */
    uint32_t *th;                 /* per event: thread number within the group */
    uint64_t *tid;                /* per group thread: its id */
    int32_t *head, *last;         /* per group thread: its first and last event */
    int32_t *cur;                 /* per group thread: its next event, -1 when done */
    uint32_t *chosen;
    int32_t *tried;
    uint8_t *live;                /* per shared slot */
    int32_t *left;                /* per shared slot, in a search for an early release: its allocations not placed */
    uint8_t *relaxed;             /* per event: it went out as an early release (its address not live) */
    int32_t *rank;                /* per event: its place in the estimated time order (estimate_order) */
    int32_t *remm, *reme;         /* per shared slot, in a search: events not placed that make, end it */
    int32_t *ownm, *owne;         /* per event: events of its thread from it on that make its new, end its old slot */
    uint8_t *paired;              /* per event: its thread makes its old slot again after it (1), ends its new one (2) */
    int32_t *changed;             /* per shared slot, in a search: the depth that last changed it, -1 none */
    int32_t *prev_a, *prev_b, *conf; /* per depth: changed[] of its event's slots before it; a cause of dead ends below */
    uint64_t *keyed;              /* estimate_order's scratch: estimated time << 21 | event */
    int relax;                    /* the search may place early releases (late_release) */
    int burst;                    /* the search tries the thread of the last step first */
    gaddr *addrs;                 /* the group's addresses: 4 x cap_scratch entries, all empty between groups */
    size_t cap_scratch;
    /* liveness of every address, from the first group that needs it */
    int tracking, no_history;
    addrmap objs;                 /* address -> heap id (size), heap generation (a) */
    addrmap heapgen;              /* heap id -> generation (a), bumped by heap-destroy */
    uint64_t destroys;
    uint64_t emitted;             /* events handed out */
    uint64_t chunk_off;
    hatf_err err;
    hatf_order_stats st;
    /* early releases (HATF_INFO_EARLY_RELEASE): a stage after the order that
     * reads ahead from a release of an address not live */
    int early;
    int suspect;                  /* the event next_slow just handed out is such a release */
    uint64_t window;              /* HATF_EARLY_RELEASE_NS in time units */
    qev *q;                       /* q[qi..qn): read ahead, still to hand out */
    size_t qi, qn, qcap;
    hatf_buf qarena;
    int qrc;                      /* an error met while reading ahead, returned after q */
    hatf_err qerr;
    qev *qtmp;                    /* scratch for moving a thread's events */
    size_t qtmpcap;
    addrmap quses;                /* address -> events of q[qi..qn) that use it (size), make it (rec) */
    uint64_t *qset;               /* repair's set of addresses (open addressing, 0: empty) */
    size_t qsetcap, qsetmask;     /* allocated; in use by this repair, less one */
    uint64_t repair_steps;        /* queue steps repair() took so far, within repair_charge()'s budget */
    int repair_spent;             /* the budget ran out: said once, repairs stop */
    /* the release repair() reads ahead for: address and thread (addr 0: none) */
    uint64_t pend_addr, pend_thread;
};

static int need_history(hatf_causal *c);

hatf_causal *hatf_causal_open(hatf_reader *r)
{
    hatf_iter *it = hatf_iter_global(r);
    if (!it) return NULL;
    hatf_causal *c = hatf_causal_open_at(r, it, 0);
    if (!c) hatf_iter_free(it);
    return c;
}

hatf_causal *hatf_causal_open_at(hatf_reader *r, hatf_iter *it, uint64_t emitted)
{
    hatf_causal *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->r = r;
    c->it = it;
    c->emitted = emitted;  /* need_history reads them again for the table */
    hatf_buf_init(&c->arena);
    hatf_buf_init(&c->qarena);
    const hatf_info *in = hatf_reader_info(r);
    if (in && (in->flags & HATF_INFO_EARLY_RELEASE) && in->time_unit_ns_num) {
        /* the window in time units, rounded up; the table from the first event */
        unsigned __int128 w = ((unsigned __int128)HATF_EARLY_RELEASE_NS * in->time_unit_ns_den +
                               in->time_unit_ns_num - 1) / in->time_unit_ns_num;
        c->window = w < UINT32_MAX ? (uint64_t)w : UINT32_MAX;
        c->early = addrmap_init(&c->quses) == 0;
        if (c->early && !(c->early = need_history(c))) addrmap_free(&c->quses);
    }
    return c;
}

void hatf_causal_free(hatf_causal *c)
{
    if (!c) return;
    hatf_iter_free(c->it);
    free(c->g);
    hatf_buf_free(&c->arena);
    free(c->q);
    free(c->qtmp);
    free(c->qset);
    hatf_buf_free(&c->qarena);
    free(c->out);
    free(c->use); free(c->nxt); free(c->so); free(c->sn); free(c->th);
    free(c->tid); free(c->head); free(c->last); free(c->cur); free(c->chosen); free(c->tried); free(c->live);
    free(c->addrs); free(c->left); free(c->relaxed); free(c->rank); free(c->keyed);
    free(c->remm); free(c->reme); free(c->ownm); free(c->owne);
    free(c->paired); free(c->changed); free(c->prev_a); free(c->prev_b); free(c->conf);
    if (c->tracking) { addrmap_free(&c->objs); addrmap_free(&c->heapgen); }
    if (c->early) addrmap_free(&c->quses);
    free(c);
}

uint64_t hatf_causal_chunk_offset(const hatf_causal *c) { return c->chunk_off; }
const hatf_err *hatf_causal_error(const hatf_causal *c) { return &c->err; }
void hatf_causal_stats(const hatf_causal *c, hatf_order_stats *st) { *st = c->st; }

/* ---- liveness ------------------------------------------------------------ */


static uint32_t heap_gen(hatf_causal *c, uint64_t heap)
{
    if (!c->destroys) return 0;
    addrmap_entry *h = addrmap_find(&c->heapgen, heap);
    return h ? h->a : 0;
}

static int is_live(hatf_causal *c, uint64_t addr)
{
    addrmap_entry *e = addrmap_find(&c->objs, addr);
    return e && e->a == heap_gen(c, e->size);
}

/* While tracking, the table holds every live address (megabytes for a large
 * program), so each probe is a cache miss unless started early. The global
 * iterator's runs are short when threads interleave, so the fetches start
 * where the events are first seen: each batch a thread's cursor decodes
 * (256 events), handed out over the next few hundred events. */
static void track_prefetch_batch(void *ctx, const hatf_event *evs, size_t n)
{
    const hatf_causal *c = ctx;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = hatf_event_ends(&evs[i]), b = hatf_event_makes(&evs[i]);
        if (a) addrmap_prefetch(&c->objs, a);
        if (b) addrmap_prefetch(&c->objs, b);
    }
}

/* Apply an event to the table. @return 1 when it ends an address that was
 * not live, 0 otherwise, -1 out of memory. */
static int track(hatf_causal *c, const hatf_event *e)
{
    uint64_t a = hatf_event_ends(e), b = hatf_event_makes(e);
    int dead = 0;
    if (a) {
        addrmap_entry *x = addrmap_find(&c->objs, a);
        if (x) {
            dead = x->a != heap_gen(c, x->size);
            addrmap_remove(&c->objs, x);
        } else {
            dead = 1;
        }
    }
    if (b) {
        int added;
        addrmap_entry *x = addrmap_put(&c->objs, b, &added);
        if (!x) return -1;
        x->size = e->heap;
        x->a = heap_gen(c, e->heap);
    }
    if (UNLIKELY(e->op == HATF_OP_HEAP_DESTROY)) {  /* ends the heap's objects at once */
        int added;
        addrmap_entry *h = addrmap_put(&c->heapgen, e->heap, &added);
        if (!h) return -1;
        h->a++;
        c->destroys++;
    }
    return dead;
}

static void stop_tracking(hatf_causal *c)
{
    hatf_iter_on_batch_(c->it, NULL, NULL);
    addrmap_free(&c->objs);
    addrmap_free(&c->heapgen);
    c->tracking = 0;
    c->no_history = 1;
}

/* Start the table: a second pass over the events handed out so far. Before
 * the first group with a shared address every group's addresses were each
 * used by one thread, so the iterator's order gives the same liveness as the
 * order handed out. @return 1 when the table is there, 0 when it cannot be. */
static int need_history(hatf_causal *c)
{
    if (c->tracking) return 1;
    if (c->no_history) return 0;
    if (addrmap_init(&c->objs)) { c->no_history = 1; return 0; }
    if (addrmap_init(&c->heapgen)) { addrmap_free(&c->objs); c->no_history = 1; return 0; }
    c->tracking = 1;
    hatf_iter_on_batch_(c->it, track_prefetch_batch, c);
    hatf_iter *it = hatf_iter_global(c->r);
    if (it) hatf_iter_on_batch_(it, track_prefetch_batch, c);
    uint64_t left = c->emitted;
    while (it && left) {
        const hatf_event *e;
        int k = hatf_iter_next_batch(it, &e);
        if (k == 0) break;
        if (k < 0) {
            int code = hatf_iter_error(it)->code;
            if (code == HATF_E_CORRUPT || code == HATF_E_TRUNCATED) continue;  /* as the first pass did */
            break;
        }
        uint64_t m = (uint64_t)k < left ? (uint64_t)k : left;
        for (uint64_t i = 0; i < m; i++)
            if (track(c, &e[i]) < 0) { hatf_iter_free(it); stop_tracking(c); return 0; }
        left -= m;
    }
    hatf_iter_free(it);
    if (left) { stop_tracking(c); return 0; }
    return 1;
}

/* ---- the group ----------------------------------------------------------- */

static int grow(hatf_causal *c, size_t need)
{
    if (need <= c->capg) return 0;
    size_t cap = c->capg ? c->capg : 256;
    while (cap < need) cap *= 2;
    gev *g = realloc(c->g, cap * sizeof *g);
    if (!g) return -1;
    c->g = g;
    uint32_t *o = realloc(c->out, (cap + 1) * sizeof *o);  /* + 1: with_pending's release */
    if (!o) return -1;
    c->out = o;
    c->capg = cap;
    return 0;
}

/* Copy evs[0..n) into the group. @return 0, or HATF_E_NOMEM. */
static int gather(hatf_causal *c, const hatf_event *evs, size_t n)
{
    if (!n) return 0;
    if (grow(c, c->ng + n)) return HATF_E_NOMEM;
    if (c->ng == 0) {
        c->g_time = evs[0].time;
        c->g_thread = evs[0].thread;
    }
    for (size_t i = 0; i < n; i++) {
        gev *x = &c->g[c->ng++];
        x->ev = evs[i];
        x->off = c->run_off;
        x->data = c->arena.len;
        if (evs[i].data_len) hatf_buf_append(&c->arena, evs[i].data, evs[i].data_len);
        c->g_multi |= evs[i].thread != c->g_thread;
    }
    return c->arena.failed ? HATF_E_NOMEM : 0;
}

/* Room for a group of n events (and as many threads, and one more step). */
static int scratch(hatf_causal *c, size_t n)
{
    if (n + 1 <= c->cap_scratch) return 0;
    size_t cap = c->cap_scratch ? c->cap_scratch : 256;
    while (cap < n + 1) cap *= 2;
    void *p;
#define RE(f, k) if (!(p = realloc(c->f, (k) * cap * sizeof *c->f))) return -1; c->f = p
    RE(use, 2); RE(nxt, 1); RE(so, 1); RE(sn, 1); RE(th, 1);
    RE(tid, 1); RE(head, 1); RE(last, 1); RE(cur, 1); RE(chosen, 1); RE(tried, 1); RE(live, 2);
    RE(left, 1); RE(relaxed, 1); RE(rank, 1); RE(keyed, 1);
    RE(remm, 2); RE(reme, 2); RE(ownm, 1); RE(owne, 1);
    RE(paired, 1); RE(changed, 2); RE(prev_a, 1); RE(prev_b, 1); RE(conf, 1);
#undef RE
    free(c->addrs);  /* its entries are all empty between groups: no copy */
    if (!(c->addrs = calloc(4 * cap, sizeof *c->addrs))) {
        c->cap_scratch = 0;
        return -1;
    }
    c->cap_scratch = cap;
    return 0;
}

/* The entry of addr in the group's table (4 x cap_scratch entries, at most
 * 2 x cap_scratch used: half empty at worst), found or made empty-keyed. */
static inline uint32_t gaddr_slot(const hatf_causal *c, uint64_t addr)
{
    size_t mask = 4 * c->cap_scratch - 1;
    size_t i = (size_t)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >> 32) & mask;
    while (c->addrs[i].addr && c->addrs[i].addr != addr) i = (i + 1) & mask;
    return (uint32_t)i;
}

/* Can event i go next (its shared addresses: the old one live, the new one
 * not)? If so, apply it. In a search for an early release (relax), a release
 * of an address not live may go too once no allocation of it is left in the
 * group: its allocation comes after the group, where repair finds it. */
static inline int step(hatf_causal *c, uint32_t i)
{
    int32_t a = c->so[i], b = c->sn[i];
    int early = 0;
    if (a >= 0 && !c->live[a]) {
        if (!c->relax || c->left[a]) return 0;
        early = 1;
    }
    if (a >= 0) c->live[a] = 0;
    if (b >= 0 && c->live[b]) {
        if (a >= 0 && !early) c->live[a] = 1;
        return 0;
    }
    if (b >= 0) c->live[b] = 1;
    if (c->relax) {
        if (b >= 0) c->left[b]--;
        c->relaxed[i] = (uint8_t)early;
    }
    return 1;
}

static inline void unstep(hatf_causal *c, uint32_t i)
{
    int early = c->relax && c->relaxed[i];
    if (c->sn[i] >= 0) {
        c->live[c->sn[i]] = 0;
        if (c->relax) c->left[c->sn[i]]++;
    }
    if (c->so[i] >= 0 && !early) c->live[c->so[i]] = 1;
}

static inline uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The hash of a thread's position: its next event, or n + thread when done. */
static inline uint64_t pos_hash(int32_t e, uint32_t n, uint32_t t)
{
    return mix(e >= 0 ? (uint64_t)e : (uint64_t)n + t);
}

/* Each event's rank in the estimated time order: within a tie group, the
 * j-th of a thread's k events is put at (j + 1/2) / k of the time unit, as if
 * each thread ran at an even pace through it (ties by the iterator's order).
 * Threads of a busy program do, so the order comes near the real one and the
 * search below rarely has to go back: with the iterator's order (one
 * thread's events after another's) a group of thousands of events on
 * several threads sharing addresses had no order found within the budget.
 * The group's events (at most CAUSAL_GROUP_MAX < 2^21) are sorted on a key of
 * 42 bits of estimated time and 21 of event. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#define KEY_EVENT ((1u << 21) - 1)

static void estimate_order(hatf_causal *c, uint32_t n, uint32_t nth)
{
    for (uint32_t t = 0; t < nth; t++) c->cur[t] = 0;  /* events of each thread */
    for (uint32_t i = 0; i < n; i++) c->cur[c->th[i]]++;
    for (uint32_t t = 0; t < nth; t++) c->tried[t] = 0;  /* events of each thread seen */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = c->th[i];
        uint64_t est = ((uint64_t)(2 * (uint32_t)c->tried[t] + 1) << 41) / (uint64_t)c->cur[t];
        c->tried[t]++;
        c->keyed[i] = est << 21 | i;
    }
    qsort(c->keyed, n, sizeof *c->keyed, cmp_u64);
    for (uint32_t k = 0; k < n; k++) c->rank[c->keyed[k] & KEY_EVENT] = (int32_t)k + 1;
    c->rank[n] = 0;  /* with_pending's release, its thread's first: before all */
}

/* The group's order is out[0..n): handed out as such unless it is the
 * iterator's (then counted as reordered). */
static void settle(hatf_causal *c, uint32_t n)
{
    uint32_t same = 0;
    while (same < n && c->out[same] == same) same++;
    c->ordered = same < n;
    c->st.reordered += same < n;
}

/* The group in estimated time order, into out[0..n). */
static void by_estimate(hatf_causal *c, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) c->out[k] = (uint32_t)(c->keyed[k] & KEY_EVENT);
}

/* For forced(): how many events of the group make and end each slot, and
 * per event how many of its thread's, from it on, make its new slot and end
 * its old one (ownm, owne; counted down per thread in remm, reme, which end
 * at zero, then the group's totals). */
static void count_uses(hatf_causal *c, uint32_t nth, const int32_t *head)
{
    for (uint32_t t = 0; t < nth; t++)
        for (int32_t i = head[t]; i >= 0; i = c->nxt[i]) {
            if (c->sn[i] >= 0) c->remm[c->sn[i]] = 0;
            if (c->so[i] >= 0) c->reme[c->so[i]] = 0;
        }
    for (uint32_t t = 0; t < nth; t++) {
        for (int32_t i = head[t]; i >= 0; i = c->nxt[i]) {
            if (c->sn[i] >= 0) c->remm[c->sn[i]]++;
            if (c->so[i] >= 0) c->reme[c->so[i]]++;
        }
        for (int32_t i = head[t]; i >= 0; i = c->nxt[i]) {
            int32_t a = c->so[i], b = c->sn[i];
            /* its thread makes its old slot again after it, ends its new one after it */
            c->paired[i] = (uint8_t)((a >= 0 && c->remm[a] > (a == b)) | (b >= 0 && c->reme[b] > (a == b)) << 1);
            c->ownm[i] = b >= 0 ? c->remm[b]-- : 0;
            c->owne[i] = a >= 0 ? c->reme[a]-- : 0;
        }
    }
    for (uint32_t t = 0; t < nth; t++)
        for (int32_t i = head[t]; i >= 0; i = c->nxt[i]) {
            if (c->sn[i] >= 0) c->remm[c->sn[i]]++;
            if (c->so[i] >= 0) c->reme[c->so[i]]++;
        }
}

/* Must event e (its thread's next) go now, in every order that goes on from
 * here? So it is when it can go and no other thread has an event left that
 * ends its old slot or makes its new one: then the other threads' events
 * before it in any such order use neither, and it can be taken first. */
static inline int forced(const hatf_causal *c, int32_t e)
{
    int32_t a = c->so[e], b = c->sn[e];
    if (a >= 0 && (!c->live[a] || c->reme[a] != c->owne[e])) return 0;
    if (b >= 0 && ((b != a && c->live[b]) || c->remm[b] != c->ownm[e])) return 0;
    return 1;
}

/* The order a search tries the events that can go at a step: first those
 * that no other thread competes with for their slot, or whose thread pairs
 * them with a later use of the slot (frees an address and makes it again, as
 * a thread's cache does, or makes one and frees it): the competitor then
 * needs that later use between, so the pair goes first; then by estimated
 * time. A key above 2^21 ranks (at most CAUSAL_GROUP_MAX + 1). */
static inline int32_t try_key(const hatf_causal *c, int32_t e)
{
    int32_t a = c->so[e], b = c->sn[e];
    int late = c->burst && ((a >= 0 && c->reme[a] != c->owne[e] && !(c->paired[e] & 1)) ||
                            (b >= 0 && c->remm[b] != c->ownm[e] && !(c->paired[e] & 2)));
    return (int32_t)late << 21 | c->rank[e];
}

static inline void placed(hatf_causal *c, int32_t e, int by)
{
    if (c->sn[e] >= 0) c->remm[c->sn[e]] -= by;
    if (c->so[e] >= 0) c->reme[c->so[e]] -= by;
}

/* Event e goes at depth d of the search (its slots last changed there). */
static inline void place(hatf_causal *c, uint32_t d, int32_t e)
{
    placed(c, e, 1);
    int32_t a = c->so[e], b = c->sn[e];
    c->prev_a[d] = a >= 0 ? c->changed[a] : -1;
    c->prev_b[d] = b >= 0 ? c->changed[b] : -1;
    if (a >= 0) c->changed[a] = (int32_t)d;
    if (b >= 0) c->changed[b] = (int32_t)d;
}

static inline void unplace(hatf_causal *c, uint32_t d)
{
    int32_t e = (int32_t)c->out[d], a = c->so[e], b = c->sn[e];
    placed(c, e, -1);
    if (b >= 0) c->changed[b] = c->prev_b[d];
    if (a >= 0) c->changed[a] = c->prev_a[d];
}

/* A dead end at depth d: the depth to go back to (*to, -1: none), the last
 * one that changed a slot a thread waits on (its event frees an address not
 * live or makes one live), or one its tries below named (conf[d]); *also:
 * the latest such depth before *to, kept there for when its tries run out
 * too (backjumping: the steps between changed nothing that mattered, so
 * trying their other choices would meet the same dead end). In a search for
 * an early release any step may matter: one back. */
static void dead_end_cause(hatf_causal *c, uint32_t d, uint32_t nth, int32_t *to, int32_t *also)
{
    int32_t v[3], top = -1, next = -1;
    for (uint32_t t = 0; t <= nth; t++) {
        int k = 0;
        if (t == nth) v[k++] = c->conf[d];
        else if (c->relax) v[k++] = (int32_t)d - 1;
        else if (c->cur[t] >= 0) {
            int32_t e = c->cur[t], a = c->so[e], b = c->sn[e];
            if (a >= 0 && !c->live[a]) v[k++] = c->changed[a];
            else if (b >= 0 && b != a && c->live[b]) v[k++] = c->changed[b];
        }
        for (int j = 0; j < k; j++) {
            if (v[j] > top) { next = top; top = v[j]; }
            else if (v[j] < top && v[j] > next) next = v[j];
        }
    }
    *to = top;
    *also = next;
}

/* Depth-first search for an order of the group's nth threads consistent with
 * live[] (the start), taking an event that must go (forced), else trying at
 * each step the threads' next events in try_key's order (in a burst, the
 * last step's thread before the others). States that led nowhere
 * are remembered by hash (the set of next events), so none is searched twice.
 * @return 1 with out[] filled, 0 when there is none or the search gave up. */
static int search(hatf_causal *c, uint32_t n, uint32_t nth, const int32_t *head)
{
    addrmap failed;  /* made at the first dead end: most searches meet none */
    int have_failed = 0;
    uint64_t z = 0;
    for (uint32_t t = 0; t < nth; t++) {
        c->cur[t] = head[t];
        z ^= pos_hash(head[t], n, t);
    }
    count_uses(c, nth, head);
    for (uint32_t i = 0; i < n; i++) {  /* no slot changed yet */
        if (c->so[i] >= 0) c->changed[c->so[i]] = -1;
        if (c->sn[i] >= 0) c->changed[c->sn[i]] = -1;
    }
    uint32_t d = 0;
    c->tried[0] = -1;
    c->conf[0] = -1;
    int found = 0;
    /* steps in proportion to the group, so that groups with no order cost
       time linear in the events read (many small ones as much as a large one) */
    long budget = 1024 + CAUSAL_SEARCH_STEPS_PER_EVENT * (long)n;
    for (long steps = 0; steps < budget; steps++) {
        if (d == n) { found = 1; break; }
        /* an event that must go, else the candidate after tried[d] in rank order that can go */
        int32_t best = -1;
        uint32_t bt = 0;
        if (c->tried[d] < 0) {  /* first time at this depth: an event that must go needs no choice */
            for (uint32_t t = 0; t < nth && best < 0; t++)
                if (c->cur[t] >= 0 && forced(c, c->cur[t])) { best = c->cur[t]; bt = t; }
            if (best >= 0) {
                c->tried[d] = INT32_MAX;  /* no other event is tried here */
                step(c, (uint32_t)best);
                z ^= pos_hash(best, n, bt) ^ pos_hash(c->nxt[best], n, bt);
            }
        }
        while (best < 0) {  /* until an event goes, or none is left to try */
            int32_t e = -1;
            int32_t ek = 0;
            for (uint32_t t = 0; t < nth; t++) {
                int32_t x = c->cur[t];
                if (x < 0) continue;
                int32_t k = try_key(c, x) | (c->burst && d > 0 && t != c->chosen[d - 1]) << 22;
                if (k > c->tried[d] && (e < 0 || k < ek)) { e = x; ek = k; bt = t; }
            }
            if (e < 0) break;
            c->tried[d] = ek;
            if (!step(c, (uint32_t)e)) continue;
            uint64_t z2 = z ^ pos_hash(e, n, bt) ^ pos_hash(c->nxt[e], n, bt);
            if (have_failed && addrmap_find(&failed, z2)) {  /* why it failed is not known: the step before may be */
                unstep(c, (uint32_t)e);
                if ((int32_t)d - 1 > c->conf[d]) c->conf[d] = (int32_t)d - 1;
                continue;
            }
            z = z2;
            best = e;
        }
        if (best >= 0) {
            place(c, d, best);
            c->out[d] = (uint32_t)best;
            c->chosen[d] = bt;
            c->cur[bt] = c->nxt[best];
            c->tried[++d] = -1;
            c->conf[d] = -1;
            continue;
        }
        /* a dead end: remember it and go back to the last step that made it one */
        int added;
        if (!have_failed && addrmap_init(&failed)) break;
        have_failed = 1;
        if (!addrmap_put(&failed, z, &added)) break;
        int32_t to = -1, also = -1;
        dead_end_cause(c, d, nth, &to, &also);
        if (to < 0) break;  /* no step taken caused it: the group has no order */
        while (d > (uint32_t)to) {
            d--;
            uint32_t t = c->chosen[d], e = c->out[d];
            z ^= pos_hash(c->cur[t], n, t) ^ pos_hash((int32_t)e, n, t);
            c->cur[t] = (int32_t)e;
            unstep(c, e);
            unplace(c, d);
        }
        if (also > c->conf[d]) c->conf[d] = also;
    }
    if (have_failed) addrmap_free(&failed);
    return found;
}

/* A consistent order out[0..n) found in bursts puts whole runs of a thread
 * before the others', far from the estimated times (a peak of live bytes
 * a third over the real one on a 10 ms unit). Keep what made it consistent,
 * which event of each address comes after which, and otherwise go by
 * estimated time: at each step the earliest next event of a thread whose
 * address predecessors have gone (one always has: the first in out[] not
 * gone). Scratch: prev_a, prev_b the predecessors by old and new slot,
 * changed the last event of each slot, conf whether an event has gone. */
static void smooth(hatf_causal *c, uint32_t n, uint32_t nth)
{
    for (uint32_t i = 0; i < n; i++) {
        if (c->so[i] >= 0) c->changed[c->so[i]] = -1;
        if (c->sn[i] >= 0) c->changed[c->sn[i]] = -1;
        c->conf[i] = 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t e = c->out[k];
        int32_t a = c->so[e], b = c->sn[e];
        c->prev_a[e] = a >= 0 ? c->changed[a] : -1;
        c->prev_b[e] = b >= 0 && b != a ? c->changed[b] : -1;
        if (a >= 0) c->changed[a] = (int32_t)e;
        if (b >= 0) c->changed[b] = (int32_t)e;
    }
    for (uint32_t t = 0; t < nth; t++) c->cur[t] = c->head[t];
    for (uint32_t k = 0; k < n; k++) {
        int32_t best = -1;
        uint32_t bt = 0;
        for (uint32_t t = 0; t < nth; t++) {
            int32_t e = c->cur[t];
            if (e < 0 || (best >= 0 && c->rank[e] >= c->rank[best])) continue;
            if ((c->prev_a[e] >= 0 && !c->conf[c->prev_a[e]]) || (c->prev_b[e] >= 0 && !c->conf[c->prev_b[e]])) continue;
            best = e;
            bt = t;
        }
        c->conf[best] = 1;
        c->out[k] = (uint32_t)best;
        c->cur[bt] = c->nxt[best];
    }
}

/* A group with no consistent order found (a broken trace, or the search
 * out of budget): the order the search's first descent takes, going on past
 * its dead ends with the earliest event in the estimated time order, so that
 * only the events that really have no place are out of liveness, not every
 * event the iterator's order (a thread's whole unit after another's) puts
 * before its cause. */
static void best_effort(hatf_causal *c, uint32_t n, uint32_t nth)
{
    count_uses(c, nth, c->head);
    for (uint32_t t = 0; t < nth; t++) c->cur[t] = c->head[t];
    for (uint32_t d = 0; d < n; d++) {
        int32_t best = -1, low = -1;
        uint32_t bt = 0, lt = 0;
        for (uint32_t t = 0; t < nth && best < 0; t++)
            if (c->cur[t] >= 0 && forced(c, c->cur[t])) { best = c->cur[t]; bt = t; }
        for (uint32_t t = 0; t < nth && best < 0; t++) {
            int32_t e = c->cur[t];
            if (e < 0) continue;
            if (low < 0 || c->rank[e] < c->rank[low]) { low = e; lt = t; }
        }
        if (best < 0) {  /* the earliest that can go, else the earliest */
            int32_t go = -1;
            for (uint32_t t = 0; t < nth; t++) {
                int32_t e = c->cur[t];
                if (e < 0 || (go >= 0 && c->rank[e] >= c->rank[go])) continue;
                if (step(c, (uint32_t)e)) {
                    unstep(c, (uint32_t)e);
                    go = e;
                    bt = t;
                }
            }
            if (go < 0) { go = low; bt = lt; }
            best = go;
        }
        if (!step(c, (uint32_t)best)) {  /* out of liveness: applied as it reads */
            if (c->so[best] >= 0) c->live[c->so[best]] = 0;
            if (c->sn[best] >= 0) c->live[c->sn[best]] = 1;
        }
        placed(c, best, 1);
        c->out[d] = (uint32_t)best;
        c->cur[bt] = c->nxt[best];
    }
}

/* A group read ahead for the release repair() moves (pend_addr, stamped
 * before the group), in which another thread allocates its address: repair
 * will put the release after that allocation, so order the group with the
 * release as its thread's first event, then leave it out of the order (it has
 * gone out already). Without it the group may have no order (its thread
 * allocated the address again at once: tcache), or pair that allocation with
 * a later release of the address. live[0..slots) is reset from start.
 * @return 1 with out[0..n) filled. */
static int with_pending(hatf_causal *c, uint32_t n, uint32_t nth, size_t nu, const uint8_t *start, uint32_t slots)
{
    if (!c->pend_addr) return 0;
    uint32_t t = 0;
    while (t < nth && c->tid[t] != c->pend_thread) t++;
    int32_t slot = -1;
    for (size_t i = 0; i < nu && slot < 0; i++) {
        const guse *u = &c->use[i];
        if (u->addr == c->pend_addr) slot = u->is_new ? c->sn[u->ev] : c->so[u->ev];
    }
    if (t == nth || slot < 0) return 0;  /* not its thread's group, or the address is not shared in it */
    memcpy(c->live, start, slots);
    c->so[n] = slot;  /* the release, event n: it ends the address */
    c->sn[n] = -1;
    c->nxt[n] = c->head[t];
    c->th[n] = t;
    int32_t h = c->head[t];
    c->head[t] = (int32_t)n;
    int found = search(c, n + 1, nth, c->head);
    c->head[t] = h;
    if (!found) return 0;
    uint32_t k = 0;
    for (uint32_t d = 0; d <= n; d++)
        if (c->out[d] != n) c->out[k++] = c->out[d];
    return 1;
}

/* A group with no consistent order in a trace whose releases may be stamped
 * early can hold such a release itself: its thread freed an object that
 * another thread allocates just after the group, in the next time unit (its
 * stamp read before the allocation's). Search again letting a release of an
 * address not live go once no allocation of that address is left in the
 * group; it goes out not live, and repair moves it after the allocation that
 * follows (or validate reports it). live[0..slots) is reset from start.
 * @return 1 with out[0..n) filled. */
static int late_release(hatf_causal *c, uint32_t n, uint32_t nth, const uint8_t *start, uint32_t slots)
{
    if (!c->early) return 0;
    memcpy(c->live, start, slots);
    memset(c->left, 0, slots * sizeof *c->left);
    for (uint32_t i = 0; i < n; i++)
        if (c->sn[i] >= 0) c->left[c->sn[i]]++;
    c->relax = 1;
    int found = search(c, n, nth, c->head);
    c->relax = 0;
    return found;
}

/* Choose the group's order into out[0..ng): the iterator's unless a shared
 * address needs another. */
static void resolve(hatf_causal *c)
{
    uint32_t n = (uint32_t)c->ng;
    c->nout = n;
    c->iout = 0;
    c->ordered = 0;
    if (!c->g_multi) return;
    /* group threads, numbered in order of appearance (usually a few, and a
     * thread's events mostly follow each other: the last one is tried first) */
    if (scratch(c, n + 1)) goto unresolved_nomem;  /* room for a pending release (with_pending) */
    uint32_t nth = 0, t = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id = c->g[i].ev.thread;
        if (t >= nth || c->tid[t] != id) {
            for (t = 0; t < nth && c->tid[t] != id; t++) {}
            if (t == nth) {
                c->tid[nth++] = id;
                c->head[t] = (int32_t)i;
                c->last[t] = -1;
            }
        }
        if (c->last[t] >= 0) c->nxt[c->last[t]] = (int32_t)i;
        c->last[t] = (int32_t)i;
        c->nxt[i] = -1;
        c->th[i] = t;
    }
    /* addresses used by two or more of its threads */
    size_t nu = 0;
    for (uint32_t i = 0; i < n; i++) {
        const hatf_event *e = &c->g[i].ev;
        uint64_t a = hatf_event_ends(e), b = hatf_event_makes(e);
        if (a) c->use[nu++] = (guse){ a, i, c->th[i], 0, 0 };
        if (b) c->use[nu++] = (guse){ b, i, c->th[i], 0, 1 };
        c->so[i] = c->sn[i] = -1;
    }
    /* which addresses two or more threads use: each address once in a table
     * (no sort), then a slot for each shared one, in order of first use */
    for (size_t i = 0; i < nu; i++) {
        guse *u = &c->use[i];
        gaddr *a = &c->addrs[u->ent = gaddr_slot(c, u->addr)];
        if (!a->addr) *a = (gaddr){ u->addr, u->th, -1 };
        else if (a->slot == -1 && a->th != u->th) a->slot = -2;
    }
    int32_t slots = 0;
    for (size_t i = 0; i < nu; i++) {
        const guse *u = &c->use[i];
        gaddr *a = &c->addrs[u->ent];
        if (a->slot == -1) continue;
        if (a->slot == -2) a->slot = slots++;
        if (u->is_new) c->sn[u->ev] = a->slot;
        else c->so[u->ev] = a->slot;
    }
    for (size_t i = 0; i < nu; i++) c->addrs[c->use[i].ent].addr = 0;  /* empty again for the next group */
    if (!slots) {  /* any order is consistent: the one nearest the real one (not counted) */
        estimate_order(c, n, nth);
        by_estimate(c, n);
        settle(c, n);
        c->st.reordered -= c->ordered;
        return;
    }
    c->st.tie_groups++;
    if (!need_history(c)) goto unresolved;
    for (size_t i = 0; i < nu; i++) {
        const guse *u = &c->use[i];
        int32_t s = u->is_new ? c->sn[u->ev] : c->so[u->ev];
        if (s >= 0) c->live[s] = (uint8_t)is_live(c, u->addr);
    }
    uint8_t *start = c->live + slots;
    memcpy(start, c->live, (size_t)slots);
    estimate_order(c, n, nth);
    /* a release under repair whose address this group allocates: the order
     * repair will leave (with_pending), else one with it left out may pair
     * that allocation with a later release of the same address */
    if (c->pend_addr && with_pending(c, n, nth, nu, start, (uint32_t)slots)) {
        settle(c, n);
        return;
    }
    /* the estimated time order, if it is consistent */
    memcpy(c->live, start, (size_t)slots);
    uint32_t ok = 0;
    while (ok < n && step(c, (uint32_t)(c->keyed[ok] & KEY_EVENT))) ok++;
    if (ok == n) {
        by_estimate(c, n);
        settle(c, n);
        return;
    }
    memcpy(c->live, start, (size_t)slots);
    int found = 0;
    /* by estimated time first (the figures of an order near the real one);
       in bursts when that finds none */
    for (c->burst = 0; c->burst <= 1 && !found; c->burst++) {
        memcpy(c->live, start, (size_t)slots);
        found = search(c, n, nth, c->head);
        if (found && c->burst) smooth(c, n, nth);
    }
    c->burst = 0;
    if (found || late_release(c, n, nth, start, (uint32_t)slots)) {
        settle(c, n);
        return;
    }
    memcpy(c->live, start, (size_t)slots);
    best_effort(c, n, nth);
    c->ordered = 1;
unresolved:
    c->st.unresolved++;
    return;
unresolved_nomem:
    c->st.tie_groups++;
    c->st.unresolved++;
}

/* ---- the stream ---------------------------------------------------------- */

static int nomem(hatf_causal *c)
{
    memset(&c->err, 0, sizeof c->err);
    return hatf_err_set(&c->err, HATF_E_NOMEM, c->run_off, "out of memory");
}

/* The group's next event, or the run's, or what comes after them. */
static __attribute__((noinline)) int next_slow(hatf_causal *c, hatf_event *ev)
{
    for (;;) {
        if (c->iout < c->nout) {
            const gev *x = &c->g[c->ordered ? c->out[c->iout] : c->iout];
            c->iout++;
            *ev = x->ev;
            if (ev->data_len) ev->data = c->arena.p + x->data;
            c->chunk_off = x->off;
            break;
        }
        if (c->run_i < c->run_end) {
            *ev = c->run[c->run_i++];
            c->chunk_off = c->run_off;
            break;
        }
        if (c->pending) {
            int rc = c->pending;
            c->pending = 0;
            return rc;
        }
        if (c->nout) {  /* the group went out on the calls before this one */
            c->ng = c->nout = c->iout = 0;
            c->g_multi = 0;
            c->arena.len = 0;
        }
        if (c->run_i < c->run_n) {  /* the run's tail */
            int rc = gather(c, c->run + c->run_i, c->run_n - c->run_i);
            c->run_i = c->run_n;
            if (rc) return nomem(c);
        }
        const hatf_event *evs;
        int k = hatf_iter_next_batch(c->it, &evs);
        if (k <= 0) {
            if (k < 0) {
                c->err = *hatf_iter_error(c->it);
                c->pending = k;
            }
            if (c->ng) { resolve(c); continue; }
            c->pending = 0;
            return k;
        }
        c->run = evs;
        c->run_n = (uint32_t)k;
        c->run_i = c->run_end = 0;
        c->run_off = hatf_iter_chunk_offset(c->it);
        uint32_t j = 0;
        if (c->ng) {
            if (c->ng < CAUSAL_GROUP_MAX)
                while (j < (uint32_t)k && evs[j].op != HATF_OP_COMMENT && evs[j].time == c->g_time) j++;
            if (j == (uint32_t)k) {  /* all of the run joins the group */
                c->run_i = c->run_end = c->run_n;
                int rc = gather(c, evs, j);
                if (rc) return nomem(c);
                continue;
            }
            int rc = gather(c, evs, j);
            if (rc) return nomem(c);
            c->run_i = j;
            resolve(c);
        }
        /* the tail: the events with the run's last time (none after a comment) */
        uint32_t t = (uint32_t)k;
        if (evs[k - 1].op != HATF_OP_COMMENT) {
            uint64_t tl = evs[k - 1].time;
            while (t > j && evs[t - 1].op != HATF_OP_COMMENT && evs[t - 1].time == tl) t--;
        }
        c->run_end = t;
    }
    c->emitted++;
    if (c->tracking) {
        int dead = track(c, ev);
        if (UNLIKELY(dead < 0)) stop_tracking(c);
        else c->suspect = dead & c->early;
    }
    return 1;
}

/* ---- early releases ------------------------------------------------------- */

/* The queue's uses of each address (quses), so that repair() learns in one
 * lookup whether an event read ahead uses or makes the address of a release:
 * without them each release scanned the queue, and a file of many releases of
 * addresses never allocated took time quadratic in its events. */
static int quse_add(hatf_causal *c, uint64_t addr, int make, int by)
{
    if (!addr) return 0;
    int added;
    addrmap_entry *e = by > 0 ? addrmap_put(&c->quses, addr, &added) : addrmap_find(&c->quses, addr);
    if (!e) return by > 0 ? -1 : 0;
    e->size += (uint64_t)(int64_t)by;
    if (make) e->rec += (uint64_t)(int64_t)by;
    if (!e->size) addrmap_remove(&c->quses, e);
    return 0;
}

static int quse_event(hatf_causal *c, const hatf_event *ev, int by)
{
    uint64_t a = hatf_event_ends(ev), b = hatf_event_makes(ev);
    if (a == b) return quse_add(c, b, 1, by);  /* one use (an in-place realloc) */
    return quse_add(c, a, 0, by) || quse_add(c, b, 1, by) ? -1 : 0;
}

/* Events of the queue that use addr (*made: of them, that make it). */
static uint64_t quse_count(hatf_causal *c, uint64_t addr, uint64_t *made)
{
    addrmap_entry *e = addrmap_find(&c->quses, addr);
    *made = e ? e->rec : 0;
    return e ? e->size : 0;
}

static int qpush(hatf_causal *c, const hatf_event *ev)
{
    if (quse_event(c, ev, 1)) return -1;
    if (c->qn == c->qcap) {
        size_t cap = c->qcap ? 2 * c->qcap : 64;
        qev *q = realloc(c->q, cap * sizeof *q);
        if (!q) return -1;
        c->q = q;
        c->qcap = cap;
    }
    qev *x = &c->q[c->qn++];
    x->ev = *ev;
    x->off = c->chunk_off;
    x->data = c->qarena.len;
    x->suspect = (uint8_t)c->suspect;
    c->suspect = 0;
    if (ev->data_len) hatf_buf_append(&c->qarena, ev->data, ev->data_len);
    return c->qarena.failed ? -1 : 0;
}

/* Drop the events handed out from the front of the queue and their bytes. */
static int qcompact(hatf_causal *c)
{
    hatf_buf a;
    hatf_buf_init(&a);
    size_t n = c->qn - c->qi;
    for (size_t k = 0; k < n; k++) {
        qev x = c->q[c->qi + k];
        size_t d = a.len;
        if (x.ev.data_len) hatf_buf_append(&a, c->qarena.p + x.data, x.ev.data_len);
        x.data = d;
        c->q[k] = x;
    }
    if (a.failed) { hatf_buf_free(&a); return -1; }
    hatf_buf_free(&c->qarena);
    c->qarena = a;
    c->qi = 0;
    c->qn = n;
    return 0;
}


/* Does event e end or make address a? */
static inline int uses(const hatf_event *e, uint64_t a)
{
    return hatf_event_ends(e) == a || hatf_event_makes(e) == a;
}

/* Add addr to repair's set (0: no address). @return 1 when it was there. */
static int qset_put(hatf_causal *c, uint64_t addr, int add)
{
    if (!addr) return 0;
    size_t mask = c->qsetmask, i = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    for (; c->qset[i]; i = (i + 1) & mask)
        if (c->qset[i] == addr) return 1;
    if (add) c->qset[i] = addr;
    return 0;
}

/* Would moving thread th's events of q[i..x) after q[x] pass an event of
 * another thread that uses an address one of them uses (the release q[i] and
 * the allocation q[x] excepted)? One pass from x back, the others' addresses
 * in a set: the pairs compared one by one made a repair quadratic in the
 * events it passes. @return 1 yes, 0 no, -1 out of memory. */
static int passes_shared(hatf_causal *c, size_t i, size_t x, uint64_t th)
{
    size_t cap = 16;
    while (cap < 4 * (x - i + 1)) cap *= 2;  /* two addresses an event: at most half full */
    if (cap > c->qsetcap) {
        free(c->qset);
        c->qsetcap = 0;
        if (!(c->qset = malloc(cap * sizeof *c->qset))) return -1;
        c->qsetcap = cap;
    }
    memset(c->qset, 0, cap * sizeof *c->qset);  /* only what this repair uses: its cost stays its size */
    c->qsetmask = cap - 1;
    const hatf_event *ex = &c->q[x].ev;
    uint64_t xe = hatf_event_ends(ex), xm = hatf_event_makes(ex);
    for (size_t j = x; j-- > i;) {
        const hatf_event *e = &c->q[j].ev;
        uint64_t a = hatf_event_ends(e), b = hatf_event_makes(e);
        if (e->thread != th) {
            qset_put(c, a, 1);
            qset_put(c, b, 1);
            continue;
        }
        if (qset_put(c, a, 0) || qset_put(c, b, 0)) return 1;
        if (j > i && ((a && (a == xe || a == xm)) || (b && (b == xe || b == xm)))) return 1;
    }
    return 0;
}

/* Queue the events up to limit (at most EARLY_QUEUE_MAX from q[i]).
 * @return 0, 1 when a following reader has not the whole window yet, or -1
 * out of memory. */
static int read_window(hatf_causal *c, size_t i, uint64_t limit)
{
    while (!c->qrc && c->q[c->qn - 1].ev.time <= limit && c->qn - i < EARLY_QUEUE_MAX) {
        hatf_event e;
        int rc = next_slow(c, &e);
        if (rc == 0 && hatf_reader_following(c->r)) return 1;  /* the window goes on in the file's next part */
        if (rc <= 0) {
            if (rc < 0) { c->qrc = rc; c->qerr = c->err; }
            break;
        }
        if (qpush(c, &e)) return -1;
        /* repair stops at the window's first use of the address: later groups do not need the release */
        if (c->pend_addr && uses(&e, c->pend_addr)) c->pend_addr = 0;
    }
    return 0;
}

/* repair()'s scans and checks cost at most REPAIR_STEPS_PER_EVENT queue
 * steps per event read, plus REPAIR_STEPS_FREE: far more than real early
 * releases take (a few in a million events, each passing the events of 2 us),
 * while a file made of releases each far from its allocation would take
 * time quadratic in its events. Past it, releases stay in the order read, and
 * the reader says so once among its damage lines.
 * @return 1 when the n steps are not in the budget (nothing done). */
#define REPAIR_STEPS_PER_EVENT 64
#define REPAIR_STEPS_FREE (1u << 24)
static int repair_charge(hatf_causal *c, uint64_t n)
{
    uint64_t budget = REPAIR_STEPS_FREE + REPAIR_STEPS_PER_EVENT * c->emitted;
    if (!c->repair_spent && n <= budget - c->repair_steps) {
        c->repair_steps += n;
        return 0;
    }
    if (!c->repair_spent)
        hatf_reader_add_damage_(c->r, "offset %llu: early releases: the repair's budget (%u steps an event) is spent; "
                                "later releases stamped early are left in the order read",
                                (unsigned long long)c->q[c->qi].off, REPAIR_STEPS_PER_EVENT);
    c->repair_spent = 1;
    return 1;
}

/* The queue's first event ends an address A that was not live when it was
 * ordered. Read ahead to the end of its window; if another thread allocates A
 * in it, move the release and its thread's events up to that allocation after
 * it, at its time, unless one of them shares another address with the events
 * it would pass. @return 0, 1 when a following reader has not the whole
 * window yet (called again once it has more), or -1 out of memory. */
static int repair(hatf_causal *c)
{
    size_t i = c->qi;
    const hatf_event *s = &c->q[i].ev;
    uint64_t th = s->thread, a = hatf_event_ends(s), made;
    uint64_t limit = s->time + c->window < s->time ? UINT64_MAX : s->time + c->window;
    /* the groups read ahead may need it (with_pending), unless the queue
     * already uses it (then read_window stops the need at that use) */
    c->pend_addr = quse_count(c, a, &made) > 1 ? 0 : a;  /* > 1: a use besides the release's own */
    c->pend_thread = th;
    int w = read_window(c, i, limit);
    c->pend_addr = 0;
    if (w) return w;
    uint64_t uses_a = quse_count(c, a, &made);
    if (made == (hatf_event_makes(&c->q[i].ev) == a) || c->repair_spent) return 0;  /* nothing allocates it */
    size_t x = 0, j;
    for (j = i + 1; j < c->qn && c->q[j].ev.time <= limit; j++) {
        const hatf_event *e = &c->q[j].ev;
        if (hatf_event_makes(e) == a) { if (e->thread != th) x = j; break; }
        if (hatf_event_ends(e) == a) break;
    }
    if (repair_charge(c, j - i)) return 0;
    if (!x) return 0;
    /* the thread's events from the release on, and the others' they would pass
       (the check one pass, the work of all moves held by repair_charge) */
    int shared = passes_shared(c, i, x, th);
    if (shared) return shared < 0 ? -1 : 0;
    size_t nm = 0;
    for (j = i; j < x; j++) nm += c->q[j].ev.thread == th;
    if (nm > c->qtmpcap) {
        qev *t = realloc(c->qtmp, nm * sizeof *t);
        if (!t) return -1;
        c->qtmp = t;
        c->qtmpcap = nm;
    }
    uint64_t at = c->q[x].ev.time;
    size_t o = i, m = 0;
    for (j = i; j <= x; j++) {
        if (c->q[j].ev.thread == th) c->qtmp[m++] = c->q[j];
        else c->q[o++] = c->q[j];
    }
    for (size_t k = 0; k < nm; k++) {
        hatf_event *e = &c->qtmp[k].ev;
        if (e->release_lead) {  /* a realloc's release time stays: its lead grows as its time */
            uint64_t rel = e->time - e->release_lead;
            e->release_lead = at > rel ? at - rel : 0;
        }
        e->time = at;
        c->q[o++] = c->qtmp[k];
    }
    /* the table followed the order read, where A was allocated last: unless
     * an event after the allocation uses A (besides the release and the
     * allocation, none before it does) */
    if (uses_a <= 2 && c->tracking) {
        addrmap_entry *e = addrmap_find(&c->objs, a);
        if (e) addrmap_remove(&c->objs, e);
    }
    c->st.early_releases++;
    return 0;
}

/* hatf_causal_next for a trace whose releases may be stamped early: the
 * order's events, through the queue from a suspect release on. */
static int early_next(hatf_causal *c, hatf_event *ev)
{
    if (c->qi == c->qn) {
        c->qi = c->qn = 0;
        c->qarena.len = 0;
        if (c->qrc) {
            int rc = c->qrc;
            c->qrc = 0;
            c->err = c->qerr;
            return rc;
        }
        int rc = next_slow(c, ev);
        if (rc <= 0 || !c->suspect) return rc;
        if (qpush(c, ev)) return nomem(c);
    } else if (c->qi >= 4096 && 2 * c->qi >= c->qn && qcompact(c)) {
        return nomem(c);
    }
    while (c->q[c->qi].suspect) {  /* a repair may bring another suspect to the front */
        c->q[c->qi].suspect = 0;
        int w = repair(c);
        if (w < 0) return nomem(c);
        if (w > 0) {  /* a following reader: its window is not all read yet */
            c->q[c->qi].suspect = 1;
            return 0;
        }
    }
    const qev *x = &c->q[c->qi++];
    quse_event(c, &x->ev, -1);
    *ev = x->ev;
    if (ev->data_len) ev->data = c->qarena.p + x->data;
    c->chunk_off = x->off;
    return 1;
}

int hatf_causal_next(hatf_causal *c, hatf_event *ev)
{
    /* most events: the run's, with no group before them */
    if (LIKELY(c->run_i < c->run_end && c->iout >= c->nout && !c->tracking)) {
        *ev = c->run[c->run_i++];
        c->chunk_off = c->run_off;
        c->emitted++;
        return 1;
    }
    return c->early ? early_next(c, ev) : next_slow(c, ev);
}

int hatf_causal_peek(hatf_causal *c, const hatf_event **evs)
{
    if (!(c->run_i < c->run_end && c->iout >= c->nout && !c->tracking)) return 0;
    *evs = &c->run[c->run_i];
    c->chunk_off = c->run_off;
    return (int)(c->run_end - c->run_i);
}

void hatf_causal_take(hatf_causal *c, unsigned k)
{
    c->run_i += k;
    c->emitted += k;
}
