/* overtime.c — stats --timeline and --massif output (overtime.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "overtime.h"

#define U(x) ((unsigned long long)(x))
#define BAR 40  /* characters of the widest bar */

/* x - x0 in ns (exact: times are at most 2^64 units of num/den ns) */
static uint64_t ns_of(const overtime *ot, uint64_t dx)
{
    return (uint64_t)((unsigned __int128)dx * ot->num / ot->den);
}

static double ms_of(const overtime *ot, uint64_t dx) { return (double)ns_of(ot, dx) / 1e6; }

/* dx as JSON gives it: records, or ns */
static uint64_t x_out(const overtime *ot, uint64_t dx) { return ot->by_records ? dx : ns_of(ot, dx); }

/* Where interval i ends, from the first event: by time, its end (the last
 * one's is the last event's time); by record, the records up to its end. */
static uint64_t end_at(const overtime *ot, size_t i)
{
    const timeline *tl = ot->tl;
    return timeline_end(tl, i) - tl->x0 + (ot->by_records && i + 1 == tl->n);
}

/* The resident column (overtime.h), interval by interval in order: the samples
 * up to interval i's end from *k on. @return its figure, 0 before any sample
 * (*k still 0: the callers show none). */
static uint64_t resident_upto(const overtime *ot, size_t i, size_t *k, uint64_t *last)
{
    uint64_t end = end_at(ot, i), best = 0;
    int any = 0, final = i + 1 == ot->tl->n;  /* the last interval takes the rest (the sample at the end) */
    for (; *k < ot->nres; ++*k) {
        const hatf_resident *s = &ot->res[*k];
        uint64_t x = (uint64_t)((unsigned __int128)s->time_ns * ot->den / ot->num);
        if (!final && (x > ot->tl->x0 ? x - ot->tl->x0 : 0) > end) break;
        uint64_t b = s->bytes - s->own;
        if (b > best) best = b;
        any = 1;
        *last = b;
    }
    return any ? best : *last;
}

static int with_resident(const overtime *ot) { return ot->nres && !ot->by_records; }

/* When the peak was reached, from the first event: its time, or its record number (from 1). */
static uint64_t peak_at(const overtime *ot) { return ot->peak_x - ot->tl->x0 + (uint64_t)ot->by_records; }

uint64_t overtime_end(const overtime *ot, size_t i) { return x_out(ot, end_at(ot, i)); }
int overtime_has_resident(const overtime *ot) { return with_resident(ot); }
uint64_t overtime_resident(const overtime *ot, size_t i, size_t *k, uint64_t *last)
{
    return resident_upto(ot, i, k, last);
}

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
        cli_put(o, "heap peak: %llu bytes at record %llu", U(ot->max_live_bytes), U(peak_at(ot)));
    else
        cli_put(o, "heap peak: %llu bytes at %.3f ms", U(ot->max_live_bytes), ms_of(ot, peak_at(ot)));
    uint64_t objects = last ? last->live_objects : 0;
    cli_put(o, "; at the end: %llu bytes in %llu object%s\n\n", U(last ? last->live_bytes : 0), U(objects),
            objects == 1 ? "" : "s");
    int rescol = with_resident(ot);
    size_t k = 0;
    uint64_t res_last = 0;
    cli_put(o, "%12s %14s %12s %14s %10s %10s %14s", ot->by_records ? "end_record" : "end_ms", "live_bytes",
            "live_objects", "max_live_bytes", "allocs", "frees", "bytes_asked");
    cli_put(o, rescol ? " %14s\n" : "\n", "resident_bytes");
    for (size_t i = 0; i < tl->n; i++) {
        const timeline_span *s = &tl->v[i];
        uint64_t end = end_at(ot, i);
        char at[32], bar[BAR + 1];
        if (ot->by_records) snprintf(at, sizeof at, "%llu", U(end));
        else snprintf(at, sizeof at, "%.3f", ms_of(ot, end));
        size_t w = ot->max_live_bytes ? (size_t)((double)s->max_live_bytes * BAR / (double)ot->max_live_bytes + 0.5) : 0;
        memset(bar, '#', w);
        bar[w] = 0;
        cli_put(o, "%12s %14llu %12llu %14llu %10llu %10llu %14llu", at, U(s->live_bytes),
                U(s->live_objects), U(s->max_live_bytes), U(s->allocs), U(s->frees), U(s->bytes));
        if (rescol) {
            uint64_t res = resident_upto(ot, i, &k, &res_last);
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
            ot->by_records ? "record" : "ns", U(x_out(ot, tl->width)), U(ot->max_live_bytes), U(x_out(ot, peak_at(ot))));
    int rescol = with_resident(ot);
    size_t k = 0;
    uint64_t res_last = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const timeline_span *s = &tl->v[i];
        cli_put(o, "%s\n  {\"end\": %llu, \"live_bytes\": %llu, \"live_objects\": %llu, \"max_live_bytes\": %llu, "
                   "\"allocs\": %llu, \"frees\": %llu, \"bytes\": %llu",
                i ? "," : "", U(x_out(ot, end_at(ot, i))), U(s->live_bytes), U(s->live_objects),
                U(s->max_live_bytes), U(s->allocs), U(s->frees), U(s->bytes));
        if (rescol) {
            uint64_t res = resident_upto(ot, i, &k, &res_last);
            if (k) cli_put(o, ", \"resident_bytes\": %llu", U(res));  /* absent before the first sample */
        }
        cli_put(o, "}");
    }
    cli_put(o, "%s]}\n", tl->n ? "\n" : "");
}

