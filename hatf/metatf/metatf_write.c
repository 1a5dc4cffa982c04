/* metatf_write.c — events written as Meta-TF under the HATF DTD
 * (docs/metatf/hatf.dtd; the file layout: metatf_read.c, docs/metatf.md).
 *
 * The file: the header (64-bit, big-endian, the DTD embedded), two section
 * headers, the strings section (the strings known before the first records
 * were written: the hatrace-info text, thread names), then the trace section:
 * HATF 1.0 records as hatf1_encode writes them (adaptive widths, deltas,
 * metadata records changing a field's encoding on the fly), among them
 * hatrace's records 12-15. Strings met after the header was written travel
 * in add-strings records (the predefined section record).
 *
 * Written as it comes: the records are flushed every FLUSH_AT bytes; when
 * the first flush comes before the end, the header's record count and the
 * trace section's length and count say "not known" until close fills them in
 * (pwrite; on a pipe they stay so, and a reader reads to the end of the file).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "bytes.h"
#include "hatf1/hatf1_internal.h"
#include "metatf_internal.h"

#define FLUSH_AT (1u << 20)
#define NSECT 2                 /* strings, trace: the DTD's order */
#define TAG_INFO 12
#define TAG_THREAD_NAME 13
#define TAG_HEAP_NAME 14
#define TAG_ADD_STRINGS 15

struct hatf_metatf_writer {
    int fd;
    int header_written;
    hatf_buf strings;           /* the strings section as the header will hold it */
    uint64_t nstrings;
    uint64_t strings_total;     /* its length with the strings added by records */
    hatf_buf recs;              /* records not yet written */
    hatf1_encoder enc;
    uint64_t extra;             /* records hatf1_encode does not count */
    uint64_t recs_written;      /* bytes of the trace section written */
    size_t dtd_len;
    hatf_err err;
};

static int wfail(hatf_metatf_writer *w, int code, const char *what)
{
    return hatf_err_set(&w->err, code, 0, "%s%s%s", what, code == HATF_E_IO ? ": " : "",
                        code == HATF_E_IO ? strerror(errno) : "");
}

static int write_all(hatf_metatf_writer *w, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return wfail(w, HATF_E_IO, "write");
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static uint64_t data_start(const hatf_metatf_writer *w) { return 24 + w->dtd_len + NSECT * 24; }

/* The header, the section headers and the strings section; known: the
 * records' count and length, or not yet (all ones). */
static int write_header(hatf_metatf_writer *w, int known)
{
    hatf_buf h;
    hatf_buf_init(&h);
    uint8_t *p = hatf_buf_reserve(&h, 24);
    if (!p) return wfail(w, HATF_E_NOMEM, "out of memory");
    memcpy(p, HATF_METATF_MAGIC, 4);
    p[4] = 1;  /* version */
    p[5] = 2;  /* 64-bit */
    p[6] = 2;  /* big-endian, as HATF 1.0 */
    p[7] = 1;  /* the DTD embedded */
    hatf_store_be(p + 8, NSECT, 4);
    hatf_store_be(p + 12, w->dtd_len, 4);
    uint64_t nrec = w->enc.records + w->enc.metadata + w->extra;
    hatf_store_be(p + 16, known ? nrec : UINT64_MAX, 8);
    h.len = 24;
    hatf_buf_append(&h, hatf_metatf_hatf_dtd(), w->dtd_len);
    uint64_t d0 = data_start(w);
    uint8_t *t = hatf_buf_reserve(&h, NSECT * 24);
    if (t) {
        hatf_store_be(t, d0, 8);                        /* strings */
        hatf_store_be(t + 8, w->strings.len, 8);
        hatf_store_be(t + 16, w->nstrings, 8);
        hatf_store_be(t + 24, d0 + w->strings.len, 8);  /* trace */
        hatf_store_be(t + 32, known ? w->recs.len : UINT64_MAX, 8);
        hatf_store_be(t + 40, known ? nrec : UINT64_MAX, 8);
        h.len += NSECT * 24;
    }
    hatf_buf_append(&h, w->strings.p, w->strings.len);
    int rc = h.failed ? wfail(w, HATF_E_NOMEM, "out of memory") : write_all(w, h.p, h.len);
    hatf_buf_free(&h);
    w->header_written = 1;
    return rc;
}

static int flush(hatf_metatf_writer *w)
{
    if (w->recs.failed) return wfail(w, HATF_E_NOMEM, "out of memory");
    int rc = w->header_written ? 0 : write_header(w, 0);
    if (rc == 0) rc = write_all(w, w->recs.p, w->recs.len);
    w->recs_written += w->recs.len;
    w->recs.len = 0;
    return rc;
}

/* The string s (with its NUL) in the strings section. @return its offset. */
static uint64_t add_string(hatf_metatf_writer *w, const char *s)
{
    size_t n = strlen(s) + 1;
    uint64_t off = w->strings_total;
    if (!w->header_written) {
        hatf_buf_append(&w->strings, s, n);
        w->nstrings++;
    } else {  /* an add-strings record: tag, section 0, length, the bytes */
        uint8_t h[6] = { TAG_ADD_STRINGS, 0 };
        hatf_store_be(h + 2, n, 4);
        hatf_buf_append(&w->recs, h, sizeof h);
        hatf_buf_append(&w->recs, s, n);
        w->extra++;
    }
    w->strings_total += n;
    return off;
}

HATF_API hatf_metatf_writer *hatf_metatf_writer_open(int fd, const char *info, hatf_err *err)
{
    hatf_metatf_writer *w = calloc(1, sizeof *w);
    if (!w) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); return NULL; }
    w->fd = fd;
    w->dtd_len = strlen(hatf_metatf_hatf_dtd());
    hatf_buf_init(&w->strings);
    hatf_buf_init(&w->recs);
    hatf1_encoder_init(&w->enc, &w->recs, HATF1_BEST);
    if (info) {  /* first of all records: readers look for it there */
        uint8_t r[5] = { TAG_INFO };
        hatf_store_be(r + 1, add_string(w, info), 4);
        hatf_buf_append(&w->recs, r, sizeof r);
        w->extra++;
    }
    return w;
}

