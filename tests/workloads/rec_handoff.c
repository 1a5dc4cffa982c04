/* rec_handoff.c — threads hand objects to each other through lock-free
 * queues as fast as they can: each allocates, passes the pointer on, and
 * frees what it receives, so an allocation and its free by another thread
 * often fall within one microsecond. Arguments: objects per thread (default
 * 200000), and "realloc" to reallocate every third object received before
 * freeing it. Prints the calls it made. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NTH = 3, QCAP = 64 };

typedef struct queue {
    _Atomic(void *) slot[QCAP];
    _Atomic unsigned long head, tail;
} queue;

static queue q[NTH];   /* q[i]: to thread i */
static long per_thread = 200000;
static int do_realloc;
static _Atomic long nmalloc, nrealloc, nfree;

static void push(queue *x, void *p)
{
    unsigned long t = atomic_load_explicit(&x->tail, memory_order_relaxed);
    while (t - atomic_load_explicit(&x->head, memory_order_acquire) >= QCAP) {}
    atomic_store_explicit(&x->slot[t % QCAP], p, memory_order_relaxed);
    atomic_store_explicit(&x->tail, t + 1, memory_order_release);
}

static void *pop(queue *x)
{
    unsigned long h = atomic_load_explicit(&x->head, memory_order_relaxed);
    if (h == atomic_load_explicit(&x->tail, memory_order_acquire)) return NULL;
    void *p = atomic_load_explicit(&x->slot[h % QCAP], memory_order_relaxed);
    atomic_store_explicit(&x->head, h + 1, memory_order_release);
    return p;
}

static void *worker(void *arg)
{
    long me = (long)arg, sent = 0, got = 0, m = 0, r = 0, f = 0;
    queue *in = &q[me], *out = &q[(me + 1) % NTH];
    while (sent < per_thread || got < per_thread) {
        if (sent < per_thread) {
            unsigned long h = atomic_load_explicit(&out->head, memory_order_relaxed);
            if (atomic_load_explicit(&out->tail, memory_order_relaxed) - h < QCAP) {
                push(out, malloc(16 + (size_t)(sent % 7) * 16));
                m++;
                sent++;
            }
        }
        void *p = pop(in);
        if (p) {
            got++;
            if (do_realloc && got % 3 == 0) { p = realloc(p, 200); r++; }
            free(p);
            f++;
        }
    }
    nmalloc += m;
    nrealloc += r;
    nfree += f;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) per_thread = atol(argv[1]);
    do_realloc = argc > 2 && strcmp(argv[2], "realloc") == 0;
    pthread_t th[NTH];
    for (long i = 0; i < NTH; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i)) return 2;
    for (int i = 0; i < NTH; i++) pthread_join(th[i], NULL);
    printf("malloc %ld realloc %ld free %ld\n", (long)nmalloc, (long)nrealloc, (long)nfree);
    return 0;
}
