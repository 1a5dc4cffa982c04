/* follow_wait.c — a program whose trace is followed while it runs
 * (tests/integration/stats_follow.sh): two threads allocate, free and keep
 * objects for a while, then the program waits until the file argv[1] exists
 * (the test makes it once it has seen a refresh), allocates some more and
 * ends. Usage: follow_wait GO_FILE [ROUNDS [THREADS]]: THREADS 1, the main
 * thread alone (tests/integration/record_figures.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rounds = 20000, threads = 2;

/* allocate and free, keeping every 16th object (freed at the end of the phase) */
static void phase(unsigned seed)
{
    void *keep[64];
    int nkeep = 0;
    for (int i = 0; i < rounds; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = 16 + (seed >> 16) % 2000;
        char *p = malloc(n);
        if (!p) exit(1);
        memset(p, 1, 8);
        if (i % 16 == 0 && nkeep < 64) keep[nkeep++] = p;
        else free(p);
        if (i % 512 == 0) p = realloc(NULL, 100), free(realloc(p, 300));
    }
    while (nkeep > 0) free(keep[--nkeep]);
}

static void *worker(void *arg)
{
    phase((unsigned)(size_t)arg);
    return NULL;
}

static void both(unsigned seed)
{
    pthread_t t;
    if (threads > 1 && pthread_create(&t, NULL, worker, (void *)(size_t)(seed + 1))) exit(1);
    phase(seed);
    if (threads > 1) pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: follow_wait GO_FILE [ROUNDS [THREADS]]\n");
        return 2;
    }
    if (argc > 2) rounds = atoi(argv[2]);
    if (argc > 3) threads = atoi(argv[3]) > 1 ? 2 : 1;
    char *leak = malloc(4096);  /* live until the end */
    both(1);
    /* wait for the test's signal (at most 120 s: a test that died must not leave it behind) */
    struct timespec ts = { 0, 20 * 1000000L };
    for (int i = 0; i < 6000 && access(argv[1], F_OK) != 0; i++) {
        if (i % 10 == 0) {  /* the trace moves on while waiting */
            void *volatile p = malloc(32);
            free(p);
        }
        nanosleep(&ts, NULL);
    }
    both(7);
    printf("%p\n", (void *)leak);
    return 0;
}
