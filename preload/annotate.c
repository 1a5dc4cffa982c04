/* annotate.c — the runtime of the annotation API (include/hatrace.h): a program
 * or its own allocator declares heaps and the objects in them. The header holds
 * weak references to these symbols; only libhatrace.so defines them.
 *
 * Every call is one raw event on the calling thread's ring, like a hook's, with
 * the heap id in the event; the flusher turns it into the HATF record (heap
 * field set) and gives the heap's name to the container's tables. Heap ids are
 * 1, 2, 3, ... per process, never reused. Heap 0 is malloc's: calls naming it
 * do nothing, so code need not check what create returned.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "prim.h"
#include "process.h"
#include "recorder.h"

#define HT_EXPORT __attribute__((visibility("default")))

/* The exported runtime. include/hatrace.h declares these weak, for programs;
 * this file does not include it, so that its definitions stay strong. */
HT_EXPORT uint64_t hatrace_rt_heap_create(const char *name);
HT_EXPORT void hatrace_rt_heap_destroy(uint64_t heap);
HT_EXPORT void hatrace_rt_heap_alloc(uint64_t heap, const void *ptr, size_t size);
HT_EXPORT void hatrace_rt_heap_free(uint64_t heap, const void *ptr);
HT_EXPORT void hatrace_rt_heap_realloc(uint64_t heap, const void *old_ptr, const void *new_ptr, size_t size);
HT_EXPORT void hatrace_rt_ignore(int delta);
HT_EXPORT void hatrace_rt_comment(const char *text);

static _Atomic uint64_t next_heap = 1;

#define P(x) ((uint64_t)(uintptr_t)(x))

/* The name is copied with malloc (recorder's own, not recorded) and handed to
 * the flusher inside the event, which names the heap and frees the copy. */
HT_EXPORT uint64_t hatrace_rt_heap_create(const char *name)
{
    ht_init_wait();  /* the shim (hooks.c) starts the recorder */
    if (atomic_load(&ht_state) != HT_ST_READY) return 0;
    uint64_t h = atomic_fetch_add(&next_heap, 1);
    ht_emit_heap_create(h, name);
    return h;
}

void ht_emit_heap_create(uint64_t heap, const char *name)
{
    char *copy = NULL;  /* the recorder's, untraced; the flusher frees it */
    if (name) {
        size_t n = strnlen(name, 255);
        ht_untraced_enter(&ht_t);
        copy = malloc(n + 1);
        ht_untraced_leave(&ht_t);
        if (copy) {
            memcpy(copy, name, n);
            copy[n] = 0;
        }
    }
    ht_emit(HT_K_HEAP_CREATE, heap, 0, 0, P(copy));
}

HT_EXPORT void hatrace_rt_comment(const char *text)
{
    ht_init_wait();  /* the shim (hooks.c) starts the recorder */
    if (!text || atomic_load(&ht_state) != HT_ST_READY) return;
    ht_emit_comment(text, strnlen(text, 4096));  /* HATRACE_COMMENT_MAX */
}

void ht_emit_comment(const char *text, size_t n)
{
    HATF_PRE(!ht_t.busy);
    ht_untraced_enter(&ht_t);
    char *copy = malloc(n ? n : 1);  /* the recorder's, untraced; the flusher frees it */
    ht_untraced_leave(&ht_t);
    if (!copy) {  /* counted as lost, as an event the recorder cannot store */
        atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        return;
    }
    memcpy(copy, text, n);
    ht_emit(HT_K_COMMENT, n, 0, 0, P(copy));
}

HT_EXPORT void hatrace_rt_heap_destroy(uint64_t heap)
{
    if (heap) ht_emit(HT_K_HEAP_DESTROY, heap, 0, 0, 0);
}

HT_EXPORT void hatrace_rt_heap_alloc(uint64_t heap, const void *ptr, size_t size)
{
    if (heap) ht_emit(HT_K_HEAP_ALLOC | (ptr ? 0 : HT_FAILED), P(ptr), size, heap, 0);
}

HT_EXPORT void hatrace_rt_heap_free(uint64_t heap, const void *ptr)
{
    if (heap && ptr) ht_emit(HT_K_HEAP_FREE, P(ptr), 0, heap, 0);
}

HT_EXPORT void hatrace_rt_heap_realloc(uint64_t heap, const void *old_ptr, const void *new_ptr, size_t size)
{
    if (heap) ht_emit(HT_K_HEAP_REALLOC, P(old_ptr), size, P(new_ptr), heap);
}

/* Nesting count on the thread's untraced counter, which the hooks already test:
 * the recorder's own sections and the program's ignore sections add up. */
HT_EXPORT void hatrace_rt_ignore(int delta)
{
    ht_tls *t = &ht_t;
    uint32_t down = 0u - (uint32_t)delta;  /* -delta without overflow, INT_MIN included */
    if (delta > 0) {
        t->untraced += (uint32_t)delta;
        t->ignoring += (uint32_t)delta;
    } else if (t->untraced >= down) {
        t->untraced -= down;
        t->ignoring = t->ignoring >= down ? t->ignoring - down : 0;
    }
}
