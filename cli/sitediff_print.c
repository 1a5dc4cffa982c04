/* sitediff_print.c — hatrace stats --diff OLD NEW: both traces' sites read,
 * compared by analyze/sitediff.c, the sites that changed printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "sitediff.h"
#include "sitediff_print.h"

#define U(x) ((unsigned long long)(x))

typedef sitediff_change change;

static void put_figure(hatf_buf *o, const char *name, uint64_t a, uint64_t b, int json)
{
    if (json) cli_put(o, "\"%s\": {\"old\": %llu, \"new\": %llu, \"change\": %lld}", name, U(a), U(b), (long long)(b - a));
    else cli_put(o, "%s %llu -> %llu (%+lld)", name, U(a), U(b), (long long)(b - a));
}

static void put_figures(hatf_buf *o, const change *c, int json)
{
    static const char *const names[2][SITEDIFF_NFIG] = {
        { "calls", "bytes", "at the heap's peak", "leaked", "temporary" },
        { "calls", "bytes", "peak", "leaked", "temporary" },
    };
    for (int i = 0; i < SITEDIFF_NFIG; i++) {
        if (i) cli_put(o, ", ");
        put_figure(o, names[json][i], c->f[0].v[i], c->f[1].v[i], json);
    }
}

static const char *const by_names[] = { "stack", "function", "line" };

static void print_text(hatf_buf *o, const change *v, size_t nv, size_t nchanged, const size_t nkeys[2],
                       const sites_list l[2], const char *paths[2], const sites_opts *opt)
{
    cli_put(o, "sites by %s, %s -> %s: %zu -> %zu, %zu changed; heap peak %llu -> %llu bytes (%+lld)\n",
            by_names[opt->by], paths[0], paths[1], nkeys[0], nkeys[1], nchanged, U(l[0].max_live_bytes),
            U(l[1].max_live_bytes), (long long)(l[1].max_live_bytes - l[0].max_live_bytes));
    for (size_t i = 0; i < nv; i++) {
        cli_put(o, "\n#%zu %s\n    ", i + 1, v[i].key);
        put_figures(o, &v[i], 0);
        cli_put(o, "\n");
    }
}

static void print_json(hatf_buf *o, const change *v, size_t nv, size_t nchanged, const size_t nkeys[2],
                       const sites_list l[2], const char *paths[2], const sites_opts *opt)
{
    cli_put(o, "{\"old\": ");
    cli_json_string(o, paths[0]);
    cli_put(o, ", \"new\": ");
    cli_json_string(o, paths[1]);
    cli_put(o, ", \"by\": \"%s\", \"sites\": [%zu, %zu], \"changed\": %zu, \"max_live_bytes\": [%llu, %llu], \"top\": [",
            by_names[opt->by], nkeys[0], nkeys[1], nchanged, U(l[0].max_live_bytes), U(l[1].max_live_bytes));
    for (size_t i = 0; i < nv; i++) {
        cli_put(o, "%s\n  {\"site\": ", i ? "," : "");
        cli_json_string(o, v[i].key);
        cli_put(o, ", ");
        put_figures(o, &v[i], 1);
        cli_put(o, "}");
    }
    cli_put(o, "\n]}\n");
}

/* flame graph input: each chain whose figure changed, with the change */
static void print_folded(hatf_buf *o, sitediff *d, int sort)
{
    sitediff_sort_by_key(d);
    for (size_t i = 0; i < d->n; i++)
        if (sitediff_delta(&d->v[i], sort)) cli_put(o, "%s %lld\n", d->v[i].key, (long long)sitediff_delta(&d->v[i], sort));
}

int sitediff_report(const char *old_path, const char *new_path, const sites_opts *opt)
{
    const char *paths[2] = { old_path, new_path };
    sites_list l[2];
    int rc = sites_list_read(old_path, opt, &l[0]);
    if (rc == CLI_FAIL) return CLI_FAIL;
    int rc2 = sites_list_read(new_path, opt, &l[1]);
    if (rc2 == CLI_FAIL) {
        sites_list_free(&l[0]);
        return CLI_FAIL;
    }
    if (rc2 != CLI_OK) rc = rc2;
    for (int i = 0; i < 2; i++)
        if (l[i].records && !l[i].stacked)
            sites_say_no_stacks(paths[i]);

    sitediff d;
    const sitediff_side side[2] = { { l[0].v, l[0].n, &l[0].fr }, { l[1].v, l[1].n, &l[1].fr } };
    int bad = sitediff_make(&d, side, opt->by, opt->sort);
    if (!bad) {
        size_t shown = opt->top && opt->top < d.n ? (size_t)opt->top : d.n;
        hatf_buf o;
        hatf_buf_init(&o);
        if (opt->form == SITES_FOLDED) print_folded(&o, &d, opt->sort);
        else if (opt->form == SITES_JSON) print_json(&o, d.v, shown, d.n, d.nkeys, l, paths, opt);
        else print_text(&o, d.v, shown, d.n, d.nkeys, l, paths, opt);
        bad = o.failed;
        if (!bad) fwrite(o.p, 1, o.len, stdout);
        hatf_buf_free(&o);
    }
    if (bad) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    }
    sitediff_free(&d);
    sites_list_free(&l[0]);
    sites_list_free(&l[1]);
    return rc;
}
