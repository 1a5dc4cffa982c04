/* container_write.c — the container writer: per-thread pending chunk groups,
 * zstd, append-only output, the index and trailer at close.
 *
 * Each thread's events are HATF-encoded as they arrive (records stream) while
 * their addresses wait in a small array; when the group is emitted (full, or
 * on flush) the addresses are coded against a fresh model (container_addr.h),
 * both streams are compressed, and the records chunk is written, then the
 * address chunk. Nothing already written is ever rewritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zstd.h>

#include "hatf_container.h"
#include "container_format.h"
#include "container_order.h"
#include "container_plain.h"
#include "file_reserve.h"
#include "hatf1/hatf1_internal.h"

typedef struct wthread {
    uint64_t thread;
    uint32_t seq;             /* number of the next group */
    uint32_t events;          /* in the pending group */
    uint64_t total;           /* events written for this thread */
    uint64_t oprev;           /* with order: the thread's last stored time */
    hatf_tclock tc;           /* hatf_writer_add keeps a copy in registers while it goes over a batch */
    hatf_group g;             /* the pending group: time section's finished runs, records, addresses */
    hatf1_encoder enc;
} wthread;

struct hatf_writer {
    int fd;
    uint64_t off;
    int failed;
    hatf_err err;
    size_t chunk_events;
    size_t pending, pending_max;  /* events in open groups, all threads; the bound on them */
    int level, best;
    int coarse;               /* time_res_ns given: times go through tconv */
    int pdep;                 /* the CPU's pdep is fast: coding 6's varints spread by it */
    hatf_aref_slot *aref_tab; /* coding 6's addresses seen, every fast group's (made when first needed) */
    uint32_t aref_groups;     /* the last group number given in it */
    uint64_t base;            /* the file's offset at open */
    uint64_t reserved;        /* the file's blocks are allocated ahead up to this offset (UINT64_MAX: not) */
    hatf_tconv tconv;
    int order;                /* time_res_ns above F: times through ord (container_order.h) */
    hatf_order ord;
    hatf_event *obatch;       /* with order: a batch with its stored times */
    uint64_t *oraw;           /* with order: a batch of plain events' units with their stored times */
    wthread **th;             /* in order of first appearance */
    size_t nth, cap_th;
    uint32_t *thmap;          /* thread -> index+1 (linear probing) */
    unsigned thmap_bits;
    hatf_buf tables;          /* pending names */
    hatf_buf obuf;            /* chunks not yet written: tables, index */
    hatf_buf index;           /* index entries written so far */
    uint64_t nchunks;
    hatf_genc genc;           /* encodes groups (all of them, unless a helper does) */
    hatf_gout gout;
    hatf_jobq *q;             /* hatf_writer_defer_: groups queued for a helper */
    uint64_t due;             /* groups sealed before this number are to be written now */
    enum hatf_coding_ coding; /* hatf_writer_set_coding_: how the groups begun now are coded */
    uint64_t fast_groups, fast_events, stored_events;  /* groups sealed fast, their events, those stored */
    uint64_t last_thread;     /* the thread of the last batch (a batch of comments alone goes there) */
    uint64_t losses;          /* hatf_writer_note_loss entries so far */
    /* resident samples: the last one given, and whether it is held back (it
     * repeats the one before: a run of equal samples is written as its first
     * and its last, so a steady process's trace does not grow by a tables
     * chunk per flush interval, and a line drawn through the samples keeps
     * its shape) */
    int res_given, res_held;
    uint64_t res_time, res_bytes, res_own;
};

/* ---- output ------------------------------------------------------------- */

/* Fail the writer with code and a message "offset N: " + fmt (N: the bytes
 * written so far); the compiler checks fmt against the arguments at each call. */