/* ---- massif --------------------------------------------------------------
 * A tree node is a place in the call chains: a frame's own function at its
 * return address, or one of the functions inlined at that call (the same
 * address, innermost first, as dump --stacks shows them). Each site's chain,
 * innermost first, is a list of such places; the lists are sorted, so every
 * node's sites are a run that shares its path, and the tree is printed by
 * splitting runs on the next place. */

typedef struct place { uint64_t addr; uint32_t inl; } place;  /* inl: index among the inlined, or their count */
typedef struct chain { const place *p; size_t n; uint64_t bytes; } chain;
typedef struct group { size_t lo, hi; uint64_t bytes; } group;

static int cmp_chain(const void *a, const void *b)
{
    const chain *x = a, *y = b;
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        if (x->p[i].addr != y->p[i].addr) return x->p[i].addr < y->p[i].addr ? -1 : 1;
        if (x->p[i].inl != y->p[i].inl) return x->p[i].inl < y->p[i].inl ? -1 : 1;
    }
    return (x->n > y->n) - (x->n < y->n);
}

static int cmp_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The node's text after its bytes, as massif writes it: "0xADDR: function
 * (file:line)", "(in module)" when the line is unknown; no '#' (ms_print
 * reads it as a comment) and no line breaks. */
static void put_place(hatf_buf *o, frames *fr, place pl)
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

/* Print the node of chains c[lo, hi) at depth d (they share d places), its
 * bytes already summed, then its callers. @return 0, or -1 out of memory. */
static int put_node(hatf_buf *o, frames *fr, const chain *c, size_t lo, size_t hi, size_t d, uint64_t bytes,
                    uint64_t total)
{
    size_t ng = 0, start = lo;
    while (start < hi && c[start].n <= d) start++;  /* chains that end here: no caller */
    group *g = start < hi ? malloc((hi - start) * sizeof *g) : NULL;  /* at most a group per chain */
    if (start < hi && !g) return -1;
    for (size_t i = start; i < hi; ng++) {
        size_t j = i;
        uint64_t sum = 0;
        while (j < hi && c[j].p[d].addr == c[i].p[d].addr && c[j].p[d].inl == c[i].p[d].inl) sum += c[j++].bytes;
        g[ng] = (group){ i, j, sum };
        i = j;
    }
    if (ng) qsort(g, ng, sizeof *g, cmp_group);
    /* massif's threshold: 1 % of the snapshot */
    size_t sig = 0;
    uint64_t below = 0;
    for (size_t i = 0; i < ng; i++) {
        if (g[i].bytes * 100 >= total && g[i].bytes) sig++;
        else below += g[i].bytes;
    }
    size_t nbelow = ng - sig;
    cli_put(o, "%*sn%zu: %llu ", (int)d, "", sig + (nbelow > 0), U(bytes));
    if (d == 0) cli_put(o, "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.");
    else put_place(o, fr, c[lo].p[d - 1]);
    hatf_buf_append(o, "\n", 1);
    int rc = 0;
    for (size_t i = 0; i < sig && !rc; i++)  /* sorted: the significant ones come first */
        rc = put_node(o, fr, c, g[i].lo, g[i].hi, d + 1, g[i].bytes, total);
    if (nbelow)
        cli_put(o, "%*sn0: %llu in %zu place%s, %sbelow massif's threshold (1.00%%)\n", (int)d + 1, "", U(below),
                nbelow, nbelow > 1 ? "s" : "", nbelow > 1 ? "all " : "");
    free(g);
    return rc;
}

