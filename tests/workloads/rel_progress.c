/* rel_progress.c — a workload that says what it has done, for the SIGKILL
 * test (tests/integration/reliability_kill.sh).
 *
 *   rel_progress [THREADS [LINE_US]]   run until killed
 *   rel_progress now                   print CLOCK_MONOTONIC in ns and exit
 *
 * THREADS workers (default 2) loop on malloc(4321)/free, counting each
 * malloc after it returned. The main thread writes one line every LINE_US
 * (default 5000) to stdout: "P <monotonic ns> <mallocs>". A line's count is
 * a lower bound of the mallocs recorded before its time, so a trace of the
 * killed program must hold at least the count of every line older than the
 * recorder's flush interval. Lines are written with write(2): the progress
 * log itself allocates nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SIZE = 4321, MAX_THREADS = 64 };

static _Atomic uint64_t mallocs;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
    (void)arg;
    for (unsigned i = 0;; i++) {
        void *p = malloc(SIZE);
        atomic_fetch_add_explicit(&mallocs, 1, memory_order_release);
        ((volatile char *)p)[0] = 1;
        free(p);
        /* a short pause now and then keeps the trace small enough to check
         * quickly; the rate is still tens of thousands per second */
        if (i % 16 == 15) usleep(200);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "now")) {
        printf("%llu\n", (unsigned long long)now_ns());
        return 0;
    }
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    long line_us = argc > 2 ? atol(argv[2]) : 5000;
    if (threads < 1 || threads > MAX_THREADS || line_us < 100) return 2;
    pthread_t th;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&th, NULL, worker, NULL)) return 2;
    for (;;) {
        /* the count is read before the time: every counted malloc happened earlier */
        uint64_t n = atomic_load_explicit(&mallocs, memory_order_acquire);
        char line[64];
        int len = snprintf(line, sizeof line, "P %llu %llu\n", (unsigned long long)now_ns(),
                           (unsigned long long)n);
        if (write(1, line, (size_t)len) != len) return 3;
        usleep((useconds_t)line_us);
    }
}
