/* metatf_read.c — the Meta-TF reader, driven by the file's DTD
 * (docs/metatf.md). Nothing here knows HATF: records are read by walking the
 * DTD's description of them; metatf_events.c maps a DTD's records to heap
 * events when the DTD says "events hatf".
 *
 * The file (integers in the byte order of byte 6; docs/metatf.md, "The file"):
 *
 *   0   4  magic 7f 4d 54 46 ("\177MTF")
 *   4   1  version 1
 *   5   1  address class: 1 = 32-bit, 2 = 64-bit (width "a" is 4 or 8 bytes)
 *   6   1  byte order: 1 = little-endian, 2 = big-endian
 *   7   1  DTD form: 1 = embedded text, 2 = URL
 *   8   4  number of sections (the DTD's, in its order)
 *   12  4  L, bytes of DTD text or URL
 *   16  8  number of records in all records sections (all ones: not known)
 *   24  L  the DTD text or its URL
 *   24+L   per section: offset 8, length 8 (all ones: to the end of the
 *          file), count 8 (records, or strings; all ones: not known)
 *
 * Example: a 64-bit big-endian file whose embedded DTD is 300 bytes, two
 * sections: 7f 4d 54 46 01 02 02 01 00000002 0000012c 0000000000000007 ...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "metatf_read.h"

#define ITEMS_MAX (1u << 20)   /* values in one record (repeats of zero-width fields included) */
/* ... and at most ITEMS_FREE plus ITEMS_PER_BYTE for each byte the record has
 * taken so far: the work of a record follows its bytes, so a file of 1-byte
 * records that each repeat a zero-width field 65535 times (1.2 KB) is refused
 * at its first record instead of keeping readers busy for minutes */
#define ITEMS_FREE 4096
#define ITEMS_PER_BYTE 64

