/* rel_load.c — load for tests/integration/reliability_load.sh.
 *
 *   rel_load flat THREADS MS      THREADS threads call malloc(2345)/free flat
 *                                 out for MS milliseconds
 *   rel_load storm TOTAL ALIVE    TOTAL short-lived threads, ALIVE at a time,
 *                                 each with 10 malloc(777)/free pairs
 *
 * Prints its own counts ("mallocs N", "frees N", "threads N") and the peak
 * resident size ("hwm_kb N"), and for the storm the largest resident size
 * sampled between batches ("rss_max_kb N"). Counting and printing allocate
 * nothing: the trace's counts of these sizes must equal the program's. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static _Atomic int stop;
static _Atomic uint64_t mallocs, frees;

static void *flat(void *arg)
{
    uint64_t m = 0, f = 0;
    void *keep[8] = { 0 };
    for (unsigned i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
        void *p = malloc(2345);
        m++;
        ((volatile char *)p)[0] = 1;
        free(keep[i % 8]);  /* a few live blocks; free(NULL) counts as a free too */
        f++;
        keep[i % 8] = p;
    }
    for (int i = 0; i < 8; i++) free(keep[i]), f++;
    atomic_fetch_add(&mallocs, m);
    atomic_fetch_add(&frees, f);
    return arg;
}

static void *brief(void *arg)
{
    void *p[10];
    for (int i = 0; i < 10; i++) p[i] = malloc(777);
    for (int i = 0; i < 10; i++) free(p[i]);
    atomic_fetch_add(&mallocs, 10);
    atomic_fetch_add(&frees, 10);
    return arg;
}

static long status_kb(const char *key)
{
    char buf[4096];
    FILE *f = fopen("/proc/self/status", "r");
    long v = -1;
    while (f && fgets(buf, sizeof buf, f))
        if (!strncmp(buf, key, strlen(key))) v = strtol(buf + strlen(key), NULL, 10);
    if (f) fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    long a = atol(argv[2]), b = atol(argv[3]);
    long threads = 0, rss_max = 0;
    if (!strcmp(argv[1], "flat")) {
        if (a < 1 || a > 1024) return 2;
        pthread_t *th = calloc((size_t)a, sizeof *th);
        for (long i = 0; i < a; i++)
            if (pthread_create(&th[i], NULL, flat, NULL)) return 2;
        struct timespec ts = { b / 1000, (b % 1000) * 1000000 };
        nanosleep(&ts, NULL);
        atomic_store(&stop, 1);
        for (long i = 0; i < a; i++) pthread_join(th[i], NULL);
        free(th);
        threads = a;
    } else if (!strcmp(argv[1], "storm")) {
        if (b < 1 || b > 1024) return 2;
        pthread_t *th = calloc((size_t)b, sizeof *th);
        for (long done = 0; done < a; done += b) {
            long n = a - done < b ? a - done : b;
            for (long i = 0; i < n; i++)
                if (pthread_create(&th[i], NULL, brief, NULL)) return 2;
            for (long i = 0; i < n; i++) pthread_join(th[i], NULL);
            threads += n;
            if ((done / b) % 10 == 0) {
                long r = status_kb("VmRSS:");
                if (r > rss_max) rss_max = r;
            }
        }
        free(th);
    } else {
        return 2;
    }
    char out[256];
    int len = snprintf(out, sizeof out, "threads %ld\nmallocs %llu\nfrees %llu\nhwm_kb %ld\nrss_max_kb %ld\n",
                       threads, (unsigned long long)mallocs, (unsigned long long)frees,
                       status_kb("VmHWM:"), rss_max);
    return write(1, out, (size_t)len) == len ? 0 : 3;
}
