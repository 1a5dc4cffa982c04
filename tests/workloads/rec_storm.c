/* rec_storm.c — 2000 short-lived threads, 50 at a time, each allocating ten
 * 777-byte blocks. Prints its peak resident size: the recorder reuses the rings
 * of exited threads, so memory stays bounded by the threads alive at once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOTAL = 2000, BATCH = 50, PER_THREAD = 10 };

static void *worker(void *arg)
{
    (void)arg;
    void *p[PER_THREAD];
    for (int i = 0; i < PER_THREAD; i++) p[i] = malloc(777);
    for (int i = 0; i < PER_THREAD; i++) free(p[i]);
    return NULL;
}

int main(void)
{
    for (int done = 0; done < TOTAL; done += BATCH) {
        pthread_t th[BATCH];
        for (int i = 0; i < BATCH; i++)
            if (pthread_create(&th[i], NULL, worker, NULL)) return 2;
        for (int i = 0; i < BATCH; i++) pthread_join(th[i], NULL);
    }
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) printf("threads %d\nallocs %d\nhwm_kb %ld\n", TOTAL, TOTAL * PER_THREAD, strtol(line + 6, NULL, 10));
    if (f) fclose(f);
    return 0;
}
