/* container_time.c — the writer's time resolution (see container_time.h). */
#include "container_time.h"

void hatf_tconv_init(hatf_tconv *c, uint64_t num, uint64_t den, uint64_t res_ns)
{
    unsigned __int128 d = (unsigned __int128)den * res_ns;
    unsigned __int128 whole = num / d, rest = num % d;
    c->fi = (uint64_t)whole;  /* num < 2^64 */
    while (d >> 64) { d >>= 1; rest >>= 1; }  /* keep rest << 64 in range (rest < d) */
    c->ff = (uint64_t)((rest << 64) / d);
}