static int fail(hatf_writer *w, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(hatf_writer *w, int code, const char *fmt, ...)
{
    char what[sizeof w->err.msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    hatf_err_set(&w->err, code, w->off, "offset %llu: %s", (unsigned long long)w->off, what);
    w->failed = code;
    return code;
}

/* A long trace's blocks are allocated ahead (file_reserve.h), only past its
 * first WRITER_RESERVE_FROM bytes, so that short traces are written as
 * before; hatf_writer_close gives back what was not used. */
enum { WRITER_RESERVE = 4 << 20, WRITER_RESERVE_FROM = 1 << 20 };
static void reserve_ahead(hatf_writer *w, size_t n)
{
    if (w->off >= WRITER_RESERVE_FROM)
        hatf_reserve_ahead(w->fd, w->base + w->off, w->base + w->off + n, WRITER_RESERVE, &w->reserved);
}

static int write_all(hatf_writer *w, const void *p, size_t n)
{
    reserve_ahead(w, n);
    const uint8_t *s = p;
    while (n) {
        ssize_t k = write(w->fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            int e = k < 0 ? errno : ENOSPC;
            w->err.sys_errno = e;
            return fail(w, HATF_E_IO, "write failed: %s", strerror(e));
        }
        s += k;
        n -= (size_t)k;
        w->off += (uint64_t)k;
    }
    return 0;
}

/* Write the chunks gathered in w->obuf: a group's records and address chunks
 * go out in one write, so a killed process rarely leaves one without the other. */
static int out_flush(hatf_writer *w)
{
    if (w->failed) return w->failed;
    if (w->obuf.failed) return fail(w, HATF_E_NOMEM, "out of memory");
    int rc = write_all(w, w->obuf.p, w->obuf.len);
    w->obuf.len = 0;
    return rc;
}

static int index_add(hatf_writer *w, uint64_t at, const uint8_t *hdr)
{
    uint8_t *e = hatf_buf_reserve(&w->index, HATF_IX_ENTRY);
    if (!e) return fail(w, HATF_E_NOMEM, "out of memory");
    hatf_store_le64(e, at);
    memcpy(e + 8, hdr, HATF_CK_HDR);
    w->index.len += HATF_IX_ENTRY;
    w->nchunks++;
    return 0;
}

/* Compress src straight into w->obuf behind its chunk header (out_flush writes it). */
static int write_chunk(hatf_writer *w, hatf_chunk_hdr *h, const uint8_t *src, size_t len)
{
    if (w->failed) return w->failed;
    uint64_t at = w->off + w->obuf.len;
    int rc = hatf_chunk_pack(w->genc.cctx, h, src, len, &w->obuf, NULL);
    if (rc == HATF_E_IO) return fail(w, rc, "zstd could not compress a chunk");
    if (rc) return fail(w, rc, "out of memory");
    if (h->kind != HATF_CK_INDEX) return index_add(w, at, w->obuf.p + (at - w->off));
    return 0;
}

/* ---- threads ------------------------------------------------------------ */

static int thmap_grow(hatf_writer *w)
{
    unsigned bits = w->thmap_bits ? w->thmap_bits + 1 : 6;
    uint32_t *t = calloc(1u << bits, sizeof *t);
    if (!t) return -1;
    free(w->thmap);
    w->thmap = t;
    w->thmap_bits = bits;
    for (size_t j = 0; j < w->nth; j++) {
        uint32_t i = (uint32_t)hatf_hash64(w->th[j]->thread, bits);
        while (t[i]) i = (i + 1) & ((1u << bits) - 1);
        t[i] = (uint32_t)j + 1;
    }
    return 0;
}

/* A number for a new fast group in the writer's coding 6 table, never 0 (an
 * empty slot's); the table is emptied when the numbers wrap, so a slot can
 * only ever name the group that wrote it. */
static uint32_t aref_group_next(hatf_writer *w)
{
    if (++w->aref_groups == 0) {
        if (w->aref_tab) memset(w->aref_tab, 0, sizeof *w->aref_tab << HATF_AREF_BITS);
        w->aref_groups = 1;
    }
    return w->aref_groups;
}

static void thread_start_group(hatf_writer *w, wthread *t)
{
    w->pending -= t->events;
    t->g.rec.len = 0;
    t->g.tsec.len = 0;
    t->g.rsec.len = 0;
    t->g.fast = w->coding != HATF_CODING_FULL_;
    t->g.packed = w->coding == HATF_CODING_PACKED_;
    t->g.adr.len = 0;
    t->g.aref = (hatf_aref){ .group = aref_group_next(w) };
    t->tc.t_run = 0;
    hatf1_encoder_init(&t->enc, &t->g.rec, HATF1_BEST);
    t->enc.split_addr = 1;
    t->events = 0;
    t->g.nitems = 0;
    t->tc.t_first = 0;
}

static wthread *thread_get(hatf_writer *w, uint64_t thread)
{
    if (w->thmap_bits) {
        uint32_t mask = (1u << w->thmap_bits) - 1;
        for (uint32_t i = (uint32_t)hatf_hash64(thread, w->thmap_bits); w->thmap[i]; i = (i + 1) & mask)
            if (w->th[w->thmap[i] - 1]->thread == thread) return w->th[w->thmap[i] - 1];
    }
    if (w->nth == w->cap_th) {
        size_t cap = w->cap_th ? 2 * w->cap_th : 16;
        wthread **a = realloc(w->th, cap * sizeof *a);
        if (!a) return NULL;
        w->th = a;
        w->cap_th = cap;
    }
    wthread *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->thread = thread;
    hatf_buf_init(&t->g.rec);
    hatf_buf_init(&t->g.tsec);
    hatf_buf_init(&t->g.rsec);
    hatf_buf_init(&t->g.adr);
    thread_start_group(w, t);
    w->th[w->nth++] = t;
    if ((w->nth * 2 > (1u << w->thmap_bits) && thmap_grow(w)) ) { w->nth--; free(t); return NULL; }
    uint32_t mask = (1u << w->thmap_bits) - 1;
    uint32_t i = (uint32_t)hatf_hash64(thread, w->thmap_bits);
    while (w->thmap[i]) i = (i + 1) & mask;
    w->thmap[i] = (uint32_t)w->nth;
    return t;
}

/* Where take_events puts the addresses: items for the model (a group coded
 * in full), or coding 6's codes at ao (a fast group), r their state and tab
 * the writer's table. */
typedef struct addr_out {
    hatf_aitem *it;
    uint8_t *ao;
    hatf_aref r;
    hatf_aref_slot *tab;
} addr_out;

void hatf_release_add_(hatf_buf *rs, const hatf_tclock *c, const hatf_tconv *conv, uint64_t time, uint64_t lead)
{
    /* the thread's previous stored time, and this event's as it will be stored */
    uint64_t prev = conv ? c->t_prev : c->t_run ? c->t_cur : 0, stored = time;
    uint64_t rel = lead < time ? time - lead : 0;
    if (conv) {  /* both rounded down as every time, neither before the previous one */
        stored = hatf_tconv_apply(conv, time);
        rel = hatf_tconv_apply(conv, rel);
        if (stored < prev) stored = prev;
    }
    if (rel < prev) rel = prev;
    uint8_t *p = hatf_buf_reserve(rs, HATF_VARINT_MAX);
    if (p) rs->len += hatf_varint_put(p, stored > rel ? stored - rel : 0);
}

/* Events ev[0..n) after their records: their times into the time section
 * at o (converted with conv when coarse, a constant), a realloc's release
 * lead into rs, their addresses to *ad (codes when fast, a constant, else
 * items); *other gets a nonzero bit if an event is not the thread's.
 * @return the end of the time section. */
static inline __attribute__((always_inline))
uint8_t *take_events(hatf_tclock *c, hatf_tconv *conv, const hatf_event *ev, size_t n, uint64_t thread,
                     uint8_t *o, hatf_buf *rs, addr_out *ad, uint64_t *other, int coarse, int fast)
{
    hatf_tconv cv;
    if (coarse) cv = *conv;  /* in registers too */
    hatf_aitem *a = ad->it;
    uint8_t *ao = ad->ao;
    hatf_aref r = ad->r;  /* in registers */
    uint64_t x = 0;
    for (const hatf_event *e = ev, *end = ev + n; e < end; e++) {
        unsigned op = e->op;
        if (op == HATF_OP_COMMENT) continue;
        x |= e->thread ^ thread;
        uint64_t time = e->time;
        if (__builtin_expect(hatf_event_releases_early(e), 0)) hatf_release_add_(rs, c, coarse ? &cv : NULL, time, e->release_lead);
        if (coarse) {
            time = hatf_tconv_next(&cv, time);
            if (time < c->t_prev) time = c->t_prev;
            c->t_prev = time;
        }
        o = hatf_time_add(c, time, o);
        if (!hatf_op_has_addr(op)) continue;
        if (!fast) {
            *a++ = (hatf_aitem){ e->size, e->addr, e->new_addr, (uint8_t)op };
            continue;
        }
        ao = hatf_aref_put(ao, e->addr, op == HATF_OP_ALLOC, &r, ad->tab, 0);  /* the order of container_addr.h */
        if (op >= HATF_OP_REALLOC_INPLACE) ao = hatf_aref_put(ao, e->new_addr, 1, &r, ad->tab, 0);
    }
    if (coarse) *conv = cv;
    ad->it = a;
    ad->ao = ao;
    ad->r = r;
    *other |= x;
    return o;
}

/* Write a group's two chunks (one write, so a killed process rarely leaves
 * one without the other). */
static int write_group(hatf_writer *w, const hatf_gout *o)
{
    int rc = out_flush(w);
    if (!rc) rc = index_add(w, w->off, o->out.p);
    if (!rc) rc = index_add(w, w->off + o->len1, o->out.p + o->len1);
    if (!rc) rc = write_all(w, o->out.p, o->out.len);
    return rc;
}

static int encode_failed(hatf_writer *w, int rc)
{
    if (rc == HATF_E_IO) return fail(w, rc, "zstd could not compress a chunk");
    return fail(w, rc, "out of memory");
}

/* Write the queued groups in order while the helper has finished them;
 * encode here, on the way, at most max_taken that it has not, among those
 * sealed before number force_below (with grace_ns, not one it began less
 * than that long ago). @return 0 or an error. */
static int write_queued(hatf_writer *w, uint64_t force_below, uint64_t max_taken, uint64_t grace_ns)
{
    if (!w->q) return 0;
    for (;;) {
        const hatf_gout *o;
        int r = hatf_jobq_head_(w->q, max_taken ? force_below : 0, grace_ns, &w->genc, &w->gout, &o);
        if (r > 0) return 0;
        if (r < 0) return encode_failed(w, r);
        if (o == &w->gout) max_taken--;
        int rc = write_group(w, o);
        hatf_jobq_pop_(w->q);
        if (rc) return rc;
    }
}

/* Seal the thread's pending group: queue it for the helper, or encode and
 * write it now; either way the thread starts a new one. */
static int emit_group(hatf_writer *w, wthread *t)
{
    if (w->failed) return w->failed;
    if (t->events == 0) return 0;
    if (t->g.rec.failed) return fail(w, HATF_E_NOMEM, "out of memory");
    t->g.h = (hatf_chunk_hdr){
        .thread = t->thread, .seq = t->seq, .events = t->events,
        .t_first = t->tc.t_first, .t_last = t->tc.t_run ? t->tc.t_cur : 0,
    };
    uint8_t *p = hatf_buf_reserve(&t->g.tsec, HATF_VARINT_MAX);
    if (!p) return fail(w, HATF_E_NOMEM, "out of memory");
    if (t->tc.t_run) t->g.tsec.len += (size_t)(hatf_time_put(p, t->tc.t_run - 1) - p);  /* the last run: its length only */
    int rc = write_queued(w, 0, 0, 0), queued = 0;
    if (t->g.fast) {
        w->fast_groups++, w->fast_events += t->events;
        if (!t->g.packed) w->stored_events += t->events;
    }
    /* a fast group, even packed, is cheaper to code here than to hand over
     * (bench/results/recorder.md, "Packed fast groups") */
    if (!rc && w->q && !t->g.fast && !(queued = hatf_jobq_put_(w->q, &t->g))) {
        rc = write_queued(w, UINT64_MAX, 1, 0);  /* every slot taken: the oldest one is needed */
        if (!rc) queued = hatf_jobq_put_(w->q, &t->g);
    }
    if (rc) return rc;
    if (!queued) {
        if (w->q) {  /* no slot (one the helper still reads), or fast: after every queued group, in order */
            if (!t->g.fast) hatf_jobq_note_writer_(w->q);
            rc = write_queued(w, UINT64_MAX, UINT64_MAX, 0);
            if (rc) return rc;
        }
        rc = hatf_group_encode(&w->genc, &t->g, &w->gout);
        if (rc) return encode_failed(w, rc);
        rc = write_group(w, &w->gout);
        if (rc) return rc;
    }
    t->total += t->events;
    t->seq++;
    thread_start_group(w, t);
    return 0;
}

static int write_tables(hatf_writer *w);

/* ---- public ------------------------------------------------------------- */

static void put_str(uint8_t *p, size_t *n, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    if (len > HATF_STR_MAX) len = HATF_STR_MAX;
    p[(*n)++] = (uint8_t)len;
    p[(*n)++] = (uint8_t)(len >> 8);
    memcpy(p + *n, s, len);
    *n += len;
}

HATF_API hatf_writer *hatf_writer_open_fd(int fd, const hatf_info *info,
                                          const hatf_writer_opts *opts, hatf_err *err)
{
    hatf_writer *w = calloc(1, sizeof *w);
    if (!w) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); close(fd); return NULL; }
    w->fd = fd;
    struct stat st;
    off_t at = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? lseek(fd, 0, SEEK_CUR) : -1;
    w->base = at >= 0 ? (uint64_t)at : 0;
    w->reserved = at >= 0 ? 0 : UINT64_MAX;  /* a regular file only */
    hatf_writer_opts o = opts ? *opts : (hatf_writer_opts){0};
    w->best = o.best;
    w->level = o.zstd_level ? o.zstd_level : (o.best ? 19 : 3);
    /* best: one group holds up to 2^20 events, so the address model and zstd
     * see a longer history (the raw cut still bounds a group to 8 MiB) */
    w->chunk_events = o.chunk_events ? o.chunk_events : o.best ? HATF_CK_EVENTS_MAX : HATF_CHUNK_EVENTS_DEFAULT;
    static const hatf_info none;
    if (!info) info = &none;
    uint64_t unum = info->time_unit_ns_num ? info->time_unit_ns_num : 1;
    uint64_t uden = info->time_unit_ns_den ? info->time_unit_ns_den : 1;
    w->pdep = hatf_adec_isa() == HATF_ADEC_BMI2;
    if (hatf_order_wanted(o.time_res_ns)) {  /* R units, but 1 us where another thread came just before */
        w->order = 1;
        hatf_order_init(&w->ord, unum, uden, o.time_res_ns);
        unum = HATF_ORDER_RES_NS;
        uden = 1;
    } else if (o.time_res_ns) {
        w->coarse = 1;
        hatf_tconv_init(&w->tconv, unum, uden, o.time_res_ns);
        unum = o.time_res_ns;
        uden = 1;
    }
    if (w->chunk_events > HATF_CK_EVENTS_MAX) w->chunk_events = HATF_CK_EVENTS_MAX;
    /* best asks for the smallest file, whatever the memory */
    w->pending_max = o.best ? SIZE_MAX : HATF_CK_WRITER_PENDING_GROUPS * w->chunk_events;
    if (hatf_genc_init(&w->genc, w->level, 0) != 0) {
        hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory");
        close(fd);
        free(w);
        return NULL;
    }

    /* header */
    uint8_t *p = malloc(HATF_HDR_FIXED + 3 * (2 + HATF_STR_MAX) + 8);
    if (!p) {
        hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory");
        w->failed = HATF_E_NOMEM;
        hatf_writer_close(w, NULL, NULL);
        return NULL;
    }
    memcpy(p, HATF_CONTAINER_MAGIC, 8);
    p[8] = HATF_CONTAINER_VERSION_MAJOR; p[9] = 0;
    p[10] = HATF_CONTAINER_VERSION_MINOR; p[11] = 0;
    p[16] = info->address_bits ? info->address_bits : 64;
    p[17] = info->big_endian;
    p[18] = p[19] = 0;
    hatf_store_le32(p + 20, info->flags);
    hatf_store_le32(p + 24, info->pid);
    hatf_store_le32(p + 28, info->ppid);
    hatf_store_le64(p + 32, info->start_realtime_ns);
    hatf_store_le64(p + 40, unum);
    hatf_store_le64(p + 48, uden);
    size_t n = HATF_HDR_FIXED;
    put_str(p, &n, info->clock, sizeof info->clock);
    put_str(p, &n, info->cmdline, sizeof info->cmdline);
    put_str(p, &n, info->parent_trace, sizeof info->parent_trace);
    hatf_store_le32(p + 12, (uint32_t)(n + 8));
    hatf_store_le64(p + n, XXH3_64bits(p, n));
    int rc = write_all(w, p, n + 8);
    free(p);
    if (rc) {
        if (err) *err = w->err;
        hatf_writer_close(w, NULL, NULL);
        return NULL;
    }
    return w;
}

