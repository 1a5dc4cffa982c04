/* container_time.c — the writer's time resolution (see container_time.h). */
#include "container_time.h"
#include "hatf_check.h"

void hatf_tconv_init(hatf_tconv *c, uint64_t num, uint64_t den, uint64_t res_ns)
{
    HATF_PRE(num > 0 && den > 0 && res_ns > 0);
    unsigned __int128 d = (unsigned __int128)den * res_ns;
    c->num = num;
    c->d = d;
    unsigned __int128 whole = num / d, rest = num % d;
    c->fi = (uint64_t)whole;  /* num < 2^64 */
    while (d >> 64) { d >>= 1; rest >>= 1; }  /* keep rest << 64 in range (rest < d) */
    c->ff = (uint64_t)((rest << 64) / d);
    /* K = the factor * 2^64, rounded down, so the true factor is below K + 1:
     * (2^128 - 1) / (K + 1) is at most a tick count of a unit, and an estimate
     * of a unit's first tick from it never past that tick */
    unsigned __int128 k = (unsigned __int128)c->fi << 64 | c->ff;
    unsigned __int128 r = k + 1 ? ~(unsigned __int128)0 / (k + 1) : 0;
    c->ri = (uint64_t)(r >> 64);
    c->rf = (uint64_t)r;
    c->lo = c->span = c->u = 0;  /* no unit known */
}
