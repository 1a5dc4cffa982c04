/* source.c — one reading interface over the three formats.
 *
 * container: the reader's global iterator (time order across threads), with
 *            equal times across threads in causal order (causal.h);
 * hatf1.0:   the file mapped read-only and run through the decoder;
 * text:      read through a fixed buffer one line at a time, so a file of any
 *            length (or a line of any length) costs bounded memory;
 * metatf:    the file mapped read-only and read by its DTD (metatf_read.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hatf.h"
#include "hatf_container.h"
#include "hatf_source.h"
#include "hatf_text.h"
#include "text/text_internal.h"
#include "causal.h"
#include "hatf1/hatf1_internal.h"
#include "metatf/metatf_read.h"
#include "container/source_jobs.h"

#define TEXT_READ_CHUNK 65536

struct hatf_source {
    hatf_format fmt;
    uint64_t record;      /* events returned so far */
    uint64_t offset;      /* offset of the last event */
    hatf_err err;
    /* container */
    hatf_reader *reader;
    hatf_iter *iter;      /* one thread: nothing to order */
    hatf_causal *causal;  /* two or more */
    int follow_one;       /* following with iter while the file has one thread */
    /* hatf1.0 */
    const uint8_t *map;
    size_t map_len;
    hatf1_decoder dec;
    /* text */
    int fd;
    char *buf;            /* TEXT_READ_CHUNK + HATF_TEXT_LINE_MAX + 1 bytes */
    size_t start, end;    /* unread bytes are buf[start..end) */
    uint64_t buf_offset;  /* file offset of buf[start] */
    uint64_t line_no;     /* lines consumed */
    int eof;
    hatf_buf scratch;
    hatf_reader *tables;  /* the text form's table lines (text_tables.c), or NULL */
    hatf_source_filter_fn filter;  /* hatf_source_filter, or NULL */
    void (*filter_done)(void *ctx);
    void *filter_ctx;
    hatf_info info;       /* from a '# container' line, or a HATF 1.0 stream's mark, written by dump/convert */
    int have_info;
    int foreign;          /* a HATF 1.0 stream without hatrace's mark: its attribute bytes are opaque */
    hatf_metatf_reader *mtf;  /* metatf (over map) */
    /* hatf_source_peek of a source read one event at a time: the event held */
    hatf_event held;
    int peek_one;
    /* hatf_source_read_on: a container's damaged chunk groups passed over, each noted */
    int read_on;
    char **skips;
    size_t nskips, cap_skips;
};

static const char *const fmt_names[] = { "auto", "hatrace", "hatf1.0", "text", "metatf" };

HATF_API int hatf_format_from_name(const char *name)
{
    for (int i = 1; i < 5; i++)
        if (strcmp(name, fmt_names[i]) == 0) return i;
    return -1;
}

HATF_API const char *hatf_format_name(hatf_format f)
{
    return (unsigned)f < 5 ? fmt_names[f] : "unknown";
}

HATF_API hatf_format hatf_format_of_head(const void *head, size_t n)
{
    static const struct { const char *magic; size_t len; hatf_format fmt; } magics[] = {
        { HATF_CONTAINER_MAGIC, 8, HATF_FMT_CONTAINER },  /* its NUL is part of it */
        { HATF_METATF_MAGIC, sizeof HATF_METATF_MAGIC - 1, HATF_FMT_METATF },
        { HATF_TEXT_MAGIC, sizeof HATF_TEXT_MAGIC - 1, HATF_FMT_TEXT },
    };
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
        if (n >= magics[i].len && memcmp(head, magics[i].magic, magics[i].len) == 0) return magics[i].fmt;
    return HATF_FMT_AUTO;
}

static int io_fail(hatf_err *err, uint64_t offset, const char *what)
{
    int e = errno;
    hatf_err_set(err, HATF_E_IO, offset, "%s: %s", what, strerror(e));
    if (err) err->sys_errno = e;
    return HATF_E_IO;
}

