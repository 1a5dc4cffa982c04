/* core_latency.c — the machine's state, as a round trip of one cache line
 * between two CPUs: two threads, pinned to CPU A and CPU B, hand a counter
 * back and forth ROUNDS times.
 *
 *   build/bench/core_latency [ROUNDS [CPU_A CPU_B]]    (default 100000, 0 1)
 *
 * Prints "rtt_ns=N", the median of five batches' mean round trip.
 *
 * Why: on the 2-core VM this project is measured on, the host moves the two
 * virtual CPUs between nearby and distant cores for seconds or minutes at a
 * time. The round trip goes from about 80 ns to about 380 ns, and with it every
 * figure of a program whose threads share memory (server_sim natively: about
 * 40 against 120 ns of CPU per event), while one thread alone hardly changes.
 * bench/record_saturated.sh runs this between its runs and keeps the CPU bar
 * to the runs the machine was in its usual state for. It reads nothing of the
 * recorder: it measures the machine, not hatrace. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCHES 5

static _Atomic long turn;  /* odd: the ponger's turn; even: the pinger's */
static long rounds;
static int cpu_b, pin_failed;

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *pong(void *arg)
{
    (void)arg;
    pin_failed = pin(cpu_b) != 0;  /* plays on unpinned, so the pinger never hangs */
    for (long i = 0; i < BATCHES * rounds; i++) {
        while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 1) {
        }
        atomic_store_explicit(&turn, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 100000;
    int cpu_a = argc > 3 ? atoi(argv[2]) : 0;
    cpu_b = argc > 3 ? atoi(argv[3]) : 1;
    if (rounds < 1 || cpu_a < 0 || cpu_b < 0 || cpu_a == cpu_b || argc == 3 || argc > 4) {
        fprintf(stderr, "usage: core_latency [ROUNDS [CPU_A CPU_B]]\n");
        return 2;
    }
    if (pin(cpu_a)) {
        fprintf(stderr, "core_latency: cannot run on CPU %d\n", cpu_a);
        return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, pong, NULL)) {
        fprintf(stderr, "core_latency: no thread\n");
        return 1;
    }
    double batch[BATCHES];
    long i = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (long end = i + rounds; i < end; i++) {
            atomic_store_explicit(&turn, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 2) {
            }
        }
        batch[b] = (now_ns() - t0) / (double)rounds;
    }
    pthread_join(t, NULL);
    if (pin_failed) {
        fprintf(stderr, "core_latency: cannot run on CPU %d\n", cpu_b);
        return 1;
    }
    qsort(batch, BATCHES, sizeof batch[0], cmp_double);
    printf("rtt_ns=%.0f\n", batch[BATCHES / 2]);
    return 0;
}
