/* tune_figures.c — the figures of each setting over its runs, the Pareto
 * front and the best setting for an objective (docs/replay.md, "Tuning"). */
#include <string.h>

#include "tune.h"

const char *const rp_tune_figure_keys[RP_TF_COUNT_] = {
    "peak_rss_bytes", "frag_time_avg", "frag_at_peak_live", "frag_at_peak_rss", "frag_peak_over_peak",
    "ops_per_s", "p99_ns",
};
const char *const rp_tune_objective_names[4] = { "rss", "throughput", "latency", "balanced" };

/* The slowest call kind's p99: the tail a caller of the allocator sees. */
static double p99(const rp_result *r)
{
    double m = 0;
    for (unsigned k = 0; k < RP_LAT_COUNT_; k++)
        if (r->lat_count[k] && r->lat_ns[k][1] > m) m = r->lat_ns[k][1];
    return m;
}

static double figure(const rp_result *r, unsigned fig)
{
    switch (fig) {
    case RP_TF_PEAK_RSS: return (double)r->peak_rss_bytes;
    case RP_TF_FRAG_TIME: return r->frag_time_avg;
    case RP_TF_FRAG_PEAK_LIVE: return r->frag_at_peak_live;
    case RP_TF_FRAG_PEAK_RSS: return r->frag_at_peak_rss;
    case RP_TF_FRAG_PEAK_PEAK: return r->frag_peak_over_peak;
    case RP_TF_OPS_PER_S: return r->ops_per_s;
    default: return p99(r);
    }
}

void rp_tune_summarize(const rp_result *runs, unsigned n, rp_tune_row *row)
{
    row->runs = n;
    for (unsigned f = 0; f < RP_TF_COUNT_; f++) {
        double v[n ? n : 1];
        for (unsigned i = 0; i < n; i++) v[i] = figure(&runs[i], f);
        row->fig[f].med = n ? rp_median(v, n) : 0;  /* sorted by it */
        row->fig[f].min = n ? v[0] : 0;
        row->fig[f].max = n ? v[n - 1] : 0;
    }
}

void rp_tune_front(rp_tune_row *rows, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        rp_tune_row *a = &rows[i];
        a->def = -1;
        for (unsigned j = 0; j < n; j++)
            if (!rows[j].failed && strcmp(rows[j].s->alloc, a->s->alloc) == 0 && rows[j].s->nenv == 0) a->def = (int)j;
        a->pareto = !a->failed;
        for (unsigned j = 0; a->pareto && j < n; j++) {
            const rp_tune_row *b = &rows[j];
            if (j == i || b->failed) continue;
            double ar = a->fig[RP_TF_PEAK_RSS].med, br = b->fig[RP_TF_PEAK_RSS].med;
            double at = a->fig[RP_TF_OPS_PER_S].med, bt = b->fig[RP_TF_OPS_PER_S].med;
            if (br <= ar && bt >= at && (br < ar || bt > at)) a->pareto = 0;
        }
    }
}

/* How much worse than the best row each figure of the objective is (0: the
 * best), summed: the row with the least wins. */
static double cost(const rp_tune_row *rows, unsigned n, const rp_tune_row *r, rp_tune_objective obj)
{
    double rss = 0, ops = 0, lat = 0;
    for (unsigned i = 0; i < n; i++) {
        if (rows[i].failed) continue;
        const rp_tune_stat *f = rows[i].fig;
        if (!rss || f[RP_TF_PEAK_RSS].med < rss) rss = f[RP_TF_PEAK_RSS].med;
        if (f[RP_TF_OPS_PER_S].med > ops) ops = f[RP_TF_OPS_PER_S].med;
        if (!lat || f[RP_TF_P99_NS].med < lat) lat = f[RP_TF_P99_NS].med;
    }
    const rp_tune_stat *f = r->fig;
    double c_rss = rss > 0 ? f[RP_TF_PEAK_RSS].med / rss - 1 : 0;
    double c_ops = f[RP_TF_OPS_PER_S].med > 0 ? ops / f[RP_TF_OPS_PER_S].med - 1 : 1e9;
    double c_lat = lat > 0 ? f[RP_TF_P99_NS].med / lat - 1 : 0;
    switch (obj) {
    case RP_OBJ_RSS: return c_rss + 1e-3 * c_ops;  /* throughput only breaks ties */
    case RP_OBJ_THROUGHPUT: return c_ops + 1e-3 * c_rss;
    case RP_OBJ_LATENCY: return c_lat + 1e-3 * c_ops;
    default: return c_rss + c_ops;
    }
}

int rp_tune_best(const rp_tune_row *rows, unsigned n, rp_tune_objective obj)
{
    int best = -1;
    double bc = 0;
    for (unsigned i = 0; i < n; i++) {
        /* balanced: a point of the front, the least worse than the best of both */
        if (rows[i].failed || (obj == RP_OBJ_BALANCED && !rows[i].pareto)) continue;
        double c = cost(rows, n, &rows[i], obj);
        if (best < 0 || c < bc) {
            best = (int)i;
            bc = c;
        }
    }
    return best;
}

int rp_tune_apart(const rp_tune_row *a, const rp_tune_row *b, unsigned fig)
{
    return a->fig[fig].max < b->fig[fig].min || b->fig[fig].max < a->fig[fig].min;
}
