/* container_tables.c — call stacks, the load map and symbols in the tables
 * stream of a container (docs/format-container.md, "Tables chunk").
 *
 * Entries (after the common type, id, length):
 *   3 stack   id = stack id   frames as varints, innermost first
 *   4 module  id = module id  start, end, bias, build-id length (varints), build id, path
 *   5 symbol  id = address    module id, offset in function (varints), name
 *   7 stack depth  id = the recording's limit of frames per stack (no bytes)
 *   8 resident     id = ns since the trace's start; resident bytes, the recorder's own (varints)
 * The reader keeps them in flat arrays, sorted once the file is scanned, so
 * a lookup is a binary search. When an id comes twice the first one wins: the
 * sort puts equal ids in order of arrival and the later ones are dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "container_internal.h"

/* ---- writer ---------------------------------------------------------------- */

/* An entry's bytes, as the writer stores them and a tables-only reader
 * (hatf_tables_*_) takes them. @return the length. */
static size_t stack_bytes(const uint64_t *frames, size_t n, uint8_t *buf)
{
    if (n > HATF_STACK_MAX) n = HATF_STACK_MAX;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += hatf_varint_put(buf + k, frames[i]);
    return k;
}

static size_t resident_bytes(uint64_t bytes, uint64_t own, uint8_t *buf)
{
    size_t k = hatf_varint_put(buf, bytes);
    return k + hatf_varint_put(buf + k, own);
}

static size_t module_bytes(const hatf_module *m, uint8_t *buf, size_t cap)
{
    size_t k = 0;
    uint32_t bl = m->build_id_len > HATF_BUILD_ID_MAX ? HATF_BUILD_ID_MAX : m->build_id_len;
    k += hatf_varint_put(buf + k, m->start);
    k += hatf_varint_put(buf + k, m->end);
    k += hatf_varint_put(buf + k, m->bias);
    k += hatf_varint_put(buf + k, bl);
    memcpy(buf + k, m->build_id, bl);
    k += bl;
    size_t pl = m->path ? strlen(m->path) : 0;
    if (pl > cap - k) pl = cap - k;
    memcpy(buf + k, m->path, pl);
    return k + pl;
}

static size_t symbol_bytes(const hatf_symbol *s, uint8_t *buf, size_t cap)
{
    size_t k = 0;
    k += hatf_varint_put(buf + k, s->module);
    k += hatf_varint_put(buf + k, s->offset);
    size_t nl = s->name ? strlen(s->name) : 0;
    if (nl > cap - k) nl = cap - k;
    memcpy(buf + k, s->name, nl);
    return k + nl;
}

HATF_API int hatf_writer_stack(hatf_writer *w, uint64_t id, const uint64_t *frames, size_t n)
{
    uint8_t buf[HATF_STACK_MAX * HATF_VARINT_MAX];
    return hatf_writer_table_entry_(w, HATF_TAB_STACK, id, buf, stack_bytes(frames, n, buf));
}

HATF_API int hatf_writer_stack_depth(hatf_writer *w, unsigned depth)
{
    if (depth > HATF_STACK_MAX) depth = HATF_STACK_MAX;
    return hatf_writer_table_entry_(w, HATF_TAB_STACK_DEPTH, depth, "", 0);
}

int hatf_writer_resident_put_(hatf_writer *w, uint64_t time_ns, uint64_t bytes, uint64_t own)
{
    uint8_t buf[2 * HATF_VARINT_MAX];
    return hatf_writer_table_entry_(w, HATF_TAB_RESIDENT, time_ns, buf, resident_bytes(bytes, own, buf));
}

HATF_API int hatf_writer_module(hatf_writer *w, const hatf_module *m)
{
    uint8_t buf[HATF_STR_MAX];
    return hatf_writer_table_entry_(w, HATF_TAB_MODULE, m->id, buf, module_bytes(m, buf, sizeof buf));
}