HATF_API int hatf_metatf_writer_name(hatf_metatf_writer *w, int kind, uint64_t id, const char *name)
{
    if (w->err.code) return w->err.code;
    if (!name || (kind != 0 && kind != 1)) return HATF_E_USAGE;
    uint64_t off = add_string(w, name);
    uint8_t r[13] = { (uint8_t)(kind ? TAG_HEAP_NAME : TAG_THREAD_NAME) };
    hatf_store_be(r + 1, id, 8);
    hatf_store_be(r + 9, off, 4);
    hatf_buf_append(&w->recs, r, sizeof r);
    w->extra++;
    if (w->strings_total > UINT32_MAX) return wfail(w, HATF_E_LIMIT, "the strings section passed 4 GiB");
    return w->recs.len >= FLUSH_AT ? flush(w) : 0;
}

HATF_API int hatf_metatf_writer_add(hatf_metatf_writer *w, const hatf_event *ev)
{
    if (w->err.code) return w->err.code;
    int rc = hatf1_encode(&w->enc, ev);
    if (rc < 0) return hatf_err_set(&w->err, rc, 0, "%s", hatf_strerror(rc));
    return w->recs.len >= FLUSH_AT ? flush(w) : 0;
}

HATF_API int hatf_metatf_writer_close(hatf_metatf_writer *w, hatf_err *err)
{
    int rc = w->err.code;
    if (rc == 0 && w->recs.failed) rc = wfail(w, HATF_E_NOMEM, "out of memory");
    if (rc == 0 && !w->header_written) {  /* all of it still here: the header says everything */
        rc = write_header(w, 1);
        if (rc == 0) rc = write_all(w, w->recs.p, w->recs.len);
    } else if (rc == 0) {
        rc = flush(w);
        /* fill in the counts, where the file can seek */
        uint64_t nrec = w->enc.records + w->enc.metadata + w->extra;
        uint8_t b[16];
        hatf_store_be(b, nrec, 8);
        off_t tab = (off_t)(24 + w->dtd_len + 24);  /* the trace section's header */
        if (rc == 0 && lseek(w->fd, 0, SEEK_CUR) >= 0) {
            if (pwrite(w->fd, b, 8, 16) != 8) rc = wfail(w, HATF_E_IO, "pwrite");
            hatf_store_be(b, w->recs_written, 8);
            hatf_store_be(b + 8, nrec, 8);
            if (rc == 0 && pwrite(w->fd, b, 16, tab + 8) != 16) rc = wfail(w, HATF_E_IO, "pwrite");
        }
    }
    if (rc && err) *err = w->err;
    hatf_buf_free(&w->strings);
    hatf_buf_free(&w->recs);
    free(w);
    return rc;
}
