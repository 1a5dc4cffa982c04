/* convert.c — hatrace convert: between the container, raw HATF 1.0, text and
 * Meta-TF, to CSV, the events as a table, and to other tools' files (pprof,
 * chrome, speedscope, heaptrack: export.h, one exporter each).
 *
 * Events pass through unchanged (the event model is the common ground), so
 * any conversion keeps every event; only encoding choices differ. CSV is the
 * rows of hatf_source_read_columns, the columns the Python package reads. For sharing
 * a workload, --strip leaves out what names the program and the machine, and
 * --no-stacks the call stacks; the heap operations stay as they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrmap.h"
#include "cli_util.h"
#include "commands.h"
#include "export.h"
#include "hatf_metatf.h"
#include "hatf_text.h"
#include "sites.h"
#include "textout.h"
#include "csv_frames.h"

static const char help[] =
    "usage: hatrace convert [--from FORMAT] [--to FORMAT] [--best] [--time-res NS] [--plain]\n"
    "                       [--strip] [--no-stacks] [--inuse peak|end] [--points N] [--force]\n"
    "                       [-j N] IN -o OUT\n"
    "\n"
    "Convert a trace between the formats; every event is kept (with --time-res,\n"
    "at a coarser time; with --strip, comments are not). --to csv writes the\n"
    "events as a table instead, one row each (docs/tools.md, \"convert --to csv\");\n"
    "pprof, chrome, speedscope and heaptrack write what those tools open\n"
    "(docs/tools.md, \"Exports\").\n"
    "\n"
    "  --from FORMAT  format of IN: hatrace (default, recognised by its magic),\n"
    "                 hatf1.0, text or metatf (recognised by its magic)\n"
    "  --to FORMAT    format of OUT: hatrace (default; text when OUT is -),\n"
    "                 hatf1.0, text, metatf (Meta-TF, the HATF DTD embedded,\n"
    "                 docs/metatf.md), or csv: a header row, then per event\n"
    "                 time,time_ns,thread,heap,op,size,address,old_address,\n"
    "                 function,stack,failed (numbers in decimal), and the stacks'\n"
    "                 frames in OUT.frames.csv (x.csv: x.frames.csv; none for -o -);\n"
    "                 pprof: the sites of stats --sites as a gzip-compressed\n"
    "                 profile.proto (go tool pprof, Pyroscope, Parca, Perfetto),\n"
    "                 sample types alloc_objects, alloc_space, inuse_objects,\n"
    "                 inuse_space, with functions, lines and mappings;\n"
    "                 chrome: Trace Event Format JSON (Perfetto UI, chrome://tracing),\n"
    "                 the heap's and the resident size as counters over time (as\n"
    "                 stats --timeline), per thread, the phases as slices;\n"
    "                 speedscope: speedscope's file format, bytes allocated,\n"
    "                 calls, bytes at the peak and leaked per call stack;\n"
    "                 heaptrack: a heaptrack data file for heaptrack_print and\n"
    "                 heaptrack_gui (zstd when OUT ends in .zst, gzip in .gz)\n"
    "  --best         hatrace: the strongest (slower) compression settings\n"
    "  --time-res NS  hatrace: store times in units of NS ns, rounded down, for a\n"
    "                 smaller file; events of one unit keep their order (within\n"
    "                 a thread, and by address liveness across threads)\n"
    "  --plain        hatf1.0: fixed widths set once (HATF1_PLAIN) instead of\n"
    "                 the adaptive encoding (HATF1_BEST, the default)\n"
    "  --strip        for sharing: leave out the command line, pid, start time,\n"
    "                 names of threads and heaps, the load map (module paths,\n"
    "                 build ids), function names, comment records and attribute\n"
    "                 bytes hatrace does not know; call stacks stay as frame\n"
    "                 addresses, so allocation sites stay apart\n"
    "  --no-stacks    leave out the call stacks (stack attributes and tables)\n"
    "  --inuse WHEN   pprof: inuse_* is what each site held at the heap's peak\n"
    "                 (peak, the default) or still held at the end (end: leaks)\n"
    "  --points N     chrome: at most N counter values per track, the intervals\n"
    "                 of stats --timeline --points N (default 1000, at most 100000)\n"
    "  --force        overwrite OUT if it exists\n"
    "  -o, --output OUT  output file, or - for standard output\n"
    "  --strict       stop at the first damaged part of a container (exit 1)\n"
    "                 instead of reading on past it (the damage said, exit 3)\n"
    "  -j, --jobs N   read on N threads (default: one per core; 1: this thread alone)\n"
    "  -h, --help     this help\n";

#define FLUSH_AT (1u << 20)

typedef struct out {
    const char *path;
    hatf_format fmt;     /* HATF_FMT_TEXT for csv too (a file of our own) */
    int csv;
    int fd;
    int created;         /* we made the file: remove it on failure */
    hatf_buf buf;
    hatf1_encoder *enc;  /* HATF 1.0 output */
    hatf_writer *w;
    hatf_metatf_writer *mw;
    addrmap heaps;       /* heap ids seen, for copying heap names */
    addrmap stacks;      /* stack ids copied */
    addrmap symbols;     /* frame addresses whose symbol is copied */
    hatf_counters counters;
    int strip, no_stacks;
    int hatrace_attrs;   /* the output says its attribute bytes are hatrace's (a container, a marked HATF 1.0 stream) */
    uint64_t foreign_left;  /* events whose attribute bytes of another writer it could not keep */
    uint8_t attrs[HATF_ATTRS_MAX];  /* an event's attributes without its stack */
} out;