HATF_API hatf_writer *hatf_writer_create(const char *path, int overwrite, const hatf_info *info,
                                         const hatf_writer_opts *opts, hatf_err *err)
{
    int fl = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
    int fd = open(path, fl, 0600);
    if (fd < 0) {
        int e = errno;
        hatf_err_set(err, HATF_E_IO, 0, "cannot create: %s%s", strerror(e),
                     e == ELOOP ? " (a symbolic link)" : "");
        if (err) err->sys_errno = e;
        return NULL;
    }
    return hatf_writer_open_fd(fd, info, opts, err);
}

/* Room for n address items in the pending group. @return 0 or -1. */
static int items_grow(wthread *t, size_t n)
{
    size_t cap = t->g.cap_items ? 2 * t->g.cap_items : 256;
    while (cap < n) cap *= 2;
    hatf_aitem *a = realloc(t->g.items, cap * sizeof *a);
    if (!a) return -1;
    t->g.items = a;
    t->g.cap_items = cap;
    return 0;
}

/* The next chunk of t's events in a batch with left to go: the group
 * emitted first when it is full, then room for m of them (at most left):
 * their addresses' codes (a fast group) or items at *ad. @return 0 or an error. */
static int chunk_begin(hatf_writer *w, wthread *t, size_t left, size_t *m, addr_out *ad)
{
    /* many busy threads: smaller groups rather than a full one each */
    size_t cut = w->pending >= w->pending_max && w->chunk_events > HATF_CK_WRITER_GROUP_MIN
                 ? HATF_CK_WRITER_GROUP_MIN : w->chunk_events;
    if (t->events >= cut || t->g.rec.len + t->g.tsec.len >= HATF_CK_WRITER_RAW_CUT) {
        int rc = emit_group(w, t);
        if (rc) return rc;
    }
    *m = cut - t->events < left ? cut - t->events : left;
    *ad = (addr_out){ 0 };
    if (t->g.fast) {
        if (!w->aref_tab && !(w->aref_tab = calloc((size_t)1 << HATF_AREF_BITS, sizeof *w->aref_tab)))
            return fail(w, HATF_E_NOMEM, "out of memory");
        ad->ao = hatf_buf_reserve(&t->g.adr, *m * 2 * HATF_AREF_MAX);
        if (!ad->ao) return fail(w, HATF_E_NOMEM, "out of memory");
        ad->r = t->g.aref;
        ad->tab = w->aref_tab;
    } else {
        if (t->g.nitems + *m > t->g.cap_items && items_grow(t, t->g.nitems + *m))
            return fail(w, HATF_E_NOMEM, "out of memory");
        ad->it = t->g.items + t->g.nitems;
    }
    return 0;
}

