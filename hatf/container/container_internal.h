/* container_internal.h — the reader's state, shared by container_read.c
 * (opening, scanning, the per-thread cursor) and merge.c (the iterators). */
#ifndef HATF_CONTAINER_INTERNAL_H
#define HATF_CONTAINER_INTERNAL_H

#include <zstd.h>

#include "hatf_container.h"
#include "container_format.h"
#include "container_addr.h"
#include "addrmap.h"
#include "hatf1/hatf1_internal.h"
#include "container_stream.h"

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

/* Names of threads or heaps: id -> its name (the a of its entry: an index
 * into s), the last one given for an id winning. */
typedef struct hatf_names { addrmap ids; char **s; size_t n, cap; } hatf_names;

/* The tables a reader keeps (names, stacks, modules, symbols, resident
 * samples), reckoned at HATF_TAB_ENTRY_COST bytes an entry plus its bytes,
 * and 8 for each frame of a stack (a frame of one byte is kept in 8), at most
 * HATF_TABLES_KEEP_MAX; and
 * tables chunks of at most HATF_TABLES_RAW_MAX raw bytes in all are read.
 * Past either, the rest is ignored, with a damage line: a small file of
 * zstd frames that each expand to 64 MiB cannot make a reader keep gigabytes
 * or spend minutes. A trace with call stacks of a large program holds a few
 * MB of tables. */
#define HATF_TABLES_KEEP_MAX (64u << 20)
#define HATF_TABLES_RAW_MAX (128u << 20)
#define HATF_TAB_ENTRY_COST 96

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
    addrmap damage_seen;      /* hash of each damage line -> its index (the a), to say each once */
    hatf_rthread *th;
    size_t nth, cap_th;
    addrmap th_map;           /* thread id -> its index into th (the entry's a) */
    uint64_t *thread_ids;
    uint64_t events;
    hatf_names tnames, hnames;
    uint64_t tables_kept;     /* bytes the tables' entries kept so far take, as reckoned above */
    uint64_t tables_raw;      /* raw bytes of the tables chunks read */
    int tables_full;          /* a cap was reached: the rest of the tables is ignored */
    struct hatf_stacktab *stk; /* stacks, modules, symbols (container_tables.c), or NULL */
    unsigned stack_depth;     /* the recording's stack depth limit (a table entry), 0: not said */
    hatf_resident *res;       /* resident memory samples (table entries) */
    size_t nres, capres;
    int res_unsorted;
    ZSTD_DCtx *dctx;
    hatf_buf io;              /* stored payload being read */
    struct hatf_ahead *ahead; /* chunk groups decoded ahead on other threads (source_jobs.h), or NULL */
    /* hatf_reader_open_follow (container_follow.c): a file still being written */
    int following;            /* 1 until the trailer is read or the follow is stopped */
    uint64_t scan_pos;        /* the next chunk to take when the file grows */
    uint64_t index_off;       /* the index chunk the scan met, 0: none yet */
    uint64_t follow_late;     /* events of threads that came after later events went out (merge.c) */
    uint32_t models;          /* address models the merge's cursors hold (HATF_MODELS_KEEP) */
    uint32_t open;            /* the merge's cursors with more of a group to hand out (HATF_OPEN_MAX) */
    int open_said;            /* the HATF_OPEN_MAX damage line is out */
};

/* The merge's cursors each hold an address model (~70 KB) while their
 * thread's group is being decoded. Past HATF_MODELS_KEEP of them, a cursor
 * gives its model back as soon as its group is decoded, not at its thread's
 * end: a file whose threads' groups all overlap in time then costs ~3 KB a
 * thread, not ~80 KB.
 * A cursor is in the middle of a group while the group has batches (or
 * damage) to hand out after the one it handed out last, whoever decoded it;
 * it holds the group's model or decoded events. With HATF_OPEN_MAX cursors
 * there, a cursor's next group is skipped, with one damage line for the
 * file: only groups of more than a batch each (HATF_CURSOR_BATCH events), on
 * that many threads, all overlapping in time, get there (~95 KB each with
 * the batch: 190 MB). The same groups are skipped whatever the number of
 * decoding threads. */
#define HATF_MODELS_KEEP 256u
#define HATF_OPEN_MAX 2048u

/* Events decoded per refill of a cursor: enough to amortise the refill, few
 * enough that the array (72 bytes an event) stays in the L1 cache. */
#define HATF_CURSOR_BATCH 256