static int write_all(out *o)
{
    size_t done = 0;
    while (done < o->buf.len) {
        ssize_t n = write(o->fd, o->buf.p + done, o->buf.len - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            cli_error("%s: write: %s", o->path, strerror(errno));
            return -1;
        }
        done += (size_t)n;
    }
    o->buf.len = 0;
    return 0;
}

static int open_out(out *o, int force, const char *in_path)
{
    if (strcmp(o->path, "-") == 0) { o->fd = STDOUT_FILENO; return 0; }
    struct stat a, b;
    if (stat(in_path, &a) == 0 && stat(o->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        cli_error("%s: is the input file too", o->path);
        return -1;
    }
    if (!force && lstat(o->path, &b) == 0) {
        cli_error("%s: exists (use --force to overwrite)", o->path);
        return -1;
    }
    if (o->fmt == HATF_FMT_CONTAINER) return 0;  /* the writer creates it */
    o->fd = open(o->path, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), cli_derived_mode(in_path));
    if (o->fd < 0) {
        cli_error("%s: cannot create: %s", o->path, strerror(errno));
        return -1;
    }
    o->created = 1;
    return 0;
}

static void default_info(hatf_info *info)
{
    memset(info, 0, sizeof *info);
    info->address_bits = 64;
    info->time_unit_ns_num = info->time_unit_ns_den = 1;
    snprintf(info->clock, sizeof info->clock, "unknown");
}

/* What --strip leaves of a container's header: the time unit and clock, the
 * address size and the flags (forked, drop mode) that say how to read it. */
static void strip_info(hatf_info *info)
{
    info->pid = info->ppid = 0;
    info->start_realtime_ns = 0;
    info->cmdline[0] = 0;
    info->parent_trace[0] = 0;
}

/* A Meta-TF writer on o->fd, with the header's text (info) and the thread names. */
static int start_metatf(out *o, hatf_source *s, const char *info)
{
    hatf_err err = { 0 };
    if (!(o->mw = hatf_metatf_writer_open(o->fd, info, &err)) || addrmap_init(&o->heaps)) {
        cli_error("%s: %s", o->path, o->mw ? "out of memory" : hatf_err_text(&err));
        return -1;
    }
    hatf_reader *r = hatf_source_container(s);
    const uint64_t *th;
    size_t n = r && !o->strip ? hatf_reader_threads(r, &th) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *nm = hatf_reader_thread_name(r, th[i]);
        if (nm && hatf_metatf_writer_name(o->mw, 0, th[i], nm) < 0) {
            cli_error("%s: cannot write thread names", o->path);
            return -1;
        }
    }
    return 0;
}

