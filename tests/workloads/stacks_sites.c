/* stacks_sites.c — allocations from known call chains with known counts, for
 * the site report (tests/integration/stacks_sites.sh):
 *   static_leaf   100 malloc(24), all freed           (static function, .symtab)
 *   lib_make      250 calloc(10, 8), 10 leaked         (shared library, .dynsym)
 *   grow_buf       37 realloc, the last block leaked
 *   thread_leaf   2 threads x 50 malloc(40), freed     (one stack: same chain on both)
 */
#include <pthread.h>
#include <stdlib.h>

void *lib_make(size_t n);

#define KEEP() __asm__ volatile("" ::: "memory")  /* no tail calls: frames stay */

static __attribute__((noinline)) void *static_leaf(size_t n)
{
    void *p = malloc(n);
    KEEP();
    return p;
}

static __attribute__((noinline)) void chain_a(void)
{
    for (int i = 0; i < 100; i++) {
        free(static_leaf(24));
        KEEP();
    }
}

static __attribute__((noinline)) void chain_b(void)
{
    void *keep[10];
    for (int i = 0; i < 250; i++) {
        void *p = lib_make(10);
        KEEP();
        if (i % 25 == 0) keep[i / 25] = p;
        else free(p);
    }
    (void)keep;
}

static __attribute__((noinline)) void *grow_buf(void)
{
    void *p = NULL;
    for (int i = 1; i <= 37; i++) {
        p = realloc(p, (size_t)i * 64);
        KEEP();
    }
    return p;
}

static __attribute__((noinline)) void *thread_leaf(void)
{
    void *p = malloc(40);
    KEEP();
    return p;
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++) {
        free(thread_leaf());
        KEEP();
    }
    return NULL;
}

int main(void)
{
    chain_a();
    chain_b();
    void *g = grow_buf();
    (void)g;
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    return 0;
}