/* The addresses a chunk took (chunk_begin's room, filled up to *ad). */
static void chunk_end(wthread *t, const addr_out *ad)
{
    if (t->g.fast) {
        t->g.adr.len = (size_t)(ad->ao - t->g.adr.p);
        t->g.aref = ad->r;
    } else {
        t->g.nitems = (size_t)(ad->it - t->g.items);
    }
}

static int add_events(hatf_writer *w, const hatf_event *ev, size_t n)
{
    if (w->failed) return w->failed;
    if (n == 0) return 0;
    /* comments carry no thread: they go with the batch's thread, or alone with
     * the thread of the batch before (the readers put a comment after its
     * thread's previous event: it stays where it was written) */
    uint64_t thread = w->last_thread;
    for (size_t i = 0; i < n; i++)
        if (ev[i].op != HATF_OP_COMMENT) { thread = ev[i].thread; break; }
    w->last_thread = thread;
    wthread *t = thread_get(w, thread);
    if (!t) return fail(w, HATF_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n;) {
        size_t m;
        addr_out ad;
        int rc = chunk_begin(w, t, n - i, &m, &ad);
        if (rc) return rc;
        size_t done = hatf1_encode_batch_(&t->enc, ev + i, m, HATF_CK_WRITER_RAW_CUT, &rc);
        /* the encoded events' times and addresses, and the one-thread check,
         * in one pass; a batch that mixes threads fails the writer before
         * its group is written */
        uint8_t *o = hatf_buf_reserve(&t->g.tsec, done * 2 * HATF_VARINT_MAX), *o0 = o;
        if (!o) return fail(w, HATF_E_NOMEM, "out of memory");
        uint64_t other = 0;
        hatf_tclock c = t->tc;  /* in registers: the byte stores could alias t */
        if (t->g.fast) {
            if (w->coarse) o = take_events(&c, &w->tconv, ev + i, done, thread, o, &t->g.rsec, &ad, &other, 1, 1);
            else o = take_events(&c, NULL, ev + i, done, thread, o, &t->g.rsec, &ad, &other, 0, 1);
        } else {
            if (w->coarse) o = take_events(&c, &w->tconv, ev + i, done, thread, o, &t->g.rsec, &ad, &other, 1, 0);
            else o = take_events(&c, NULL, ev + i, done, thread, o, &t->g.rsec, &ad, &other, 0, 0);
        }
        t->tc = c;
        chunk_end(t, &ad);
        if (other) {
            for (size_t j = i; j < i + done; j++)
                if (ev[j].op != HATF_OP_COMMENT && ev[j].thread != thread) {
                    hatf_err_set(&w->err, HATF_E_USAGE, w->off, "events of threads %llu and %llu in one batch",
                                 (unsigned long long)thread, (unsigned long long)ev[j].thread);
                    break;
                }
            return w->failed = HATF_E_USAGE;
        }
        t->g.tsec.len += (size_t)(o - o0);
        t->events += (uint32_t)done;
        w->pending += done;
        i += done;
        if (rc) {
            const hatf_event *e = &ev[i];
            hatf_err_set(&w->err, rc, w->off, "thread %llu: cannot encode a %s event: %s",
                         (unsigned long long)thread, hatf_op_name(e->op) ? hatf_op_name(e->op) : "bad",
                         hatf_strerror(rc));
            return w->failed = rc;
        }
    }
    /* A thread that has ended gives back its buffers (a program may start
     * millions of threads); the few words the index needs stay. */
    if (ev[n - 1].op == HATF_OP_THREAD_DESTROY) {
        int rc = emit_group(w, t);
        if (rc) return rc;
        hatf_group_free(&t->g);
        thread_start_group(w, t);
    }
    return 0;
}

