/* container_follow.c — reading a container while it is still being written.
 *
 * The recorder appends sealed chunk groups as it flushes and writes the index
 * and trailer last. A following reader scans what is whole so far and stops
 * before a chunk that is not (a chunk header or payload that runs past the
 * end of the file, a records chunk whose address chunk has not come): that
 * part is not damage yet, it is read when the file has grown
 * (hatf_reader_follow). The follow ends when the scan meets the index and a
 * whole trailer (the file is then complete, its counters read from the
 * index), or when the caller stops it (hatf_reader_follow_stop: the rest is
 * read as a cut file, with the damage lines a plain open would give).
 *
 * The lists only grow: a thread keeps its place in r->th and its groups their
 * places in t->g (a group without its address chunk is dropped, with a
 * damage line, only once a later group of its thread is there), so the
 * iterators' cursors stay valid across a refresh (merge.c re-points them when
 * r->th moves).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "container_internal.h"

#define LLU(x) ((unsigned long long)(x))

/* Threads' lists after a scan: drop a group without its address chunk when
 * it can no longer get one (a later group of its thread came, or the follow
 * has ended), count the events of the groups ready to read, list the
 * threads. Threads keep their places. @return 0 or HATF_E_NOMEM. */
static int settle(hatf_reader *r)
{
    uint64_t *ids = realloc(r->thread_ids, (r->nth ? r->nth : 1) * sizeof *ids);
    if (!ids) return HATF_E_NOMEM;
    r->thread_ids = ids;
    r->events = 0;
    for (size_t i = 0; i < r->nth; i++) {
        hatf_rthread *t = &r->th[i];
        hatf_thread_drop_unpaired_(r, t);
        r->events += t->events;
        ids[i] = t->thread;
    }
    return 0;
}

/* The scan met the index chunk at r->index_off: is the trailer after it
 * whole? @return 1 complete (counters read), 0 not yet, -1 the end is
 * damaged (the follow ends with a damage line). */
static int read_end(hatf_reader *r)
{
    uint8_t hb[HATF_CK_HDR], tr[HATF_TRAILER_LEN];
    hatf_chunk_hdr h;
    if (hatf_read_at_(r->fd, hb, sizeof hb, r->index_off) != 0 || hatf_ck_hdr_unpack(hb, &h) != 0) return -1;
    uint64_t toff = r->index_off + HATF_CK_HDR + h.stored_len;
    if (r->size < toff + HATF_TRAILER_LEN) return 0;
    if (hatf_read_at_(r->fd, tr, sizeof tr, toff) != 0 || memcmp(tr + 24, HATF_TRAILER_MAGIC, 8) != 0 ||
        hatf_load_le32(tr + 16) != hatf_trailer_check(tr) || hatf_load_le64(tr) != r->index_off) {
        hatf_reader_add_damage_(r, "offset %llu: trailer damaged", LLU(toff));
        return -1;
    }
    hatf_buf raw;
    hatf_buf_init(&raw);
    hatf_err e = { 0 };
    int rc = 1;
    if (hatf_load_payload_(r, r->index_off, &h, &raw, &e) != 0 || raw.len < 32) {
        hatf_reader_add_damage_(r, "offset %llu: index unusable (%s); chunks scanned instead", LLU(r->index_off),
                                e.code ? e.msg : "index too short");
        rc = -1;
    } else {
        r->counters.events = hatf_load_le64(raw.p);
        r->counters.dropped = hatf_load_le64(raw.p + 8);
        r->counters.ring_waits = hatf_load_le64(raw.p + 16);
    }
    hatf_buf_free(&raw);
    return rc;
}

/* The follow is over: the lists as a plain open leaves them. */
static int end_follow(hatf_reader *r, int complete)
{
    r->following = 0;
    r->complete = complete;
    int rc = settle(r);
    if (!rc && hatf_stacktab_finish_(r) != 0) rc = HATF_E_NOMEM;
    if (!complete)
        hatf_reader_add_damage_(r, "offset %llu: index missing: file ended without a trailer", LLU(r->size));
    return rc;
}

/* Scan what the file gained. @return 1 when it grew, 0 when not, or a
 * negative code. */
static int take_more(hatf_reader *r)
{
    struct stat st;
    if (fstat(r->fd, &st) != 0) return HATF_E_IO;
    uint64_t size = (uint64_t)st.st_size;
    if (size < r->size) {  /* truncated under us: read as it was */
        hatf_reader_add_damage_(r, "offset %llu: file shrank to %llu bytes while followed", LLU(r->size), LLU(size));
        int rc = end_follow(r, 0);
        return rc ? rc : 1;
    }
    int grew = size > r->size;
    r->size = size;
    if (!r->index_off) {
        int rc = hatf_reader_scan_(r);
        if (rc) return rc;
    }
    if (r->index_off) {
        int end = read_end(r);
        if (end != 0) {
            int rc = end_follow(r, end > 0);
            return rc ? rc : 1;
        }
    }
    int rc = settle(r);
    return rc ? rc : grew;
}

HATF_API hatf_reader *hatf_reader_open_follow(const char *path, hatf_err *err)
{
    hatf_reader *r = hatf_reader_open_(path, 1, err);
    if (!r || !r->following) return r;
    int rc = take_more(r);
    if (rc < 0) {
        hatf_err_set(err, rc, 0, "%s", rc == HATF_E_NOMEM ? "out of memory" : "cannot stat");
        hatf_reader_close(r);
        return NULL;
    }
    return r;
}

HATF_API int hatf_reader_follow(hatf_reader *r)
{
    if (!r->following) return 0;
    return take_more(r);
}

HATF_API int hatf_reader_following(const hatf_reader *r) { return r->following; }

HATF_API int hatf_reader_follow_stop(hatf_reader *r)
{
    if (!r->following) return 0;
    struct stat st;
    if (fstat(r->fd, &st) == 0 && (uint64_t)st.st_size >= r->size) r->size = (uint64_t)st.st_size;
    r->following = 0;
    /* the rest as a plain scan reads it: a cut chunk is said */
    int rc = r->index_off ? 0 : hatf_reader_scan_(r);
    r->following = 1;
    return rc ? rc : end_follow(r, 0);
}

HATF_API uint64_t hatf_reader_follow_late(const hatf_reader *r) { return r->follow_late; }
