/* mt_churn.c — threads that allocate, free and hand objects to each other
 * as fast as they can, so an address freed by one thread is allocated again
 * by another within microseconds (glibc's per-thread caches hand a freed
 * block to the next malloc of the thread that freed it). Each thread keeps a
 * few objects of its own, frees one of them or one it received at random,
 * and passes some of its new objects in batches to another thread through a
 * mailbox; now and then it reallocates what it received. Arguments: threads
 * (default 6, 2..16), operations per thread (default 200000), and
 * "norealloc" to free what it received without reallocating it (the
 * recorder stamps a realloc after the call, so another thread can reuse its
 * old block before that stamp: a race of the recorder's, not of the order
 * of equal times). Prints the calls it made: "malloc M realloc R free F". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXTH = 16, KEEP = 32, BATCH = 8, BOX = 256 };

typedef struct mailbox {
    pthread_mutex_t mu;
    void *p[BOX];
    int n;
} mailbox;

static mailbox box[MAXTH];
static int nth = 6;
static long per_thread = 200000;
static int reallocs = 1;
static long total_m, total_r, total_f;
static pthread_mutex_t total_mu = PTHREAD_MUTEX_INITIALIZER;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Give the batch to thread `to`; when its box is full, keep them. @return how many went. */
static int give(int to, void **b, int n)
{
    mailbox *x = &box[to];
    pthread_mutex_lock(&x->mu);
    int k = 0;
    while (k < n && x->n < BOX) x->p[x->n++] = b[k++];
    pthread_mutex_unlock(&x->mu);
    return k;
}

static int take(int me, void **out, int max)
{
    mailbox *x = &box[me];
    pthread_mutex_lock(&x->mu);
    int k = 0;
    while (k < max && x->n > 0) out[k++] = x->p[--x->n];
    pthread_mutex_unlock(&x->mu);
    return k;
}

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    unsigned s = 0x9e3779b9u * (unsigned)(me + 1);
    void *keep[KEEP] = { 0 }, *batch[BATCH], *got[BATCH];
    int nb = 0;
    long m = 0, r = 0, f = 0;
    for (long i = 0; i < per_thread; i++) {
        void *p = malloc(16 + next_rand(&s) % 31 * 16);
        m++;
        if (next_rand(&s) % 3 == 0) {
            batch[nb++] = p;
            if (nb == BATCH) {
                int to = (me + 1 + (int)(next_rand(&s) % (unsigned)(nth - 1))) % nth;
                int k = give(to, batch, nb);
                for (int j = k; j < nb; j++) { free(batch[j]); f++; }
                nb = 0;
            }
        } else {
            int slot = (int)(next_rand(&s) % KEEP);
            if (keep[slot]) { free(keep[slot]); f++; }
            keep[slot] = p;
        }
        int n = take(me, got, BATCH);
        for (int j = 0; j < n; j++) {
            void *q = got[j];
            if (next_rand(&s) % 8 == 0 && reallocs) {
                void *q2 = realloc(q, 600 + next_rand(&s) % 400);
                r++;
                if (q2) q = q2;
            }
            free(q);
            f++;
        }
    }
    for (int j = 0; j < nb; j++) { free(batch[j]); f++; }
    for (int j = 0; j < KEEP; j++)
        if (keep[j]) { free(keep[j]); f++; }
    pthread_mutex_lock(&total_mu);
    total_m += m;
    total_r += r;
    total_f += f;
    pthread_mutex_unlock(&total_mu);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) nth = atoi(argv[1]);
    if (argc > 2) per_thread = atol(argv[2]);
    if (argc > 3) reallocs = strcmp(argv[3], "norealloc") != 0;
    if (nth < 2 || nth > MAXTH || per_thread < 1 || (argc > 3 && reallocs)) {
        fprintf(stderr, "usage: mt_churn [threads 2..16] [operations per thread] [norealloc]\n");
        return 2;
    }
    for (int i = 0; i < nth; i++) pthread_mutex_init(&box[i].mu, NULL);
    pthread_t th[MAXTH];
    for (long i = 0; i < nth; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i)) return 1;
    for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
    /* what the threads could not hand out is still in the boxes */
    for (int i = 0; i < nth; i++)
        while (box[i].n > 0) { free(box[i].p[--box[i].n]); total_f++; }
    printf("malloc %ld realloc %ld free %ld\n", total_m, total_r, total_f);
    return 0;
}
