/* merge_key.h — the global merge's order, written out independently for tests:
 * by time, then events that give memory back before events that take it, then
 * lower thread (the callers scan threads in order), then stream order. */
#ifndef TEST_MERGE_KEY_H
#define TEST_MERGE_KEY_H
#include "hatf.h"

static inline uint64_t ref_merge_key(const hatf_event *e)
{
    int gives = e->op == HATF_OP_FREE || e->op == HATF_OP_REALLOC_FREE ||
                e->op == HATF_OP_HEAP_DESTROY || e->op == HATF_OP_THREAD_DESTROY;
    return e->time * 2 + (gives ? 0 : 1);  /* test times are small */
}
#endif
