/* resident_hold.c N [HOLD_MS [SIZE]] — a program of known peak: it allocates N
 * blocks of SIZE bytes (default 64), writes each, holds them HOLD_MS ms
 * (default 400: several of the recorder's flush intervals, so a resident
 * sample falls at the peak however busy the machine), then frees them and
 * exits. While holding, it is at its peak resident size: bench/resident_truth.sh
 * and tests/integration/record_resident_truth.sh read its native resident
 * size then and compare the recorded one. Prints "holding" when it starts to
 * hold, so a reader of /proc knows the peak is reached. Blocks of 1 KiB or
 * more are given back to the system as they are freed (glibc trims its heap),
 * so the peak is gone before the program's end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: resident_hold N [HOLD_MS [SIZE]]\n");
        return 2;
    }
    long n = atol(argv[1]), ms = argc > 2 ? atol(argv[2]) : 400, size = argc > 3 ? atol(argv[3]) : 64;
    if (n < 1 || ms < 0 || size < 1) return 2;
    char **v = malloc((size_t)n * sizeof *v);
    if (!v) return 1;
    for (long i = 0; i < n; i++) {
        if (!(v[i] = malloc((size_t)size))) return 1;
        memset(v[i], (int)(i & 0x7f) + 1, (size_t)size);
    }
    /* by write(2): a stdio buffer made now would sit above the blocks and keep
     * their freeing from giving the heap's top back */
    if (write(1, "holding\n", 8) != 8) return 1;
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t)) {}
    long sum = 0;
    for (long i = 0; i < n; i++) {
        sum += v[i][size - 1];
        free(v[i]);
    }
    free(v);
    return sum > 0 ? 0 : 1;
}