/* Fill the text buffer so that a whole line (or the end of file) is in it. */
static int text_fill(hatf_source *s)
{
    if (s->start > 0) {
        memmove(s->buf, s->buf + s->start, s->end - s->start);
        s->end -= s->start;
        s->start = 0;
    }
    size_t cap = TEXT_READ_CHUNK + HATF_TEXT_LINE_MAX + 1;
    while (!s->eof && s->end < cap) {
        ssize_t n = read(s->fd, s->buf + s->end, cap - s->end);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_fail(&s->err, s->buf_offset + s->end, "read");
        }
        if (n == 0) s->eof = 1;
        s->end += (size_t)n;
        if (memchr(s->buf + s->end - (size_t)n, '\n', (size_t)n)) break;
    }
    return 0;
}

/* Next line into *line, *len (without '\n'); @return 1, 0 at the end, or an error. */
static int text_line(hatf_source *s, const char **line, size_t *len, uint64_t *off)
{
    char *nl = memchr(s->buf + s->start, '\n', s->end - s->start);
    if (!nl) {
        int rc = text_fill(s);
        if (rc) return rc;
        nl = memchr(s->buf + s->start, '\n', s->end - s->start);
    }
    size_t avail = s->end - s->start;
    size_t n = nl ? (size_t)(nl - (s->buf + s->start)) : avail;
    if (!nl && avail == 0) return 0;
    if (n > HATF_TEXT_LINE_MAX)
        return hatf_err_set(&s->err, HATF_E_LIMIT, s->buf_offset, "line %llu: longer than %d bytes",
                            (unsigned long long)s->line_no + 1, HATF_TEXT_LINE_MAX);
    *line = s->buf + s->start;
    *len = n;
    *off = s->buf_offset;
    size_t used = nl ? n + 1 : n;
    s->start += used;
    s->buf_offset += used;
    s->line_no++;
    return 1;
}

static void text_header_info(hatf_source *s, const char *p, size_t len);

/* A HATF 1.0 stream is hatrace's when its first record is the comment
 * HATF1_HATRACE_MARK (then read, with the container header it may carry, and
 * passed over); else another writer's, whose attribute bytes hatrace cannot
 * read (s->foreign). */
static int read_mark(hatf_source *s, const uint8_t *p, size_t n)
{
    size_t ml = strlen(HATF1_HATRACE_MARK);
    if (!p || n < ml || memcmp(p, HATF1_HATRACE_MARK, ml) != 0 || (n != ml && p[ml] != ' ')) return 0;
    static const char ct[] = " container ";
    size_t cl = sizeof ct - 1;
    if (n >= ml + cl && memcmp(p + ml, ct, cl) == 0) text_header_info(s, (const char *)p + ml + cl, n - ml - cl);
    return 1;
}

static void hatf1_mark(hatf_source *s)
{
    hatf_event ev;
    if (hatf1_decode(&s->dec, &ev) == 1 && ev.op == HATF_OP_COMMENT && read_mark(s, ev.data, ev.data_len)) return;
    s->foreign = 1;
    hatf1_decoder_init(&s->dec, s->map, s->map_len, 0);  /* its first record is an event */
}

/* Parse the rest of a "# container" line (cli/dump.c writes it):
 * "V.v pid P ppid Q start ISO clock C unit N/D ns B-bit[ forked][ attached][ incomplete] cmdline \"...\"".
 * A line that does not parse leaves no info: it was only a comment. */
static void text_header_info(hatf_source *s, const char *p, size_t len)
{
    char line[1024], when[32], clock[32];
    if (len >= sizeof line) return;
    memcpy(line, p, len);
    line[len] = 0;
    hatf_info *in = &s->info;
    memset(in, 0, sizeof *in);
    unsigned long long num, den;
    unsigned bits;
    int used = 0;
    if (sscanf(line, "%u.%u pid %u ppid %u start %31s clock %31s unit %llu/%llu ns %u-bit%n", &in->version_major,
               &in->version_minor, &in->pid, &in->ppid, when, clock, &num, &den, &bits, &used) != 9 ||
        !num || !den || (bits != 32 && bits != 64))
        return;
    in->time_unit_ns_num = num;
    in->time_unit_ns_den = den;
    in->address_bits = (uint8_t)bits;
    snprintf(in->clock, sizeof in->clock, "%s", clock);
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (end && !*end) in->start_realtime_ns = (uint64_t)timegm(&tm) * 1000000000u;
    const char *rest = line + used;
    if (strstr(rest, " forked")) in->flags |= HATF_INFO_FORKED;
    if (strstr(rest, " attached")) in->flags |= HATF_INFO_ATTACHED;
    const char *cmd = strstr(rest, " cmdline ");
    if (cmd) {  /* the quoted command line, escaped like a comment's text */
        char c[1100];
        hatf_event ev;
        hatf_buf scratch;
        hatf_err e = { 0 };
        hatf_buf_init(&scratch);
        int n = snprintf(c, sizeof c, "0 0 0 comment %s", cmd + 9);
        if (n > 0 && (size_t)n < sizeof c && hatf_text_parse(c, (size_t)n, 0, &ev, &scratch, &e) == 1 &&
            ev.data_len < sizeof in->cmdline)
            memcpy(in->cmdline, ev.data, ev.data_len);
        hatf_buf_free(&scratch);
    }
    s->have_info = 1;
}

