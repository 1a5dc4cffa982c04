/* hatan_api.c — libhatanalyze's exported calls (hatan_api.h): thin wrappers
 * over the modules the commands use (stats.c counts, frames.c and
 * srclines.c name the frames), so a figure is never computed a second way. */
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "hatan_api.h"
#include "lookahead.h"
#include "stats.h"
#include "stats_json.h"

HATAN_API unsigned hatan_api_version(void) { return HATAN_API_VERSION; }

static void figures_of(const stats *st, hatan_figures *out)
{
    stats_summary s;
    stats_figures(st, &s);
    *out = (hatan_figures){ .records = s.records, .allocs = s.allocs, .frees = s.frees, .free_null = st->free_null,
                            .reallocs = s.reallocs, .total_bytes = s.total_bytes,
                            .max_live_objects = s.max_live_objects, .max_live_bytes = s.max_live_bytes,
                            .live_objects_at_end = s.live_objects, .live_bytes_at_end = s.live_bytes,
                            .temporary = s.temporary, .first_time = s.first_time, .last_time = s.last_time };
}

static hatf_source *open_source(const char *path, hatf_format fmt, hatf_err *err)
{
    memset(err, 0, sizeof *err);
    err->record = UINT64_MAX;
    if (!path) {
        hatf_err_set(err, HATF_E_USAGE, 0, "no path");
        return NULL;
    }
    return hatf_source_open(path, fmt, err);
}

/* Count every event of the trace at path into a new stats (*st, with its
 * open source *src), read as the commands read it. @return 0 (then close
 * both), or a negative HATF_E_* code with *err set (nothing left open). */
static int count_file(const char *path, hatf_format fmt, int read_on, unsigned jobs, stats **st, hatf_source **src,
                      hatf_err *err)
{
    hatf_source *s = open_source(path, fmt, err);
    if (!s) return err->code ? err->code : HATF_E_IO;
    hatf_source_read_on(s, read_on);
    hatf_source_jobs(s, jobs);
    *st = stats_new(s);
    int count_rc = 0, rc = *st ? lookahead_run(s, stats_count, stats_prefetch, *st, &count_rc) : LOOKAHEAD_STOPPED;
    if (rc == LOOKAHEAD_STOPPED) {
        rc = hatf_err_set(err, HATF_E_NOMEM, hatf_source_offset(s), "offset %llu: out of memory",
                          (unsigned long long)hatf_source_offset(s));
    } else if (rc < 0) {
        *err = *hatf_source_error(s);
    } else {
        stats_end(*st);
        *src = s;
        return 0;
    }
    stats_free(*st);
    hatf_source_close(s);
    return rc;
}

HATAN_API int hatan_stats_file(const char *path, hatf_format fmt, int read_on, unsigned jobs, hatan_figures *out,
                               hatf_err *err)
{
    stats *st;
    hatf_source *s;
    int rc = count_file(path, fmt, read_on, jobs, &st, &s, err);
    if (rc) return rc;
    figures_of(st, out);
    stats_free(st);
    hatf_source_close(s);
    return 0;
}

HATAN_API int hatan_stats_json(const char *path, hatf_format fmt, int read_on, unsigned jobs, char **json,
                               hatf_err *err)
{
    stats *st;
    hatf_source *s;
    *json = NULL;
    int rc = count_file(path, fmt, read_on, jobs, &st, &s, err);
    if (rc) return rc;
    hatf_buf o;
    hatf_buf_init(&o);
    stats_json(&o, st, path, s);
    hatf_buf_append(&o, "", 1);
    if (o.failed || !(*json = strdup((const char *)o.p)))
        rc = hatf_err_set(err, HATF_E_NOMEM, hatf_source_offset(s), "out of memory");
    hatf_buf_free(&o);
    stats_free(st);
    hatf_source_close(s);
    return rc;
}

HATAN_API void hatan_free(void *p) { free(p); }

/* A row of the columns as the event it was read from (hatf_source_read_columns
 * in reverse): a realloc's address is its new block, old_address the block it
 * ended; failed becomes the attribute that says it. */
