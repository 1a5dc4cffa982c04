/* hatrace.h — the annotation API: a program or a custom allocator declares its
 * own heaps (pools, arenas, regions) to hatrace, and marks its phases with
 * comments in the trace (hatrace_comment).
 *
 * Header only. Nothing to link: every call is an inline wrapper around a weak
 * reference to a symbol that only libhatrace.so defines. When the program runs
 * without LD_PRELOAD=libhatrace.so the symbol's address is NULL and the call is
 * one load and a well-predicted branch; under libhatrace.so it records a HATF
 * createHeap, destroyHeap, alloc or free record carrying the heap id.
 *
 *     #include <hatrace.h>
 *     hatrace_heap h = hatrace_heap_create("request pool");
 *     hatrace_ignore_begin();               // the pool's own chunks are not objects
 *     chunk = malloc(64 * 1024);
 *     hatrace_ignore_end();
 *     obj = carve(chunk, 48);
 *     hatrace_heap_alloc(h, obj, 48);       // one object of the pool
 *     hatrace_heap_free(h, obj);            // (optional: destroy ends them all)
 *     hatrace_heap_destroy(h);              // every object still live in h ends here
 *
 * Requirements. Weak undefined references resolved at load time need code
 * built as position independent (the default on Debian and most distributions:
 * -fPIE executables, -fPIC shared objects). A non-PIE executable's weak
 * references are bound to NULL by the static linker, so the calls do nothing
 * even under libhatrace.so. Define HATRACE_DISABLE before including this
 * header to compile every call out.
 *
 * Semantics (docs/heaps.md):
 * - Heap ids are nonzero and unique for the life of the process. Heap 0 is the
 *   default heap (malloc's); a create outside libhatrace.so returns 0, and every
 *   call given heap 0 does nothing, so code need not check.
 * - An object reported with hatrace_heap_alloc lives until hatrace_heap_free,
 *   hatrace_heap_realloc moves it, or hatrace_heap_destroy of its heap.
 * - Addresses are the program's own; they must not overlap objects the
 *   recorder sees through malloc at the same time. Wrap the pool's own calls
 *   to malloc/free for its chunks in hatrace_ignore_begin/_end.
 * Thread safety: every call may come from any thread and is recorded on the
 * calling thread's stream, in its order. None allocates or takes a lock on the
 * recording path (a create takes one lock to store the name).
 */
#ifndef HATRACE_H
#define HATRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HATRACE_ANNOTATE_VERSION 1

typedef uint64_t hatrace_heap;  /* 0: the default heap / not recording */

#if !defined(HATRACE_DISABLE) && (defined(__GNUC__) || defined(__clang__))

/* Defined by libhatrace.so only (exported as hatrace_rt_*); weak here. Call the
 * inline wrappers below, never these: they are not there without the preload. */
#define HATRACE_WEAK_ __attribute__((weak))
extern hatrace_heap hatrace_rt_heap_create(const char *name) HATRACE_WEAK_;
extern void hatrace_rt_heap_destroy(hatrace_heap heap) HATRACE_WEAK_;
extern void hatrace_rt_heap_alloc(hatrace_heap heap, const void *ptr, size_t size) HATRACE_WEAK_;
extern void hatrace_rt_heap_free(hatrace_heap heap, const void *ptr) HATRACE_WEAK_;
extern void hatrace_rt_heap_realloc(hatrace_heap heap, const void *old_ptr, const void *new_ptr,
                                    size_t size) HATRACE_WEAK_;
extern void hatrace_rt_ignore(int delta) HATRACE_WEAK_;
extern void hatrace_rt_comment(const char *text) HATRACE_WEAK_;
#undef HATRACE_WEAK_

/* Is the program running under libhatrace.so? */
static inline int hatrace_active(void)
{
    return hatrace_rt_heap_create != 0;
}

/* Create a heap and record createHeap. name (may be NULL, copied, at most 255
 * bytes kept) goes into the trace's tables; tools show figures by name.
 * @return the new heap's id, or 0 when not recording. */
static inline hatrace_heap hatrace_heap_create(const char *name)
{
    return hatrace_rt_heap_create ? hatrace_rt_heap_create(name) : 0;
}

/* Record destroyHeap: every object still live in heap ends here, as if freed.
 * The id must not be used afterwards. heap 0: nothing. */
static inline void hatrace_heap_destroy(hatrace_heap heap)
{
    if (hatrace_rt_heap_destroy) hatrace_rt_heap_destroy(heap);
}

/* Record an allocation of size bytes at ptr in heap (ptr NULL: a failed
 * allocation, recorded as such). Call it after the object is carved out. */
static inline void hatrace_heap_alloc(hatrace_heap heap, const void *ptr, size_t size)
{
    if (hatrace_rt_heap_alloc) hatrace_rt_heap_alloc(heap, ptr, size);
}

/* Record the free of ptr, an object of heap. Call it before the memory can be
 * handed out again (for causality across threads). ptr NULL: nothing. */
static inline void hatrace_heap_free(hatrace_heap heap, const void *ptr)
{
    if (hatrace_rt_heap_free) hatrace_rt_heap_free(heap, ptr);
}

/* Record a resize of an object of heap: in place when new_ptr == old_ptr, a
 * move otherwise. old_ptr NULL: a new object; size 0 with new_ptr NULL: a free. */
static inline void hatrace_heap_realloc(hatrace_heap heap, const void *old_ptr, const void *new_ptr,
                                        size_t size)
{
    if (hatrace_rt_heap_realloc) hatrace_rt_heap_realloc(heap, old_ptr, new_ptr, size);
}

/* Between begin and end, this thread's malloc-family calls are not recorded
 * (a pool's chunks, an arena's metadata). Pairs nest; per thread. */
static inline void hatrace_ignore_begin(void)
{
    if (hatrace_rt_ignore) hatrace_rt_ignore(1);
}
static inline void hatrace_ignore_end(void)
{
    if (hatrace_rt_ignore) hatrace_rt_ignore(-1);
}

/* Write a comment into the trace at this point of the calling thread's events
 * (a phase of the program: "phase 2", "request 17 done"). text is copied (at
 * most HATRACE_COMMENT_MAX bytes kept); every format keeps it in its place,
 * and `hatrace stats --phases` splits the figures at the comments. */
#define HATRACE_COMMENT_MAX 4096
static inline void hatrace_comment(const char *text)
{
    if (hatrace_rt_comment && text) hatrace_rt_comment(text);
}

#else  /* HATRACE_DISABLE, or a compiler without weak references */

static inline int hatrace_active(void) { return 0; }
static inline hatrace_heap hatrace_heap_create(const char *name) { (void)name; return 0; }
static inline void hatrace_heap_destroy(hatrace_heap heap) { (void)heap; }
static inline void hatrace_heap_alloc(hatrace_heap heap, const void *ptr, size_t size)
{
    (void)heap; (void)ptr; (void)size;
}
static inline void hatrace_heap_free(hatrace_heap heap, const void *ptr) { (void)heap; (void)ptr; }
static inline void hatrace_heap_realloc(hatrace_heap heap, const void *old_ptr, const void *new_ptr,
                                        size_t size)
{
    (void)heap; (void)old_ptr; (void)new_ptr; (void)size;
}
static inline void hatrace_ignore_begin(void) {}
static inline void hatrace_ignore_end(void) {}
#define HATRACE_COMMENT_MAX 4096
static inline void hatrace_comment(const char *text) { (void)text; }

#endif

#ifdef __cplusplus
}
#endif
#endif /* HATRACE_H */
