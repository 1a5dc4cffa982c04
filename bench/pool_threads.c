/* pool_threads.c — a multi-threaded program to record, for the reading tools'
 * speed on such traces: 4 threads replace random entries of a shared table of
 * 2^20 objects (malloc the new one, swap it in, free the old one, which another
 * thread may have allocated), so about a million objects stay live and one
 * thread frees what another made within the same microsecond.
 *
 *   hatrace record -o pool.hatf -- build/bench/pool_threads [PER_THREAD]   (default 1500000)
 *   bench/tools_speed.sh pool.hatf build [OTHER_BUILD]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define SLOTS (1u << 20)
#define THREADS 4

static void *slot[SLOTS];  /* only through __atomic builtins */
static long per_thread = 1500000;

static void *work(void *arg)
{
    uint64_t x = (uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;  /* xorshift, per thread */
    for (long i = 0; i < per_thread; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        void *n = malloc(16 + (x >> 40) % 256);
        free(__atomic_exchange_n(&slot[x % SLOTS], n, __ATOMIC_ACQ_REL));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) per_thread = atol(argv[1]);
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, work, (void *)(i + 1));
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    return 0;
}