HATF_API int hatf_writer_symbol(hatf_writer *w, const hatf_symbol *s)
{
    uint8_t buf[HATF_STR_MAX];
    return hatf_writer_table_entry_(w, HATF_TAB_SYMBOL, s->addr, buf, symbol_bytes(s, buf, sizeof buf));
}

/* ---- a reader of tables alone (the text form's table lines) ---------------- */

hatf_reader *hatf_tables_new_(void)
{
    hatf_reader *r = calloc(1, sizeof *r);
    if (r) {
        r->fd = -1;
        r->complete = 1;
    }
    return r;
}

int hatf_tables_stack_(hatf_reader *r, uint64_t id, const uint64_t *frames, size_t n)
{
    uint8_t buf[HATF_STACK_MAX * HATF_VARINT_MAX];
    return hatf_stacktab_add_(r, HATF_TAB_STACK, id, buf, stack_bytes(frames, n, buf));
}

int hatf_tables_module_(hatf_reader *r, const hatf_module *m)
{
    uint8_t buf[HATF_STR_MAX];
    return hatf_stacktab_add_(r, HATF_TAB_MODULE, m->id, buf, module_bytes(m, buf, sizeof buf));
}

int hatf_tables_symbol_(hatf_reader *r, const hatf_symbol *s)
{
    uint8_t buf[HATF_STR_MAX];
    return hatf_stacktab_add_(r, HATF_TAB_SYMBOL, s->addr, buf, symbol_bytes(s, buf, sizeof buf));
}

int hatf_tables_resident_(hatf_reader *r, uint64_t time_ns, uint64_t bytes, uint64_t own)
{
    uint8_t buf[2 * HATF_VARINT_MAX];
    return hatf_resident_add_(r, time_ns, buf, resident_bytes(bytes, own, buf));
}

void hatf_tables_stack_depth_(hatf_reader *r, unsigned depth)
{
    r->stack_depth = depth > HATF_STACK_MAX ? HATF_STACK_MAX : depth;
}

/* ---- reader ---------------------------------------------------------------- */

typedef struct stack_ent { uint64_t id; size_t off, n; } stack_ent;
/* seq: order of arrival, which qsort does not keep */
typedef struct sym_ent { hatf_symbol s; size_t seq; } sym_ent;
typedef struct mod_ent { hatf_module m; size_t seq; } mod_ent;

struct hatf_stacktab {
    stack_ent *st;
    size_t nst, capst;
    uint64_t *fr;             /* frames of all stacks */
    size_t nfr, capfr;
    mod_ent *in;              /* modules as read, until finish */
    size_t nin, capin;
    hatf_module *mod;         /* after finish: one per id, by id */
    size_t nmod;
    sym_ent *sym;
    size_t nsym, capsym;
};

/* Grow *v (elements of size sz) to hold one more. @return 0 or -1. */
static int grow(void *v, size_t *cap, size_t n, size_t sz, size_t more)
{
    if (n + more <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < n + more) c *= 2;
    void *p = realloc(*(void **)v, c * sz);
    if (!p) return -1;
    *(void **)v = p;
    *cap = c;
    return 0;
}

