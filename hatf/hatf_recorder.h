/* hatf_recorder.h — the recorder's private interface to libhatf's writer (not
 * installed): what preload/ calls beyond the public hatf_container.h, the
 * helper thread's job queue and the recorder's flush in steps (defined in
 * container_jobs.c and container_write.c; container_jobs.h says how the
 * queue works). The only libhatf header the recorder includes; the names end
 * in _ (libhatf's internals) and are hidden in libhatf.so: the recorder links
 * libhatf.a. It brings hatf_check.h with it (HATF_PRE, the contract check).
 */
#ifndef HATF_RECORDER_H
#define HATF_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "hatf.h"
#include "hatf_check.h"

typedef struct hatf_jobq hatf_jobq;
struct hatf_writer;

/* The recorder's events as its rings hold them: a stream of 16-byte units
 * (two words). The first word of an event is tk = time << HATF_RAW_TIME_SHIFT
 * | HATF_RAW_SHORT if short | its low byte: a function code (HATF_FN_MALLOC,
 * _REALLOC or _FREE in a plain event) and the recorder's flags (0 in a plain
 * event).
 *   short, 1 unit: a malloc or a free, the second word addr | size << 48
 *          (a free's size 0), a realloc of NULL, result | size << 48, or a
 *          calloc of small counts, result | nmemb << 48 | elsize << 56
 *          (hatf_raw_short): nearly every event of a program, in 16 bytes
 *   long, 3 units: the words tk, a, b, c, d and one unused; plain ones are
 *          malloc: a result, b size; calloc: a result, b nmemb, c elsize;
 *          free: a pointer; realloc: a old, b size, c result, d its begin
 *          (HATF_RAW_RELEASE_BIT) (preload/recorder.h has the others) */
#define HATF_RAW_TIME_SHIFT 9
#define HATF_RAW_SHORT 0x100u
#define HATF_RAW_UNIT_WORDS 2
#define HATF_RAW_LONG_UNITS 3
#define HATF_RAW_ADDR_BITS 48
#define HATF_PLAIN_FNS (1u << HATF_FN_MALLOC | 1u << HATF_FN_CALLOC | 1u << HATF_FN_REALLOC | 1u << HATF_FN_FREE)
/* A realloc's d (with no HT_HEAP flag) carries, beside a stack id in bits
 * 0..30, the time its call began (when its old block may already be given
 * back, so reused by another thread before the call returns and is stamped):
 * bit 31 set, bits 32..63 the low 32 bits of that time in the raw clock. The
 * writer stores the difference as the realloc's release lead (hatf_event,
 * docs/format-container.md "Release section"); a begin more than 2^31 ticks
 * before the stamp (or after it) gives no lead. */
#define HATF_RAW_RELEASE_BIT (1ull << 31)
static inline uint64_t hatf_raw_release_d(uint64_t begin) { return HATF_RAW_RELEASE_BIT | begin << 32; }
/* The lead of a realloc stamped at time (raw clock) with d. */
static inline uint64_t hatf_raw_release_lead(uint64_t time, uint64_t d)
{
    if (!(d & HATF_RAW_RELEASE_BIT)) return 0;
    uint32_t lead = (uint32_t)time - (uint32_t)(d >> 32);
    return lead < 1u << 31 && lead <= time ? lead : 0;
}
/* A plain call (low: its tk's low byte, a function code and no flag; a..d
 * as a long event holds them) as a short event: a malloc or a free, or a
 * realloc of NULL (most of lua's and a fifth of python's events), with an
 * address under 2^48 and a size under 2^16; or a calloc whose count and
 * element size are both under 2^8 (a third of perl's events). @return 1 and
 * *word, the short event's second word, or 0 when it must be long. */
static inline __attribute__((always_inline)) int hatf_raw_short(unsigned low, uint64_t a, uint64_t b, uint64_t c,
                                                                uint64_t d, uint64_t *word)
{
    if ((low == HATF_FN_MALLOC || low == HATF_FN_FREE) && !c && !d && !(a >> HATF_RAW_ADDR_BITS) && b < 1u << 16) {
        *word = a | b << HATF_RAW_ADDR_BITS;
        return 1;
    }
    if (low == HATF_FN_REALLOC && !a && !d && !(c >> HATF_RAW_ADDR_BITS) && b < 1u << 16) {
        *word = c | b << HATF_RAW_ADDR_BITS;
        return 1;
    }
    if (low == HATF_FN_CALLOC && !d && !(a >> HATF_RAW_ADDR_BITS) && b < 1u << 8 && c < 1u << 8) {
        *word = a | b << HATF_RAW_ADDR_BITS | c << (HATF_RAW_ADDR_BITS + 8);
        return 1;
    }
    return 0;
}
/* Whether the plain event whose first word is tk is a calloc, short or long. */
static inline int hatf_raw_calloc(uint64_t tk) { return ((unsigned)tk & 0xffu) == HATF_FN_CALLOC; }
/* A plain calloc's count (the event's units at x, short or long). */
static inline uint64_t hatf_raw_calloc_nmemb(const uint64_t *x)
{
    return x[0] & HATF_RAW_SHORT ? x[1] >> HATF_RAW_ADDR_BITS & 0xffu : x[2];
}
static inline size_t hatf_raw_units(uint64_t tk) { return tk & HATF_RAW_SHORT ? 1 : HATF_RAW_LONG_UNITS; }
static inline int hatf_raw_plain(uint64_t tk)
{
    unsigned low = (unsigned)tk & 0x1ffu;
    return (low & HATF_RAW_SHORT) || (low < 32 && (HATF_PLAIN_FNS >> low & 1));
}

