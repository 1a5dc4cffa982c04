/* hatf_source.h — read events from a file of any format, in time order.
 *
 * The reading tools (dump, stats, validate, convert, replay) see traces only
 * through this interface. Formats: the container ("hatrace", recognised by its
 * magic), a raw HATF 1.0 stream ("hatf1.0"), the text form ("text") and
 * Meta-TF ("metatf", recognised by its magic; hatf_metatf.h).
 * Memory use is bounded by the file's chunk sizes and thread count, not its length.
 */
#ifndef HATF_SOURCE_H
#define HATF_SOURCE_H

#include "hatf.h"
#include "hatf_container.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hatf_format {
    HATF_FMT_AUTO = 0,     /* container if the magic matches, else an error asking for --from */
    HATF_FMT_CONTAINER,    /* "hatrace" */
    HATF_FMT_HATF1,        /* "hatf1.0" */
    HATF_FMT_TEXT,         /* "text" */
    HATF_FMT_METATF        /* "metatf": Meta-TF, read by its DTD (hatf_metatf.h); AUTO knows its magic */
} hatf_format;

/* "hatrace", "hatf1.0", "text", "metatf" -> format; @return -1 for anything else. */
int hatf_format_from_name(const char *name);
const char *hatf_format_name(hatf_format f);

/* The format a file's first n bytes name by their magic: HATF_FMT_CONTAINER,
 * HATF_FMT_METATF, HATF_FMT_TEXT (its first line), or HATF_FMT_AUTO for none
 * (a HATF 1.0 stream has no magic; fewer than HATF_FORMAT_HEAD bytes may
 * name none). hatf_source_open with AUTO opens the first two. */
#define HATF_FORMAT_HEAD 16
hatf_format hatf_format_of_head(const void *head, size_t n);

typedef struct hatf_source hatf_source;

/* Open path as format (AUTO: sniff the container's or Meta-TF's magic).
 * @return NULL with *err set (err->msg names the problem; callers prefix the path). */
hatf_source *hatf_source_open(const char *path, hatf_format fmt, hatf_err *err);
void hatf_source_close(hatf_source *s);

/* Open a container that may still be being written (hatf_reader_open_follow
 * in hatf_container.h says how a following reader reads). hatf_source_next
 * returns 0 at the end of what is sealed so far; after
 * hatf_reader_follow(hatf_source_container(s)) took in more, it goes on from
 * there. The end of the trace is the first 0 after
 * hatf_reader_following(hatf_source_container(s)) said 0. Events come in the
 * same order as hatf_source_open gives them once the file is complete
 * (equal times, early releases), but for a thread's late first group
 * (hatf_reader_follow_late). @return NULL with *err set. */
hatf_source *hatf_source_open_follow(const char *path, hatf_err *err);

hatf_format hatf_source_format(const hatf_source *s);
/* Container only (NULL otherwise): the reader, for info, names, damage. */
hatf_reader *hatf_source_container(hatf_source *s);
/* The trace's tables (stacks, load map, symbols, stack depth, resident
 * samples; hatf_reader_stack and the like read them): a container's reader,
 * or for the text form one holding its table lines (docs/format-text.md,
 * "Tables"; no events, names or damage); NULL when there are none. */
hatf_reader *hatf_source_tables(hatf_source *s);

/* The trace's header: a container's, or the one a text trace or a HATF 1.0
 * stream written by `hatrace dump`/`convert` carries (the '# container' line,
 * the mark's comment); NULL when there is none (another writer's stream). */
const hatf_info *hatf_source_info(hatf_source *s);

/* 1 for a HATF 1.0 stream of another writer (it does not start with
 * HATF1_HATRACE_MARK): its attribute bytes are opaque, HATF_ATTRS_FOREIGN. */
int hatf_source_foreign(const hatf_source *s);

