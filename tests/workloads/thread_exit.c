/* thread_exit.c — threads that exit, each after a malloc, a free and a
 * free(NULL) of its own; one asks strsignal for an unknown signal, whose text
 * glibc keeps in a per-thread buffer it frees at the thread's exit. glibc's
 * thread exit calls free after the program's last key destructor (of NULL
 * when the thread never asked for such a text): those calls are the
 * program's too, and the trace holds them. Prints what the program itself
 * does; tests/workloads/lib/count_frees.c counts every call. With "plain",
 * no thread asks strsignal: the calls beyond the program's own are glibc's
 * exit alone (record_lib.inc's exit_frees). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/count_out.h"

enum { THREADS = 40, BATCH = 8 };

static void *volatile sink, *volatile nothing;  /* volatile: free(NULL) is not compiled away */

static void *worker(void *arg)
{
    sink = malloc(24);
    free(sink);
    free(nothing);
    if (arg) sink = strsignal(1000);
    return NULL;
}

int main(int argc, char **argv)
{
    int plain = argc > 1 && !strcmp(argv[1], "plain");  /* no strsignal: glibc's exit calls alone */
    for (int done = 0; done < THREADS; done += BATCH) {
        pthread_t th[BATCH];
        for (int i = 0; i < BATCH; i++)
            if (pthread_create(&th[i], NULL, worker, done + i == 0 && !plain ? (void *)1 : NULL)) return 2;
        for (int i = 0; i < BATCH; i++) pthread_join(th[i], NULL);
    }
    out("threads", THREADS);
    out("own_free_null", THREADS);
    out("own_free", THREADS);
    return 0;
}