static uint64_t load(const hatf_metatf_reader *r, const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    if (r->little)
        for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
    else
        for (unsigned i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}


#define RFAIL(r, code, at, ...) hatf_err_set(&(r)->err, code, at, __VA_ARGS__)

/* The DTD a URL names: a file: URL or a path, relative to the trace's folder.
 * @return its text (malloc'd) or NULL with err set. */
static char *read_dtd_url(const char *url, const char *trace_path, size_t *len, hatf_err *err)
{
    const char *path = url;
    if (strncmp(url, "file://", 7) == 0) path = url + 7;
    else if (strncmp(url, "file:", 5) == 0) path = url + 5;
    else if (strstr(url, "://")) {
        hatf_err_set(err, HATF_E_CORRUPT, 24, "the DTD is not embedded but at '%.100s', and this reader fetches no URL "
                     "(a file: URL or a path is read)", url);
        return NULL;
    }
    char full[4200];
    const char *slash = trace_path ? strrchr(trace_path, '/') : NULL;
    if (path[0] != '/' && slash)
        snprintf(full, sizeof full, "%.*s/%s", (int)(slash - trace_path), trace_path, path);
    else
        snprintf(full, sizeof full, "%s", path);
    /* O_NONBLOCK: opening a FIFO named there would wait for a writer forever;
     * the file is then refused for not being a regular one (for which the
     * flag changes nothing) */
    int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MTF_DTD_MAX) {
        hatf_err_set(err, HATF_E_IO, 24, "the DTD at '%.100s': %s", url,
                     fd < 0 ? strerror(errno) : "not a regular file of at most 1 MiB");
        if (fd >= 0) close(fd);
        return NULL;
    }
    char *t = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (t && got < (size_t)st.st_size) {
        ssize_t n = read(fd, t + got, (size_t)st.st_size - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (!t || got != (size_t)st.st_size) {
        free(t);
        hatf_err_set(err, t ? HATF_E_IO : HATF_E_NOMEM, 24, "the DTD at '%.100s': cannot read it", url);
        return NULL;
    }
    *len = got;
    return t;
}

static void init_state(hatf_metatf_reader *r)
{
    const hatf_metatf_dtd *d = r->dtd;
    for (size_t i = 0; i < d->ndecls; i++) {
        const mtf_decl *f = &d->decls[i];
        mtf_state *s = &r->st[i];
        s->width = s->lnz = f->width;
        s->interp = f->interp;
        s->a3 = f->a3;
        s->a4 = f->a4;
        s->prev = f->a3;
        if (f->interp == MTF_I_DEFAULT || f->interp == MTF_I_STRIDE) s->width = 0;
    }
}

/* Move to the next records section from section index `from`. */
static void enter_records(hatf_metatf_reader *r, size_t from)
{
    r->cur = from;
    while (r->cur < r->dtd->nsects && r->dtd->sects[r->cur].kind != MTF_S_RECORDS) r->cur++;
    if (r->cur < r->dtd->nsects) {
        r->pos = r->sect[r->cur].off;
        r->end = r->sect[r->cur].off + r->sect[r->cur].len;
        r->in_sect = 0;
    }
}

hatf_metatf_reader *mtf_open(const uint8_t *buf, size_t len, const char *path, hatf_err *err)
{
    if (len < 24 || memcmp(buf, HATF_METATF_MAGIC, 4) != 0) {
        if (len >= 4 && !memcmp(buf, HATF_METATF_MAGIC, 4))
            hatf_err_set(err, HATF_E_TRUNCATED, 0, "Meta-TF header cut off (%zu of 24 bytes)", len);
        else
            hatf_err_set(err, HATF_E_CORRUPT, 0, "not a Meta-TF file (no \\177MTF magic)");
        return NULL;
    }
    if (buf[4] != 1) { hatf_err_set(err, HATF_E_VERSION, 4, "Meta-TF version %u is newer than this reader (1)", buf[4]); return NULL; }
    if (buf[5] != 1 && buf[5] != 2) { hatf_err_set(err, HATF_E_CORRUPT, 5, "address class %u is not 1 (32-bit) or 2 (64-bit)", buf[5]); return NULL; }
    if (buf[6] != 1 && buf[6] != 2) { hatf_err_set(err, HATF_E_CORRUPT, 6, "byte order %u is not 1 (little) or 2 (big-endian)", buf[6]); return NULL; }
    if (buf[7] != 1 && buf[7] != 2) { hatf_err_set(err, HATF_E_CORRUPT, 7, "DTD form %u is not 1 (embedded) or 2 (URL)", buf[7]); return NULL; }
    hatf_metatf_reader *r = calloc(1, sizeof *r);
    if (!r) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); return NULL; }
    r->buf = buf;
    r->len = len;
    r->little = buf[6] == 1;
    r->addr_bytes = buf[5] == 1 ? 4 : 8;
    r->embedded = buf[7] == 1;
    uint64_t nsect = load(r, buf + 8, 4), dlen = load(r, buf + 12, 4);
    r->nrecords = load(r, buf + 16, 8);
    char *text = NULL;
    size_t tlen = 0;
    if (dlen > len - 24) {
        hatf_err_set(err, HATF_E_TRUNCATED, 12, "the DTD's %llu bytes run past the end of the file (%zu bytes)",
                     (unsigned long long)dlen, len);
        goto fail;
    }
    if (r->embedded) {
        r->dtd = hatf_metatf_dtd_parse((const char *)buf + 24, (size_t)dlen, err);
        if (!r->dtd && err) {  /* the DTD's offsets are the file's */
            char m[sizeof err->msg];
            snprintf(m, sizeof m, "embedded %.170s", err->msg);
            err->offset += 24;
            snprintf(err->msg, sizeof err->msg, "%s", m);
        }
    } else {
        if (dlen >= sizeof r->url || memchr(buf + 24, 0, (size_t)dlen)) {
            hatf_err_set(err, HATF_E_CORRUPT, 24, "the DTD's URL is longer than 255 bytes or holds a NUL");
            goto fail;
        }
        memcpy(r->url, buf + 24, (size_t)dlen);
        text = read_dtd_url(r->url, path, &tlen, err);
        if (!text) goto fail;
        r->dtd = hatf_metatf_dtd_parse(text, tlen, err);
        if (!r->dtd && err) {
            char m[sizeof err->msg];
            snprintf(m, sizeof m, "the DTD at '%.40s': %.120s", r->url, err->msg);
            err->offset = 24;
            snprintf(err->msg, sizeof err->msg, "%s", m);
        }
    }
    if (!r->dtd) goto fail;
    const hatf_metatf_dtd *d = r->dtd;
    if (nsect != d->nsects) {
        hatf_err_set(err, HATF_E_CORRUPT, 8, "the header has %llu sections, the DTD %zu", (unsigned long long)nsect, d->nsects);
        goto fail;
    }
    uint64_t tab = 24 + dlen;
    if (nsect * 24 > len - tab) {
        hatf_err_set(err, HATF_E_TRUNCATED, tab, "the section headers are cut off (%llu sections)", (unsigned long long)nsect);
        goto fail;
    }
    uint64_t data0 = tab + nsect * 24;
    for (size_t i = 0; i < d->nsects; i++) {
        const uint8_t *h = buf + tab + 24 * i;
        uint64_t off = load(r, h, 8), sl = load(r, h + 8, 8), cnt = load(r, h + 16, 8);
        if (off < data0 || off > len) {
            hatf_err_set(err, HATF_E_CORRUPT, tab + 24 * i, "section '%s' starts at %llu, outside the file's data (%llu..%zu)",
                         d->sects[i].name, (unsigned long long)off, (unsigned long long)data0, len);
            goto fail;
        }
        if (sl == UINT64_MAX) sl = len - off;
        if (sl > len - off) {
            hatf_err_set(err, HATF_E_TRUNCATED, tab + 24 * i, "section '%s' (%llu bytes at %llu) runs past the end of the file (%zu bytes)",
                         d->sects[i].name, (unsigned long long)sl, (unsigned long long)off, len);
            goto fail;
        }
        r->sect[i].off = off;
        r->sect[i].len = sl;
        r->sect[i].count = cnt;
        r->sect[i].data = buf + off;
        r->sect[i].dlen = (size_t)sl;
        hatf_buf_init(&r->sect[i].ext);
    }
    r->st = calloc(d->ndecls ? d->ndecls : 1, sizeof *r->st);
    r->last_val = calloc(d->nnodes ? d->nnodes : 1, sizeof *r->last_val);
    if (!r->st || !r->last_val) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); goto fail; }
    init_state(r);
    enter_records(r, 0);
    free(text);
    return r;
