/* mem_threads.c — the workload of record_memory.sh: T threads, each making N
 * malloc/free pairs (sizes 16-215 bytes, 256 objects live per thread), then
 * the process's peak resident size (VmHWM, kB) on stdout.
 *   build/bench/mem_threads T N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long pairs;

static void *run(void *arg)
{
    unsigned long long r = (unsigned long long)(size_t)arg * 2654435761u + 1;
    void *live[256] = { 0 };
    for (long i = 0; i < pairs; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        unsigned k = (unsigned)(r & 255);
        free(live[k]);
        live[k] = malloc(16 + (size_t)((r >> 20) % 200));
    }
    for (int k = 0; k < 256; k++) free(live[k]);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    pairs = argc > 2 ? atol(argv[2]) : 200000;
    if (n < 1 || n > 1024 || pairs < 1) {
        fprintf(stderr, "usage: mem_threads THREADS PAIRS\n");
        return 2;
    }
    pthread_t *t = calloc((size_t)n, sizeof *t);
    if (!t) return 1;
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, run, (void *)(size_t)(i + 1))) return 1;
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    free(t);
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) printf("%ld\n", strtol(line + 6, NULL, 10));
    if (f) fclose(f);
    return 0;
}
