/* check.h — HATF_PRE(cond), the contract check of `pre:` comments, for the
 * layers above libhatf (analyze/, replay/, cli/): libhatf's own macro
 * (hatf/hatf_check.h says what it does; on in make test and make check,
 * nothing in release builds). */
#ifndef ANALYZE_CHECK_H
#define ANALYZE_CHECK_H

#include "../hatf/hatf_check.h"

#endif