static int start_out(out *o, hatf_source *s, int best, uint64_t time_res, int plain)
{
    hatf_buf_init(&o->buf);
    switch (o->fmt) {
    case HATF_FMT_TEXT: {
        const hatf_info *si = hatf_source_info(s);
        hatf_info info;
        if (o->strip && si) {
            info = *si;
            strip_info(&info);
        }
        textout_header(s, o->strip && si ? &info : NULL, &o->buf);
        /* the tables as --strip and --no-stacks leave them: frames without names, or none */
        unsigned parts = HATF_TEXT_RESIDENT | (o->no_stacks ? 0 : HATF_TEXT_STACKS) | (o->strip ? 0 : HATF_TEXT_NAMES);
        return hatf_text_format_tables(hatf_source_tables(s), parts, &o->buf) < 0 ? HATF_E_NOMEM : 0;
    }
    case HATF_FMT_METATF:
    case HATF_FMT_HATF1: {
        if (o->fmt == HATF_FMT_HATF1) {
            o->enc = hatf1_encoder_new(&o->buf, plain ? HATF1_PLAIN : HATF1_BEST);
            if (!o->enc) return HATF_E_NOMEM;
        }
        /* another writer's stream stays another writer's: its bytes are not ours to mark */
        if (hatf_source_foreign(s)) return o->fmt == HATF_FMT_METATF ? start_metatf(o, s, NULL) : 0;
        o->hatrace_attrs = 1;
        hatf_buf mark;
        hatf_buf_init(&mark);
        hatf_buf_append(&mark, HATF1_HATRACE_MARK, strlen(HATF1_HATRACE_MARK));
        const hatf_info *si = hatf_source_info(s);
        if (si) {  /* the time unit above all: without it times read back as ns */
            hatf_info info = *si;
            if (o->strip) strip_info(&info);
            hatf_reader *r = hatf_source_container(s);
            hatf_buf_append(&mark, " container ", 11);
            textout_container_fields(&info, r ? hatf_reader_complete(r) : 1, &mark);
        }
        if (o->fmt == HATF_FMT_METATF) {  /* the mark is the hatrace-info record's text */
            hatf_buf_append(&mark, "", 1);
            int rc = mark.failed ? (cli_error("out of memory"), -1) : start_metatf(o, s, (const char *)mark.p);
            hatf_buf_free(&mark);
            return rc;
        }
        hatf_event c = { .op = HATF_OP_COMMENT, .data = mark.p,
                         .data_len = (uint16_t)(mark.len < UINT16_MAX ? mark.len : UINT16_MAX) };
        int rc = mark.failed ? HATF_E_NOMEM : hatf1_encode(o->enc, &c);
        hatf_buf_free(&mark);
        if (rc < 0) cli_error("%s: %s", o->path, hatf_strerror(rc));
        return rc < 0 ? -1 : 0;
    }
    case HATF_FMT_CONTAINER: {
        o->hatrace_attrs = 1;
        hatf_info info;
        hatf_reader *r = hatf_source_container(s), *t = hatf_source_tables(s);
        const hatf_info *si = hatf_source_info(s);
        if (si) info = *si;
        else default_info(&info);
        if (o->strip) strip_info(&info);
        info.flags &= ~(uint32_t)HATF_INFO_EARLY_RELEASE;  /* the copy is written in the repaired order */
        hatf_writer_opts opts = { .best = best, .time_res_ns = time_res };
        hatf_err err = { 0 };
        if (strcmp(o->path, "-") == 0) {
            o->w = hatf_writer_open_fd(STDOUT_FILENO, &info, &opts, &err);
        } else {
            o->w = hatf_writer_create(o->path, 1, &info, &opts, &err);
            o->created = o->w != NULL;
        }
        if (!o->w) { cli_error_at(o->path, &err); return -1; }
        if (addrmap_init(&o->heaps) || addrmap_init(&o->stacks) || addrmap_init(&o->symbols)) {
            cli_error("out of memory");
            return -1;
        }
        if (r) {  /* the recorder's counters (dropped events, ring waits) travel with the container */
            o->counters = *hatf_reader_counters(r);
            o->counters.events = 0;
        }
        /* with the stacks, how deep they were taken (kept by --strip: a depth names nothing) */
        if (t && !o->no_stacks && hatf_reader_stack_depth(t) &&
            hatf_writer_stack_depth(o->w, hatf_reader_stack_depth(t)) < 0) {
            cli_error("%s: cannot write the stack depth", o->path);
            return -1;
        }
        if (t) {  /* the resident memory sampled while recording (kept by --strip: sizes name nothing) */
            const hatf_resident *res;
            size_t n = hatf_reader_resident(t, &res);
            for (size_t i = 0; i < n; i++)
                if (hatf_writer_resident(o->w, res[i].time_ns, res[i].bytes, res[i].own) < 0) {
                    cli_error("%s: cannot write the resident memory samples", o->path);
                    return -1;
                }
        }
        if (r && !o->strip) {  /* and its thread names and load map */
            const uint64_t *th;
            size_t n = hatf_reader_threads(r, &th);
            for (size_t i = 0; i < n; i++) {
                const char *nm = hatf_reader_thread_name(r, th[i]);
                if (nm && hatf_writer_name_thread(o->w, th[i], nm) < 0) {
                    cli_error("%s: cannot write thread names", o->path);
                    return -1;
                }
            }
        }
        if (t && !o->strip) {
            const hatf_module *mods;
            size_t n = hatf_reader_modules(t, &mods);
            for (size_t i = 0; i < n; i++)
                if (hatf_writer_module(o->w, &mods[i]) < 0) {
                    cli_error("%s: cannot write the load map", o->path);
                    return -1;
                }
        }
        return 0;
    }
    default:
        return -1;
    }
}