fail:
    free(text);
    mtf_close(r);
    return NULL;
}

void mtf_rewind(hatf_metatf_reader *r)
{
    for (size_t i = 0; i < r->dtd->nsects; i++) {
        mtf_sect_data *sd = &r->sect[i];
        hatf_buf_free(&sd->ext);
        hatf_buf_init(&sd->ext);
        sd->data = r->buf + sd->off;
        sd->dlen = (size_t)sd->len;
    }
    init_state(r);
    enter_records(r, 0);
    r->records = r->in_sect = 0;
    r->nitems = 0;
    memset(&r->err, 0, sizeof r->err);
}

void mtf_close(hatf_metatf_reader *r)
{
    if (!r) return;
    if (r->dtd)
        for (size_t i = 0; i < r->dtd->nsects; i++) hatf_buf_free(&r->sect[i].ext);
    hatf_metatf_dtd_free(r->dtd);
    free(r->st);
    free(r->last_val);
    free(r->items);
    free(r);
}

static int push(hatf_metatf_reader *r, const mtf_item *it)
{
    uint64_t took = r->pos - r->rec_at;
    if (r->nitems >= ITEMS_FREE + ITEMS_PER_BYTE * took)
        return RFAIL(r, HATF_E_LIMIT, r->rec_at, "record '%s' holds more than %llu values in its %llu bytes "
                     "(at most %u and %u a byte: repeats of fields that take no room)", r->rec->name,
                     (unsigned long long)r->nitems, (unsigned long long)took, ITEMS_FREE, ITEMS_PER_BYTE);
    if (r->nitems == r->cap_items) {
        if (r->cap_items >= ITEMS_MAX)
            return RFAIL(r, HATF_E_LIMIT, r->rec_at, "record '%s' holds more than %u values", r->rec->name, ITEMS_MAX);
        size_t cap = r->cap_items ? 2 * r->cap_items : 64;
        mtf_item *v = realloc(r->items, cap * sizeof *v);
        if (!v) return RFAIL(r, HATF_E_NOMEM, r->rec_at, "out of memory");
        r->items = v;
        r->cap_items = cap;
    }
    r->items[r->nitems++] = *it;
    return 0;
}

