/* sites.c — where the memory goes: hatrace stats --sites, --timeline,
 * --massif printed from the sites' figures (analyze/sitecount.h counts them),
 * and the frame names of hatrace dump --stacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "cli_util.h"
#include "frames_text.h"
#include "overtime_print.h"
#include "sitecount.h"
#include "folded.h"
#include "sitegroups_print.h"
#include "sites.h"

typedef sitecount sites;  /* the figures this file prints */

#define U(x) ((unsigned long long)(x))

static void print_text(hatf_buf *o, const sites *st, frames *fr, size_t shown)
{
    cli_put(o, "sites: %zu, records with a stack: %llu of %llu alloc/realloc, temporary allocations: %llu, "
            "heap peak: %llu bytes\n", st->n, U(st->stacked), U(st->records), U(st->tmp.count), U(st->max_live_bytes));
    for (size_t i = 0; i < shown; i++) {
        const site *s = &st->v[i];
        cli_put(o, "\n#%zu stack %llu: %llu calls, %llu bytes, peak %llu objects (%llu bytes), "
               "at the heap's peak %llu objects (%llu bytes), leaked %llu objects (%llu bytes), temporary %llu\n",
            i + 1, U(s->stack), U(s->calls), U(s->bytes), U(s->peak_objects), U(s->peak_bytes),
            U(s->at_peak_objects), U(s->at_peak_bytes), U(s->live_objects), U(s->live_bytes), U(s->temporary));
        const uint64_t *f;
        size_t n = sites_stack(fr->r, s->stack, &f);
        if (!s->stack) cli_put(o, "    (no stack)\n");
        else if (!n) cli_put(o, "    (stack not in the trace)\n");
        for (size_t k = 0; k < n; k++) frames_put(fr, o, "    at ", f[k]);
    }
}

/* One frame as JSON: its address, function (as stored, and as shown),
 * offset, module, its flame-graph node ("module+0xvaddr" when nothing names
 * it), source line and the functions inlined at the call. */
static void put_frame_json(hatf_buf *o, frames *fr, uint64_t addr)
{
    const hatf_symbol *sy = hatf_reader_symbol(fr->r, addr);
    uint64_t off = 0;
    /* as shown (found here when the trace has no name), then demangled */
    const char *name = frames_function(fr, addr, &off), *d = name ? frames_demangled(fr, name) : NULL;
    cli_put(o, "{\"addr\": \"0x%llx\", \"function\": ", U(addr));
    cli_json_string(o, sy ? sy->name : "");
    cli_put(o, ", \"demangled\": ");
    cli_json_string(o, d ? d : name ? name : "");
    cli_put(o, ", \"offset\": %llu", U(off));
    uint64_t vaddr;
    const char *mod = frames_module(fr, addr, &vaddr);
    char node[1024];
    frames_node(fr, addr, node, sizeof node);
    cli_put(o, ", \"module\": ");
    cli_json_string(o, mod ? mod : "");
    cli_put(o, ", \"node\": ");
    cli_json_string(o, node);
    const char *file;
    int line;
    if (!frames_line(fr, addr, &file, &line)) {
        cli_put(o, ", \"file\": ");
        cli_json_string(o, file);
        cli_put(o, ", \"line\": %d", line);
    }
    const srcline *in;
    size_t ni = frames_inlined(fr, addr, &in);
    for (size_t j = 0; j < ni; j++) {  /* innermost first */
        const char *dn = frames_demangled(fr, in[j].inlined);
        cli_put(o, "%s{\"function\": ", j ? ", " : ", \"inlined\": [");
        cli_json_string(o, in[j].inlined);
        cli_put(o, ", \"demangled\": ");
        cli_json_string(o, dn ? dn : in[j].inlined);
        cli_put(o, ", \"file\": ");
        cli_json_string(o, in[j].file);
        cli_put(o, ", \"line\": %d}%s", in[j].line, j + 1 == ni ? "]" : "");
    }
    cli_put(o, "}");
}

/* With table (the report), each site's frames are numbers into one list of
 * frames written once at the end ("frame_table"): stacks share most frames.
 * @return 0, or -1 out of memory. */
