/* sitegroups_print.c — the sites grouped by where they allocate, printed (sitegroups_print.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "frames_text.h"
#include "sitegroups_print.h"

#define U(x) ((unsigned long long)(x))
#define SHOWN_STACKS 3  /* stacks shown under a group in text */

static void print_text(hatf_buf *o, const sitegroup *g, size_t ng, size_t shown, const size_t *order, const site *v,
                       frames *fr, const sites_opts *opt, const sitegroups_head *h, size_t nsites)
{
    cli_put(o, "%s: %zu (of %zu sites), records with a stack: %llu of %llu alloc/realloc, temporary allocations: "
               "%llu, heap peak: %llu bytes\n", opt->by == SITES_BY_LINE ? "lines" : "functions", ng, nsites,
            U(h->stacked), U(h->records), U(h->temporary), U(h->max_live_bytes));
    for (size_t i = 0; i < shown; i++) {
        const site *s = &g[i].sum;
        cli_put(o, "\n#%zu %s: %llu calls, %llu bytes, at the heap's peak %llu objects (%llu bytes), leaked %llu "
                   "objects (%llu bytes), temporary %llu; %zu stack%s\n", i + 1, g[i].key, U(s->calls), U(s->bytes),
                U(s->at_peak_objects), U(s->at_peak_bytes), U(s->live_objects), U(s->live_bytes), U(s->temporary),
                g[i].count, g[i].count == 1 ? "" : "s");
        for (size_t k = 0; k < g[i].count && k < SHOWN_STACKS; k++) {
            const site *m = &v[order[g[i].first + k]];
            cli_put(o, "  stack %llu: %llu calls, %llu bytes, at the heap's peak %llu bytes, leaked %llu bytes, "
                       "temporary %llu\n", U(m->stack), U(m->calls), U(m->bytes), U(m->at_peak_bytes),
                    U(m->live_bytes), U(m->temporary));
            const uint64_t *f;
            size_t nf = sites_stack(fr->r, m->stack, &f);
            for (size_t j = 0; j < nf; j++) frames_put(fr, o, "      at ", f[j]);
        }
        if (g[i].count > SHOWN_STACKS) cli_put(o, "  and %zu more stacks\n", g[i].count - SHOWN_STACKS);
    }
}

static void print_json(hatf_buf *o, const sitegroup *g, size_t shown, const size_t *order, const site *v,
                       const sites_opts *opt, const sitegroups_head *h, size_t nsites)
{
    cli_put(o, "{\"file\": ");
    cli_json_string(o, h->path);
    cli_put(o, ", \"by\": \"%s\", \"sites\": %zu, \"records\": %llu, \"records_with_stack\": %llu, "
               "\"temporary\": %llu, \"max_live_bytes\": %llu, \"top\": [",
            opt->by == SITES_BY_LINE ? "line" : "function", nsites, U(h->records), U(h->stacked), U(h->temporary),
            U(h->max_live_bytes));
    for (size_t i = 0; i < shown; i++) {
        const site *s = &g[i].sum;
        cli_put(o, "%s\n  {\"place\": ", i ? "," : "");
        cli_json_string(o, g[i].key);
        cli_put(o, ", \"function\": ");
        cli_json_string(o, g[i].function ? g[i].function : "");
        if (g[i].file) {
            cli_put(o, ", \"file\": ");
            cli_json_string(o, g[i].file);
            cli_put(o, ", \"line\": %d", g[i].line);
        }
        cli_put(o, ", \"calls\": %llu, \"bytes\": %llu, \"at_peak_objects\": %llu, \"at_peak_bytes\": %llu, "
                   "\"leaked_objects\": %llu, \"leaked_bytes\": %llu, \"temporary\": %llu, \"stacks\": [",
                U(s->calls), U(s->bytes), U(s->at_peak_objects), U(s->at_peak_bytes), U(s->live_objects),
                U(s->live_bytes), U(s->temporary));
        for (size_t k = 0; k < g[i].count; k++) cli_put(o, "%s%llu", k ? ", " : "", U(v[order[g[i].first + k]].stack));
        cli_put(o, "]}");
    }
    cli_put(o, "\n]}\n");
}

int sitegroups_print(hatf_buf *out, const site *v, size_t n, frames *fr, const sites_opts *opt,
                     const sitegroups_head *h)
{
    sitegroups gs;
    int rc = sitegroups_make(&gs, v, n, fr, opt->by, opt->sort);
    if (!rc) {
        size_t shown = opt->top && opt->top < gs.ng ? (size_t)opt->top : gs.ng;
        if (opt->form == SITES_JSON) print_json(out, gs.g, shown, gs.order, v, opt, h, n);
        else print_text(out, gs.g, gs.ng, shown, gs.order, v, fr, opt, h, n);
    }
    sitegroups_free(&gs);
    return rc;
}
