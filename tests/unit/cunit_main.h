/* cunit_main.h — the one main() of the CUnit test programs (cunit_main.c).
 *
 * A test program declares its suite, the suite's setup and cleanup (run before
 * and after its tests; either may be NULL) and its tests, and nothing else:
 *
 *     static CU_TestInfo tests[] = { { "basic", test_basic }, CU_TEST_INFO_NULL };
 *     CU_SuiteInfo ut_suites[] = { { .pName = "addrmap", .pTests = tests }, CU_SUITE_INFO_NULL };
 *
 * The program exits 1 when an assertion fails, a setup or cleanup returns
 * non-zero, or CUnit itself fails; 0 otherwise. */
#ifndef TEST_CUNIT_MAIN_H
#define TEST_CUNIT_MAIN_H
#include <stddef.h>
#include <stdint.h>

#include <CUnit/Basic.h>

extern CU_SuiteInfo ut_suites[];  /* ended by CU_SUITE_INFO_NULL */

/* A path in the program's scratch folder: the folder (under $TMPDIR, else /tmp)
 * followed by "/" and the printf-formatted name, in buf. The folder is made on
 * the first call and removed with all it holds when the tests have run; if it
 * cannot be made, the program says so and exits 1. @return buf */
char *ut_path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* xorshift64: advance *state (not 0) and return it, a repeatable pseudo-random
 * sequence for tests that draw many cases. */
static inline uint64_t ut_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
