/* windows.c — phases, a second thread and objects that cross them, with
 * known counts, for the windows of the reading commands (--phase,
 * --from-time/--to-time, --thread; tests/integration/windows.sh):
 *
 *   phase "load"  main: 100 malloc(64), all kept
 *   phase "work"  main: 50 malloc(128), then the worker: 20 malloc(32), of
 *                 which it frees 5, hands 10 to main and keeps 5 (never
 *                 freed: the trace's only leak); then main frees 40 of its
 *                 50, frees 30 of load's objects, reallocs 10 of load's to
 *                 256 bytes and frees the worker's 10
 *   phase "end"   main: 3 malloc(16) freed at once; the rest freed (load's
 *                 60 and work's 10)
 *   phase "exit"  the worker ends (it waits for main's word to)
 *
 * The worker is made before the first phase (pthread_create allocates) and
 * waits on a pipe, so each phase holds only the calls above. A pause of
 * 20 ms between phases keeps their times apart. At the end it prints what
 * each window holds, as the window's definition counts it (analyze/window.h):
 * the calls made in it (by the thread, for the worker) and the objects
 * they made, their frees by any thread counted, a realloc of an older
 * object counted as one that makes an object.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hatrace.h"

static int go[2], done[2];
static void *handed[10];

static void *worker(void *arg)
{
    (void)arg;
    char c;
    if (read(go[0], &c, 1) != 1) return NULL;
    void *mine[20];
    for (int i = 0; i < 20; i++) mine[i] = malloc(32);
    for (int i = 0; i < 5; i++) free(mine[i]);
    memcpy(handed, mine + 5, sizeof handed);  /* mine[15..19] are never freed */
    if (write(done[1], "d", 1) != 1) return NULL;
    if (read(go[0], &c, 1) != 1) return NULL;  /* ends in phase "exit" */
    return NULL;
}

static void pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

int main(void)
{
    static void *load[100], *work[50];
    pthread_t th;
    char c;
    if (pipe(go) || pipe(done) || pthread_create(&th, NULL, worker, NULL)) return 1;
    pause_ms(20);

    hatrace_comment("load");
    for (int i = 0; i < 100; i++) load[i] = malloc(64);
    pause_ms(20);

    hatrace_comment("work");
    for (int i = 0; i < 50; i++) work[i] = malloc(128);
    if (write(go[1], "g", 1) != 1 || read(done[0], &c, 1) != 1) return 1;
    for (int i = 0; i < 40; i++) free(work[i]);
    for (int i = 0; i < 30; i++) free(load[i]);
    for (int i = 30; i < 40; i++) load[i] = realloc(load[i], 256);
    for (int i = 0; i < 10; i++) free(handed[i]);
    pause_ms(20);

    hatrace_comment("end");
    for (int i = 0; i < 3; i++) {
        void *volatile p = malloc(16);  /* volatile: the pair is not optimised away */
        free(p);
    }
    for (int i = 30; i < 100; i++) free(load[i]);
    for (int i = 40; i < 50; i++) free(work[i]);
    pause_ms(20);

    hatrace_comment("exit");
    if (write(go[1], "e", 1) != 1) return 1;
    pthread_join(th, NULL);

    /* window allocs frees reallocs bytes peak left_objects left_bytes; bytes
     * counts what the allocs asked for (stats' total_bytes) */
    static const char out[] =
        "load 100 0 0 6400 6400 100 6400\n"
        "work 70 55 10 7040 7040 25 4000\n"
        "end 3 3 0 48 16 0 0\n"
        "worker 20 15 0 640 640 5 160\n";
    return write(1, out, sizeof out - 1) == (ssize_t)(sizeof out - 1) ? 0 : 1;
}
