/* folded.c — the sites' call chains for flame graphs (folded.h). */
#include <stdlib.h>
#include <string.h>

#include "folded.h"

/* Append a node to a folded chain, after a ';' unless it is the first. */
static void chain_add(hatf_buf *line, const char *node)
{
    if (line->len) hatf_buf_append(line, ";", 1);
    hatf_buf_append(line, node, strlen(node));
}

char *folded_chain(frames *fr, uint64_t stack)
{
    size_t depth = fr->r ? hatf_reader_stack_depth(fr->r) : 0;
    hatf_buf line;
    hatf_buf_init(&line);
    char node[1024];
    const uint64_t *f;
    size_t n = sites_stack(fr->r, stack, &f);
    if (!n) chain_add(&line, stack ? "(stack not in the trace)" : "(no stack)");
    else if (n >= depth && depth) chain_add(&line, SITES_TRUNCATED);  /* its root is not the real one */
    for (size_t k = n; k-- > 0;) {  /* outermost first */
        frames_node(fr, f[k], node, sizeof node);
        chain_add(&line, node);
        const srcline *in;
        for (size_t j = frames_inlined(fr, f[k], &in); j-- > 0;) {  /* then what it inlined, outermost first */
            frames_inlined_node(fr, &in[j], node, sizeof node);
            chain_add(&line, node);
        }
    }
    hatf_buf_append(&line, "", 1);
    char *chain = line.failed ? NULL : strdup((const char *)line.p);
    hatf_buf_free(&line);
    return chain;
}

static int cmp_folded(const void *a, const void *b)
{
    return strcmp(((const folded *)a)->chain, ((const folded *)b)->chain);
}

/* Sort s's chains and sum the runs of one chain into their first. */
static void merge(folded_set *s)
{
    if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_folded);
    size_t out = 0;
    for (size_t i = 0; i < s->n;) {
        size_t j = i + 1;
        folded *x = &s->v[out++];
        if (x != &s->v[i]) *x = s->v[i];
        for (; j < s->n && !strcmp(s->v[j].chain, x->chain); j++) {
            for (int fig = 0; fig < FOLDED_NFIG; fig++) x->value[fig] += s->v[j].value[fig];
            free(s->v[j].chain);
        }
        i = j;
    }
    s->n = out;
}

int folded_sorted(folded_set *out, const site *v, size_t n, frames *fr, int sort)
{
    memset(out, 0, sizeof *out);
    if (!(out->v = calloc(n ? n : 1, sizeof *out->v))) return -1;
    out->shown = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t value = sites_key(&v[i], sort);
        if (!value) continue;  /* nothing to draw */
        if (!(out->v[out->n].chain = folded_chain(fr, v[i].stack))) return -1;
        out->v[out->n++].value[0] = value;
    }
    merge(out);
    return 0;
}

static const site *rank_v;
static int rank_key;
static int cmp_rank(const void *a, const void *b)
{
    const site *x = &rank_v[*(const size_t *)a], *y = &rank_v[*(const size_t *)b];
    uint64_t kx = sites_key(x, rank_key), ky = sites_key(y, rank_key);
    if (kx != ky) return kx > ky ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int folded_all(folded_set *out, const site *v, size_t n, frames *fr, uint64_t top)
{
    memset(out, 0, sizeof *out);
    out->depth = fr->r ? hatf_reader_stack_depth(fr->r) : 0;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    unsigned char *mark = calloc(n ? n : 1, 1);
    out->v = calloc(n ? n : 1, sizeof *out->v);
    int rc = idx && mark && out->v ? 0 : -1;
    for (size_t i = 0; i < n && !rc; i++) {
        for (int fig = 0; fig < FOLDED_NFIG; fig++) out->totals[fig] += sites_key(&v[i], fig);
        idx[i] = i;
        mark[i] = !top || n <= top;
    }
    for (int fig = 0; fig < FOLDED_NFIG && !rc && top && n > top; fig++) {
        rank_v = v, rank_key = fig;
        qsort(idx, n, sizeof *idx, cmp_rank);
        for (size_t i = 0; i < top; i++) mark[idx[i]] = 1;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (!mark[i]) continue;
        out->shown++;
        folded *x = &out->v[out->n];
        int any = 0;
        for (int fig = 0; fig < FOLDED_NFIG; fig++) any |= (x->value[fig] = sites_key(&v[i], fig)) != 0;
        if (!any) continue;
        const uint64_t *f;
        size_t k = sites_stack(fr->r, v[i].stack, &f);
        x->cut = out->depth && k >= out->depth;  /* as folded_chain marks it */
        if (!(x->chain = folded_chain(fr, v[i].stack))) { rc = -1; break; }
        out->n++;
    }
    if (!rc) merge(out);
    free(idx);
    free(mark);
    return rc;
}

void folded_free(folded_set *s)
{
    for (size_t i = 0; s->v && i < s->n; i++) free(s->v[i].chain);
    free(s->v);
    memset(s, 0, sizeof *s);
}
