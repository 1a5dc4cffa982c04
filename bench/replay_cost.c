/* replay_cost.c — the runner's own cost per operation.
 *
 *   replay_cost [OPS [LIVE]]      (defaults 10000000 4096)
 *
 * Compiles a synthetic single-thread trace (a live set of LIVE objects, each
 * op frees a random one or makes a new one, sizes 8..512), then times, five
 * times interleaved: a loop that only streams through the plan, a floor loop
 * (the same plus the branch on the op's kind and the slot table, the least
 * any runner must do), the runner with the null allocator (no touching,
 * latency sampled 1 call in 64 as by default), the runner timing no call;
 * then with this process's malloc: the plan's malloc and free calls made
 * straight from a loop, and the runner making them. Prints medians in ns per
 * op and the differences; the goal is a runner cost under 5 ns per op over
 * the streaming loop, and the real-allocator pair checks that the null
 * allocator's figure holds for a real one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../replay/replay.h"

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    uint64_t LIVE = argc > 2 ? strtoull(argv[2], NULL, 10) : 4096;
    if (!LIVE) LIVE = 1;
    uint64_t *live = calloc(LIVE, sizeof *live);
    rp_compiler *c = rp_compiler_new(1);
    hatf_err err = { 0 };
    uint64_t addr = 0x10000;
    hatf_event e = { .thread = 1 };
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = next() % LIVE;
        if (live[k]) {
            e.op = HATF_OP_FREE;
            e.addr = live[k];
            live[k] = 0;
        } else {
            e.op = HATF_OP_ALLOC;
            e.size = 8 + next() % 505;
            e.addr = live[k] = addr;
            addr += 1024;
        }
        if (rp_compiler_add(c, &e, i, 0, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
    }
    rp_plan p;
    if (rp_compiler_finish(c, &p, &err)) return 1;
    rp_compiler_free(c);
    const rp_thread_plan *tp = &p.threads[0];

    /* Two baselines. The streaming loop only reads the plan. The floor loop is
       the least an honest runner does: read the plan, branch on the kind as a
       real allocator's malloc or free must, load the freed slot, store the new
       one. On a random mix that branch mispredicts about every other op. */
    enum { REPS = 5 };
    double loop[REPS], floor_[REPS], run[2][REPS], direct[REPS], real[REPS];
    volatile uint64_t sink = 0;
    struct { char *p; uint64_t size; } *slots = calloc(p.nslots ? p.nslots : 1, sizeof *slots);
    char *arena = malloc(1 << 20);
    static rp_result res;
    unsigned every[2] = { 64, 1000000 };
    for (int rep = 0; rep < REPS; rep++) {
        double t0 = now_ns();
        uint64_t s = 0;
        for (uint64_t i = 0; i < tp->nops; i++) s += tp->ops[i].w ^ tp->ops[i].slot;
        sink = s;
        loop[rep] = (now_ns() - t0) / (double)tp->nops;

        t0 = now_ns();
        int64_t lb = 0;
        uint64_t bump = 0;
        for (uint64_t i = 0; i < tp->nops; i++) {
            const rp_op *op = &tp->ops[i];
            if (rp_op_kind(op) == RP_FREE) {
                __asm__ volatile("" ::"r"(slots[op->slot].p));
                lb -= (int64_t)slots[op->slot].size;
            } else {
                uint64_t size = rp_op_size(op);
                slots[op->slot].p = arena + (bump & ((1 << 19) - 1));
                slots[op->slot].size = size;
                bump += (size + 15) & ~(uint64_t)15;
                lb += (int64_t)size;
            }
        }
        sink = (uint64_t)lb;
        floor_[rep] = (now_ns() - t0) / (double)tp->nops;

        for (int k = 0; k < 2; k++) {
            rp_run_opts o = { .touch = RP_TOUCH_NONE, .null_alloc = 1, .latency_every = every[k] };
            if (rp_run(&p, &o, &res)) { fprintf(stderr, "%s\n", res.msg); return 1; }
            run[k][rep] = res.ns_per_op;
        }

        /* With this process's malloc: the plan's calls made straight from a
           loop, then by the runner. The difference is the runner's cost with
           a real allocator. */
        memset(slots, 0, (p.nslots ? p.nslots : 1) * sizeof *slots);
        t0 = now_ns();
        for (uint64_t i = 0; i < tp->nops; i++) {
            const rp_op *op = &tp->ops[i];
            if (rp_op_kind(op) == RP_FREE) free(slots[op->slot].p);
            else slots[op->slot].p = malloc(rp_op_size(op));
        }
        direct[rep] = (now_ns() - t0) / (double)tp->nops;
        /* free what is left live (as the runner, the loop leaves its live set) */
        for (uint64_t i = 0; i < tp->nops; i++) slots[tp->ops[i].slot].size = rp_op_kind(&tp->ops[i]) != RP_FREE;
        for (uint32_t i = 0; i < p.nslots; i++)
            if (slots[i].size) free(slots[i].p);
        rp_run_opts o = { .touch = RP_TOUCH_NONE, .latency_every = every[1] };
        if (rp_run(&p, &o, &res)) { fprintf(stderr, "%s\n", res.msg); return 1; }
        real[rep] = res.ns_per_op;
    }
    (void)sink;
    double ml = median(loop, REPS), mf = median(floor_, REPS);
    double m0 = median(run[0], REPS), m1 = median(run[1], REPS);
    double md = median(direct, REPS), mr = median(real, REPS);
    printf("ops %llu, live set %llu (medians of %d runs each, interleaved)\n", (unsigned long long)tp->nops,
           (unsigned long long)LIVE, REPS);
    printf("%-40s %8.2f ns/op\n", "streaming loop (does nothing)", ml);
    printf("%-40s %8.2f ns/op   over streaming %+.2f ns/op\n", "floor loop (branch on kind, slots)", mf,
           mf - ml);
    printf("%-40s %8.2f ns/op   runner cost %+.2f ns/op\n", "runner, null allocator, 1 in 64 timed", m0,
           m0 - ml);
    printf("%-40s %8.2f ns/op   runner cost %+.2f ns/op\n", "runner, null allocator, no call timed", m1,
           m1 - ml);
    printf("%-40s %8.2f ns/op\n", "malloc/free straight from a loop", md);
    printf("%-40s %8.2f ns/op   runner cost %+.2f ns/op\n", "runner, malloc/free, no call timed", mr, mr - md);
    free(slots);
    free(arena);
    free(live);
    rp_plan_free(&p);
    return 0;
}
