/* rec_counts.c — every call of the malloc family, from 8 threads, with frees of
 * blocks another thread allocated. Prints its own counts (worker threads only;
 * main allocates nothing of its own) for tests/integration/record_counts.sh to
 * compare with the trace. Output is written without stdio so it allocates nothing. */
#define _GNU_SOURCE  /* pthread_setname_np */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wuse-after-free"  /* old pointers are only compared */
#endif
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/count_out.h"

enum { THREADS = 8, ITERS = 4000 };
enum { F_MALLOC, F_CALLOC, F_REALLOC, F_REALLOCARRAY, F_FREE, F_POSIX_MEMALIGN, F_ALIGNED_ALLOC,
       F_MEMALIGN, F_VALLOC, F_PVALLOC, F_N };
static const char *const fname[F_N] = { "malloc", "calloc", "realloc", "reallocarray", "free",
    "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc" };
enum { O_ALLOC, O_FREE, O_INPLACE, O_MOVE, O_NEW, O_RFREE, O_N };
static const char *const oname[O_N] = { "alloc", "free", "realloc-inplace", "realloc-move",
    "realloc-new", "realloc-free" };

typedef struct counts { uint64_t f[F_N], o[O_N], failed; } counts;
static counts per[THREADS];
static void *handoff[THREADS][ITERS];
static pthread_barrier_t barrier;
#ifdef REC_JEMALLOC
/* built with -ljemalloc by record_jemalloc.sh: jemalloc's own per-thread byte
 * count proves the blocks came from jemalloc */
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
static uint64_t je_allocated;
#endif

static void realloc_outcome(counts *c, void *old, size_t n, void *res)
{
    if (!old) c->o[O_NEW]++;
    else if (!res && n) c->o[O_INPLACE]++, c->failed++;  /* failed: block unchanged */
    else if (!res) c->o[O_RFREE]++;
    else c->o[res == old ? O_INPLACE : O_MOVE]++;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    counts *c = &per[t];
    char name[16];
    snprintf(name, sizeof name, "worker-%d", t);
    pthread_setname_np(pthread_self(), name);  /* the trace names threads */
    volatile size_t huge = SIZE_MAX / 2;  /* defeats compile-time folding of failures */
    void *volatile null = NULL;          /* or realloc(NULL, n) would become malloc(n) */
    for (int i = 0; i < ITERS; i++) {
        void *p = malloc(16 + i % 200);
        c->f[F_MALLOC]++, c->o[O_ALLOC]++;
        memset(p, 1, 16);
        handoff[t][i] = p;  /* freed by the next thread */

        char *q = calloc(4, 8 + i % 50);
        c->f[F_CALLOC]++, c->o[O_ALLOC]++;
        char *r = realloc(null, 100);
        c->f[F_REALLOC]++, realloc_outcome(c, NULL, 100, r);
        char *r2 = realloc(r, 40);
        c->f[F_REALLOC]++, realloc_outcome(c, r, 40, r2);
        char *r3 = realloc(r2, 5000 + i);
        c->f[F_REALLOC]++, realloc_outcome(c, r2, 5000 + i, r3);
        char *r4 = realloc(r3, 0);  /* glibc frees and returns NULL */
        c->f[F_REALLOC]++, realloc_outcome(c, r3, 0, r4);
        free(r4);
        c->f[F_FREE]++, c->o[O_FREE]++;
        int *a = reallocarray(null, 10, sizeof(int));
        c->f[F_REALLOCARRAY]++, realloc_outcome(c, NULL, 40, a);
        int *a2 = reallocarray(a, 300, sizeof(int));
        c->f[F_REALLOCARRAY]++, realloc_outcome(c, a, 1200, a2);
        free(a2);
        free(q);
        c->f[F_FREE] += 2, c->o[O_FREE] += 2;
        free(null);  /* a literal free(NULL) is removed by the compiler */
        c->f[F_FREE]++, c->o[O_FREE]++;

        if (i % 16 == 0) {
            void *m[5];
            if (posix_memalign(&m[0], 64, 100)) abort();
            m[1] = aligned_alloc(128, 256);
            m[2] = memalign(32, 48);
            m[3] = valloc(100);
#ifdef REC_JEMALLOC  /* jemalloc has no pvalloc: glibc's would not be jemalloc's to free */
            m[4] = valloc(100);
            c->f[F_VALLOC]++;
#else
            m[4] = pvalloc(100);
            c->f[F_PVALLOC]++;
#endif
            c->f[F_POSIX_MEMALIGN]++, c->f[F_ALIGNED_ALLOC]++, c->f[F_MEMALIGN]++;
            c->f[F_VALLOC]++, c->o[O_ALLOC] += 5;
            if (malloc_usable_size(m[2]) < 48) abort();  /* passes through, not an event */
            for (int k = 0; k < 5; k++) free(m[k]);
            c->f[F_FREE] += 5, c->o[O_FREE] += 5;
        }
        if (i % 64 == 0) {  /* failures are events too (attribute failed=1) */
            void *x = malloc(huge);
            void *y = calloc(huge, 4);
            void *keep = malloc(8);
            void *z = realloc(keep, huge);
            void *w;
            int rc = posix_memalign(&w, 3, 16);  /* not a power of two: EINVAL */
            if (x || y || z || !rc) abort();
            c->f[F_MALLOC] += 2, c->f[F_CALLOC]++, c->f[F_REALLOC]++, c->f[F_POSIX_MEMALIGN]++;
            c->o[O_ALLOC] += 4, c->failed += 3;
            realloc_outcome(c, keep, huge, z);
            free(keep);
            c->f[F_FREE]++, c->o[O_FREE]++;
        }
    }
#ifdef REC_JEMALLOC
    if (t == 0) {
        size_t len = sizeof je_allocated;
        if (mallctl("thread.allocated", &je_allocated, &len, NULL, 0)) je_allocated = 0;
    }
#endif
    pthread_barrier_wait(&barrier);
    int from = (t + 1) % THREADS;
    for (int i = 0; i < ITERS; i++) free(handoff[from][i]);
    c->f[F_FREE] += ITERS, c->o[O_FREE] += ITERS;
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS];
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (int t = 0; t < THREADS; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)) return 2;
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    counts sum;
    memset(&sum, 0, sizeof sum);
    for (int t = 0; t < THREADS; t++) {
        for (int k = 0; k < F_N; k++) sum.f[k] += per[t].f[k];
        for (int k = 0; k < O_N; k++) sum.o[k] += per[t].o[k];
        sum.failed += per[t].failed;
    }
    out("threads", THREADS);
    out("thread.allocs", per[0].o[O_ALLOC]);
    out("thread.frees", per[0].o[O_FREE]);
    out("thread.reallocs", per[0].o[O_INPLACE] + per[0].o[O_MOVE] + per[0].o[O_NEW] + per[0].o[O_RFREE]);
    for (int k = 0; k < F_N; k++) {
        char key[40];
        snprintf(key, sizeof key, "func.%s", fname[k]);
        out(key, sum.f[k]);
    }
    for (int k = 0; k < O_N; k++) {
        char key[40];
        snprintf(key, sizeof key, "op.%s", oname[k]);
        out(key, sum.o[k]);
    }
    out("failed", sum.failed);
#ifdef REC_JEMALLOC
    out("jemalloc_allocated", je_allocated);
#endif
    return 0;
}
