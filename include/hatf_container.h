/* hatf_container.h — hatrace's own trace file (the container).
 *
 * Byte layout: docs/format-container.md. In short: a self-describing header,
 * then append-only chunks, each naming its thread and stream, its sizes and a
 * checksum, each compressed on its own with zstd; an index and a trailer at
 * the end. Per thread there are two streams, HATF 1.0 records (with the
 * addresses split off) and the addresses, cut into chunk groups that decode
 * on their own; names, stacks and symbols go to a tables stream of the
 * process. A file cut off at any byte reads back every complete group.
 *
 * Thread safety: a writer or a reader is used by one thread at a time.
 */
#ifndef HATF_CONTAINER_H
#define HATF_CONTAINER_H

#include "hatf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HATF_CONTAINER_MAGIC "HATRACE\0"  /* 8 bytes at offset 0 */
#define HATF_CONTAINER_VERSION_MAJOR 1
#define HATF_CONTAINER_VERSION_MINOR 0

/* What the header describes. Strings are NUL-terminated, at most 4095 bytes. */
typedef struct hatf_info {
    uint32_t version_major, version_minor; /* filled by the reader */
    uint8_t address_bits;        /* 32 or 64 */
    uint8_t big_endian;          /* byte order of the traced machine */
    uint32_t pid, ppid;
    uint64_t start_realtime_ns;  /* CLOCK_REALTIME at start, ns since the epoch */
    uint64_t time_unit_ns_num;   /* event time unit = num/den ns (1/1 for ns) */
    uint64_t time_unit_ns_den;
    char clock[32];              /* e.g. "CLOCK_MONOTONIC" */
    char cmdline[4096];          /* arguments separated by single spaces */
    uint32_t flags;              /* HATF_INFO_* */
    char parent_trace[4096];     /* fork child: path of the parent's trace, else "" */
} hatf_info;

enum {
    HATF_INFO_FORKED = 1u << 0,   /* this process was forked from a traced parent */
    HATF_INFO_DROP_MODE = 1u << 1, /* the recorder may have dropped events (counted) */
    /* A release (free, realloc) may be stamped up to HATF_EARLY_RELEASE_NS before
     * the allocation of its object on another thread: readers put it after that
     * allocation (docs/format-container.md, "Time") */
    HATF_INFO_EARLY_RELEASE = 1u << 2,
    /* The recorder was attached to a running process (hatrace record -p): a
     * release of an address the trace never allocated is an object allocated
     * before tracing, not a problem */
    HATF_INFO_ATTACHED = 1u << 3
};
#define HATF_EARLY_RELEASE_NS 2000

/* Per-file counters a recorder reports (the writer stores them in the index). */
typedef struct hatf_counters {
    uint64_t events;          /* events written */
    uint64_t dropped;         /* events lost (drop mode, or tracer failure) */
    uint64_t ring_waits;      /* times a producer waited for the flusher */
} hatf_counters;

/* ---- writer -------------------------------------------------------------- */
typedef struct hatf_writer hatf_writer;

/* Events per chunk group when hatf_writer_opts.chunk_events is 0 (not best). */
#define HATF_CHUNK_EVENTS_DEFAULT 65536u

typedef struct hatf_writer_opts {
    int zstd_level;           /* default when 0: 3, 19 with best; negative levels allowed (fast) */
    size_t chunk_events;      /* events per chunk group (at most 2^20); when 0: HATF_CHUNK_EVENTS_DEFAULT, 2^20 with best */
    int best;                 /* 1: strongest settings (convert --best): slower */
    uint64_t time_res_ns;     /* 0: store event times as given; R > 0: convert them
                               * (with the info's time unit) to units of R ns, rounded
                               * down, never going back on a thread; the header's unit
                               * is then R/1 (readers order equal times by liveness) */
} hatf_writer_opts;

/* Take ownership of fd (already open for writing, positioned at 0) and write the
 * header. A regular file's blocks are then allocated ahead of the writes, 4 MiB
 * at a time past its first MiB (fallocate, the size kept: cheaper writes), and
 * what was not used is given back by hatf_writer_close.
 * @return the writer, or NULL with *err set. */
hatf_writer *hatf_writer_open_fd(int fd, const hatf_info *info,
                                 const hatf_writer_opts *opts, hatf_err *err);