static int text_header(hatf_source *s)
{
    const char *line;
    size_t len;
    uint64_t off;
    int rc = text_line(s, &line, &len, &off);
    if (rc < 0) return rc;
    size_t ml = strlen(HATF_TEXT_MAGIC);
    if (rc == 0)
        return hatf_err_set(&s->err, HATF_E_TRUNCATED, 0, "empty file, no '%s' line", HATF_TEXT_MAGIC);
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' ')) len--;
    if (len > 14 && memcmp(line, "#hatrace-text ", 14) == 0 &&
        !(len == ml && memcmp(line, HATF_TEXT_MAGIC, ml) == 0))
        return hatf_err_set(&s->err, HATF_E_VERSION, 0, "text form '%.*s' is newer than this reader (%s)",
                            (int)(len > 40 ? 40 : len), line, HATF_TEXT_MAGIC);
    if (len != ml || memcmp(line, HATF_TEXT_MAGIC, ml) != 0)
        return hatf_err_set(&s->err, HATF_E_CORRUPT, 0, "not a text trace: first line must be '%s'",
                            HATF_TEXT_MAGIC);
    /* A text trace written from a container keeps its header as a comment
     * line right after the magic: read it back, so that text -> container
     * keeps the time unit, pid and command line. Only peeked at: any other
     * line stays for the event parser. */
    static const char tag[] = "# container ";
    if (s->end - s->start >= sizeof tag - 1 && memcmp(s->buf + s->start, tag, sizeof tag - 1) == 0 &&
        text_line(s, &line, &len, &off) > 0)
        text_header_info(s, line + sizeof tag - 1, len - (sizeof tag - 1));
    return 0;
}

/* The next line without taking it (a '#' line or blank one is no event).
 * @return 1 with *line, *len, 0 at the end, or an error. */
static int text_peek(hatf_source *s, const char **line, size_t *len)
{
    if (!memchr(s->buf + s->start, '\n', s->end - s->start)) {
        int rc = text_fill(s);
        if (rc) return rc;
    }
    if (s->start == s->end) return 0;
    const char *p = s->buf + s->start, *nl = memchr(p, '\n', s->end - s->start);
    *line = p;
    *len = nl ? (size_t)(nl - p) : s->end - s->start;
    return 1;
}

/* The lines before the first event: comments, and the table lines, read
 * into s->tables (then sorted for lookups). */
static int text_tables(hatf_source *s)
{
    const char *line;
    size_t len;
    uint64_t off;
    char *name = NULL;
    int rc;
    while ((rc = text_peek(s, &line, &len)) > 0) {
        size_t b = 0;
        while (b < len && (line[b] == ' ' || line[b] == '\t' || line[b] == '\r')) b++;
        if (b < len && line[b] != '#') break;  /* the first event */
        if ((rc = text_line(s, &line, &len, &off)) <= 0) break;
        while (len && line[len - 1] == '\r') len--;
        if (!hatf_text_is_table_(line, len)) continue;
        if ((!s->tables && !(s->tables = hatf_tables_new_())) || (!name && !(name = malloc(65536)))) {
            rc = hatf_err_set(&s->err, HATF_E_NOMEM, off, "out of memory");
            break;
        }
        hatf_err e = { 0 };
        if ((rc = hatf_text_parse_table_(line, len, off, s->tables, name, &e)) < 0) {
            hatf_err_set(&s->err, e.code, e.offset, "line %llu, %s", (unsigned long long)s->line_no, e.msg);
            break;
        }
    }
    free(name);
    if (rc >= 0 && s->tables && hatf_stacktab_finish_(s->tables) < 0)
        rc = hatf_err_set(&s->err, HATF_E_NOMEM, 0, "out of memory");
    return rc < 0 ? rc : 0;
}

