/* replay_cost.c — the runner's own cost per operation.
 *
 *   replay_cost [OPS]      (default 10000000)
 *
 * Compiles a synthetic single-thread trace (a live set of 4096 objects, each
 * op frees a random one or makes a new one, sizes 8..512), then times, in one
 * run: a loop that only streams through the plan, the runner with the null
 * allocator (no touching, latency sampled 1 call in 64 as by default), and
 * the runner timing no call. Prints ns per op and the difference; the goal
 * is a runner cost under 5 ns per op over the streaming loop.
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
    enum { LIVE = 4096 };
    static uint64_t live[LIVE];
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

    /* the baseline: stream through the ops, using each so the loop stays */
    double best_loop = 1e30;
    volatile uint64_t sink = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now_ns();
        uint64_t s = 0;
        for (uint64_t i = 0; i < tp->nops; i++) s += tp->ops[i].w ^ tp->ops[i].slot;
        sink = s;
        double d = (now_ns() - t0) / (double)tp->nops;
        if (d < best_loop) best_loop = d;
    }
    (void)sink;
    static rp_result res;
    double best[2] = { 1e30, 1e30 };
    unsigned every[2] = { 64, 1000000 };
    for (int k = 0; k < 2; k++)
        for (int rep = 0; rep < 3; rep++) {
            rp_run_opts o = { .touch = RP_TOUCH_NONE, .null_alloc = 1, .latency_every = every[k] };
            if (rp_run(&p, &o, &res)) { fprintf(stderr, "%s\n", res.msg); return 1; }
            if (res.ns_per_op < best[k]) best[k] = res.ns_per_op;
        }
    printf("ops %llu (best of 3 each)\n", (unsigned long long)tp->nops);
    printf("%-40s %8.2f ns/op\n", "streaming loop (does nothing)", best_loop);
    printf("%-40s %8.2f ns/op   runner cost %+.2f ns/op\n", "runner, null allocator, 1 in 64 timed", best[0],
           best[0] - best_loop);
    printf("%-40s %8.2f ns/op   runner cost %+.2f ns/op\n", "runner, null allocator, no call timed", best[1],
           best[1] - best_loop);
    rp_plan_free(&p);
    return 0;
}