#define AT(col, type) (*(const type *)(const void *)((const char *)(c->col) + i * (c->stride ? c->stride : sizeof(type))))
static void row_event(const hatf_columns *c, size_t i, hatf_event *ev, uint8_t *attr)
{
    unsigned op = AT(op, uint8_t);
    memset(ev, 0, sizeof *ev);
    ev->op = (uint8_t)op;
    ev->heap = AT(heap, uint64_t);
    ev->size = AT(size, uint64_t);
    if (hatf_op_is_realloc(op)) {
        ev->addr = AT(old_address, uint64_t);
        ev->new_addr = AT(address, uint64_t);
    } else if (hatf_op_has_addr(op)) {
        ev->addr = AT(address, uint64_t);
    }
    if (c->thread) ev->thread = AT(thread, uint64_t);
    if (c->time) ev->time = AT(time, uint64_t);
    if (AT(failed, uint8_t)) {
        attr[0] = HATF_A_FAILED;
        attr[1] = 1;
        ev->attr_is_bytes = HATF_ATTRS_HATRACE;
        ev->data = attr;
        ev->data_len = 2;
    }
}

HATAN_API int hatan_stats_columns(const hatf_columns *c, size_t n, hatan_figures *out)
{
    if (!c || !out || (n && (!c->op || !c->heap || !c->size || !c->address || !c->old_address || !c->failed)))
        return HATF_E_USAGE;
    for (size_t i = 0; i < n; i++) {  /* every op known before any is counted */
        if (AT(op, uint8_t) >= HATF_OP_COUNT_) return HATF_E_USAGE;
    }
    stats *st = stats_new(NULL);
    if (!st) return HATF_E_NOMEM;
    lookahead_item x = { 0 };
    uint8_t attr[2];
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        row_event(c, i, &x.ev, attr);
        x.rec = i;
        rc = stats_count(st, &x);
    }
    if (!rc) {
        stats_end(st);
        figures_of(st, out);
    }
    stats_free(st);
    return rc ? HATF_E_NOMEM : 0;
}

struct hatan_frames {
    hatf_source *src;
    frames fr;
    hatf_reader *t;      /* the stack tables, or NULL */
    size_t stack, nstacks, depth, nframes;
    uint64_t id;
    const uint64_t *f;
};

HATAN_API hatan_frames *hatan_frames_open(const char *path, hatf_format fmt, int lines, hatf_err *err)
{
    hatf_source *s = open_source(path, fmt, err);
    if (!s) return NULL;
    hatan_frames *h = calloc(1, sizeof *h);
    if (!h || frames_init(&h->fr, hatf_source_tables(s), 0, lines)) {
        free(h);
        hatf_source_close(s);
        hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory");
        return NULL;
    }
    h->src = s;
    h->t = h->fr.r;
    h->nstacks = h->t ? hatf_reader_stack_count(h->t) : 0;
    return h;
}

HATAN_API int hatan_frames_next(hatan_frames *h, hatan_frame *out)
{
    while (h->depth == h->nframes) {  /* the next stack with frames */
        if (h->stack == h->nstacks) return 0;
        h->nframes = hatf_reader_stack_at(h->t, h->stack++, &h->id, &h->f);
        h->depth = 0;
    }
    uint64_t addr = h->f[h->depth];
    const hatf_symbol *sy = hatf_reader_symbol(h->t, addr);
    uint64_t vaddr = 0;
    const char *mod = frames_module(&h->fr, addr, &vaddr), *file;
    int line;
    int named = sy && sy->name && sy->name[0];
    *out = (hatan_frame){ .stack = h->id, .depth = h->depth, .address = addr, .module = mod ? mod : "",
                          .module_offset = mod ? vaddr : 0, .function = named ? sy->name : "",
                          .function_offset = named ? sy->offset : 0, .file = "", .line = 0 };
    if (!frames_line(&h->fr, addr, &file, &line)) {
        out->file = file;
        out->line = line > 0 ? (uint64_t)line : 0;
    }
    h->depth++;
    return 1;
}

HATAN_API void hatan_frames_close(hatan_frames *h)
{
    if (!h) return;
    frames_free(&h->fr);
    hatf_source_close(h->src);
    free(h);
}
