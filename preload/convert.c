/* convert.c — a long raw event (three units, ring.h) into the hatf_event the
 * writer takes: its HATF op, size and addresses by kind and outcome, and the
 * hatrace attributes (func, nmemb, align, failed, stack ...) it carries beyond
 * its record's plain call. Every event but the plain ones, which convert.h
 * converts inline in the drain loop.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "flusher_state.h"
#include "recorder.h"
#include "ring.h"

/* hatrace attribute bytes of "func=K" alone: key 1, then K as a one-byte varint */
static const uint8_t func_only[HT_K_DELETE_ARRAY + 1][2] = {
    { 0, 0 }, { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 1, 5 }, { 1, 6 }, { 1, 7 }, { 1, 8 }, { 1, 9 }, { 1, 10 },
    { 1, 11 }, { 1, 12 }, { 1, 13 }, { 1, 14 },
};

void ht_convert(const ht_rawev *r, uint64_t tid, hatf_event *e, uint8_t *ab, uint64_t stack)
{
    unsigned kind = r->tk & HT_KIND_MASK;
    int failed = (r->tk & HT_FAILED) != 0;
    hatf_attrs at;
    at.present = 0;  /* hatf_attrs_encode reads only the keys marked present */
    memset(e, 0, sizeof *e);
    e->thread = tid;
    e->time = r->tk >> HT_TK_SHIFT;
    if ((r->tk & HT_HEAP) && kind != HT_K_REALLOCARRAY) e->heap = r->d;  /* mimalloc_heaps.c */
    if (kind <= HT_K_DELETE_ARRAY) {
        at.value[HATF_A_FUNC] = kind;  /* the kinds are the hatf_func codes */
        at.present |= 1u << HATF_A_FUNC;
    }
    if (kind == HT_K_COMMENT) {  /* its text: the caller frees it after the writer took it */
        e->op = HATF_OP_COMMENT;
        e->data = (const uint8_t *)(uintptr_t)r->d;
        e->data_len = (uint16_t)(r->d ? r->a : 0);
        return;
    }
    uint64_t size;
    switch (kind) {
    case HT_K_MALLOC:
    case HT_K_VALLOC:
    case HT_K_PVALLOC:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = r->b;
        if (kind != HT_K_MALLOC) {
            at.value[HATF_A_ALIGN] = (uint64_t)sysconf(_SC_PAGESIZE);
            at.present |= 1u << HATF_A_ALIGN;
        }
        break;
    case HT_K_CALLOC:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = __builtin_mul_overflow(r->b, r->c, &size) ? UINT64_MAX : size;
        at.value[HATF_A_NMEMB] = r->b;
        at.present |= 1u << HATF_A_NMEMB;
        break;
    case HT_K_REALLOC:
    case HT_K_REALLOCARRAY:
        e->addr = r->a;
        e->new_addr = r->c;
        e->size = r->b;
        if (kind == HT_K_REALLOCARRAY) {
            int packed = (r->tk & HT_PACKED) != 0;
            uint64_t nmemb = packed ? (uint32_t)r->b : r->b;
            uint64_t elsize = packed ? r->b >> 32 : (r->tk & HT_STACKED) ? (uint32_t)r->d : r->d;
            e->size = __builtin_mul_overflow(nmemb, elsize, &size) ? UINT64_MAX : size;
            at.value[HATF_A_NMEMB] = nmemb;
            at.present |= 1u << HATF_A_NMEMB;
        }
        if (failed && r->a) e->op = HATF_OP_REALLOC_INPLACE, e->new_addr = r->a; /* block unchanged */
        else e->op = ht_realloc_op(r->a, r->c);
        /* the begin (HATF_RAW_RELEASE_BIT) in d: a realloc's not in a heap (d the heap's), a packed reallocarray's */
        if ((kind == HT_K_REALLOC ? !(r->tk & HT_HEAP) : (r->tk & HT_PACKED) != 0) && hatf_event_releases_early(e))
            e->release_lead = hatf_raw_release_lead(e->time, r->d);
        break;
    case HT_K_FREE:
    case HT_K_DELETE:
    case HT_K_DELETE_ARRAY:
        e->op = HATF_OP_FREE;
        e->addr = r->a;
        if (kind != HT_K_FREE && r->c) {  /* a sized delete (hooks.c) */
            at.value[HATF_A_SIZED] = r->b;
            at.present |= 1u << HATF_A_SIZED;
        }
        break;
    case HT_K_NEW:
    case HT_K_NEW_ARRAY:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = r->b;
        if (r->c) {  /* the aligned forms */
            at.value[HATF_A_ALIGN] = r->c;
            at.present |= 1u << HATF_A_ALIGN;
        }
        break;
    case HT_K_POSIX_MEMALIGN:
    case HT_K_ALIGNED_ALLOC:
    case HT_K_MEMALIGN:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = r->b;
        at.value[HATF_A_ALIGN] = r->c;
        at.present |= 1u << HATF_A_ALIGN;
        break;
    case HT_K_THREAD_CREATE:
        e->op = HATF_OP_THREAD_CREATE;
        at.value[HATF_A_OSTID] = r->b;
        at.present |= 1u << HATF_A_OSTID;
        if (r->a) {
            at.value[HATF_A_PARENT] = r->a;
            at.present |= 1u << HATF_A_PARENT;
        }
        break;
    case HT_K_THREAD_DESTROY:
        e->op = HATF_OP_THREAD_DESTROY;
        break;
    case HT_K_HEAP_CREATE:
        e->op = HATF_OP_HEAP_CREATE;
        e->heap = r->a;
        if (r->d) {  /* the name travelled as a copy made by hatrace_rt_heap_create or mi_heap_new */
            if (ht_fs.writer && !ht_fs.out_failed)
                hatf_writer_name_heap(ht_fs.writer, r->a, (const char *)(uintptr_t)r->d);
            free((void *)(uintptr_t)r->d);
        }
        break;
    case HT_K_HEAP_DESTROY:
        e->op = HATF_OP_HEAP_DESTROY;
        e->heap = r->a;
        break;
    case HT_K_HEAP_ALLOC:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = r->b;
        e->heap = r->c;
        break;
    case HT_K_HEAP_FREE:
        e->op = HATF_OP_FREE;
        e->addr = r->a;
        e->heap = r->c;
        break;
    case HT_K_HEAP_REALLOC:
        e->addr = r->a;
        e->size = r->b;
        e->new_addr = r->c;
        e->heap = r->d;
        if (!r->a) e->op = HATF_OP_REALLOC_NEW;
        else if (!r->c && !r->b) e->op = HATF_OP_REALLOC_FREE;
        else e->op = r->c == r->a ? HATF_OP_REALLOC_INPLACE : HATF_OP_REALLOC_MOVE;
        break;
    default:
        e->op = HATF_OP_COMMENT;  /* unreachable: every kind the hooks write is above */
        break;
    }
    if (failed) {
        at.value[HATF_A_FAILED] = 1;
        at.present |= 1u << HATF_A_FAILED;
    }
    if (stack) {
        at.value[HATF_A_STACK] = stack;
        at.present |= 1u << HATF_A_STACK;
    }
    /* The plain call of its record (malloc for alloc, free for free, realloc
     * for a realloc record) is left out: readers take an absent func as that,
     * and the trace is smaller and cheaper to write. */
    if ((kind == HT_K_MALLOC && e->op == HATF_OP_ALLOC) || (kind == HT_K_FREE && e->op == HATF_OP_FREE) ||
        (kind == HT_K_REALLOC && hatf_op_is_realloc(e->op)))
        at.present &= ~(1u << HATF_A_FUNC);
    if (!at.present) return;  /* no attributes at all (the common case; heap records) */
    e->attr_is_bytes = 1;
    if (at.present == 1u << HATF_A_FUNC) {  /* another function alone */
        e->data = func_only[kind];
        e->data_len = 2;
        return;
    }
    e->data = ab;
    e->data_len = (uint16_t)hatf_attrs_encode(&at, ab);
}
