/* text_internal.h — the pieces of the text form's line grammar (hatf/text/text.c)
 * that its table lines (hatf/text/text_tables.c) share: a cursor over one line,
 * its tokens and fields, and the writers of numbers and quoted strings. */
#ifndef HATF_TEXT_INTERNAL_H
#define HATF_TEXT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hatf.h"

typedef struct hatf_text_cursor {
    const char *s;
    size_t len, pos;
    uint64_t line_offset;
    hatf_err *err;
} hatf_text_cursor;

/* An error at byte pos of the line ("column N: what"). @return HATF_E_CORRUPT. */
int hatf_text_fail_(hatf_text_cursor *c, size_t pos, const char *what);
void hatf_text_skip_blanks_(hatf_text_cursor *c);
/* Next blank-delimited token at *tok_pos. @return its length, 0 at the end. */
size_t hatf_text_token_(hatf_text_cursor *c, size_t *tok_pos);
/* A decimal below 2^64, a 0x address: @return 0 or an error naming what. */
int hatf_text_read_dec_(hatf_text_cursor *c, const char *what, uint64_t *out);
int hatf_text_read_addr_(hatf_text_cursor *c, const char *what, uint64_t *out);
/* "..." with escapes, or hex:BYTES, into out (room for 65535 bytes). */
int hatf_text_read_comment_(hatf_text_cursor *c, uint8_t *out, size_t *out_len);

/* Writers: each returns the byte after what it wrote. */
char *hatf_text_put_dec_(char *p, uint64_t v);
char *hatf_text_put_hex_(char *p, uint64_t v);
char *hatf_text_put_str_(char *p, const char *s);
/* Bytes d[0..n) quoted and escaped take (with the quotes): at most 4n + 2. */
size_t hatf_text_quoted_len_(const uint8_t *d, size_t n);
char *hatf_text_put_quoted_(char *p, const uint8_t *d, size_t n);

/* text_tables.c: 1 when the line is a table line ("#stack ", "#module ",
 * ...; docs/format-text.md, "Tables"), else 0. */
int hatf_text_is_table_(const char *line, size_t len);
/* Add the table line to t, a tables-only reader (container_internal.h);
 * scratch: 65536 bytes for a name. @return 0, or an error naming the column. */
struct hatf_reader;
int hatf_text_parse_table_(const char *line, size_t len, uint64_t line_offset, struct hatf_reader *t,
                           char *scratch, hatf_err *err);

#endif