enum { OBATCH = 256 };

/* With order: ev[0..n), events of one thread and comments, with their times
 * (and release leads) as stored (container_order.h), then as given. */
static int add_ordered(hatf_writer *w, const hatf_event *ev, size_t n)
{
    if (!w->obatch && !(w->obatch = malloc(OBATCH * sizeof *w->obatch))) return fail(w, HATF_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n;) {
        size_t m = n - i < OBATCH ? n - i : OBATCH;
        wthread *t = NULL;
        for (size_t j = 0; j < m; j++) {
            hatf_event *e = &w->obatch[j];
            *e = ev[i + j];
            if (e->op == HATF_OP_COMMENT) continue;
            if ((!t || t->thread != e->thread) && !(t = thread_get(w, e->thread)))
                return fail(w, HATF_E_NOMEM, "out of memory");
            uint64_t lead;
            e->time = hatf_order_time(&w->ord, e, t->oprev, &lead);
            if (e->time == UINT64_MAX) return fail(w, HATF_E_NOMEM, "out of memory");
            e->release_lead = lead;
            t->oprev = e->time;
        }
        int rc = add_events(w, w->obatch, m);
        if (rc) return rc;
        i += m;
    }
    return 0;
}

HATF_API int hatf_writer_add(hatf_writer *w, const hatf_event *ev, size_t n)
{
    return w->order && !w->failed ? add_ordered(w, ev, n) : add_events(w, ev, n);
}