/* Create path (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 unless overwrite) and open a writer. */
hatf_writer *hatf_writer_create(const char *path, int overwrite, const hatf_info *info,
                                const hatf_writer_opts *opts, hatf_err *err);

/* Record in the trace that the trace it is copied from had lost a part: one
 * line, what and how many events (a reader of the source's damage line, as
 * hatf_reader_damage gives it). A reader of this file then lists it among its
 * damage ("copied from a damaged or cut trace, which had lost: ..."), so a
 * conversion never hides a loss. Written with the names, at the next flush.
 * @return 0 or a negative HATF_E_* code. */
int hatf_writer_note_loss(hatf_writer *w, const char *line);

/* Append events of one thread stream (ev->thread is taken as given; all n
 * events must carry the same thread). Encodes into the thread's pending chunk
 * and writes chunks as they fill. Events of one thread must come in time order.
 * Comments carry no thread: they go with their batch's thread, and a batch of
 * comments alone with the thread of the batch before it, so a comment stays
 * after the event it followed.
 * @return 0 or a negative HATF_E_* code (then the writer is failed). */
int hatf_writer_add(hatf_writer *w, const hatf_event *ev, size_t n);

/* Record a name for a thread or a heap (written to the tables stream). */
int hatf_writer_name_thread(hatf_writer *w, uint64_t thread, const char *name);
int hatf_writer_name_heap(hatf_writer *w, uint64_t heap, const char *name);

/* ---- call stacks and symbols (tables stream) ------------------------------
 * An event's HATF_A_STACK attribute names a stack: its frames (return
 * addresses, innermost first). Modules give the load map (what was mapped
 * where, with the ELF build id), symbols the function of each frame address,
 * so a trace reads on another machine. Strings are copied. */
#define HATF_STACK_MAX 256    /* frames per stack; more are cut */
#define HATF_BUILD_ID_MAX 32

typedef struct hatf_module {
    uint64_t id;              /* dense, from 1 */
    uint64_t start, end;      /* address range [start, end) of its mappings */
    uint64_t bias;            /* load bias: address - bias = the ELF file's vaddr */
    uint8_t build_id[HATF_BUILD_ID_MAX];
    uint32_t build_id_len;    /* 0: none found */
    const char *path;         /* "" for the main program when unknown */
} hatf_module;

typedef struct hatf_symbol {
    uint64_t addr;            /* a frame address */
    uint64_t module;          /* hatf_module.id, 0 if in no known module */
    uint64_t offset;          /* addr - the function's start (0 if name is "") */
    const char *name;         /* function name, "" when unresolved */
} hatf_symbol;

/* Store stack id (ids > 0) with n frames (cut at HATF_STACK_MAX), a module,
 * a symbol. Each is written once per call: callers dedup. @return 0 or a
 * negative code (then the writer is failed). */
int hatf_writer_stack(hatf_writer *w, uint64_t id, const uint64_t *frames, size_t n);
int hatf_writer_module(hatf_writer *w, const hatf_module *m);
int hatf_writer_symbol(hatf_writer *w, const hatf_symbol *s);
/* Say that stacks were taken with at most depth frames (cut at
 * HATF_STACK_MAX): a stack of depth frames may have been cut, its outermost
 * frame not the root of the call chain. Once per trace. @return 0 or a
 * negative code (then the writer is failed). */
int hatf_writer_stack_depth(hatf_writer *w, unsigned depth);

/* A sample of the traced process's resident memory: bytes resident time_ns
 * after the trace's start (the time of its events' zero), of which own bytes
 * are the recorder's (its rings; 0 when not known). The recorder gives one
 * per flush interval and one at the end; a run of samples equal to the one
 * before is written as its first and last only (the last at the latest when
 * the writer is closed). Readers give them back in time order
 * (hatf_reader_resident). @return 0 or a negative code (the writer is then failed). */
int hatf_writer_resident(hatf_writer *w, uint64_t time_ns, uint64_t bytes, uint64_t own);

/* Write every pending chunk (a writer following a live program calls it now
 * and then, so readers see recent events). */
int hatf_writer_flush(hatf_writer *w);

/* Flush, write the index (with counters, may be NULL) and the trailer, close fd
 * and free the writer. @return 0 or a negative code (the writer is freed anyway). */
int hatf_writer_close(hatf_writer *w, const hatf_counters *counters, hatf_err *err);