static int text_next(hatf_source *s, hatf_event *ev)
{
    for (;;) {
        const char *line;
        size_t len;
        uint64_t off;
        int rc = text_line(s, &line, &len, &off);
        if (rc <= 0) return rc;
        hatf_err e = { 0 };
        rc = hatf_text_parse(line, len, off, ev, &s->scratch, &e);
        if (rc == 0 && hatf_text_is_table_(line, len))
            rc = hatf_err_set(&e, HATF_E_CORRUPT, off, "column 1: a table line after the first event "
                                                        "(tables come before the events)");
        if (rc == 0) continue;
        if (rc < 0) {
            hatf_err_set(&s->err, e.code, e.offset, "line %llu, %s", (unsigned long long)s->line_no, e.msg);
            s->err.record = s->record;
            return rc;
        }
        s->offset = off;
        return 1;
    }
}

HATF_API hatf_source *hatf_source_open(const char *path, hatf_format fmt, hatf_err *err)
{
    hatf_source *s = calloc(1, sizeof *s);
    if (!s) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); return NULL; }
    s->fd = -1;
    s->err.record = UINT64_MAX;

    if (fmt != HATF_FMT_CONTAINER) {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) { io_fail(err, 0, "cannot open"); goto fail; }
        struct stat st;
        if (fstat(s->fd, &st) < 0) { io_fail(err, 0, "cannot stat"); goto fail; }
        if (S_ISDIR(st.st_mode)) { hatf_err_set(err, HATF_E_IO, 0, "is a directory"); goto fail; }
        if (fmt == HATF_FMT_AUTO) {
            char head[HATF_FORMAT_HEAD];
            ssize_t n = pread(s->fd, head, sizeof head, 0);
            if (n < 0) { io_fail(err, 0, "read"); goto fail; }
            hatf_format found = hatf_format_of_head(head, (size_t)n);
            if (found == HATF_FMT_METATF) {
                fmt = HATF_FMT_METATF;
            } else if (found != HATF_FMT_CONTAINER) {
                hatf_err_set(err, HATF_E_CORRUPT, 0, "%snot a hatrace container (use --from hatf1.0 or --from text)",
                             n == 0 ? "empty file, " : "");
                goto fail;
            } else {
                fmt = HATF_FMT_CONTAINER;
                close(s->fd);
                s->fd = -1;
            }
        }
        if (fmt == HATF_FMT_HATF1 || fmt == HATF_FMT_METATF) {
            if ((uint64_t)st.st_size > SIZE_MAX) { hatf_err_set(err, HATF_E_LIMIT, 0, "file too large"); goto fail; }
            s->map_len = (size_t)st.st_size;
            if (s->map_len) {
                void *m = mmap(NULL, s->map_len, PROT_READ, MAP_PRIVATE, s->fd, 0);
                if (m == MAP_FAILED) { io_fail(err, 0, "mmap"); goto fail; }
                madvise(m, s->map_len, MADV_SEQUENTIAL);
                s->map = m;
            }
            close(s->fd);
            s->fd = -1;
            if (fmt == HATF_FMT_HATF1) {
                hatf1_decoder_init(&s->dec, s->map, s->map_len, 0);
                hatf1_mark(s);
            } else {
                s->mtf = mtf_open(s->map, s->map_len, path, err);
                if (!s->mtf) goto fail;
                size_t n = 0;
                const uint8_t *info = hatf_metatf_dtd_events(s->mtf->dtd) ? mtf_hatrace_info(s->mtf, &n) : NULL;
                if (!read_mark(s, info, n)) s->foreign = 1;
                if (s->mtf->err.code) { if (err) *err = s->mtf->err; goto fail; }
            }
        } else if (fmt == HATF_FMT_TEXT) {
            s->buf = malloc(TEXT_READ_CHUNK + HATF_TEXT_LINE_MAX + 1);
            if (!s->buf) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); goto fail; }
            hatf_buf_init(&s->scratch);
            if (text_header(s) < 0 || text_tables(s) < 0) { if (err) *err = s->err; goto fail; }
        } else if (fmt != HATF_FMT_CONTAINER) {
            hatf_err_set(err, HATF_E_USAGE, 0, "unknown format %d", (int)fmt);
            goto fail;
        }
    }
    if (fmt == HATF_FMT_CONTAINER) {
        s->reader = hatf_reader_open(path, err);
        if (!s->reader) goto fail;
        const uint64_t *ths;
        if (hatf_reader_threads(s->reader, &ths) > 1) s->causal = hatf_causal_open(s->reader);
        else s->iter = hatf_iter_global(s->reader);
        if (!s->iter && !s->causal) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); goto fail; }
    }
    s->fmt = fmt;
    return s;
