/* bufput.h — text into a hatf_buf (analyze/bufput.c): printf-style, and a
 * JSON string; the commands' cli_put and cli_json_string are these. */
#ifndef ANALYZE_BUFPUT_H
#define ANALYZE_BUFPUT_H

#include <stdarg.h>

#include "hatf.h"

/* Append printf's text of fmt (at most 8191 bytes of it). */
void buf_put(hatf_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vput(hatf_buf *o, const char *fmt, va_list ap);

/* Append s as a JSON string: quoted, '"', '\\' and control characters escaped. */
void buf_json_string(hatf_buf *out, const char *s);

#endif
