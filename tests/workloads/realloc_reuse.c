/* realloc_reuse.c — threads that reallocate blocks back and forth while the
 * others allocate blocks of the same sizes, all in one malloc arena, so the
 * old block a realloc moves away from is often taken by another thread's
 * malloc before the realloc has returned (and the recorder stamped it).
 * Blocks are 1100-8000 bytes, above glibc's per-thread caches (1032 bytes):
 * every block freed goes back to the shared arena, where the next malloc of
 * any thread finds it. Each thread keeps KEEP blocks: it reallocates one of
 * them to another size (which moves it when the space after it is taken),
 * allocates one and frees one. Arguments: threads (default 4, 2..16),
 * rounds per thread (default 100000), and "array" to reallocate with
 * reallocarray(p, n, 1) instead. Prints the calls it made:
 * "malloc M realloc R moved V free F". */
#define _GNU_SOURCE  /* reallocarray */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXTH = 16, KEEP = 16 };

static long rounds = 100000;
static int use_array;  /* reallocarray instead of realloc */
static long total_m, total_r, total_v, total_f;
static pthread_mutex_t total_mu = PTHREAD_MUTEX_INITIALIZER;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static size_t some_size(unsigned *s) { return 1100 + next_rand(s) % 6900; }

static void *work(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    void *keep[KEEP] = { 0 };
    long m = 0, r = 0, v = 0, f = 0;
    for (long i = 0; i < rounds; i++) {
        unsigned k = next_rand(&seed) % KEEP;
        size_t n = some_size(&seed);
        void *old = keep[k];
        void *q = use_array ? reallocarray(old, n, 1) : realloc(old, n);
        if (!q) abort();
        memset(q, (int)i, 16);
        r++;
        v += old && q != old;
        keep[k] = q;
        /* an allocation of a size like the others', freed soon: it takes
         * blocks the other threads' reallocs just gave back */
        unsigned j = next_rand(&seed) % KEEP;
        free(keep[j]);
        f += keep[j] != NULL;
        keep[j] = malloc(some_size(&seed));
        if (!keep[j]) abort();
        m++;
    }
    for (int k = 0; k < KEEP; k++) {
        f += keep[k] != NULL;
        free(keep[k]);
    }
    pthread_mutex_lock(&total_mu);
    total_m += m, total_r += r, total_v += v, total_f += f;
    pthread_mutex_unlock(&total_mu);
    return NULL;
}

int main(int argc, char **argv)
{
    int nth = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2) rounds = atol(argv[2]);
    use_array = argc > 3 && !strcmp(argv[3], "array");
    if (nth < 2 || nth > MAXTH || rounds < 1) {
        fprintf(stderr, "usage: realloc_reuse [threads 2..16] [rounds]\n");
        return 2;
    }
    mallopt(M_ARENA_MAX, 1);  /* one arena: every thread's blocks in one place */
    pthread_t t[MAXTH];
    for (int i = 0; i < nth; i++)
        if (pthread_create(&t[i], NULL, work, (void *)(uintptr_t)(i + 1)) != 0) return 1;
    for (int i = 0; i < nth; i++) pthread_join(t[i], NULL);
    printf("malloc %ld realloc %ld moved %ld free %ld\n", total_m, total_r, total_v, total_f);
    return 0;
}
