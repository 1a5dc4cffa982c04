/* text_tables.c — the text form's table lines: a trace's call stacks, load
 * map, symbols, stack depth and resident samples (docs/format-text.md,
 * "Tables"), so that text -> container -> text keeps every frame.
 *
 *   #stack-depth 64
 *   #module 1 0x5555d000 0x5556a000 0x5555d000 4f1c...e2 "/usr/bin/prog"
 *   #symbol 0x5555d4a1 1 0x21 "main"
 *   #stack 3 0x5555d4a1 0x7f0e1a229d8f
 *   #resident 1000000 4046848 12288
 *
 * They start with '#', so a reader that does not know them takes them for
 * comments; they come before the first event.
 */
#include <string.h>

#include "addrmap.h"
#include "container/container_internal.h"
#include "hatf_text.h"
#include "text_internal.h"

static const char hexdig[16] = "0123456789abcdef";

/* ---- formatting ---------------------------------------------------------- */

static int put_line_end(hatf_buf *out, char *start, char *p)
{
    *p++ = '\n';
    out->len += (size_t)(p - start);
    return 0;
}

static int put_module(const hatf_module *m, hatf_buf *out)
{
    size_t pl = m->path ? strlen(m->path) : 0;
    char *start = (char *)hatf_buf_reserve(out, 160 + 2 * HATF_BUILD_ID_MAX + 4 * pl), *p = start;
    if (!p) return HATF_E_NOMEM;
    p = hatf_text_put_str_(p, "#module ");
    p = hatf_text_put_dec_(p, m->id); *p++ = ' ';
    p = hatf_text_put_hex_(p, m->start); *p++ = ' ';
    p = hatf_text_put_hex_(p, m->end); *p++ = ' ';
    p = hatf_text_put_hex_(p, m->bias); *p++ = ' ';
    uint32_t bl = m->build_id_len > HATF_BUILD_ID_MAX ? HATF_BUILD_ID_MAX : m->build_id_len;
    if (!bl) *p++ = '-';
    for (uint32_t i = 0; i < bl; i++) { *p++ = hexdig[m->build_id[i] >> 4]; *p++ = hexdig[m->build_id[i] & 15]; }
    *p++ = ' ';
    p = hatf_text_put_quoted_(p, (const uint8_t *)(m->path ? m->path : ""), pl);
    return put_line_end(out, start, p);
}

static int put_symbol(const hatf_symbol *s, hatf_buf *out)
{
    size_t nl = strlen(s->name);
    char *start = (char *)hatf_buf_reserve(out, 96 + 4 * nl), *p = start;
    if (!p) return HATF_E_NOMEM;
    p = hatf_text_put_str_(p, "#symbol ");
    p = hatf_text_put_hex_(p, s->addr); *p++ = ' ';
    p = hatf_text_put_dec_(p, s->module); *p++ = ' ';
    p = hatf_text_put_hex_(p, s->offset); *p++ = ' ';
    p = hatf_text_put_quoted_(p, (const uint8_t *)s->name, nl);
    return put_line_end(out, start, p);
}

static int put_stack(uint64_t id, const uint64_t *fr, size_t n, hatf_buf *out)
{
    char *start = (char *)hatf_buf_reserve(out, 32 + 20 * n), *p = start;
    if (!p) return HATF_E_NOMEM;
    p = hatf_text_put_str_(p, "#stack ");
    p = hatf_text_put_dec_(p, id);
    for (size_t i = 0; i < n; i++) { *p++ = ' '; p = hatf_text_put_hex_(p, fr[i]); }
    return put_line_end(out, start, p);
}

static int put_numbers(const char *key, const uint64_t *v, size_t n, hatf_buf *out)
{
    char *start = (char *)hatf_buf_reserve(out, 32 + 21 * n), *p = start;
    if (!p) return HATF_E_NOMEM;
    p = hatf_text_put_str_(p, key);
    for (size_t i = 0; i < n; i++) { *p++ = ' '; p = hatf_text_put_dec_(p, v[i]); }
    return put_line_end(out, start, p);
}

