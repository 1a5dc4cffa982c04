/* rss_grow.c — a program whose resident memory grows by a known amount: it
 * allocates 64 MiB in 1 MiB blocks, touches every page, holds them for 800 ms
 * (several of the recorder's flush intervals, even on a busy machine), frees
 * them, and holds 300 ms more. Prints the bytes it made resident. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    return 0;
}
