/* stack_depth — allocations (or bare unwinds) at the bottom of a call chain
 * of known depth, for measuring the cost of call-stack capture:
 *
 *   stack_depth malloc DEPTH N    N malloc+free pairs, DEPTH calls below main
 *   stack_depth unwind DEPTH N    N unw_backtrace() calls there (libunwind,
 *                                 found with dlopen: no link-time dependency)
 *
 * Under callgrind, the cost of one call is the difference between N and N+K
 * runs divided by K (bench/record_stacks.sh --callgrind). Build it with
 * -fno-omit-frame-pointer to try the frame-pointer walker. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int (*bt)(void **, int);
static volatile int sink;

static void leaf(int unwind, long n)
{
    void *buf[64];
    for (long i = 0; i < n; i++) {
        if (unwind) {
            sink += bt(buf, 64);
        } else {
            char *p = malloc(40);
            p[0] = 1;
            sink += p[0];
            free(p);
        }
    }
}

/* noinline and a use after the call: one real frame per level */
__attribute__((noinline)) static void chain(int depth, int unwind, long n)
{
    if (depth <= 1) leaf(unwind, n);
    else chain(depth - 1, unwind, n);
    sink += depth;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: stack_depth malloc|unwind DEPTH N\n");
        return 2;
    }
    int unwind = !strcmp(argv[1], "unwind");
    int depth = atoi(argv[2]);
    long n = atol(argv[3]);
    if (unwind) {
        void *h = dlopen("libunwind.so.8", RTLD_NOW);
        if (!h || !(bt = (int (*)(void **, int))dlsym(h, "unw_backtrace"))) {
            fprintf(stderr, "stack_depth: libunwind not found\n");
            return 77;
        }
    }
    chain(depth, unwind, n);
    return 0;
}
