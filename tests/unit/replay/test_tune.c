/* test_tune.c — replay --tune's settings (the environment each one sets, keys
 * refused) and figures (median and min-max over runs, the Pareto front, the
 * best for each objective, the spread test). */
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "tune.h"

static void parse_ok(const char *spec, rp_tune_setting *s)
{
    hatf_err e = { 0 };
    CU_ASSERT_EQUAL_FATAL(rp_tune_parse(spec, s, &e), 0);
}

static void test_parse(void)
{
    rp_tune_setting s;
    char line[RP_TUNE_KEYS * RP_TUNE_ENV_LEN];
    parse_ok("glibc:arena_max=2,trim_threshold=65536", &s);
    CU_ASSERT_STRING_EQUAL(s.alloc, "glibc");
    CU_ASSERT_STRING_EQUAL(s.label, "arena_max=2,trim_threshold=65536");
    CU_ASSERT_EQUAL(s.nenv, 1);
    CU_ASSERT_STRING_EQUAL(s.env[0], "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=65536");
    parse_ok("jemalloc:dirty_decay_ms=0,narenas=1", &s);
    CU_ASSERT_STRING_EQUAL(s.env[0], "MALLOC_CONF=dirty_decay_ms:0,narenas:1");
    parse_ok("tcmalloc:release_rate=10,aggressive_decommit=true", &s);
    CU_ASSERT_EQUAL(s.nenv, 2);
    rp_tune_env_line(&s, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "TCMALLOC_RELEASE_RATE=10 TCMALLOC_AGGRESSIVE_DECOMMIT=true");
    parse_ok("mimalloc:decommit_delay=0", &s);
    CU_ASSERT_STRING_EQUAL(s.env[0], "MIMALLOC_DECOMMIT_DELAY=0");
    parse_ok("glibc:trim_threshold=0x10000,check=3", &s);
    parse_ok("mimalloc:reserve_huge_os_pages=-1,page_reset=on", &s);
    parse_ok("mimalloc:", &s);
    CU_ASSERT_STRING_EQUAL(s.label, "default");
    CU_ASSERT_EQUAL(s.nenv, 0);
    rp_tune_env_line(&s, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "");

    static const char *const bad[] = {
        "glibc", "null:x=1", ":arena_max=1", "glibc:arena_max", "glibc:arena_max=", "glibc:=1",
        "glibc:arena_maximum=1",        /* glibc would ignore it */
        "mimalloc:purge_delay=0",       /* mimalloc 2.0.9 would ignore it */
        "tcmalloc:release=1", "glibc:arena_max=1;rm", "jemalloc:narenas=1 2",
        "tcmalloc:release_rate=1,release_rate=2",  /* one variable each */
        "glibc:arena_max=0", "glibc:check=4", "glibc:trim_threshold=big", "glibc:mmap_threshold=-1",
        "mimalloc:decommit_delay=soon",            /* out of range or no number: ignored */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hatf_err e = { 0 };
        CU_ASSERT_EQUAL(rp_tune_parse(bad[i], &s, &e), HATF_E_USAGE);
        CU_ASSERT(e.msg[0] != 0);
    }
}

static void test_grid(void)
{
    rp_tune_setting *set = NULL;
    unsigned n = 0;
    CU_ASSERT_EQUAL_FATAL(rp_tune_grid("glibc", &set, &n), 0);
    CU_ASSERT_FATAL(n >= 4);
    CU_ASSERT_STRING_EQUAL(set[0].label, "default");  /* the defaults first */
    unsigned arenas = 0;
    for (unsigned i = 0; i < n; i++) {
        CU_ASSERT(set[i].builtin);
        CU_ASSERT_STRING_EQUAL(set[i].alloc, "glibc");
        arenas += strncmp(set[i].label, "arena_max=", 10) == 0;
    }
    CU_ASSERT(arenas >= 2);
    unsigned before = n;
    CU_ASSERT_EQUAL_FATAL(rp_tune_grid("jemalloc", &set, &n), 0);
    CU_ASSERT(n > before);
    CU_ASSERT_STRING_EQUAL(set[before].alloc, "jemalloc");
    free(set);
}

static rp_tune_setting settings[4];