static int print_json(hatf_buf *o, const sites *st, frames *fr, const char *path, size_t shown, int table,
                      const suppressions *supp)
{
    addrmap seen;   /* frame address -> its number in the table */
    uint64_t *order = NULL;
    size_t norder = 0, caporder = 0;
    if (table && addrmap_init(&seen)) return -1;
    cli_put(o, "{\"file\": ");
    cli_json_string(o, path);
    cli_put(o, ", \"sites\": %zu, \"records\": %llu, \"records_with_stack\": %llu, \"temporary\": %llu, "
               "\"max_live_bytes\": %llu, \"top\": [",
        st->n, U(st->records), U(st->stacked), U(st->tmp.count), U(st->max_live_bytes));
    int rc = 0;
    for (size_t i = 0; i < shown && !rc; i++) {
        const site *s = &st->v[i];
        cli_put(o, "%s\n  {\"stack\": %llu, \"calls\": %llu, \"bytes\": %llu, \"peak_objects\": %llu, "
               "\"peak_bytes\": %llu, \"at_peak_objects\": %llu, \"at_peak_bytes\": %llu, \"leaked_objects\": %llu, "
               "\"leaked_bytes\": %llu, \"temporary\": %llu, \"frames\": [",
            i ? "," : "", U(s->stack), U(s->calls), U(s->bytes), U(s->peak_objects), U(s->peak_bytes),
            U(s->at_peak_objects), U(s->at_peak_bytes), U(s->live_objects), U(s->live_bytes), U(s->temporary));
        const uint64_t *f;
        size_t n = sites_stack(fr->r, s->stack, &f);
        for (size_t k = 0; k < n && !rc; k++) {
            if (k) cli_put(o, ", ");
            if (!table) {
                put_frame_json(o, fr, f[k]);  /* n > 0: fr->r is set */
                continue;
            }
            int added;
            addrmap_entry *e = addrmap_put(&seen, f[k], &added);
            if (!e) { rc = -1; break; }
            if (added) {
                if (norder == caporder) {
                    size_t c = caporder ? 2 * caporder : 256;
                    uint64_t *v = realloc(order, c * sizeof *v);
                    if (!v) { rc = -1; break; }
                    order = v, caporder = c;
                }
                e->a = (uint32_t)norder;
                order[norder++] = f[k];
            }
            cli_put(o, "%u", e->a);
        }
        cli_put(o, "]}");
    }
    cli_put(o, "\n]");
    if (table) {
        cli_put(o, ", \"frame_table\": [");
        for (size_t k = 0; k < norder; k++) {
            cli_put(o, "%s\n  ", k ? "," : "");
            put_frame_json(o, fr, order[k]);
        }
        cli_put(o, "\n]");
        addrmap_free(&seen);
        free(order);
    }
    if (supp && suppress_said(supp)) {
        cli_put(o, ", \"suppressed\": ");
        suppress_print(o, supp, 1);
    }
    cli_put(o, "}\n");
    return rc;
}

static int print_folded(hatf_buf *o, const sites *st, frames *fr, size_t shown, int sort)
{
    folded_set fs;
    int rc = folded_sorted(&fs, st->v, shown, fr, sort);
    for (size_t i = 0; !rc && i < fs.n; i++) cli_put(o, "%s %llu\n", fs.v[i].chain, U(fs.v[i].value[0]));
    folded_free(&fs);
    return rc;
}

/* ---- the folded chains with every figure at once (hatrace report) ---------
 * folded_all's chains. JSON: {"figures": [...], "sites", "shown", "totals":
 * [per figure, over all sites], "cut_depth": the recording's depth (0: the
 * trace does not say), "names": [node names], "chains": [[cut, [name numbers,
 * outermost first], [per figure]], ...]}. */
static const char *const figure_names[FOLDED_NFIG] = { "calls", "bytes", "peak", "at_peak", "leaked", "temporary" };

