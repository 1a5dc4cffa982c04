/* alloc_chain.c — a single-threaded, allocation-bound program: arithmetic on
 * big numbers held in malloc'd limb arrays, each step allocating its result
 * and freeing an operand, as a big-number library does. About 20-30 ns of
 * the program's own work per event on a 2.4 GHz core: the recorder's cost per
 * event shows in full.
 *
 *   build/bench/alloc_chain [STEPS]        (default 20 million: 40 M events)
 *
 * Prints one line as bench/server_sim.c does (ops = steps, one malloc and one
 * free each) and a checksum of the numbers, so the work cannot be skipped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_clock.h"

typedef struct num { uint32_t n; uint64_t limb[]; } num;

static num *make(uint32_t n)
{
    num *x = malloc(sizeof *x + n * sizeof x->limb[0]);
    if (!x) { perror("malloc"); exit(1); }
    x->n = n;
    return x;
}

/* r = a * m + b over n limbs (the carry out dropped: fixed-width arithmetic) */
static num *muladd(const num *a, uint64_t m, const num *b, uint32_t n)
{
    num *r = make(n);
    unsigned __int128 carry = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t x = i < a->n ? a->limb[i] : 0, y = i < b->n ? b->limb[i] : 0;
        carry += (unsigned __int128)x * m + y;
        r->limb[i] = (uint64_t)carry;
        carry >>= 64;
    }
    return r;
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 20000000;
    if (steps < 1) { fprintf(stderr, "usage: alloc_chain [STEPS]\n"); return 2; }
    enum { WINDOW = 8 };  /* numbers alive at once */
    num *w[WINDOW];
    for (int i = 0; i < WINDOW; i++) {
        w[i] = make(1);
        w[i]->limb[0] = (uint64_t)i + 1;
    }
    cpu_sample a, b;
    cpu_sample_take(&a);
    for (long s = 0; s < steps; s++) {
        unsigned k = (unsigned)s % WINDOW;
        uint32_t n = 16 + (uint32_t)(s * 7 % 81);  /* 16..96 limbs: 136..776 bytes */
        num *r = muladd(w[(k + 1) % WINDOW], 0x9e3779b97f4a7c15ull | (uint64_t)s, w[(k + 3) % WINDOW], n);
        free(w[k]);
        w[k] = r;
    }
    cpu_sample_take(&b);
    uint64_t sum = 0;
    for (int i = 0; i < WINDOW; i++) {
        for (uint32_t j = 0; j < w[i]->n; j++) sum ^= w[i]->limb[j];
        free(w[i]);
    }
    printf("ops=%ld secs=%.4f cpu_ns=%llu bg_ns=%llu sum=%llx\n", steps, (double)(b.wall_ns - a.wall_ns) / 1e9,
           (unsigned long long)(b.cpu_ns - a.cpu_ns), (unsigned long long)(b.bg_ns - a.bg_ns),
           (unsigned long long)sum);
    return 0;
}