static int cut(hatf_metatf_reader *r, const char *what, uint64_t need)
{
    return RFAIL(r, HATF_E_TRUNCATED, r->rec_at, "record '%s' cut off in %s: %llu bytes needed, %llu left in section '%s'",
                 r->rec->name, what, (unsigned long long)need, (unsigned long long)(r->end - r->pos),
                 r->dtd->sects[r->cur].name);
}

/* The string or entry at v of section s (a sectionOffset or sectionStride field). */
static int section_ref(hatf_metatf_reader *r, const mtf_node *n, const mtf_state *s, uint64_t v, mtf_item *it)
{
    size_t si = (size_t)s->a3;
    const mtf_sect_data *sd = &r->sect[si];
    const char *sname = r->dtd->sects[si].name;
    if (s->interp == MTF_I_SECTIONOFFSET) {
        if (v >= sd->dlen)
            return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "record '%s' field '%s': offset %llu outside section '%s' (%zu bytes)",
                         r->rec->name, n->name, (unsigned long long)v, sname, sd->dlen);
        const uint8_t *p = sd->data + v;
        const uint8_t *z = memchr(p, 0, sd->dlen - (size_t)v);
        if (r->dtd->sects[si].kind == MTF_S_STRINGS && !z)
            return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "record '%s' field '%s': the string at %llu of section '%s' has no NUL",
                         r->rec->name, n->name, (unsigned long long)v, sname);
        it->p = p;
        it->n = z ? (size_t)(z - p) : sd->dlen - (size_t)v;
    } else {
        uint64_t size = s->a4;
        if (v >= sd->dlen / size)
            return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "record '%s' field '%s': entry %llu outside section '%s' (%zu entries of %llu bytes)",
                         r->rec->name, n->name, (unsigned long long)v, sname, (size_t)(sd->dlen / size), (unsigned long long)size);
        const uint8_t *p = sd->data + v * size;
        size_t k = (size_t)size;
        while (k && p[k - 1] == 0) k--;  /* entries are padded with NULs */
        it->p = p;
        it->n = k;
    }
    it->shape = MTF_V_STRING;
    return 0;
}

static int read_field(hatf_metatf_reader *r, const mtf_node *n, int ni)
{
    mtf_state *s = &r->st[n->decl];
    mtf_item it = { .kind = MTF_IT_FIELD, .node = n };
    unsigned w = s->width == MTF_W_ADDR ? r->addr_bytes : s->width;
    int rc;
    char what[48];
    snprintf(what, sizeof what, "field '%s'", n->name);
    if (mtf_width_is_v(w)) {
        unsigned lb = w == MTF_W_V1 ? 1 : w == MTF_W_V2 ? 2 : 4;
        if (r->end - r->pos < lb) return cut(r, what, lb);
        uint64_t vl = load(r, r->buf + r->pos, lb);
        if (r->end - r->pos - lb < vl) return cut(r, what, lb + vl);
        it.shape = MTF_V_BYTES;
        it.p = r->buf + r->pos + lb;
        it.n = (size_t)vl;
        r->pos += lb + vl;
        return push(r, &it);
    }
    if (r->end - r->pos < w) return cut(r, what, w);
    uint64_t raw = w ? load(r, r->buf + r->pos, w) : 0, v = 0;
    r->pos += w;
    switch (s->interp) {
    case MTF_I_NONE: v = raw; break;
    case MTF_I_DEFAULT: v = s->a3; break;
    case MTF_I_BASEOFFSET: v = s->a3 + hatf_sext(raw, w); break;
    case MTF_I_DELTA: v = s->prev = s->prev + hatf_sext(raw, w); break;
    case MTF_I_STRIDE: v = s->prev = s->prev + s->a4; break;
    default:
        v = raw;
        if ((rc = section_ref(r, n, s, v, &it))) return rc;
        break;
    }
    it.num = v;
    it.width = (uint8_t)w;
    r->last_val[ni] = v;
    return push(r, &it);
}

