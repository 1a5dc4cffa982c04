/* container_read.c — opening a container: header, index or chunk scan,
 * damage report, names; and the per-thread cursor that decodes chunk groups.
 *
 * A complete file is opened from its index (payloads are checked when read).
 * Otherwise the chunks are scanned from the header on, each payload checked,
 * and whatever is not intact is described in the damage lines; a damaged
 * chunk header is skipped by looking for the next valid one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container_internal.h"
#include "hatf_check.h"
#include "source_jobs.h"

#define LLU(x) ((unsigned long long)(x))

static const char *kind_name(unsigned k)
{
    switch (k) {
    case HATF_CK_RECORDS: return "records";
    case HATF_CK_ADDRS: return "address";
    case HATF_CK_TABLES: return "tables";
    case HATF_CK_INDEX: return "index";
    default: return "unknown";
    }
}

void hatf_reader_add_damage_(hatf_reader *r, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* a group read twice (the causal order's second pass over earlier events)
     * is one loss, said once: the lines said are found by their hash, since a
     * file of many damaged chunks has as many lines (comparing each new one
     * with all of them made 20,000 bad checksums take 14 s) */
    uint64_t h = XXH3_64bits(line, strlen(line));
    addrmap_entry *e = addrmap_find(&r->damage_seen, h);
    if (e && !strcmp(r->damage[e->a], line)) return;
    if (r->ndamage == r->cap_damage) {
        size_t cap = r->cap_damage ? 2 * r->cap_damage : 8;
        char **d = realloc(r->damage, cap * sizeof *d);
        if (!d) return;
        r->damage = d;
        r->cap_damage = cap;
    }
    char *s = strdup(line);
    if (!s) return;
    int added;
    if (!e && (e = addrmap_put(&r->damage_seen, h, &added))) e->a = (uint32_t)r->ndamage;
    r->damage[r->ndamage++] = s;
}