/* hatf_writer_add for thread's events in the units at raw while they are
 * plain (what hatf_writer_add would write for them as hatf_events of op,
 * size, addr, new_addr, thread, time tk >> HATF_RAW_TIME_SHIFT and no
 * attribute but a calloc's func and nmemb, as the flusher converts one
 * (hatf_attrs_encode), coded in one pass, container_plain.h). pre, not checked (it
 * would take a pass over the units): every event that starts in the units
 * units is whole at raw (it may end past them).
 * @return the units it took, *events the events in them (the first event
 * that is not plain is the caller's), or a negative code (the writer
 * failed). */
long hatf_writer_add_plain_(struct hatf_writer *w, uint64_t thread, const uint64_t *raw, size_t units,
                            size_t *events);
/* The thread a batch of comments alone goes with from now on (hatf_writer_add
 * puts them with the thread of the batch before): the recorder's comments
 * come from a thread's ring, and stay with that thread. */
void hatf_writer_comment_thread_(struct hatf_writer *w, uint64_t thread);

/* Make w defer group encoding to a helper, with nslots slots (at least 1).
 * @return the queue, holding one reference for the helper, which passes it
 * to hatf_jobq_run_ (or drops it with hatf_jobq_release_ if it cannot run);
 * NULL if w already defers, failed, or out of memory (w stays as it was). */
hatf_jobq *hatf_writer_defer_(struct hatf_writer *w, unsigned nslots);

/* The helper's loop: encode queued groups until the writer closes, then drop
 * the reference (the last one frees the queue). pause, if not NULL, is
 * called between slices of the work. */
void hatf_jobq_run_(hatf_jobq *q, void (*pause)(void));
void hatf_jobq_release_(hatf_jobq *q);

/* Groups the helper encoded, groups the writer encoded itself (taken over
 * or with no free slot), and of those the ones the helper was encoding too,
 * since the writer deferred. */
void hatf_writer_defer_counts_(const struct hatf_writer *w, uint64_t *by_helper, uint64_t *by_writer,
                               uint64_t *twice);

/* How the groups begun from now on are coded, the recorder's choice of
 * effort per group (hatf_group_encode). */
enum hatf_coding_ {
    HATF_CODING_FULL_ = 0,    /* the address model and zstd: the smallest, the most CPU */
    HATF_CODING_PACKED_ = 1,  /* fast, its chunks packed by zstd at HATF_PACK_LEVEL */
    HATF_CODING_STORED_ = 2   /* fast, stored: the least CPU */
    /* a fast group is coded by the writer itself, after every group queued before it */
};
void hatf_writer_set_coding_(struct hatf_writer *w, enum hatf_coding_ coding);
/* The groups sealed fast so far, their events, and of those the events stored unpacked. */
void hatf_writer_fast_counts_(const struct hatf_writer *w, uint64_t *groups, uint64_t *events, uint64_t *stored);
/* A writer whose time_res_ns is above 1 us (hatf_order_wanted) keeps the
 * order of the uses of an address by two threads in one unit
 * (hatf/container/container_order.h) when given every thread's events in time order:
 * the events it saw, those it gave a 1 us time, and those given late (their
 * later use by another thread may be out of order). */
#define HATF_ORDER_RES_NS 1000u  /* such a writer's unit, and the time of those events, in ns */
static inline int hatf_order_wanted(uint64_t res_ns) { return res_ns > HATF_ORDER_RES_NS; }
void hatf_writer_order_counts_(const struct hatf_writer *w, uint64_t *events, uint64_t *marked, uint64_t *late);

/* The recorder's flush with a helper, in steps that leave the flusher free
 * to drain rings between groups: hatf_writer_seal_ queues every pending
 * group (and writes finished ones and the tables) and makes every group
 * sealed so far due; hatf_writer_write_due_ writes finished groups and
 * encodes at most one due group the helper has not finished (not one it
 * began less than 5 ms ago: it will be done soon).
 * @return <0 an error (the writer failed), else for write_due 1 if due
 * groups remain (call again soon), 0 if none. Without a helper, seal is
 * hatf_writer_flush and write_due does nothing. */
int hatf_writer_seal_(struct hatf_writer *w);
int hatf_writer_write_due_(struct hatf_writer *w);

#endif