void hatf_writer_comment_thread_(hatf_writer *w, uint64_t thread) { w->last_thread = thread; }

void hatf_writer_order_counts_(const hatf_writer *w, uint64_t *events, uint64_t *marked, uint64_t *late)
{
    *events = w->ord.events, *marked = w->ord.marked, *late = w->ord.late;
}

/* The plain event at x (the recorder's units) as the hatf_event
 * hatf_writer_add would take; a calloc's attribute bytes in ab
 * (HATF_PLAIN_CALLOC_ATTRS bytes, as long as e lives). */
static void plain_event(const uint64_t *x, uint64_t thread, hatf_event *e, uint8_t *ab)
{
    unsigned op;
    memset(e, 0, sizeof *e);
    hatf_plain_read(x, &op, &e->addr, &e->size, &e->new_addr);
    e->op = (uint8_t)op;
    e->thread = thread;
    e->time = x[0] >> HATF_RAW_TIME_SHIFT;
    if (hatf_event_releases_early(e)) e->release_lead = hatf_raw_release_lead(e->time, x[4]);
    if (hatf_raw_calloc(x[0])) {
        e->attr_is_bytes = 1;
        e->data = ab;
        e->data_len = (uint16_t)hatf_plain_calloc_attrs(ab, hatf_raw_calloc_nmemb(x));
    }
}

/* hatf_writer_add_plain_ once the times are as they are stored or converted
 * by w->tconv (not with order). */
static inline __attribute__((always_inline))
long add_plain(hatf_writer *w, uint64_t thread, const uint64_t *raw, size_t units, size_t *events)
{
    w->last_thread = thread;
    wthread *t = thread_get(w, thread);
    if (!t) return fail(w, HATF_E_NOMEM, "out of memory");
    /* no count of the plain events first: one pass over the units; the room
     * is reserved for as many events as units, at most a chunk's */
    size_t nu = 0, np = 0;
    while (nu < units && hatf_raw_plain(raw[nu * HATF_RAW_UNIT_WORDS])) {
        const uint64_t *x = raw + nu * HATF_RAW_UNIT_WORDS;
        size_t m;
        addr_out ad;
        int rc = chunk_begin(w, t, units - nu, &m, &ad);
        if (rc) return rc;
        uint8_t *o0 = hatf_buf_reserve(&t->g.tsec, m * 2 * HATF_VARINT_MAX);
        if (!o0) return fail(w, HATF_E_NOMEM, "out of memory");
        hatf_plain_io io = { t->tc, w->coarse ? &w->tconv : NULL, o0, &t->g.rsec, ad.ao, ad.r, ad.tab, ad.it, 0, w->pdep };
        size_t done = hatf1_encode_plain_(&t->enc, thread, x, units - nu, m, HATF_CK_WRITER_RAW_CUT, &io);
        if (done == 0) {  /* the stream's state first (a group's first record): this one the general way */
            hatf_event e;
            uint8_t ab[HATF_PLAIN_CALLOC_ATTRS];
            plain_event(x, thread, &e, ab);
            done = hatf1_encode_batch_(&t->enc, &e, 1, HATF_CK_WRITER_RAW_CUT, &rc);
            if (rc) return encode_failed(w, rc);  /* a plain event always encodes: out of memory */
            io.units = done ? hatf_raw_units(x[0]) : 0;
            uint64_t other = 0;
            if (w->coarse) io.tso = take_events(&io.c, &w->tconv, &e, done, thread, io.tso, &t->g.rsec, &ad, &other, 1, !ad.it);
            else io.tso = take_events(&io.c, NULL, &e, done, thread, io.tso, &t->g.rsec, &ad, &other, 0, !ad.it);
        } else {
            ad.ao = io.ao;
            ad.r = io.r;
            ad.it = io.it;
        }
        t->tc = io.c;
        chunk_end(t, &ad);
        t->g.tsec.len += (size_t)(io.tso - o0);
        t->events += (uint32_t)done;
        w->pending += done;
        np += done;
        nu += io.units;
    }
    *events = np;
    return (long)nu;
}