/* Bytes written so far (compressed), for reports. */
uint64_t hatf_writer_bytes(const hatf_writer *w);

/* ---- reader -------------------------------------------------------------- */
typedef struct hatf_reader hatf_reader;

/* Open and scan a container file. A file cut off or damaged after the header
 * still opens: every complete, intact chunk is readable and hatf_reader_damage()
 * describes what is missing. @return NULL with *err set when the file is not a
 * container, the header is damaged, or the major version is newer. */
hatf_reader *hatf_reader_open(const char *path, hatf_err *err);
void hatf_reader_close(hatf_reader *r);

/* ---- a trace that is still being written ----------------------------------
 * The recorder appends sealed chunk groups as it runs and writes the index
 * and trailer when it ends. A following reader reads what is sealed so far and
 * goes on from there when more arrives, as the OpenJ9 trace API's iterators
 * return nothing at the end and resume when more data is added:
 *
 *     hatf_reader *r = hatf_reader_open_follow(path, &err);
 *     hatf_iter *it = hatf_iter_global(r);
 *     for (;;) {
 *         while ((rc = hatf_iter_next(it, &ev)) > 0) use(&ev);
 *         if (rc < 0) ...;                      // damage, as for any reader
 *         if (!hatf_reader_following(r)) break; // the end: complete, or stopped
 *         sleep a while; hatf_reader_follow(r); // take in what was appended
 *     }
 *
 * While following, the iterators return 0 at the end of what is sealed
 * ("no more yet") and go on when called again after hatf_reader_follow found
 * more. A chunk the file does not hold whole yet, and a records chunk whose
 * address chunk has not come, are left for later, not reported as damage.
 * Time order across threads: the global iterator hands out an event only when
 * no thread can still bring an earlier or equal time: a thread whose next
 * group is not there yet holds the others back at the time of its last
 * sealed event (a thread that ended, its last event a thread-destroy, holds
 * nothing). So an idle thread holds the view back to its last event until
 * it makes another, or the trace ends. A thread the file has not shown yet
 * cannot be waited for: if its first group arrives after events of a later
 * time were handed out, its events come late (hatf_reader_follow_late counts
 * them); the recorder writes every thread's groups at each flush, so this is
 * rare. The names, stacks and resident samples of the tables grow as read;
 * stacks are sorted for hatf_reader_stack only once the follow has ended.
 * Once the follow has ended the reader is as hatf_reader_open leaves it
 * (hatf_reader_complete, the counters, the damage lines). */

/* Open a container that may still be being written. A complete file opens as
 * with hatf_reader_open (hatf_reader_following then says 0 at once).
 * @return NULL with *err set as hatf_reader_open. */
hatf_reader *hatf_reader_open_follow(const char *path, hatf_err *err);
/* Take in what the file gained since: new chunks, new threads; the index and
 * trailer end the follow. @return 1 when the file grew (or the follow ended),
 * 0 when it did not, or a negative code (HATF_E_NOMEM, HATF_E_IO). Does
 * nothing (0) once the follow has ended. */
int hatf_reader_follow(hatf_reader *r);
/* 1 while following: the writer has not finished and the follow was not stopped. */
int hatf_reader_following(const hatf_reader *r);
/* Stop following (the writer is gone, or the caller gives up): the rest is
 * read as a cut file, with the damage lines a plain open would give.
 * @return 0 or a negative code. */
int hatf_reader_follow_stop(hatf_reader *r);
/* Events that came late: those of the first group of a thread the file
 * showed only after its global iterator had handed out events of a later time
 * (0 in a trace read whole). */
uint64_t hatf_reader_follow_late(const hatf_reader *r);

const hatf_info *hatf_reader_info(const hatf_reader *r);
/* Counters from the index; all 0 when the index is missing. */
const hatf_counters *hatf_reader_counters(const hatf_reader *r);
/* 1 if the file ended cleanly with an index and trailer. */
int hatf_reader_complete(const hatf_reader *r);

/* Problems found while scanning (truncation, bad checksums, missing index),
 * one line each, in file order. @return count; *lines valid until close. */
size_t hatf_reader_damage(const hatf_reader *r, const char *const **lines);

