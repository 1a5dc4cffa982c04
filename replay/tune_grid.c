/* tune_grid.c — the settings replay --tune runs: the built-in grid per
 * allocator and 'ALLOC:KEY=VALUE' settings, made into environment variables.
 *
 * Each allocator reads its settings from the environment at start-up, so a
 * setting is a few variables in the child process's environment:
 *   glibc     GLIBC_TUNABLES=glibc.malloc.KEY=VALUE:...   (ld.so parses them)
 *   jemalloc  MALLOC_CONF=KEY:VALUE,...
 *   tcmalloc  TCMALLOC_KEY=VALUE (gperftools, one variable per key)
 *   mimalloc  MIMALLOC_KEY=VALUE (one variable per key)
 * glibc, gperftools and mimalloc ignore a name they do not know without a
 * word, so keys are checked against the names the versions of Debian 12
 * read (glibc 2.36, gperftools 2.10, mimalloc 2.0.9); jemalloc says itself
 * when a key is wrong ("Invalid conf pair"), so its keys pass as given.
 * tests/integration/replay_tune_settings.sh shows each built-in setting
 * taking effect, read back from the allocator.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

typedef struct tune_alloc {
    const char *name;
    const char *const *keys;   /* the keys accepted; NULL: any (the allocator checks them itself) */
} tune_alloc;

static const char *const glibc_keys[] = {
    "arena_max", "arena_test", "trim_threshold", "mmap_threshold", "mmap_max", "top_pad", "tcache_count",
    "tcache_max", "tcache_unsorted_limit", "mxfast", "hugetlb", "perturb", "check", NULL,
};
static const char *const tcmalloc_keys[] = {
    "release_rate", "aggressive_decommit", "max_total_thread_cache_bytes", "heap_limit_mb",
    "transfer_num_obj", "large_alloc_report_threshold", "skip_sbrk", "skip_mmap", NULL,
};
/* mimalloc 2.0.9's options (mimalloc.h, mi_option_t); newer versions renamed some
 * (decommit_delay is purge_delay from 2.1, which still reads the old name) */
static const char *const mimalloc_keys[] = {
    "eager_commit", "eager_commit_delay", "decommit_delay", "reset_delay", "segment_decommit_delay",
    "decommit_extend_delay", "page_reset", "abandoned_page_decommit", "allow_decommit", "large_os_pages",
    "reserve_huge_os_pages", "reserve_os_memory", "use_numa_nodes", "max_segment_reclaim", "limit_os_alloc",
    "destroy_on_exit", NULL,
};

static const tune_alloc allocs[] = {
    { "glibc", glibc_keys },
    { "jemalloc", NULL },
    { "tcmalloc", tcmalloc_keys },
    { "mimalloc", mimalloc_keys },
};

const char *const rp_tune_env_names[] = { "GLIBC_TUNABLES", "MALLOC_CONF", "TCMALLOC_", "MIMALLOC_", NULL };

/* The built-in grid: per allocator the knobs that decide most of its memory
 * (docs/replay.md, "Tuning", says why each). */
static const char *const grid[] = {
    "glibc:", "glibc:arena_max=1", "glibc:arena_max=2", "glibc:arena_max=4",
    "glibc:trim_threshold=32768", "glibc:mmap_threshold=65536", "glibc:tcache_count=0",
    "jemalloc:", "jemalloc:narenas=1", "jemalloc:narenas=2", "jemalloc:dirty_decay_ms=0",
    "jemalloc:dirty_decay_ms=1000", "jemalloc:muzzy_decay_ms=1000", "jemalloc:background_thread=true",
    "tcmalloc:", "tcmalloc:release_rate=0", "tcmalloc:release_rate=10", "tcmalloc:aggressive_decommit=true",
    "tcmalloc:max_total_thread_cache_bytes=4194304",
    "mimalloc:", "mimalloc:decommit_delay=0", "mimalloc:decommit_delay=1000", "mimalloc:page_reset=1",
    "mimalloc:eager_commit=0", "mimalloc:segment_decommit_delay=0",
    NULL,
};

/* glibc drops a tunable outside its range without a word: the ranges of
 * glibc 2.36's malloc tunables that are not 0 to any (ld.so --list-tunables). */
