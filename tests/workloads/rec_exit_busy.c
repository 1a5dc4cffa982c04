/* rec_exit_busy.c — main returns while two threads still allocate as fast as
 * they can: the exit must neither hang (the final drain takes what is there and
 * stops) nor leave a trace that fails validation. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static void *spin(void *arg)
{
    (void)arg;
    for (;;) {
        void *volatile p = malloc(32);
        free(p);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, spin, NULL);
    struct timespec ts = { 0, 200 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    return 0;  /* exit() with both threads running */
}
