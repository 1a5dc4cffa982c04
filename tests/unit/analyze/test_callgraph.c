/* test_callgraph.c — callers and callees from the sites' chains
 * (analyze/callgraph.c), on the stacks of a text trace: self and inclusive
 * figures, a recursive function counted once per site, the operator new a
 * chain starts with left out (but a chain of operator new alone kept), a
 * frame nothing names by its module and address in it, a site without a stack
 * left out, each side's edges by bytes, most first. */
#include <stdio.h>
#include <string.h>

#include "callgraph.h"
#include "cunit_main.h"
#include "hatf_source.h"

static const char trace[] =
    "#hatrace-text 1\n"
    "#module 1 0x400000 0x420000 0x0 - \"/opt/t/prog\"\n"
    "#symbol 0x401010 1 0x10 \"_Znwm\"\n"
    "#symbol 0x401110 1 0x10 \"leaf\"\n"
    "#symbol 0x401210 1 0x10 \"mid\"\n"
    "#symbol 0x401320 1 0x20 \"main\"\n"
    "#symbol 0x401420 1 0x20 \"rec\"\n"
    "#stack 1 0x401010 0x401110 0x401210 0x401320\n"
    "#stack 2 0x401110 0x401320\n"
    "#stack 3 0x401420 0x401420 0x401320\n"
    "#stack 4 0x401010\n"
    "#stack 5 0x405000\n"
    "1 1 0 alloc 8 0x1000 stack=1\n";

/* fn's number, or -1 */
static long fn_of(const callgraph *g, const char *name)
{
    for (size_t i = 0; i < g->nfns; i++)
        if (strcmp(callgraph_name(g, g->fns[i].name), name) == 0) return (long)i;
    return -1;
}

/* fn's callers, then its callees, as "name:bytes ... | name:bytes ..." in their order */
static const char *edges(const callgraph *g, long fn)
{
    static char out[512];
    const callgraph_fn *e = &g->fns[fn];
    size_t k = 0;
    for (uint32_t up = 2; up-- > 0;) {
        if (!up) k += (size_t)snprintf(out + k, sizeof out - k, " |");
        for (size_t j = e->first_edge; j < e->first_edge + e->nedges; j++) {
            const callgraph_edge *x = &g->edges[j];
            if (x->up != up) continue;
            size_t o = callgraph_other(g, x);
            const char *name = o < g->nfns ? callgraph_name(g, g->fns[o].name)
                               : o == g->nfns ? CALLGRAPH_OUTERMOST : CALLGRAPH_HERE;
            k += (size_t)snprintf(out + k, sizeof out - k, "%s%s:%llu", up && !k ? "" : " ", name,
                                  (unsigned long long)x->x.bytes);
        }
    }
    return out;
}

static void test_chains(void)
{
    char path[512];
    FILE *f = fopen(ut_path(path, sizeof path, "callgraph.txt"), "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(trace, f);
    fclose(f);
    hatf_err err;
    hatf_source *s = hatf_source_open(path, HATF_FMT_TEXT, &err);
    CU_ASSERT_FATAL(s != NULL);
    frames fr;
    CU_ASSERT_FATAL(frames_init(&fr, hatf_source_tables(s), 1, 0) == 0);
    callgraph g;
    CU_ASSERT_FATAL(callgraph_init(&g) == 0);
    /* stack, calls, bytes, live (leaked), temporary, at the peak */
    static const site sites[] = {
        { .stack = 1, .calls = 1, .bytes = 10, .live_bytes = 1, .temporary = 1, .at_peak_bytes = 5 },
        { .stack = 2, .calls = 2, .bytes = 20, .live_bytes = 2, .temporary = 0, .at_peak_bytes = 6 },
        { .stack = 3, .calls = 4, .bytes = 40 },
        { .stack = 4, .calls = 8, .bytes = 80 },
        { .stack = 0, .calls = 16, .bytes = 160 },
        { .stack = 5, .calls = 32, .bytes = 320 },
    };
    for (size_t i = 0; i < sizeof sites / sizeof *sites; i++) {
        const uint64_t *fs;
        size_t n = sites_stack(fr.r, sites[i].stack, &fs);
        CU_ASSERT_EQUAL(callgraph_add(&g, &fr, &sites[i], fs, n), 0);
    }
    callgraph_finish(&g);
    CU_ASSERT_EQUAL(g.sites, 5);  /* not the one without a stack */
    CU_ASSERT_EQUAL(g.nfns, 6);
    long leaf = fn_of(&g, "leaf"), mid = fn_of(&g, "mid"), main_ = fn_of(&g, "main"), rec = fn_of(&g, "rec");
    long opnew = fn_of(&g, "operator new(unsigned long)"), anon = fn_of(&g, "prog+0x405000");
    /* in order of first use */
    CU_ASSERT(leaf == 0 && mid == 1 && main_ == 2 && rec == 3 && opnew == 4 && anon == 5);
    const callgraph_fn *e = &g.fns[leaf];
    CU_ASSERT(e->self.calls == 3 && e->self.bytes == 30 && e->self.leaked_bytes == 3 && e->self.temporary == 1 &&
              e->self.at_peak_bytes == 11);
    CU_ASSERT(e->incl.calls == 3 && e->incl.bytes == 30);
    CU_ASSERT_STRING_EQUAL(edges(&g, leaf), "main:20 mid:10 | (allocates here):30");
    CU_ASSERT(g.fns[mid].self.calls == 0 && g.fns[mid].incl.bytes == 10);
    e = &g.fns[main_];
    CU_ASSERT(e->self.calls == 0 && e->incl.calls == 7 && e->incl.bytes == 70);
    CU_ASSERT_STRING_EQUAL(edges(&g, main_), "(outermost: no caller):70 | rec:40 leaf:20 mid:10");
    /* recursion: once per site, through its innermost call */
    e = &g.fns[rec];
    CU_ASSERT(e->self.bytes == 40 && e->incl.bytes == 40 && e->incl.calls == 4);
    CU_ASSERT_STRING_EQUAL(edges(&g, rec), "rec:40 | (allocates here):40");
    /* a chain of operator new alone keeps it */
    CU_ASSERT(g.fns[opnew].self.bytes == 80 && g.fns[opnew].incl.bytes == 80);
    CU_ASSERT_STRING_EQUAL(edges(&g, opnew), "(outermost: no caller):80 | (allocates here):80");
    CU_ASSERT(g.fns[anon].self.bytes == 320);
    callgraph_free(&g);
    frames_free(&fr);
    hatf_source_close(s);
}

static CU_TestInfo tests[] = {
    { "chains, self, inclusive, callers and callees", test_chains },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = { { .pName = "callgraph", .pTests = tests }, CU_SUITE_INFO_NULL };
