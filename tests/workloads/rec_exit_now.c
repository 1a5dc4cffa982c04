/* rec_exit_now.c — programs that end with _exit or _Exit: their traces must
 * be closed (index written) and hold every event.
 *   rec_exit_now plain N     N malloc/free pairs, then _exit(5)
 *   rec_exit_now upper N     the same, then _Exit(6)
 *   rec_exit_now quick N     the same, then quick_exit(8), whose handler (the
 *                            program's) makes one pair more
 *   rec_exit_now last N      main starts 4 threads and ends by pthread_exit,
 *                            after which they make N pairs each and end
 *                            together: the process ends with 0 when the last
 *                            does (glibc's exit(0)), and the atexit handler
 *                            main registered allocates 4321 bytes once
 *   rec_exit_now signal MS   a thread and main allocate flat out; after MS ms a
 *                            SIGALRM handler calls _exit(7), likely while a
 *                            thread is inside malloc: it must not hang
 * No stdio after the start: its buffer would be an allocation of its own. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void pairs(long n)
{
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc((size_t)(16 + i % 200));
        free(p);
    }
}

static void *spin(void *arg)
{
    (void)arg;
    for (;;) pairs(1000);
    return NULL;
}

static void one_more(void) { pairs(1); }

static int go[2];  /* "last": the threads start their pairs at its end of file */

static void last_one(void)
{
    void *volatile p = malloc(4321);
    free(p);
}

static void *after_main(void *arg)
{
    char c;
    while (read(go[0], &c, 1) > 0) {}
    pairs((long)arg);
    return NULL;
}

static void on_alarm(int sig)
{
    (void)sig;
    _exit(7);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rec_exit_now plain|upper|quick|last|signal N\n");
        return 2;
    }
    long n = atol(argv[2]);
    if (!strcmp(argv[1], "last")) {
        if (pipe(go)) return 2;
        pthread_t t;
        for (int i = 0; i < 4; i++) pthread_create(&t, NULL, after_main, (void *)n);
        atexit(last_one);
        close(go[1]);
        pthread_exit(NULL);
    }
    if (!strcmp(argv[1], "signal")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL);
        pthread_t t;
        pthread_create(&t, NULL, spin, NULL);
        struct itimerval it = { { 0, 0 }, { n / 1000, (n % 1000) * 1000 } };
        setitimer(ITIMER_REAL, &it, NULL);
        spin(NULL);
    }
    pairs(n);
    if (!strcmp(argv[1], "upper")) _Exit(6);
    if (!strcmp(argv[1], "quick")) {
        at_quick_exit(one_more);
        quick_exit(8);
    }
    _exit(5);
}