fail:
    hatf_source_close(s);
    return NULL;
}

HATF_API int hatf_source_jobs(hatf_source *s, unsigned n)
{
    if (!s || s->record || s->err.code) return HATF_E_USAGE;
    if (!n) n = hatf_ahead_cores_();
    if (n > HATF_SOURCE_JOBS_MAX) n = HATF_SOURCE_JOBS_MAX;
    if (s->reader && s->reader->ahead) hatf_ahead_stop_(s->reader);
    if (n < 2 || !s->reader || s->reader->following) return 1;  /* a following reader's groups come as it reads */
    uint64_t groups = 0;
    hatf_reader_coding(s->reader, &groups, NULL, NULL);
    if (groups < 2 || hatf_ahead_start_(s->reader, n - 1) != 0) return 1;
    return (int)n;
}

HATF_API hatf_source *hatf_source_open_follow(const char *path, hatf_err *err)
{
    hatf_source *s = calloc(1, sizeof *s);
    if (!s) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); return NULL; }
    s->fd = -1;
    s->err.record = UINT64_MAX;
    s->fmt = HATF_FMT_CONTAINER;
    s->reader = hatf_reader_open_follow(path, err);
    if (!s->reader) { hatf_source_close(s); return NULL; }
    /* One thread has nothing to order: the iterator alone, until a second
     * thread comes (follow_causal). The ordered reader costs ~1.7x per event. */
    if (!(s->iter = hatf_iter_global(s->reader))) {
        hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory");
        hatf_source_close(s);
        return NULL;
    }
    s->follow_one = 1;
    return s;
}

/* A following source met its second thread: the ordered reader takes over
 * the iterator from the events handed out so far (the ties before could only
 * be of one thread). @return 0, or HATF_E_NOMEM (s->err set). */
static __attribute__((noinline)) int follow_causal(hatf_source *s)
{
    hatf_causal *c = hatf_causal_open_at(s->reader, s->iter, s->record);
    if (!c) return hatf_err_set(&s->err, HATF_E_NOMEM, s->offset, "out of memory");
    s->causal = c;
    s->iter = NULL;
    s->follow_one = 0;
    return 0;
}

HATF_API void hatf_source_close(hatf_source *s)
{
    if (!s) return;
    if (s->filter_done) s->filter_done(s->filter_ctx);
    if (s->iter) hatf_iter_free(s->iter);
    hatf_causal_free(s->causal);
    if (s->reader) hatf_ahead_stop_(s->reader);  /* after the cursors: they give their groups back */
    if (s->reader) hatf_reader_close(s->reader);
    hatf_reader_close(s->tables);
    mtf_close(s->mtf);
    if (s->map) munmap((void *)s->map, s->map_len);
    if (s->fd >= 0) close(s->fd);
    free(s->buf);
    for (size_t i = 0; i < s->nskips; i++) free(s->skips[i]);
    free(s->skips);
    if (s->fmt == HATF_FMT_TEXT || s->scratch.p) hatf_buf_free(&s->scratch);
    free(s);
}

HATF_API hatf_format hatf_source_format(const hatf_source *s) { return s->fmt; }

HATF_API int hatf_source_foreign(const hatf_source *s) { return s->foreign; }

