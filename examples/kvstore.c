/* kvstore.c — the bundled example workload: a small in-memory key-value store.
 *
 * Two worker threads each run a deterministic mix of SET (malloc a value, or
 * realloc it when the key exists), APPEND (realloc), DEL (free) and GET on a
 * shared hash table guarded by a mutex, so values made by one thread are often
 * freed by the other. At the end it frees everything and prints its own counts,
 * which `hatrace stats` on the trace must match.
 *
 * Usage: kvstore [OPS_PER_THREAD]   (default 200000)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NKEYS 4096

typedef struct entry { char *val; size_t len; } entry;

static entry table[NKEYS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long n_malloc, n_realloc, n_free;  /* guarded by lock */
static long ops_per_thread = 200000;

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

/* Value sizes: mostly small, a long tail, like cached web objects. */
static size_t value_size(uint64_t r)
{
    unsigned k = r % 100;
    if (k < 60) return 8 + r % 56;
    if (k < 90) return 64 + r % 448;
    if (k < 99) return 512 + r % 3584;
    return 4096 + r % 61440;
}

static void *worker(void *arg)
{
    uint64_t seed = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
    for (long i = 0; i < ops_per_thread; i++) {
        uint64_t r = next_rand(&seed);
        unsigned key = (r >> 8) % NKEYS, op = r % 10;
        pthread_mutex_lock(&lock);
        entry *e = &table[key];
        if (op < 5) {                       /* SET */
            size_t len = value_size(next_rand(&seed));
            if (e->val) {
                char *v = realloc(e->val, len);
                if (v) { e->val = v; e->len = len; n_realloc++; }
            } else if ((e->val = malloc(len))) {
                e->len = len; n_malloc++;
            }
            if (e->val) memset(e->val, (int)key, e->len);
        } else if (op < 7 && e->val) {      /* APPEND */
            size_t len = e->len + 1 + (r >> 40) % 128;
            char *v = realloc(e->val, len);
            if (v) { memset(v + e->len, 'a', len - e->len); e->val = v; e->len = len; n_realloc++; }
        } else if (op < 9 && e->val) {      /* DEL */
            free(e->val); n_free++;
            e->val = NULL; e->len = 0;
        } else if (e->val) {                /* GET: read the value */
            volatile char c = e->val[e->len / 2]; (void)c;
        }
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) ops_per_thread = strtol(argv[1], NULL, 10);
    pthread_t t[2];
    for (uintptr_t i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0) return 1;
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int k = 0; k < NKEYS; k++)
        if (table[k].val) { free(table[k].val); n_free++; }
    printf("kvstore: %ld malloc, %ld realloc, %ld free\n", n_malloc, n_realloc, n_free);
    return 0;
}