/* One thread's events, a chunk group at a time (memory: one decoded group).
 * Records and addresses are decoded HATF_CURSOR_BATCH events at a time into
 * evs; the iterators hand out evs[i..n). */
/* Where a loaded group went bad. */
enum { HATF_BAD_RECORDS = 0, HATF_BAD_ADDRS = 1, HATF_BAD_TIMES = 2, HATF_BAD_LEADS = 3 };

typedef struct hatf_cursor {
    hatf_reader *r;
    const hatf_rthread *t;
    size_t gi;                /* next group to load */
    uint32_t left;            /* events of the loaded group not yet decoded */
    int loaded;               /* a group is loaded and consistent so far */
    hatf_buf rec, adr;
    hatf_zpay zr, za;         /* how much of rec and adr is there yet (container_stream.h) */
    hatf1_decoder *dec;       /* these three from its first group on, freed at its end */
    const uint8_t *ap, *aend;
    const uint8_t *tp, *tend; /* the time section (records coding 1), else tp NULL */
    const uint8_t *lp, *lend; /* the release section (records coding 2), else lp NULL */
    uint64_t t_cur;           /* its current run's time and the events left in the run */
    uint64_t t_left;
    hatf_amodel *am;
    uint64_t chunk_off;       /* records chunk of the loaded group */
    hatf_event *evs;          /* HATF_CURSOR_BATCH decoded events (NULL before the first) */
    uint32_t i, n;            /* next event to hand out, events in evs */
    int pend;                 /* damage found right after evs[n - 1]: its code, else 0 */
    int pend_where;           /* ... and where: a HATF_BAD_* */
    uint64_t key;             /* merge time of evs[i] (a comment: of the event before it) */
    int isa;                  /* instructions the address decoder uses (HATF_ADEC_*) */
    hatf_err err;
    ZSTD_DCtx *dctx;          /* the reader's, or a decoding thread's own (source_jobs.c) */
    hatf_buf *io;             /* ... and its buffer for stored payloads */
    int worker;               /* a decoding thread's (source_jobs.c): damage goes to err only, not to
                               * the reader's lines, and it decodes every group itself */
    hatf_event *own_evs;      /* evs as allocated; evs points into a group decoded ahead while one is handed out */
    uint32_t own_cap;         /* events own_evs holds: a group's events up to HATF_CURSOR_BATCH */
    int open;                 /* in the middle of a group: counted in r->open (HATF_OPEN_MAX) */
    struct hatf_ahead_group *ahead; /* the group decoded ahead being handed out, or NULL */
    /* a following reader (merge.c): the cursor cannot go on before more of the
     * file is read (its thread's next group is not there yet); key is then the
     * least key its next event can have, sorted before other cursors' equal
     * keys, and wait_prev the key it had */
    int waiting;
    uint64_t wait_prev;
    uint8_t last_op;          /* the op of the last event handed out */
    uint8_t noted;            /* its head is a realloc that released early, noted in the merge's list (merge.c) */
    uint8_t promoted;         /* key was lowered to put its head before a reuse of its old block (merge.c) */
} hatf_cursor;

/* A cursor takes no memory of its own until its thread's first group is
 * loaded, and gives back its buffers, decoder and address model once its
 * last group is done (not a decoding thread's, nor while following): a
 * reader's memory follows the threads whose groups overlap in time, not the
 * threads ever created (~78 KB each before).
 * @return 0, or HATF_E_NOMEM (then still call hatf_cursor_free). */
int hatf_cursor_init(hatf_cursor *c, hatf_reader *r, const hatf_rthread *t);
void hatf_cursor_free(hatf_cursor *c);
/* Refill evs once evs[i..n) is used up: report damage pending from the last
 * refill, decode the next batch, loading the next group when one ends.
 * pre: c->i == c->n.
 * @return events now in evs[0..n) (> 0, i = 0), 0 at the end, or a negative
 * code on damage (message in c->err, a damage line added; the next call goes
 * on with the next group). Either way the events handed out before stay valid
 * until the next refill, their data until a group is loaded. */
int hatf_cursor_fill_(hatf_cursor *c);

/* Has the cursor's group more to hand out after its last batch (HATF_OPEN_MAX;
 * a decoding thread's cursor is not counted)? */
void hatf_cursor_open_(hatf_cursor *c, int more);

/* Read a chunk's stored payload into io and check it against its header's
 * hash. @return 0 or a negative code with a message in err. */
