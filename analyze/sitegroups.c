/* sitegroups.c — allocation sites grouped by where they allocate (sitegroups.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitegroups.h"

typedef struct sitegroups_key { char *key, *function, *file; int line; size_t site; } keyed;

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
        size_t places = frames_places(fr, f[j]);
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

static void key_free(keyed *k)
{
    free(k->key);
    free(k->function);
    free(k->file);
}

char *sitegroups_place(const site *s, frames *fr, int by)
{
    keyed k;
    int rc = key_of_site(&k, s, fr, by);
    char *key = k.key;
    k.key = NULL;
    key_free(&k);
    if (rc) {
        free(key);
        return NULL;
    }
    return key;
}

static int group_sort;
static int cmp_group(const void *a, const void *b)
{
    const sitegroup *x = a, *y = b;
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

int sitegroups_make(sitegroups *out, const site *v, size_t n, frames *fr, int by, int sort)
{
    memset(out, 0, sizeof *out);
    keyed *k = out->k = calloc(n ? n : 1, sizeof *k);
    sitegroup *g = out->g = calloc(n ? n : 1, sizeof *g);
    size_t *order = out->order = malloc((n ? n : 1) * sizeof *order);
    if (!k || !g || !order) return -1;
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        if (key_of_site(&k[i], &v[i], fr, by)) return -1;
        k[i].site = i;
    }
    if (n) qsort(k, n, sizeof *k, cmp_keyed);
    size_t ng = 0;
    for (size_t i = 0; i < n;) {  /* runs of one key are the groups */
        size_t j = i;
        sitegroup *x = &g[ng++];
        *x = (sitegroup){ .key = k[i].key, .function = k[i].function, .file = k[i].file, .line = k[i].line,
                          .first = i };
        for (; j < n && !strcmp(k[j].key, k[i].key); j++) {
            order[j] = k[j].site;
            add_to(&x->sum, &v[k[j].site]);
        }
        x->count = j - i;
        i = j;
    }
    out->ng = ng;
    group_sort = sort;
    cmp_v = v;
    for (size_t i = 0; i < ng; i++) qsort(order + g[i].first, g[i].count, sizeof *order, cmp_member);
    if (ng) qsort(g, ng, sizeof *g, cmp_group);
    return 0;
}

void sitegroups_free(sitegroups *s)
{
    for (size_t i = 0; s->k && i < s->n; i++) key_free(&s->k[i]);
    free(s->k);
    free(s->g);
    free(s->order);
    memset(s, 0, sizeof *s);
}
