/* convert.h — raw event -> hatf_event, for drain_ring (flusher.c). The plain
 * kinds (malloc, calloc, free and realloc with no flag: nearly every event of a
 * program) are not converted: the writer codes them straight from the ring
 * (hatf_writer_add_plain_, hatf/hatf_recorder.h); every other kind goes
 * through ht_convert (convert.c).
 */
#ifndef HT_CONVERT_H
#define HT_CONVERT_H

#include "prim.h"
#include "recorder.h"
#include "ring.h"
#include "hatf_container.h"

/* A realloc's record by its outcome: of NULL, to NULL (freed), in place, moved. */
static inline uint8_t ht_realloc_op(uint64_t old, uint64_t new_addr)
{
    return !old ? HATF_OP_REALLOC_NEW : !new_addr ? HATF_OP_REALLOC_FREE
         : new_addr == old ? HATF_OP_REALLOC_INPLACE : HATF_OP_REALLOC_MOVE;
}

/* Raw kinds the writer takes as they are when their flags are all clear:
 * malloc, calloc, free and realloc with no stack, heap or failure. */
#define HT_PLAIN_KINDS (1u << HT_K_MALLOC | 1u << HT_K_CALLOC | 1u << HT_K_FREE | 1u << HT_K_REALLOC)

/* Any kind, into e; its attribute bytes, if it has any beyond a lone func,
 * into ab (HATF_ATTRS_MAX bytes), which must live as long as e. A heap-create's
 * name goes to the writer's heap table (pre: wlock held) and is freed.
 * stack: the event's process-wide stack id, 0 for none. */
void ht_convert(const ht_rawev *r, uint64_t tid, hatf_event *e, uint8_t *ab, uint64_t stack) HT_HIDDEN;

#endif /* HT_CONVERT_H */