HATF_API hatf_reader *hatf_source_container(hatf_source *s) { return s->reader; }

HATF_API hatf_reader *hatf_source_tables(hatf_source *s) { return s->reader ? s->reader : s->tables; }

HATF_API hatf_metatf_reader *hatf_source_metatf(hatf_source *s)
{
    if (s->mtf && !s->record) mtf_rewind(s->mtf);  /* its records from the first, hatrace-info too */
    return s->mtf;
}

HATF_API const hatf_info *hatf_source_info(hatf_source *s)
{
    if (s->reader) return hatf_reader_info(s->reader);
    return s->have_info ? &s->info : NULL;
}

/* Note the damage in s->err as skipped. @return 0, or -1 out of memory. */
static int note_skip(hatf_source *s)
{
    if (s->nskips == s->cap_skips) {
        size_t cap = s->cap_skips ? 2 * s->cap_skips : 8;
        char **v = realloc(s->skips, cap * sizeof *v);
        if (!v) return -1;
        s->skips = v;
        s->cap_skips = cap;
    }
    char line[sizeof s->err.msg + 32];
    snprintf(line, sizeof line, "offset %llu: %s", (unsigned long long)s->err.offset, hatf_err_text(&s->err));
    if (!(s->skips[s->nskips] = strdup(line))) return -1;
    s->nskips++;
    return 0;
}

HATF_API void hatf_source_read_on(hatf_source *s, int on) { s->read_on = on != 0; }

HATF_API size_t hatf_source_skips(const hatf_source *s, const char *const **lines)
{
    if (lines) *lines = (const char *const *)s->skips;
    return s->nskips;
}

/* The container's iterator or ordered reader failed with rc: the error in
 * s->err. @return 0 when the damage was passed over and noted (read on), else rc. */
static int container_failed(hatf_source *s, int rc)
{
    const hatf_err *e = s->iter ? hatf_iter_error(s->iter) : hatf_causal_error(s->causal);
    if (e && e->code) s->err = *e;
    else hatf_err_set(&s->err, rc, s->iter ? hatf_iter_chunk_offset(s->iter) : hatf_causal_chunk_offset(s->causal),
                      "%s", hatf_strerror(rc));
    if (s->err.record == UINT64_MAX || !s->err.record) s->err.record = s->record;
    /* a damaged chunk group: the iterator has stepped past it */
    if (!s->read_on || (rc != HATF_E_CORRUPT && rc != HATF_E_TRUNCATED) || note_skip(s) != 0) return rc;
    memset(&s->err, 0, sizeof s->err);
    return 0;
}

static int source_next_raw(hatf_source *s, hatf_event *ev)
{
    if (s->err.code) return s->err.code;
    int rc;
    switch (s->fmt) {
    case HATF_FMT_CONTAINER:
        if (__builtin_expect(s->follow_one, 0) && s->reader->nth > 1 && follow_causal(s)) return s->err.code;
        for (;;) {
            rc = s->iter ? hatf_iter_next(s->iter, ev) : hatf_causal_next(s->causal, ev);
            if (rc >= 0 || (rc = container_failed(s, rc)) < 0) break;
        }
        if (rc < 0) return rc;
        if (rc > 0) s->offset = s->iter ? hatf_iter_chunk_offset(s->iter) : hatf_causal_chunk_offset(s->causal);
        break;
    case HATF_FMT_HATF1:
        rc = hatf1_decode(&s->dec, ev);
        if (rc < 0) {
            s->err = s->dec.err;
            if (!s->err.code) hatf_err_set(&s->err, rc, s->dec.pos, "%s", hatf_strerror(rc));
            s->err.record = s->record;
            return rc;
        }
        if (rc > 0) s->offset = s->dec.last_record_offset;
        if (rc > 0 && s->foreign && ev->attr_is_bytes) ev->attr_is_bytes = HATF_ATTRS_FOREIGN;
        break;
    case HATF_FMT_TEXT:
        rc = text_next(s, ev);
        break;
    case HATF_FMT_METATF:
        if (!hatf_metatf_dtd_events(s->mtf->dtd)) {
            const char *nm = hatf_metatf_dtd_name(s->mtf->dtd);
            return hatf_err_set(&s->err, HATF_E_CORRUPT, 24, "its DTD '%s' does not say 'events hatf': its records are no "
                                "heap events ('hatrace dump' prints them as records)", nm[0] ? nm : "(no name)");
        }
        rc = mtf_next_event(s->mtf, ev);
        if (rc < 0) {
            s->err = s->mtf->err;
            s->err.record = s->record;
            return rc;
        }
        if (rc > 0) s->offset = s->mtf->rec_at;
        break;
    default:
        return HATF_E_USAGE;
    }
    if (rc > 0) s->record++;
    return rc;
}

