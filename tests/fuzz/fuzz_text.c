/* fuzz_text.c — the text-form parser on arbitrary lines.
 *
 * Properties: parsing never crashes or hangs; an error is a known code with a
 * one-line message; a parsed event formats to one line that parses back to the
 * same event, and formatting that again gives the same line.
 */
#include <stdint.h>
#include <string.h>

#include "hatf.h"
#include "hatf_text.h"
#include "fuzz_common.h"

static void check_line(const char *line, size_t len, uint64_t off, hatf_buf *scratch,
                       hatf_buf *scratch2)
{
    hatf_event ev, back;
    hatf_err err = { 0 };
    int rc = hatf_text_parse(line, len, off, &ev, scratch, &err);
    if (rc < 0) {
        FUZZ_CHECK(fuzz_code_ok(rc), "unexpected code %d", rc);
        FUZZ_CHECK(err.code == rc && err.msg[0] && !strchr(err.msg, '\n'),
                   "bad error report for code %d: '%s'", rc, err.msg);
        FUZZ_CHECK(err.offset >= off && err.offset <= off + len, "error offset %llu outside the line",
                   (unsigned long long)err.offset);
        return;
    }
    if (rc == 0) return;
    FUZZ_CHECK(rc == 1, "parse returned %d", rc);
    FUZZ_CHECK(ev.op < HATF_OP_COUNT_, "parsed op %u", ev.op);

    hatf_buf txt, txt2;
    hatf_buf_init(&txt);
    hatf_buf_init(&txt2);
    FUZZ_CHECK(hatf_text_format(&ev, &txt) == 0, "format failed");
    FUZZ_CHECK(txt.len > 0 && txt.p[txt.len - 1] == '\n', "formatted line does not end in a newline");
    FUZZ_CHECK(memchr(txt.p, '\n', txt.len - 1) == NULL, "formatted event spans lines");
    hatf_err err2 = { 0 };
    rc = hatf_text_parse((const char *)txt.p, txt.len - 1, 0, &back, scratch2, &err2);
    if (rc != 1 || !fuzz_event_equal(&ev, &back)) {
        fprintf(stderr, "input:     %.*s\nformatted: %.*s", (int)len, line, (int)txt.len, (const char *)txt.p);
        fuzz_event_print("parsed", &ev);
        if (rc == 1) fuzz_event_print("re-parsed", &back);
        FUZZ_CHECK(0, "format/parse round trip failed: %d %s", rc, err2.msg);
    }
    FUZZ_CHECK(hatf_text_format(&back, &txt2) == 0, "format failed");
    FUZZ_CHECK(txt.len == txt2.len && memcmp(txt.p, txt2.p, txt.len) == 0,
               "formatting is not stable: '%.*s' vs '%.*s'", (int)txt.len, (const char *)txt.p,
               (int)txt2.len, (const char *)txt2.p);
    hatf_buf_free(&txt);
    hatf_buf_free(&txt2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hatf_buf scratch, scratch2;
    hatf_buf_init(&scratch);
    hatf_buf_init(&scratch2);
    const char *p = (const char *)data;
    size_t start = 0;
    while (start <= size) {
        const char *nl = memchr(p + start, '\n', size - start);
        size_t end = nl ? (size_t)(nl - p) : size;
        if (end > start || nl) check_line(p + start, end - start, start, &scratch, &scratch2);
        start = end + 1;
    }
    hatf_buf_free(&scratch);
    hatf_buf_free(&scratch2);
    return 0;
}