/* Read a container on n threads (0: one per core this process may run on;
 * at most HATF_SOURCE_JOBS_MAX): n - 1 threads decode its chunk groups ahead
 * (read, check, decompress, decode), in the order the merge will want them,
 * into a bounded queue (a few groups per thread), while the calling thread
 * merges them by time as hatf_source_next always does. What the source
 * returns (events, their order, errors, damage lines, skips, order stats) is
 * the same for every n; only the time it takes changes. n 1 and the other
 * formats (a raw HATF 1.0 stream, the text form): the calling thread alone.
 * Call after open, before the first event is read; the threads end at close.
 * Thread safety: the source is still used by one thread at a time.
 * @return the threads now reading (1: the calling thread alone, also when
 * the threads could not be started, or a container has a single chunk
 * group), or HATF_E_USAGE when s is NULL or events were read already. */
#define HATF_SOURCE_JOBS_MAX 256
int hatf_source_jobs(hatf_source *s, unsigned n);

/* Next event in global time order (a raw HATF 1.0 stream and a text file are
 * read in file order). A container's events of equal time on different
 * threads come in an order consistent with address liveness where one exists
 * (docs/format-container.md, "Time"; hatf_source_order_stats). @return 1, 0 at the end, negative on error (then
 * hatf_source_error says what and where). ev->data valid until the next call. */
int hatf_source_next(hatf_source *s, hatf_event *ev);

/* A filter of the events a source gives (hatf_source_next, and so
 * hatf_source_read_columns): fn(ctx, ev) sees each event read, in order, may
 * change it in place (its data stays the source's), and @return 1 to give
 * it, 0 to pass over it, or a negative HATF_E_* code (the read fails with
 * it). Record numbers and offsets (hatf_source_record, _offset) stay those of
 * the file. done(ctx), when not NULL, is called when the filter is replaced
 * or the source closed. fn NULL: no filter (the default). */
typedef int (*hatf_source_filter_fn)(void *ctx, hatf_event *ev);
void hatf_source_filter(hatf_source *s, hatf_source_filter_fn fn, void (*done)(void *ctx), void *ctx);

/* ---- many events as columns, in one call ----------------------------------
 * For readers that want the events as data (hatrace convert --to csv, the
 * Python package's arrays): each event is one row of fixed columns, written
 * into arrays the caller owns, so a caller pays one call per batch instead of
 * one per event. Row i of a column is at (char *)column + i * stride (stride
 * 0: the column's own element size, packed arrays); any column may be NULL
 * (not wanted). With one stride for all, the columns can be the fields of an
 * array of structs (a NumPy structured array); no store is assumed aligned.
 *
 * What a row holds (docs/tools.md, "convert --to csv"):
 *   time         the event's time in the trace's time unit (0 for a comment,
 *                which has no time of its own)
 *   time_ns      time * the time unit (hatf_source_info's num/den; 1 ns when
 *                the trace has no header), rounded down
 *   thread, heap as in the event (0 for a comment)
 *   op           hatf_op (hatf_op_name names it)
 *   size         the size asked for (alloc, realloc), else 0
 *   address      the object the event is about: the one an alloc or a
 *                realloc made (0: none, as a failed call or realloc-free),
 *                the one a free ended (0: free(NULL)); else 0
 *   old_address  a realloc's old block (0 for realloc-new), else 0
 *   function     the call that made the event, a hatf_func code: its func
 *                attribute, or without one the plain call (hatf_plain_func:
 *                malloc, free, realloc), as stats counts functions; 0 for
 *                the other ops, HATF_COLUMNS_FN_OTHER for a code this
 *                library does not know (0 included), as stats' "(other)"
 *   stack        the stack attribute's id, 0 when none
 *   failed       1 if the call failed (hatf_event_failed), else 0
 * A comment noting one of the program's own mappings (hatf_map_parse) gets
 * its fields: function HATF_COLUMNS_FN_MMAP (address, size: the mapping),
 * _MUNMAP (the same), _MREMAP (address and size the new mapping,
 * old_address the old one), _BRK or _BRK_SHRINK (size: the bytes the break
 * grew or shrank by). */