/* The event's call stack and its frames' symbols, the first time it is seen.
 * @return 0 or a negative code. */
static int copy_stack(out *o, hatf_reader *r, const hatf_event *ev)
{
    uint64_t id = sites_event_stack(ev);
    int added;
    if (!id) return 0;
    if (!addrmap_put(&o->stacks, id, &added)) return HATF_E_NOMEM;
    if (!added) return 0;
    const uint64_t *fr;
    size_t n = hatf_reader_stack(r, id, &fr);
    if (!n) return 0;  /* not stored (a damaged file): the id stays as it was */
    for (size_t k = 0; k < n && !o->strip; k++) {
        const hatf_symbol *sym = hatf_reader_symbol(r, fr[k]);
        if (!sym) continue;
        if (!addrmap_put(&o->symbols, fr[k], &added)) return HATF_E_NOMEM;
        int rc = added ? hatf_writer_symbol(o->w, sym) : 0;
        if (rc < 0) return rc;
    }
    return hatf_writer_stack(o->w, id, fr, n);
}

/* ev as --strip and --no-stacks leave it, in *tmp when it changes; NULL
 * when it is left out (a comment under --strip). */
static const hatf_event *filter_event(out *o, const hatf_event *ev, hatf_event *tmp)
{
    if (o->strip && ev->op == HATF_OP_COMMENT) return NULL;
    if (!ev->attr_is_bytes) return ev;
    hatf_attrs a;
    if (hatf_event_attrs(ev, &a) < 0) {  /* another writer's bytes: anything may be in them */
        if (!o->strip) return ev;
        *tmp = *ev;
        tmp->attr_is_bytes = 0;
        tmp->data = NULL;
        tmp->data_len = 0;
        tmp->attr = 0;
        return tmp;
    }
    if (!o->no_stacks || !hatf_attrs_has(&a, HATF_A_STACK)) return ev;
    a.present &= ~(1u << HATF_A_STACK);
    *tmp = *ev;
    tmp->data_len = (uint16_t)hatf_attrs_encode(&a, o->attrs);
    tmp->data = tmp->data_len ? o->attrs : NULL;
    tmp->attr_is_bytes = tmp->data_len > 0;  /* the stack alone: no attribute bytes left */
    return tmp;
}

/* A damaged or cut source: what it had lost goes into the copy, so that a
 * conversion never hides it: a container's tables (its readers list it as
 * damage), the text form's '# damage:' lines (those the header has not
 * given: the damage found while reading), a HATF 1.0 stream's comments.
 * shown: the source's damage lines the output has already. */
