/* touch.c — how much of each block the runner writes with --touch page.
 *
 * A program may ask for more than it uses: 512 MB of blocks of which it
 * writes 57 MB stays 57 MB resident, and a replay that writes every page of
 * every block measures 489 MiB. The trace's resident samples (the recorder's
 * own memory taken out) say what the program kept resident; beside the live
 * bytes at the sample's moment (noted by the compiler in global order) they
 * give the share of its live bytes it touched. The share is the largest
 * resident / live over the samples taken while at least half of the peak was
 * live (earlier ones are mostly the program's code and stacks), at most 1:
 * every page when the samples show it all resident, when no sample fell
 * near the peak, or when the trace has none (docs/replay.md, "Touching").
 */
#include "replay.h"

void rp_touch_begin(rp_touch *t, const hatf_resident *res, size_t n, uint64_t unit_num, uint64_t unit_den)
{
    t->n = t->i = 0;
    if (!unit_num || !unit_den) return;
    if (n > RP_TOUCH_SAMPLES) n = RP_TOUCH_SAMPLES;  /* the first ones: a long trace's peak is seldom past them */
    for (size_t k = 0; k < n; k++) {
        unsigned __int128 u = (unsigned __int128)res[k].time_ns * unit_den / unit_num;
        t->at[k] = u > UINT64_MAX ? UINT64_MAX : (uint64_t)u;
        t->resident[k] = res[k].bytes - res[k].own;
        t->live[k] = 0;
    }
    t->n = n;
}

uint32_t rp_touch_share(const rp_touch *t, uint64_t peak_live)
{
    double best = 0;
    for (size_t k = 0; k < t->i; k++)
        if (t->live[k] && t->live[k] >= peak_live / 2) {
            double r = (double)t->resident[k] / (double)t->live[k];
            if (r > best) best = r;
        }
    if (best == 0 || best >= 1) return RP_TOUCH_FULL;
    uint32_t s = (uint32_t)(best * RP_TOUCH_FULL);
    return s ? s : 1;
}
