/* registry.h — the ring registry (registry.c): a ring for each new thread,
 * reused or mapped. */
#ifndef HT_REGISTRY_H
#define HT_REGISTRY_H

#include <stdatomic.h>
#include <stdint.h>

#include "prim.h"
#include "ring.h"

/* A ring for the calling thread: a free one from the registry, or a new mapping.
 * @return NULL if memory is exhausted. */
ht_ring *ht_ring_claim(void) HT_HIDDEN;
/* Registry of rings (lock-free push, never unlinked; rings are reused). */
extern _Atomic(ht_ring *) ht_rings HT_HIDDEN;
extern _Atomic uint32_t ht_dead_rings HT_HIDDEN;  /* exited threads not yet reclaimed */
/* Fork child: every ring is reset and free, none counted dead. */
void ht_rings_atfork_child(void) HT_HIDDEN;

#endif /* HT_REGISTRY_H */