HATF_API int hatf_text_format_tables(hatf_reader *r, unsigned parts, hatf_buf *out)
{
    int rc = 0;
    if (!r) return 0;
    if ((parts & HATF_TEXT_STACKS) && hatf_reader_stack_depth(r)) {
        uint64_t d = hatf_reader_stack_depth(r);
        rc = put_numbers("#stack-depth", &d, 1, out);
    }
    if (parts & HATF_TEXT_RESIDENT) {
        const hatf_resident *res;
        size_t n = hatf_reader_resident(r, &res);
        for (size_t i = 0; i < n && !rc; i++) {
            uint64_t v[3] = { res[i].time_ns, res[i].bytes, res[i].own };
            rc = put_numbers("#resident", v, 3, out);
        }
    }
    if ((parts & HATF_TEXT_STACKS) && (parts & HATF_TEXT_NAMES)) {
        const hatf_module *mods;
        size_t n = hatf_reader_modules(r, &mods);
        for (size_t i = 0; i < n && !rc; i++) rc = put_module(&mods[i], out);
        /* the symbols of the stacks' frames, each once, in the order met */
        addrmap seen;
        memset(&seen, 0, sizeof seen);
        if (!rc && addrmap_init(&seen)) rc = HATF_E_NOMEM;
        for (size_t i = 0; !rc && i < hatf_reader_stack_count(r); i++) {
            uint64_t id;
            const uint64_t *fr;
            size_t nf = hatf_reader_stack_at(r, i, &id, &fr);
            for (size_t k = 0; k < nf && !rc; k++) {
                const hatf_symbol *s = hatf_reader_symbol(r, fr[k]);
                int added;
                if (!s) continue;
                if (!addrmap_put(&seen, fr[k], &added)) rc = HATF_E_NOMEM;
                else if (added) rc = put_symbol(s, out);
            }
        }
        addrmap_free(&seen);
    }
    if (parts & HATF_TEXT_STACKS)
        for (size_t i = 0; i < hatf_reader_stack_count(r) && !rc; i++) {
            uint64_t id;
            const uint64_t *fr;
            size_t nf = hatf_reader_stack_at(r, i, &id, &fr);
            rc = put_stack(id, fr, nf, out);
        }
    return rc ? rc : out->failed ? HATF_E_NOMEM : 0;
}

/* ---- parsing ------------------------------------------------------------- */

/* The keyword of a table line: "#stack" etc. followed by a blank. */
static int is_key(const char *line, size_t len, const char *key)
{
    size_t k = strlen(key);
    return len > k && memcmp(line, key, k) == 0 && (line[k] == ' ' || line[k] == '\t');
}

int hatf_text_is_table_(const char *line, size_t len)
{
    return is_key(line, len, "#stack") || is_key(line, len, "#stack-depth") || is_key(line, len, "#module") ||
           is_key(line, len, "#symbol") || is_key(line, len, "#resident");
}

static int at_end(hatf_text_cursor *c)
{
    size_t at, n = hatf_text_token_(c, &at);
    return n ? hatf_text_fail_(c, at, "text after the table line's fields") : 0;
}

static int parse_build_id(hatf_text_cursor *c, hatf_module *m)
{
    size_t at, n = hatf_text_token_(c, &at);
    const char *s = c->s + at;
    if (n == 0) return hatf_text_fail_(c, at, "missing build id (hex digits, or - for none)");
    if (n == 1 && s[0] == '-') return 0;
    if (n % 2 || n / 2 > HATF_BUILD_ID_MAX) return hatf_text_fail_(c, at, "build id must be an even number of hex digits, at most 64");
    for (size_t i = 0; i < n; i += 2) {
        const char *d1 = memchr(hexdig, s[i] | 0x20, 16), *d2 = memchr(hexdig, s[i + 1] | 0x20, 16);
        if (!d1 || !d2) return hatf_text_fail_(c, at + i, "bad hex digit in the build id");
        m->build_id[i / 2] = (uint8_t)((d1 - hexdig) << 4 | (d2 - hexdig));
    }
    m->build_id_len = (uint32_t)(n / 2);
    return 0;
}

