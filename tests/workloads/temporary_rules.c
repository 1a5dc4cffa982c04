/* temporary_rules.c — where hatrace's temporary allocations and heaptrack's
 * part (tests/integration/temporary_rules.sh), one function per case, each
 * allocating from a function of its own so that both tools name the site:
 *   short_make    1000 malloc(64), each freed at once: temporary for both
 *   swap_make     1000 malloc(48) from one line, each freeing the block the
 *                 previous one made: heaptrack 999 (the previous event was an
 *                 allocation of the same size and stack), hatrace 1 (the last)
 *   grow_make     500 malloc(32), each grown by grow_resize (realloc to 4096)
 *                 and freed: hatrace 500 (the realloc's block, charged to
 *                 grow_resize); heaptrack 500 there and 500 more at grow_make
 *                 (a realloc is a free and an allocation to it)
 *   pair_make     two threads, 200 rounds, in lock step: A allocates, B
 *                 allocates, A frees, B frees: hatrace 400 (no other
 *                 allocation by the same thread between), heaptrack 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define KEEP() __asm__ volatile("" ::: "memory")  /* no tail calls: frames stay */
#define ROUNDS 200

static __attribute__((noinline)) void *short_make(void) { void *p = malloc(64); KEEP(); return p; }
static __attribute__((noinline)) void *swap_make(void) { void *p = malloc(48); KEEP(); return p; }
static __attribute__((noinline)) void *grow_make(void) { void *p = malloc(32); KEEP(); return p; }
static __attribute__((noinline)) void *grow_resize(void *p) { void *q = realloc(p, 4096); KEEP(); return q; }
static __attribute__((noinline)) void *pair_make(void) { void *p = malloc(16); KEEP(); return p; }

static pthread_barrier_t step;

static void *pair_thread(void *arg)
{
    int second = arg != NULL;
    for (int i = 0; i < ROUNDS; i++) {
        void *p = NULL;
        if (!second) p = pair_make();
        pthread_barrier_wait(&step);          /* A has allocated */
        if (second) p = pair_make();
        pthread_barrier_wait(&step);          /* B has allocated */
        if (!second) free(p);
        pthread_barrier_wait(&step);          /* A has freed */
        if (second) free(p);
        pthread_barrier_wait(&step);          /* B has freed */
    }
    return NULL;
}

int main(void)
{
    for (int i = 0; i < 1000; i++) {
        free(short_make());
        KEEP();
    }
    void *old = NULL;
    for (int i = 0; i < 1000; i++) {
        void *p = swap_make();
        free(old);  /* free(NULL) the first time: no block */
        old = p;
    }
    free(old);
    for (int i = 0; i < 500; i++) {
        void *p = grow_resize(grow_make());
        if (!p) return 1;
        free(p);
    }
    pthread_t a, b;
    if (pthread_barrier_init(&step, NULL, 2) || pthread_create(&a, NULL, pair_thread, NULL) ||
        pthread_create(&b, NULL, pair_thread, &a))
        return 1;
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_barrier_destroy(&step);
    puts("done");
    return 0;
}
