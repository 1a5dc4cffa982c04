/* tune_handoff.c — threads that take turns with the heap, for replay --tune
 * (tests/integration/replay_tune.sh, bench/replay_tune.sh).
 *
 *     tune_handoff THREADS MIB BLOCK KEEP_EVERY
 *
 * All threads start at once and wait for their turn. In its turn a thread
 * frees the baton the thread before it left (a cross-thread free: it orders
 * the turns in a replay as in the run), allocates MIB MiB in blocks of BLOCK
 * bytes and writes them, frees every block but each KEEP_EVERY-th (0: frees
 * them all), and leaves a baton for the next. The main thread frees the kept
 * blocks at the end, from every thread (cross-thread frees again). Every
 * thread allocates a ticket when it starts and lives until the last turn is
 * over, then frees its ticket and an object the last thread made: no thread
 * inherits the arena of one that ended, in the run or in a replay (where a
 * runner thread ends after its trace thread's last op).
 *
 * What the heap keeps between turns decides the peak resident size:
 *  - glibc: each thread has an arena of its own (up to 8 per core); the kept
 *    blocks pin the freed ones between them, so every arena keeps its thread's
 *    MIB. With fewer arenas (glibc.malloc.arena_max) the next thread reuses
 *    the holes: tune_handoff 8 8 512 16.
 *  - jemalloc: each thread has an arena of its own too; freed extents stay
 *    resident as dirty pages for dirty_decay_ms (10 s) and the next thread's
 *    arena cannot use them: with dirty_decay_ms:0 they are given back at once:
 *    tune_handoff 4 32 65536 0.
 * At the end it prints its own peak resident size: "peak_resident_kb N".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned nthreads, keep_every;
static size_t block, per_thread;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static unsigned turn;
static void *baton;
static void *finale[256];  /* made by the last thread after its turn, one freed by each */
static void **kept;   /* per thread per_thread slots, the kept blocks */

static void *worker(void *arg)
{
    unsigned me = (unsigned)(size_t)arg;
    char *ticket = malloc(64);
    if (!ticket) abort();
    memset(ticket, 1, 64);
    pthread_mutex_lock(&mu);
    while (turn != me) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    free(baton);
    void **blocks = kept + (size_t)me * per_thread;
    for (size_t i = 0; i < per_thread; i++) {
        blocks[i] = malloc(block);
        if (!blocks[i]) abort();
        memset(blocks[i], (int)(i & 0xff), block);
    }
    for (size_t i = 0; i < per_thread; i++) {
        if (keep_every && i % keep_every == 0) continue;
        free(blocks[i]);
        blocks[i] = NULL;
    }
    pthread_mutex_lock(&mu);
    baton = malloc(16);
    for (unsigned i = 0; me + 1 == nthreads && i < nthreads; i++) finale[i] = malloc(16);
    turn++;
    pthread_cond_broadcast(&cv);
    while (turn != nthreads) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    free(finale[me]);
    free(ticket);
    return NULL;
}

static long peak_resident_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: tune_handoff THREADS MIB BLOCK KEEP_EVERY\n");
        return 2;
    }
    nthreads = (unsigned)atoi(argv[1]);
    block = (size_t)atol(argv[3]);
    keep_every = (unsigned)atoi(argv[4]);
    if (nthreads < 1 || nthreads > 256 || block < 1 || atol(argv[2]) < 1) {
        fprintf(stderr, "tune_handoff: THREADS 1-256, MIB and BLOCK at least 1\n");
        return 2;
    }
    per_thread = ((size_t)atol(argv[2]) << 20) / block;
    kept = malloc(nthreads * per_thread * sizeof *kept);
    pthread_t th[256];
    if (!kept) return 1;
    for (unsigned i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)(size_t)i)) return 1;
    for (unsigned i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    free(baton);
    for (size_t i = 0; i < nthreads * per_thread; i++) free(kept[i]);
    free(kept);
    printf("peak_resident_kb %ld\n", peak_resident_kb());
    return 0;
}