/* A quoted string into a NUL-terminated str (65536 bytes). */
static int parse_string(hatf_text_cursor *c, char *str)
{
    size_t n = 0;
    int rc = hatf_text_read_comment_(c, (uint8_t *)str, &n);
    if (rc) return rc;
    if (memchr(str, 0, n)) return hatf_text_fail_(c, c->pos, "a name cannot hold a NUL byte");
    str[n] = 0;
    return 0;
}

int hatf_text_parse_table_(const char *line, size_t len, uint64_t line_offset, hatf_reader *t,
                           char *scratch, hatf_err *err)
{
    hatf_text_cursor c = { line, len, 0, line_offset, err };
    size_t at;
    hatf_text_token_(&c, &at);  /* the keyword */
    int rc;
    if (is_key(line, len, "#stack-depth")) {
        uint64_t d;
        if ((rc = hatf_text_read_dec_(&c, "stack depth", &d)) || (rc = at_end(&c))) return rc;
        hatf_tables_stack_depth_(t, d > HATF_STACK_MAX ? HATF_STACK_MAX : (unsigned)d);
        return 0;
    }
    if (is_key(line, len, "#resident")) {
        uint64_t v[3];
        if ((rc = hatf_text_read_dec_(&c, "time in ns", &v[0])) || (rc = hatf_text_read_dec_(&c, "resident bytes", &v[1])) ||
            (rc = hatf_text_read_dec_(&c, "the recorder's own bytes", &v[2])) || (rc = at_end(&c)))
            return rc;
        rc = hatf_tables_resident_(t, v[0], v[1], v[2]);
    } else if (is_key(line, len, "#stack")) {
        uint64_t id, fr[HATF_STACK_MAX];
        size_t nf = 0;
        hatf_text_skip_blanks_(&c);
        at = c.pos;
        if ((rc = hatf_text_read_dec_(&c, "stack id", &id))) return rc;
        if (!id) return hatf_text_fail_(&c, at, "stack id 0 names no stack");
        for (;;) {
            hatf_text_skip_blanks_(&c);
            if (c.pos == c.len) break;
            if (nf == HATF_STACK_MAX) return hatf_text_fail_(&c, c.pos, "more than 256 frames");
            if ((rc = hatf_text_read_addr_(&c, "frame", &fr[nf++]))) return rc;
        }
        rc = hatf_tables_stack_(t, id, fr, nf);
    } else if (is_key(line, len, "#module")) {
        hatf_module m;
        memset(&m, 0, sizeof m);
        if ((rc = hatf_text_read_dec_(&c, "module id", &m.id)) || (rc = hatf_text_read_addr_(&c, "start", &m.start)) ||
            (rc = hatf_text_read_addr_(&c, "end", &m.end)) || (rc = hatf_text_read_addr_(&c, "bias", &m.bias)) ||
            (rc = parse_build_id(&c, &m)) || (rc = parse_string(&c, scratch)) || (rc = at_end(&c)))
            return rc;
        m.path = scratch;
        rc = hatf_tables_module_(t, &m);
    } else {  /* #symbol */
        hatf_symbol s;
        if ((rc = hatf_text_read_addr_(&c, "address", &s.addr)) || (rc = hatf_text_read_dec_(&c, "module id", &s.module)) ||
            (rc = hatf_text_read_addr_(&c, "offset", &s.offset)) || (rc = parse_string(&c, scratch)) || (rc = at_end(&c)))
            return rc;
        s.name = scratch;
        rc = hatf_tables_symbol_(t, &s);
    }
    return rc == HATF_E_NOMEM ? hatf_err_set(err, rc, line_offset, "out of memory") : rc;
}