/* Write chain's nodes as numbers into names (a node -> number map by hash, names in order). */
static int put_chain_nodes(hatf_buf *o, hatf_buf *names, addrmap *index, size_t *nnames, char *chain)
{
    int first = 1;
    for (char *save = NULL, *node = strtok_r(chain, ";", &save); node; node = strtok_r(NULL, ";", &save)) {
        uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a; a collision only writes a name twice */
        for (const char *c = node; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
        int added;
        addrmap_entry *e = addrmap_put(index, h, &added);
        if (!e) return -1;
        if (added) {
            e->a = (uint32_t)(*nnames)++;
            if (e->a) hatf_buf_append(names, ",", 1);
            cli_json_string(names, node);
        }
        cli_put(o, "%s%u", first ? "" : ",", e->a);
        first = 0;
    }
    return 0;
}

static int print_folded_json(hatf_buf *o, const sites *st, frames *fr, uint64_t top)
{
    folded_set fs;
    size_t nnames = 0;
    hatf_buf names;
    addrmap index;
    hatf_buf_init(&names);
    memset(&index, 0, sizeof index);
    int rc = folded_all(&fs, st->v, st->n, fr, top) || addrmap_init(&index) ? -1 : 0;
    cli_put(o, "{\"figures\": [");
    for (int fig = 0; fig < FOLDED_NFIG; fig++) cli_put(o, "%s\"%s\"", fig ? ", " : "", figure_names[fig]);
    cli_put(o, "], \"sites\": %zu, \"shown\": %zu, \"cut_depth\": %zu, \"totals\": [", st->n, fs.shown, fs.depth);
    for (int fig = 0; fig < FOLDED_NFIG; fig++) cli_put(o, "%s%llu", fig ? ", " : "", U(fs.totals[fig]));
    cli_put(o, "], \"chains\": [");
    for (size_t i = 0; !rc && i < fs.n; i++) {
        cli_put(o, "%s\n  [%d, [", i ? "," : "", fs.v[i].cut);
        rc = put_chain_nodes(o, &names, &index, &nnames, fs.v[i].chain);
        cli_put(o, "], [");
        for (int fig = 0; fig < FOLDED_NFIG; fig++) cli_put(o, "%s%llu", fig ? ", " : "", U(fs.v[i].value[fig]));
        cli_put(o, "]]");
    }
    cli_put(o, "\n], \"names\": [");
    hatf_buf_append(o, names.p, names.len);
    cli_put(o, "]}\n");
    if (names.failed) rc = -1;
    folded_free(&fs);
    addrmap_free(&index);
    hatf_buf_free(&names);
    return rc;
}

static int over_time(int form) { return form == SITES_TIMELINE || form == SITES_TIMELINE_JSON || form == SITES_MASSIF; }

/* Read path again for first's detailed snapshots into *bytes (NULL when
 * there are none). @return CLI_OK or CLI_FAIL (said). */
static int detail_read(const char *path, const sites_opts *opt, const sites *first, const timeline *tl,
                       int by_records, overtime_detail *out)
{
    sitecount_detail d;
    memset(out, 0, sizeof *out);
    size_t nsnap = tl->n ? (tl->n - 1) / SITECOUNT_DETAIL_EVERY : 0;  /* not the last interval: the end has its tree */
    if (!nsnap) return CLI_OK;
    if (sitecount_init(&d.st) < 0) goto oom;
    d.tl = tl;
    d.by_records = by_records;
    d.limit = first->now_record;
    d.next = 0;
    d.nsnap = nsnap;
    d.nsites = first->n;
    d.bytes = calloc(nsnap * (first->n ? first->n : 1), sizeof *d.bytes);
    if (!d.bytes) goto oom;
    hatf_source *src = cli_open_source(path, opt->from);
    if (!src) {
        sitecount_free(&d.st);
        free(d.bytes);
        return CLI_FAIL;
    }
    int count_rc, k = lookahead_run(src, sitecount_detail_event, sitecount_detail_prefetch, &d, &count_rc), rc = CLI_OK;
    if (k == LOOKAHEAD_STOPPED) {
        cli_error("%s: out of memory", path);
        rc = CLI_FAIL;
    } else if (k < 0) {
        rc = cli_source_failed(path, src);
    } else if (d.st.now_record != d.limit || d.st.n != first->n) {
        cli_error("%s: the trace changed between the two readings --massif makes", path);
        rc = CLI_FAIL;
    }
    hatf_source_close(src);
    sitecount_detail_take(&d, UINT64_MAX);  /* intervals that end after the last event */
    sitecount_free(&d.st);
    if (rc != CLI_OK) {
        free(d.bytes);
        return rc;
    }
    *out = (overtime_detail){ .every = SITECOUNT_DETAIL_EVERY, .nsites = first->n, .bytes = d.bytes };
    return CLI_OK;
oom:
    sitecount_free(&d.st);
    cli_error("%s: out of memory", path);
    return CLI_FAIL;
}

struct sites_pass {
    sites st;
    frames fr;
    int fr_made, settled, suppressed;
    timeline by_time, by_record;
};

void sites_pass_overtime(sites_pass *p, hatf_source *src, const char *path, uint64_t points, overtime *ot)
{
    uint64_t num, den;
    const hatf_resident *res = NULL;
    size_t nres = 0;
    cli_time_unit(src, &num, &den);
    hatf_reader *rd = hatf_source_tables(src);
    if (rd) nres = hatf_reader_resident(rd, &res);
    overtime_make(ot, &p->st, points, path, num, den, res, nres);
}

/* The heap over time (the timelines were fed): as a table, JSON or massif.
 * @return 0, -1 out of memory, or CLI_FAIL when the second reading failed (said). */
static int print_over_time(hatf_buf *o, sites_pass *p, hatf_source *src, const char *path, const sites_opts *opt)
{
    sites *st = &p->st;
    overtime ot;
    sites_pass_overtime(p, src, path, opt->points, &ot);
    if (opt->form == SITES_TIMELINE) overtime_text(o, &ot);
    else if (opt->form == SITES_TIMELINE_JSON) overtime_json(o, &ot);
    if (opt->form != SITES_MASSIF) return 0;
    overtime_detail d;
    /* the first reading's live objects are not needed again: their memory goes to the second's */
    heaplive_free(&st->live);
    temporary_free(&st->tmp);
    if (detail_read(path, opt, st, ot.tl, ot.by_records, &d) != CLI_OK) return CLI_FAIL;
    hatf_reader *r = hatf_source_container(src);
    int rc = overtime_massif(o, &ot, &p->fr, st->v, st->n, d.bytes ? &d : NULL, r ? hatf_reader_info(r)->cmdline : NULL);
    free((void *)d.bytes);
    return rc;
}

/* Count every event of src into st. @return CLI_OK, or CLI_FAIL after saying why. */
static int count_all(sites *st, hatf_source *src, const char *path)
{
    int count_rc, k = lookahead_run(src, sitecount_event, sitecount_prefetch, st, &count_rc);
    if (k == LOOKAHEAD_STOPPED) {
        cli_error("%s: out of memory", path);
        return CLI_FAIL;
    }
    return k < 0 ? cli_source_failed(path, src) : CLI_OK;
}

void sites_say_no_stacks(const char *path)
{
    cli_error("%s: the trace has no call stacks: record it with hatrace record --stacks to see where the memory goes",
              path);
}

int sites_list_read(const char *path, const sites_opts *opt, sites_list *out)
{
    memset(out, 0, sizeof *out);
    hatf_source *src = cli_open_source(path, opt->from);
    if (!src) return CLI_FAIL;
    sites st;
    if (sitecount_init(&st) || frames_init(&out->fr, hatf_source_tables(src), opt->demangle, opt->lines)) {
        sitecount_free(&st);
        hatf_source_close(src);
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = count_all(&st, src, path);
    sitecount_settle(&st);
    out->v = st.v, out->n = st.n;
    out->records = st.records, out->stacked = st.stacked, out->max_live_bytes = st.max_live_bytes;
    st.v = NULL;
    sitecount_free(&st);
    out->src = src;
    rc = cli_read_end(path, src, rc);
    if (rc == CLI_FAIL) sites_list_free(out);
    return rc;
}

void sites_list_free(sites_list *l)
{
    if (!l->src) return;
    frames_free(&l->fr);
    hatf_source_close(l->src);
    free(l->v);
    memset(l, 0, sizeof *l);
}


sites_pass *sites_pass_new(hatf_source *src, int demangle, int lines, uint64_t points)
{
    sites_pass *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    int bad = sitecount_init(&p->st);
    if (!bad && !frames_init(&p->fr, hatf_source_tables(src), demangle, lines)) p->fr_made = 1;
    if (points) {
        p->st.by_time = &p->by_time;
        p->st.by_record = &p->by_record;
    }
    if (bad || !p->fr_made || (points && (timeline_init(&p->by_time, points) || timeline_init(&p->by_record, points)))) {
        sites_pass_free(p);
        return NULL;
    }
    return p;
}

void sites_pass_free(sites_pass *p)
{
    if (!p) return;
    sitecount_free(&p->st);
    if (p->fr_made) frames_free(&p->fr);
    timeline_free(&p->by_time);
    timeline_free(&p->by_record);
    free(p);
}

int sites_pass_count(void *ctx, const lookahead_item *x) { return sitecount_event(&((sites_pass *)ctx)->st, x); }
void sites_pass_prefetch(void *ctx, const hatf_event *ev) { sitecount_prefetch(&((sites_pass *)ctx)->st, ev); }

heaplive *sites_pass_live(sites_pass *p, sites_heap_fn *observe, void *ctx)
{
    p->st.observe = observe;
    p->st.observe_ctx = ctx;
    return &p->st.live;
}

int sites_pass_unstacked(const sites_pass *p) { return p->st.records && !p->st.stacked; }

size_t sites_pass_sites(sites_pass *p, const site **v, frames **fr)
{
    *v = p->st.v;
    *fr = &p->fr;
    return p->st.n;
}

/* Take the leaks a suppression matches out of their sites' leaked figures,
 * counted in the suppression. */
static void apply_suppressions(sites *st, frames *fr, suppressions *supp, const char *path)
{
    if (supp->user && st->records && !st->stacked)
        cli_error("%s: --suppress matches call stacks, and the trace has none (record it with --stacks): "
                  "nothing suppressed", path);
    for (size_t i = 0; i < st->n; i++) {
        site *s = &st->v[i];
        const uint64_t *f;
        size_t n = s->live_objects ? sites_stack(fr->r, s->stack, &f) : 0;
        suppression *x = n ? suppress_find(supp, fr, f, n) : NULL;
        if (!x) continue;
        x->sites++;
        x->objects += s->live_objects;
        x->bytes += s->live_bytes;
        s->live_objects = s->live_bytes = 0;
    }
}

int sites_pass_print(sites_pass *p, hatf_source *src, const char *path, const sites_opts *opt, hatf_buf *o)
{
    sites *st = &p->st;
    if (!p->settled) sitecount_settle(st);
    p->settled = 1;
    if (opt->supp && !p->suppressed) apply_suppressions(st, &p->fr, opt->supp, path);
    p->suppressed = 1;
    if (over_time(opt->form)) {  /* the sites keep their order: --massif's second reading makes them in it */
        if (!st->by_time) return -1;
        return print_over_time(o, p, src, path, opt);
    }
    sites_sort(st->v, st->n, opt->sort);
    size_t shown = opt->top && opt->top < st->n ? (size_t)opt->top : st->n;
    sitegroups_head head = { path, st->records, st->stacked, st->tmp.count, st->max_live_bytes };
    if (opt->form == SITES_FOLDED_JSON) return print_folded_json(o, st, &p->fr, opt->top);
    if (opt->by != SITES_BY_STACK) return sitegroups_print(o, st->v, st->n, &p->fr, opt, &head);
    if (opt->form == SITES_JSON) return print_json(o, st, &p->fr, path, shown, opt->frame_table, opt->supp);
    if (opt->form == SITES_TEXT) {
        print_text(o, st, &p->fr, shown);
        if (opt->supp && suppress_said(opt->supp)) suppress_print(o, opt->supp, 0);
        return 0;
    }
    return print_folded(o, st, &p->fr, shown, opt->sort);
}

int sites_report(hatf_source *src, const char *path, const sites_opts *opt)
{
    sites_pass *p = sites_pass_new(src, opt->demangle, opt->lines, over_time(opt->form) ? opt->points : 0);
    if (!p) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = count_all(&p->st, src, path);
    if (rc == CLI_OK && sites_pass_unstacked(p) && (opt->form == SITES_MASSIF || !over_time(opt->form)))
        sites_say_no_stacks(path);
    if (rc == CLI_OK) {
        hatf_buf o;
        hatf_buf_init(&o);
        int pk = sites_pass_print(p, src, path, opt, &o);
        if (pk || o.failed) {
            if (pk != CLI_FAIL) cli_error("%s: out of memory", path);  /* CLI_FAIL: said */
            rc = CLI_FAIL;
        } else {
            fwrite(o.p, 1, o.len, stdout);
        }
        hatf_buf_free(&o);
    }
    sites_pass_free(p);
    return rc;
}
