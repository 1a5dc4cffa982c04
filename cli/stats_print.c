/* stats_print.c — the counts as a table; see stats_print.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "phases_print.h"
#include "stats_print.h"

#define U(x) ((unsigned long long)(x))

static void print_table(hatf_buf *o, stats *st, const char *path, hatf_source *s)
{
    stats_sort(st);
    stats_derived d;
    stats_derive(st, s, &d);
    cli_put(o, "%-18s %s (%s)\n", "file", path, hatf_format_name(hatf_source_format(s)));
    cli_put(o, "%-18s %llu\n", "records", U(st->records));
    cli_put(o, "%-18s %llu\n", "allocs", U(st->allocs));
    cli_put(o, "%-18s %llu (%llu of NULL)\n", "frees", U(st->frees), U(st->free_null));
    cli_put(o, "%-18s %llu (inplace %llu, move %llu, new %llu, free %llu)\n", "reallocs", U(st->reallocs),
        U(st->kinds[HATF_OP_REALLOC_INPLACE]), U(st->kinds[HATF_OP_REALLOC_MOVE]),
        U(st->kinds[HATF_OP_REALLOC_NEW]), U(st->kinds[HATF_OP_REALLOC_FREE]));
    cli_put(o, "%-18s %llu\n", "total_bytes", U(st->total_bytes));
    cli_put(o, "%-18s %s\n", "avg_size", d.avg);
    cli_put(o, "%-18s %llu\n", "max_live_objects", U(st->max_live_objects));
    cli_put(o, "%-18s %llu\n", "max_live_bytes", U(st->max_live_bytes));
    cli_put(o, "%-18s %llu objects, %llu bytes%s\n", "live_at_end", U(st->live_objects), U(st->live_bytes),
            stats_attached(s) ? " (live when the recorder detached, not leaks)" : "");
    if (st->died) {
        char how[160];
        cli_signal_text(&st->death, how, sizeof how);
        cli_put(o, "%-18s %s (live_at_end: live then, not leaks)\n", "died", how);
    }
    if (st->signals_handled)
        cli_put(o, "%-18s %llu (taken by the program's handlers)\n", "signals", U(st->signals_handled));
    if (stats_attached(s))
        cli_put(o, "%-18s %llu (released, allocated before tracing: an attached recording)\n", "unknown_frees",
                U(st->unknown_frees));
    else
        cli_put(o, "%-18s %llu\n", "unknown_frees", U(st->unknown_frees));
    cli_put(o, "%-18s %llu create, %llu destroy\n", "heap events", U(st->kinds[HATF_OP_HEAP_CREATE]),
        U(st->kinds[HATF_OP_HEAP_DESTROY]));
    cli_put(o, "%-18s %llu create, %llu destroy\n", "thread events", U(st->kinds[HATF_OP_THREAD_CREATE]),
        U(st->kinds[HATF_OP_THREAD_DESTROY]));
    cli_put(o, "%-18s %llu\n", "comments", U(st->kinds[HATF_OP_COMMENT]));
    if (d.num == 1 && d.den == 1)
        cli_put(o, "%-18s %llu ns (time %llu .. %llu)\n", "duration", U(d.dur), U(st->first_time), U(st->last_time));
    else
        cli_put(o, "%-18s %llu units of %llu/%llu ns = %.0f ns\n", "duration", U(d.dur), U(d.num), U(d.den),
            d.dur_ns);
    if (d.r) {
        const hatf_counters *c = hatf_reader_counters(d.r);
        const hatf_info *in = hatf_reader_info(d.r);
        cli_put(o, "%-18s %u\n", "pid", in->pid);
        cli_put(o, "%-18s %s\n", "cmdline", in->cmdline);
        cli_put(o, "%-18s %s\n", "complete", hatf_reader_complete(d.r) ? "yes" : "no");
        cli_put(o, "%-18s %llu\n", "dropped", U(c->dropped));
        cli_put(o, "%-18s %llu\n", "ring_waits", U(c->ring_waits));
        uint64_t groups, fast_groups, fast_events;
        hatf_reader_coding(d.r, &groups, &fast_groups, &fast_events);
        cli_put(o, "%-18s %llu (%llu coded fast, %llu events%s)\n", "chunk_groups", U(groups), U(fast_groups),
            U(fast_events), fast_groups ? "; hatrace convert recodes them in full" : "");
        const char *const *lines;
        size_t n = hatf_reader_damage(d.r, &lines);
        for (size_t i = 0; i < n; i++) cli_put(o, "%-18s %s\n", "damage", lines[i]);
        uint64_t res_max, res_n = stats_resident_peak(d.r, &res_max);
        if (res_n) cli_put(o, "%-18s %llu bytes at most (%llu samples, the recorder's own memory taken out)\n", "resident",
                           U(res_max), U(res_n));
    }
    if (st->mmaps + st->munmaps + st->mremaps + st->brks)
        cli_put(o, "%-18s mmap %llu (%llu bytes), munmap %llu (%llu bytes), mremap %llu, brk %llu (%+lld bytes)\n",
                "mappings", U(st->mmaps), U(st->mmap_bytes), U(st->munmaps), U(st->munmap_bytes), U(st->mremaps),
                U(st->brks), (long long)st->brk_bytes);

    cli_put(o, "\n%-10s %-16s %12s %12s %12s %16s\n", "thread", "name", "allocs", "frees", "reallocs", "bytes");
    for (size_t i = 0; i < st->threads.n; i++) {
        counts *c = &st->threads.v[i];
        const char *nm = stats_name_of(d.r, 0, c->id);
        cli_put(o, "%-10llu %-16s %12llu %12llu %12llu %16llu\n", U(c->id), nm ? nm : "-", U(c->allocs), U(c->frees),
            U(c->reallocs), U(c->bytes));
    }
    cli_put(o, "\n%-10s %-16s %12s %12s %12s %16s %12s %16s %14s\n", "heap", "name", "allocs", "frees", "reallocs", "bytes",
        "max_objects", "max_live_bytes", "destroy_frees");
    for (size_t i = 0; i < st->heaps.n; i++) {
        counts *c = &st->heaps.v[i];
        const char *nm = stats_name_of(d.r, 1, c->id);
        cli_put(o, "%-10llu %-16s %12llu %12llu %12llu %16llu %12llu %16llu %14llu\n", U(c->id), nm ? nm : "-",
            U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects), U(c->max_live_bytes),
            U(c->destroy_frees));
    }
    if (st->nnames) {
        cli_put(o, "\n%-27s %8s %12s %12s %12s %16s %12s %16s %14s\n", "heap name", "heaps", "allocs", "frees", "reallocs",
            "bytes", "max_objects", "max_live_bytes", "destroy_frees");
        for (size_t i = 0; i < st->nnames; i++) {
            counts *c = &st->names[i];
            cli_put(o, "%-27.27s %8llu %12llu %12llu %12llu %16llu %12llu %16llu %14llu\n", c->name, U(c->id),
                U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects), U(c->max_live_bytes),
                U(c->destroy_frees));
        }
    }
    cli_put(o, "\n%-24s %12s\n", "alloc size", "count");
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!st->hist[b]) continue;
        uint64_t lo, hi;
        stats_hist_range(b, &lo, &hi);
        char range[48];
        snprintf(range, sizeof range, "%llu..%llu", U(lo), U(hi));
        cli_put(o, "%-24s %12llu\n", range, U(st->hist[b]));
    }
    cli_put(o, "\n%-24s %12s\n", "function", "count");
    for (unsigned i = 0; i < FUNC_SLOTS; i++)
        if (st->funcs[i]) cli_put(o, "%-24s %12llu\n", stats_func_label(i), U(st->funcs[i]));
    if (st->want_phases) phases_print(o, &st->ph);
}

void stats_table(hatf_buf *o, stats *st, const char *path, hatf_source *s) { print_table(o, st, path, s); }
