/* annotate.h — the annotation API's runtime (annotate.c, hatrace_rt_*):
 * what the other files of preload/ call of it. */
#ifndef HT_ANNOTATE_H
#define HT_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "prim.h"

/* Record heap-create of heap with a copy of name (at most 255 bytes, or NULL)
 * for the heap table; the flusher frees the copy. */
void ht_emit_heap_create(uint64_t heap, const char *name) HT_HIDDEN;
/* Record a comment of len bytes of text (copied) on the calling thread
 * (annotate.c). pre: not inside a hook. */
void ht_emit_comment(const char *text, size_t len) HT_HIDDEN;

#endif /* HT_ANNOTATE_H */
