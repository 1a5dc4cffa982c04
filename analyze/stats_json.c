/* stats_json.c — stats' counts as JSON (stats_json.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bufput.h"
#include "stats_json.h"

#define U(x) ((unsigned long long)(x))

void stats_time_unit(hatf_source *s, uint64_t *num, uint64_t *den)
{
    *num = *den = 1;
    const hatf_info *info = hatf_source_info(s);
    if (info && info->time_unit_ns_num && info->time_unit_ns_den) {
        *num = info->time_unit_ns_num;
        *den = info->time_unit_ns_den;
    }
}

void stats_derive(const stats *st, hatf_source *s, stats_derived *d)
{
    d->r = hatf_source_container(s);
    stats_time_unit(s, &d->num, &d->den);
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

const char *stats_func_label(unsigned i)
{
    if (i == 0) return "(none)";
    if (i == FUNC_SLOTS - 1) return "(other)";
    return hatf_func_name(i);
}

void stats_hist_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
    if (b == 0) { *lo = *hi = 0; return; }
    *lo = 1ull << (b - 1);
    *hi = b == 64 ? UINT64_MAX : (1ull << b) - 1;
}

const char *stats_name_of(hatf_reader *r, int heap, uint64_t id)
{
    if (!r) return NULL;
    return heap ? hatf_reader_heap_name(r, id) : hatf_reader_thread_name(r, id);
}

int stats_attached(hatf_source *s)
{
    const hatf_info *in = s ? hatf_source_info(s) : NULL;
    return in && (in->flags & HATF_INFO_ATTACHED);
}

void stats_json(hatf_buf *o, stats *st, const char *path, hatf_source *s)
{
    stats_sort(st);
    stats_derived d;
    stats_derive(st, s, &d);
    buf_put(o, "{\n  \"file\": ");
    buf_json_string(o, path);
    buf_put(o, ",\n  \"format\": \"%s\",\n", hatf_format_name(hatf_source_format(s)));
    buf_put(o, "  \"records\": %llu,\n  \"allocs\": %llu,\n  \"frees\": %llu,\n  \"free_null\": %llu,\n",
        U(st->records), U(st->allocs), U(st->frees), U(st->free_null));
    buf_put(o, "  \"reallocs\": %llu,\n  \"realloc_inplace\": %llu,\n  \"realloc_move\": %llu,\n"
           "  \"realloc_new\": %llu,\n  \"realloc_free\": %llu,\n",
        U(st->reallocs), U(st->kinds[HATF_OP_REALLOC_INPLACE]), U(st->kinds[HATF_OP_REALLOC_MOVE]),
        U(st->kinds[HATF_OP_REALLOC_NEW]), U(st->kinds[HATF_OP_REALLOC_FREE]));
    buf_put(o, "  \"heap_creates\": %llu,\n  \"heap_destroys\": %llu,\n  \"thread_creates\": %llu,\n"
           "  \"thread_destroys\": %llu,\n  \"comments\": %llu,\n",
        U(st->kinds[HATF_OP_HEAP_CREATE]), U(st->kinds[HATF_OP_HEAP_DESTROY]),
        U(st->kinds[HATF_OP_THREAD_CREATE]), U(st->kinds[HATF_OP_THREAD_DESTROY]), U(st->kinds[HATF_OP_COMMENT]));
    buf_put(o, "  \"total_bytes\": %llu,\n  \"avg_size\": %s,\n  \"max_live_objects\": %llu,\n"
           "  \"max_live_bytes\": %llu,\n  \"live_objects_at_end\": %llu,\n  \"live_bytes_at_end\": %llu,\n"
           "  \"unknown_frees\": %llu,\n  \"attached\": %s,\n",
        U(st->total_bytes), d.avg_json, U(st->max_live_objects), U(st->max_live_bytes), U(st->live_objects),
        U(st->live_bytes), U(st->unknown_frees), stats_attached(s) ? "true" : "false");
    buf_put(o, "  \"first_time\": %llu,\n  \"last_time\": %llu,\n  \"duration\": %llu,\n"
           "  \"time_unit_ns\": [%llu, %llu],\n  \"duration_ns\": %.0f,\n",
        U(st->first_time), U(st->last_time), U(d.dur), U(d.num), U(d.den), d.dur_ns);
    buf_put(o, "  \"threads\": [");
    for (size_t i = 0; i < st->threads.n; i++) {
        counts *c = &st->threads.v[i];
        const char *nm = stats_name_of(d.r, 0, c->id);
        buf_put(o, "%s\n    {\"id\": %llu, ", i ? "," : "", U(c->id));
        if (nm) { buf_put(o, "\"name\": "); buf_json_string(o, nm); buf_put(o, ", "); }
        buf_put(o, "\"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu}", U(c->allocs),
            U(c->frees), U(c->reallocs), U(c->bytes));
    }
    buf_put(o, "%s],\n  \"heaps\": [", st->threads.n ? "\n  " : "");
    for (size_t i = 0; i < st->heaps.n; i++) {
        counts *c = &st->heaps.v[i];
        const char *nm = stats_name_of(d.r, 1, c->id);
        buf_put(o, "%s\n    {\"id\": %llu, ", i ? "," : "", U(c->id));
        if (nm) { buf_put(o, "\"name\": "); buf_json_string(o, nm); buf_put(o, ", "); }
        buf_put(o, "\"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, "
               "\"max_live_objects\": %llu, \"max_live_bytes\": %llu, \"destroy_frees\": %llu, \"destroy_bytes\": %llu}",
            U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects), U(c->max_live_bytes),
            U(c->destroy_frees), U(c->destroy_bytes));
    }
    buf_put(o, "%s],\n  \"heap_names\": [", st->heaps.n ? "\n  " : "");
    for (size_t i = 0; i < st->nnames; i++) {
        counts *c = &st->names[i];
        buf_put(o, "%s\n    {\"name\": ", i ? "," : "");
        buf_json_string(o, c->name);
        buf_put(o, ", \"heaps\": %llu, \"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, "
               "\"max_live_objects\": %llu, \"max_live_bytes\": %llu, \"destroy_frees\": %llu, \"destroy_bytes\": %llu}",
            U(c->id), U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects),
            U(c->max_live_bytes), U(c->destroy_frees), U(c->destroy_bytes));
    }
    buf_put(o, "%s],\n  \"size_histogram\": [", st->nnames ? "\n  " : "");
    int first = 1;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!st->hist[b]) continue;
        uint64_t lo, hi;
        stats_hist_range(b, &lo, &hi);
        buf_put(o, "%s\n    {\"min\": %llu, \"max\": %llu, \"count\": %llu}", first ? "" : ",", U(lo), U(hi),
            U(st->hist[b]));
        first = 0;
    }
    buf_put(o, "%s],\n  \"functions\": {", first ? "" : "\n  ");
    first = 1;
    for (unsigned i = 0; i < FUNC_SLOTS; i++) {
        if (!st->funcs[i]) continue;
        buf_put(o, "%s\"%s\": %llu", first ? "" : ", ", stats_func_label(i), U(st->funcs[i]));
        first = 0;
    }
    buf_put(o, "}");
    if (st->died) {
        hatf_signal *g = &st->death;
        buf_put(o, ",\n  \"died\": {\"signal\": %d, \"name\": \"%s\", \"code\": %d, \"thread\": %llu, \"%s\": %llu}",
                g->sig, g->name, g->code, U(g->thread), g->code > 0 ? "addr" : "pid", U(g->addr));
    }
    if (st->signals_handled) buf_put(o, ",\n  \"signals_handled\": %llu", U(st->signals_handled));
    if (d.r) {
        const hatf_counters *c = hatf_reader_counters(d.r);
        const hatf_info *in = hatf_reader_info(d.r);
        buf_put(o, ",\n  \"container\": {\"pid\": %u, \"cmdline\": ", in->pid);
        buf_json_string(o, in->cmdline);
        uint64_t groups, fast_groups, fast_events;
        hatf_reader_coding(d.r, &groups, &fast_groups, &fast_events);
        buf_put(o, ", \"complete\": %s, \"events\": %llu, \"dropped\": %llu, \"ring_waits\": %llu, "
            "\"chunk_groups\": %llu, \"fast_groups\": %llu, \"fast_events\": %llu, \"damage\": [",
            hatf_reader_complete(d.r) ? "true" : "false", U(c->events), U(c->dropped), U(c->ring_waits),
            U(groups), U(fast_groups), U(fast_events));
        const char *const *lines;
        size_t n = hatf_reader_damage(d.r, &lines);
        for (size_t i = 0; i < n; i++) {
            if (i) buf_put(o, ", ");
            buf_json_string(o, lines[i]);
        }
        uint64_t res_max, res_n = stats_resident_peak(d.r, &res_max);
        buf_put(o, "], \"resident_samples\": %llu, \"max_resident_bytes\": %llu}", U(res_n), U(res_max));
    }
    if (st->mmaps + st->munmaps + st->mremaps + st->brks)
        buf_put(o, ",\n  \"mappings\": {\"mmap\": %llu, \"mmap_bytes\": %llu, \"munmap\": %llu, \"munmap_bytes\": %llu, "
                   "\"mremap\": %llu, \"brk\": %llu, \"brk_bytes\": %lld}",
                U(st->mmaps), U(st->mmap_bytes), U(st->munmaps), U(st->munmap_bytes), U(st->mremaps), U(st->brks),
                (long long)st->brk_bytes);
    if (st->want_phases) {
        buf_put(o, ",\n  \"phases\": ");
        phases_json(o, &st->ph);
    }
    buf_put(o, "\n}\n");
}

void phases_json(hatf_buf *o, const phases *p)
{
    buf_put(o, "[");
    int shown = 0;
    for (size_t i = 0; i < p->n; i++) {
        const phase *c = &p->v[i];
        const phase_counts *a = &c->start, *b = &c->end;
        if (i == 0 && b->records == a->records) continue;  /* nothing before the first comment */
        buf_put(o, "%s\n    {\"name\": ", shown++ ? "," : "");
        buf_json_string(o, c->name);
        buf_put(o, ", \"first_time\": %llu, \"last_time\": %llu, \"records\": %llu, \"allocs\": %llu, "
                   "\"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, \"max_live_bytes\": %llu, "
                   "\"live_bytes_at_end\": %llu}",
                U(c->first_time), U(c->last_time), U(b->records - a->records), U(b->allocs - a->allocs),
                U(b->frees - a->frees), U(b->reallocs - a->reallocs), U(b->bytes - a->bytes),
                U(c->max_live_bytes), U(b->live_bytes));
    }
    buf_put(o, "\n  ]");
}
