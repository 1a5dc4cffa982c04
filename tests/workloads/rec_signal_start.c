/* rec_signal_start.c — a SIGALRM handler that allocates (malloc(77), free)
 * every 100 us from the program's first instruction on, while 4 threads start
 * and allocate 40-byte blocks (20000 each, then they wait): handlers that run while a thread's recording
 * is being set up (its first call) must be recorded as any other. No heap
 * call comes before the timer. Prints "handler 77 N" and "threads 40 M". */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static atomic_long handler_calls, thread_calls;
static atomic_int stop;

static void on_alarm(int sig)
{
    (void)sig;
    void *volatile p = malloc(77);
    free(p);
    atomic_fetch_add(&handler_calls, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    long n = 0;
    for (; n < 20000 && !atomic_load(&stop); n++) {  /* bounded: the trace stays small */
        void *volatile p = malloc(40);
        free(p);
    }
    struct timespec d = { 0, 1000000 };
    while (!atomic_load(&stop)) nanosleep(&d, NULL);
    atomic_fetch_add(&thread_calls, n);
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 100 }, { 0, 100 } };
    setitimer(ITIMER_REAL, &it, NULL);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, worker, NULL);
    struct timespec d = { 0, 300000000 };
    while (nanosleep(&d, &d)) {}
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("handler 77 %ld\nthreads 40 %ld\n", atomic_load(&handler_calls), atomic_load(&thread_calls));
    return atomic_load(&handler_calls) > 10 ? 0 : 4;
}
