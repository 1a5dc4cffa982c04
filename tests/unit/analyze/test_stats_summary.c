/* test_stats_summary.c — stats_summary_only (hatrace record's closing figures,
 * stats of several traces) gives every figure of stats_summary as the whole
 * count does, on the golden inputs (heaps and their destroys, failed calls,
 * reallocs of every kind, unknown frees, comments and signals), and counts
 * nothing per thread, heap or size. */
#include <string.h>

#include "cunit_main.h"
#include "lookahead.h"
#include "stats.h"

static const char *const inputs[] = {
    "basic.txt", "comments.txt", "heaps.txt", "mismatch.txt", "problems.txt", "sites-heaps.txt",
    "sized.txt", "stacks.txt", "timeline.txt", "coding2.txt",
};

/* inputs[i] counted whole or summary only. @return the counts, NULL if it could not be read. */
static stats *count(const char *name, int summary)
{
    char path[256];
    snprintf(path, sizeof path, "tests/golden/inputs/%s", name);
    hatf_err err;
    hatf_source *s = hatf_source_open(path, HATF_FMT_TEXT, &err);
    if (!s) return NULL;
    stats *st = stats_new(s);
    if (st && summary) stats_summary_only(st);
    int rc;
    if (st && lookahead_run(s, stats_count, stats_prefetch, st, &rc) != 0) {
        stats_free(st);
        st = NULL;
    }
    hatf_source_close(s);
    return st;
}

static void test_same_figures(void)
{
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        stats *whole = count(inputs[i], 0), *part = count(inputs[i], 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
        CU_ASSERT_PTR_NOT_NULL_FATAL(part);
        stats_summary a, b;
        stats_figures(whole, &a);
        stats_figures(part, &b);
        CU_ASSERT(a.records > 0);
        CU_ASSERT_EQUAL(a.records, b.records);
        CU_ASSERT_EQUAL(a.allocs, b.allocs);
        CU_ASSERT_EQUAL(a.frees, b.frees);
        CU_ASSERT_EQUAL(a.reallocs, b.reallocs);
        CU_ASSERT_EQUAL(a.max_live_objects, b.max_live_objects);
        CU_ASSERT_EQUAL(a.max_live_bytes, b.max_live_bytes);
        CU_ASSERT_EQUAL(a.live_objects, b.live_objects);
        CU_ASSERT_EQUAL(a.live_bytes, b.live_bytes);
        CU_ASSERT_EQUAL(a.temporary, b.temporary);
        CU_ASSERT_EQUAL(a.total_bytes, b.total_bytes);
        CU_ASSERT_EQUAL(a.first_time, b.first_time);
        CU_ASSERT_EQUAL(a.last_time, b.last_time);
        CU_ASSERT_EQUAL(a.died, b.died);
        CU_ASSERT_EQUAL(a.signals_handled, b.signals_handled);
        CU_ASSERT_EQUAL(whole->unknown_frees, part->unknown_frees);
        CU_ASSERT_EQUAL(whole->failed_allocs, part->failed_allocs);
        /* the detail is left out */
        CU_ASSERT(whole->threads.n > 0);
        CU_ASSERT_EQUAL(part->threads.n, 0);
        uint64_t h = 0;
        for (unsigned k = 0; k < HIST_BUCKETS; k++) h += part->hist[k];
        CU_ASSERT_EQUAL(h, 0);
        stats_free(whole);
        stats_free(part);
    }
}

/* heaps.txt destroys a heap with objects live in it: the summary's live
 * figures drop by them as the whole count's do. */
static void test_destroy(void)
{
    stats *whole = count("heaps.txt", 0), *part = count("heaps.txt", 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
    CU_ASSERT_PTR_NOT_NULL_FATAL(part);
    uint64_t ended = 0;
    for (size_t i = 0; i < whole->heaps.n; i++) ended += whole->heaps.v[i].destroy_frees;
    CU_ASSERT(ended > 0);
    CU_ASSERT_EQUAL(whole->live_objects, part->live_objects);
    CU_ASSERT_EQUAL(whole->live_bytes, part->live_bytes);
    stats_free(whole);
    stats_free(part);
}

static CU_TestInfo tests[] = {
    { "summary only: the same figures", test_same_figures },
    { "summary only: heap destroys", test_destroy },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "stats summary", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