/* Threads that have a records stream, in order of first appearance. */
size_t hatf_reader_threads(const hatf_reader *r, const uint64_t **threads);
/* Name given to a thread/heap, or NULL. */
const char *hatf_reader_thread_name(const hatf_reader *r, uint64_t thread);
const char *hatf_reader_heap_name(const hatf_reader *r, uint64_t heap);
/* Frames of stack id (innermost first). @return the count, 0 if unknown. */
size_t hatf_reader_stack(const hatf_reader *r, uint64_t id, const uint64_t **frames);
/* Number of stack ids stored (ids need not be dense in a damaged file). */
size_t hatf_reader_stack_count(const hatf_reader *r);
/* The i-th stored stack (i < hatf_reader_stack_count), in id order: *id and
 * *frames (innermost first). @return its frame count, 0 when i is past the end. */
size_t hatf_reader_stack_at(const hatf_reader *r, size_t i, uint64_t *id, const uint64_t **frames);
/* The most frames a stack was given when recording (hatf_writer_stack_depth):
 * a stack of that many frames may be cut. @return it, 0 when the trace does
 * not say (written before it did, or by another writer). */
unsigned hatf_reader_stack_depth(const hatf_reader *r);
/* The process's resident memory as sampled while recording
 * (hatf_writer_resident), in time order. @return the count, 0 when the trace
 * has none; *v valid until close. */
typedef struct hatf_resident {
    uint64_t time_ns;   /* since the trace's start */
    uint64_t bytes;     /* the process's resident bytes */
    uint64_t own;       /* of them (at most bytes), the recorder's own that it knew of (its rings, its heap blocks), 0: not said */
} hatf_resident;
size_t hatf_reader_resident(const hatf_reader *r, const hatf_resident **v);
/* The symbol stored for exactly this frame address, or NULL. */
const hatf_symbol *hatf_reader_symbol(const hatf_reader *r, uint64_t addr);
/* Modules of the load map, by id, one per id. @return count; *mods valid until close. */
size_t hatf_reader_modules(const hatf_reader *r, const hatf_module **mods);
/* Total events in intact chunks (from chunk headers, without decoding). */
uint64_t hatf_reader_event_count(const hatf_reader *r);
/* Chunk groups (a records chunk and its address chunk) in intact chunks, and
 * of them the ones coded fast (address coding 4 or 5, the recorder's default
 * coding; `hatrace convert` recodes them in full), with their
 * events. Any pointer may be NULL. */
void hatf_reader_coding(const hatf_reader *r, uint64_t *groups, uint64_t *fast_groups, uint64_t *fast_events);

/* Iterators. A thread iterator yields one thread's events in stream order;
 * the global iterator merges all threads by time (ties: events that give memory
 * back first, then lower thread, then stream order), like the OpenJ9 trace
 * formatter's two views.
 * hatf_iter_next @return 1 with *ev, 0 at the end, negative on a decode error
 * (message in hatf_iter_error). ev->data is valid until the next call. */
typedef struct hatf_iter hatf_iter;
hatf_iter *hatf_iter_thread(hatf_reader *r, uint64_t thread);
hatf_iter *hatf_iter_global(hatf_reader *r);
int hatf_iter_next(hatf_iter *it, hatf_event *ev);
/* The next events in order, without copying: *evs points at a run of them
 * (one thread's, consecutive in the iterator's order). Mixes freely with
 * hatf_iter_next. @return the run's length (> 0), 0 at the end, negative on
 * a decode error (message in hatf_iter_error; called again, the iterator goes
 * on after the damage). The events and their data are valid until the next
 * call on the iterator. */
int hatf_iter_next_batch(hatf_iter *it, const hatf_event **evs);
/* hatf_iter_next_batch without handing the run out: *evs points at the next
 * events, which stay next until hatf_iter_take(it, k) hands out the first k
 * of them (k above the run's length: all of it). The events are valid until
 * the next call on the iterator other than take. @return as
 * hatf_iter_next_batch. */
int hatf_iter_peek(hatf_iter *it, const hatf_event **evs);
void hatf_iter_take(hatf_iter *it, unsigned k);
/* Where the last event came from: file offset of its chunk, index within it. */
uint64_t hatf_iter_chunk_offset(const hatf_iter *it);
const hatf_err *hatf_iter_error(const hatf_iter *it);
void hatf_iter_free(hatf_iter *it);

#ifdef __cplusplus
}
#endif
#endif /* HATF_CONTAINER_H */