static int read_nodes(hatf_metatf_reader *r, int first, int depth)
{
    const hatf_metatf_dtd *d = r->dtd;
    int rc;
    for (int ni = first; ni >= 0; ni = d->nodes[ni].next) {
        const mtf_node *n = &d->nodes[ni];
        if (n->kind == MTF_N_FIELD) {
            if ((rc = read_field(r, n, ni))) return rc;
            continue;
        }
        mtf_item open = { .kind = n->kind == MTF_N_GROUP ? MTF_IT_GROUP : MTF_IT_REPEAT, .node = n };
        mtf_item close = { .kind = n->kind == MTF_N_GROUP ? MTF_IT_GROUP_END : MTF_IT_REPEAT_END, .node = n };
        mtf_item el_end = { .kind = MTF_IT_ELEM_END, .node = n };
        if (n->kind == MTF_N_GROUP) {
            if ((rc = push(r, &open)) || (rc = read_nodes(r, n->child, depth + 1)) || (rc = push(r, &close))) return rc;
            continue;
        }
        uint64_t count = n->count_node >= 0 ? r->last_val[n->count_node] : n->count;
        if (count > MTF_REPEAT_MAX)
            return RFAIL(r, HATF_E_LIMIT, r->rec_at, "record '%s': repeat '%s' of %llu elements (at most %u)",
                         r->rec->name, n->name, (unsigned long long)count, MTF_REPEAT_MAX);
        open.num = count;
        if ((rc = push(r, &open))) return rc;
        for (uint64_t k = 0; k < count; k++) {
            mtf_item el = { .kind = MTF_IT_ELEM, .node = n };
            if ((rc = push(r, &el)) || (rc = read_nodes(r, n->child, depth + 1)) || (rc = push(r, &el_end))) return rc;
        }
        if ((rc = push(r, &close))) return rc;
    }
    return 0;
}

/* Metadata (Meta-TF's layout, HATF 1.0's when big-endian and the tag is one
 * byte): op 1 | field | width, or op 2 | field | interp | args (8 bytes each). */