/* pread exactly n bytes. @return 0, or -1 (short or failed). */
static int read_at(int fd, void *p, size_t n, uint64_t off)
{
    uint8_t *d = p;
    while (n) {
        ssize_t k = pread(fd, d, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        d += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

int hatf_read_stored_(hatf_reader *r, hatf_buf *io, uint64_t off, const hatf_chunk_hdr *h, hatf_err *err)
{
    io->len = 0;
    if (!hatf_buf_reserve(io, (size_t)h->stored_len + 1))
        return hatf_err_set(err, HATF_E_NOMEM, off, "offset %llu: out of memory", LLU(off));
    if (read_at(r->fd, io->p, h->stored_len, off + HATF_CK_HDR) != 0)
        return hatf_err_set(err, HATF_E_TRUNCATED, off, "offset %llu: %s chunk cannot be read (%s)",
                            LLU(off), kind_name(h->kind), errno ? strerror(errno) : "file shrank");
    if (XXH3_64bits(io->p, h->stored_len) != h->payload_hash)
        return hatf_err_set(err, HATF_E_CORRUPT, off, "offset %llu: %s chunk checksum mismatch (thread %llu, group %u)",
                            LLU(off), kind_name(h->kind), LLU(h->thread), h->seq);
    io->len = h->stored_len;
    return 0;
}

const char *hatf_kind_name_(unsigned kind) { return kind_name(kind); }

int hatf_load_payload_with_(hatf_reader *r, ZSTD_DCtx *dctx, hatf_buf *io, uint64_t off, const hatf_chunk_hdr *h,
                            hatf_buf *out, hatf_err *err)
{
    int rc = hatf_read_stored_(r, io, off, h, err);
    if (rc) return rc;
    out->len = 0;
    if (!hatf_buf_reserve(out, (size_t)h->raw_len + 1))
        return hatf_err_set(err, HATF_E_NOMEM, off, "offset %llu: out of memory", LLU(off));
    if (h->codec == HATF_CODEC_STORED) {
        if (h->stored_len != h->raw_len)
            return hatf_err_set(err, HATF_E_CORRUPT, off, "offset %llu: stored chunk with raw length %u != %u",
                                LLU(off), h->raw_len, h->stored_len);
        memcpy(out->p, io->p, h->raw_len);
    } else if (h->codec == HATF_CODEC_ZSTD) {
        size_t z = ZSTD_decompressDCtx(dctx, out->p, h->raw_len, io->p, h->stored_len);
        if (ZSTD_isError(z) || z != h->raw_len)
            return hatf_err_set(err, HATF_E_CORRUPT, off, "offset %llu: %s chunk does not decompress (%s)",
                                LLU(off), kind_name(h->kind),
                                ZSTD_isError(z) ? ZSTD_getErrorName(z) : "wrong length");
    } else {
        return hatf_err_set(err, HATF_E_CORRUPT, off, "offset %llu: unknown codec %u", LLU(off), h->codec);
    }
    out->len = h->raw_len;
    return 0;
}

static int load_payload(hatf_reader *r, uint64_t off, const hatf_chunk_hdr *h, hatf_buf *out, hatf_err *err)
{
    return hatf_load_payload_with_(r, r->dctx, &r->io, off, h, out, err);
}

/* ---- header ------------------------------------------------------------- */

static int get_str(const uint8_t *p, size_t end, size_t *n, char *dst, size_t cap)
{
    if (end - *n < 2) return -1;
    size_t len = p[*n] | (size_t)p[*n + 1] << 8;
    *n += 2;
    if (len > HATF_STR_MAX || len >= cap || end - *n < len) return -1;
    memcpy(dst, p + *n, len);
    dst[len] = 0;
    *n += len;
    return 0;
}

static int read_header(hatf_reader *r, hatf_err *err)
{
    uint8_t fixed[16];
    if (r->size < 16 || read_at(r->fd, fixed, 16, 0) != 0) {
        if (r->size >= 8 && read_at(r->fd, fixed, 8, 0) == 0 && memcmp(fixed, HATF_CONTAINER_MAGIC, 8) != 0)
            return hatf_err_set(err, HATF_E_CORRUPT, 0, "not a hatrace trace (bad magic)");
        return hatf_err_set(err, HATF_E_TRUNCATED, 0, "offset 0: header truncated (file has %llu bytes)", LLU(r->size));
    }
    if (memcmp(fixed, HATF_CONTAINER_MAGIC, 8) != 0)
        return hatf_err_set(err, HATF_E_CORRUPT, 0, "not a hatrace trace (bad magic)");
    unsigned major = fixed[8] | fixed[9] << 8, minor = fixed[10] | fixed[11] << 8;
    if (major > HATF_CONTAINER_VERSION_MAJOR)
        return hatf_err_set(err, HATF_E_VERSION, 8, "version %u.%u is newer than this reader (%u.x)",
                            major, minor, HATF_CONTAINER_VERSION_MAJOR);
    if (major == 0)
        return hatf_err_set(err, HATF_E_CORRUPT, 8, "offset 8: bad version %u.%u", major, minor);
    uint32_t hlen = hatf_load_le32(fixed + 12);
    if (hlen < HATF_HDR_FIXED + 6 + 8 || hlen > HATF_HDR_MAX)
        return hatf_err_set(err, HATF_E_CORRUPT, 12, "offset 12: bad header length %u", hlen);
    if (hlen > r->size)
        return hatf_err_set(err, HATF_E_TRUNCATED, 0, "offset 0: header truncated (needs %u bytes, %llu present)",
                            hlen, LLU(r->size));
    uint8_t *p = malloc(hlen);
    if (!p) return hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory");
    int rc = 0;
    size_t n = HATF_HDR_FIXED, end = hlen - 8;
    hatf_info *in = &r->info;
    if (read_at(r->fd, p, hlen, 0) != 0) {
        rc = hatf_err_set(err, HATF_E_IO, 0, "offset 0: cannot read the header");
    } else if (hatf_load_le64(p + end) != XXH3_64bits(p, end)) {
        rc = hatf_err_set(err, HATF_E_CORRUPT, 0, "offset 0: header checksum mismatch");
    } else {
        in->version_major = major;
        in->version_minor = minor;
        in->address_bits = p[16];
        in->big_endian = p[17];
        in->flags = hatf_load_le32(p + 20);
        in->pid = hatf_load_le32(p + 24);
        in->ppid = hatf_load_le32(p + 28);
        in->start_realtime_ns = hatf_load_le64(p + 32);
        in->time_unit_ns_num = hatf_load_le64(p + 40);
        in->time_unit_ns_den = hatf_load_le64(p + 48);
        if (get_str(p, end, &n, in->clock, sizeof in->clock) ||
            get_str(p, end, &n, in->cmdline, sizeof in->cmdline) ||
            get_str(p, end, &n, in->parent_trace, sizeof in->parent_trace))
            rc = hatf_err_set(err, HATF_E_CORRUPT, n, "offset %llu: bad header string", LLU(n));
        /* a header no recorder writes, whose figures would mean nothing (times
         * divided by 0, addresses of 7 bits): refused, not read */
        else if (in->address_bits != 32 && in->address_bits != 64)
            rc = hatf_err_set(err, HATF_E_CORRUPT, 16, "offset 16: bad header: addresses of %u bits (32 or 64)",
                              in->address_bits);
        else if (!in->time_unit_ns_num || !in->time_unit_ns_den)
            rc = hatf_err_set(err, HATF_E_CORRUPT, 40, "offset 40: bad header: time unit %llu/%llu ns (neither may be 0)",
                              LLU(in->time_unit_ns_num), LLU(in->time_unit_ns_den));
        /* bytes after the strings belong to a newer minor version: ignored */
    }
    free(p);
    r->data_start = hlen;
    return rc;
}

/* ---- the chunk list ----------------------------------------------------- */

/* Threads are found through a hash index (addrmap): a hostile file naming
 * millions of threads must not make opening quadratic. */
static hatf_rthread *find_thread(hatf_reader *r, uint64_t thread)
{
    addrmap_entry *e = addrmap_find(&r->th_map, thread);
    return e ? &r->th[e->a] : NULL;
}

/* (Re)build the index for th[0..nth), whose positions moved. */
static int index_threads(hatf_reader *r)
{
    addrmap_clear(&r->th_map);
    for (size_t t = 0; t < r->nth; t++) {
        int added;
        addrmap_entry *e = addrmap_put(&r->th_map, r->th[t].thread, &added);
        if (!e) return HATF_E_NOMEM;
        e->a = (uint32_t)t;
    }
    return 0;
}

static hatf_rthread *thread_of(hatf_reader *r, uint64_t thread)
{
    hatf_rthread *t = find_thread(r, thread);
    if (t) return t;
    if (r->nth >= UINT32_MAX - 1) return NULL;
    if (r->nth == r->cap_th) {
        size_t cap = r->cap_th ? 2 * r->cap_th : 8;
        hatf_rthread *a = realloc(r->th, cap * sizeof *a);
        if (!a) return NULL;
        r->th = a;
        r->cap_th = cap;
    }
    int added;
    addrmap_entry *e = addrmap_put(&r->th_map, thread, &added);
    if (!e) return NULL;
    e->a = (uint32_t)r->nth;
    t = &r->th[r->nth++];
    memset(t, 0, sizeof *t);
    t->thread = thread;
    return t;
}

static int add_group(hatf_reader *r, uint64_t off, const hatf_chunk_hdr *h)
{
    hatf_rthread *t = thread_of(r, h->thread);
    if (!t) return HATF_E_NOMEM;
    /* a thread's groups are numbered 0, 1, 2, ... in file order: one that
     * repeats or goes back is a copy or a forgery, not more events */
    if (t->ng && h->seq <= t->g[t->ng - 1].rh.seq) {
        hatf_reader_add_damage_(r, "offset %llu: records chunk (thread %llu, group %u) comes after group %u (offset %llu); "
                                "its %u events are skipped", LLU(off), LLU(h->thread), h->seq, t->g[t->ng - 1].rh.seq,
                                LLU(t->g[t->ng - 1].roff), h->events);
        return 0;
    }
    if (t->ng == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1;  /* most threads of a storm have one group */
        hatf_rgroup *g = realloc(t->g, cap * sizeof *g);
        if (!g) return HATF_E_NOMEM;
        t->g = g;
        t->cap = cap;
    }
    hatf_rgroup *g = &t->g[t->ng++];
    memset(g, 0, sizeof *g);
    g->roff = off;
    g->rh = *h;
    return 0;
}

/* The writer puts a group's address chunk right after its records chunk, so
 * only the thread's last group can take it (no search: a file of unpaired
 * chunks cannot make the scan quadratic). */
static void pair_addrs(hatf_reader *r, uint64_t off, const hatf_chunk_hdr *h)
{
    hatf_rthread *t = find_thread(r, h->thread);
    if (t && t->ng) {
        hatf_rgroup *g = &t->g[t->ng - 1];
        if (g->rh.seq == h->seq && !g->aoff && g->rh.events == h->events) {
            g->aoff = off;
            g->ah = *h;
            return;
        }
    }
    hatf_reader_add_damage_(r, "offset %llu: address chunk (thread %llu, group %u) has no intact records chunk",
                            LLU(off), LLU(h->thread), h->seq);
}

char *hatf_strndup_(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) { memcpy(s, p, n); s[n] = 0; }
    return s;
}

/* ---- names ------------------------------------------------------------- */

/* Name id n[0..len) (the last name given wins). @return 0 or HATF_E_NOMEM. */
static int names_set(hatf_names *v, uint64_t id, const uint8_t *p, size_t len)
{
    if (!v->ids.t && addrmap_init(&v->ids) != 0) return HATF_E_NOMEM;
    char *s = hatf_strndup_(p, len);
    int added;
    addrmap_entry *e = s ? addrmap_put(&v->ids, id, &added) : NULL;
    if (!e) { free(s); return HATF_E_NOMEM; }
    if (!added) {
        free(v->s[e->a]);
        v->s[e->a] = s;
        return 0;
    }
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        char **a = realloc(v->s, cap * sizeof *a);
        if (!a) { addrmap_remove(&v->ids, e); free(s); return HATF_E_NOMEM; }
        v->s = a;
        v->cap = cap;
    }
    e->a = (uint32_t)v->n;
    v->s[v->n++] = s;
    return 0;
}

static const char *names_get(const hatf_names *v, uint64_t id)
{
    addrmap_entry *e = v->ids.t ? addrmap_find((addrmap *)&v->ids, id) : NULL;
    return e ? v->s[e->a] : NULL;
}

static void names_free(hatf_names *v)
{
    for (size_t i = 0; i < v->n; i++) free(v->s[i]);
    free(v->s);
    if (v->ids.t) addrmap_free(&v->ids);
    memset(v, 0, sizeof *v);
}

/* ---- tables -------------------------------------------------------------- */

/* Room among the tables for an entry of type with bytes p[0..len)
 * (HATF_TABLES_KEEP_MAX)? The first time there is not, a damage line. */
static int tables_room(hatf_reader *r, uint64_t off, unsigned type, const uint8_t *p, size_t len)
{
    uint64_t cost = HATF_TAB_ENTRY_COST + len;
    if (type == HATF_TAB_STACK)  /* 8 bytes a frame, however short its varint */
        for (size_t i = 0; i < len; i++) cost += p[i] < 0x80 ? 8 : 0;
    if (!r->tables_full && r->tables_kept + cost <= HATF_TABLES_KEEP_MAX) {
        r->tables_kept += cost;
        return 1;
    }
    if (!r->tables_full)
        hatf_reader_add_damage_(r, "offset %llu: the tables (names, stacks, modules, symbols) pass %u MiB kept; "
                                "the rest of them is ignored", LLU(off), HATF_TABLES_KEEP_MAX >> 20);
    r->tables_full = 1;
    return 0;
}

static void parse_tables(hatf_reader *r, uint64_t off, const uint8_t *p, size_t n)
{
    size_t i = 0, lost = 0;  /* lost: entries the reader had no memory to keep */
    while (i < n) {
        unsigned type = p[i++];
        uint64_t id, len;
        size_t k = hatf_varint_get(p + i, n - i, &id);
        if (!k) break;
        i += k;
        k = hatf_varint_get(p + i, n - i, &len);
        if (!k || len > HATF_STR_MAX || n - i - k < len) break;
        i += k;
        int keep = type >= HATF_TAB_THREAD_NAME && type <= HATF_TAB_RESIDENT && type != HATF_TAB_STACK_DEPTH;
        if (keep && !tables_room(r, off, type, p + i, (size_t)len)) return;
        if (type >= HATF_TAB_STACK && type <= HATF_TAB_SYMBOL) {
            int rc = hatf_stacktab_add_(r, type, id, p + i, (size_t)len);
            if (rc == HATF_E_CORRUPT) { i -= k; break; }
            lost += rc == HATF_E_NOMEM;
            i += len;
            continue;
        }
        if (type == HATF_TAB_STACK_DEPTH) {  /* the first one wins, as for stacks */
            if (!r->stack_depth && id <= HATF_STACK_MAX) r->stack_depth = (unsigned)id;
            i += len;
            continue;
        }
        if (type == HATF_TAB_RESIDENT) {
            int rc = hatf_resident_add_(r, id, p + i, (size_t)len);
            if (rc == HATF_E_CORRUPT) { i -= k; break; }
            lost += rc == HATF_E_NOMEM;
            i += len;
            continue;
        }
        if (type == HATF_TAB_LOSS) {  /* a copy of a damaged trace: its loss is this file's too */
            hatf_reader_add_damage_(r, "copied from a damaged or cut trace, which had lost: %.*s", (int)len,
                                    (const char *)(p + i));
            i += len;
            continue;
        }
        if (type == HATF_TAB_THREAD_NAME || type == HATF_TAB_HEAP_NAME)
            lost += names_set(type == HATF_TAB_THREAD_NAME ? &r->tnames : &r->hnames, id, p + i, (size_t)len) != 0;
        i += len;
    }
    if (i != n)
        hatf_reader_add_damage_(r, "offset %llu: tables chunk malformed at payload byte %zu; the rest is ignored",
                                LLU(off), i);
    if (lost)
        hatf_reader_add_damage_(r, "offset %llu: out of memory: %zu table entries (names, stacks, modules, symbols) not kept",
                                LLU(off), lost);
}

/* A chunk header passed its check: does it describe something this reader can hold? */
static const char *implausible(const hatf_chunk_hdr *h)
{
    if (h->stored_len > HATF_CK_STORED_MAX) return "stored length too large";
    if (h->raw_len > HATF_CK_RAW_MAX) return "raw length too large";
    if (h->kind != HATF_CK_INDEX && h->events > HATF_CK_EVENTS_MAX) return "too many events";
    if ((h->kind == HATF_CK_RECORDS || h->kind == HATF_CK_ADDRS) && h->events == 0) return "no events";
    uint64_t per = h->kind == HATF_CK_RECORDS ? HATF_CK_EVENT_REC_MAX : HATF_CK_EVENT_ADDR_MAX;
    if ((h->kind == HATF_CK_RECORDS || h->kind == HATF_CK_ADDRS) && h->raw_len > per * h->events + HATF_CK_EVENTS_SLACK)
        return "raw length too large for its events";
    return NULL;
}

/* Take one intact chunk (payload checked or not) into the lists. */
static int take_chunk(hatf_reader *r, uint64_t off, const hatf_chunk_hdr *h, int payload_checked)
{
    switch (h->kind) {
    case HATF_CK_RECORDS: return add_group(r, off, h);
    case HATF_CK_ADDRS: pair_addrs(r, off, h); return 0;
    case HATF_CK_TABLES: {
        if (r->tables_full) return 0;
        if (h->raw_len > HATF_TABLES_RAW_MAX - r->tables_raw) {
            hatf_reader_add_damage_(r, "offset %llu: the tables chunks pass %u MiB in all; the rest of them is ignored",
                                    LLU(off), HATF_TABLES_RAW_MAX >> 20);
            r->tables_full = 1;
            return 0;
        }
        r->tables_raw += h->raw_len;
        hatf_buf raw;
        hatf_buf_init(&raw);
        hatf_err e = {0};
        (void)payload_checked;
        if (load_payload(r, off, h, &raw, &e) == 0)
            parse_tables(r, off, raw.p, raw.len);
        else
            hatf_reader_add_damage_(r, "%s; names in it are lost", e.msg);
        hatf_buf_free(&raw);
        return 0;
    }
    default: return 0;  /* a later kind: skipped */
    }
}

/* Find the next valid chunk header at or after from. @return its offset or size. */
static uint64_t resync(hatf_reader *r, uint64_t from)
{
    uint8_t buf[65536 + HATF_CK_HDR];
    uint64_t pos = from;
    while (pos + HATF_CK_HDR <= r->size) {
        size_t n = (size_t)(r->size - pos < sizeof buf ? r->size - pos : sizeof buf);
        if (read_at(r->fd, buf, n, pos) != 0) break;
        for (size_t i = 0; i + HATF_CK_HDR <= n; i++) {
            hatf_chunk_hdr h;
            if (buf[i] == 'H' && hatf_ck_hdr_unpack(buf + i, &h) == 0 && !implausible(&h)) return pos + i;
        }
        if (n < sizeof buf) break;
        pos += n - HATF_CK_HDR + 1;
    }
    return r->size;
}

int hatf_reader_scan_(hatf_reader *r)
{
    uint64_t pos = r->scan_pos;
    hatf_buf raw;
    hatf_buf_init(&raw);
    int rc = 0, saw_index = 0;
    while (pos < r->size) {
        uint64_t left = r->size - pos;
        uint8_t hb[HATF_CK_HDR];
        hatf_chunk_hdr h;
        if (saw_index && left <= HATF_TRAILER_LEN) {
            if (r->following) break;  /* the trailer: container_follow.c reads it */
            if (left < HATF_TRAILER_LEN)
                hatf_reader_add_damage_(r, "offset %llu: trailer truncated (needs %d bytes, %llu present)",
                                        LLU(pos), HATF_TRAILER_LEN, LLU(left));
            else
                hatf_reader_add_damage_(r, "offset %llu: trailer damaged", LLU(pos));
            break;
        }
        if (left < HATF_CK_HDR) {
            if (!r->following)
                hatf_reader_add_damage_(r, "offset %llu: chunk header truncated (needs %d bytes, %llu present)",
                                        LLU(pos), HATF_CK_HDR, LLU(left));
            break;
        }
        const char *why = NULL;
        if (read_at(r->fd, hb, HATF_CK_HDR, pos) != 0) why = "cannot be read";
        else if (hatf_ck_hdr_unpack(hb, &h) != 0) why = "damaged (bad magic or check)";
        else why = implausible(&h);
        if (why) {
            uint64_t next = resync(r, pos + 1);
            if (next >= r->size && r->following) break;  /* looked for again when the file grew */
            if (next < r->size)
                hatf_reader_add_damage_(r, "offset %llu: chunk header %s; %llu bytes skipped to the next chunk at offset %llu",
                                        LLU(pos), why, LLU(next - pos), LLU(next));
            else
                hatf_reader_add_damage_(r, "offset %llu: chunk header %s; no intact chunk after it (%llu bytes lost)",
                                        LLU(pos), why, LLU(r->size - pos));
            pos = next;
            continue;
        }
        uint64_t need = HATF_CK_HDR + (uint64_t)h.stored_len;
        if (need > left) {
            if (!r->following)
                hatf_reader_add_damage_(r, "offset %llu: %s chunk truncated (needs %llu bytes, %llu present)",
                                        LLU(pos), kind_name(h.kind), LLU(need), LLU(left));
            break;
        }
        hatf_err e = {0};
        if (h.kind == HATF_CK_INDEX) {
            saw_index = 1;
            r->index_off = pos;
        } else if (h.kind == HATF_CK_TABLES) {
            rc = take_chunk(r, pos, &h, 0);  /* checks its payload itself */
        } else if (load_payload(r, pos, &h, &raw, &e) != 0) {
            if (e.code == HATF_E_NOMEM) { rc = HATF_E_NOMEM; break; }
            hatf_reader_add_damage_(r, "%s; chunk skipped", e.msg);
        } else {
            rc = take_chunk(r, pos, &h, 1);
        }
        if (rc) break;
        pos += need;
    }
    r->scan_pos = pos;
    hatf_buf_free(&raw);
    return rc;
}

/* Open from the trailer and index. @return 1 done, 0 not possible (use scan). */
static int open_index(hatf_reader *r)
{
    if (r->size < r->data_start + HATF_CK_HDR + HATF_TRAILER_LEN) return 0;
    uint8_t tr[HATF_TRAILER_LEN];
    uint64_t toff = r->size - HATF_TRAILER_LEN;
    if (read_at(r->fd, tr, sizeof tr, toff) != 0) return 0;
    if (memcmp(tr + 24, HATF_TRAILER_MAGIC, 8) != 0 || hatf_load_le32(tr + 16) != hatf_trailer_check(tr))
        return 0;
    uint64_t ioff = hatf_load_le64(tr), ilen = hatf_load_le64(tr + 8);
    const char *why = NULL;
    uint8_t hb[HATF_CK_HDR];
    hatf_chunk_hdr h;
    hatf_buf raw;
    hatf_buf_init(&raw);
    hatf_err e = {0};
    if (ioff < r->data_start || ioff > toff || ilen != toff - ioff || ilen < HATF_CK_HDR)
        why = "trailer points outside the file";
    else if (read_at(r->fd, hb, sizeof hb, ioff) != 0 || hatf_ck_hdr_unpack(hb, &h) != 0 || h.kind != HATF_CK_INDEX)
        why = "index chunk header damaged";
    else if (implausible(&h) || HATF_CK_HDR + (uint64_t)h.stored_len != ilen)
        why = "index chunk sizes inconsistent";
    else if (load_payload(r, ioff, &h, &raw, &e) != 0)
        why = e.msg;
    uint64_t nth = 0, nck = 0;
    if (!why) {
        if (raw.len < 32) why = "index too short";
        else {
            nth = hatf_load_le32(raw.p + 24);
            nck = hatf_load_le32(raw.p + 28);
            if (raw.len != 32 + 16 * nth + HATF_IX_ENTRY * nck) why = "index length inconsistent";
        }
    }
    uint64_t prev_end = r->data_start;
    for (uint64_t i = 0; !why && i < nck; i++) {
        const uint8_t *p = raw.p + 32 + 16 * nth + HATF_IX_ENTRY * i;
        uint64_t off = hatf_load_le64(p);
        hatf_chunk_hdr c;
        if (hatf_ck_hdr_unpack(p + 8, &c) != 0 || implausible(&c) || c.kind == HATF_CK_INDEX)
            why = "index entry damaged";
        else if (off < prev_end || off + HATF_CK_HDR + (uint64_t)c.stored_len > ioff)
            why = "index entry outside the chunk area";
        else {
            prev_end = off + HATF_CK_HDR + c.stored_len;
            if (take_chunk(r, off, &c, 0) != 0) why = "out of memory";
        }
    }
    if (why) {
        hatf_reader_add_damage_(r, "offset %llu: index unusable (%s); chunks scanned instead", LLU(ioff), why);
        /* forget what the index gave, keep the damage lines */
        for (size_t i = 0; i < r->nth; i++) free(r->th[i].g);
        r->nth = 0;
        addrmap_clear(&r->th_map);
        names_free(&r->tnames);
        names_free(&r->hnames);
        r->nres = 0;
        r->res_unsorted = 0;
        r->tables_kept = r->tables_raw = 0;
        r->tables_full = 0;
        hatf_stacktab_free_(r);
        hatf_buf_free(&raw);
        return 0;
    }
    r->counters.events = hatf_load_le64(raw.p);
    r->counters.dropped = hatf_load_le64(raw.p + 8);
    r->counters.ring_waits = hatf_load_le64(raw.p + 16);
    hatf_buf_free(&raw);
    r->complete = 1;
    return 1;
}

void hatf_thread_drop_unpaired_(hatf_reader *r, hatf_rthread *t)
{
    size_t k = 0;
    t->events = 0;
    for (size_t j = 0; j < t->ng; j++) {
        hatf_rgroup *g = &t->g[j];
        if (!g->aoff && (j + 1 < t->ng || !r->following)) {
            hatf_reader_add_damage_(r, "offset %llu: records chunk (thread %llu, group %u, %u events) has no intact address chunk; its events are skipped",
                                    LLU(g->roff), LLU(t->thread), g->rh.seq, g->rh.events);
            continue;
        }
        t->g[k++] = *g;
        if (g->aoff) t->events += g->rh.events;
    }
    t->ng = k;
}

/* Drop groups without an address chunk; count events; list threads.
 * pre: not following (its groups are final). */
static int finish(hatf_reader *r)
{
    HATF_PRE(!r->following);
    r->events = 0;
    r->thread_ids = malloc((r->nth ? r->nth : 1) * sizeof *r->thread_ids);
    if (!r->thread_ids) return HATF_E_NOMEM;
    size_t keep_t = 0;
    for (size_t i = 0; i < r->nth; i++) {
        hatf_rthread *t = &r->th[i];
        hatf_thread_drop_unpaired_(r, t);
        if (t->ng == 0) { free(t->g); continue; }
        r->events += t->events;
        r->th[keep_t++] = *t;
    }
    r->nth = keep_t;
    if (index_threads(r) != 0) return HATF_E_NOMEM;  /* positions moved */
    for (size_t i = 0; i < r->nth; i++) r->thread_ids[i] = r->th[i].thread;
    if (hatf_stacktab_finish_(r) != 0) return HATF_E_NOMEM;
    if (!r->complete)
        hatf_reader_add_damage_(r, "offset %llu: index missing: file ended without a trailer", LLU(r->size));
    return 0;
}

hatf_reader *hatf_reader_open_(const char *path, int follow, hatf_err *err)
{
    hatf_reader *r = calloc(1, sizeof *r);
    if (r && addrmap_init(&r->th_map) != 0) { free(r); r = NULL; }
    if (r && addrmap_init(&r->damage_seen) != 0) { addrmap_free(&r->th_map); free(r); r = NULL; }
    if (!r) { hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory"); return NULL; }
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        int e = errno;
        hatf_err_set(err, HATF_E_IO, 0, "cannot open: %s", strerror(e));
        if (err) err->sys_errno = e;
        addrmap_free(&r->th_map);
        addrmap_free(&r->damage_seen);
        free(r);
        return NULL;
    }
    struct stat st;
    int rc = 0;
    if (fstat(r->fd, &st) != 0) rc = hatf_err_set(err, HATF_E_IO, 0, "cannot stat: %s", strerror(errno));
    r->size = (uint64_t)st.st_size;
    r->dctx = ZSTD_createDCtx();
    if (!rc && !r->dctx) rc = hatf_err_set(err, HATF_E_NOMEM, 0, "out of memory");
    if (!rc) rc = read_header(r, err);
    r->scan_pos = r->data_start;
    if (!rc && !open_index(r)) {
        if (follow) r->following = 1;  /* container_follow.c scans */
        else rc = hatf_reader_scan_(r);
    }
    if (!rc && !r->following) rc = finish(r);
    if (rc) {
        if (rc == HATF_E_NOMEM) hatf_err_set(err, rc, 0, "out of memory");
        hatf_reader_close(r);
        return NULL;
    }
    return r;
}

HATF_API hatf_reader *hatf_reader_open(const char *path, hatf_err *err)
{
    return hatf_reader_open_(path, 0, err);
}

int hatf_read_at_(int fd, void *p, size_t n, uint64_t off) { return read_at(fd, p, n, off); }

int hatf_load_payload_(hatf_reader *r, uint64_t off, const hatf_chunk_hdr *h, hatf_buf *out, hatf_err *err)
{
    return load_payload(r, off, h, out, err);
}

HATF_API void hatf_reader_close(hatf_reader *r)
{
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    for (size_t i = 0; i < r->ndamage; i++) free(r->damage[i]);
    free(r->damage);
    addrmap_free(&r->damage_seen);
    for (size_t i = 0; i < r->nth; i++) free(r->th[i].g);
    free(r->th);
    addrmap_free(&r->th_map);
    free(r->thread_ids);
    names_free(&r->tnames);
    names_free(&r->hnames);
    free(r->res);
    hatf_stacktab_free_(r);
    ZSTD_freeDCtx(r->dctx);
    hatf_buf_free(&r->io);
    free(r);
}

HATF_API const hatf_info *hatf_reader_info(const hatf_reader *r) { return &r->info; }
HATF_API const hatf_counters *hatf_reader_counters(const hatf_reader *r) { return &r->counters; }
HATF_API int hatf_reader_complete(const hatf_reader *r) { return r->complete; }
HATF_API uint64_t hatf_reader_event_count(const hatf_reader *r) { return r->events; }

HATF_API void hatf_reader_coding(const hatf_reader *r, uint64_t *groups, uint64_t *fast_groups, uint64_t *fast_events)
{
    uint64_t g = 0, fg = 0, fe = 0;
    for (size_t i = 0; i < r->nth; i++) {
        const hatf_rthread *t = &r->th[i];
        g += t->ng;
        for (size_t j = 0; j < t->ng; j++)
            if (hatf_acode_is_fast(t->g[j].ah.coding)) fg++, fe += t->g[j].rh.events;
    }
    if (groups) *groups = g;
    if (fast_groups) *fast_groups = fg;
    if (fast_events) *fast_events = fe;
}

HATF_API size_t hatf_reader_damage(const hatf_reader *r, const char *const **lines)
{
    if (lines) *lines = (const char *const *)r->damage;
    return r->ndamage;
}

HATF_API size_t hatf_reader_threads(const hatf_reader *r, const uint64_t **threads)
{
    if (threads) *threads = r->thread_ids;
    return r->nth;
}

HATF_API const char *hatf_reader_thread_name(const hatf_reader *r, uint64_t thread)
{
    return names_get(&r->tnames, thread);
}

HATF_API const char *hatf_reader_heap_name(const hatf_reader *r, uint64_t heap)
{
    return names_get(&r->hnames, heap);
}

/* ---- cursor ------------------------------------------------------------- */

int hatf_cursor_init(hatf_cursor *c, hatf_reader *r, const hatf_rthread *t)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    c->t = t;
    hatf_buf_init(&c->rec);
    hatf_buf_init(&c->adr);
    c->isa = hatf_adec_isa();
    c->dctx = r->dctx;
    c->io = &r->io;
    return 0;
}