int hatf_stacktab_add_(hatf_reader *r, unsigned type, uint64_t id, const uint8_t *p, size_t n)
{
    if (!r->stk && !(r->stk = calloc(1, sizeof *r->stk))) return HATF_E_NOMEM;
    struct hatf_stacktab *t = r->stk;
    size_t i = 0, k;
    if (type == HATF_TAB_STACK) {
        if (grow(&t->fr, &t->capfr, t->nfr, sizeof *t->fr, n) ||
            grow(&t->st, &t->capst, t->nst, sizeof *t->st, 1))
            return HATF_E_NOMEM;
        size_t nf = 0;
        while (i < n) {
            if (!(k = hatf_varint_get(p + i, n - i, &t->fr[t->nfr + nf]))) return HATF_E_CORRUPT;
            i += k;
            nf++;
        }
        t->st[t->nst++] = (stack_ent){ id, t->nfr, nf };
        t->nfr += nf;
        return 0;
    }
    if (type == HATF_TAB_MODULE) {
        hatf_module m;
        uint64_t bl;
        memset(&m, 0, sizeof m);
        m.id = id;
        if (!(k = hatf_varint_get(p + i, n - i, &m.start))) return HATF_E_CORRUPT;
        i += k;
        if (!(k = hatf_varint_get(p + i, n - i, &m.end))) return HATF_E_CORRUPT;
        i += k;
        if (!(k = hatf_varint_get(p + i, n - i, &m.bias))) return HATF_E_CORRUPT;
        i += k;
        if (!(k = hatf_varint_get(p + i, n - i, &bl)) || bl > HATF_BUILD_ID_MAX || bl > n - i - k) return HATF_E_CORRUPT;
        i += k;
        memcpy(m.build_id, p + i, bl);
        m.build_id_len = (uint32_t)bl;
        i += bl;
        if (grow(&t->in, &t->capin, t->nin, sizeof *t->in, 1) || !(m.path = hatf_strndup_(p + i, n - i)))
            return HATF_E_NOMEM;
        t->in[t->nin] = (mod_ent){ m, t->nin };
        t->nin++;
        return 0;
    }
    /* HATF_TAB_SYMBOL */
    hatf_symbol s;
    s.addr = id;
    if (!(k = hatf_varint_get(p + i, n - i, &s.module))) return HATF_E_CORRUPT;
    i += k;
    if (!(k = hatf_varint_get(p + i, n - i, &s.offset))) return HATF_E_CORRUPT;
    i += k;
    if (grow(&t->sym, &t->capsym, t->nsym, sizeof *t->sym, 1) || !(s.name = hatf_strndup_(p + i, n - i)))
        return HATF_E_NOMEM;
    t->sym[t->nsym] = (sym_ent){ s, t->nsym };
    t->nsym++;
    return 0;
}

/* Sort by key, then by order of arrival, so the first of equal keys comes first. */
static int cmp_key(uint64_t a, uint64_t b, size_t seq_a, size_t seq_b)
{
    if (a != b) return a < b ? -1 : 1;
    return seq_a < seq_b ? -1 : seq_a > seq_b;
}

