/* stacks_lib.c — the shared-library half of the stacks_sites workload: an
 * exported function that allocates, so its frame is named from .dynsym. */
#include <stdlib.h>

__attribute__((visibility("default"), noinline)) void *lib_make(size_t n)
{
    void *p = calloc(n, 8);
    __asm__ volatile("" ::: "memory");  /* no tail call: this frame stays */
    return p;
}