/* A row of medians rss (MiB) and ops/s, with the given spread. */
static rp_tune_row row(unsigned i, const char *spec, double rss, double ops, double p99, double spread)
{
    parse_ok(spec, &settings[i]);
    rp_tune_row r = { .s = &settings[i], .runs = 3 };
    r.fig[RP_TF_PEAK_RSS] = (rp_tune_stat){ rss, rss - spread, rss + spread };
    r.fig[RP_TF_OPS_PER_S] = (rp_tune_stat){ ops, ops - spread, ops + spread };
    r.fig[RP_TF_P99_NS] = (rp_tune_stat){ p99, p99, p99 };
    return r;
}

static void test_figures(void)
{
    rp_result runs[3];
    memset(runs, 0, sizeof runs);
    uint64_t rss[3] = { 30, 10, 20 };
    double ops[3] = { 5, 7, 6 };
    for (unsigned i = 0; i < 3; i++) {
        runs[i].peak_rss_bytes = rss[i];
        runs[i].ops_per_s = ops[i];
        runs[i].lat_count[RP_LAT_MALLOC] = runs[i].lat_count[RP_LAT_FREE] = 10;
        runs[i].lat_ns[RP_LAT_MALLOC][1] = 100;
        runs[i].lat_ns[RP_LAT_FREE][1] = 200 + i;  /* the slowest kind's p99 */
        runs[i].lat_ns[RP_LAT_REALLOC][1] = 9999;  /* not timed: left out */
    }
    rp_tune_row r = { 0 };
    rp_tune_summarize(runs, 3, &r);
    CU_ASSERT_EQUAL(r.runs, 3);
    CU_ASSERT_DOUBLE_EQUAL(r.fig[RP_TF_PEAK_RSS].med, 20, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.fig[RP_TF_PEAK_RSS].min, 10, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.fig[RP_TF_PEAK_RSS].max, 30, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.fig[RP_TF_OPS_PER_S].med, 6, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.fig[RP_TF_P99_NS].med, 201, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.fig[RP_TF_P99_NS].max, 202, 1e-9);
}

static void test_front_best(void)
{
    rp_tune_row rows[4] = {
        row(0, "glibc:", 100, 10, 50, 1),                  /* the defaults */
        row(1, "glibc:arena_max=1", 20, 8, 80, 1),         /* least memory */
        row(2, "glibc:arena_max=4", 60, 20, 40, 1),        /* most speed, least latency */
        row(3, "glibc:tcache_count=0", 70, 9, 90, 1),      /* beaten by arena_max=1 on both */
    };
    rp_tune_front(rows, 4);
    CU_ASSERT(!rows[0].pareto && rows[1].pareto && rows[2].pareto && !rows[3].pareto);
    for (unsigned i = 0; i < 4; i++) CU_ASSERT_EQUAL(rows[i].def, 0);
    CU_ASSERT_EQUAL(rp_tune_best(rows, 4, RP_OBJ_RSS), 1);
    CU_ASSERT_EQUAL(rp_tune_best(rows, 4, RP_OBJ_THROUGHPUT), 2);
    CU_ASSERT_EQUAL(rp_tune_best(rows, 4, RP_OBJ_LATENCY), 2);
    /* balanced: arena_max=1 costs 20/8 - 1 = 1.5 of speed, arena_max=4 60/20 - 1 = 2 of memory */
    CU_ASSERT_EQUAL(rp_tune_best(rows, 4, RP_OBJ_BALANCED), 1);
    CU_ASSERT(rp_tune_apart(&rows[1], &rows[0], RP_TF_PEAK_RSS));
    rows[1].fig[RP_TF_PEAK_RSS].max = 100;  /* ranges that overlap: noise */
    CU_ASSERT(!rp_tune_apart(&rows[1], &rows[0], RP_TF_PEAK_RSS));
    /* a failed setting is never on the front nor the best; all failed: no best */
    rows[1].failed = 1;
    rp_tune_front(rows, 4);
    CU_ASSERT(!rows[1].pareto && rows[2].pareto && !rows[3].pareto);
    CU_ASSERT_EQUAL(rp_tune_best(rows, 4, RP_OBJ_RSS), 2);
    for (unsigned i = 0; i < 4; i++) rows[i].failed = 1;
    rp_tune_front(rows, 4);
    CU_ASSERT_EQUAL(rp_tune_best(rows, 4, RP_OBJ_RSS), -1);
    CU_ASSERT_EQUAL(rows[2].def, -1);
}

static CU_TestInfo tests[] = {
    { "parse", test_parse },
    { "grid", test_grid },
    { "figures", test_figures },
    { "front_best", test_front_best },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = { { .pName = "tune", .pTests = tests }, CU_SUITE_INFO_NULL };