static const struct { const char *key; unsigned long long min, max; } glibc_ranges[] = {
    { "arena_max", 1, ~0ull }, { "arena_test", 1, ~0ull }, { "check", 0, 3 }, { "perturb", 0, 255 },
    { "mxfast", 0, 80 * sizeof(size_t) / 4 }, { "mmap_max", 0, 2147483647 },
};

/* A value the allocator takes as it is meant: a number for glibc (in its
 * range), tcmalloc and mimalloc, or a word for their switches. */
static int value_ok(const char *alloc, const char *key, const char *value, char *why, size_t cap)
{
    char *end;
    errno = 0;
    if (strcmp(alloc, "jemalloc") == 0) return 1;  /* jemalloc says itself what it does not take */
    if (strcmp(alloc, "glibc") == 0) {
        unsigned long long v = strtoull(value, &end, 0);
        if (*end || errno || value[0] == '-') {
            snprintf(why, cap, "glibc takes a number for %.64s", key);
            return 0;
        }
        for (size_t i = 0; i < sizeof glibc_ranges / sizeof *glibc_ranges; i++)
            if (strcmp(glibc_ranges[i].key, key) == 0 && (v < glibc_ranges[i].min || v > glibc_ranges[i].max)) {
                if (glibc_ranges[i].max == ~0ull) snprintf(why, cap, "glibc takes %.32s from %llu", key, glibc_ranges[i].min);
                else snprintf(why, cap, "glibc takes %.32s from %llu to %llu", key, glibc_ranges[i].min, glibc_ranges[i].max);
                return 0;
            }
        return 1;
    }
    static const char *const words[] = { "true", "false", "yes", "no", "on", "off", NULL };
    for (const char *const *w = words; *w; w++)
        if (strcmp(value, *w) == 0) return 1;
    (void)strtod(value, &end);
    if (*end || end == value || errno) {
        snprintf(why, cap, "%s takes a number (or true, false, yes, no, on, off) for %.48s", alloc, key);
        return 0;
    }
    return 1;
}

static int key_known(const char *const *keys, const char *k)
{
    if (!keys) return 1;
    for (; *keys; keys++)
        if (strcmp(*keys, k) == 0) return 1;
    return 0;
}

static int word_ok(const char *w, const char *extra)
{
    if (!*w) return 0;
    for (; *w; w++)
        if (!isalnum((unsigned char)*w) && *w != '_' && !strchr(extra, *w)) return 0;
    return 1;
}

/* Add NAME=VALUE, or append VALUE to the variable already started with sep. */
static int env_add(rp_tune_setting *s, const char *name, const char *sep, const char *text, hatf_err *err)
{
    size_t nl = strlen(name);
    for (unsigned i = 0; i < s->nenv; i++) {
        if (strncmp(s->env[i], name, nl) || s->env[i][nl] != '=') continue;
        size_t len = strlen(s->env[i]);
        if (!sep || (size_t)snprintf(s->env[i] + len, sizeof s->env[i] - len, "%s%s", sep, text) >= sizeof s->env[i] - len)
            return hatf_err_set(err, HATF_E_USAGE, 0, "setting %s:%s: %s given twice or too long", s->alloc, s->label, name);
        return 0;
    }
    if (s->nenv == RP_TUNE_KEYS)
        return hatf_err_set(err, HATF_E_USAGE, 0, "setting %s:%s: more than %d keys", s->alloc, s->label, RP_TUNE_KEYS);
    if ((size_t)snprintf(s->env[s->nenv], sizeof s->env[0], "%s=%s", name, text) >= sizeof s->env[0])
        return hatf_err_set(err, HATF_E_USAGE, 0, "setting %s:%s: too long", s->alloc, s->label);
    s->nenv++;
    return 0;
}

