// attach_server — a server-like program for hatrace record -p: worker threads
// that serve "rounds" of heap calls of every kind, driven by commands on stdin,
// each call counted by the program itself.
//
// Commands (one per line on stdin; the answer is one line on stdout):
//   round       every worker serves one round; answers "round N" and then its
//               calls as count_events keys ("func.malloc 1200" ...) and
//               "kept_frees K" (releases of blocks a previous round made)
//   lib PATH    worker 0 dlopens PATH and calls its attach_lib_work(ITER)
//               (ITER mallocs and frees, counted by the library) in the round
//               that follows (with the next "round")
//   bench N     N rounds back to back; answers "bench WALL CPU" (their wall
//               time and the process's CPU time, all its threads', in ns;
//               bench/record_attach.sh), the counts reset unsaid
//   quit        exit with status 7 (its own: hatrace must not change it)
// The main thread waits in read() and the workers on a condition variable
// between rounds: the window of a test is exactly the rounds it asks for.
// Nothing here allocates outside the workers' rounds (no stdio on the way).
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <new>

enum { WORKERS = 4, ITER = 500, KEEP = 16 };
enum { F_MALLOC, F_CALLOC, F_REALLOC, F_REALLOCARRAY, F_FREE, F_POSIX_MEMALIGN, F_ALIGNED_ALLOC, F_MEMALIGN,
       F_VALLOC, F_NEW, F_DELETE, F_NEW_ARRAY, F_DELETE_ARRAY, F_COUNT };
static const char *const fname[F_COUNT] = { "malloc", "calloc", "realloc", "reallocarray", "free",
                                            "posix_memalign", "aligned_alloc", "memalign", "valloc", "new",
                                            "delete", "new[]", "delete[]" };

struct worker {
    pthread_t th;
    int id;
    unsigned long count[F_COUNT];
    unsigned long kept_frees;
    void *kept[KEEP];  // made in one round, released in the next
};

static worker workers[WORKERS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static unsigned round_no, finished;
static void *volatile sink;  // keeps every block in use: no call is optimised away
static int (*lib_work)(int);  // set by "lib", run by worker 0 in the next round
static unsigned long lib_calls;

static void *use(void *p, size_t n)
{
    if (p && n) memset(p, 1, n < 64 ? n : 64);
    sink = p;
    return p;
}

static void serve(worker *w)
{
    unsigned long *c = w->count;
    for (int i = 0; i < ITER; i++) {
        void *a = use(malloc(16 + (size_t)i % 200), 16), *b = use(calloc(4, 8), 32);
        c[F_MALLOC]++, c[F_CALLOC]++;
        a = use(realloc(a, 300), 300), c[F_REALLOC]++;
        void *r = use(reallocarray(NULL, 3, 10), 30);
        c[F_REALLOCARRAY]++;
        void *pm = NULL;
        if (posix_memalign(&pm, 64, 100) == 0) use(pm, 100);
        c[F_POSIX_MEMALIGN]++;
        void *al = use(aligned_alloc(32, 64), 64), *me = use(memalign(16, 50), 50), *va = use(valloc(100), 100);
        c[F_ALIGNED_ALLOC]++, c[F_MEMALIGN]++, c[F_VALLOC]++;
        int *obj = new int(i);
        sink = obj, c[F_NEW]++;
        int *arr = new int[8];
        sink = arr, c[F_NEW_ARRAY]++;
        delete obj, c[F_DELETE]++;
        delete[] arr, c[F_DELETE_ARRAY]++;
        void *all[] = { a, b, r, pm, al, me, va };
        for (void *p : all) free(p), c[F_FREE]++;
    }
    for (int k = 0; k < KEEP; k++) {
        if (w->kept[k]) free(w->kept[k]), c[F_FREE]++, w->kept_frees++;
        w->kept[k] = use(malloc(100 + (size_t)k), 100), c[F_MALLOC]++;
    }
    if (w->id == 0 && lib_work) {
        lib_calls += (unsigned long)lib_work(ITER);
        lib_work = NULL;
    }
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&mu);
        while (round_no == seen) pthread_cond_wait(&go, &mu);
        seen = round_no;
        pthread_mutex_unlock(&mu);
        serve(w);
        pthread_mutex_lock(&mu);
        if (++finished == WORKERS) pthread_cond_signal(&done);
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

static void say(const char *s) { (void)!write(1, s, strlen(s)); }

static void report_round(void)
{
    char line[128];
    snprintf(line, sizeof line, "round %u\n", round_no);
    say(line);
    unsigned long kept = 0;
    for (int f = 0; f < F_COUNT; f++) {
        unsigned long n = 0;
        for (worker &w : workers) n += w.count[f];
        if (f == F_MALLOC || f == F_FREE) n += lib_calls;  // the library's calls, one malloc and free each
        snprintf(line, sizeof line, "func.%s %lu\n", fname[f], n);
        say(line);
    }
    for (worker &w : workers) kept += w.kept_frees;
    snprintf(line, sizeof line, "kept_frees %lu\nend\n", kept);
    say(line);
    for (worker &w : workers) memset(w.count, 0, sizeof w.count), w.kept_frees = 0;
    lib_calls = 0;
}

static void serve_round(void)
{
    pthread_mutex_lock(&mu);
    finished = 0;
    round_no++;
    pthread_cond_broadcast(&go);
    while (finished < WORKERS) pthread_cond_wait(&done, &mu);
    pthread_mutex_unlock(&mu);
}

static void run_bench(int n)
{
    struct timespec a, b, ca, cb;  // wall time, and the CPU time of all the process's threads
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
    for (int i = 0; i < n; i++) serve_round();
    clock_gettime(CLOCK_MONOTONIC, &b);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
    for (worker &w : workers) memset(w.count, 0, sizeof w.count), w.kept_frees = 0;
    char line[96];
    snprintf(line, sizeof line, "bench %lld %lld\n",
             (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec),
             (long long)(cb.tv_sec - ca.tv_sec) * 1000000000LL + (cb.tv_nsec - ca.tv_nsec));
    say(line);
}

int main()
{
    for (int i = 0; i < WORKERS; i++) {
        workers[i].id = i;
        pthread_create(&workers[i].th, NULL, worker_main, &workers[i]);
    }
    say("ready\n");
    char buf[4096];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(0, buf + have, sizeof buf - 1 - have);
        if (n <= 0) return 3;  // the test went away
        have += (size_t)n;
        buf[have] = 0;
        char *nl;
        while ((nl = strchr(buf, '\n'))) {
            *nl = 0;
            if (!strcmp(buf, "round")) {
                serve_round();
                report_round();
            } else if (!strncmp(buf, "bench ", 6)) {
                run_bench(atoi(buf + 6));
            } else if (!strncmp(buf, "lib ", 4)) {
                void *h = dlopen(buf + 4, RTLD_NOW);
                lib_work = h ? (int (*)(int))dlsym(h, "attach_lib_work") : NULL;
                say(lib_work ? "lib loaded\n" : "lib failed\n");
            } else if (!strcmp(buf, "quit")) {
                return 7;
            }
            size_t rest = have - (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, rest + 1);
            have = rest;
        }
    }
}
