/* own_heap.h — the recorder's own heap (own_heap.c): the bytes of the blocks
 * its own code holds, which a resident sample (the flusher's) takes out. */
#ifndef HT_OWN_HEAP_H
#define HT_OWN_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>

#include "prim.h"

/* The recorder's own heap: bytes (the allocator's usable sizes) of the blocks
 * it holds, allocated in its own untraced sections (not the program's ignore
 * sections), so a resident sample can take them out beside the rings. */
extern _Atomic int64_t ht_own_heap HT_HIDDEN;
/* The allocator's malloc_usable_size, given by the shim (hooks.c); NULL: no count. */
extern size_t (*ht_real_usable_size)(void *) HT_HIDDEN;
/* An untraced call of kind (allocations add a, frees take it out) into
 * ht_own_heap when the thread runs the recorder's own code. pre: untraced;
 * a free's block not freed yet. A realloc counts itself (hooks.c). */
void ht_own_heap_note(uint32_t kind, uint64_t a) HT_HIDDEN;
/* A realloc in the recorder's own code: block old of old_size usable bytes
 * became now of now_size (either address 0: none). */
void ht_own_heap_realloc(uint64_t old, int64_t old_size, uint64_t now, int64_t now_size) HT_HIDDEN;
/* The recorder's heap as a resident sample counts it: its small blocks'
 * usable bytes at their most so far, the large ones' resident pages. */
uint64_t ht_own_heap_resident(void) HT_HIDDEN;

#endif /* HT_OWN_HEAP_H */