HATF_API int hatf_source_next(hatf_source *s, hatf_event *ev)
{
    for (;;) {
        int rc = source_next_raw(s, ev);
        if (rc <= 0 || !s->filter) return rc;
        if ((rc = s->filter(s->filter_ctx, ev)) > 0) return 1;
        if (rc < 0) {
            hatf_err_set(&s->err, rc, s->offset, "%s", hatf_strerror(rc));
            s->err.record = s->record;
            return rc;
        }
    }
}

HATF_API int hatf_source_peek(hatf_source *s, const hatf_event **evs, uint64_t *first)
{
    if (s->fmt == HATF_FMT_CONTAINER && !s->filter && !s->peek_one && !s->err.code &&
        !(__builtin_expect(s->follow_one, 0) && s->reader->nth > 1 && follow_causal(s))) {
        int n;
        if (s->iter) {
            while ((n = hatf_iter_peek(s->iter, evs)) < 0 && (n = container_failed(s, n)) == 0) {}
            if (n <= 0) return n;
            s->offset = hatf_iter_chunk_offset(s->iter);
        } else if ((n = hatf_causal_peek(s->causal, evs)) > 0) {
            s->offset = hatf_causal_chunk_offset(s->causal);
        }
        if (n > 0) {
            *first = s->record;
            return n;
        }
    }
    /* one event at a time, read as hatf_source_next does (and counted then) */
    if (!s->peek_one) {
        int rc = hatf_source_next(s, &s->held);
        if (rc <= 0) return rc;
        s->peek_one = 1;
    }
    *evs = &s->held;
    *first = s->record - 1;
    return 1;
}

HATF_API void hatf_source_take(hatf_source *s, unsigned k)
{
    if (s->peek_one) {
        s->peek_one = 0;
        return;
    }
    if (s->fmt != HATF_FMT_CONTAINER || !k) return;
    const hatf_event *evs;
    /* the run peeked: no reading */
    int n = s->iter ? hatf_iter_peek(s->iter, &evs) : hatf_causal_peek(s->causal, &evs);
    if (n <= 0) return;
    if (k > (unsigned)n) k = (unsigned)n;
    if (s->iter) hatf_iter_take(s->iter, k);
    else hatf_causal_take(s->causal, k);
    s->record += k;
}

HATF_API void hatf_source_filter(hatf_source *s, hatf_source_filter_fn fn, void (*done)(void *ctx), void *ctx)
{
    if (s->filter_done) s->filter_done(s->filter_ctx);
    s->filter = fn;
    s->filter_done = done;
    s->filter_ctx = ctx;
}

HATF_API int hatf_source_resume(hatf_source *s)
{
    /* Only a container can go on: its damage is one chunk group, and the
     * iterator has already stepped past it. A stream has no next record
     * boundary to find after a bad byte. */
    if (s->fmt != HATF_FMT_CONTAINER || !s->err.code) return HATF_E_USAGE;
    if (s->err.code != HATF_E_CORRUPT && s->err.code != HATF_E_TRUNCATED) return s->err.code;
    memset(&s->err, 0, sizeof s->err);
    return 0;
}

HATF_API uint64_t hatf_source_record(const hatf_source *s) { return s->record ? s->record - 1 : 0; }
HATF_API uint64_t hatf_source_offset(const hatf_source *s) { return s->offset; }
HATF_API const hatf_err *hatf_source_error(const hatf_source *s) { return &s->err; }

HATF_API void hatf_source_order_stats(const hatf_source *s, hatf_order_stats *st)
{
    if (s->causal) hatf_causal_stats(s->causal, st);
    else memset(st, 0, sizeof *st);
}
