/* own_arena.h — the glibc arenas of the recorder's own threads (own_arena.c):
 * counted by their resident pages, exactly, while no program thread shares
 * them, so a resident sample takes out their bookkeeping and free space too,
 * not only the blocks in them (own_heap.c). */
#ifndef HT_OWN_ARENA_H
#define HT_OWN_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "prim.h"

/* On a recorder thread (the flusher, the helper), at its start: its glibc
 * arena, if it has one of its own, to be counted by its pages. usable_size:
 * the real malloc_usable_size (the hooks' allocator is glibc's if it is).
 * @return a slot for ht_own_arena_leave, -1 if none (another allocator, the
 * main arena, a layout not glibc's: its blocks are counted as before). */
int ht_own_arena_enter(size_t (*usable_size)(void *)) HT_HIDDEN;
/* The same thread at its end (slot from ht_own_arena_enter; -1: nothing):
 * once all of an arena's recorder threads have left, it counts as its pages
 * were then (glibc keeps it, for a thread to come). */
void ht_own_arena_leave(int slot) HT_HIDDEN;
/* A small block of the recorder's, n usable bytes made (n > 0) or freed
 * (n < 0) at a: counted in its arena's slot if it lies in one. */
void ht_own_arena_note(uint64_t a, int64_t n) HT_HIDDEN;
/* pre: wlock held (once per resident sample). The resident bytes of the
 * recorder's arenas that no program thread shares, and into *small the
 * small blocks' bytes in them (already in those pages). Settles which
 * arenas count so for ht_own_arena_holds until the next call. */
uint64_t ht_own_arena_resident(int64_t *small) HT_HIDDEN;
/* Whether a (a block of the recorder's) lies in an arena counted by its
 * pages at the last ht_own_arena_resident. */
int ht_own_arena_holds(uint64_t a) HT_HIDDEN;

#endif /* HT_OWN_ARENA_H */