static int read_metadata(hatf_metatf_reader *r)
{
    const hatf_metatf_dtd *d = r->dtd;
    const uint8_t *p = r->buf + r->pos;
    uint64_t avail = r->end - r->pos;
    if (avail < 3) return cut(r, "its operation", 3);
    unsigned op = p[0], code = p[1], c = p[2];
    if (op != 1 && op != 2)
        return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "metadata record '%s': unknown operation %u (1 fieldSize, 2 fieldInterpretation)", r->rec->name, op);
    int di = d->by_number[code];
    if (di < 0)
        return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "metadata record '%s': field code %u, which the DTD gives no field", r->rec->name, code);
    const mtf_decl *f = &d->decls[di];
    mtf_state *s = &r->st[di];
    r->md_op = (uint8_t)op;
    r->md_field = f->name;
    r->md_code = (uint8_t)c;
    r->md_a3 = r->md_a4 = 0;
    if (op == 1) {
        if (!(c == 0 || c == 1 || c == 2 || c == 4 || c == 8 || (c >= MTF_W_V1 && c <= MTF_W_ADDR)))
            return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "metadata: width code %u for field '%s' (0, 1, 2, 4, 8, 9-11 vfields, 12 address)", c, f->name);
        if (mtf_width_is_v(c) && f->type != MTF_T_TEXT && f->type != MTF_T_BYTES && f->type != MTF_T_MIXED)
            return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "metadata: a vfield width for field '%s', which is a number", f->name);
        s->width = (uint8_t)c;
        if (c) s->lnz = (uint8_t)c;
        r->pos += 3;
        return 0;
    }
    if (c >= MTF_I_COUNT_)
        return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "metadata: interpretation code %u for field '%s' (0-6)", c, f->name);
    unsigned na = mtf_interp_args(c);
    if (avail < 3 + 8 * na) return cut(r, "its arguments", 3 + 8 * na);
    uint64_t a3 = na ? load(r, p + 3, 8) : 0, a4 = na > 1 ? load(r, p + 11, 8) : 0;
    if (c == MTF_I_SECTIONOFFSET || c == MTF_I_SECTIONSTRIDE) {
        if (a3 >= d->nsects || d->sects[a3].kind == MTF_S_RECORDS)
            return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "metadata: field '%s' refers to section %llu, not a strings or bytes section",
                         f->name, (unsigned long long)a3);
        if (c == MTF_I_SECTIONSTRIDE && (a4 < 1 || a4 > 65536))
            return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "metadata: field '%s': entry size %llu is not in 1..65536", f->name, (unsigned long long)a4);
    }
    s->interp = (uint8_t)c;
    s->a3 = a3;
    s->a4 = a4;
    s->width = c == MTF_I_DEFAULT || c == MTF_I_STRIDE ? 0 : s->lnz;
    if (c == MTF_I_DELTA || c == MTF_I_STRIDE) s->prev = a3;
    r->md_a3 = a3;
    r->md_a4 = a4;
    r->pos += 3 + 8 * na;
    return 0;
}

/* A section record: section index (1) | length (4) | that many bytes, added
 * to the end of a strings or bytes section. */
static int read_section(hatf_metatf_reader *r)
{
    const hatf_metatf_dtd *d = r->dtd;
    if (r->end - r->pos < 5) return cut(r, "its header", 5);
    const uint8_t *p = r->buf + r->pos;
    unsigned si = p[0];
    uint64_t n = load(r, p + 1, 4);
    if (si >= d->nsects || d->sects[si].kind == MTF_S_RECORDS)
        return RFAIL(r, HATF_E_CORRUPT, r->rec_at, "section record '%s': section %u is not a strings or bytes section", r->rec->name, si);
    if (r->end - r->pos - 5 < n) return cut(r, "its bytes", 5 + n);
    mtf_sect_data *sd = &r->sect[si];
    if (!sd->ext.p) hatf_buf_append(&sd->ext, sd->data, sd->dlen);
    hatf_buf_append(&sd->ext, p + 5, (size_t)n);
    if (sd->ext.failed) return RFAIL(r, HATF_E_NOMEM, r->rec_at, "out of memory");
    sd->data = sd->ext.p;
    sd->dlen = sd->ext.len;
    r->md_section = si;
    r->md_added = (size_t)n;
    r->pos += 5 + n;
    return 0;
}

int mtf_next(hatf_metatf_reader *r)
{
    if (r->err.code) return r->err.code;
    const hatf_metatf_dtd *d = r->dtd;
    while (r->cur < d->nsects && r->pos == r->end) {
        if (r->sect[r->cur].count != UINT64_MAX && r->in_sect != r->sect[r->cur].count)
            return RFAIL(r, HATF_E_CORRUPT, r->end, "section '%s' holds %llu records, its header says %llu",
                         d->sects[r->cur].name, (unsigned long long)r->in_sect, (unsigned long long)r->sect[r->cur].count);
        enter_records(r, r->cur + 1);
    }
    if (r->cur >= d->nsects) {
        if (r->nrecords != UINT64_MAX && r->records != r->nrecords)
            return RFAIL(r, HATF_E_CORRUPT, 16, "the header says %llu records, the sections hold %llu",
                         (unsigned long long)r->nrecords, (unsigned long long)r->records);
        return 0;
    }
    r->rec_at = r->pos;
    unsigned tw = d->tag_width;
    if (r->end - r->pos < tw)
        return RFAIL(r, HATF_E_TRUNCATED, r->pos, "a record's tag cut off at the end of section '%s'", d->sects[r->cur].name);
    uint32_t tag = (uint32_t)load(r, r->buf + r->pos, tw);
    const mtf_rec *rec = mtf_dtd_record(d, tag);
    if (!rec)
        return RFAIL(r, HATF_E_CORRUPT, r->pos, "record tag %u has no record in the DTD%s%s", tag,
                     d->name[0] ? " " : "", d->name);
    r->rec = rec;
    r->pos += tw;
    r->nitems = 0;
    int rc = rec->predef == MTF_P_METADATA ? read_metadata(r)
           : rec->predef == MTF_P_SECTION ? read_section(r) : read_nodes(r, rec->first, 0);
    if (rc) return rc;
    r->records++;
    r->in_sect++;
    return 1;
}

