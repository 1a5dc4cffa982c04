/* annotate_cost.c — what a call of the annotation API (include/hatrace.h) costs
 * when the program runs without libhatrace.so: a pool-style loop that carves
 * objects out of a buffer, timed without annotations and with them, in one
 * run, medians of 7 rounds. Under LD_PRELOAD=libhatrace.so the same loop
 * measures a recorded annotation (one raw event per call) instead.
 *
 *   build/bench/annotate_cost [OBJECTS]
 *   LD_PRELOAD=build/libhatrace.so HATRACE_OUTPUT=/tmp/a.hatf build/bench/annotate_cost
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hatrace.h"

enum { ROUNDS = 7, POOL_OBJS = 1000 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static char buf[POOL_OBJS * 64];
static volatile uintptr_t sink;

/* One pool per POOL_OBJS objects: create, carve and report each, destroy.
 * Two copies of the loop, so the plain one carries no test of a flag. */
#define POOL_LOOP(name, ANNOTATE)                                                  \
    static __attribute__((noinline)) double name(uint64_t n)                      \
    {                                                                             \
        double t0 = now_ns();                                                     \
        uintptr_t acc = 0;                                                        \
        for (uint64_t done = 0; done < n; done += POOL_OBJS) {                    \
            hatrace_heap h = 0;                                                   \
            if (ANNOTATE) h = hatrace_heap_create("bench");                       \
            for (size_t i = 0; i < POOL_OBJS; i++) {                              \
                char *p = buf + i * 64;                                           \
                if (ANNOTATE) hatrace_heap_alloc(h, p, 48);                       \
                acc += (uintptr_t)p ^ done;                                       \
                __asm__ volatile("" : "+r"(acc));  /* keep the loop a loop */     \
            }                                                                     \
            if (ANNOTATE) hatrace_heap_destroy(h);                                \
        }                                                                         \
        sink = acc;                                                               \
        return (now_ns() - t0) / (double)n;                                       \
    }
POOL_LOOP(run_plain, 0)
POOL_LOOP(run_annotated, 1)

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000000;
    n = (n + POOL_OBJS - 1) / POOL_OBJS * POOL_OBJS;
    double plain[ROUNDS], ann[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {  /* interleaved, so drift hits both */
        plain[r] = run_plain(n);
        ann[r] = run_annotated(n);
    }
    qsort(plain, ROUNDS, sizeof *plain, cmp);
    qsort(ann, ROUNDS, sizeof *ann, cmp);
    printf("annotation API, %s: %llu objects (a pool per %d), median of %d rounds\n",
           hatrace_active() ? "recording under libhatrace.so" : "not recording (no preload)",
           (unsigned long long)n, POOL_OBJS, ROUNDS);
    printf("  loop alone          %7.3f ns/object\n", plain[ROUNDS / 2]);
    printf("  loop + annotations  %7.3f ns/object\n", ann[ROUNDS / 2]);
    printf("  annotation cost     %7.3f ns/object (create and destroy amortised)\n",
           ann[ROUNDS / 2] - plain[ROUNDS / 2]);
    return 0;
}