int hatf_read_stored_(hatf_reader *r, hatf_buf *io, uint64_t off, const hatf_chunk_hdr *h, hatf_err *err);
/* "records", "address", ... for messages. */
const char *hatf_kind_name_(unsigned kind);

/* Read, check and decompress a chunk's payload into out, with dctx and the
 * buffer io for the stored bytes (the reader's, or a decoding thread's own:
 * r is only read). @return 0 or a negative code with a message in err. */
int hatf_load_payload_with_(hatf_reader *r, ZSTD_DCtx *dctx, hatf_buf *io, uint64_t off, const hatf_chunk_hdr *h,
                            hatf_buf *out, hatf_err *err);

/* merge.c: have the global iterator call fn(ctx, evs, n) with each batch of
 * events a thread's cursor decodes, before any of them is handed out (fn NULL:
 * none). For a reader that prefetches what it will look up per event: with
 * threads interleaved, the batches are where it can see ahead of the merge. */
typedef void (*hatf_iter_batch_fn)(void *ctx, const hatf_event *evs, size_t n);
void hatf_iter_on_batch_(hatf_iter *it, hatf_iter_batch_fn fn, void *ctx);

/* container_tables.c: the stack, module and symbol entries of the tables stream.
 * add: @return 0, HATF_E_CORRUPT if the entry is malformed, HATF_E_NOMEM (it is lost).
 * finish: sort for lookups and keep the first entry of each id, once the chunks
 * are scanned; @return 0 or HATF_E_NOMEM. free: forget them all. */
int hatf_stacktab_add_(hatf_reader *r, unsigned type, uint64_t id, const uint8_t *p, size_t n);
/* A resident-memory entry (container_tables.c). @return 0, HATF_E_CORRUPT or HATF_E_NOMEM. */
int hatf_resident_add_(hatf_reader *r, uint64_t time_ns, const uint8_t *p, size_t len);
int hatf_stacktab_finish_(hatf_reader *r);
/* A reader with no file, holding tables alone (the text form's table lines,
 * hatf/text/text_tables.c): fill it with these, then hatf_stacktab_finish_.
 * add: @return 0, HATF_E_CORRUPT or HATF_E_NOMEM, as hatf_stacktab_add_. */
hatf_reader *hatf_tables_new_(void);
int hatf_tables_stack_(hatf_reader *r, uint64_t id, const uint64_t *frames, size_t n);
int hatf_tables_module_(hatf_reader *r, const hatf_module *m);
int hatf_tables_symbol_(hatf_reader *r, const hatf_symbol *s);
int hatf_tables_resident_(hatf_reader *r, uint64_t time_ns, uint64_t bytes, uint64_t own);
void hatf_tables_stack_depth_(hatf_reader *r, unsigned depth);
void hatf_stacktab_free_(hatf_reader *r);

/* A NUL-terminated copy of n bytes (a table's name or path); NULL: no memory. */
char *hatf_strndup_(const uint8_t *p, size_t n);

/* container_read.c: scan the chunks from r->scan_pos (r->data_start at
 * open) to the end of the file as it is now, taking each intact one. While
 * r->following, a chunk the file does not hold whole yet, or a damaged header
 * with no intact chunk after it, ends the scan without a damage line (it may
 * be written still); r->scan_pos is then where the next scan starts, and an
 * index chunk met is noted in r->index_off. @return 0 or HATF_E_NOMEM. */
int hatf_reader_scan_(hatf_reader *r);
/* container_read.c: open path (hatf_reader_open); with follow, a file
 * without a usable index is not scanned: r->following is set and
 * container_follow.c scans it. @return NULL with *err set. */
hatf_reader *hatf_reader_open_(const char *path, int follow, hatf_err *err);
/* container_read.c: pread exactly n bytes. @return 0, or -1 (short or failed). */
int hatf_read_at_(int fd, void *p, size_t n, uint64_t off);
/* container_read.c: read, check and decode a chunk's payload into out.
 * @return 0 or a negative code with a message in err. */
int hatf_load_payload_(hatf_reader *r, uint64_t off, const hatf_chunk_hdr *h, hatf_buf *out, hatf_err *err);

/* Append a damage line (printf-style). */
void hatf_reader_add_damage_(hatf_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drop thread t's groups that have no address chunk and can no longer get
 * one (all of them; while following, all but its last), with a damage line
 * each; t->events: the events of the groups left that can be read. */
void hatf_thread_drop_unpaired_(hatf_reader *r, hatf_rthread *t);

#endif /* HATF_CONTAINER_INTERNAL_H */
