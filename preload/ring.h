/* ring.h — the per-thread event ring of the recorder (single producer, single consumer).
 *
 * One ring per traced thread. The owning thread (producer) appends raw events
 * of one or three 16-byte units (libhatf's hatf_recorder.h: a malloc or free
 * in one, anything else in three); the flusher thread (consumer) reads them in
 * place and then releases them.
 *
 *   head  written by the producer only (release), read by the consumer (acquire)
 *   tail  written by the consumer only (release), read by the producer (acquire)
 *   head - tail = units waiting; both count up forever, unit = index & mask.
 *
 * An event never wraps: two spare units past the end take the rest of a long
 * event that starts in the last two, and the units it covers at the start are
 * skipped (their indexes are the event's). The consumer reads each event that
 * starts before the end whole, and the next from the start.
 *
 * The producer keeps a private copy of tail and reads the shared one only when the
 * ring looks full, so an append touches only the producer's own cache line and the
 * slot, whose line it claimed ahead of time (ht_ring_claim_ahead). Nothing here
 * allocates, locks or makes a system call; the policy for a full ring (wait or
 * drop) and the flusher wake-up belong to the caller (process.c).
 */
#ifndef HT_RING_H
#define HT_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../hatf/hatf_recorder.h"  /* the units' layout, shared with the writer */

/* One raw event's words; in a ring a long one (three units, the sixth word
 * unused), or its first two a short one (tk, then a | b << 48).
 * tk = (timestamp - trace start) << HT_TK_SHIFT | HT_SHORT if short | kind
 * (low 5 bits) | flags. The meaning of a..d depends on the kind: see ht_kind
 * in recorder.h. */
typedef struct ht_rawev {
    uint64_t tk;
    uint64_t a, b, c, d;
} ht_rawev;

#define HT_TK_SHIFT HATF_RAW_TIME_SHIFT
#define HT_SHORT HATF_RAW_SHORT
enum { HT_UNIT_WORDS = HATF_RAW_UNIT_WORDS, HT_LONG_UNITS = HATF_RAW_LONG_UNITS };
_Static_assert(sizeof(ht_rawev) <= HT_LONG_UNITS * HT_UNIT_WORDS * sizeof(uint64_t), "a long event fits its units");

enum { HT_SIDE_CAP = 256 };  /* events a signal handler may queue while its thread is in a hook */

/* EXITING: its thread has run its last key destructor and still records the
 * calls glibc's thread exit makes after it; DEAD once its thread-destroy is
 * written (process.c, ht_thread_gone_tk). */
enum ht_ring_state { HT_RING_FREE = 0, HT_RING_OWNED = 1, HT_RING_DEAD = 2, HT_RING_EXITING = 3 };

typedef struct ht_ring {
    /* producer's cache line */
    alignas(64) _Atomic uint64_t head;
    uint64_t tail_cache;         /* producer's last view of tail */
    uint64_t last_tk;            /* tk of the last event published (the side drain's order) */
    uint64_t poke_at;            /* head whose publish pokes the consumer */
    uint32_t mask;               /* capacity in units - 1 (capacity is a power of two) */
    uint32_t mark;               /* fill level at which the producer pokes the flusher */
    uint64_t waits;              /* times the producer found the ring full and waited */
    _Atomic uint64_t wait_ns;    /* time it spent waiting, in all (the flusher reads it) */
    uint64_t drops;              /* events the producer could not store */
    uint32_t side_w, side_r;     /* side buffer indexes (owner thread and its handlers) */
    /* consumer's cache line */
    alignas(64) _Atomic uint64_t tail;
    uint64_t pace_tail;          /* tail at the flusher's last pacing look (flusher.c) */
    _Atomic uint32_t waiting;    /* the producer sleeps on wake until the consumer frees room */
    _Atomic uint32_t wake;       /* futex word: bumped by the consumer to wake the producer */
    /* shared, rarely written */
    alignas(64) _Atomic uint32_t state; /* ht_ring_state */
    uint64_t tid;                /* dense thread id of the current owner (set before OWNED) */
    uint32_t ostid;              /* its OS thread id */
    char name[16];               /* its name at exit (prctl PR_GET_NAME), "" until then */
    struct ht_ring *next;        /* registry list; never unlinked */
    size_t map_bytes;            /* size of the mapping holding this ring */
    struct ht_stk *stk;          /* call-stack dedup table (stacks.c), kept across reuse */
    ht_rawev side[HT_SIDE_CAP];
    alignas(64) uint64_t w[];    /* the units, HT_UNIT_WORDS words each, and the spares */
} ht_ring;