static int note_losses(out *o, hatf_reader *r, size_t shown)
{
    if (o->fmt == HATF_FMT_TEXT) {
        textout_damage(r, shown, &o->buf);
        return 0;
    }
    const char *const *lines;
    size_t n = hatf_reader_damage(r, &lines);
    for (size_t i = 0; i < n; i++) {
        int rc = 0;
        if (o->fmt == HATF_FMT_CONTAINER) {
            rc = hatf_writer_note_loss(o->w, lines[i]);
        } else {  /* HATF 1.0 and Meta-TF: a comment */
            char text[600];
            int k = snprintf(text, sizeof text, "hatrace: the trace this was copied from had lost: %s", lines[i]);
            hatf_event c = { .op = HATF_OP_COMMENT, .data = (const uint8_t *)text,
                             .data_len = (uint16_t)(k > 0 && (size_t)k < sizeof text ? k : 0) };
            rc = o->mw ? hatf_metatf_writer_add(o->mw, &c) : hatf1_encode(o->enc, &c);
        }
        if (rc < 0) {
            cli_error("%s: cannot note what the source had lost: %s", o->path, hatf_strerror(rc));
            return -1;
        }
    }
    return 0;
}

static int put_event(out *o, hatf_source *s, const hatf_event *in)
{
    int rc = 0;
    hatf_event tmp;
    const hatf_event *ev = o->strip || o->no_stacks ? filter_event(o, in, &tmp) : in;
    if (!ev) return 0;
    if (ev->attr_is_bytes == HATF_ATTRS_FOREIGN && o->hatrace_attrs) {
        /* the output would give another writer's bytes hatrace's meaning */
        tmp = *ev;
        tmp.attr_is_bytes = 0;
        tmp.data = NULL;
        tmp.data_len = 0;
        tmp.attr = 0;
        ev = &tmp;
        o->foreign_left++;
    }
    switch (o->fmt) {
    case HATF_FMT_TEXT:
        rc = hatf_text_format(ev, &o->buf);
        break;
    case HATF_FMT_HATF1:
        rc = hatf1_encode(o->enc, ev);
        break;
    case HATF_FMT_METATF: {
        hatf_reader *r = hatf_source_container(s);
        int added;
        if (r && !o->strip && ev->op != HATF_OP_COMMENT && addrmap_put(&o->heaps, ev->heap, &added) && added) {
            const char *nm = hatf_reader_heap_name(r, ev->heap);
            if (nm) rc = hatf_metatf_writer_name(o->mw, 1, ev->heap, nm);
        }
        if (rc == 0) rc = hatf_metatf_writer_add(o->mw, ev);
        break;
    }
    case HATF_FMT_CONTAINER: {
        hatf_reader *r = hatf_source_container(s);
        int added;
        if (r && !o->strip && ev->op != HATF_OP_COMMENT && addrmap_put(&o->heaps, ev->heap, &added) && added) {
            const char *nm = hatf_reader_heap_name(r, ev->heap);
            if (nm) hatf_writer_name_heap(o->w, ev->heap, nm);
        }
        hatf_reader *t = hatf_source_tables(s);
        if (t && !o->no_stacks) rc = copy_stack(o, t, ev);
        if (rc == 0) rc = hatf_writer_add(o->w, ev, 1);
        o->counters.events++;
        if (rc < 0) cli_error("%s: writing record %llu: %s", o->path,
                              (unsigned long long)hatf_source_record(s), hatf_strerror(rc));
        return rc;
    }
    default:
        return HATF_E_USAGE;
    }
    if (rc < 0 || o->buf.failed) {
        cli_error("%s: record %llu (offset %llu of the input): %s", o->path,
                  (unsigned long long)hatf_source_record(s), (unsigned long long)hatf_source_offset(s),
                  hatf_strerror(rc < 0 ? rc : HATF_E_NOMEM));
        return rc < 0 ? rc : HATF_E_NOMEM;
    }
    if (o->buf.len >= FLUSH_AT && write_all(o) < 0) return HATF_E_IO;
    return 0;
}

