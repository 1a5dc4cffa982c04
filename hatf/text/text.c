/* text.c — the text form: one event per line (grammar in docs/format-text.md).
 *
 *   TIME THREAD HEAP OP ARGS [ATTRS]
 *
 *   1000 1 0 alloc 24 0x7f3a00001000 func=malloc
 *   1010 1 0 free 0x7f3a00001000
 *   1020 1 0 realloc-move 48 0x1000 -> 0x2000 func=realloc
 *   1040 2 0 thread-create ostid=4242 parent=1
 *   0 0 0 comment "text\n with \"escapes\""
 *
 * Times, ids and sizes are decimal, addresses hex with 0x. Attributes are
 * hatrace keys by name when the bytes are exactly a canonical key list, else
 * attr=NUMBER (numeric attribute) or attr=hex:BYTES (any byte string).
 */
#include <string.h>

#include "hatf.h"
#include "hatf_text.h"
#include "bytes.h"
#include "text_internal.h"

/* Text names of the hatrace attribute keys, indexed by hatf_attr_key. */
static const char *const key_names[HATF_A_KEY_MAX_ + 1] = {
    NULL, "func", "align", "stack", "ostid", "parent", "failed", "nmemb", "sized",
};

static const char hexdig[16] = "0123456789abcdef";

/* ---- formatting ---------------------------------------------------------- */

char *hatf_text_put_dec_(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

char *hatf_text_put_hex_(char *p, uint64_t v)
{
    *p++ = '0'; *p++ = 'x';
    int sh = 60;
    while (sh > 0 && !((v >> sh) & 15)) sh -= 4;
    for (; sh >= 0; sh -= 4) *p++ = hexdig[(v >> sh) & 15];
    return p;
}

char *hatf_text_put_str_(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static char *put_hexbytes(char *p, const uint8_t *d, size_t n)
{
    p = hatf_text_put_str_(p, "hex:");
    for (size_t i = 0; i < n; i++) { *p++ = hexdig[d[i] >> 4]; *p++ = hexdig[d[i] & 15]; }
    return p;
}

/* Bytes a quoted comment takes: control bytes become \xHH, the rest as is. */
size_t hatf_text_quoted_len_(const uint8_t *d, size_t n)
{
    size_t len = 2;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = d[i];
        if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r') len += 2;
        else if (c < 0x20 || c == 0x7f) len += 4;
        else len += 1;
    }
    return len;
}

char *hatf_text_put_quoted_(char *p, const uint8_t *d, size_t n)
{
    *p++ = '"';
    for (size_t i = 0; i < n; i++) {
        uint8_t c = d[i];
        switch (c) {
        case '"': *p++ = '\\'; *p++ = '"'; break;
        case '\\': *p++ = '\\'; *p++ = '\\'; break;
        case '\n': *p++ = '\\'; *p++ = 'n'; break;
        case '\t': *p++ = '\\'; *p++ = 't'; break;
        case '\r': *p++ = '\\'; *p++ = 'r'; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                *p++ = '\\'; *p++ = 'x'; *p++ = hexdig[c >> 4]; *p++ = hexdig[c & 15];
            } else {
                *p++ = (char)c;
            }
        }
    }
    *p++ = '"';
    return p;
}

static char *put_attrs(char *p, const hatf_event *ev)
{
    if (!ev->attr_is_bytes) {
        if (ev->attr) { p = hatf_text_put_str_(p, " attr="); p = hatf_text_put_dec_(p, ev->attr); }
        return p;
    }
    hatf_attrs a;
    if (ev->attr_is_bytes != HATF_ATTRS_HATRACE || ev->data_len == 0 || hatf_attrs_decode(ev->data, ev->data_len, &a) != 0) {
        p = hatf_text_put_str_(p, " attr=");
        return put_hexbytes(p, ev->data, ev->data_len);
    }
    for (unsigned k = 1; k <= HATF_A_KEY_MAX_; k++) {
        if (!(a.present & (1u << k))) continue;
        *p++ = ' ';
        p = hatf_text_put_str_(p, key_names[k]);
        *p++ = '=';
        const char *fn = k == HATF_A_FUNC && a.value[k] < HATF_FN_COUNT_
                             ? hatf_func_name((unsigned)a.value[k]) : NULL;
        p = fn ? hatf_text_put_str_(p, fn) : hatf_text_put_dec_(p, a.value[k]);
    }
    return p;
}

