/* rel_fsize.c — a program that runs while its trace hits RLIMIT_FSIZE, for
 * tests/integration/reliability_fullfs.sh.
 *
 *   rel_fsize N   N malloc/free pairs of 4321 bytes on the main thread and
 *                 on one worker, then write "done N" to stdout and exit 0.
 *
 * The limit is set by the test (ulimit -f) before the program starts. The
 * program keeps SIGXFSZ at its default action (terminate): if the recorder's
 * own writes past the limit were delivered as SIGXFSZ, the program would die
 * instead of printing "done". It also checks that SIGXFSZ is neither pending
 * nor blocked at the end: the recorder must leave no trace of it behind. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long n;

static void *loop(void *arg)
{
    for (long i = 0; i < n; i++) {
        void *p = malloc(4321);
        ((volatile char *)p)[0] = (char)i;
        free(p);
    }
    return arg;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 1000000;
    pthread_t th;
    if (pthread_create(&th, NULL, loop, NULL)) return 2;
    loop(NULL);
    pthread_join(th, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigpending(&set);
    if (sigismember(&set, SIGXFSZ)) { fputs("SIGXFSZ pending\n", stderr); return 3; }
    pthread_sigmask(SIG_BLOCK, NULL, &set);
    if (sigismember(&set, SIGXFSZ)) { fputs("SIGXFSZ blocked\n", stderr); return 3; }
    printf("done %ld\n", n);
    return 0;
}
