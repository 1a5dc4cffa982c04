/* bufput.c — text into a hatf_buf (bufput.h). */
#include <stdio.h>

#include "bufput.h"

void buf_vput(hatf_buf *o, const char *fmt, va_list ap)
{
    char line[8192];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n > 0) hatf_buf_append(o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void buf_put(hatf_buf *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vput(o, fmt, ap);
    va_end(ap);
}

void buf_json_string(hatf_buf *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    hatf_buf_append(out, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            hatf_buf_append(out, e, 2);
        } else if (c < 0x20 || c == 0x7f) {
            char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            hatf_buf_append(out, e, 6);
        } else {
            hatf_buf_append(out, s, 1);
        }
    }
    hatf_buf_append(out, "\"", 1);
}
