/* stats_print.c — the counts as text and JSON; see stats_print.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "phases_print.h"
#include "stats_print.h"

/* What both reports derive from the counts and the source. */
typedef struct derived {
    hatf_reader *r;          /* the container's reader, NULL for the other formats */
    uint64_t num, den, dur;  /* the time unit (num/den ns), the duration in it */
    double dur_ns;
    char avg[32];            /* avg_size: bytes per allocation that made an object, 2 decimals */
    char avg_json[40];       /* the same at full precision (the shortest that reads back the same) */
} derived;

static void derive(const stats *st, hatf_source *s, derived *d)
{
    d->r = hatf_source_container(s);
    cli_time_unit(s, &d->num, &d->den);
    d->dur = st->timed ? st->last_time - st->first_time : 0;
    d->dur_ns = (double)d->dur * (double)d->num / (double)d->den;
    uint64_t made = st->allocs - st->failed_allocs;
    double avg = made ? (double)st->total_bytes / (double)made : 0;
    if (!made) snprintf(d->avg, sizeof d->avg, "0");
    else snprintf(d->avg, sizeof d->avg, "%.2f", avg);
    snprintf(d->avg_json, sizeof d->avg_json, "%.17g", avg);
    for (int prec = 1; prec < 17; prec++) {  /* the shortest decimal that is the same double */
        char b[40];
        snprintf(b, sizeof b, "%.*g", prec, avg);
        if (strtod(b, NULL) == avg) { snprintf(d->avg_json, sizeof d->avg_json, "%s", b); break; }
    }
}

static const char *func_label(unsigned i)
{
    if (i == 0) return "(none)";
    if (i == FUNC_SLOTS - 1) return "(other)";
    return hatf_func_name(i);
}

static void hist_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
    if (b == 0) { *lo = *hi = 0; return; }
    *lo = 1ull << (b - 1);
    *hi = b == 64 ? UINT64_MAX : (1ull << b) - 1;
}

static const char *name_of(hatf_reader *r, int heap, uint64_t id)
{
    if (!r) return NULL;
    return heap ? hatf_reader_heap_name(r, id) : hatf_reader_thread_name(r, id);
}

#define U(x) ((unsigned long long)(x))

/* Recorded by attaching to a running process (hatrace record -p): its
 * unknown frees are of objects allocated before tracing, and what is live at
 * its end was live when the recorder detached. */
static int attached_trace(hatf_source *s)
{
    const hatf_info *in = s ? hatf_source_info(s) : NULL;
    return in && (in->flags & HATF_INFO_ATTACHED);
}

static void print_table(hatf_buf *o, stats *st, const char *path, hatf_source *s)
{
    stats_sort(st);
    derived d;
    derive(st, s, &d);
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
            attached_trace(s) ? " (live when the recorder detached, not leaks)" : "");
    if (st->died) {
        char how[160];
        cli_signal_text(&st->death, how, sizeof how);
        cli_put(o, "%-18s %s (live_at_end: live then, not leaks)\n", "died", how);
    }
    if (st->signals_handled)
        cli_put(o, "%-18s %llu (taken by the program's handlers)\n", "signals", U(st->signals_handled));
    if (attached_trace(s))
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
        const char *nm = name_of(d.r, 0, c->id);
        cli_put(o, "%-10llu %-16s %12llu %12llu %12llu %16llu\n", U(c->id), nm ? nm : "-", U(c->allocs), U(c->frees),
            U(c->reallocs), U(c->bytes));
    }
    cli_put(o, "\n%-10s %-16s %12s %12s %12s %16s %12s %16s %14s\n", "heap", "name", "allocs", "frees", "reallocs", "bytes",
        "max_objects", "max_live_bytes", "destroy_frees");
    for (size_t i = 0; i < st->heaps.n; i++) {
        counts *c = &st->heaps.v[i];
        const char *nm = name_of(d.r, 1, c->id);
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
        hist_range(b, &lo, &hi);
        char range[48];
        snprintf(range, sizeof range, "%llu..%llu", U(lo), U(hi));
        cli_put(o, "%-24s %12llu\n", range, U(st->hist[b]));
    }
    cli_put(o, "\n%-24s %12s\n", "function", "count");
    for (unsigned i = 0; i < FUNC_SLOTS; i++)
        if (st->funcs[i]) cli_put(o, "%-24s %12llu\n", func_label(i), U(st->funcs[i]));
    if (st->want_phases) phases_print(o, &st->ph, 0);
}

