/* metatf_dtd.c — the Meta-TF DTD language: parser (docs/metatf.md, "The DTD").
 *
 * Line-oriented text; '#' starts a comment; tokens are separated by blanks,
 * '=' is a token of its own. Example (a trace of samples with a type name
 * from a string table and a list of sizes):
 *
 *   metatf-dtd 1
 *   name samples-1
 *   section types strings
 *   section events records
 *   field time 0 uint 4 delta 0          # shared, metadata field code 0
 *   record sample 1
 *     time
 *     field type text 2 sectionOffset types
 *     field n uint 1
 *     repeat sizes n
 *       field size uint 4
 *     end
 *   end
 *   record meta 2 = metadata
 *
 * Every error is one line "DTD line N: ..." with the line's byte offset.
 */
#include <stdlib.h>
#include <string.h>

#include "metatf_internal.h"

const char *const mtf_interp_names[MTF_I_COUNT_] = {
    "none", "default", "baseOffset", "delta", "stride", "sectionOffset", "sectionStride",
};
static const char *const type_names[] = { "uint", "int", "addr", "text", "bytes", "mixed" };
static const char *const predef_names[] = { "", "comment", "metadata", "section" };
static const char *const sect_names[] = { "records", "strings", "bytes" };

unsigned mtf_interp_args(unsigned interp)
{
    return interp == MTF_I_NONE ? 0 : interp == MTF_I_STRIDE || interp == MTF_I_SECTIONSTRIDE ? 2 : 1;
}

#define TOK_MAX 12

typedef struct parser {
    hatf_metatf_dtd *d;
    hatf_err *err;
    unsigned line;
    size_t line_off;
    const char *tok[TOK_MAX];
    size_t tlen[TOK_MAX];
    int ntok;
    /* open blocks: [0] the record, then groups and repeats */
    int depth;                 /* 0: top level; 1: in a record; more: nested */
    int block_node[MTF_DEPTH_MAX + 2];  /* GROUP/REPEAT node of each level (-1: the record) */
    int block_last[MTF_DEPTH_MAX + 2];  /* last node added at each level, or -1 */
    int block_first[MTF_DEPTH_MAX + 2];
    int cur_rec;
    int seen_magic, seen_record;
} parser;

#define PERR(p, code, fmt, ...) \
    hatf_err_set((p)->err, code, (p)->line_off, "DTD line %u: " fmt, (p)->line, __VA_ARGS__)
/* a message quoting token i (at most 40 bytes of it) */
#define FAILT(p, fmt, i) PERR(p, HATF_E_CORRUPT, fmt, (int)((p)->tlen[i] > 40 ? 40 : (p)->tlen[i]), (p)->tok[i])
#define FAIL0(p, msg) hatf_err_set((p)->err, HATF_E_CORRUPT, (p)->line_off, "DTD line %u: " msg, (p)->line)
#define LIMIT0(p, msg) hatf_err_set((p)->err, HATF_E_LIMIT, (p)->line_off, "DTD line %u: " msg, (p)->line)

static int tok_is(const parser *p, int i, const char *s)
{
    return i < p->ntok && p->tlen[i] == strlen(s) && memcmp(p->tok[i], s, p->tlen[i]) == 0;
}

static int lookup(const parser *p, int i, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (tok_is(p, i, names[k])) return k;
    return -1;
}

