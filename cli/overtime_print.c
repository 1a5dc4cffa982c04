/* overtime_print.c — stats --timeline and --massif output (overtime_print.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "massif.h"
#include "overtime_print.h"

#define U(x) ((unsigned long long)(x))
#define BAR 40  /* characters of the widest bar */

static double ms_of(const overtime *ot, uint64_t dx) { return (double)overtime_ns(ot, dx) / 1e6; }

void overtime_text(hatf_buf *o, const overtime *ot)
{
    const timeline *tl = ot->tl;
    const timeline_span *last = tl->n ? &tl->v[tl->n - 1] : NULL;
    if (ot->by_records)
        cli_put(o, "timeline of %s: %zu intervals of %llu records (the trace has no times)\n", ot->path, tl->n,
                U(tl->width));
    else
        cli_put(o, "timeline of %s: %zu intervals of %.3f ms, from the first event\n", ot->path, tl->n,
                ms_of(ot, tl->width));
    if (ot->by_records)
        cli_put(o, "heap peak: %llu bytes at record %llu", U(ot->max_live_bytes), U(overtime_peak_at(ot)));
    else
        cli_put(o, "heap peak: %llu bytes at %.3f ms", U(ot->max_live_bytes), ms_of(ot, overtime_peak_at(ot)));
    uint64_t objects = last ? last->live_objects : 0;
    cli_put(o, "; at the end: %llu bytes in %llu object%s\n\n", U(last ? last->live_bytes : 0), U(objects),
            objects == 1 ? "" : "s");
    int rescol = overtime_has_resident(ot);
    size_t k = 0;
    uint64_t res_last = 0;
    cli_put(o, "%12s %14s %12s %14s %10s %10s %14s", ot->by_records ? "end_record" : "end_ms", "live_bytes",
            "live_objects", "max_live_bytes", "allocs", "frees", "bytes_asked");
    cli_put(o, rescol ? " %14s\n" : "\n", "resident_bytes");
    for (size_t i = 0; i < tl->n; i++) {
        const timeline_span *s = &tl->v[i];
        uint64_t end = overtime_end_at(ot, i);
        char at[32], bar[BAR + 1];
        if (ot->by_records) snprintf(at, sizeof at, "%llu", U(end));
        else snprintf(at, sizeof at, "%.3f", ms_of(ot, end));
        size_t w = ot->max_live_bytes ? (size_t)((double)s->max_live_bytes * BAR / (double)ot->max_live_bytes + 0.5) : 0;
        memset(bar, '#', w);
        bar[w] = 0;
        cli_put(o, "%12s %14llu %12llu %14llu %10llu %10llu %14llu", at, U(s->live_bytes),
                U(s->live_objects), U(s->max_live_bytes), U(s->allocs), U(s->frees), U(s->bytes));
        if (rescol) {
            uint64_t res = overtime_resident(ot, i, &k, &res_last);
            if (k) cli_put(o, " %14llu", U(res));
            else cli_put(o, " %14s", "-");  /* not sampled yet: unknown, not 0 */
        }
        cli_put(o, "  |%s\n", bar);
    }
}

void overtime_json(hatf_buf *o, const overtime *ot)
{
    const timeline *tl = ot->tl;
    cli_put(o, "{\"file\": ");
    cli_json_string(o, ot->path);
    cli_put(o, ", \"unit\": \"%s\", \"interval\": %llu, \"max_live_bytes\": %llu, \"peak_at\": %llu, \"intervals\": [",
            ot->by_records ? "record" : "ns", U(overtime_x(ot, tl->width)), U(ot->max_live_bytes), U(overtime_x(ot, overtime_peak_at(ot))));
    int rescol = overtime_has_resident(ot);
    size_t k = 0;
    uint64_t res_last = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const timeline_span *s = &tl->v[i];
        cli_put(o, "%s\n  {\"end\": %llu, \"live_bytes\": %llu, \"live_objects\": %llu, \"max_live_bytes\": %llu, "
                   "\"allocs\": %llu, \"frees\": %llu, \"bytes\": %llu",
                i ? "," : "", U(overtime_x(ot, overtime_end_at(ot, i))), U(s->live_bytes), U(s->live_objects),
                U(s->max_live_bytes), U(s->allocs), U(s->frees), U(s->bytes));
        if (rescol) {
            uint64_t res = overtime_resident(ot, i, &k, &res_last);
            if (k) cli_put(o, ", \"resident_bytes\": %llu", U(res));  /* absent before the first sample */
        }
        cli_put(o, "}");
    }
    cli_put(o, "%s]}\n", tl->n ? "\n" : "");
}

/* ---- massif -------------------------------------------------------------- */

/* The node's text after its bytes, as massif writes it: "0xADDR: function
 * (file:line)", "(in module)" when the line is unknown; no '#' (ms_print
 * reads it as a comment) and no line breaks. */
