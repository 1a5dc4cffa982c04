/* rec_signal.c — a signal handler that allocates while the main thread is in
 * malloc/free most of the time (so often inside the recorder's hook). Both
 * sides count their calls; the trace must hold exactly as many. Sizes: main 40,
 * handler 24. Both sizes are warmed first so glibc serves them from its
 * per-thread cache, which a handler may re-enter for a different size. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t handler_calls;

static void on_alarm(int sig)
{
    (void)sig;
    void *volatile p = malloc(24);
    free(p);
    handler_calls++;
}

int main(void)
{
    void *volatile w = malloc(24);
    free(w);
    w = malloc(40);
    free(w);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 200 }, { 0, 200 } };
    setitimer(ITIMER_REAL, &it, NULL);
    long main_calls = 1;  /* the warm-up of size 40 */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 1000; i++) {
            void *volatile p = malloc(40);
            free(p);
        }
        main_calls += 1000;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 400000000L);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("main 40 %ld\nhandler 24 %ld\n", main_calls, (long)handler_calls + 1);
    return handler_calls > 10 ? 0 : 4;
}
