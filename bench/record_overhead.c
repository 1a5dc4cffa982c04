/* record_overhead.c — what the recorder costs per event, measured side by side
 * in one run on a malloc/free loop, 1 and 2 threads, each configuration in a
 * fresh child process, medians of --runs runs (interleaved):
 *   native      no preload
 *   hot-tsc     the hook alone: a ring that holds the whole timed loop, its pages
 *               touched and drained by a warm-up, so the producer never waits; TSC
 *   hot-mono    the same with clock_gettime(CLOCK_MONOTONIC)
 *   sustained   default settings: the producer waits whenever the flusher (encoding
 *               and compressing on another thread) falls behind
 *
 *   build/bench/record_overhead [--lib build/libhatrace.so] [--runs 5] [--pairs 1000000]
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

static long pairs = 1000000;
static long warm_pairs;
static pthread_barrier_t warmed, go;

static void loop(long n)
{
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc(16 + (i & 63));
        free(p);
    }
}

static void *worker(void *arg)
{
    uint64_t *ns = arg;
    /* warm-up: the thread's ring is mapped and every page of it touched */
    loop(warm_pairs);
    pthread_barrier_wait(&warmed);
    pthread_barrier_wait(&go);
    uint64_t t0 = now_ns();
    loop(pairs);
    *ns = now_ns() - t0;
    return NULL;
}

/* Child: warm up on each thread, let the flusher drain, then time the loop.
 * Prints the slowest thread's ns per pair. */
static int child(int threads)
{
    pthread_t th[2];
    uint64_t ns[2] = { 0, 0 };
    pthread_barrier_init(&warmed, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) pthread_create(&th[i], NULL, worker, &ns[i]);
    pthread_barrier_wait(&warmed);
    struct timespec ts = { 0, 300 * 1000 * 1000 };  /* three flusher intervals */
    nanosleep(&ts, NULL);
    pthread_barrier_wait(&go);
    for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
    uint64_t worst = ns[0] > ns[1] ? ns[0] : ns[1];
    printf("%.3f\n", (double)worst / (double)pairs);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { NATIVE, HOT_TSC, HOT_MONO, SUSTAINED, MODES };
static const char *const mode_name[MODES] = { "native", "hot-tsc", "hot-mono", "sustained" };

/* Run ourselves as a child in the given mode; @return ns per pair. */
static double run_child(const char *self, const char *lib, int mode, int threads, const char *dir)
{
    int fd[2];
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        if (mode != NATIVE) {
            setenv("LD_PRELOAD", lib, 1);
            setenv("HATRACE_CLOCK", mode == HOT_MONO ? "monotonic" : "tsc", 1);
            char out[4096];
            snprintf(out, sizeof out, "%s/bench.%%p.hatf", dir);
            setenv("HATRACE_OUTPUT", out, 1);
        }
        /* hot: a ring that holds the timed loop's 2 * pairs events twice over,
         * all of its pages touched by the warm-up and drained before timing */
        long cap = 64, warm = pairs;
        while (cap < 4 * pairs) cap <<= 1;
        if (mode == HOT_TSC || mode == HOT_MONO) {
            char ring[32];
            snprintf(ring, sizeof ring, "%ld", cap);
            setenv("HATRACE_RING_SIZE", ring, 1);
            warm = cap / 2 + 64;
        }
        char t[8], n[32], w[32];
        snprintf(t, sizeof t, "%d", threads);
        snprintf(n, sizeof n, "%ld", pairs);
        snprintf(w, sizeof w, "%ld", warm);
        execl(self, self, "--child", t, n, w, (char *)NULL);
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
        if (!strcmp(argv[i], "--child") && i + 3 < argc) {
            pairs = atol(argv[i + 2]);
            warm_pairs = atol(argv[i + 3]);
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
    if (sink == 42) printf(" ");  /* keeps the loops */
    printf("clock_gettime(CLOCK_MONOTONIC) %.2f ns/call, rdtsc %.2f ns/call\n", (double)(b - a) / CN,
           (double)(c - b) / CN);
    printf("malloc/free pairs per thread: %ld, runs: %d (medians)\n\n", pairs, runs);
    printf("%-8s", "threads");
    for (int m = 0; m < MODES; m++) printf(" %12s", mode_name[m]);
    printf("   overhead per event (ns) and time ratio vs native\n");
    for (int threads = 1; threads <= 2; threads++) {
        double v[MODES][99], med[MODES];
        for (int r = 0; r < runs; r++)  /* interleaved, so drift hits every mode alike */
            for (int m = 0; m < MODES; m++) v[m][r] = run_child(self, libabs, m, threads, dir);
        printf("%-8d", threads);
        for (int m = 0; m < MODES; m++) printf(" %9.2f ns", med[m] = median(v[m], runs));
        printf("  ");
        for (int m = 1; m < MODES; m++)
            printf(" %s %.2f (%.2fx)", mode_name[m], (med[m] - med[NATIVE]) / 2, med[m] / med[NATIVE]);
        printf("\n");
    }
    printf("(times are per malloc/free pair and thread; an event is one call)\n");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) return 1;
    return 0;
}
