/* own_heap.c — the recorder's own heap: the usable bytes of the blocks its
 * own code holds (counted by the hooks in its untraced sections), so that a
 * resident sample can take them out beside the rings. */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "own_arena.h"
#include "own_heap.h"
#include "prim.h"
#include "recorder.h"

_Atomic int64_t ht_own_heap;
size_t (*ht_real_usable_size)(void *);

/* The recorder's own blocks of OWN_BIG bytes or more (zstd's contexts, the
 * writer's group buffers): a resident sample counts their resident pages,
 * not their size, as much of such a block may never be touched (an allocator
 * maps it fresh). A table under a spin lock: such blocks are few and made
 * rarely; one that finds the table full is counted at its size. */
enum { OWN_BIG = 64 * 1024, OWN_BIG_SLOTS = 512 };
static struct { uint64_t addr, size; } own_big[OWN_BIG_SLOTS];
static size_t own_big_n;
static atomic_flag own_big_lock = ATOMIC_FLAG_INIT;

static void own_big_take(void) { while (atomic_flag_test_and_set_explicit(&own_big_lock, memory_order_acquire)) sched_yield(); }
static void own_big_give(void) { atomic_flag_clear_explicit(&own_big_lock, memory_order_release); }

/* Block a of n usable bytes made (n > 0) or given back (n < 0). */
static void own_block(uint64_t a, int64_t n)
{
    atomic_fetch_add_explicit(&ht_own_heap, n, memory_order_relaxed);
    if (n > -OWN_BIG && n < OWN_BIG) {
        ht_own_arena_note(a, n);  /* in a recorder thread's arena: its pages count it */
        return;
    }
    own_big_take();
    if (n > 0 && own_big_n < OWN_BIG_SLOTS) {
        own_big[own_big_n].addr = a, own_big[own_big_n].size = (uint64_t)n, own_big_n++;
    } else if (n < 0) {
        for (size_t i = 0; i < own_big_n; i++)
            if (own_big[i].addr == a) {
                own_big[i] = own_big[--own_big_n];
                break;
            }
    }
    own_big_give();
}

void ht_own_heap_note(uint32_t kind, uint64_t a)
{
    HATF_PRE(ht_t.untraced > 0);
    if (!a || !ht_real_usable_size) return;
    int64_t n = (int64_t)ht_real_usable_size((void *)(uintptr_t)a);
    switch (kind) {
    case HT_K_MALLOC: case HT_K_CALLOC: case HT_K_POSIX_MEMALIGN: case HT_K_ALIGNED_ALLOC:
    case HT_K_MEMALIGN: case HT_K_VALLOC: case HT_K_PVALLOC: case HT_K_NEW: case HT_K_NEW_ARRAY:
        own_block(a, n);
        break;
    case HT_K_FREE: case HT_K_DELETE: case HT_K_DELETE_ARRAY:
        own_block(a, -n);
        break;
    default:  /* a realloc counts itself (ht_own_heap_realloc); the heap kinds are the program's */
        break;
    }
}

void ht_own_heap_realloc(uint64_t old, int64_t old_size, uint64_t now, int64_t now_size)
{
    if (old) own_block(old, -old_size);
    if (now) own_block(now, now_size);
}

/* The most bytes of small blocks the recorder held at a sample: what it frees
 * its allocator keeps for its next blocks (glibc's thread arenas of the flusher
 * and the helper give back only a large free top), so they count at their
 * high-water mark, not as they are now. Under wlock (ht_resident_sample). */
static int64_t own_small_most;

uint64_t ht_own_heap_resident(void)
{
    int64_t small = atomic_load_explicit(&ht_own_heap, memory_order_relaxed), big = 0, in_arenas;
    /* the recorder threads' own arenas by their pages, the blocks in them included */
    uint64_t arenas = ht_own_arena_resident(&in_arenas);
    small -= in_arenas;
    own_big_take();
    for (size_t i = 0; i < own_big_n; i++) {
        small -= (int64_t)own_big[i].size;
        if (!ht_own_arena_holds(own_big[i].addr))
            big += (int64_t)ht_resident_of((void *)(uintptr_t)own_big[i].addr, own_big[i].size);
    }
    own_big_give();
    if (small > own_small_most) own_small_most = small;
    /* a block of the program's freed here can take the count below 0 */
    return (uint64_t)(own_small_most > 0 ? own_small_most : 0) + (uint64_t)big + arenas;
}
