/* container_internal.h — the reader's state, shared by container_read.c
 * (opening, scanning, the per-thread cursor) and merge.c (the iterators). */
#ifndef HATF_CONTAINER_INTERNAL_H
#define HATF_CONTAINER_INTERNAL_H

#include <zstd.h>

#include "hatf_container.h"
#include "container_format.h"
#include "container_addr.h"

/* A chunk group: one records chunk and its address chunk. */
typedef struct hatf_rgroup {
    uint64_t roff, aoff;      /* file offsets of the two chunk headers (aoff 0: none yet) */
    hatf_chunk_hdr rh, ah;
} hatf_rgroup;

typedef struct hatf_rthread {
    uint64_t thread;
    hatf_rgroup *g;
    size_t ng, cap;
    uint64_t events;
} hatf_rthread;

typedef struct hatf_name { uint64_t id; char *name; } hatf_name;

struct hatf_reader {
    int fd;
    uint64_t size;            /* file length at open */
    uint64_t data_start;      /* first chunk offset */
    hatf_info info;
    hatf_counters counters;
    int complete;
    int verified;             /* every listed chunk's payload was checked at open */
    char **damage;
    size_t ndamage, cap_damage;
    hatf_rthread *th;
    size_t nth, cap_th;
    uint64_t *thread_ids;
    uint64_t events;
    hatf_name *tnames, *hnames;
    size_t ntn, nhn;
    ZSTD_DCtx *dctx;
    hatf_buf io;              /* stored payload being read */
};

/* One thread's events, a chunk group at a time (memory: one decoded group). */
typedef struct hatf_cursor {
    hatf_reader *r;
    const hatf_rthread *t;
    size_t gi;                /* next group to load */
    uint32_t left;            /* events left in the loaded group */
    int loaded;               /* a group is loaded and consistent so far */
    hatf_buf rec, adr;
    hatf1_decoder dec;
    const uint8_t *ap, *aend;
    hatf_amodel am;
    uint64_t chunk_off;       /* records chunk of the loaded group */
    uint64_t key;             /* merge time: the event's, or for a comment the last one's */
    hatf_event ev;            /* current event (global iterator) */
    hatf_err err;
} hatf_cursor;

void hatf_cursor_init(hatf_cursor *c, hatf_reader *r, const hatf_rthread *t);
void hatf_cursor_free(hatf_cursor *c);
/* Out-of-line parts of hatf_cursor_next: load the next group, report damage. */
int hatf_cursor_next_slow_(hatf_cursor *c, hatf_event *ev);
int hatf_cursor_bad_(hatf_cursor *c, int rc);

/* @return 1 with *ev, 0 at the end, negative on damage (message in c->err;
 * the next call goes on with the next group). */
static inline int hatf_cursor_next(hatf_cursor *c, hatf_event *ev)
{
    if (__builtin_expect(c->left == 0, 0)) return hatf_cursor_next_slow_(c, ev);
    int rc = hatf1_decode(&c->dec, ev);
    if (__builtin_expect(rc != 1, 0)) return hatf_cursor_bad_(c, rc);
    if (__builtin_expect(hatf_adec_event(&c->am, ev, &c->ap, c->aend) != 0, 0))
        return hatf_cursor_bad_(c, HATF_E_CORRUPT);
    c->left--;
    return 1;
}

/* Append a damage line (printf-style). */
void hatf_reader_add_damage_(hatf_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* HATF_CONTAINER_INTERNAL_H */
