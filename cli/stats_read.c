/* stats_read.c — a trace counted, with the commands' messages; see stats_read.h. */
#include "cli_util.h"
#include "stats_read.h"

#define U(x) ((unsigned long long)(x))

stats *stats_read(hatf_source *s, const char *path, int how)
{
    stats *st = stats_new(s);
    if (st && (how & STATS_READ_SUMMARY)) stats_summary_only(st);
    if (!st || ((how & STATS_READ_PHASES) && stats_want_phases(st) < 0)) {
        cli_error("out of memory");
        stats_free(st);
        return NULL;
    }
    int count_rc, r = lookahead_run(s, stats_count, stats_prefetch, st, &count_rc);
    if (r == LOOKAHEAD_STOPPED) {
        cli_error("%s: out of memory after %llu records", path, U(st->records));
    } else if (r < 0) {
        cli_source_failed(path, s);
    } else {
        stats_end(st);
        return st;  /* threads, heaps and names are sorted by the outputs (stats_sort) */
    }
    stats_free(st);
    return NULL;
}

int stats_summarize(hatf_source *s, const char *path, stats_summary *out)
{
    stats *st = stats_read(s, path, STATS_READ_SUMMARY);
    if (!st) return CLI_FAIL;
    stats_figures(st, out);
    stats_free(st);
    return CLI_OK;
}