/* With order: thread's plain events at raw (at most OBATCH) with their
 * stored times (container_order.h), coded in one pass as any plain events. */
static long add_plain_ordered(hatf_writer *w, uint64_t thread, const uint64_t *raw, size_t units, size_t *events)
{
    if (!w->oraw && !(w->oraw = malloc(OBATCH * HATF_RAW_LONG_UNITS * HATF_RAW_UNIT_WORDS * sizeof *w->oraw)))
        return fail(w, HATF_E_NOMEM, "out of memory");
    wthread *t = thread_get(w, thread);
    if (!t) return fail(w, HATF_E_NOMEM, "out of memory");
    size_t nu = hatf_order_plain_(&w->ord, thread, raw, units, OBATCH, w->oraw, &t->oprev);
    if (nu == SIZE_MAX) return fail(w, HATF_E_NOMEM, "out of memory");
    return add_plain(w, thread, w->oraw, nu, events);
}

long hatf_writer_add_plain_(hatf_writer *w, uint64_t thread, const uint64_t *raw, size_t units, size_t *events)
{
    *events = 0;
    if (w->failed) return w->failed;
    if (!units || !hatf_raw_plain(raw[0])) return 0;
    if (w->order) return add_plain_ordered(w, thread, raw, units, events);  /* each time needs the others' */
    return add_plain(w, thread, raw, units, events);
}

int hatf_writer_table_entry_(hatf_writer *w, unsigned type, uint64_t id, const void *bytes, size_t len)
{
    if (w->failed) return w->failed;
    if (len > HATF_STR_MAX) len = HATF_STR_MAX;
    uint8_t *p = hatf_buf_reserve(&w->tables, 1 + 2 * HATF_VARINT_MAX + len);
    if (!p) return fail(w, HATF_E_NOMEM, "out of memory");
    size_t k = 0;
    p[k++] = (uint8_t)type;
    k += hatf_varint_put(p + k, id);
    k += hatf_varint_put(p + k, len);
    memcpy(p + k, bytes, len);
    w->tables.len += k + len;
    return 0;
}

static int add_name(hatf_writer *w, unsigned type, uint64_t id, const char *name)
{
    return hatf_writer_table_entry_(w, type, id, name, strnlen(name, HATF_STR_MAX + 1));
}

HATF_API int hatf_writer_note_loss(hatf_writer *w, const char *line)
{
    return hatf_writer_table_entry_(w, HATF_TAB_LOSS, w->losses++, line, strnlen(line, HATF_STR_MAX + 1));
}

HATF_API int hatf_writer_name_thread(hatf_writer *w, uint64_t thread, const char *name)
{
    return add_name(w, HATF_TAB_THREAD_NAME, thread, name);
}

HATF_API int hatf_writer_name_heap(hatf_writer *w, uint64_t heap, const char *name)
{
    return add_name(w, HATF_TAB_HEAP_NAME, heap, name);
}

/* Seal every thread's pending group, write the queued groups (with force,
 * all of them; else those the helper finished, the rest made due), then the
 * tables. */
static int flush_groups(hatf_writer *w, int force)
{
    if (w->failed) return w->failed;
    for (size_t i = 0; i < w->nth; i++) {
        int rc = emit_group(w, w->th[i]);
        if (rc) return rc;
    }
    if (w->q && !force) w->due = hatf_jobq_sealed_(w->q);
    int rc = write_queued(w, force ? UINT64_MAX : 0, force ? UINT64_MAX : 0, 0);
    return rc ? rc : write_tables(w);
}

HATF_API int hatf_writer_flush(hatf_writer *w) { return flush_groups(w, 1); }

static int write_tables(hatf_writer *w)
{
    if (w->tables.len) {
        hatf_chunk_hdr h = { .kind = HATF_CK_TABLES };
        int rc = write_chunk(w, &h, w->tables.p, w->tables.len);
        if (!rc) rc = out_flush(w);
        if (rc) return rc;
        w->tables.len = 0;
    }
    return 0;
}

