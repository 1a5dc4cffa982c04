/* own_arena.c — the glibc arenas of the recorder's own threads, counted by
 * their resident pages.
 *
 * glibc gives a thread its own arena at its first malloc: a heap of its own,
 * a 64 MiB-aligned reservation starting with the heap's header and the arena's
 * state, then the thread's tcache and its chunks. The flusher's and the
 * helper's blocks were counted by their usable sizes (own_heap.c), which left
 * out the arena's state and tcache, the chunk headers, the free space between
 * blocks and the touched part of the top: ~20 KiB, a tenth of a small
 * program's resident size (issue 42). Counting the heap's resident pages
 * (mincore) takes all of it out exactly, as long as every block in it is the
 * recorder's: no program thread may be attached to the arena (glibc shares an
 * arena between threads once there are 8 a core, or as many as
 * MALLOC_ARENA_MAX; its count of attached threads says so). An arena found
 * shared once is counted by its blocks for good, as before. Only the
 * arena's first heap counts so (it holds the state and is never unmapped);
 * blocks in a second heap (an arena past 64 MiB) count by their sizes.
 *
 * The arena must be a new one: glibc gives a new thread an arena an ended
 * thread left first (a forked child's are all such), and that one may hold
 * blocks the ended thread handed to others, live.
 *
 * This reads glibc's internals (the 64-bit layout of glibc 2.27 on), so it
 * checks them first: the allocator is glibc's, the block's chunk says it is
 * in a non-main arena, and the heap's header and the arena's state hold what
 * a new arena holds. Anything else: -1, and the blocks count as before. */
#include <dlfcn.h>
#include <gnu/lib-names.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "own_arena.h"
#include "prim.h"

/* glibc's heap header (heap_info) and arena state (struct malloc_state), their
 * leading fields as glibc 2.27+ lays them out on 64-bit targets. */
struct glibc_heap {
    void *ar_ptr;
    void *prev;
    size_t size;  /* its read-write part */
};
struct glibc_arena {
    int mutex, flags, have_fastchunks;
    void *fastbins[10];
    void *top, *last_remainder;
    void *bins[254];
    unsigned binmap[4];
    void *next, *next_free;
    size_t attached_threads, system_mem, max_system_mem;
};

/* glibc's HEAP_MAX_SIZE (2 * DEFAULT_MMAP_THRESHOLD_MAX) without huge-page heaps */
#define HEAP_MAX ((uintptr_t)64 << 20)
enum { NON_MAIN_ARENA = 4, IS_MMAPPED = 2, SLOTS = 4 };

/* One recorder arena: its first heap at base, its state, the recorder threads
 * that came to it (users) and have left (left), its resident bytes when the
 * last one left, the recorder's small blocks' bytes in it, found shared. Of
 * process pid (a forked child's copy is not its arena any more). */
static struct own_slot {
    uintptr_t base;
    const struct glibc_arena *state;
    int users, left, shared, exact;
    uint64_t at_leave;
    pid_t pid;
    _Atomic int64_t small;
} slots[SLOTS];
static atomic_flag slots_lock = ATOMIC_FLAG_INIT;

static void slots_take(void) { while (atomic_flag_test_and_set_explicit(&slots_lock, memory_order_acquire)) sched_yield(); }
static void slots_give(void) { atomic_flag_clear_explicit(&slots_lock, memory_order_release); }

static size_t heap_size(const struct own_slot *s)
{
    return *(volatile const size_t *)&((const struct glibc_heap *)s->base)->size;
}

/* glibc's allocator is the one the hooks call (usable_size, the real
 * malloc_usable_size, is glibc's: jemalloc, tcmalloc and mimalloc bring their
 * own), and its heaps are not huge-page ones (glibc.malloc.hugetlb=2 or a
 * size: another alignment). */
static int glibc_heaps(size_t (*usable_size)(void *))
{
    const char *tun = getenv("GLIBC_TUNABLES");
    const char *h = tun ? strstr(tun, "glibc.malloc.hugetlb=") : NULL;
    if (h && strchr("01", h[strlen("glibc.malloc.hugetlb=")]) == NULL) return 0;
    void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
    if (!libc) return 0;
    int ours = usable_size && dlsym(libc, "malloc_usable_size") == (void *)usable_size;
    dlclose(libc);
    return ours;
}

/* A new arena at the start of its thread holds that thread's tcache, a
 * block or two and its top: nothing free in its bins, its top within this
 * many bytes of its state's end (the most of another's blocks it could be
 * holding unseen). */
enum { NEW_USED = 4096 };

/* The arena's bins are empty: no fast chunk, nothing in the unsorted, small
 * or large bins (a bin is empty when it points at itself). */
static int bins_empty(const struct glibc_arena *a)
{
    for (int i = 0; i < 10; i++)
        if (a->fastbins[i]) return 0;
    for (int i = 0; i < 4; i++)
        if (a->binmap[i]) return 0;
    /* the unsorted bin, bin 1: its chunk header sits two words before bins[0] */
    return a->bins[0] == (const char *)&a->bins[0] - 2 * sizeof(void *);
}