/* Bytes needed for a ring of cap units (cap a power of two). */
static inline size_t ht_ring_bytes(uint32_t cap)
{
    return sizeof(ht_ring) + ((size_t)cap + HT_LONG_UNITS - 1) * HT_UNIT_WORDS * sizeof(uint64_t);
}

/* Initialise a zeroed ring of cap units (power of two >= 64) in place. */
static inline void ht_ring_init(ht_ring *r, uint32_t cap)
{
    atomic_store_explicit(&r->head, 0, memory_order_relaxed);
    atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
    r->pace_tail = 0;
    r->tail_cache = 0;
    r->last_tk = 0;
    r->mask = cap - 1;
    r->mark = cap / 2;
    r->poke_at = r->mark;
    r->waits = r->drops = 0;
    atomic_store_explicit(&r->wait_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&r->waiting, 0, memory_order_relaxed);
    r->side_w = r->side_r = 0;
}

/* Units ahead of the head that the producer claims for writing: 8 cache lines,
 * a few hundred ns of the densest program's events, all of a sparse one's. */
enum { HT_CLAIM_AHEAD = 32 };

/* Producer: take the line HT_CLAIM_AHEAD units ahead for writing. The
 * consumer read it a lap ago and still holds a copy: the store that finds it
 * so waits for the other core to give it up (a cross-core round trip every
 * four events, half of the ring's cost on an interpreter; a read prefetch
 * only fetches a copy). prefetchw is a hint that never faults: AMD has had it
 * since the K6-2, Intel since Broadwell, and earlier Intel cores run its
 * opcode as a NOP. */
static inline __attribute__((always_inline)) void ht_ring_claim_ahead(ht_ring *r, uint64_t h)
{
    const uint64_t *p = &r->w[((h + HT_CLAIM_AHEAD) & r->mask) * HT_UNIT_WORDS];
#if defined(__x86_64__) || defined(__i386__)
    __asm__("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Producer: room for the next event, long or short, by the cached tail only:
 * NULL as soon as the ring looks full by it (the hooks' fast path then takes
 * ht_ring_slot out of line, keeping the refresh's registers out of it). */
static inline ht_rawev *ht_ring_slot_cached(ht_ring *r)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (__builtin_expect(h - r->tail_cache > r->mask + 1 - HT_LONG_UNITS, 0)) return NULL;
    ht_ring_claim_ahead(r, h);
    return (ht_rawev *)(void *)&r->w[(h & r->mask) * HT_UNIT_WORDS];
}

/* Producer: room for the next event, long or short, or NULL if the ring has
 * not room for a long one. Fill it (ht_rawev_put), then ht_ring_publish().
 * pre: called by the owner only. */
static inline ht_rawev *ht_ring_slot(ht_ring *r)
{
    ht_rawev *e = ht_ring_slot_cached(r);
    if (__builtin_expect(e != NULL, 1)) return e;
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (h - r->tail_cache > r->mask + 1 - HT_LONG_UNITS) return NULL;
    /* the next poke: at the mark, or now if the consumer is already behind it */
    r->poke_at = h - r->tail_cache >= r->mark ? h + 1 : r->tail_cache + r->mark;
    return (ht_rawev *)(void *)&r->w[(h & r->mask) * HT_UNIT_WORDS];
}

/* Producer: write an event into its room at e, short if it can be
 * (hatf_raw_short). @return its units. */
static inline __attribute__((always_inline)) unsigned ht_rawev_put(ht_rawev *e, uint64_t tk, uint64_t a, uint64_t b,
                                                                 uint64_t c, uint64_t d)
{
    uint64_t word;
    if (__builtin_expect(hatf_raw_short((unsigned)tk & 0xffu, a, b, c, d, &word), 1)) {
        e->tk = tk | HT_SHORT;
        e->a = word;
        return 1;
    }
    e->tk = tk;
    e->a = a;
    e->b = b;
    e->c = c;
    e->d = d;
    return HT_LONG_UNITS;
}

/* Producer: make the event just written visible (units: ht_rawev_put's).
 * @return 1 if the fill level just reached the mark as far as the producer
 * knows the tail, or its first event after it learnt the consumer is past
 * the mark behind (the caller asks ht_ring_poke_needed), else 0. */
static inline int ht_ring_publish(ht_ring *r, unsigned units)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed) + units;
    atomic_store_explicit(&r->head, h, memory_order_release);
    return h - r->poke_at < units;  /* this event's units cover poke_at */
}

