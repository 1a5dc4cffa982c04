/* rss_grow.c — a program whose resident memory grows by a known amount: it
 * allocates 64 MiB in 1 MiB blocks, touches every page, holds them for 800 ms
 * (several of the recorder's flush intervals, even on a busy machine), frees
 * them, and holds 300 ms more. Prints the bytes it made resident. Then its
 * own mappings: an anonymous mmap of 16 MiB, grown to 32 MiB by mremap, then
 * unmapped, and the break moved by sbrk(+8192) and back; prints them as the
 * recorder's "hatrace-map" comments say them. */
#define _GNU_SOURCE  /* mremap */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>

static void hold(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t)) {}
}

int main(void)
{
    enum { BLOCKS = 64, BLOCK = 1 << 20 };
    static char *v[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) {
        if (!(v[i] = malloc(BLOCK))) return 1;
        memset(v[i], i + 1, BLOCK);
    }
    hold(800);
    for (int i = 0; i < BLOCKS; i++) free(v[i]);
    hold(300);
    printf("%d\n", BLOCKS * BLOCK);
    size_t len = 16u << 20;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 1;
    memset(m, 1, len);
    char *m2 = mremap(m, len, 2 * len, MREMAP_MAYMOVE);
    if (m2 == MAP_FAILED) return 1;
    munmap(m2, 2 * len);
    if (sbrk(8192) == (void *)-1 || sbrk(-8192) == (void *)-1) return 1;
    printf("mmap %zu anon\nmremap %zu %zu\nmunmap %zu\nbrk 8192\nbrk -8192\n", len, len, 2 * len, 2 * len);
    return 0;
}
