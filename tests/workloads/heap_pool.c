/* heap_pool.c — an example pool allocator that reports its heaps through the
 * annotation API (include/hatrace.h), and a workload that uses it.
 *
 * A pool carves objects out of 16 KiB chunks it takes from malloc, keeps a
 * free list per 16-byte size class so freed objects are reused, grows the
 * newest object in place when it can, and gives everything back at once when
 * destroyed. The chunk calls are hidden from the recorder
 * (hatrace_ignore_begin/_end): the objects are what the trace shows.
 *
 * Workload: 2 worker threads make 3 "request" pools each, one after the
 * other; main keeps a "config" pool to the end. The program prints what it
 * reported, per pool name, for tests/integration/heaps_pool.sh to compare with
 * `hatrace stats`. It needs nothing at link time: run bare, it prints active 0.
 * Output is written without stdio so it allocates nothing.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/count_out.h"

#include <hatrace.h>

/* ---- the pool allocator ------------------------------------------------ */

enum { CHUNK = 16 * 1024, CLASS = 16, NCLASS = 64, MAX_OBJ = NCLASS * CLASS };

typedef struct chunk {
    struct chunk *next;
    size_t used;
    _Alignas(16) char data[CHUNK];
} chunk;

typedef struct pool {
    hatrace_heap heap;
    chunk *chunks;               /* newest first; objects are carved from the first */
    void *free_list[NCLASS];     /* per size class, linked through the objects */
    char *newest;                /* the last object carved, which may grow in place */
    size_t newest_size;
} pool;

static size_t class_of(size_t size) { return (size + CLASS - 1) / CLASS; }  /* 1..NCLASS */

static pool *pool_create(const char *name)
{
    hatrace_ignore_begin();  /* the pool's own bookkeeping is not an object */
    pool *p = calloc(1, sizeof *p);
    hatrace_ignore_end();
    if (!p) abort();
    p->heap = hatrace_heap_create(name);
    return p;
}

/* Carve or reuse an object of size bytes (1..MAX_OBJ); no report. */
static void *carve(pool *p, size_t size)
{
    size_t c = class_of(size);
    void *obj = p->free_list[c - 1];
    if (obj) {
        p->free_list[c - 1] = *(void **)obj;
        return obj;
    }
    if (!p->chunks || p->chunks->used + c * CLASS > CHUNK) {
        hatrace_ignore_begin();
        chunk *k = malloc(sizeof *k);
        hatrace_ignore_end();
        if (!k) abort();
        k->next = p->chunks;
        k->used = 0;
        p->chunks = k;
    }
    obj = p->chunks->data + p->chunks->used;
    p->chunks->used += c * CLASS;
    p->newest = obj;
    p->newest_size = c * CLASS;
    return obj;
}

static void release(pool *p, void *obj, size_t size)
{
    size_t c = class_of(size);
    *(void **)obj = p->free_list[c - 1];
    p->free_list[c - 1] = obj;
    if (obj == p->newest) p->newest = NULL;
}

static void *pool_alloc(pool *p, size_t size)
{
    void *obj = carve(p, size);
    hatrace_heap_alloc(p->heap, obj, size);
    return obj;
}

static void pool_free(pool *p, void *obj, size_t size)
{
    hatrace_heap_free(p->heap, obj);  /* before the object can be handed out again */
    release(p, obj, size);
}

/* Resize; @return the object, moved or not (*moved says which). */
static void *pool_realloc(pool *p, void *obj, size_t old, size_t size, int *moved)
{
    chunk *k = p->chunks;
    size_t grow = class_of(size) * CLASS - class_of(old) * CLASS;
    if (obj == p->newest && k->used + grow <= CHUNK) {  /* the newest object grows in place */
        k->used += grow;
        p->newest_size += grow;
        hatrace_heap_realloc(p->heap, obj, obj, size);
        *moved = 0;
        return obj;
    }
    void *n = carve(p, size);
    memcpy(n, obj, old < size ? old : size);
    hatrace_heap_realloc(p->heap, obj, n, size);  /* one record: the move */
    release(p, obj, old);
    *moved = 1;
    return n;
}

