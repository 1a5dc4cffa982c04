/* tune_probe.c — what the allocator in this process says of its settings,
 * for tests/integration/replay_tune_settings.sh (each built-in setting of
 * replay --tune must take effect).
 *
 * Prints "KEY=VALUE" lines as the allocator itself reports them:
 *   jemalloc  mallctl("opt.KEY")                 narenas, dirty_decay_ms, muzzy_decay_ms,
 *                                                background_thread
 *   tcmalloc  MallocExtension_GetNumericProperty aggressive_decommit,
 *             and its release-rate flag          max_total_thread_cache_bytes, release_rate
 *   glibc     by behaviour (it has no read-back) tcache_count: blocks a free keeps out of
 *                                                the fastbins (mallinfo2's fsmblks)
 * (mimalloc prints its options itself with MIMALLOC_VERBOSE=1; glibc's other
 * tunables are read back by ld.so --list-tunables.) Nothing is linked: the
 * functions are looked up in whatever provides malloc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef int (*property_fn)(const char *, size_t *);

static void jemalloc(mallctl_fn ctl)
{
    unsigned narenas;
    ssize_t ms;
    bool on;
    size_t len = sizeof narenas;
    if (ctl("opt.narenas", &narenas, &len, NULL, 0) == 0) printf("narenas=%u\n", narenas);
    len = sizeof ms;
    if (ctl("opt.dirty_decay_ms", &ms, &len, NULL, 0) == 0) printf("dirty_decay_ms=%zd\n", ms);
    len = sizeof ms;
    if (ctl("opt.muzzy_decay_ms", &ms, &len, NULL, 0) == 0) printf("muzzy_decay_ms=%zd\n", ms);
    len = sizeof on;
    if (ctl("opt.background_thread", &on, &len, NULL, 0) == 0) printf("background_thread=%s\n", on ? "true" : "false");
}

static void tcmalloc(property_fn prop)
{
    size_t v;
    if (prop("tcmalloc.aggressive_memory_decommit", &v)) printf("aggressive_decommit=%s\n", v ? "true" : "false");
    if (prop("tcmalloc.max_total_thread_cache_bytes", &v)) printf("max_total_thread_cache_bytes=%zu\n", v);
    /* gperftools keeps TCMALLOC_RELEASE_RATE in this flag (MallocExtension's
     * GetMemoryReleaseRate is a C++ virtual, not reachable from C) */
    const double *rate = dlsym(RTLD_DEFAULT,
                               "_ZN62FLAG__namespace_do_not_use_directly_use_DECLARE_double_instead27FLAGS_tcmalloc_release_rateE");
    if (rate) printf("release_rate=%g\n", *rate);
}

/* glibc: of 64 freed blocks of a fastbin size, those the thread cache kept
 * are not counted in fsmblks; the rest went to the fastbin. */
static void glibc(void)
{
    enum { N = 64, SIZE = 100 };
    void *p[N + 1];
    for (int i = 0; i <= N; i++) p[i] = malloc(SIZE);  /* p[N] keeps them off the top */
    size_t before = mallinfo2().fsmblks, chunk = malloc_usable_size(p[0]) + sizeof(size_t);
    for (int i = 0; i < N; i++) free(p[i]);
    size_t in_fastbins = (mallinfo2().fsmblks - before) / chunk;
    printf("tcache_count=%zu\n", N - in_fastbins);
    free(p[N]);
}

int main(void)
{
    void *ctl = dlsym(RTLD_DEFAULT, "mallctl"), *prop = dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty");
    if (ctl) jemalloc((mallctl_fn)ctl);
    else if (prop) tcmalloc((property_fn)prop);
    else if (!dlsym(RTLD_DEFAULT, "mi_option_get")) glibc();
    return 0;
}
