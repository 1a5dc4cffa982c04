/* sitegroups.c — allocation sites grouped by where they allocate (sitegroups.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "frames_text.h"
#include "sitegroups.h"

#define U(x) ((unsigned long long)(x))
#define SHOWN_STACKS 3  /* stacks shown under a group in text */

typedef struct group {
    const char *key;
    const char *function, *file;  /* the place's parts (function NULL: not named; file NULL: no line) */
    int line;
    site sum;                     /* summed figures (stack, peak_*: unused) */
    size_t first, count;          /* its sites: order[first .. first + count) */
} group;

typedef struct keyed { char *key, *function, *file; int line; size_t site; } keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->site > y->site) - (x->site < y->site);
}

/* C++'s allocation functions: the place is their caller */
static int is_operator_new(const char *name) { return name && !strncmp(name, "operator new", 12); }

/* The site's place as a key: its function (or where it is when nothing names
 * it) and, by line, the call's file:line. @return 0, or -1 out of memory. */
static int key_of_site(keyed *k, const site *s, frames *fr, int by)
{
    const uint64_t *f;
    size_t n = sites_stack(fr->r, s->stack, &f);
    memset(k, 0, sizeof *k);
    char text[1200], node[1024];
    const char *name = NULL, *file = NULL;
    int line = -1, found = 0;
    uint64_t addr = 0;
    for (size_t j = 0; j < n && !found; j++) {
        const srcline *in;
        size_t places = frames_inlined(fr, f[j], &in) + 1;
        for (size_t i = 0; i < places && !found; i++) {
            name = frames_place(fr, f[j], i, &file, &line);
            addr = f[j];
            found = !is_operator_new(name);
        }
    }
    if (!n) {
        snprintf(text, sizeof text, "%s", s->stack ? "(stack not in the trace)" : "(no stack)");
    } else {
        if (name) snprintf(node, sizeof node, "%s", name);
        else frames_node(fr, addr, node, sizeof node);  /* module+0xaddress, or the address */
        if (by == SITES_BY_LINE && file) snprintf(text, sizeof text, "%s %s:%d", node, file, line);
        else snprintf(text, sizeof text, "%s", node);
        if (!(k->function = strdup(node))) return -1;
        if (file && !(k->file = strdup(file))) return -1;
        k->line = line;
    }
    return (k->key = strdup(text)) ? 0 : -1;
}

char *sitegroups_place(const site *s, frames *fr, int by)
{
    keyed k;
    int rc = key_of_site(&k, s, fr, by);
    free(k.function);
    free(k.file);
    if (rc) {
        free(k.key);
        return NULL;
    }
    return k.key;
}

static int group_sort;
static int cmp_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    uint64_t kx = sites_key(&x->sum, group_sort), ky = sites_key(&y->sum, group_sort);
    if (kx != ky) return kx > ky ? -1 : 1;
    return strcmp(x->key, y->key);
}

static const site *cmp_v;
static int cmp_member(const void *a, const void *b)
{
    const site *x = &cmp_v[*(const size_t *)a], *y = &cmp_v[*(const size_t *)b];
    uint64_t kx = sites_key(x, group_sort), ky = sites_key(y, group_sort);
    if (kx != ky) return kx > ky ? -1 : 1;
    return (x->stack > y->stack) - (x->stack < y->stack);
}

static void add_to(site *sum, const site *s)
{
    sum->calls += s->calls;
    sum->bytes += s->bytes;
    sum->at_peak_objects += s->at_peak_objects;
    sum->at_peak_bytes += s->at_peak_bytes;
    sum->live_objects += s->live_objects;
    sum->live_bytes += s->live_bytes;
    sum->temporary += s->temporary;
}

static void print_text(hatf_buf *o, const group *g, size_t ng, size_t shown, const size_t *order, const site *v,
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

static void print_json(hatf_buf *o, const group *g, size_t shown, const size_t *order, const site *v,
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
    keyed *k = calloc(n ? n : 1, sizeof *k);
    group *g = calloc(n ? n : 1, sizeof *g);
    size_t *order = malloc((n ? n : 1) * sizeof *order), ng = 0;
    int rc = k && g && order ? 0 : -1;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = key_of_site(&k[i], &v[i], fr, opt->by);
        k[i].site = i;
    }
    if (!rc) {
        if (n) qsort(k, n, sizeof *k, cmp_keyed);
        for (size_t i = 0; i < n;) {  /* runs of one key are the groups */
            size_t j = i;
            group *x = &g[ng++];
            *x = (group){ .key = k[i].key, .function = k[i].function, .file = k[i].file, .line = k[i].line,
                          .first = i };
            for (; j < n && !strcmp(k[j].key, k[i].key); j++) {
                order[j] = k[j].site;
                add_to(&x->sum, &v[k[j].site]);
            }
            x->count = j - i;
            i = j;
        }
        group_sort = opt->sort;
        cmp_v = v;
        for (size_t i = 0; i < ng; i++) qsort(order + g[i].first, g[i].count, sizeof *order, cmp_member);
        if (ng) qsort(g, ng, sizeof *g, cmp_group);
        size_t shown = opt->top && opt->top < ng ? (size_t)opt->top : ng;
        if (opt->form == SITES_JSON) print_json(out, g, shown, order, v, opt, h, n);
        else print_text(out, g, ng, shown, order, v, fr, opt, h, n);
    }
    for (size_t i = 0; k && i < n; i++) {
        free(k[i].key);
        free(k[i].function);
        free(k[i].file);
    }
    free(k);
    free(g);
    free(order);
    return rc;
}