static int finish_out(out *o, int ok)
{
    int rc = 0;
    if (ok && o->foreign_left)  /* said, never silent */
        fprintf(stderr, "hatrace: %s: the attribute bytes of %llu events, another writer's, are left out: this "
                        "format gives attribute bytes hatrace's meaning (convert to text or to hatf1.0 from "
                        "that writer's stream keeps them)\n", o->path, (unsigned long long)o->foreign_left);
    if (o->fmt == HATF_FMT_CONTAINER) {
        if (o->w) {
            hatf_err err = { 0 };
            if (hatf_writer_close(o->w, &o->counters, &err) < 0 && ok) { cli_error_at(o->path, &err); rc = -1; }
        }
        addrmap_free(&o->heaps);
        addrmap_free(&o->stacks);
        addrmap_free(&o->symbols);
    } else {
        if (o->mw) {
            hatf_err err = { 0 };
            if (hatf_metatf_writer_close(o->mw, &err) < 0 && ok) { cli_error("%s: %s", o->path, hatf_err_text(&err)); rc = -1; }
            addrmap_free(&o->heaps);
        }
        if (ok && rc == 0 && write_all(o) < 0) rc = -1;
        if (o->fd >= 0 && o->fd != STDOUT_FILENO && close(o->fd) < 0 && ok) {
            cli_error("%s: close: %s", o->path, strerror(errno));
            rc = -1;
        }
    }
    hatf1_encoder_free(o->enc);
    hatf_buf_free(&o->buf);
    if ((!ok || rc) && o->created) unlink(o->path);
    return rc;
}

/* ---- --to csv ------------------------------------------------------------ */

#define CSV_BATCH 4096
#define CSV_ROW_MAX 256  /* 11 fields of at most 20 digits or a name, commas */

static const char csv_header[] = "time,time_ns,thread,heap,op,size,address,old_address,function,stack,failed\n";

typedef struct csv_rows {
    uint64_t time[CSV_BATCH], time_ns[CSV_BATCH], thread[CSV_BATCH], heap[CSV_BATCH], size[CSV_BATCH];
    uint64_t address[CSV_BATCH], old_address[CSV_BATCH], stack[CSV_BATCH];
    uint8_t op[CSV_BATCH], function[CSV_BATCH], failed[CSV_BATCH];
} csv_rows;

/* v in decimal at p, then sep. @return the end. */
static char *put_u64(char *p, uint64_t v, char sep)
{
    char d[20];
    int n = 0;
    do d[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
    while (n) *p++ = d[--n];
    *p++ = sep;
    return p;
}

static char *put_str(char *p, const char *s, char sep)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    p[n] = sep;
    return p + n + 1;
}

/* Every event of s as a row of o. @return 0, or -1 (said). */
static int write_csv(out *o, hatf_source *s, const char *in_path)
{
    csv_rows *r = malloc(sizeof *r);
    if (!r) { cli_error("out of memory"); return -1; }
    hatf_columns c = { .time = r->time, .time_ns = r->time_ns, .thread = r->thread, .heap = r->heap,
                       .size = r->size, .address = r->address, .old_address = r->old_address,
                       .stack = r->stack, .op = r->op, .function = r->function, .failed = r->failed };
    hatf_buf_append(&o->buf, csv_header, sizeof csv_header - 1);
    int n = 0, rc = 0;
    while (rc == 0 && (n = hatf_source_read_columns(s, &c, CSV_BATCH)) > 0) {
        for (int i = 0; i < n; i++) {
            char *p = (char *)hatf_buf_reserve(&o->buf, CSV_ROW_MAX), *start = p;
            if (!p) break;
            const char *fn = hatf_columns_function_name(r->function[i]);
            p = put_u64(p, r->time[i], ',');
            p = put_u64(p, r->time_ns[i], ',');
            p = put_u64(p, r->thread[i], ',');
            p = put_u64(p, r->heap[i], ',');
            p = put_str(p, hatf_op_name(r->op[i]), ',');
            p = put_u64(p, r->size[i], ',');
            p = put_u64(p, r->address[i], ',');
            p = put_u64(p, r->old_address[i], ',');
            p = put_str(p, r->function[i] && fn ? fn : "", ',');
            if (r->stack[i]) p = put_u64(p, r->stack[i], ',');
            else *p++ = ',';
            p = put_u64(p, r->failed[i], '\n');
            o->buf.len += (size_t)(p - start);
        }
        if (o->buf.failed) { cli_error("out of memory"); rc = -1; }
        else if (o->buf.len >= FLUSH_AT && write_all(o) < 0) rc = -1;
    }
    if (rc == 0 && n < 0) {
        cli_source_failed(in_path, s);
        rc = -1;
    }
    free(r);
    return rc;
}

