/* heaps.c — the allocator's own heaps, for replaying createHeap/destroyHeap.
 *
 * Looked up with dlsym in the child that runs the plan, so hatrace links
 * against no allocator:
 *   mimalloc  mi_heap_new, mi_heap_malloc / mi_heap_zalloc, mi_heap_realloc,
 *             mi_heap_destroy (frees every block still in the heap); a block
 *             is freed alone with free() (mi_free).
 *   jemalloc  an arena per heap: mallctl("arenas.create"), then
 *             mallocx/rallocx(MALLOCX_ARENA(i) | MALLOCX_TCACHE_NONE), single
 *             frees with dallocx(MALLOCX_TCACHE_NONE), and
 *             mallctl("arena.<i>.destroy"). The thread cache is bypassed so
 *             no cached block points into an arena after its destroy (a
 *             precondition of arena.<i>.destroy).
 * Anything else has no heaps: objects are malloc'd and freed one by one at
 * destroyHeap ("free-each"). A mimalloc heap belongs to the thread that made
 * it, so the compiler marks native only heaps confined to one runner thread.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* jemalloc's mallocx flags (jemalloc/jemalloc.h), stable since jemalloc 4 */
#define JE_ZERO 0x40
#define JE_TCACHE_NONE (1 << 8)
#define JE_ARENA(a) ((int)(((unsigned)(a) + 1) << 20))

/* A symbol of the object that provides malloc, else NULL. */
static void *same_object(const char *name, const char *malloc_obj)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    Dl_info di;
    if (!f || !dladdr(f, &di) || !di.dli_fname || strcmp(di.dli_fname, malloc_obj) != 0) return NULL;
    return f;
}

void rp_heaps_find(rp_heap_api *a, int disable)
{
    memset(a, 0, sizeof *a);
    if (disable) return;
    Dl_info di;
    void *m = dlsym(RTLD_DEFAULT, "malloc");
    if (!m || !dladdr(m, &di) || !di.dli_fname) return;
    const char *obj = di.dli_fname;
    a->mi_new = (__typeof__(a->mi_new))same_object("mi_heap_new", obj);
    a->mi_malloc = (__typeof__(a->mi_malloc))same_object("mi_heap_malloc", obj);
    a->mi_zalloc = (__typeof__(a->mi_zalloc))same_object("mi_heap_zalloc", obj);
    a->mi_realloc = (__typeof__(a->mi_realloc))same_object("mi_heap_realloc", obj);
    a->mi_destroy = (__typeof__(a->mi_destroy))same_object("mi_heap_destroy", obj);
    if (a->mi_new && a->mi_malloc && a->mi_zalloc && a->mi_realloc && a->mi_destroy) {
        a->kind = RP_HEAPS_MIMALLOC;
        return;
    }
    a->je_mallocx = (__typeof__(a->je_mallocx))same_object("mallocx", obj);
    a->je_rallocx = (__typeof__(a->je_rallocx))same_object("rallocx", obj);
    a->je_dallocx = (__typeof__(a->je_dallocx))same_object("dallocx", obj);
    a->je_mallctl = (__typeof__(a->je_mallctl))same_object("mallctl", obj);
    if (a->je_mallocx && a->je_rallocx && a->je_dallocx && a->je_mallctl) {
        a->kind = RP_HEAPS_JEMALLOC;
        return;
    }
    memset(a, 0, sizeof *a);
}

const char *rp_heaps_name(rp_heap_kind k)
{
    return k == RP_HEAPS_MIMALLOC ? "mimalloc" : k == RP_HEAPS_JEMALLOC ? "jemalloc" : "none";
}

/* A jemalloc handle is the arena index + 1, so that it is never NULL. */
static inline unsigned arena_of(void *heap) { return (unsigned)((uintptr_t)heap - 1); }

void *rp_heap_new(const rp_heap_api *a)
{
    switch (a->kind) {
    case RP_HEAPS_MIMALLOC:
        return a->mi_new();
    case RP_HEAPS_JEMALLOC: {
        unsigned idx;
        size_t len = sizeof idx;
        if (a->je_mallctl("arenas.create", &idx, &len, NULL, 0) != 0) return NULL;
        return (void *)((uintptr_t)idx + 1);
    }
    default:
        return NULL;
    }
}

void *rp_heap_alloc(const rp_heap_api *a, void *heap, size_t size, int zero)
{
    if (a->kind == RP_HEAPS_MIMALLOC) return zero ? a->mi_zalloc(heap, size) : a->mi_malloc(heap, size);
    /* mallocx of 0 bytes is undefined in jemalloc; malloc(0) returns a minimum object */
    return a->je_mallocx(size ? size : 1, JE_ARENA(arena_of(heap)) | JE_TCACHE_NONE | (zero ? JE_ZERO : 0));
}

void *rp_heap_realloc(const rp_heap_api *a, void *heap, void *p, size_t size)
{
    if (a->kind == RP_HEAPS_MIMALLOC) return a->mi_realloc(heap, p, size);
    return a->je_rallocx(p, size ? size : 1, JE_ARENA(arena_of(heap)) | JE_TCACHE_NONE);
}

void rp_heap_free(const rp_heap_api *a, void *heap, void *p)
{
    (void)heap;
    if (!p) return;
    if (a->kind == RP_HEAPS_JEMALLOC) a->je_dallocx(p, JE_TCACHE_NONE);
    else free(p);
}

void rp_heap_destroy(const rp_heap_api *a, void *heap)
{
    if (a->kind == RP_HEAPS_MIMALLOC) {
        a->mi_destroy(heap);
    } else if (a->kind == RP_HEAPS_JEMALLOC) {
        char name[64];
        snprintf(name, sizeof name, "arena.%u.destroy", arena_of(heap));
        a->je_mallctl(name, NULL, NULL, NULL, 0);
    }
}