/* ---- records as text -------------------------------------------------------- */

static void put(hatf_buf *b, const char *s) { hatf_buf_append(b, s, strlen(s)); }

static void put_quoted(hatf_buf *b, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    hatf_buf_append(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        char e[4] = { '\\', (char)c, 0, 0 };
        if (c == '"' || c == '\\') hatf_buf_append(b, e, 2);
        else if (c == '\n') hatf_buf_append(b, "\\n", 2);
        else if (c == '\t') hatf_buf_append(b, "\\t", 2);
        else if (c < 0x20 || c >= 0x7f) {
            char x[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
            hatf_buf_append(b, x, 4);
        } else hatf_buf_append(b, &c, 1);
    }
    hatf_buf_append(b, "\"", 1);
}

static void put_value(const hatf_metatf_reader *r, const mtf_item *it, hatf_buf *b)
{
    char num[32];
    const mtf_decl *f = &r->dtd->decls[it->node->decl];
    if (it->shape == MTF_V_STRING || (it->shape == MTF_V_BYTES && f->type == MTF_T_TEXT)) {
        put_quoted(b, it->p, it->n);
        return;
    }
    if (it->shape == MTF_V_BYTES) {
        static const char hex[] = "0123456789abcdef";
        put(b, "hex:");
        for (size_t i = 0; i < it->n; i++) {
            char x[2] = { hex[it->p[i] >> 4], hex[it->p[i] & 15] };
            hatf_buf_append(b, x, 2);
        }
        return;
    }
    if (f->type == MTF_T_ADDR) snprintf(num, sizeof num, "0x%llx", (unsigned long long)it->num);
    else if (f->type == MTF_T_INT)
        snprintf(num, sizeof num, "%lld", (long long)(r->st[it->node->decl].interp == MTF_I_NONE ? hatf_sext(it->num, it->width) : it->num));
    else snprintf(num, sizeof num, "%llu", (unsigned long long)it->num);
    put(b, num);
}

/* A repeat of one field prints as [v v ...], any other as [{a=.. b=..} ...]. */
static int single_field(const hatf_metatf_reader *r, const mtf_node *n)
{
    const mtf_node *c = n->child >= 0 ? &r->dtd->nodes[n->child] : NULL;
    return c && c->next < 0 && c->kind == MTF_N_FIELD;
}

HATF_API int hatf_metatf_next_text(hatf_metatf_reader *r, hatf_buf *out)
{
    int rc = mtf_next(r);
    if (rc <= 0) return rc;
    char head[64];
    snprintf(head, sizeof head, "@%llu ", (unsigned long long)r->rec_at);
    put(out, head);
    put(out, r->rec->name);
    char tmp[160];
    if (r->rec->predef == MTF_P_METADATA) {
        if (r->md_op == 1)
            snprintf(tmp, sizeof tmp, " fieldSize %s %u\n", r->md_field, r->md_code);
        else
            snprintf(tmp, sizeof tmp, " fieldInterpretation %s %s %llu %llu\n", r->md_field, mtf_interp_names[r->md_code],
                     (unsigned long long)r->md_a3, (unsigned long long)r->md_a4);
        put(out, tmp);
        return 1;
    }
    if (r->rec->predef == MTF_P_SECTION) {
        snprintf(tmp, sizeof tmp, " %s +%zu bytes\n", r->dtd->sects[r->md_section].name, r->md_added);
        put(out, tmp);
        return 1;
    }
    /* bare[d]: inside a repeat of one field, values go without names or braces */
    int bare[MTF_DEPTH_MAX + 2];
    int depth = 0, sep = 1;
    bare[0] = 0;
    for (size_t i = 0; i < r->nitems; i++) {
        const mtf_item *it = &r->items[i];
        int opens = it->kind == MTF_IT_FIELD || it->kind == MTF_IT_GROUP || it->kind == MTF_IT_REPEAT ||
                    (it->kind == MTF_IT_ELEM && !bare[depth]);
        if (opens && sep) hatf_buf_append(out, " ", 1);
        switch (it->kind) {
        case MTF_IT_FIELD:
            if (!bare[depth]) { put(out, it->node->name); put(out, "="); }
            put_value(r, it, out);
            sep = 1;
            break;
        case MTF_IT_GROUP:
        case MTF_IT_REPEAT:
            put(out, it->node->name);
            put(out, it->kind == MTF_IT_GROUP ? "={" : "=[");
            depth++;
            bare[depth] = it->kind == MTF_IT_REPEAT && single_field(r, it->node);
            sep = 0;
            break;
        case MTF_IT_ELEM:
            if (!bare[depth]) { put(out, "{"); sep = 0; }
            break;
        case MTF_IT_ELEM_END:
            if (!bare[depth]) put(out, "}");
            sep = 1;
            break;
        default:  /* the end of a group or a repeat */
            put(out, it->kind == MTF_IT_GROUP_END ? "}" : "]");
            depth--;
            sep = 1;
            break;
        }
    }
    put(out, "\n");
    return 1;
}

HATF_API void hatf_metatf_header_text(const hatf_metatf_reader *r, hatf_buf *out)
{
    const hatf_metatf_dtd *d = r->dtd;
    char line[400];
    int n = snprintf(line, sizeof line, "# metatf 1 %u-bit %s-endian dtd %s%s%s name %s%s, %zu sections, ",
                     r->addr_bytes * 8, r->little ? "little" : "big", r->embedded ? "embedded" : "url \"",
                     r->embedded ? "" : r->url, r->embedded ? "" : "\"", d->name[0] ? d->name : "(none)",
                     d->events ? " (events hatf)" : "", d->nsects);
    hatf_buf_append(out, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : 0);
    if (r->nrecords == UINT64_MAX) n = snprintf(line, sizeof line, "records not counted\n");
    else n = snprintf(line, sizeof line, "%llu records\n", (unsigned long long)r->nrecords);
    hatf_buf_append(out, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : 0);
    static const char *const kinds[] = { "records", "strings", "bytes" };
    for (size_t i = 0; i < d->nsects; i++) {
        const mtf_sect_data *s = &r->sect[i];
        n = snprintf(line, sizeof line, "# section %s %s at %llu, %llu bytes", d->sects[i].name, kinds[d->sects[i].kind],
                     (unsigned long long)s->off, (unsigned long long)s->len);
        hatf_buf_append(out, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : 0);
        if (s->count != UINT64_MAX) {
            n = snprintf(line, sizeof line, ", %llu %s", (unsigned long long)s->count,
                         d->sects[i].kind == MTF_S_RECORDS ? "records" : d->sects[i].kind == MTF_S_STRINGS ? "strings" : "entries");
            hatf_buf_append(out, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : 0);
        }
        hatf_buf_append(out, "\n", 1);
    }
}

HATF_API const hatf_err *hatf_metatf_error(const hatf_metatf_reader *r) { return &r->err; }
HATF_API const hatf_metatf_dtd *hatf_metatf_reader_dtd(const hatf_metatf_reader *r) { return r->dtd; }