/* What the command line asks for. */
typedef struct convert_args {
    hatf_format from, to;
    int best, plain, force, strip, no_stacks, csv;
    int export_option;   /* --inuse (1) or --points (2) given */
    uint64_t time_res;
    const char *in, *out;
    export_opts eo;
} convert_args;

static const struct option convert_opts[] = {
    { "from", required_argument, NULL, 'f' },
    { "to", required_argument, NULL, 't' },
    { "best", no_argument, NULL, 'b' },
    { "time-res", required_argument, NULL, 'r' },
    { "plain", no_argument, NULL, 'p' },
    { "force", no_argument, NULL, 'F' },
    { "strict", no_argument, NULL, CLI_O_STRICT },
    { "strip", no_argument, NULL, 'S' },
    { "no-stacks", no_argument, NULL, 'N' },
    { "inuse", required_argument, NULL, 'I' },
    { "points", required_argument, NULL, 'P' },
    { "output", required_argument, NULL, 'o' },
    CLI_JOBS_OPTION,
    { "help", no_argument, NULL, 'h' },
    { 0 },
};

/* One option c but -h (its value optarg) into a. @return 0, or a CLI_* exit code. */
static int convert_option(convert_args *a, int c, char **argv)
{
    static const char *const inuse_words[] = { "peak", "end" };
    int rc;
    switch (c) {
    case 'f': return cli_parse_format("convert", "--from", optarg, &a->from);
    case 't':
        a->csv = strcmp(optarg, "csv") == 0;
        if ((a->eo.kind = export_kind(optarg)) >= 0) a->to = HATF_FMT_TEXT;
        else if (a->csv) a->to = HATF_FMT_TEXT;
        else if (hatf_format_from_name(optarg) < 0)
            return cli_usage("convert", "--to: unknown format '%s' (hatrace, hatf1.0, text, metatf, csv, pprof, chrome, speedscope, heaptrack)", optarg);
        else a->to = (hatf_format)hatf_format_from_name(optarg);
        break;
    case 'b': a->best = 1; break;
    case 'r':
        if ((rc = cli_parse_u64("convert", "--time-res", optarg, &a->time_res))) return rc;
        if (a->time_res < 1 || a->time_res > 1000000000)
            return cli_usage("convert", "--time-res: '%s' is not a number in 1..1000000000", optarg);
        break;
    case 'p': a->plain = 1; break;
    case 'F': a->force = 1; break;
    case CLI_O_STRICT: cli_strict = 1; break;
    case 'S': a->strip = 1; break;
    case 'N': a->no_stacks = 1; break;
    case 'I':
        if ((rc = cli_parse_word("convert", "--inuse", optarg, inuse_words, 2, &a->eo.inuse))) return rc;
        a->export_option |= 1;
        break;
    case 'P':
        if ((rc = cli_parse_u64("convert", "--points", optarg, &a->eo.points))) return rc;
        if (a->eo.points < 1 || a->eo.points > 100000) return cli_usage("convert", "--points: %s is not 1 to 100000", optarg);
        a->export_option |= 2;
        break;
    case 'o': a->out = optarg; break;
    case 'j': return cli_parse_jobs("convert", optarg);
    default: return cli_bad_option("convert", c, argv);
    }
    return 0;
}

