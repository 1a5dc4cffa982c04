/* test_sitefigures.c — the sites' figures computed in analyze/ for the
 * commands to print, on tests/golden/inputs/report-sites.txt (three stacks:
 * 1 and 2 share list_append and differ by its caller, 3's innermost frame is
 * in a module no symbol names; 700 bytes live at the peak): the flame
 * graphs' chains (folded.c), the groups by function (sitegroups.c), massif's
 * tree at the peak (massif.c) and the diff of two runs (sitediff.c). */
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "folded.h"
#include "massif.h"
#include "sitecount.h"
#include "sitediff.h"
#include "sitegroups.h"

static hatf_source *src;
static sitecount st;
static frames fr;

static int count(void)
{
    hatf_err err;
    if (!(src = hatf_source_open("tests/golden/inputs/report-sites.txt", HATF_FMT_TEXT, &err))) return -1;
    if (sitecount_init(&st) || frames_init(&fr, hatf_source_tables(src), 0, 0)) return -1;
    int rc, k = lookahead_run(src, sitecount_event, sitecount_prefetch, &st, &rc);
    sitecount_settle(&st);
    return k == 0 && st.n == 3 ? 0 : -1;
}

static void done(void)
{
    frames_free(&fr);
    sitecount_free(&st);
    hatf_source_close(src);
}

static void test_folded(void)
{
    CU_ASSERT_FATAL(count() == 0);
    folded_set s;
    CU_ASSERT_FATAL(folded_sorted(&s, st.v, st.n, &fr, SITES_SORT_COUNT) == 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 3);
    CU_ASSERT_STRING_EQUAL(s.v[0].chain, "main;load_rows;libsqlite3.so.0+0xa7504");
    CU_ASSERT_EQUAL(s.v[0].value[0], 2);
    CU_ASSERT_STRING_EQUAL(s.v[2].chain, "main;parse_args;list_append");
    folded_free(&s);
    /* the first site by any figure: every site is first by one of them, or not */
    CU_ASSERT_FATAL(folded_all(&s, st.v, st.n, &fr, 1) == 0);
    CU_ASSERT_EQUAL(s.totals[SITES_SORT_COUNT], 4);
    CU_ASSERT_EQUAL(s.totals[SITES_SORT_BYTES], 1000);
    CU_ASSERT(s.shown >= 1 && s.shown < 3);
    CU_ASSERT_EQUAL(s.n, s.shown);
    folded_free(&s);
    done();
}

static void test_groups(void)
{
    CU_ASSERT_FATAL(count() == 0);
    sitegroups g;
    CU_ASSERT_FATAL(sitegroups_make(&g, st.v, st.n, &fr, SITES_BY_FUNCTION, SITES_SORT_BYTES) == 0);
    CU_ASSERT_EQUAL_FATAL(g.ng, 2);
    CU_ASSERT_STRING_EQUAL(g.g[0].key, "libsqlite3.so.0+0xa7504");
    CU_ASSERT_EQUAL(g.g[0].sum.bytes, 700);
    CU_ASSERT_STRING_EQUAL(g.g[1].key, "list_append");
    CU_ASSERT_EQUAL(g.g[1].count, 2);
    CU_ASSERT_EQUAL(g.g[1].sum.at_peak_bytes, 300);
    CU_ASSERT_EQUAL(st.v[g.order[g.g[1].first]].bytes, 200);  /* by bytes within the group */
    sitegroups_free(&g);
    done();
}

typedef struct lines { char text[512]; size_t len; } lines;
static void put_line(void *ctx, const massif_line *l)
{
    lines *o = ctx;
    o->len += (size_t)snprintf(o->text + o->len, sizeof o->text - o->len, "%s%zu:%llu:%zu:%llx ", l->below ? "b" : "",
                               l->depth, (unsigned long long)l->bytes, l->children, (unsigned long long)l->place.addr);
}

static void test_massif(void)
{
    CU_ASSERT_FATAL(count() == 0);
    lines o = { "", 0 };
    CU_ASSERT_FATAL(massif_tree(&fr, st.v, st.n, 1, NULL, put_line, &o) == 0);
    CU_ASSERT_STRING_EQUAL(o.text, "0:700:2:0 1:400:1:7f00000a7504 2:400:1:401110 3:400:0:401320 "
                                   "1:300:2:401010 2:200:1:401210 3:200:0:401320 2:100:1:401110 3:100:0:401320 ");
    /* 1 % of the snapshot: a site of 1 byte beside 999 is summed below the threshold */
    uint64_t bytes[3] = { 0 };
    for (size_t i = 0; i < st.n; i++) bytes[i] = st.v[i].stack == 1 ? 1 : st.v[i].stack == 2 ? 999 : 0;
    o.len = 0;
    CU_ASSERT_FATAL(massif_tree(&fr, st.v, st.n, 0, bytes, put_line, &o) == 0);
    CU_ASSERT(strstr(o.text, "b2:1:1:0 ") != NULL);
    done();
}

static void test_diff(void)
{
    CU_ASSERT_FATAL(count() == 0);
    site after[3];
    memcpy(after, st.v, sizeof after);
    for (size_t i = 0; i < 3; i++)
        if (after[i].stack == 1) after[i].calls += 3;
    const sitediff_side sides[2] = { { st.v, st.n, &fr }, { after, 3, &fr } };
    for (int by = SITES_BY_STACK; by <= SITES_BY_FUNCTION; by++) {
        sitediff d;
        CU_ASSERT_FATAL(sitediff_make(&d, sides, by, SITES_SORT_COUNT) == 0);
        CU_ASSERT_EQUAL_FATAL(d.n, 1);
        CU_ASSERT_STRING_EQUAL(d.v[0].key, by == SITES_BY_STACK ? "main;load_rows;list_append" : "list_append");
        CU_ASSERT_EQUAL(sitediff_delta(&d.v[0], SITES_SORT_COUNT), 3);
        CU_ASSERT_EQUAL(d.nkeys[0], by == SITES_BY_STACK ? 3 : 2);
        sitediff_free(&d);
    }
    const sitediff_side same[2] = { { st.v, st.n, &fr }, { st.v, st.n, &fr } };
    sitediff d;
    CU_ASSERT_FATAL(sitediff_make(&d, same, SITES_BY_STACK, SITES_SORT_BYTES) == 0);
    CU_ASSERT_EQUAL(d.n, 0);
    sitediff_free(&d);
    done();
}

static CU_TestInfo tests[] = {
    { "flame graphs' chains", test_folded },
    { "groups by function", test_groups },
    { "massif's tree", test_massif },
    { "the diff of two runs", test_diff },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = { { .pName = "sitefigures", .pTests = tests }, CU_SUITE_INFO_NULL };