static int write_index(hatf_writer *w, const hatf_counters *c)
{
    hatf_buf ix;
    hatf_buf_init(&ix);
    uint8_t *p = hatf_buf_reserve(&ix, 32 + 16 * w->nth);
    if (!p) return fail(w, HATF_E_NOMEM, "out of memory");
    static const hatf_counters zero;
    if (!c) c = &zero;
    uint64_t total = 0;
    hatf_store_le64(p, c->events);
    hatf_store_le64(p + 8, c->dropped);
    hatf_store_le64(p + 16, c->ring_waits);
    hatf_store_le32(p + 24, (uint32_t)w->nth);
    hatf_store_le32(p + 28, (uint32_t)w->nchunks);
    for (size_t i = 0; i < w->nth; i++) {
        hatf_store_le64(p + 32 + 16 * i, w->th[i]->thread);
        hatf_store_le64(p + 40 + 16 * i, w->th[i]->total);
        total += w->th[i]->total;
    }
    ix.len = 32 + 16 * w->nth;
    hatf_buf_append(&ix, w->index.p, w->index.len);
    if (ix.failed) { hatf_buf_free(&ix); return fail(w, HATF_E_NOMEM, "out of memory"); }
    uint64_t at = w->off + w->obuf.len;
    hatf_chunk_hdr h = { .kind = HATF_CK_INDEX, .events = (uint32_t)(total > UINT32_MAX ? UINT32_MAX : total) };
    int rc = write_chunk(w, &h, ix.p, ix.len);
    hatf_buf_free(&ix);
    if (rc) return rc;
    uint8_t tr[HATF_TRAILER_LEN];
    hatf_store_le64(tr, at);
    hatf_store_le64(tr + 8, w->off + w->obuf.len - at);
    hatf_store_le32(tr + 16, hatf_trailer_check(tr));
    hatf_store_le32(tr + 20, 0);
    memcpy(tr + 24, HATF_TRAILER_MAGIC, 8);
    hatf_buf_append(&w->obuf, tr, sizeof tr);
    return out_flush(w);
}

HATF_API int hatf_writer_resident(hatf_writer *w, uint64_t time_ns, uint64_t bytes, uint64_t own)
{
    if (w->res_given && bytes == w->res_bytes && own == w->res_own) {
        w->res_held = 1;
        w->res_time = time_ns;
        return 0;
    }
    int rc = w->res_held ? hatf_writer_resident_put_(w, w->res_time, w->res_bytes, w->res_own) : 0;
    w->res_given = 1, w->res_held = 0;
    w->res_time = time_ns, w->res_bytes = bytes, w->res_own = own;
    return rc ? rc : hatf_writer_resident_put_(w, time_ns, bytes, own);
}

HATF_API int hatf_writer_close(hatf_writer *w, const hatf_counters *counters, hatf_err *err)
{
    if (!w) return 0;
    int rc = w->res_held ? hatf_writer_resident_put_(w, w->res_time, w->res_bytes, w->res_own) : 0;
    w->res_held = 0;
    if (!rc) rc = hatf_writer_flush(w);
    if (!rc) rc = write_index(w, counters);
    if (w->fd >= 0) hatf_reserve_return(w->fd, w->reserved);
    if (w->fd >= 0 && close(w->fd) != 0 && !rc) {
        w->err.sys_errno = errno;
        rc = fail(w, HATF_E_IO, "close failed: %s", strerror(errno));
    }
    if (rc && err) *err = w->err;
    if (w->q) hatf_jobq_close_(w->q);  /* a helper still on an orphaned group frees the queue */
    for (size_t i = 0; i < w->nth; i++) {
        hatf_group_free(&w->th[i]->g);
        free(w->th[i]);
    }
    free(w->th);
    free(w->thmap);
    free(w->aref_tab);
    hatf_order_free(&w->ord);
    free(w->obatch);
    free(w->oraw);
    hatf_buf_free(&w->tables);
    hatf_buf_free(&w->obuf);
    hatf_gout_free(&w->gout);
    hatf_buf_free(&w->index);
    hatf_genc_free(&w->genc);
    free(w);
    return rc;
}

int hatf_writer_seal_(hatf_writer *w) { return flush_groups(w, 0); }

int hatf_writer_write_due_(hatf_writer *w)
{
    if (!w->q) return 0;
    if (w->failed) return w->failed;
    int rc = write_queued(w, w->due, 1, 5000000);
    if (rc) return rc;
    return hatf_jobq_written_(w->q) < w->due;
}

hatf_jobq *hatf_writer_defer_(hatf_writer *w, unsigned nslots)
{
    if (w->q || w->failed) return NULL;
    w->q = hatf_jobq_new_(nslots, w->level, w->chunk_events);
    return w->q;
}

void hatf_writer_defer_counts_(const hatf_writer *w, uint64_t *by_helper, uint64_t *by_writer, uint64_t *twice)
{
    *by_helper = *by_writer = *twice = 0;
    if (w->q) hatf_jobq_counts_(w->q, by_helper, by_writer, twice);
}

void hatf_writer_set_coding_(hatf_writer *w, enum hatf_coding_ coding) { w->coding = coding; }

void hatf_writer_fast_counts_(const hatf_writer *w, uint64_t *groups, uint64_t *events, uint64_t *stored)
{
    *groups = w->fast_groups;
    *events = w->fast_events;
    *stored = w->stored_events;
}

HATF_API uint64_t hatf_writer_bytes(const hatf_writer *w) { return w->off; }
