/* mt_peaks.c — threads that each hold a large set of objects at the same
 * moment, reached after unequal amounts of other work: thread i first
 * allocates and frees i * CHURN small objects, then makes its set (objects
 * of 1-8 KiB, every byte written), hands half of it to the next thread, and
 * waits at a barrier, so natively every set is live at once; then each frees
 * its own half and the half it received (freed by another thread than the
 * one that made it). A replay whose runner threads each run at their own
 * pace never has all the sets live together. Arguments: threads (default
 * 4, 2..16), KiB per thread's set (default 8192). Prints the peak it held:
 * "sets N bytes". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXTH = 16, CHURN = 100000 };

static int nth = 4;
static size_t set_bytes = (size_t)8192 << 10;
static pthread_barrier_t made_all, freed_all;
static void **sets[MAXTH];
static size_t nobj[MAXTH];
static size_t held[MAXTH];

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    unsigned s = 0x9e3779b9u * (unsigned)(me + 1);
    for (long i = 0; i < (long)me * CHURN; i++) {
        s = s * 1103515245u + 12345u;
        void *p = malloc(16 + (s >> 8) % 240);
        if (p) memset(p, 1, 16);
        free(p);
    }
    size_t cap = set_bytes / 1024 + 1, n = 0, bytes = 0;
    void **v = malloc(cap * sizeof *v);
    if (!v) return NULL;
    while (bytes < set_bytes && n < cap) {
        s = s * 1103515245u + 12345u;
        size_t sz = 1024 + (s >> 8) % 7169;
        if (!(v[n] = malloc(sz))) break;
        memset(v[n++], 0x5a, sz);
        bytes += sz;
    }
    sets[me] = v;
    nobj[me] = n;
    held[me] = bytes;
    pthread_barrier_wait(&made_all);  /* every set is live now */
    const int from = (me + nth - 1) % nth;
    for (size_t i = 0; i < nobj[me]; i += 2) free(v[i]);         /* its own half */
    for (size_t i = 1; i < nobj[from]; i += 2) free(sets[from][i]); /* the half it was given */
    pthread_barrier_wait(&freed_all);  /* no one frees from a set freed meanwhile */
    free(v);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) nth = atoi(argv[1]);
    if (argc > 2) set_bytes = (size_t)atol(argv[2]) << 10;
    if (nth < 2 || nth > MAXTH || set_bytes < 1024) {
        fprintf(stderr, "usage: mt_peaks [threads 2..16] [KiB per thread]\n");
        return 2;
    }
    pthread_barrier_init(&made_all, NULL, (unsigned)nth);
    pthread_barrier_init(&freed_all, NULL, (unsigned)nth);
    pthread_t th[MAXTH];
    for (long i = 0; i < nth; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i)) return 1;
    size_t total = 0;
    for (int i = 0; i < nth; i++) {
        pthread_join(th[i], NULL);
        total += held[i];
    }
    printf("sets %d bytes %zu\n", nth, total);
    return 0;
}