/* Give back the cursor's address model (HATF_MODELS_KEEP). */
void hatf_cursor_open_(hatf_cursor *c, int more)
{
    more = more && !c->worker;
    if (c->open == more) return;
    c->open = more;
    if (more) c->r->open++;
    else c->r->open--;
}

static void model_release(hatf_cursor *c)
{
    if (!c->am) return;
    hatf_amodel_free(c->am);
    free(c->am);
    c->am = NULL;
    if (!c->worker) __atomic_fetch_sub(&c->r->models, 1, __ATOMIC_RELAXED);
}

/* Give back what the cursor's groups needed (hatf_cursor_init). */
static void cursor_release(hatf_cursor *c)
{
    hatf_buf_free(&c->rec);
    hatf_buf_free(&c->adr);
    hatf_zpay_free_(&c->zr);
    hatf_zpay_free_(&c->za);
    hatf_cursor_open_(c, 0);
    model_release(c);
    free(c->dec);
    if (c->evs == c->own_evs) c->evs = NULL;
    free(c->own_evs);
    c->dec = NULL;
    c->own_evs = NULL;
    c->own_cap = 0;
}

void hatf_cursor_free(hatf_cursor *c)
{
    if (c->ahead) hatf_ahead_done_(c);
    cursor_release(c);
}

