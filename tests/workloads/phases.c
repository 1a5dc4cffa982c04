/* phases.c — three phases marked with hatrace_comment (include/hatrace.h):
 * phase N makes N*1000 allocations of N*16 bytes and frees all but N*10 of
 * them; the last phase also frees what the others kept. Prints each phase's
 * allocations, frees and bytes as `stats --phases` must find them, written
 * at the end with write(2) so that no stdio buffer is allocated inside a
 * phase. Without the preload the comments cost nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hatrace.h"

int main(void)
{
    static void *keep[64];
    static char out[512];
    size_t kept = 0, len = 0;
    for (int n = 1; n <= 3; n++) {
        char name[32];
        snprintf(name, sizeof name, "phase %d", n);
        hatrace_comment(name);
        size_t size = (size_t)n * 16, allocs = (size_t)n * 1000, frees = 0;
        for (size_t i = 0; i < allocs; i++) {
            void *p = malloc(size);
            if (!p) return 1;
            if (i < (size_t)n * 10) keep[kept++] = p;
            else free(p), frees++;
        }
        if (n == 3) {
            for (size_t i = 0; i < kept; i++) free(keep[i]);
            frees += kept;
        }
        len += (size_t)snprintf(out + len, sizeof out - len, "%s allocs %zu frees %zu bytes %zu\n", name, allocs,
                                frees, allocs * size);
    }
    return write(1, out, len) == (ssize_t)len ? 0 : 1;
}