static void pool_destroy(pool *p)
{
    hatrace_heap_destroy(p->heap);  /* ends every object still live, before the memory goes */
    hatrace_ignore_begin();
    for (chunk *k = p->chunks, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    free(p);
    hatrace_ignore_end();
}

/* ---- the workload ------------------------------------------------------ */

enum { WORKERS = 2, POOLS = 3, OBJS = 100, REALLOCS = 10, CONFIG_OBJS = 10 };

typedef struct counts { uint64_t heaps, allocs, frees, reallocs, moved, bytes, destroy_frees; } counts;
static counts request[WORKERS], config;

static void *worker(void *arg)
{
    counts *c = &request[(intptr_t)arg];
    for (int n = 0; n < POOLS; n++) {
        pool *p = pool_create("request");
        c->heaps++;
        char *objs[OBJS];
        size_t sizes[OBJS];
        for (int i = 0; i < OBJS; i++) {
            sizes[i] = 8 + (size_t)(i * 13 % 200);
            objs[i] = pool_alloc(p, sizes[i]);
            memset(objs[i], i, sizes[i]);
            c->allocs++, c->bytes += sizes[i];
            if (i % 3 == 0) {  /* 34 of 100: reused by later objects of their class */
                pool_free(p, objs[i], sizes[i]);
                objs[i] = NULL;
                c->frees++;
            }
        }
        for (int r = 0; r < REALLOCS; r++) {  /* objects 97, 98, 96, 95, 94, ... */
            int i = r == 0 ? OBJS - 1 : OBJS - 1 - r;
            if (!objs[i]) continue;
            int moved;
            size_t size = sizes[i] + 40;
            objs[i] = pool_realloc(p, objs[i], sizes[i], size, &moved);
            sizes[i] = size;
            c->reallocs++, c->moved += (uint64_t)moved;
        }
        /* a fresh object of a class nobody freed is the newest: it grows in place */
        char *g = pool_alloc(p, 300);
        c->allocs++, c->bytes += 300;
        int moved;
        pool_realloc(p, g, 300, 340, &moved);
        c->reallocs++, c->moved += (uint64_t)moved;
        uint64_t live = 1;
        for (int i = 0; i < OBJS; i++) live += objs[i] != NULL;
        c->destroy_frees += live;
        pool_destroy(p);
    }
    return NULL;
}

static void out_counts(const char *name, const counts *c)
{
    static const char *const keys[] = { "heaps", "allocs", "frees", "reallocs", "moved", "bytes", "destroy_frees" };
    const uint64_t v[] = { c->heaps, c->allocs, c->frees, c->reallocs, c->moved, c->bytes, c->destroy_frees };
    char key[64];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        snprintf(key, sizeof key, "%s.%s", name, keys[i]);
        out(key, v[i]);
    }
}

int main(void)
{
    pool *cfg = pool_create("config");
    config.heaps = 1;
    for (int i = 0; i < CONFIG_OBJS; i++) {
        size_t size = 24 + (size_t)i;
        pool_alloc(cfg, size);
        config.allocs++, config.bytes += size;
    }
    pthread_t th[WORKERS];
    for (intptr_t t = 0; t < WORKERS; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)t)) return 2;
    for (int t = 0; t < WORKERS; t++) pthread_join(th[t], NULL);
    config.destroy_frees = CONFIG_OBJS;
    pool_destroy(cfg);

    counts sum = { 0 };
    for (int t = 0; t < WORKERS; t++) {
        sum.heaps += request[t].heaps, sum.allocs += request[t].allocs, sum.frees += request[t].frees;
        sum.reallocs += request[t].reallocs, sum.moved += request[t].moved, sum.bytes += request[t].bytes;
        sum.destroy_frees += request[t].destroy_frees;
    }
    out("active", (uint64_t)hatrace_active());
    out_counts("request", &sum);
    out_counts("config", &config);
    return 0;
}