/* off: the chunk the message names (c->err.offset, for callers that print it apart) */
static int cursor_damage(hatf_cursor *c, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int cursor_damage(hatf_cursor *c, int code, uint64_t off, const char *fmt, ...)
{
    char msg[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memset(&c->err, 0, sizeof c->err);
    hatf_err_set(&c->err, code, off, "%s", msg);
    if (!c->worker) hatf_reader_add_damage_(c->r, "%s", msg);
    c->left = 0;
    c->loaded = 0;
    hatf_cursor_open_(c, 0);
    return code;
}

/* The loaded group is bad at event (events - left), where says in which
 * stream (HATF_BAD_*); in the records, rc is the decoder's (0: the records
 * ended early). */
static int cursor_bad(hatf_cursor *c, int rc, int where)
{
    const hatf_rgroup *g = &c->t->g[c->gi - 1];
    uint32_t done = g->rh.events - c->left;
    if (where == HATF_BAD_TIMES)
        return cursor_damage(c, HATF_E_CORRUPT, c->chunk_off, "offset %llu: records chunk (thread %llu, group %u): time section bad at event %u",
                             LLU(c->chunk_off), LLU(c->t->thread), g->rh.seq, done);
    if (where == HATF_BAD_LEADS)
        return cursor_damage(c, HATF_E_CORRUPT, c->chunk_off, "offset %llu: records chunk (thread %llu, group %u): release section bad at event %u (short, or a lead past its time)",
                             LLU(c->chunk_off), LLU(c->t->thread), g->rh.seq, done);
    if (where == HATF_BAD_ADDRS)
        return cursor_damage(c, HATF_E_CORRUPT, g->aoff, "offset %llu: address chunk (thread %llu, group %u) bad at event %u",
                             LLU(g->aoff), LLU(c->t->thread), g->rh.seq, done);
    if (rc == 0)
        return cursor_damage(c, HATF_E_CORRUPT, c->chunk_off, "offset %llu: records chunk (thread %llu, group %u) ends after %u of %u events",
                             LLU(c->chunk_off), LLU(c->t->thread), g->rh.seq, done, g->rh.events);
    return cursor_damage(c, rc, c->chunk_off, "offset %llu: records chunk (thread %llu, group %u), event %u: %s",
                         LLU(c->chunk_off), LLU(c->t->thread), g->rh.seq, done, c->dec->err.msg);
}

/* Give e[0..n)'s timed events (all but comments) their times from the time
 * section: runs of events of one time, each but the last followed by the
 * step to the next (docs/format-container.md, "Records chunk").
 * @return the events done; fewer than n when the section is bad there. */
static uint32_t times_run(hatf_cursor *c, hatf_event *e, uint32_t n)
{
    uint64_t cur = c->t_cur, left = c->t_left, v;
    const uint8_t *p = c->tp, *end = c->tend;
    uint32_t k = 0;
    while (k < n) {
        if (e[k].op == HATF_OP_COMMENT) { k++; continue; }  /* no time of its own */
        if (!left) {  /* the next run: the step to its time, then its length */
            if (!hatf_varint_next(&p, end, &v) || v == UINT64_MAX) break;
            cur += (uint64_t)hatf_unzigzag(v + 1);
            if (!hatf_varint_next(&p, end, &v) || v == UINT64_MAX) break;
            left = v + 1;
        }
        /* the run's events in this batch, up to a comment */
        uint32_t stop = n - k < left ? n : k + (uint32_t)left, i = k;
        while (i < stop && e[i].op != HATF_OP_COMMENT) e[i++].time = cur;
        left -= i - k;
        k = i;
    }
    c->tp = p;
    c->t_cur = cur;
    c->t_left = left;
    return k;
}

/* Give e[0..n)'s reallocs that released early (hatf_event_releases_early)
 * their leads from the release section, one varint each, none past its
 * event's time. @return the events done; fewer than n when the section is
 * short or bad there. */
static uint32_t leads_run(hatf_cursor *c, hatf_event *e, uint32_t n)
{
    const uint8_t *p = c->lp, *end = c->lend;
    uint32_t k = 0;
    for (; k < n; k++) {
        if (!hatf_event_releases_early(&e[k])) continue;
        uint64_t v;
        if (!hatf_varint_next(&p, end, &v) || v > e[k].time) break;
        e[k].release_lead = v;
    }
    c->lp = p;
    return k;
}

/* A streamed payload went bad (c->err): the group's events not handed out are lost. */
static int stream_bad(hatf_cursor *c)
{
    char msg[sizeof c->err.msg];
    memcpy(msg, c->err.msg, sizeof msg);
    return cursor_damage(c, c->err.code, c->err.offset, "%s; %u events of thread %llu skipped", msg, c->left,
                         LLU(c->t->thread));
}

/* hatf1_decode_many on a records payload decompressed as far as the decoder
 * goes (container_stream.h): HATF_STREAM_AHEAD past it before the batch, so
 * its first event is whole. A later one may be cut by the end of what is
 * there (the decoder checks every length: it fails, it cannot decode as
 * another event): the batch is then decoded again up to it, from the state
 * before, and the next batch starts there with more.
 * @return 0 with the decoder's result in *got, or the damage code. */
static int stream_records(hatf_cursor *c, uint32_t want, int *got)
{
    hatf1_decoder *d = c->dec;
    size_t hat = (size_t)d->base_offset, at = hat + d->pos;
    if (c->zr.have - at < HATF_STREAM_AHEAD) {
        if (hatf_zpay_more_(&c->zr, &c->rec, at + HATF_STREAM_AHEAD, &c->err) != 0) return stream_bad(c);
        d->len = c->zr.have - hat;
    }
    if (hatf_zpay_done(&c->zr)) {
        *got = hatf1_decode_many(d, c->evs, want);
        return 0;
    }
    hatf1_decoder before = *d;
    *got = hatf1_decode_many(d, c->evs, want);
    if (*got > 0 && d->err.code) {
        *d = before;
        *got = hatf1_decode_many(d, c->evs, (size_t)*got);
    }
    return 0;
}

/* The loaded group's events are all decoded: will the refill after them
 * find its streams not used up exactly (hatf_cursor_fill_)? */
static int tail_bad(const hatf_cursor *c)
{
    return c->dec->base_offset + c->dec->pos != c->zr.raw || c->ap != c->adr.p + c->za.raw ||
           (c->tp && (c->tp != c->tend || c->t_left)) || c->lp != c->lend;
}

/* Load the payload of the chunk at off (header h) into out: whole (with the
 * shared dctx and io), or, past HATF_STREAM_MIN and packed, its stored bytes
 * read and checked and nothing decompressed yet (container_stream.h).
 * @return 0 or a negative code with a message in err. */
static int zpay_load(hatf_zpay *z, hatf_reader *r, ZSTD_DCtx *dctx, hatf_buf *io, uint64_t off,
                     const hatf_chunk_hdr *h, hatf_buf *out, hatf_err *err)
{
    if (!hatf_zpay_streamed(h)) {
        z->off = off;
        z->what = kind_name(h->kind);
        z->in_pos = 0;
        int rc = hatf_load_payload_with_(r, dctx, io, off, h, out, err);
        z->raw = z->have = rc ? 0 : out->len;
        return rc;
    }
    z->raw = z->have = 0;
    int rc = hatf_read_stored_(r, &z->in, off, h, err);
    return rc ? rc : hatf_zpay_begin_(z, off, kind_name(h->kind), h, out, err);
}

/* Decode the next batch of the loaded group: records first, then their
 * addresses in one tight loop. Damage after some good events is kept in
 * pend and reported once those events are handed out. */
static int decode_batch(hatf_cursor *c)
{
    uint32_t want = c->left < HATF_CURSOR_BATCH ? c->left : HATF_CURSOR_BATCH;
    if (c->evs == c->own_evs && c->own_cap < want) {  /* as many as the group has, up to a batch */
        hatf_event *e = realloc(c->own_evs, want * sizeof *e);
        if (!e) return cursor_damage(c, HATF_E_NOMEM, c->chunk_off, "offset %llu: out of memory", LLU(c->chunk_off));
        c->evs = c->own_evs = e;
        c->own_cap = want;
    }
    int got = 0;
    if (hatf_zpay_done(&c->zr)) {
        got = hatf1_decode_many(c->dec, c->evs, want);
    } else {
        int rc = stream_records(c, want, &got);
        if (rc) return rc;
    }
    if (got <= 0) return cursor_bad(c, got, HATF_BAD_RECORDS);
    if (!hatf_zpay_done(&c->za)) {  /* the addresses of got events: HATF_CK_EVENT_ADDR_MAX bytes each at most */
        size_t at = (size_t)(c->ap - c->adr.p);
        if (hatf_zpay_more_(&c->za, &c->adr, at + (size_t)got * HATF_CK_EVENT_ADDR_MAX, &c->err) != 0)
            return stream_bad(c);
        c->aend = c->adr.p + c->za.have;
    }
    /* got < want: the decoder returns the error or the early end next time */
    hatf_event *e = c->evs;
    uint32_t n = (uint32_t)got, k;
    k = hatf_adec_run(c->am, e, n, &c->ap, c->aend, c->isa);
    int where = HATF_BAD_ADDRS;
    if (c->tp) {
        uint32_t kt = times_run(c, e, k);
        if (kt < k) k = kt, where = HATF_BAD_TIMES;
        if (c->lp && (kt = leads_run(c, e, k)) < k) k = kt, where = HATF_BAD_LEADS;
    }
    c->left -= k;
    /* decoder threads read the count while the merge's thread moves it: relaxed
     * atomics (a count a step stale only gives a model back a group later) */
    if (!c->left && __atomic_load_n(&c->r->models, __ATOMIC_RELAXED) > HATF_MODELS_KEEP)
        model_release(c);  /* its group is decoded */
    if (k < n) {
        if (k == 0) return cursor_bad(c, HATF_E_CORRUPT, where);
        c->pend = HATF_E_CORRUPT;
        c->pend_where = where;
    }
    hatf_cursor_open_(c, c->left || c->pend || tail_bad(c));
    c->i = 0;
    c->n = k;
    return (int)k;
}

/* A section of the loaded records payload at *at (a varint, its length, then
 * its bytes), there whole, and HATF_STREAM_AHEAD after it: *p and *end, *at
 * moved past it. @return 0 or the damage code. */
static int load_section(hatf_cursor *c, const hatf_rgroup *g, size_t *at, const char *what, const uint8_t **p,
                        const uint8_t **end)
{
    uint64_t len;
    /* a streamed payload: the section is there whole before the first event */
    if (hatf_zpay_more_(&c->zr, &c->rec, *at + HATF_VARINT_MAX, &c->err) != 0) return stream_bad(c);
    size_t u = c->zr.have > *at ? hatf_varint_get(c->rec.p + *at, c->zr.have - *at, &len) : 0;
    if (!u || len > c->rec.len - *at - u)
        return cursor_damage(c, HATF_E_CORRUPT, g->roff, "offset %llu: records chunk (thread %llu, group %u): %s section longer than its chunk",
                             LLU(g->roff), LLU(c->t->thread), g->rh.seq, what);
    *at += u;
    if (hatf_zpay_more_(&c->zr, &c->rec, *at + (size_t)len + HATF_STREAM_AHEAD, &c->err) != 0) return stream_bad(c);
    *p = c->rec.p + *at;
    *end = *p + len;
    *at += (size_t)len;
    return 0;
}

/* Set up the loaded records payload's time section (records coding 1 and 2;
 * none for coding 0) and release section (coding 2): the first run starts
 * at the group's first time, its length first. *hat: where the HATF stream
 * starts. @return 0 or the damage code. */
static int load_times(hatf_cursor *c, const hatf_rgroup *g, size_t *hat)
{
    c->tp = c->lp = c->lend = NULL;
    if (g->rh.coding == HATF_RCODE_HATF)
        return hatf_zpay_more_(&c->zr, &c->rec, HATF_STREAM_AHEAD, &c->err) != 0 ? stream_bad(c) : 0;
    if (g->rh.coding != HATF_RCODE_TIMES && g->rh.coding != HATF_RCODE_RELEASE)
        return cursor_damage(c, HATF_E_CORRUPT, g->roff, "offset %llu: records chunk with unknown coding %u",
                             LLU(g->roff), g->rh.coding);
    uint64_t v;
    size_t at = 0;
    int rc = load_section(c, g, &at, "time", &c->tp, &c->tend);
    if (!rc && g->rh.coding == HATF_RCODE_RELEASE) rc = load_section(c, g, &at, "release", &c->lp, &c->lend);
    if (rc) {
        c->tp = c->lp = c->lend = NULL;
        return rc;
    }
    uint64_t tlen = (uint64_t)(c->tend - c->tp);
    *hat = at;
    c->t_cur = g->rh.t_first;
    c->t_left = 0;
    if (!tlen) return 0;  /* a group of comments only */
    if (!hatf_varint_next(&c->tp, c->tend, &v) || v == UINT64_MAX)
        return cursor_damage(c, HATF_E_CORRUPT, g->roff, "offset %llu: records chunk (thread %llu, group %u): time section bad at event 0",
                             LLU(g->roff), LLU(c->t->thread), g->rh.seq);
    c->t_left = v + 1;
    return 0;
}

/* HATF_OPEN_MAX cursors are in the middle of a group: the cursor's next
 * group is skipped (taken from the decoding threads if one has it), said
 * once for the file. @return the damage code. */
static int open_full(hatf_cursor *c)
{
    const hatf_rgroup *g = &c->t->g[c->gi];
    int rc = 0;
    if (c->r->ahead && hatf_ahead_take_(c, &rc) == HATF_AHEAD_DECODED) hatf_ahead_done_(c);
    else c->gi++;
    hatf_err *e = &c->err;
    memset(e, 0, sizeof *e);
    hatf_err_set(e, HATF_E_LIMIT, g->roff, "offset %llu: more than %u threads' chunk groups overlap in time; "
                 "the groups past that are skipped", LLU(g->roff), HATF_OPEN_MAX);
    if (!c->r->open_said) hatf_reader_add_damage_(c->r, "%s", e->msg);
    c->r->open_said = 1;
    c->left = 0;
    c->loaded = 0;
    hatf_cursor_open_(c, 0);
    return HATF_E_LIMIT;
}

int hatf_cursor_fill_(hatf_cursor *c)
{
    HATF_PRE(c->i == c->n);
    c->i = c->n = 0;
    if (c->ahead) {  /* a group decoded ahead: its next batch or damage */
        int rc = hatf_ahead_next_(c);
        if (rc) return rc;
    }
    if (c->pend) {
        int rc = c->pend;
        c->pend = 0;
        return cursor_bad(c, rc, c->pend_where);
    }
    for (;;) {
        if (c->left) return decode_batch(c);
        if (c->loaded) {
            /* a finished group must have used both streams exactly */
            const hatf_rgroup *g = &c->t->g[c->gi - 1];
            c->loaded = 0;
            if (c->dec->base_offset + c->dec->pos != c->zr.raw)
                return cursor_damage(c, HATF_E_CORRUPT, c->chunk_off, "offset %llu: records chunk (thread %llu, group %u) has bytes after its %u events",
                                     LLU(c->chunk_off), LLU(c->t->thread), g->rh.seq, g->rh.events);
            if (c->ap != c->adr.p + c->za.raw)
                return cursor_damage(c, HATF_E_CORRUPT, g->aoff, "offset %llu: address chunk (thread %llu, group %u) has bytes left over",
                                     LLU(g->aoff), LLU(c->t->thread), g->rh.seq);
            if (c->tp && (c->tp != c->tend || c->t_left))
                return cursor_damage(c, HATF_E_CORRUPT, c->chunk_off, "offset %llu: records chunk (thread %llu, group %u): time section does not match its events",
                                     LLU(c->chunk_off), LLU(c->t->thread), g->rh.seq);
            if (c->lp != c->lend)
                return cursor_damage(c, HATF_E_CORRUPT, c->chunk_off, "offset %llu: records chunk (thread %llu, group %u): release section has more leads than its reallocs",
                                     LLU(c->chunk_off), LLU(c->t->thread), g->rh.seq);
        }
        /* (a following reader: a group whose address chunk is not there yet waits) */
        if (c->gi >= c->t->ng || !c->t->g[c->gi].aoff) {
            if (!c->worker && !c->r->following && !c->ahead) cursor_release(c);  /* its thread is done */
            return 0;
        }
        if (!c->worker && c->r->open >= HATF_OPEN_MAX) return open_full(c);
        int rc = 0, ahead = !c->worker && c->r->ahead ? hatf_ahead_take_(c, &rc) : HATF_AHEAD_NONE;
        if (ahead == HATF_AHEAD_DECODED) {
            if ((rc = hatf_ahead_next_(c))) return rc;
            continue;
        }
        const hatf_rgroup *g = &c->t->g[c->gi++];
        c->chunk_off = g->roff;
        if (ahead == HATF_AHEAD_NONE) {  /* else a decoding thread loaded the payloads (or failed: rc, c->err) */
            memset(&c->err, 0, sizeof c->err);
            rc = zpay_load(&c->zr, c->r, c->dctx, c->io, g->roff, &g->rh, &c->rec, &c->err);
            if (!rc) rc = zpay_load(&c->za, c->r, c->dctx, c->io, g->aoff, &g->ah, &c->adr, &c->err);
        } else {
            hatf_zpay_whole_(&c->zr, &c->rec);
            hatf_zpay_whole_(&c->za, &c->adr);
        }
        if (rc) {
            char msg[sizeof c->err.msg];
            memcpy(msg, c->err.msg, sizeof msg);
            return cursor_damage(c, rc, c->err.offset, "%s; %u events of thread %llu skipped", msg, g->rh.events, LLU(c->t->thread));
        }
        if (g->ah.coding != HATF_ACODE_MODEL && g->ah.coding != HATF_ACODE_MODEL2 && !hatf_acode_is_fast(g->ah.coding))
            return cursor_damage(c, HATF_E_CORRUPT, g->aoff, "offset %llu: address chunk with unknown coding %u",
                                 LLU(g->aoff), g->ah.coding);
        /* every allocation takes at least one address byte: a header that
         * claims more events than the stream could hold costs no memory */
        uint32_t objects = c->za.raw < g->rh.events ? (uint32_t)c->za.raw : g->rh.events;
        if (g->ah.coding == HATF_ACODE_REF)  /* its addresses: at most two an event, a byte each */
            objects = c->za.raw < 2 * (uint64_t)g->rh.events ? (uint32_t)c->za.raw : 2 * g->rh.events;
        else if (hatf_acode_is_fast(g->ah.coding)) objects = 0;  /* no model */
        if (!c->am && (c->am = malloc(sizeof *c->am))) {
            hatf_amodel_init(c->am, 0);
            if (!c->worker) __atomic_fetch_add(&c->r->models, 1, __ATOMIC_RELAXED);
        }
        if (!c->dec) c->dec = malloc(sizeof *c->dec);
        if (!c->am || !c->dec || hatf_amodel_reset(c->am, objects, g->ah.coding) != 0)
            return cursor_damage(c, HATF_E_NOMEM, g->roff, "offset %llu: out of memory", LLU(g->roff));
        size_t hat = 0;  /* where the HATF stream starts */
        c->left = g->rh.events;  /* (said skipped if the payload goes bad here) */
        rc = load_times(c, g, &hat);
        if (rc) return rc;
        hatf1_decoder_init(c->dec, c->rec.p + hat, c->zr.have - hat, hat);
        c->ap = c->adr.p;
        c->aend = c->adr.p + c->za.have;
        c->left = g->rh.events;
        c->loaded = 1;
        memset(&c->err, 0, sizeof c->err);
    }
}