#define HATF_COLUMNS_FN_MMAP 250
#define HATF_COLUMNS_FN_MUNMAP 251
#define HATF_COLUMNS_FN_MREMAP 252
#define HATF_COLUMNS_FN_BRK 253
#define HATF_COLUMNS_FN_BRK_SHRINK 254
#define HATF_COLUMNS_FN_OTHER 255
/* The function column's code as convert --to csv names it: "" (0), a
 * hatf_func_name, "mmap", "munmap", "mremap", "brk", "brk-shrink",
 * "(other)"; NULL for a code no column holds. */
const char *hatf_columns_function_name(unsigned code);

typedef struct hatf_columns {
    size_t stride;          /* bytes from a row to the next, or 0: packed */
    uint64_t *time, *time_ns, *thread, *heap, *size, *address, *old_address, *stack;
    uint8_t *op, *function, *failed;
} hatf_columns;

/* Up to max next events of s (as hatf_source_next reads them, in the same
 * order) into rows 0..n-1 of c's columns, which must have room for max rows.
 * @return n (> 0), 0 at the end, or a negative HATF_E_* code when an error
 * comes before any event (hatf_source_error says what and where); events
 * before an error are returned first and the next call returns the error.
 * HATF_E_USAGE when s or c is NULL or max is 0. max above INT_MAX counts as INT_MAX.
 * Damaged chunk groups are passed over as hatf_source_next does under
 * hatf_source_read_on. Thread safety: as the source, one thread at a time. */
int hatf_source_read_columns(hatf_source *s, const hatf_columns *c, size_t max);

/* Read on past a container's damaged chunk groups (checksum, truncation):
 * hatf_source_next passes each over, noting it (hatf_source_skips), instead
 * of failing on it. Off by default; the hatrace commands turn it on unless
 * given --strict. */
void hatf_source_read_on(hatf_source *s, int on);
/* The damaged chunk groups passed over so far, one line each, as the error
 * would have said it ("offset N: ...; K events of thread T skipped").
 * @return the count; *lines valid until close. */
size_t hatf_source_skips(const hatf_source *s, const char *const **lines);

/* After hatf_source_next failed on a container's damaged chunk group (checksum,
 * truncation): go on with the events after it (validate reports the damage and
 * keeps checking). @return 0, or the error again when the source cannot go on
 * (a raw HATF 1.0 stream, the text form, an I/O or memory error). */
int hatf_source_resume(hatf_source *s);

/* The next events without copying them: *evs points at n of them, in
 * hatf_source_next's order, *first the record number of the first (as
 * hatf_source_record would say after reading it). They stay next until
 * hatf_source_take(s, k) hands out the first k (k <= n); then
 * hatf_source_record and _offset are those of the last taken. A run of a
 * container's events comes whole (one thread's, up to its chunk group's end);
 * another source, a filtered one or an ordered reader gives one at a time.
 * The events and their data are valid until the next call on s other than
 * take. @return n (> 0), 0 at the end, or a negative code as hatf_source_next
 * (damage passed over as it does). Peek again before taking gives the same events. */
int hatf_source_peek(hatf_source *s, const hatf_event **evs, uint64_t *first);
void hatf_source_take(hatf_source *s, unsigned k);

/* Position of the last event returned: its 0-based record number, and its byte
 * offset in the file (for a container: the offset of the chunk holding it). */
uint64_t hatf_source_record(const hatf_source *s);
uint64_t hatf_source_offset(const hatf_source *s);
const hatf_err *hatf_source_error(const hatf_source *s);

/* How a container's events of equal time on different threads were ordered,
 * so far. A tie group is a run of equal time with events of two or more
 * threads and an address used by two or more of them. */
typedef struct hatf_order_stats {
    uint64_t tie_groups;  /* tie groups met */
    uint64_t reordered;   /* of those, put in another order than the iterator's */
    uint64_t unresolved;  /* of those, with no order consistent with liveness
                             (a broken trace): left in the iterator's order */
    uint64_t early_releases; /* releases stamped before the allocation they end
                                (HATF_INFO_EARLY_RELEASE) put after it */
} hatf_order_stats;
/* All 0 for a raw HATF 1.0 stream, a text file or a one-thread container. */
void hatf_source_order_stats(const hatf_source *s, hatf_order_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* HATF_SOURCE_H */
