/* diff_sites — allocation sites of known counts, one of them set by an
 * argument, for hatrace stats --diff (tests/integration/stats_diff.sh):
 *
 *   diff_sites K    keep_a: 100 objects of 64 bytes, all freed at the end
 *                   grow_b: 100 x K objects of 128 bytes, each freed at once
 *                   leak_c: 10 objects of 32 bytes, never freed
 *
 * Two runs with different K differ in grow_b alone. */
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;

/* noinline and a use after the call: each site is a frame of its own */
__attribute__((noinline)) static void keep_a(void **kept)
{
    for (int i = 0; i < 100; i++) kept[i] = malloc(64);
    sink = kept[0];
}

__attribute__((noinline)) static void grow_b(long k)
{
    for (long i = 0; i < 100 * k; i++) {
        char *p = malloc(128);
        sink = p;
        free(p);
    }
    sink = NULL;
}

__attribute__((noinline)) static void leak_c(void)
{
    for (int i = 0; i < 10; i++) sink = malloc(32);
    sink = NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: diff_sites K\n");
        return 2;
    }
    long k = atol(argv[1]);
    void *kept[100];
    keep_a(kept);
    grow_b(k);
    leak_c();
    for (int i = 0; i < 100; i++) free(kept[i]);
    return 0;
}