HATF_API int hatf_text_format(const hatf_event *ev, hatf_buf *out)
{
    /* worst case: numbers and names ~160 bytes, then data as hex (2n) or quoted (<= 4n) */
    size_t need = 192 + (size_t)ev->data_len * 4;
    char *start = (char *)hatf_buf_reserve(out, need);
    if (!start) return HATF_E_NOMEM;
    char *p = start;
    p = hatf_text_put_dec_(p, ev->time); *p++ = ' ';
    p = hatf_text_put_dec_(p, ev->thread); *p++ = ' ';
    p = hatf_text_put_dec_(p, ev->heap); *p++ = ' ';
    const char *name = hatf_op_name(ev->op);
    if (!name) return HATF_E_LIMIT;
    p = hatf_text_put_str_(p, name);
    switch (ev->op) {
    case HATF_OP_ALLOC:
        *p++ = ' '; p = hatf_text_put_dec_(p, ev->size);
        *p++ = ' '; p = hatf_text_put_hex_(p, ev->addr);
        break;
    case HATF_OP_FREE:
        *p++ = ' '; p = hatf_text_put_hex_(p, ev->addr);
        break;
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE:
        *p++ = ' '; p = hatf_text_put_dec_(p, ev->size);
        *p++ = ' '; p = hatf_text_put_hex_(p, ev->addr);
        p = hatf_text_put_str_(p, " -> ");
        p = hatf_text_put_hex_(p, ev->new_addr);
        if (ev->release_lead && hatf_event_releases_early(ev)) {
            p = hatf_text_put_str_(p, " lead=");
            p = hatf_text_put_dec_(p, ev->release_lead);
        }
        break;
    case HATF_OP_COMMENT:
        *p++ = ' ';
        /* quoted unless escaping would overflow the line limit: hex always fits */
        if (hatf_text_quoted_len_(ev->data, ev->data_len) + 64 <= HATF_TEXT_LINE_MAX)
            p = hatf_text_put_quoted_(p, ev->data, ev->data_len);
        else
            p = put_hexbytes(p, ev->data, ev->data_len);
        break;
    default:
        break;
    }
    if (ev->op != HATF_OP_COMMENT) p = put_attrs(p, ev);
    *p++ = '\n';
    out->len += (size_t)(p - start);
    return 0;
}

/* ---- parsing ------------------------------------------------------------- */