static void put_place(hatf_buf *o, frames *fr, massif_place pl)
{
    char text[1024];
    const char *file;
    int line, k;
    uint64_t vaddr;
    const char *name = frames_place(fr, pl.addr, pl.inl, &file, &line);
    const char *mod = frames_module(fr, pl.addr, &vaddr);
    if (file)
        k = snprintf(text, sizeof text, "0x%llX: %s (%s:%d)", U(pl.addr), name ? name : "???", file, line);
    else if (mod)
        k = snprintf(text, sizeof text, "0x%llX: %s (in %s)", U(pl.addr), name ? name : "???", mod);
    else
        k = snprintf(text, sizeof text, "0x%llX: %s", U(pl.addr), name ? name : "???");
    if (k < 0) k = 0;
    if ((size_t)k >= sizeof text) k = sizeof text - 1;
    for (int i = 0; i < k; i++)
        if (text[i] == '#' || text[i] == '\n' || text[i] == '\r') text[i] = '_';
    hatf_buf_append(o, text, (size_t)k);
}

typedef struct tree_out { hatf_buf *o; frames *fr; } tree_out;

/* One line of a tree (massif_tree's put). */
static void put_tree_line(void *ctx, const massif_line *l)
{
    tree_out *t = ctx;
    hatf_buf *o = t->o;
    if (l->below) {
        cli_put(o, "%*sn0: %llu in %zu place%s, %sbelow massif's threshold (1.00%%)\n", (int)l->depth, "",
                U(l->bytes), l->children, l->children > 1 ? "s" : "", l->children > 1 ? "all " : "");
        return;
    }
    cli_put(o, "%*sn%zu: %llu ", (int)l->depth, "", l->children, U(l->bytes));
    if (l->depth == 0) cli_put(o, "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.");
    else put_place(o, t->fr, l->place);
    hatf_buf_append(o, "\n", 1);
}

/* The call tree of what the sites held (massif_tree). */
static int put_tree(hatf_buf *o, frames *fr, const site *v, size_t n, int at_peak, const uint64_t *bytes)
{
    tree_out t = { o, fr };
    return massif_tree(fr, v, n, at_peak, bytes, put_tree_line, &t);
}

/* s on one line of a massif file: line breaks and '#' (a comment there) as ' ' */
static void put_line(hatf_buf *o, const char *s)
{
    for (; *s; s++) {
        char ch = *s == '\n' || *s == '\r' || *s == '#' ? ' ' : *s;
        hatf_buf_append(o, &ch, 1);
    }
}

/* resident: the process's resident bytes then (0: not sampled); massif's
 * mem_heap_extra_B is what they are over the live bytes, so that massif's
 * total (heap, extra and stacks) is the resident size */
static void put_snapshot(hatf_buf *o, size_t *num, uint64_t ms, uint64_t bytes, uint64_t resident, const char *tree)
{
    cli_put(o, "#-----------\nsnapshot=%zu\n#-----------\ntime=%llu\nmem_heap_B=%llu\nmem_heap_extra_B=%llu\n"
               "mem_stacks_B=0\nheap_tree=%s\n", (*num)++, U(ms), U(bytes), U(resident > bytes ? resident - bytes : 0),
            tree);
}

int overtime_massif(hatf_buf *o, const overtime *ot, frames *fr, const site *v, size_t n,
                    const overtime_detail *d, const char *cmd)
{
    const timeline *tl = ot->tl;
    int failed;
    uint64_t *res = overtime_residents(ot, &failed);  /* the resident column of --timeline */
    if (failed) return -1;
    cli_put(o, "desc: hatrace stats --massif, from the trace ");
    put_line(o, ot->path);
    if (res) cli_put(o, "; mem_heap_extra_B: the resident bytes sampled over the live bytes");
    cli_put(o, "\ncmd: ");
    put_line(o, cmd && *cmd ? cmd : ot->path);
    cli_put(o, "\ntime_unit: %s\n", ot->by_records ? "i" : "ms");
    size_t num = 0;
    /* massif's time: ms, or the record number standing in for instructions */
    const uint64_t per_unit = ot->by_records ? 1 : 1000000;
    put_snapshot(o, &num, 0, 0, 0, "empty");
    int peak_done = 0, rc = 0;
    for (size_t i = 0; i < tl->n && !rc; i++) {
        int last = i + 1 == tl->n;
        uint64_t resident = res ? res[i] : 0;
        if (!peak_done && (ot->peak_x < timeline_end(tl, i) || last)) {  /* the peak is in interval i */
            put_snapshot(o, &num, overtime_x(ot, overtime_peak_at(ot)) / per_unit, ot->max_live_bytes, resident, "peak");
            rc = put_tree(o, fr, v, n, 1, NULL);
            peak_done = 1;
        }
        const uint64_t *at = overtime_detail_at(d, ot, i);
        if (rc) break;
        put_snapshot(o, &num, overtime_x(ot, overtime_end_at(ot, i)) / per_unit, tl->v[i].live_bytes, resident,
                     last || at ? "detailed" : "empty");
        if (last || at) rc = put_tree(o, fr, v, n, 0, at);
    }
    free(res);
    return rc;
}