void stats_json(hatf_buf *o, stats *st, const char *path, hatf_source *s)
{
    stats_sort(st);
    derived d;
    derive(st, s, &d);
    cli_put(o, "{\n  \"file\": ");
    cli_json_string(o, path);
    cli_put(o, ",\n  \"format\": \"%s\",\n", hatf_format_name(hatf_source_format(s)));
    cli_put(o, "  \"records\": %llu,\n  \"allocs\": %llu,\n  \"frees\": %llu,\n  \"free_null\": %llu,\n",
        U(st->records), U(st->allocs), U(st->frees), U(st->free_null));
    cli_put(o, "  \"reallocs\": %llu,\n  \"realloc_inplace\": %llu,\n  \"realloc_move\": %llu,\n"
           "  \"realloc_new\": %llu,\n  \"realloc_free\": %llu,\n",
        U(st->reallocs), U(st->kinds[HATF_OP_REALLOC_INPLACE]), U(st->kinds[HATF_OP_REALLOC_MOVE]),
        U(st->kinds[HATF_OP_REALLOC_NEW]), U(st->kinds[HATF_OP_REALLOC_FREE]));
    cli_put(o, "  \"heap_creates\": %llu,\n  \"heap_destroys\": %llu,\n  \"thread_creates\": %llu,\n"
           "  \"thread_destroys\": %llu,\n  \"comments\": %llu,\n",
        U(st->kinds[HATF_OP_HEAP_CREATE]), U(st->kinds[HATF_OP_HEAP_DESTROY]),
        U(st->kinds[HATF_OP_THREAD_CREATE]), U(st->kinds[HATF_OP_THREAD_DESTROY]), U(st->kinds[HATF_OP_COMMENT]));
    cli_put(o, "  \"total_bytes\": %llu,\n  \"avg_size\": %s,\n  \"max_live_objects\": %llu,\n"
           "  \"max_live_bytes\": %llu,\n  \"live_objects_at_end\": %llu,\n  \"live_bytes_at_end\": %llu,\n"
           "  \"unknown_frees\": %llu,\n  \"attached\": %s,\n",
        U(st->total_bytes), d.avg_json, U(st->max_live_objects), U(st->max_live_bytes), U(st->live_objects),
        U(st->live_bytes), U(st->unknown_frees), attached_trace(s) ? "true" : "false");
    cli_put(o, "  \"first_time\": %llu,\n  \"last_time\": %llu,\n  \"duration\": %llu,\n"
           "  \"time_unit_ns\": [%llu, %llu],\n  \"duration_ns\": %.0f,\n",
        U(st->first_time), U(st->last_time), U(d.dur), U(d.num), U(d.den), d.dur_ns);
    cli_put(o, "  \"threads\": [");
    for (size_t i = 0; i < st->threads.n; i++) {
        counts *c = &st->threads.v[i];
        const char *nm = name_of(d.r, 0, c->id);
        cli_put(o, "%s\n    {\"id\": %llu, ", i ? "," : "", U(c->id));
        if (nm) { cli_put(o, "\"name\": "); cli_json_string(o, nm); cli_put(o, ", "); }
        cli_put(o, "\"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu}", U(c->allocs),
            U(c->frees), U(c->reallocs), U(c->bytes));
    }
    cli_put(o, "%s],\n  \"heaps\": [", st->threads.n ? "\n  " : "");
    for (size_t i = 0; i < st->heaps.n; i++) {
        counts *c = &st->heaps.v[i];
        const char *nm = name_of(d.r, 1, c->id);
        cli_put(o, "%s\n    {\"id\": %llu, ", i ? "," : "", U(c->id));
        if (nm) { cli_put(o, "\"name\": "); cli_json_string(o, nm); cli_put(o, ", "); }
        cli_put(o, "\"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, "
               "\"max_live_objects\": %llu, \"max_live_bytes\": %llu, \"destroy_frees\": %llu, \"destroy_bytes\": %llu}",
            U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects), U(c->max_live_bytes),
            U(c->destroy_frees), U(c->destroy_bytes));
    }
    cli_put(o, "%s],\n  \"heap_names\": [", st->heaps.n ? "\n  " : "");
    for (size_t i = 0; i < st->nnames; i++) {
        counts *c = &st->names[i];
        cli_put(o, "%s\n    {\"name\": ", i ? "," : "");
        cli_json_string(o, c->name);
        cli_put(o, ", \"heaps\": %llu, \"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, "
               "\"max_live_objects\": %llu, \"max_live_bytes\": %llu, \"destroy_frees\": %llu, \"destroy_bytes\": %llu}",
            U(c->id), U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects),
            U(c->max_live_bytes), U(c->destroy_frees), U(c->destroy_bytes));
    }
    cli_put(o, "%s],\n  \"size_histogram\": [", st->nnames ? "\n  " : "");
    int first = 1;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!st->hist[b]) continue;
        uint64_t lo, hi;
        hist_range(b, &lo, &hi);
        cli_put(o, "%s\n    {\"min\": %llu, \"max\": %llu, \"count\": %llu}", first ? "" : ",", U(lo), U(hi),
            U(st->hist[b]));
        first = 0;
    }
    cli_put(o, "%s],\n  \"functions\": {", first ? "" : "\n  ");
    first = 1;
    for (unsigned i = 0; i < FUNC_SLOTS; i++) {
        if (!st->funcs[i]) continue;
        cli_put(o, "%s\"%s\": %llu", first ? "" : ", ", func_label(i), U(st->funcs[i]));
        first = 0;
    }
    cli_put(o, "}");
    if (st->died) {
        hatf_signal *g = &st->death;
        cli_put(o, ",\n  \"died\": {\"signal\": %d, \"name\": \"%s\", \"code\": %d, \"thread\": %llu, \"%s\": %llu}",
                g->sig, g->name, g->code, U(g->thread), g->code > 0 ? "addr" : "pid", U(g->addr));
    }
    if (st->signals_handled) cli_put(o, ",\n  \"signals_handled\": %llu", U(st->signals_handled));
    if (d.r) {
        const hatf_counters *c = hatf_reader_counters(d.r);
        const hatf_info *in = hatf_reader_info(d.r);
        cli_put(o, ",\n  \"container\": {\"pid\": %u, \"cmdline\": ", in->pid);
        cli_json_string(o, in->cmdline);
        uint64_t groups, fast_groups, fast_events;
        hatf_reader_coding(d.r, &groups, &fast_groups, &fast_events);
        cli_put(o, ", \"complete\": %s, \"events\": %llu, \"dropped\": %llu, \"ring_waits\": %llu, "
            "\"chunk_groups\": %llu, \"fast_groups\": %llu, \"fast_events\": %llu, \"damage\": [",
            hatf_reader_complete(d.r) ? "true" : "false", U(c->events), U(c->dropped), U(c->ring_waits),
            U(groups), U(fast_groups), U(fast_events));
        const char *const *lines;
        size_t n = hatf_reader_damage(d.r, &lines);
        for (size_t i = 0; i < n; i++) {
            if (i) cli_put(o, ", ");
            cli_json_string(o, lines[i]);
        }
        uint64_t res_max, res_n = stats_resident_peak(d.r, &res_max);
        cli_put(o, "], \"resident_samples\": %llu, \"max_resident_bytes\": %llu}", U(res_n), U(res_max));
    }
    if (st->mmaps + st->munmaps + st->mremaps + st->brks)
        cli_put(o, ",\n  \"mappings\": {\"mmap\": %llu, \"mmap_bytes\": %llu, \"munmap\": %llu, \"munmap_bytes\": %llu, "
                   "\"mremap\": %llu, \"brk\": %llu, \"brk_bytes\": %lld}",
                U(st->mmaps), U(st->mmap_bytes), U(st->munmaps), U(st->munmap_bytes), U(st->mremaps), U(st->brks),
                (long long)st->brk_bytes);
    if (st->want_phases) {
        cli_put(o, ",\n  \"phases\": ");
        phases_print(o, &st->ph, 1);
    }
    cli_put(o, "\n}\n");
}

void stats_table(hatf_buf *o, stats *st, const char *path, hatf_source *s) { print_table(o, st, path, s); }