int hatf_text_fail_(hatf_text_cursor *c, size_t pos, const char *what)
{
    return hatf_err_set(c->err, HATF_E_CORRUPT, c->line_offset, "column %zu: %s", pos + 1, what);
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

void hatf_text_skip_blanks_(hatf_text_cursor *c)
{
    while (c->pos < c->len && is_blank(c->s[c->pos])) c->pos++;
}

/* Next whitespace-delimited token; *tok_pos is where it starts. @return its length (0 at the end). */
size_t hatf_text_token_(hatf_text_cursor *c, size_t *tok_pos)
{
    hatf_text_skip_blanks_(c);
    *tok_pos = c->pos;
    while (c->pos < c->len && !is_blank(c->s[c->pos])) c->pos++;
    return c->pos - *tok_pos;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Decimal u64 in s[0..n). @return 0, or -1 with *bad the failing index. */
static int parse_dec(const char *s, size_t n, uint64_t *out, size_t *bad)
{
    uint64_t v = 0;
    if (n == 0) { *bad = 0; return -1; }
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10) { *bad = i; return -1; }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int hatf_text_read_dec_(hatf_text_cursor *c, const char *what, uint64_t *out)
{
    size_t at, n = hatf_text_token_(c, &at), bad;
    if (n == 0) {
        char m[96];
        snprintf(m, sizeof m, "missing %s", what);
        return hatf_text_fail_(c, at, m);
    }
    if (parse_dec(c->s + at, n, out, &bad) != 0) {
        char m[96];
        snprintf(m, sizeof m, "%s must be a decimal number below 2^64", what);
        return hatf_text_fail_(c, at + bad, m);
    }
    return 0;
}

int hatf_text_read_addr_(hatf_text_cursor *c, const char *what, uint64_t *out)
{
    size_t at, n = hatf_text_token_(c, &at);
    char m[96];
    if (n == 0) {
        snprintf(m, sizeof m, "missing %s", what);
        return hatf_text_fail_(c, at, m);
    }
    const char *s = c->s + at;
    if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
        snprintf(m, sizeof m, "%s must be hex with 0x", what);
        return hatf_text_fail_(c, at, m);
    }
    uint64_t v = 0;
    for (size_t i = 2; i < n; i++) {
        int d = hexval(s[i]);
        if (d < 0 || (v >> 60)) {
            snprintf(m, sizeof m, d < 0 ? "bad hex digit in %s" : "%s is wider than 64 bits", what);
            return hatf_text_fail_(c, at + i, m);
        }
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* "hex:..." at s[0..n) into out. @return bytes, or -1 with *bad set. */
static long parse_hexbytes(const char *s, size_t n, uint8_t *out, size_t *bad)
{
    if (n < 4 || memcmp(s, "hex:", 4) != 0) { *bad = 0; return -1; }
    if ((n - 4) % 2) { *bad = n; return -1; }
    if ((n - 4) / 2 > 65535) { *bad = 4; return -1; }
    size_t k = 0;
    for (size_t i = 4; i < n; i += 2) {
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0) { *bad = hi < 0 ? i : i + 1; return -1; }
        out[k++] = (uint8_t)(hi << 4 | lo);
    }
    return (long)k;
}

/* The comment text: "..." with escapes, or hex:..., into out. */
int hatf_text_read_comment_(hatf_text_cursor *c, uint8_t *out, size_t *out_len)
{
    hatf_text_skip_blanks_(c);
    size_t at = c->pos;
    if (at == c->len) return hatf_text_fail_(c, at, "missing comment text (\"...\" or hex:...)");
    if (c->s[at] != '"') {
        size_t n = hatf_text_token_(c, &at), bad;
        long k = parse_hexbytes(c->s + at, n, out, &bad);
        if (k < 0) return hatf_text_fail_(c, at + bad, "comment text must be \"...\" or hex:BYTES (at most 65535)");
        *out_len = (size_t)k;
        return 0;
    }
    size_t k = 0, i = at + 1;
    for (;;) {
        if (i >= c->len) return hatf_text_fail_(c, i, "unterminated comment text");
        unsigned char ch = (unsigned char)c->s[i];
        if (ch == '"') { i++; break; }
        if (k == 65535) return hatf_text_fail_(c, i, "comment longer than 65535 bytes");
        if (ch == '\\') {
            if (i + 1 >= c->len) return hatf_text_fail_(c, i, "unterminated escape");
            char e = c->s[i + 1];
            switch (e) {
            case '"': out[k++] = '"'; i += 2; break;
            case '\\': out[k++] = '\\'; i += 2; break;
            case 'n': out[k++] = '\n'; i += 2; break;
            case 't': out[k++] = '\t'; i += 2; break;
            case 'r': out[k++] = '\r'; i += 2; break;
            case 'x': {
                int hi = i + 2 < c->len ? hexval(c->s[i + 2]) : -1;
                int lo = i + 3 < c->len ? hexval(c->s[i + 3]) : -1;
                if (hi < 0 || lo < 0) return hatf_text_fail_(c, i, "\\x needs two hex digits");
                out[k++] = (uint8_t)(hi << 4 | lo);
                i += 4;
                break;
            }
            default: return hatf_text_fail_(c, i, "unknown escape (use \\\" \\\\ \\n \\t \\r \\xHH)");
            }
            continue;
        }
        if (ch < 0x20 || ch == 0x7f) return hatf_text_fail_(c, i, "control byte in comment text (use \\xHH)");
        out[k++] = ch;
        i++;
    }
    c->pos = i;
    if (i < c->len && !is_blank(c->s[i])) return hatf_text_fail_(c, i, "text after the closing quote");
    *out_len = k;
    return 0;
}

/* Attributes: key=value tokens to the end of the line. */
static int read_attrs(hatf_text_cursor *c, hatf_event *ev, uint8_t *out)
{
    hatf_attrs a;
    memset(&a, 0, sizeof a);
    int raw = 0;  /* attr= seen */
    size_t first = SIZE_MAX;
    for (;;) {
        size_t at, n = hatf_text_token_(c, &at);
        if (n == 0) break;
        if (first == SIZE_MAX) first = at;
        const char *s = c->s + at;
        const char *eq = memchr(s, '=', n);
        if (!eq) return hatf_text_fail_(c, at, "expected an attribute key=value");
        size_t kl = (size_t)(eq - s), vpos = at + kl + 1, vl = n - kl - 1, bad;
        const char *v = eq + 1;
        if (kl == 4 && memcmp(s, "attr", 4) == 0) {
            if (raw || a.present) return hatf_text_fail_(c, at, "attr= cannot be combined with other attributes");
            raw = 1;
            if (vl >= 4 && memcmp(v, "hex:", 4) == 0) {
                long k = parse_hexbytes(v, vl, out, &bad);
                if (k < 0) return hatf_text_fail_(c, vpos + bad, "attr=hex: needs an even number of hex digits (at most 65535 bytes)");
                ev->attr_is_bytes = HATF_ATTRS_FOREIGN;  /* raw bytes: no hatrace meaning */
                ev->data = out;
                ev->data_len = (uint16_t)k;
            } else if (parse_dec(v, vl, &ev->attr, &bad) != 0) {
                return hatf_text_fail_(c, vpos + bad, "attr= takes a decimal number or hex:BYTES");
            }
            continue;
        }
        unsigned key = 0;
        for (unsigned k = 1; k <= HATF_A_KEY_MAX_; k++)
            if (strlen(key_names[k]) == kl && memcmp(key_names[k], s, kl) == 0) key = k;
        if (!key) return hatf_text_fail_(c, at, "unknown attribute (func align stack ostid parent failed nmemb sized attr)");
        if (raw) return hatf_text_fail_(c, at, "attr= cannot be combined with other attributes");
        if (a.present & (1u << key)) return hatf_text_fail_(c, at, "attribute given twice");
        uint64_t val;
        int fn = key == HATF_A_FUNC ? hatf_func_from_name(v, vl) : -1;
        if (fn > 0) val = (uint64_t)fn;
        else if (parse_dec(v, vl, &val, &bad) != 0)
            return hatf_text_fail_(c, vpos + bad, key == HATF_A_FUNC ? "func= takes a function name or a number"
                                                         : "attribute value must be a decimal number");
        a.value[key] = val;
        a.present |= 1u << key;
    }
    if (a.present) {
        ev->attr_is_bytes = 1;
        ev->data = out;
        ev->data_len = (uint16_t)hatf_attrs_encode(&a, out);
    }
    return 0;
}

/* A realloc's "lead=N" after its new address, if there: its release lead
 * (hatf_event.release_lead), at most its time. @return 0 or the error. */
static int read_lead(hatf_text_cursor *c, hatf_event *ev)
{
    hatf_text_skip_blanks_(c);
    if (c->len - c->pos < 5 || memcmp(c->s + c->pos, "lead=", 5) != 0) return 0;
    c->pos += 5;
    size_t at = c->pos;
    int rc = hatf_text_read_dec_(c, "lead", &ev->release_lead);
    if (!rc && ev->release_lead > ev->time) return hatf_text_fail_(c, at, "lead= past the event's time");
    return rc;
}

HATF_API int hatf_text_parse(const char *line, size_t len, uint64_t line_offset,
                             hatf_event *ev, hatf_buf *scratch, hatf_err *err)
{
    hatf_text_cursor c = { line, len, 0, line_offset, err };
    memset(ev, 0, sizeof *ev);
    if (len > HATF_TEXT_LINE_MAX)
        return hatf_err_set(err, HATF_E_LIMIT, line_offset, "line longer than %d bytes", HATF_TEXT_LINE_MAX);
    hatf_text_skip_blanks_(&c);
    if (c.pos == len || line[c.pos] == '#') return 0;

    /* decoded bytes are never longer than the line they come from */
    scratch->len = 0;
    uint8_t *out = hatf_buf_reserve(scratch, len + HATF_ATTRS_MAX);
    if (!out) return hatf_err_set(err, HATF_E_NOMEM, line_offset, "out of memory");

    int rc;
    if ((rc = hatf_text_read_dec_(&c, "time", &ev->time)) || (rc = hatf_text_read_dec_(&c, "thread", &ev->thread)) ||
        (rc = hatf_text_read_dec_(&c, "heap", &ev->heap)))
        return rc;
    size_t at, n = hatf_text_token_(&c, &at);
    if (n == 0) return hatf_text_fail_(&c, at, "missing operation");
    int op = hatf_op_from_name(line + at, n);
    if (op < 0) return hatf_text_fail_(&c, at, "unknown operation (alloc free realloc-inplace realloc-move realloc-new realloc-free heap-create heap-destroy thread-create thread-destroy comment)");
    ev->op = (uint8_t)op;

    switch (op) {
    case HATF_OP_ALLOC:
        if ((rc = hatf_text_read_dec_(&c, "size", &ev->size)) || (rc = hatf_text_read_addr_(&c, "address", &ev->addr))) return rc;
        break;
    case HATF_OP_FREE:
        if ((rc = hatf_text_read_addr_(&c, "address", &ev->addr))) return rc;
        break;
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE:
        if ((rc = hatf_text_read_dec_(&c, "size", &ev->size)) || (rc = hatf_text_read_addr_(&c, "old address", &ev->addr)))
            return rc;
        n = hatf_text_token_(&c, &at);
        if (n != 2 || line[at] != '-' || line[at + 1] != '>') return hatf_text_fail_(&c, at, "expected -> between the old and the new address");
        if ((rc = hatf_text_read_addr_(&c, "new address", &ev->new_addr))) return rc;
        if (hatf_event_releases_early(ev) && (rc = read_lead(&c, ev))) return rc;
        break;
    case HATF_OP_COMMENT: {
        size_t k = 0;
        if ((rc = hatf_text_read_comment_(&c, out, &k))) return rc;
        ev->data = out;
        ev->data_len = (uint16_t)k;
        n = hatf_text_token_(&c, &at);
        if (n) return hatf_text_fail_(&c, at, "text after the comment");
        return 1;
    }
    default:
        break;
    }
    if ((rc = read_attrs(&c, ev, out))) return rc;
    return 1;
}