/* The heap of block p, if it is the first heap of a new non-main arena as
 * glibc lays one out; 0 if not. */
static uintptr_t first_heap_of(const void *p)
{
    size_t head;
    const char *c = p;
    __asm__("" : "+r"(c));  /* the chunk's header lies before the block: the compiler is not to know */
    memcpy(&head, c - sizeof head, sizeof head);
    if ((head & (NON_MAIN_ARENA | IS_MMAPPED)) != NON_MAIN_ARENA) return 0;
    uintptr_t base = (uintptr_t)p & ~(HEAP_MAX - 1), page = (uintptr_t)sysconf(_SC_PAGESIZE);
    unsigned char v;
    if (mincore((void *)base, page, &v) < 0) return 0;  /* not mapped: not glibc's heap */
    const struct glibc_heap *h = (const void *)base;
    uintptr_t ar = (uintptr_t)h->ar_ptr;
    /* the first heap: the arena's state right after its header; p within it */
    if (ar <= base || ar > base + 64 || h->prev || h->size < page || h->size > HEAP_MAX ||
        (uintptr_t)p - base >= h->size)
        return 0;
    const struct glibc_arena *a = (const void *)ar;
    uintptr_t top = (uintptr_t)a->top;
    return top > ar + sizeof *a && top - (ar + sizeof *a) <= NEW_USED && top < base + h->size &&
           a->system_mem == h->size && a->system_mem % page == 0 && a->max_system_mem == a->system_mem &&
           a->attached_threads == 1 && a->next && bins_empty(a) ? base : 0;
}

int ht_own_arena_enter(size_t (*usable_size)(void *))
{
    if (UINTPTR_MAX != UINT64_MAX || !glibc_heaps(usable_size)) return -1;
    void *p = malloc(1);  /* through the hooks: a block of the recorder's, from this thread's arena */
    uintptr_t base = p ? first_heap_of(p) : 0;
    free(p);
    if (!base) return -1;
    pid_t pid = getpid();
    int at = -1;
    slots_take();
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].pid != pid) slots[i].base = 0;  /* a parent's, before a fork */
        if (slots[i].base == base || (at < 0 && !slots[i].base)) at = i;
    }
    if (at >= 0) {
        struct own_slot *s = &slots[at];
        if (s->base != base) {
            s->base = base, s->state = ((const struct glibc_heap *)base)->ar_ptr, s->pid = pid;
            s->users = s->left = s->shared = 0;
            atomic_store(&s->small, 0);
        }
        s->users++;
    }
    slots_give();
    return at;
}

void ht_own_arena_leave(int slot)
{
    if (slot < 0) return;
    slots_take();
    struct own_slot *s = &slots[slot];
    if (++s->left == s->users) s->at_leave = ht_resident_of((const void *)s->base, heap_size(s));
    slots_give();
}

/* The slot whose heap holds a, or NULL. A block lies within its heap's
 * read-write part from its allocation to its free, so a block's allocation
 * and free find the same slot. */
static struct own_slot *slot_of(uint64_t a)
{
    for (int i = 0; i < SLOTS; i++) {
        struct own_slot *s = &slots[i];
        if (s->base && a - s->base < heap_size(s)) return s;
    }
    return NULL;
}

void ht_own_arena_note(uint64_t a, int64_t n)
{
    slots_take();
    struct own_slot *s = slot_of(a);
    if (s) atomic_fetch_add_explicit(&s->small, n, memory_order_relaxed);
    slots_give();
}

uint64_t ht_own_arena_resident(int64_t *small)
{
    uint64_t res = 0;
    pid_t pid = getpid();
    *small = 0;
    slots_take();
    for (int i = 0; i < SLOTS; i++) {
        struct own_slot *s = &slots[i];
        s->exact = 0;
        if (!s->base || s->pid != pid || s->shared) continue;
        /* More threads on it than the recorder's still running: a program
         * thread's blocks may be in it from now on. A thread that has left but
         * not yet ended looks the same: rare (a sample on another thread in
         * between), it only costs the exact count. The count is glibc's,
         * under its own lock: read as it is. */
        if (*(volatile const size_t *)&s->state->attached_threads > (size_t)(s->users - s->left)) {
            s->shared = 1;
            continue;
        }
        s->exact = 1;
        /* Once they have all left (the flusher is joined before the last
         * sample), glibc keeps the arena for a thread to come: its pages as
         * they were then. A program thread that took it and ended between two
         * samples is not seen: the pages it touched count as the program's,
         * its blocks in the recorder's free space there do not. */
        res += s->left == s->users ? s->at_leave : ht_resident_of((const void *)s->base, heap_size(s));
        *small += atomic_load_explicit(&s->small, memory_order_relaxed);
    }
    slots_give();
    return res;
}

int ht_own_arena_holds(uint64_t a)
{
    slots_take();
    struct own_slot *s = slot_of(a);
    int in = s && s->exact;
    slots_give();
    return in;
}
