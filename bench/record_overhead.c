/* record_overhead.c — what the recorder costs per event, measured side by side
 * in one run: a malloc/free loop natively, under libhatrace.so with the TSC
 * clock, and under libhatrace.so with clock_gettime, with 1 and 2 threads.
 * Each configuration runs in a fresh child process; medians of --runs runs.
 *
 *   build/bench/record_overhead [--lib build/libhatrace.so] [--runs 5] [--pairs 4000000]
 *
 * Overhead per event = (traced - native) / 2, since a pair is two events.
 * The clock figures alone come first (the floor of any timestamping hook). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long pairs = 4000000;

static void *loop(void *arg)
{
    (void)arg;
    for (long i = 0; i < pairs; i++) {
        void *volatile p = malloc(16 + (i & 63));
        free(p);
    }
    return NULL;
}

/* Child: run the loop on n threads, print the ns per pair (per thread). */
static int child(int threads)
{
    loop(NULL);  /* warm up: rings mapped, pages touched, flusher running */
    pthread_t th[2];
    uint64_t t0 = now_ns();
    for (int i = 0; i < threads; i++) pthread_create(&th[i], NULL, loop, NULL);
    for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
    uint64_t t1 = now_ns();
    printf("%.3f\n", (double)(t1 - t0) / (double)pairs);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Run ourselves as a child in the given mode; @return ns per pair. */
static double run_child(const char *self, const char *lib, const char *clock, int threads, const char *dir)
{
    int fd[2];
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        if (lib) {
            setenv("LD_PRELOAD", lib, 1);
            setenv("HATRACE_CLOCK", clock, 1);
            char out[4096];
            snprintf(out, sizeof out, "%s/bench.%%p.hatf", dir);
            setenv("HATRACE_OUTPUT", out, 1);
        }
        char t[8], n[32];
        snprintf(t, sizeof t, "%d", threads);
        snprintf(n, sizeof n, "%ld", pairs);
        execl(self, self, "--child", t, n, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[64] = { 0 };
    ssize_t k = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    return k > 0 ? atof(buf) : -1;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    const char *lib = "build/libhatrace.so";
    int runs = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--child") && i + 2 < argc) {
            pairs = atol(argv[i + 2]);
            return child(atoi(argv[i + 1]));
        }
        if (!strcmp(argv[i], "--lib") && i + 1 < argc) lib = argv[++i];
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pairs") && i + 1 < argc) pairs = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--lib PATH] [--runs N] [--pairs N]\n", argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > 99 || pairs < 1000) return 2;
    char self[4096], libabs[4096], dir[] = "/tmp/hatrace-bench.XXXXXX";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || !realpath(lib, libabs) || !mkdtemp(dir)) {
        fprintf(stderr, "record_overhead: cannot find myself, %s, or make a scratch folder\n", lib);
        return 1;
    }
    self[n] = 0;

    /* the clocks themselves */
    enum { CN = 10000000 };
    volatile uint64_t sink = 0;
    uint64_t a = now_ns();
    for (int i = 0; i < CN; i++) sink += now_ns();
    uint64_t b = now_ns();
#if defined(__x86_64__) || defined(__i386__)
    for (int i = 0; i < CN; i++) sink += __rdtsc();
#endif
    uint64_t c = now_ns();
    printf("clock_gettime(CLOCK_MONOTONIC) %.2f ns/call, rdtsc %.2f ns/call\n", (double)(b - a) / CN,
           (double)(c - b) / CN);
    printf("malloc/free pairs per thread: %ld, runs: %d (medians)\n\n", pairs, runs);
    printf("%-8s %12s %12s %12s %16s %16s\n", "threads", "native", "hatrace-tsc", "hatrace-mono",
           "tsc ns/event", "mono ns/event");
    for (int threads = 1; threads <= 2; threads++) {
        double nat[99], tsc[99], mono[99];
        for (int r = 0; r < runs; r++) {  /* interleaved, so drift hits all three alike */
            nat[r] = run_child(self, NULL, NULL, threads, dir);
            tsc[r] = run_child(self, libabs, "tsc", threads, dir);
            mono[r] = run_child(self, libabs, "monotonic", threads, dir);
        }
        double mn = median(nat, runs), mt = median(tsc, runs), mm = median(mono, runs);
        printf("%-8d %9.2f ns %9.2f ns %9.2f ns %13.2f ns %13.2f ns   (per pair; ratio %.2fx / %.2fx)\n",
               threads, mn, mt, mm, (mt - mn) / 2, (mm - mn) / 2, mt / mn, mm / mn);
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) return 1;
    return 0;
}
