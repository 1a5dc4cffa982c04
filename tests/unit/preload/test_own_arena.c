/* test_own_arena.c — the recorder threads' glibc arenas (own_arena.c): a
 * recorder thread's arena counts by its resident pages, the small blocks in
 * it among them; it still does once the thread has ended (glibc keeps the
 * arena, with the recorder's pages in it); once a program thread takes it,
 * it counts no more, for good. Under a sanitizer's allocator (or any not
 * glibc's) no arena is taken: the blocks count as before. Alone in its
 * program: the arenas it watches are the only ones its threads made. */
#include <dlfcn.h>
#include <gnu/lib-names.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "own_arena.h"

enum { BLOCKS = 200, BLOCK = 500, HEAP_MAX = 64 << 20 };

/* The recorder thread: its arena taken, BLOCKS blocks written and noted as
 * the hooks would, then it waits for the main thread's word to end. */
static void *blocks[BLOCKS];
static int64_t block_bytes;
static int slot = -2;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, stop;

/* Set *flag under the lock and wake the waiters. */
static void tell(int *flag)
{
    pthread_mutex_lock(&mu);
    *flag = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

/* Wait until *flag is set (by tell). */
static void wait_for(const int *flag)
{
    pthread_mutex_lock(&mu);
    while (!*flag) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

static void *recorder(void *arg)
{
    (void)arg;
    int s = ht_own_arena_enter(malloc_usable_size);
    for (int i = 0; i < BLOCKS; i++) {
        blocks[i] = malloc(BLOCK);
        memset(blocks[i], 1, BLOCK);
        int64_t n = (int64_t)malloc_usable_size(blocks[i]);
        ht_own_arena_note((uint64_t)(uintptr_t)blocks[i], n);
        block_bytes += n;
    }
    slot = s;
    tell(&ready);
    wait_for(&stop);
    ht_own_arena_leave(s);
    return NULL;
}

/* A program thread: its first block (its arena's), then it waits for the
 * main thread's word to end. */
static void *taken;
static int took, ended;
static void *program(void *arg)
{
    (void)arg;
    taken = malloc(64);
    tell(&took);
    wait_for(&ended);
    free(taken);
    return NULL;
}

/* glibc's allocator is the test's own (no sanitizer's in between) */
static int glibc_allocates(void)
{
    void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
    int ours = libc && dlsym(libc, "malloc_usable_size") == (void *)malloc_usable_size;
    if (libc) dlclose(libc);
    return ours;
}

static void test_own_arena(void)
{
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, recorder, NULL), 0);
    wait_for(&ready);
    int64_t small = -1;
    uint64_t res = ht_own_arena_resident(&small);
    if (!glibc_allocates()) {  /* a sanitizer's allocator: nothing taken */
        CU_ASSERT_EQUAL(slot, -1);
        CU_ASSERT_EQUAL(res, 0);
        CU_ASSERT_EQUAL(small, 0);
        tell(&stop);
        pthread_join(th, NULL);
        return;
    }
    CU_ASSERT_FATAL(slot >= 0);
    /* every block noted, all written: the pages hold them and the arena's
     * state (2 KiB), tcache, headers, page ends besides */
    CU_ASSERT_EQUAL(small, block_bytes);
    CU_ASSERT(res >= (uint64_t)block_bytes + 2048);
    CU_ASSERT(res <= (uint64_t)block_bytes + 64 * 1024);
    CU_ASSERT(ht_own_arena_holds((uint64_t)(uintptr_t)blocks[0]));
    CU_ASSERT(ht_own_arena_holds((uint64_t)(uintptr_t)blocks[BLOCKS - 1]));
    void *mine = malloc(64);  /* the main arena's */
    CU_ASSERT_FALSE(ht_own_arena_holds((uint64_t)(uintptr_t)mine));

    /* the recorder thread ends: the arena, on glibc's free list, still holds its pages */
    tell(&stop);
    pthread_join(th, NULL);
    uint64_t after = ht_own_arena_resident(&small);
    CU_ASSERT_EQUAL(small, block_bytes);
    CU_ASSERT(after >= (uint64_t)block_bytes + 2048 && after <= res + 4096);
    CU_ASSERT(ht_own_arena_holds((uint64_t)(uintptr_t)blocks[0]));

    /* a program thread takes it (glibc gives a new thread a free arena first) */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, program, NULL), 0);
    wait_for(&took);
    CU_ASSERT_PTR_NOT_NULL_FATAL(taken);
    CU_ASSERT_EQUAL_FATAL((uintptr_t)taken & ~((uintptr_t)HEAP_MAX - 1), (uintptr_t)blocks[0] & ~((uintptr_t)HEAP_MAX - 1));
    CU_ASSERT_EQUAL(ht_own_arena_resident(&small), 0);
    CU_ASSERT_EQUAL(small, 0);
    CU_ASSERT_FALSE(ht_own_arena_holds((uint64_t)(uintptr_t)blocks[0]));
    /* it ends, but blocks of its may still be there: counted no more, for good */
    tell(&ended);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(ht_own_arena_resident(&small), 0);
    CU_ASSERT_EQUAL(small, 0);
    CU_ASSERT_FALSE(ht_own_arena_holds((uint64_t)(uintptr_t)blocks[0]));
    free(mine);
}

static CU_TestInfo tests[] = { { "own arena", test_own_arena }, CU_TEST_INFO_NULL };
CU_SuiteInfo ut_suites[] = { { .pName = "own_arena", .pTests = tests }, CU_SUITE_INFO_NULL };
