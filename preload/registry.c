/* registry.c — the ring registry: every thread's ring, on one lock-free list
 * the flusher walks. A new thread claims a free ring (one whose thread has
 * exited and been drained) or maps a new one, sized by how many threads hold
 * rings already; rings are never unlinked nor unmapped, so memory is bounded
 * by the most threads alive at once.
 */
#include <sys/mman.h>

#include "options.h"
#include "registry.h"
#include "ring.h"

_Atomic(ht_ring *) ht_rings;
_Atomic uint32_t ht_dead_rings;

static uint32_t ring_cap(void)
{
    uint32_t want = (uint32_t)ht_opt(HT_OPT_RING_SIZE), cap = 64;
    while (cap < want) cap <<= 1;
    return cap;
}

/* A thread that starts while up to HT_RINGS_FULL others hold rings gets the
 * configured size; past them a new thread's ring is halved each time their
 * number doubles (to HT_RING_MIN units at least): with the default size,
 * past 16 threads each new one holds a quarter of a full ring (512 KiB). A
 * smaller ring only makes its thread wait for the flusher sooner, and with
 * that many busy threads the flusher sets the pace. */
enum { HT_RINGS_FULL = 8, HT_RING_MIN = 8192 };

static uint32_t ring_cap_now(void)
{
    uint32_t full = ring_cap(), cap = full, owned = 0;
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next)
        owned += atomic_load_explicit(&r->state, memory_order_relaxed) == HT_RING_OWNED;
    uint32_t floor = full < HT_RING_MIN ? full : HT_RING_MIN;
    while (cap > floor && (uint64_t)cap * owned > (uint64_t)full * HT_RINGS_FULL) cap >>= 1;
    return cap;
}

ht_ring *ht_ring_claim(void)
{
    uint32_t cap = ring_cap_now();
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        uint32_t st = HT_RING_FREE;  /* a free ring as large or larger: its memory is there already */
        if (r->mask + 1 >= cap && atomic_compare_exchange_strong(&r->state, &st, HT_RING_OWNED))
            return r;
    }
    size_t bytes = ht_ring_bytes(cap);
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    ht_ring *r = m;
    ht_ring_init(r, cap);
    r->map_bytes = bytes;
    atomic_store(&r->state, HT_RING_OWNED);
    ht_ring *head = atomic_load(&ht_rings);
    do r->next = head;
    while (!atomic_compare_exchange_weak(&ht_rings, &head, r));
    return r;
}

/* The parent's threads are not in the child: their rings, and what the parent
 * had not drained from them yet, are the parent's trace's. */
void ht_rings_atfork_child(void)
{
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        ht_ring_init(r, r->mask + 1);
        atomic_store(&r->state, HT_RING_FREE);
    }
    atomic_store(&ht_dead_rings, 0);
}
