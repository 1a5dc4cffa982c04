/* test_hatan_api.c — libhatanalyze's API (analyze/hatan_api.c): stats'
 * figures of a file equal those of its rows given back as columns (every
 * golden input: failed calls, heap destroys, double frees, comments), and
 * those of a selection of the rows are the figures of those events alone;
 * bad columns are refused; the stacks' frames come in stack order with the
 * stored names; hatan_stats_json gives stats --json's text (its golden). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "hatan_api.h"

typedef struct rows {
    uint64_t time[4096], thread[4096], heap[4096], size[4096], address[4096], old_address[4096];
    uint8_t op[4096], failed[4096];
    size_t n;
} rows;

static hatf_columns columns_of(rows *r, size_t from)
{
    return (hatf_columns){ .time = r->time + from, .thread = r->thread + from, .heap = r->heap + from,
                           .size = r->size + from, .address = r->address + from,
                           .old_address = r->old_address + from, .op = r->op + from, .failed = r->failed + from };
}

static int read_rows(const char *path, rows *r)
{
    hatf_err err;
    hatf_source *s = hatf_source_open(path, HATF_FMT_TEXT, &err);
    if (!s) return -1;
    hatf_columns c = columns_of(r, 0);
    int n = hatf_source_read_columns(s, &c, 4096);
    hatf_source_close(s);
    r->n = n > 0 ? (size_t)n : 0;
    return n < 0 ? -1 : 0;
}

static void test_file_equals_rows(void)
{
    glob_t g;
    CU_ASSERT_FATAL(glob("tests/golden/inputs/*.txt", 0, NULL, &g) == 0);
    CU_ASSERT(g.gl_pathc >= 10);
    static rows r;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        hatan_figures file, cols;
        hatf_err err;
        CU_ASSERT_EQUAL_FATAL(hatan_stats_file(g.gl_pathv[i], HATF_FMT_TEXT, 1, 1, &file, &err), 0);
        CU_ASSERT_FATAL(read_rows(g.gl_pathv[i], &r) == 0);
        hatf_columns c = columns_of(&r, 0);
        CU_ASSERT_EQUAL(hatan_stats_columns(&c, r.n, &cols), 0);
        if (memcmp(&file, &cols, sizeof file)) {
            fprintf(stderr, "%s: the rows' figures differ from the file's\n", g.gl_pathv[i]);
            CU_FAIL("rows against file");
        }
        CU_ASSERT_EQUAL(file.records, r.n);
    }
    globfree(&g);
}

static void test_selection(void)
{
    static rows r;
    CU_ASSERT_FATAL(read_rows("tests/golden/inputs/basic.txt", &r) == 0);
    CU_ASSERT_FATAL(r.n > 4);
    hatan_figures all, tail;
    hatf_columns c = columns_of(&r, 0), t = columns_of(&r, 2);
    CU_ASSERT_EQUAL(hatan_stats_columns(&c, r.n, &all), 0);
    CU_ASSERT_EQUAL(hatan_stats_columns(&t, r.n - 2, &tail), 0);
    CU_ASSERT_EQUAL(tail.records, all.records - 2);
    CU_ASSERT_EQUAL(hatan_stats_columns(&c, 0, &all), 0);
    CU_ASSERT(all.records == 0 && all.max_live_bytes == 0);
}

static void test_bad_columns(void)
{
    static rows r;
    CU_ASSERT_FATAL(read_rows("tests/golden/inputs/basic.txt", &r) == 0);
    hatan_figures out;
    hatf_columns c = columns_of(&r, 0);
    c.failed = NULL;
    CU_ASSERT_EQUAL(hatan_stats_columns(&c, r.n, &out), HATF_E_USAGE);
    c = columns_of(&r, 0);
    r.op[r.n - 1] = HATF_OP_COUNT_;
    CU_ASSERT_EQUAL(hatan_stats_columns(&c, r.n, &out), HATF_E_USAGE);
    hatf_err err;
    CU_ASSERT(hatan_stats_file("tests/golden/inputs/no-such-file", HATF_FMT_TEXT, 1, 1, &out, &err) < 0);
    CU_ASSERT(strstr(err.msg, "no-such-file") != NULL || err.code == HATF_E_IO);
}

static void test_frames(void)
{
    hatf_err err;
    hatan_frames *f = hatan_frames_open("tests/golden/inputs/report-sites.txt", HATF_FMT_TEXT, 0, &err);
    CU_ASSERT_FATAL(f != NULL);
    hatan_frame x;
    char got[1024] = "";
    size_t k = 0;
    while (hatan_frames_next(f, &x))
        k += (size_t)snprintf(got + k, sizeof got - k, "%llu.%llu %s %s+%llu; ", (unsigned long long)x.stack,
                              (unsigned long long)x.depth, x.module, x.function, (unsigned long long)x.function_offset);
    CU_ASSERT_STRING_EQUAL(got, "1.0 prog list_append+16; 1.1 prog load_rows+16; 1.2 prog main+32; "
                                "2.0 prog list_append+16; 2.1 prog parse_args+16; 2.2 prog main+32; "
                                "3.0 libsqlite3.so.0 +0; 3.1 prog load_rows+16; 3.2 prog main+32; ");
    CU_ASSERT_EQUAL(hatan_frames_next(f, &x), 0);
    hatan_frames_close(f);
    CU_ASSERT_EQUAL(hatan_api_version(), HATAN_API_VERSION);
}

/* The golden of stats --json --from text ../inputs/basic.txt (run from its folder). */
static void test_stats_json(void)
{
    hatf_err err;
    char *json = NULL, want[4096];
    CU_ASSERT_EQUAL_FATAL(hatan_stats_json("tests/golden/inputs/basic.txt", HATF_FMT_TEXT, 1, 1, &json, &err), 0);
    FILE *f = fopen("tests/golden/text-stats-json/expected", "r");
    CU_ASSERT_FATAL(f != NULL);
    size_t n = fread(want, 1, sizeof want - 1, f);
    fclose(f);
    want[n] = 0;
    const char *name = "\"file\": \"tests/golden/inputs/basic.txt\"", *golden = "\"file\": \"../inputs/basic.txt\"";
    char *at = strstr(want, golden);
    CU_ASSERT_FATAL(at != NULL && strstr(json, name) != NULL);
    CU_ASSERT_STRING_EQUAL(strstr(json, name) + strlen(name), at + strlen(golden));  /* after the name */
    CU_ASSERT_EQUAL(strncmp(json, want, (size_t)(at - want)), 0);                      /* before it */
    hatan_free(json);
    CU_ASSERT(hatan_stats_json("tests/golden/inputs/no-such-file", HATF_FMT_TEXT, 1, 1, &json, &err) < 0);
    CU_ASSERT(json == NULL);
}

static CU_TestInfo tests[] = {
    { "a file's figures are its rows'", test_file_equals_rows },
    { "a selection of rows", test_selection },
    { "bad columns refused", test_bad_columns },
    { "the stacks' frames", test_frames },
    { "stats --json's text", test_stats_json },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = { { .pName = "hatan_api", .pTests = tests }, CU_SUITE_INFO_NULL };