/* Producer, when ht_ring_publish says a poke is due: nonzero if the flusher
 * must be woken, the ring being half full (the mark) by the shared tail. Else
 * the flusher, keeping its own pace, has drained it meanwhile: the next poke
 * is due half a ring past that tail. Waking a sleeping thread costs the waker
 * tens of µs on a VM (an inter-processor interrupt): a poke is the backstop,
 * not the rhythm. */
static inline int ht_ring_poke_needed(ht_ring *r)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
    r->tail_cache = t;
    if (h - t >= r->mark) return 1;
    r->poke_at = t + r->mark;
    return 0;
}

/* Consumer's pace: the ns until a ring now holding fill units holds target,
 * at the rate of moved units in dt ns (its rate since the last look); max_ns
 * if it did not move. dt is taken at most 2^36 ns (a minute: with a target
 * under 2^24 units the product stays under 2^63). */
static inline uint64_t ht_ring_fill_in(uint64_t target, uint64_t fill, uint64_t moved, uint64_t dt, uint64_t max_ns)
{
    if (!moved) return max_ns;
    if (fill >= target) return 0;
    if (dt > 1ull << 36) dt = 1ull << 36;
    uint64_t w = (target - fill) * dt / moved;
    return w < max_ns ? w : max_ns;
}

/* Consumer: the units ready at the tail, at most max, from *first on: every
 * event that starts in them is whole there (the last may end past them, by up
 * to two units, and past the ring's end into the spares); they stop at the
 * ring's end. Step through them with hatf_raw_units. @return the count (0 if
 * empty). */
static inline size_t ht_ring_peek(ht_ring *r, const uint64_t **first, size_t max)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t n = h - t;
    uint64_t to_end = (uint64_t)r->mask + 1 - (t & r->mask);
    if (n > to_end) n = to_end;
    if (n > max) n = max;
    *first = &r->w[(t & r->mask) * HT_UNIT_WORDS];
    return (size_t)n;
}

/* Consumer: release n units read through ht_ring_peek (whole events: it
 * may be more than the peek gave). */
static inline void ht_ring_consume(ht_ring *r, size_t n)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    atomic_store_explicit(&r->tail, t + n, memory_order_release);
}

/* Consumer, after ht_ring_consume: whether a producer sleeping on a full ring
 * should be woken now, i.e. the fill is down to the mark (it resumes with room
 * for a burst instead of one wake-up per batch), or final (the consumer stops
 * here). Pairs with the fence in the producer's wait (process.c): one of the
 * two sees the other's store. */
static inline int ht_ring_wake_due(ht_ring *r, int final)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (__builtin_expect(!atomic_load_explicit(&r->waiting, memory_order_relaxed), 1)) return 0;
    if (!final && atomic_load_explicit(&r->head, memory_order_relaxed) -
                  atomic_load_explicit(&r->tail, memory_order_relaxed) > r->mark) return 0;
    atomic_store_explicit(&r->waiting, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->wake, 1, memory_order_release);
    return 1;
}

/* Either side: units waiting (a snapshot; it ends on an event). */
static inline uint64_t ht_ring_fill(ht_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_acquire) -
           atomic_load_explicit(&r->tail, memory_order_acquire);
}

#endif /* HT_RING_H */
