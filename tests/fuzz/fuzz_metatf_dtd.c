/* fuzz_metatf_dtd.c — the Meta-TF DTD parser, and the DTD-driven reader on
 * the DTDs that parse.
 *
 * Input: DTD text, optionally a NUL and then bytes for the records sections.
 * Properties: parsing never crashes or hangs; an error is a known code with
 * one line "DTD line N: ..." whose offset lies inside the text. A DTD that
 * parses is embedded in a Meta-TF file (every strings or bytes section
 * holding a few strings, every records section the bytes after the NUL) and
 * read by hatf_metatf_next_text, and by hatf_source_next when it says
 * "events hatf": no crash, errors well-formed and inside the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hatf.h"
#include "hatf_metatf.h"
#include "hatf_source.h"
#include "fuzz_common.h"

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = n; i-- > 0;) { p[i] = (uint8_t)v; v >>= 8; }
}

/* The DTD's section lines, in order; rec[k]: the k-th holds records. */
static size_t count_sections(const char *t, size_t n, int *rec)
{
    size_t k = 0;
    for (size_t i = 0; i + 8 <= n; i++)
        if ((i == 0 || t[i - 1] == '\n') && memcmp(t + i, "section ", 8) == 0) {
            const char *nl = memchr(t + i, '\n', n - i);
            const char *hash = memchr(t + i, '#', (size_t)((nl ? nl : t + n) - (t + i)));
            const char *end = hash ? hash : nl ? nl : t + n;
            if (k < 16) rec[k] = memmem(t + i, (size_t)(end - (t + i)), " records", 8) != NULL;
            k++;
        }
    return k;
}

static void read_file(const uint8_t *file, size_t len, int events)
{
    char path[64];
    int fd = fuzz_memfile(file, len, path, sizeof path);
    if (fd < 0) return;
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(path, HATF_FMT_AUTO, &err);
    if (!s) {
        fuzz_check_err(err.code, &err, len);
    } else if (events) {
        hatf_event ev;
        int rc, n = 0;
        while ((rc = hatf_source_next(s, &ev)) == 1 && n++ < 100000) FUZZ_CHECK(ev.op < HATF_OP_COUNT_, "op %u", ev.op);
        if (rc < 0) fuzz_check_err(rc, hatf_source_error(s), len);
    } else {
        hatf_metatf_reader *r = hatf_source_metatf(s);
        FUZZ_CHECK(r != NULL, "a Meta-TF file without its reader");
        hatf_buf out;
        hatf_buf_init(&out);
        hatf_metatf_header_text(r, &out);
        FUZZ_CHECK(out.len && out.p[0] == '#' && out.p[out.len - 1] == '\n', "header text");
        out.len = 0;
        int rc, n = 0;
        while ((rc = hatf_metatf_next_text(r, &out)) == 1 && n++ < 100000) {
            FUZZ_CHECK(out.len && out.p[out.len - 1] == '\n' && !memchr(out.p, '\n', out.len - 1),
                       "a record's text is not one line");
            out.len = 0;
        }
        if (rc < 0) fuzz_check_err(rc, hatf_metatf_error(r), len);
        hatf_buf_free(&out);
    }
    hatf_source_close(s);
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t tlen = nul ? (size_t)(nul - data) : size;
    const uint8_t *recs = nul ? nul + 1 : NULL;
    size_t rlen = nul ? size - tlen - 1 : 0;
    hatf_err err = { 0 };
    hatf_metatf_dtd *d = hatf_metatf_dtd_parse((const char *)data, tlen, &err);
    if (!d) {
        fuzz_check_err(err.code, &err, tlen);
        FUZZ_CHECK(strncmp(err.msg, "DTD line ", 9) == 0 || err.code == HATF_E_NOMEM, "message '%s'", err.msg);
        return 0;
    }
    FUZZ_CHECK(strlen(hatf_metatf_dtd_name(d)) < 64, "name too long");
    int events = hatf_metatf_dtd_events(d);
    hatf_metatf_dtd_free(d);
    /* a file around it: big-endian, 64-bit, the DTD embedded */
    static const uint8_t strs[] = "abc\0defgh\0\0\0ij\0";
    int rec[16];
    size_t ns = count_sections((const char *)data, tlen, rec);
    if (ns > 16) return 0;
    size_t head = 24 + tlen + 24 * ns, len = head + ns * (sizeof strs + rlen);
    uint8_t *f = malloc(len);
    if (!f) return 0;
    memcpy(f, "\177MTF\001\002\002\001", 8);
    put_be(f + 8, ns, 4);
    put_be(f + 12, tlen, 4);
    put_be(f + 16, UINT64_MAX, 8);
    memcpy(f + 24, data, tlen);
    size_t off = head;
    for (size_t i = 0; i < ns; i++) {  /* records sections: the bytes after the NUL; others: the strings */
        size_t sl = rec[i] ? rlen : sizeof strs;
        put_be(f + 24 + tlen + 24 * i, off, 8);
        put_be(f + 24 + tlen + 24 * i + 8, sl, 8);
        put_be(f + 24 + tlen + 24 * i + 16, UINT64_MAX, 8);
        if (sl) memcpy(f + off, rec[i] ? recs : strs, sl);
        off += sl;
    }
    len = off;
    read_file(f, len, 0);
    if (events) read_file(f, len, 1);
    free(f);
    return 0;
}
