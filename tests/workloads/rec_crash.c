/* rec_crash.c — a program that dies of a signal after a known number of heap
 * calls (tests/integration/record_crash.sh): every call before the fault must
 * be in its trace, and it must die of the signal as without hatrace.
 *
 *   rec_crash HOW THREADS CALLS
 *
 * THREADS workers (the main thread alone when 1) each make CALLS mallocs of
 * 64 + i bytes and CALLS frees, print "T i size allocs frees" (write(2):
 * nothing buffered is lost), and meet at a barrier; then the last worker
 * faults as HOW says while the others go on allocating 16 bytes, uncounted
 * (2000 times, then they wait).
 *   segv bus ill fpe abort trap   the signal, from a fault (abort: abort())
 *   doublefree    a second free of a block: glibc's check aborts
 *   overflow      unbounded recursion: the thread's stack overflows
 *   recover       a SIGSEGV handler of the program's own recovers 3 faults
 *                 with siglongjmp; the worker then makes CALLS more pairs
 *                 of 64 + THREADS bytes ("T THREADS ...") and the program
 *                 exits 0
 *   chain         a SIGSEGV handler of the program's own (installed with
 *                 signal) puts SIG_DFL back and returns: the fault kills
 *   aborthandler  a SIGABRT handler of the program's own returns: abort()
 *                 then kills with its own SIG_DFL
 * Handlers write "handler SIG" lines.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *how;
static int threads;
static long calls;
static pthread_barrier_t met;
static sigjmp_buf back;
static int *volatile bad = (int *)16;  /* an address never mapped, hidden from the compiler */

static void say(const char *fmt, long a, long b, long c, long d)
{
    char line[128];
    int n = snprintf(line, sizeof line, fmt, a, b, c, d);
    if (write(1, line, (size_t)n) != n) _exit(99);
}

static void on_recover(int sig)
{
    say("handler %ld\n", sig, 0, 0, 0);
    siglongjmp(back, 1);
}

static void on_chain(int sig)
{
    say("handler %ld\n", sig, 0, 0, 0);
    signal(sig, SIG_DFL);  /* returning runs the faulting write again: now it kills */
}

static void on_abort(int sig) { say("handler %ld\n", sig, 0, 0, 0); }

static volatile int depth_limit = -1;  /* never reached: the stack overflows first */

static int recurse(int depth)
{
    volatile char pad[256];
    pad[0] = (char)depth;
    if (depth == depth_limit) return 0;
    return recurse(depth + 1) + pad[0];
}

static void fault(void)
{
    static volatile int zero;
    if (!strcmp(how, "segv") || !strcmp(how, "chain")) {
        *bad = 1;
    } else if (!strcmp(how, "bus")) {
        int fd = memfd_create("empty", 0);  /* a mapping past the end of an empty file */
        volatile char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) _exit(97);
        zero = m[0];
    } else if (!strcmp(how, "ill")) {
        __builtin_trap();
    } else if (!strcmp(how, "fpe")) {
        static volatile int one = 1;
        zero = one / zero;
    } else if (!strcmp(how, "abort") || !strcmp(how, "aborthandler")) {
        abort();
    } else if (!strcmp(how, "trap")) {
#if defined(__x86_64__) || defined(__i386__)
        __asm__ volatile("int3");
#else
        raise(SIGTRAP);
#endif
    } else if (!strcmp(how, "doublefree")) {
        void *volatile p = malloc(40);
        free(p);
        free(p);
    } else if (!strcmp(how, "overflow")) {
        zero = recurse(0);
    }
}

static void work(long i)
{
    size_t size = 64 + (size_t)i;
    long a = 0, f = 0;
    for (long k = 0; k < calls; k++) {
        void *volatile p = malloc(size);
        a++;
        free(p);
        f++;
    }
    say("T %ld %ld %ld %ld\n", i, (long)size, a, f);
}

static void *worker(void *arg)
{
    long i = (long)arg;
    work(i);
    pthread_barrier_wait(&met);
    if (i == threads - 1) {
        if (!strcmp(how, "recover")) {
            for (int n = 0; n < 3; n++)
                if (!sigsetjmp(back, 1)) *bad = 1;
            work(threads);  /* recording goes on after the recoveries */
            return NULL;
        }
        fault();
        _exit(98);  /* not reached: the fault kills */
    }
    /* the others keep allocating while the last one faults (for a while:
     * the trace stays small), then wait for the end */
    for (long k = 0; k < 2000; k++) {
        void *volatile p = malloc(16);
        free(p);
        if (!strcmp(how, "recover")) return NULL;
    }
    for (;;) pause();
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: rec_crash HOW THREADS CALLS\n");
        return 2;
    }
    how = argv[1];
    threads = atoi(argv[2]);
    calls = atol(argv[3]);
    if (threads < 1) return 2;
    if (!strcmp(how, "recover")) signal(SIGSEGV, on_recover);
    if (!strcmp(how, "chain")) signal(SIGSEGV, on_chain);
    if (!strcmp(how, "aborthandler")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_abort;
        sigaction(SIGABRT, &sa, NULL);
    }
    pthread_barrier_init(&met, NULL, (unsigned)threads);
    if (threads == 1) {
        worker((void *)0);
        return 0;
    }
    pthread_t th[64];
    if (threads > 64) return 2;
    for (long i = 0; i < threads; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (long i = 0; i < threads; i++) pthread_join(th[i], NULL);
    return 0;
}