/* What site i held for the tree: at_peak, else live (bytes NULL), else bytes[i]. */
static uint64_t tree_bytes(const site *v, size_t i, int at_peak, const uint64_t *bytes)
{
    return bytes ? bytes[i] : at_peak ? v[i].at_peak_bytes : v[i].live_bytes;
}

/* The call tree of what the sites held (tree_bytes). */
static int put_tree(hatf_buf *o, frames *fr, const site *v, size_t n, int at_peak, const uint64_t *bytes)
{
    size_t np = 0, nc = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = tree_bytes(v, i, at_peak, bytes);
        if (!b) continue;
        const uint64_t *f;
        size_t k = sites_stack(fr->r, v[i].stack, &f);
        for (size_t j = 0; j < k; j++) {
            const srcline *in;
            np += frames_inlined(fr, f[j], &in) + 1;
        }
        nc++;
        total += b;
    }
    chain *c = calloc(nc ? nc : 1, sizeof *c);
    place *p = malloc((np ? np : 1) * sizeof *p);
    int rc = c && p ? 0 : -1;
    size_t ip = 0;
    nc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t b = tree_bytes(v, i, at_peak, bytes);
        if (!b) continue;
        const uint64_t *f;
        size_t k = sites_stack(fr->r, v[i].stack, &f);
        c[nc] = (chain){ p + ip, 0, b };
        for (size_t j = 0; j < k; j++) {
            const srcline *in;
            uint32_t ni = (uint32_t)frames_inlined(fr, f[j], &in);
            for (uint32_t q = 0; q <= ni; q++) p[ip++] = (place){ f[j], q };
        }
        c[nc].n = (size_t)(p + ip - c[nc].p);
        nc++;
    }
    if (!rc) {
        qsort(c, nc, sizeof *c, cmp_chain);
        rc = put_node(o, fr, c, 0, nc, 0, total, total);
    }
    free(c);
    free(p);
    return rc;
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
    /* the resident column of --timeline, interval by interval */
    uint64_t *res = with_resident(ot) ? malloc(tl->n * sizeof *res) : NULL;
    if (with_resident(ot) && tl->n && !res) return -1;
    size_t k = 0;
    uint64_t res_last = 0;
    for (size_t i = 0; res && i < tl->n; i++) res[i] = resident_upto(ot, i, &k, &res_last);
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
            put_snapshot(o, &num, x_out(ot, peak_at(ot)) / per_unit, ot->max_live_bytes, resident, "peak");
            rc = put_tree(o, fr, v, n, 1, NULL);
            peak_done = 1;
        }
        const uint64_t *at = !last && d && (i + 1) % d->every == 0 ? d->bytes + ((i + 1) / d->every - 1) * d->nsites
                                                                   : NULL;
        if (rc) break;
        put_snapshot(o, &num, x_out(ot, end_at(ot, i)) / per_unit, tl->v[i].live_bytes, resident,
                     last || at ? "detailed" : "empty");
        if (last || at) rc = put_tree(o, fr, v, n, 0, at);
    }
    free(res);
    return rc;
}
