/* heap_mimalloc.c — a program that uses mimalloc's first-class heaps (linked
 * with -lmimalloc), unannotated: libhatrace.so must record the heaps itself.
 *
 * 2 threads each make 4 heaps, one after the other; in each: 50 mi_heap_malloc,
 * 10 mi_heap_zalloc, 10 mi_heap_calloc, 10 mi_heap_realloc, 20 mi_free, then
 * mi_heap_destroy (heaps 0, 1, 2) or mi_heap_delete (heap 3, whose live blocks
 * move to the thread's default heap and are freed with mi_free afterwards).
 * Prints its own counts for tests/integration/heaps_mimalloc.sh. Output is
 * written without stdio so it allocates nothing. Without mimalloc's header
 * the program only says so and exits 77.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/count_out.h"

#if __has_include(<mimalloc.h>)
#include <mimalloc.h>

enum { THREADS = 2, HEAPS = 4, MALLOCS = 50, ZALLOCS = 10, CALLOCS = 10, REALLOCS = 10, FREES = 20 };
enum { OBJS = MALLOCS + ZALLOCS + CALLOCS };

typedef struct counts {
    uint64_t heaps, destroyed, deleted, allocs, frees, reallocs, moved_out, live_at_destroy;
} counts;
static counts per[THREADS];

static void *worker(void *arg)
{
    counts *c = &per[(intptr_t)arg];
    for (int n = 0; n < HEAPS; n++) {
        mi_heap_t *h = mi_heap_new();
        if (!h) _exit(2);
        c->heaps++;
        void *objs[OBJS];
        for (int i = 0; i < OBJS; i++) {
            size_t size = 16 + (size_t)(i * 37 % 500);
            if (i < MALLOCS) objs[i] = mi_heap_malloc(h, size);
            else if (i < MALLOCS + ZALLOCS) objs[i] = mi_heap_zalloc(h, size);
            else objs[i] = mi_heap_calloc(h, 4, size / 4);
            if (!objs[i]) _exit(2);
            memset(objs[i], 1, 16);
            c->allocs++;
        }
        for (int i = 0; i < REALLOCS; i++) {
            void *q = mi_heap_realloc(h, objs[i], 2000 + (size_t)i);
            if (!q) _exit(2);
            objs[i] = q;
            c->reallocs++;
        }
        for (int i = OBJS - FREES; i < OBJS; i++) {
            mi_free(objs[i]);
            objs[i] = NULL;
            c->frees++;
        }
        if (n < HEAPS - 1) {
            for (int i = 0; i < OBJS; i++) c->live_at_destroy += objs[i] != NULL;
            mi_heap_destroy(h);
            c->destroyed++;
        } else {
            mi_heap_delete(h);  /* the live blocks now belong to the default heap */
            c->deleted++;
            for (int i = 0; i < OBJS; i++)
                if (objs[i]) {
                    mi_free(objs[i]);
                    c->moved_out++;
                }
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS];
    for (intptr_t t = 0; t < THREADS; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)t)) return 2;
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    counts s = { 0 };
    for (int t = 0; t < THREADS; t++) {
        s.heaps += per[t].heaps, s.destroyed += per[t].destroyed, s.deleted += per[t].deleted;
        s.allocs += per[t].allocs, s.frees += per[t].frees, s.reallocs += per[t].reallocs;
        s.moved_out += per[t].moved_out, s.live_at_destroy += per[t].live_at_destroy;
    }
    out("heaps", s.heaps);
    out("destroyed", s.destroyed);
    out("deleted", s.deleted);
    out("heap_allocs", s.allocs);
    out("heap_reallocs", s.reallocs);
    out("heap_frees", s.frees);
    out("moved_out_frees", s.moved_out);
    out("live_at_destroy", s.live_at_destroy);
    return 0;
}

#else
int main(void)
{
    static const char msg[] = "mimalloc.h not installed\n";
    if (write(1, msg, sizeof msg - 1) < 0) return 77;
    return 77;
}
#endif
