/* cunit_main.c — registers the test program's suites (cunit_main.h), runs them
 * verbosely, removes the scratch folder and turns every kind of failure into
 * the exit status. */
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cunit_main.h"

static char scratch[256];

char *ut_path(char *buf, size_t size, const char *fmt, ...)
{
    if (!scratch[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(scratch, sizeof scratch, "%s/hatrace-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(scratch)) {
            perror(scratch);
            exit(1);
        }
    }
    int n = snprintf(buf, size, "%s/", scratch);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < size) vsnprintf(buf + n, size - (size_t)n, fmt, ap);
    va_end(ap);
    return buf;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    if (remove(path)) perror(path);
    return 0;
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    if (CU_register_suites(ut_suites) != CUE_SUCCESS) {
        fprintf(stderr, "cannot register the tests: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_ErrorCode rc = CU_basic_run_tests();
    /* a suite whose setup failed runs no test: count it, not only failed assertions */
    const CU_RunSummary *sum = CU_get_run_summary();
    unsigned bad = CU_get_number_of_failures() + sum->nSuitesFailed + sum->nTestsFailed;
    CU_cleanup_registry();
    if (scratch[0]) nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return rc != CUE_SUCCESS || bad ? 1 : 0;
}