/* The options that apply to the output format only. @return 0, or CLI_USAGE (said). */
static int convert_check(convert_args *a)
{
    if (!a->out) return cli_usage("convert", "missing -o OUT");
    if ((a->export_option & 1) && a->eo.kind != EXPORT_PPROF) return cli_usage("convert", "--inuse applies to --to pprof");
    if ((a->export_option & 2) && a->eo.kind != EXPORT_CHROME) return cli_usage("convert", "--points applies to --to chrome");
    if (a->eo.kind >= 0) {
        if (a->best || a->time_res || a->plain || a->strip || a->no_stacks)
            return cli_usage("convert", "--best, --time-res, --plain, --strip and --no-stacks do not apply to "
                                        "the exports (pprof, chrome, speedscope, heaptrack)");
        return 0;
    }
    if (a->to == HATF_FMT_AUTO) a->to = strcmp(a->out, "-") == 0 ? HATF_FMT_TEXT : HATF_FMT_CONTAINER;
    if (a->best && a->to != HATF_FMT_CONTAINER) return cli_usage("convert", "--best applies to --to hatrace");
    if (a->time_res && a->to != HATF_FMT_CONTAINER) return cli_usage("convert", "--time-res applies to --to hatrace");
    if (a->plain && a->to != HATF_FMT_HATF1) return cli_usage("convert", "--plain applies to --to hatf1.0");
    if (a->csv && (a->strip || a->no_stacks))
        return cli_usage("convert", "--strip and --no-stacks apply to hatrace, hatf1.0, text and metatf");
    return 0;
}

/* The events of s as a table, and the stacks' frames beside them (no place
 * for a loss in a table: the damage is said on stderr, exit 3). @return 1 ok, 0 failed (said). */
static int convert_csv(const convert_args *a, out *o, hatf_source *s)
{
    hatf_buf_init(&o->buf);
    if (write_csv(o, s, a->in) != 0) return 0;
    if (strcmp(a->out, "-") == 0) return 1;
    char fpath[4096];
    if (csv_frames_path(a->out, fpath, sizeof fpath) < 0) {
        cli_error("%s: name too long for its frames table", a->out);
        return 0;
    }
    return csv_frames_write(s, fpath, a->force, a->in) == 0;
}

/* Every event of s into o. @return 1 ok, 0 failed (said). */
static int convert_events(const convert_args *a, out *o, hatf_source *s)
{
    hatf_reader *src_r = hatf_source_container(s);
    size_t shown = src_r ? hatf_reader_damage(src_r, NULL) : 0;  /* in the text form's header already */
    int ok = start_out(o, s, a->best, a->time_res, a->plain) == 0;
    hatf_event ev;
    int r = 0;
    while (ok && (r = hatf_source_next(s, &ev)) > 0)
        if (put_event(o, s, &ev) < 0) ok = 0;
    if (ok && r < 0) {
        cli_source_failed(a->in, s);
        ok = 0;
    }
    if (ok && src_r && note_losses(o, src_r, shown) < 0) ok = 0;
    return ok;
}

int cmd_convert(int argc, char **argv)
{
    convert_args a = { .from = HATF_FMT_AUTO, .to = HATF_FMT_AUTO, .eo = { .kind = -1, .points = 1000 } };
    int c, rc;
    cli_getopt_begin();
    /* no "+": options may follow IN (hatrace convert IN -o OUT) */
    while ((c = getopt_long(argc, argv, ":ho:j:", convert_opts, NULL)) != -1) {
        if (c == 'h') return cli_help(help);
        if ((rc = convert_option(&a, c, argv))) return rc;
    }
    if ((rc = cli_one_file("convert", argc, argv, a.from, &a.in)) || (rc = convert_check(&a))) return rc;
    if (a.eo.kind >= 0) {
        a.eo.in = a.in, a.eo.from = a.from, a.eo.out = a.out, a.eo.force = a.force;
        return export_run(&a.eo);
    }
    out o = { .path = a.out, .fmt = a.to, .csv = a.csv, .fd = -1, .strip = a.strip, .no_stacks = a.no_stacks };
    if (open_out(&o, a.force, a.in) < 0) return CLI_FAIL;
    hatf_source *s = cli_open_source(a.in, a.from);
    if (!s) { finish_out(&o, 0); return CLI_FAIL; }
    int ok = a.csv ? convert_csv(&a, &o, s) : convert_events(&a, &o, s);
    if (finish_out(&o, ok) < 0) ok = 0;
    rc = cli_read_end(a.in, s, ok ? CLI_OK : CLI_FAIL);
    hatf_source_close(s);
    return rc;
}
