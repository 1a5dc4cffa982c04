/* touch_less.c — a program that asks for more memory than it uses: blocks of
 * 8 MiB (mapped by glibc's malloc, so untouched pages are never resident)
 * of which it writes only the first part, holds them a while (the
 * recorder samples the resident size each flush interval), then frees them.
 * Arguments: MiB asked (default 512), MiB written (default 56), ms held
 * (default 600). Prints its peak resident size: "maxrss_kib N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { BLOCK = 8 << 20, MAXB = 1024 };

int main(int argc, char **argv)
{
    long asked = argc > 1 ? atol(argv[1]) : 512, written = argc > 2 ? atol(argv[2]) : 56;
    long hold_ms = argc > 3 ? atol(argv[3]) : 600;
    long n = asked / 8;
    if (n < 1 || n > MAXB || written < 0 || written > asked) {
        fprintf(stderr, "usage: touch_less [MiB asked, 8..8192] [MiB written] [ms held]\n");
        return 2;
    }
    static char *b[MAXB];
    size_t per = (size_t)(written << 20) / (size_t)n;
    for (long i = 0; i < n; i++) {
        if (!(b[i] = malloc(BLOCK))) return 1;
        memset(b[i], 0x5a, per);
    }
    struct timespec d = { hold_ms / 1000, hold_ms % 1000 * 1000000 };
    nanosleep(&d, NULL);
    for (long i = 0; i < n; i++) free(b[i]);
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    printf("maxrss_kib %ld\n", u.ru_maxrss);
    return 0;
}
