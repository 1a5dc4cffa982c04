/* hatf_check.h — the project's contract checks (not installed).
 *
 * HATF_PRE(cond) checks a precondition stated in a `pre:` comment. With
 * HATF_CHECKS defined (make test and make check build with it: CHECKS=1,
 * see the Makefile) a false cond writes "FILE:LINE: pre: cond" to stderr
 * with one write(2), no allocation and no lock, so it is safe inside the
 * recorder's hooks and signal handlers, and aborts. Without HATF_CHECKS it
 * compiles to nothing and cond is not evaluated: release builds pay nothing,
 * on the recorder's hot path too. A condition that cannot be tested cheaply
 * at the function's entry (no end given with a pointer, a pass over the
 * input) is written `pre, not checked (why):` instead.
 *
 * Seen by libhatf, by the recorder (through hatf_recorder.h) and by the layers
 * above (analyze/check.h).
 */
#ifndef HATF_CHECK_H
#define HATF_CHECK_H

#ifdef HATF_CHECKS
#define HATF_PRE_STR2_(x) #x
#define HATF_PRE_STR_(x) HATF_PRE_STR2_(x)
#define HATF_PRE(cond) \
    (__builtin_expect(!!(cond), 1) ? (void)0 \
                                   : hatf_pre_failed_(__FILE__ ":" HATF_PRE_STR_(__LINE__) ": pre: " #cond "\n"))
/* Write msg to stderr (write(2), nothing allocated), then abort (common.c). */
void hatf_pre_failed_(const char *msg) __attribute__((noreturn, cold));
#else
#define HATF_PRE(cond) ((void)0)
#endif

#endif
