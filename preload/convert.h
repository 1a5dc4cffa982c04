/* convert.h — raw event -> hatf_event, for drain_ring (flusher.c). The plain
 * kinds (malloc, free and realloc with no flag: nearly every event of a
 * program) are converted here, inline in the drain loop; every other kind by
 * ht_convert (convert.c).
 */
#ifndef HT_CONVERT_H
#define HT_CONVERT_H

#include "recorder.h"
#include "hatf_container.h"

/* A realloc's record by its outcome: of NULL, to NULL (freed), in place, moved. */
static inline uint8_t ht_realloc_op(uint64_t old, uint64_t new_addr)
{
    return !old ? HATF_OP_REALLOC_NEW : !new_addr ? HATF_OP_REALLOC_FREE
         : new_addr == old ? HATF_OP_REALLOC_INPLACE : HATF_OP_REALLOC_MOVE;
}

/* Raw kinds ht_convert_plain() takes when their flags are all clear: malloc,
 * free and realloc with no stack, heap or failure. */
#define HT_PLAIN_KINDS (1u << HT_K_MALLOC | 1u << HT_K_FREE | 1u << HT_K_REALLOC)

/* ht_convert() of a plain kind (HT_PLAIN_KINDS, no flag), without its attribute
 * work: such a record is its op's plain call, so it carries no attributes. */
static inline void ht_convert_plain(const ht_rawev *r, uint64_t tid, hatf_event *e)
{
    unsigned kind = (unsigned)r->tk & HT_KIND_MASK;
    uint64_t a = r->a, b = r->b, c = r->c;
    uint8_t op;
    if (kind == HT_K_MALLOC) op = HATF_OP_ALLOC, c = 0;
    else if (kind == HT_K_FREE) op = HATF_OP_FREE, b = c = 0;
    else op = ht_realloc_op(a, c);
    e->op = op;
    e->attr_is_bytes = 0;
    e->data_len = 0;
    e->size = b;
    e->addr = a;
    e->new_addr = c;
    e->thread = tid;
    e->heap = 0;
    e->time = r->tk >> 8;
    e->attr = 0;
    e->data = NULL;
}

/* Any kind, into e; its attribute bytes, if it has any beyond a lone func,
 * into ab (HATF_ATTRS_MAX bytes), which must live as long as e. A heap-create's
 * name goes to the writer's heap table (pre: wlock held) and is freed.
 * stack: the event's process-wide stack id, 0 for none. */
void ht_convert(const ht_rawev *r, uint64_t tid, hatf_event *e, uint8_t *ab, uint64_t stack) HT_HIDDEN;

#endif /* HT_CONVERT_H */