/* A name token: a letter, then letters, digits, '_', '.', '-'. */
static int name_ok(const parser *p, int i)
{
    size_t n = p->tlen[i];
    const char *s = p->tok[i];
    if (n == 0 || n >= MTF_NAME_MAX) return 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return 0;
    for (size_t k = 1; k < n; k++) {
        char c = s[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

static int get_name(parser *p, int i, char *out)
{
    if (i >= p->ntok) return FAIL0(p, "a name is missing");
    if (!name_ok(p, i)) return FAILT(p, "'%.*s' is not a name (a letter, then letters, digits, _ . -; at most 31)", i);
    memcpy(out, p->tok[i], p->tlen[i]);
    out[p->tlen[i]] = 0;
    return 0;
}

/* A number: decimal, 0x hex, or either with a leading '-' (two's complement). */
static int get_num(parser *p, int i, uint64_t *v)
{
    if (i >= p->ntok) return FAIL0(p, "a number is missing");
    const char *s = p->tok[i];
    size_t n = p->tlen[i], k = 0;
    int neg = 0;
    if (n && s[0] == '-') { neg = 1; k = 1; }
    unsigned base = 10;
    if (n - k > 2 && s[k] == '0' && (s[k + 1] == 'x' || s[k + 1] == 'X')) { base = 16; k += 2; }
    if (k >= n) return FAILT(p, "'%.*s' is not a number", i);
    uint64_t x = 0;
    for (; k < n; k++) {
        char c = s[k];
        unsigned dgt = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : base == 16 && c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : base == 16 && c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
        if (dgt >= base) return FAILT(p, "'%.*s' is not a number", i);
        if (x > (UINT64_MAX - dgt) / base) return FAILT(p, "'%.*s' does not fit in 64 bits", i);
        x = x * base + dgt;
    }
    *v = neg ? (uint64_t)0 - x : x;
    return 0;
}

static int find_section(const hatf_metatf_dtd *d, const char *name)
{
    for (size_t i = 0; i < d->nsects; i++)
        if (strcmp(d->sects[i].name, name) == 0) return (int)i;
    return -1;
}

/* "TYPE WIDTH [INTERP ARGS...]" from token i into *f. */
static int parse_encoding(parser *p, int i, mtf_decl *f)
{
    if (i >= p->ntok) return FAIL0(p, "a type is missing (uint, int, addr, text, bytes, mixed)");
    int t = lookup(p, i, type_names, 6);
    if (t < 0) return FAILT(p, "unknown type '%.*s' (uint, int, addr, text, bytes, mixed)", i);
    f->type = (uint8_t)t;
    i++;
    if (i >= p->ntok) return FAIL0(p, "a width is missing (0, 1, 2, 4, 8, a, v1, v2, v4)");
    static const char *const wn[] = { "0", "1", "2", "4", "8", "a", "v1", "v2", "v4" };
    static const uint8_t wc[] = { 0, 1, 2, 4, 8, MTF_W_ADDR, MTF_W_V1, MTF_W_V2, MTF_W_V4 };
    int w = lookup(p, i, wn, 9);
    if (w < 0) return FAILT(p, "unknown width '%.*s' (0, 1, 2, 4, 8, a, v1, v2, v4)", i);
    f->width = wc[w];
    i++;
    int in = MTF_I_NONE;
    if (i < p->ntok) {
        in = lookup(p, i, mtf_interp_names, MTF_I_COUNT_);
        if (in < 0)
            return FAILT(p, "unknown interpretation '%.*s' (none, default, baseOffset, delta, stride, "
                            "sectionOffset, sectionStride)", i);
        i++;
    }
    f->interp = (uint8_t)in;
    f->a3 = f->a4 = 0;
    int rc;
    if (in == MTF_I_SECTIONOFFSET || in == MTF_I_SECTIONSTRIDE) {
        char sn[MTF_NAME_MAX];
        if ((rc = get_name(p, i, sn))) return rc;
        int s = find_section(p->d, sn);
        if (s < 0) return FAILT(p, "no section '%.*s' declared before", i);
        if (p->d->sects[s].kind == MTF_S_RECORDS)
            return FAILT(p, "section '%.*s' holds records, not strings or bytes", i);
        f->a3 = (uint64_t)s;
        i++;
        if (in == MTF_I_SECTIONSTRIDE) {
            if ((rc = get_num(p, i, &f->a4))) return rc;
            if (f->a4 < 1 || f->a4 > 65536) return FAILT(p, "entry size '%.*s' is not in 1..65536", i);
            i++;
        }
        if (f->width == 0 || mtf_width_is_v(f->width))
            return FAIL0(p, "a section interpretation needs a width of 1, 2, 4, 8 or a bytes");
    } else if (in != MTF_I_NONE) {
        if ((rc = get_num(p, i, &f->a3))) return rc;
        i++;
        if (in == MTF_I_STRIDE) {
            if ((rc = get_num(p, i, &f->a4))) return rc;
            i++;
        }
    }
    if (i < p->ntok) return FAILT(p, "unexpected '%.*s' at the end of the line", i);
    int v = mtf_width_is_v(f->width);
    if (v && (f->type == MTF_T_UINT || f->type == MTF_T_INT || f->type == MTF_T_ADDR))
        return FAIL0(p, "a vfield width (v1, v2, v4) needs type text, bytes or mixed");
    if (!v && (f->type == MTF_T_TEXT || f->type == MTF_T_BYTES) && in != MTF_I_SECTIONOFFSET &&
        in != MTF_I_SECTIONSTRIDE)
        return FAIL0(p, "type text or bytes needs a vfield width (v1, v2, v4) or a section interpretation");
    if (v && in != MTF_I_NONE) return FAIL0(p, "a vfield takes no interpretation");
    return 0;
}

static int add_decl(parser *p, const mtf_decl *f)
{
    hatf_metatf_dtd *d = p->d;
    if (d->ndecls >= MTF_DECL_MAX) return LIMIT0(p, "more than 256 fields");
    mtf_decl *v = realloc(d->decls, (d->ndecls + 1) * sizeof *v);
    if (!v) return hatf_err_set(p->err, HATF_E_NOMEM, p->line_off, "out of memory");
    d->decls = v;
    d->decls[d->ndecls] = *f;
    return (int)d->ndecls++;
}

/* A new body node at the current level, its name unique there. @return its index or an error. */
static int add_node(parser *p, const char *name, uint8_t kind)
{
    hatf_metatf_dtd *d = p->d;
    int lvl = p->depth;
    for (int k = p->block_first[lvl]; k >= 0; k = d->nodes[k].next)
        if (strcmp(d->nodes[k].name, name) == 0)
            return PERR(p, HATF_E_CORRUPT, "'%s' is already a field here", name);
    if (d->nnodes >= MTF_NODE_MAX) return LIMIT0(p, "more than 4096 fields in records");
    mtf_node *v = realloc(d->nodes, (d->nnodes + 1) * sizeof *v);
    if (!v) return hatf_err_set(p->err, HATF_E_NOMEM, p->line_off, "out of memory");
    d->nodes = v;
    int n = (int)d->nnodes++;
    mtf_node *nd = &d->nodes[n];
    memset(nd, 0, sizeof *nd);
    strcpy(nd->name, name);
    nd->kind = kind;
    nd->decl = nd->child = nd->next = nd->count_node = -1;
    if (p->block_last[lvl] >= 0) d->nodes[p->block_last[lvl]].next = n;
    else if (p->block_node[lvl] >= 0) d->nodes[p->block_node[lvl]].child = n;
    else d->recs[p->cur_rec].first = n;
    if (p->block_first[lvl] < 0) p->block_first[lvl] = n;
    p->block_last[lvl] = n;
    return n;
}

static int open_block(parser *p, int node)
{
    if (p->depth >= MTF_DEPTH_MAX) return LIMIT0(p, "groups and repeats nested more than 8 deep");
    p->depth++;
    p->block_node[p->depth] = node;
    p->block_last[p->depth] = p->block_first[p->depth] = -1;
    return 0;
}

static int end_block(parser *p)
{
    hatf_metatf_dtd *d = p->d;
    int lvl = p->depth;
    int node = p->block_node[lvl];
    if (node >= 0 && d->nodes[node].child < 0)
        return PERR(p, HATF_E_CORRUPT, "'%s' has no fields", d->nodes[node].name);
    if (node < 0 && d->recs[p->cur_rec].predef == MTF_P_COMMENT) {  /* one text or bytes field */
        int f = d->recs[p->cur_rec].first;
        const mtf_node *n = f >= 0 ? &d->nodes[f] : NULL;
        if (!n || n->next >= 0 || n->kind != MTF_N_FIELD ||
            (d->decls[n->decl].type != MTF_T_TEXT && d->decls[n->decl].type != MTF_T_BYTES))
            return FAIL0(p, "a comment record has exactly one field, of type text or bytes");
    }
    p->depth--;
    return 0;
}

static int body_line(parser *p)
{
    hatf_metatf_dtd *d = p->d;
    char name[MTF_NAME_MAX];
    int rc;
    if (tok_is(p, 0, "end")) {
        if (p->ntok > 1) return FAILT(p, "unexpected '%.*s' after end", 1);
        return end_block(p);
    }
    if (tok_is(p, 0, "field")) {
        if ((rc = get_name(p, 1, name))) return rc;
        mtf_decl f;
        memset(&f, 0, sizeof f);
        strcpy(f.name, name);
        f.number = -1;
        if ((rc = parse_encoding(p, 2, &f))) return rc;
        int di = add_decl(p, &f);
        if (di < 0) return di;
        int n = add_node(p, name, MTF_N_FIELD);
        if (n < 0) return n;
        d->nodes[n].decl = di;
        return 0;
    }
    if (tok_is(p, 0, "group") || tok_is(p, 0, "repeat")) {
        int rep = tok_is(p, 0, "repeat");
        if ((rc = get_name(p, 1, name))) return rc;
        int lvl = p->depth;
        int count_node = -1;
        uint64_t count = 0;
        if (rep) {
            if (p->ntok < 3) return FAIL0(p, "repeat NAME COUNT: the count (a number or an earlier field) is missing");
            if (name_ok(p, 2)) {
                char cn[MTF_NAME_MAX];
                get_name(p, 2, cn);
                for (int k = p->block_first[lvl]; k >= 0; k = d->nodes[k].next)
                    if (strcmp(d->nodes[k].name, cn) == 0) count_node = k;
                if (count_node < 0 || d->nodes[count_node].kind != MTF_N_FIELD)
                    return FAILT(p, "no field '%.*s' before this repeat at its level", 2);
                const mtf_decl *cd = &d->decls[d->nodes[count_node].decl];
                if (cd->type != MTF_T_UINT || mtf_width_is_v(cd->width))
                    return FAILT(p, "the count field '%.*s' is not of type uint", 2);
            } else {
                if ((rc = get_num(p, 2, &count))) return rc;
                if (count > MTF_REPEAT_MAX) return FAILT(p, "count '%.*s' is more than 65535", 2);
            }
            if (p->ntok > 3) return FAILT(p, "unexpected '%.*s' at the end of the line", 3);
        } else if (p->ntok > 2) {
            return FAILT(p, "unexpected '%.*s' at the end of the line", 2);
        }
        int n = add_node(p, name, rep ? MTF_N_REPEAT : MTF_N_GROUP);
        if (n < 0) return n;
        d->nodes[n].count_node = count_node;
        d->nodes[n].count = (uint32_t)count;
        return open_block(p, n);
    }
    /* NAME [= SHARED]: a field declared at the top */
    if ((rc = get_name(p, 0, name))) return rc;
    int share = 0;
    char sn[MTF_NAME_MAX];
    strcpy(sn, name);
    if (p->ntok > 1) {
        if (!tok_is(p, 1, "=")) return FAILT(p, "unexpected '%.*s' (NAME or NAME = FIELD, or field, group, repeat, end)", 1);
        if ((rc = get_name(p, 2, sn))) return rc;
        if (p->ntok > 3) return FAILT(p, "unexpected '%.*s' at the end of the line", 3);
        share = 1;
    }
    int di = -1;
    for (size_t k = 0; k < d->ndecls; k++)
        if (d->decls[k].shared && strcmp(d->decls[k].name, sn) == 0) { di = (int)k; break; }
    (void)share;
    if (di < 0)
        return PERR(p, HATF_E_CORRUPT, "no field '%s' declared at the top", sn);
    int n = add_node(p, name, MTF_N_FIELD);
    if (n < 0) return n;
    d->nodes[n].decl = di;
    return 0;
}

static int top_line(parser *p)
{
    hatf_metatf_dtd *d = p->d;
    int rc;
    if (tok_is(p, 0, "name")) {
        if (p->ntok != 2) return FAIL0(p, "name takes one word");
        if (d->name[0]) return FAIL0(p, "a second name line");
        if (p->tlen[1] >= sizeof d->name) return FAIL0(p, "the name is longer than 63 bytes");
        for (size_t k = 0; k < p->tlen[1]; k++)
            if ((unsigned char)p->tok[1][k] < 0x21 || (unsigned char)p->tok[1][k] > 0x7e || p->tok[1][k] == '"')
                return FAIL0(p, "the name has a byte that is not printable ASCII");
        memcpy(d->name, p->tok[1], p->tlen[1]);
        return 0;
    }
    if (tok_is(p, 0, "tag")) {
        uint64_t w;
        if (p->ntok != 2) return FAIL0(p, "tag takes one width: 1, 2 or 4");
        if ((rc = get_num(p, 1, &w))) return rc;
        if (w != 1 && w != 2 && w != 4) return FAILT(p, "tag width '%.*s' is not 1, 2 or 4", 1);
        if (p->seen_record) return FAIL0(p, "tag comes before the first record");
        d->tag_width = (unsigned)w;
        return 0;
    }
    if (tok_is(p, 0, "events")) {
        if (p->ntok != 2 || !tok_is(p, 1, "hatf")) return FAIL0(p, "events takes one word: hatf");
        d->events = 1;
        return 0;
    }
    if (tok_is(p, 0, "section")) {
        char name[MTF_NAME_MAX];
        if ((rc = get_name(p, 1, name))) return rc;
        if (p->ntok != 3) return FAIL0(p, "section NAME records|strings|bytes");
        int k = lookup(p, 2, sect_names, 3);
        if (k < 0) return FAILT(p, "unknown section kind '%.*s' (records, strings, bytes)", 2);
        if (find_section(d, name) >= 0) return FAILT(p, "a second section '%.*s'", 1);
        if (d->nsects >= MTF_SECT_MAX) return LIMIT0(p, "more than 16 sections");
        strcpy(d->sects[d->nsects].name, name);
        d->sects[d->nsects++].kind = (uint8_t)k;
        return 0;
    }
    if (tok_is(p, 0, "field")) {
        mtf_decl f;
        memset(&f, 0, sizeof f);
        f.number = -1;
        f.shared = 1;
        if ((rc = get_name(p, 1, f.name))) return rc;
        for (size_t k = 0; k < d->ndecls; k++)
            if (d->decls[k].shared && strcmp(d->decls[k].name, f.name) == 0)
                return FAILT(p, "a second field '%.*s' at the top", 1);
        int i = 2;
        if (i < p->ntok && p->tlen[i] && p->tok[i][0] >= '0' && p->tok[i][0] <= '9') {
            uint64_t num;
            if ((rc = get_num(p, i, &num))) return rc;
            if (num > 255) return FAILT(p, "field code '%.*s' is more than 255", i);
            if (d->by_number[num] >= 0) return FAILT(p, "field code '%.*s' is taken", i);
            f.number = (int)num;
            i++;
        }
        if ((rc = parse_encoding(p, i, &f))) return rc;
        int di = add_decl(p, &f);
        if (di < 0) return di;
        if (f.number >= 0) d->by_number[f.number] = (int16_t)di;
        return 0;
    }
    if (tok_is(p, 0, "record")) {
        char name[MTF_NAME_MAX];
        uint64_t tag;
        if ((rc = get_name(p, 1, name))) return rc;
        if ((rc = get_num(p, 2, &tag))) return rc;
        if (d->tag_width < 4 && tag >> (8 * d->tag_width))
            return FAILT(p, "tag '%.*s' does not fit the tag width", 2);
        if (tag > UINT32_MAX) return FAILT(p, "tag '%.*s' does not fit in 4 bytes", 2);
        int predef = MTF_P_NONE;
        if (p->ntok > 3) {
            if (!tok_is(p, 3, "=") || p->ntok != 5) return FAIL0(p, "record NAME TAG [= comment|metadata|section]");
            predef = lookup(p, 4, predef_names, 4);
            if (predef <= 0) return FAILT(p, "unknown predefined record '%.*s' (comment, metadata, section)", 4);
        }
        for (size_t k = 0; k < d->nrecs; k++) {
            if (strcmp(d->recs[k].name, name) == 0) return FAILT(p, "a second record '%.*s'", 1);
            if (d->recs[k].tag == tag) return FAILT(p, "tag '%.*s' is taken by another record", 2);
        }
        if (d->nrecs >= MTF_REC_MAX) return LIMIT0(p, "more than 256 records");
        mtf_rec *v = realloc(d->recs, (d->nrecs + 1) * sizeof *v);
        if (!v) return hatf_err_set(p->err, HATF_E_NOMEM, p->line_off, "out of memory");
        d->recs = v;
        mtf_rec *r = &d->recs[d->nrecs];
        memset(r, 0, sizeof *r);
        strcpy(r->name, name);
        r->tag = (uint32_t)tag;
        r->predef = (uint8_t)predef;
        r->first = -1;
        p->cur_rec = (int)d->nrecs++;
        p->seen_record = 1;
        if (predef == MTF_P_METADATA || predef == MTF_P_SECTION) return 0;  /* their layout is Meta-TF's: no body */
        p->depth = 0;
        p->block_node[1] = -1;
        p->depth = 1;
        p->block_last[1] = p->block_first[1] = -1;
        return 0;
    }
    if (tok_is(p, 0, "end")) return FAIL0(p, "end without a record, group or repeat");
    return FAILT(p, "unknown line '%.*s' (name, tag, events, section, field, record)", 0);
}

/* Split line [s, e) into tokens; '#' starts a comment. @return 0 or an error. */
static int tokenize(parser *p, const char *s, const char *e)
{
    p->ntok = 0;
    while (s < e) {
        char c = *s;
        if (c == '#') break;
        if (c == ' ' || c == '\t' || c == '\r') { s++; continue; }
        if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
            return FAIL0(p, "a byte that is not printable ASCII (outside a comment)");
        if (p->ntok >= TOK_MAX) return FAIL0(p, "more than 12 words");
        const char *t = s;
        if (c == '=') s++;
        else
            while (s < e && *s != ' ' && *s != '\t' && *s != '\r' && *s != '#' && *s != '=' &&
                   (unsigned char)*s >= 0x21 && (unsigned char)*s < 0x7f)
                s++;
        p->tok[p->ntok] = t;
        p->tlen[p->ntok++] = (size_t)(s - t);
    }
    return 0;
}

HATF_API hatf_metatf_dtd *hatf_metatf_dtd_parse(const char *text, size_t len, hatf_err *err)
{
    hatf_err local = { 0 };
    if (!err) err = &local;
    if (!text && len) { hatf_err_set(err, HATF_E_USAGE, 0, "no DTD text"); return NULL; }
    if (len > MTF_DTD_MAX) { hatf_err_set(err, HATF_E_LIMIT, 0, "DTD longer than %u bytes", MTF_DTD_MAX); return NULL; }
    hatf_metatf_dtd *d = calloc(1, sizeof *d);
    if (!d) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); return NULL; }
    d->tag_width = 1;
    memset(d->by_number, 0xff, sizeof d->by_number);
    parser p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.err = err;
    int rc = 0;
    size_t pos = 0;
    while (pos < len && rc == 0) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        p.line++;
        p.line_off = pos;
        rc = tokenize(&p, text + pos, text + end);
        if (rc == 0 && p.ntok > 0) {
            if (!p.seen_magic) {
                if (!(p.ntok == 2 && tok_is(&p, 0, "metatf-dtd"))) {
                    rc = FAIL0(&p, "the first line must be 'metatf-dtd 1'");
                } else if (!tok_is(&p, 1, "1")) {
                    rc = PERR(&p, HATF_E_VERSION, "DTD version '%.*s' is newer than this reader (1)", (int)(p.tlen[1] > 40 ? 40 : p.tlen[1]), p.tok[1]);
                }
                p.seen_magic = 1;
            } else {
                rc = p.depth > 0 ? body_line(&p) : top_line(&p);
            }
        }
        pos = end + 1;
    }
    if (rc == 0 && !p.seen_magic) {
        p.line_off = 0;
        rc = hatf_err_set(err, HATF_E_CORRUPT, 0, "DTD line 1: empty DTD, the first line must be 'metatf-dtd 1'");
    }
    if (rc == 0 && p.depth > 0) {
        const char *what = p.block_node[p.depth] >= 0 ? d->nodes[p.block_node[p.depth]].name : d->recs[p.cur_rec].name;
        rc = hatf_err_set(err, HATF_E_CORRUPT, len, "DTD line %u: the DTD ends inside '%s' (no end)", p.line, what);
    }
    if (rc == 0 && d->nrecs == 0)
        rc = hatf_err_set(err, HATF_E_CORRUPT, len, "DTD line %u: the DTD declares no record", p.line);
    if (rc == 0) {
        int has_records = 0;
        for (size_t k = 0; k < d->nsects; k++) has_records |= d->sects[k].kind == MTF_S_RECORDS;
        if (!has_records) rc = hatf_err_set(err, HATF_E_CORRUPT, len, "DTD line %u: the DTD declares no records section", p.line);
    }
    if (rc) {
        hatf_metatf_dtd_free(d);
        return NULL;
    }
    return d;
}

HATF_API void hatf_metatf_dtd_free(hatf_metatf_dtd *d)
{
    if (!d) return;
    free(d->decls);
    free(d->nodes);
    free(d->recs);
    free(d);
}

HATF_API const char *hatf_metatf_dtd_name(const hatf_metatf_dtd *d) { return d->name; }
HATF_API int hatf_metatf_dtd_events(const hatf_metatf_dtd *d) { return d->events; }

const mtf_rec *mtf_dtd_record(const hatf_metatf_dtd *d, uint32_t tag)
{
    for (size_t k = 0; k < d->nrecs; k++)
        if (d->recs[k].tag == tag) return &d->recs[k];
    return NULL;
}
