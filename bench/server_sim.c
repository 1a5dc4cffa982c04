/* server_sim.c — a larson-style server simulation that keeps every core busy:
 * THREADS threads (default 8, more than the cores) replace random entries of a
 * shared table of objects for SECONDS seconds, so most objects are freed by a
 * thread other than the one that made them. Sizes are mostly small, some
 * large: 75 % 8-128 bytes, 20 % 128-1024, 5 % 1-16 KiB. Each new object gets
 * its first 64 bytes written, as a server fills a request buffer.
 *
 *   build/bench/server_sim [THREADS [SECONDS [SLOTS]]]
 *
 * Prints one line of key=value figures (bench/record_saturated.sh reads it):
 *   ops        replacements done in the timed window (one malloc and one free each)
 *   secs       the window's wall time
 *   cpu_ns     the process's CPU time (all threads) over the window
 *   bg_ns      the CPU time of the threads named hatrace-* over the window
 *              (the recorder's background threads; 0 natively)
 * The window starts when every thread has filled its share of the table and
 * ends when the stop flag is seen, so start-up and exit work are left out. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu_clock.h"

static void **table;
static size_t slots;
static int nthreads;
static atomic_int stop;
static pthread_barrier_t ready;

static inline uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static size_t pick_size(uint64_t r)
{
    unsigned k = (unsigned)(r % 100);
    r >>= 8;
    if (k < 75) return 8 + r % 121;
    if (k < 95) return 128 + r % 897;
    return 1024 + r % 15361;
}

static void *fresh(uint64_t r)
{
    size_t n = pick_size(r);
    char *p = malloc(n);
    if (p) memset(p, (int)(r & 0xff), n < 64 ? n : 64);
    return p;
}

typedef struct worker { pthread_t th; int id; long ops; } worker;

static void *run(void *arg)
{
    worker *w = arg;
    uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
    size_t per = slots / (size_t)nthreads, lo = per * (size_t)w->id;
    for (size_t i = lo; i < lo + per; i++) table[i] = fresh(xorshift(&s));
    pthread_barrier_wait(&ready);
    long ops = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        for (int k = 0; k < 64; k++) {
            uint64_t r = xorshift(&s);
            void *p = fresh(r);
            void *old = __atomic_exchange_n(&table[(r >> 20) % slots], p, __ATOMIC_ACQ_REL);
            free(old);
        }
        ops += 64;
    }
    w->ops = ops;
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 8;
    double secs = argc > 2 ? atof(argv[2]) : 2.0;
    slots = argc > 3 ? (size_t)atol(argv[3]) : 65536;
    if (nthreads < 1 || nthreads > 1024 || secs <= 0 || slots < (size_t)nthreads) {
        fprintf(stderr, "usage: server_sim [THREADS [SECONDS [SLOTS]]]\n");
        return 2;
    }
    table = calloc(slots, sizeof *table);
    worker *ws = calloc((size_t)nthreads, sizeof *ws);
    if (!table || !ws) return 1;
    pthread_barrier_init(&ready, NULL, (unsigned)nthreads + 1);
    for (int i = 0; i < nthreads; i++) {
        ws[i].id = i;
        pthread_create(&ws[i].th, NULL, run, &ws[i]);
    }
    pthread_barrier_wait(&ready);
    cpu_sample a, b;
    cpu_sample_take(&a);
    struct timespec d = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
    nanosleep(&d, NULL);
    atomic_store(&stop, 1);
    long ops = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(ws[i].th, NULL);
        ops += ws[i].ops;
    }
    cpu_sample_take(&b);
    printf("ops=%ld secs=%.4f cpu_ns=%llu bg_ns=%llu\n", ops, (double)(b.wall_ns - a.wall_ns) / 1e9,
           (unsigned long long)(b.cpu_ns - a.cpu_ns), (unsigned long long)(b.bg_ns - a.bg_ns));
    for (size_t i = 0; i < slots; i++) free(table[i]);
    free(table);
    free(ws);
    return 0;
}