static int cmp_stack(const void *a, const void *b)
{
    const stack_ent *x = a, *y = b;
    /* Frames are stored in order of arrival, so off follows it; only an entry
     * without frames shares its off with the next one: n puts it first. */
    int c = cmp_key(x->id, y->id, x->off, y->off);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

static int cmp_sym(const void *a, const void *b)
{
    const sym_ent *x = a, *y = b;
    return cmp_key(x->s.addr, y->s.addr, x->seq, y->seq);
}

static int cmp_mod(const void *a, const void *b)
{
    const mod_ent *x = a, *y = b;
    return cmp_key(x->m.id, y->m.id, x->seq, y->seq);
}

int hatf_stacktab_finish_(hatf_reader *r)
{
    struct hatf_stacktab *t = r->stk;
    if (!t) return 0;
    size_t k = 0;
    /* qsort's base must not be NULL, even for 0 elements (found by fuzz_container) */
    if (t->nst) qsort(t->st, t->nst, sizeof *t->st, cmp_stack);
    for (size_t i = 0; i < t->nst; i++)
        if (!k || t->st[i].id != t->st[k - 1].id) t->st[k++] = t->st[i];
    t->nst = k;
    if (t->nsym) qsort(t->sym, t->nsym, sizeof *t->sym, cmp_sym);
    k = 0;
    for (size_t i = 0; i < t->nsym; i++) {
        if (!k || t->sym[i].s.addr != t->sym[k - 1].s.addr) t->sym[k++] = t->sym[i];
        else free((char *)t->sym[i].s.name);
    }
    t->nsym = k;
    if (!t->nin) return 0;
    qsort(t->in, t->nin, sizeof *t->in, cmp_mod);
    if (!(t->mod = malloc(t->nin * sizeof *t->mod))) return HATF_E_NOMEM;
    for (size_t i = 0; i < t->nin; i++) {
        if (!t->nmod || t->in[i].m.id != t->mod[t->nmod - 1].id) t->mod[t->nmod++] = t->in[i].m;
        else free((char *)t->in[i].m.path);
    }
    free(t->in);
    t->in = NULL;
    t->nin = t->capin = 0;
    return 0;
}

void hatf_stacktab_free_(hatf_reader *r)
{
    struct hatf_stacktab *t = r->stk;
    if (!t) return;
    for (size_t i = 0; i < t->nin; i++) free((char *)t->in[i].m.path);
    for (size_t i = 0; i < t->nmod; i++) free((char *)t->mod[i].path);
    for (size_t i = 0; i < t->nsym; i++) free((char *)t->sym[i].s.name);
    free(t->st);
    free(t->fr);
    free(t->in);
    free(t->mod);
    free(t->sym);
    free(t);
    r->stk = NULL;
}

HATF_API size_t hatf_reader_stack(const hatf_reader *r, uint64_t id, const uint64_t **frames)
{
    const struct hatf_stacktab *t = r->stk;
    if (!t) return 0;
    size_t lo = 0, hi = t->nst;
    while (lo < hi) {  /* first entry with id >= the one sought */
        size_t mid = lo + (hi - lo) / 2;
        if (t->st[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo == t->nst || t->st[lo].id != id) return 0;
    if (frames) *frames = t->fr + t->st[lo].off;
    return t->st[lo].n;
}

HATF_API size_t hatf_reader_stack_count(const hatf_reader *r)
{
    return r->stk ? r->stk->nst : 0;
}

HATF_API size_t hatf_reader_stack_at(const hatf_reader *r, size_t i, uint64_t *id, const uint64_t **frames)
{
    const struct hatf_stacktab *t = r->stk;
    if (!t || i >= t->nst) return 0;
    *id = t->st[i].id;
    *frames = t->fr + t->st[i].off;
    return t->st[i].n;
}

static int cmp_resident(const void *a, const void *b)
{
    const hatf_resident *x = a, *y = b;
    return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

int hatf_resident_add_(hatf_reader *r, uint64_t time_ns, const uint8_t *p, size_t len)
{
    uint64_t bytes, own = 0;
    size_t k = hatf_varint_get(p, len, &bytes);
    if (!k) return HATF_E_CORRUPT;
    if (k < len && !hatf_varint_get(p + k, len - k, &own)) return HATF_E_CORRUPT;
    if (own > bytes) own = bytes;  /* a hostile file's: readers subtract own from bytes */
    if (r->nres == r->capres) {
        size_t cap = r->capres ? 2 * r->capres : 64;
        hatf_resident *v = realloc(r->res, cap * sizeof *v);
        if (!v) return HATF_E_NOMEM;
        r->res = v;
        r->capres = cap;
    }
    if (r->nres && time_ns < r->res[r->nres - 1].time_ns) r->res_unsorted = 1;
    r->res[r->nres++] = (hatf_resident){ time_ns, bytes, own };
    return 0;
}

HATF_API size_t hatf_reader_resident(const hatf_reader *r, const hatf_resident **v)
{
    hatf_reader *w = (hatf_reader *)r;  /* sorted once, on first use */
    if (w->res_unsorted) {
        qsort(w->res, w->nres, sizeof *w->res, cmp_resident);
        w->res_unsorted = 0;
    }
    *v = r->res;
    return r->nres;
}

HATF_API unsigned hatf_reader_stack_depth(const hatf_reader *r)
{
    return r->stack_depth;
}

HATF_API const hatf_symbol *hatf_reader_symbol(const hatf_reader *r, uint64_t addr)
{
    const struct hatf_stacktab *t = r->stk;
    if (!t) return NULL;
    size_t lo = 0, hi = t->nsym;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->sym[mid].s.addr < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->nsym && t->sym[lo].s.addr == addr ? &t->sym[lo].s : NULL;
}

HATF_API size_t hatf_reader_modules(const hatf_reader *r, const hatf_module **mods)
{
    const struct hatf_stacktab *t = r->stk;
    if (mods) *mods = t ? t->mod : NULL;
    return t ? t->nmod : 0;
}