static int add_pair(rp_tune_setting *s, const char *key, const char *value, hatf_err *err)
{
    char name[128], text[RP_TUNE_ENV_LEN + 16];  /* the pair and its prefix; env_add checks the length */
    if (strcmp(s->alloc, "glibc") == 0) {
        snprintf(text, sizeof text, "glibc.malloc.%s=%s", key, value);
        return env_add(s, "GLIBC_TUNABLES", ":", text, err);
    }
    if (strcmp(s->alloc, "jemalloc") == 0) {
        snprintf(text, sizeof text, "%s:%s", key, value);
        return env_add(s, "MALLOC_CONF", ",", text, err);
    }
    const char *prefix = strcmp(s->alloc, "tcmalloc") == 0 ? "TCMALLOC_" : "MIMALLOC_";
    size_t n = strlen(prefix);
    memcpy(name, prefix, n);
    for (const char *k = key; *k && n < sizeof name - 1; k++) name[n++] = (char)toupper((unsigned char)*k);
    name[n] = 0;
    return env_add(s, name, NULL, value, err);
}

int rp_tune_parse(const char *spec, rp_tune_setting *s, hatf_err *err)
{
    memset(s, 0, sizeof *s);
    const char *colon = strchr(spec, ':');
    size_t an = colon ? (size_t)(colon - spec) : 0;
    const tune_alloc *a = NULL;
    for (size_t i = 0; colon && i < sizeof allocs / sizeof *allocs; i++)
        if (strlen(allocs[i].name) == an && strncmp(spec, allocs[i].name, an) == 0) a = &allocs[i];
    if (!a)
        return hatf_err_set(err, HATF_E_USAGE, 0, "setting '%s': not ALLOC:KEY=VALUE with ALLOC glibc, jemalloc, "
                            "tcmalloc or mimalloc", spec);
    snprintf(s->alloc, sizeof s->alloc, "%s", a->name);
    const char *body = colon + 1;
    if ((size_t)snprintf(s->label, sizeof s->label, "%s", *body ? body : "default") >= sizeof s->label)
        return hatf_err_set(err, HATF_E_USAGE, 0, "setting '%.64s...': too long", spec);
    while (*body) {
        char pair[RP_TUNE_ENV_LEN];
        size_t len = strcspn(body, ",");
        if (len >= sizeof pair) return hatf_err_set(err, HATF_E_USAGE, 0, "setting '%s': too long", spec);
        memcpy(pair, body, len);
        pair[len] = 0;
        body += len + (body[len] == ',');
        char *eq = strchr(pair, '=');
        if (!eq) return hatf_err_set(err, HATF_E_USAGE, 0, "setting '%s': '%s' is not KEY=VALUE", spec, pair);
        *eq = 0;
        const char *key = pair, *value = eq + 1;
        if (!word_ok(key, "") || !word_ok(value, ".-+"))
            return hatf_err_set(err, HATF_E_USAGE, 0, "setting '%s': '%s=%s': a key is letters, digits and _, "
                                "a value also . - +", spec, key, value);
        if (!key_known(a->keys, key))
            return hatf_err_set(err, HATF_E_USAGE, 0, "setting '%s': %s has no setting '%s' (it would ignore it "
                                "without a word; docs/replay.md, \"Tuning\")", spec, a->name, key);
        char why[128];
        if (!value_ok(a->name, key, value, why, sizeof why))
            return hatf_err_set(err, HATF_E_USAGE, 0, "setting '%s': %s (it would ignore '%s' without a word)", spec,
                                why, value);
        if (add_pair(s, key, value, err)) return err->code;
    }
    return 0;
}

int rp_tune_grid(const char *alloc, rp_tune_setting **set, unsigned *n)
{
    size_t an = strlen(alloc);
    for (const char *const *g = grid; *g; g++) {
        if (strncmp(*g, alloc, an) || (*g)[an] != ':') continue;
        rp_tune_setting *b = realloc(*set, (*n + 1) * sizeof **set);
        if (!b) return -1;
        *set = b;
        hatf_err e = { 0 };
        if (rp_tune_parse(*g, &b[*n], &e)) abort();  /* the grid is ours: a bad entry is a bug */
        b[(*n)++].builtin = 1;
    }
    return 0;
}

void rp_tune_env_line(const rp_tune_setting *s, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < s->nenv && len < cap; i++) {
        int n = snprintf(buf + len, cap - len, "%s%s", i ? " " : "", s->env[i]);
        if (n < 0) break;
        len += (size_t)n;
    }
}
