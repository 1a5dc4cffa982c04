/* test_strtab.c — distinct strings by number (analyze/strtab.c): numbers in
 * order of first use, the same string the same number, many strings (the
 * table grows) all kept apart, the empty string a string like any other. */
#include <stdio.h>
#include <string.h>

#include "cunit_main.h"
#include "strtab.h"

static void test_numbers(void)
{
    strtab t;
    CU_ASSERT_FATAL(strtab_init(&t) == 0);
    int added;
    CU_ASSERT_EQUAL(strtab_id(&t, "", &added), 0);
    CU_ASSERT(added);
    CU_ASSERT_EQUAL(strtab_id(&t, "main", &added), 1);
    CU_ASSERT(added);
    CU_ASSERT_EQUAL(strtab_id(&t, "", &added), 0);
    CU_ASSERT(!added);
    CU_ASSERT_EQUAL(strtab_id(&t, "main", NULL), 1);
    CU_ASSERT_EQUAL(t.n, 2);
    CU_ASSERT_STRING_EQUAL(t.v[1], "main");
    strtab_free(&t);
}

static void test_many(void)
{
    strtab t;
    CU_ASSERT_FATAL(strtab_init(&t) == 0);
    char s[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(s, sizeof s, "f%d", i);
        CU_ASSERT_EQUAL(strtab_id(&t, s, NULL), i);
    }
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        snprintf(s, sizeof s, "f%d", i);
        bad += strtab_id(&t, s, NULL) != i || strcmp(t.v[i], s) != 0;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(t.n, 20000);
    strtab_free(&t);
}

static CU_TestInfo tests[] = {
    { "numbers in order of first use", test_numbers },
    { "many strings", test_many },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = { { .pName = "strtab", .pTests = tests }, CU_SUITE_INFO_NULL };
