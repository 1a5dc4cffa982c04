/* hatf.h — the heap event model and the HATF 1.0 codec (libhatf).
 *
 * HATF is the Heap Allocation Trace Format of Chilimbi, Jones and Zorn (ISMM 2000,
 * Appendix A). docs/format-hatf1.md is the byte-level specification as hatrace reads it;
 * this header is the programming interface.
 *
 * Layers of libhatf, each with its own header:
 *   hatf.h            events, errors, byte buffers, the HATF 1.0 encoder and decoder
 *   hatf_version.h    the library's version (included by hatf.h)
 *   hatf_api.h        HATF_API, the export macro of the definitions (included by hatf.h)
 *   hatf_container.h  hatrace's own trace file: chunked, split streams, zstd, index
 *   hatf_text.h       the human-readable text form
 *   hatf_source.h     open any of the three formats and read events in time order
 *
 * Error convention (one per layer): functions return 0 or a positive count on
 * success and a negative HATF_E_* code on failure; objects that read untrusted
 * input also keep a one-line message naming the byte offset (hatf_err).
 */
#ifndef HATF_H
#define HATF_H

#include <stddef.h>
#include <stdint.h>

#include "hatf_api.h"
#include "hatf_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- record tags (HATF 1.0, Appendix A) -------------------------------- */
typedef enum hatf_op {
    HATF_OP_ALLOC = 0,           /* size, addr */
    HATF_OP_FREE = 1,            /* addr (0 = free(NULL)) */
    HATF_OP_REALLOC_INPLACE = 2, /* size, addr, new_addr (== addr) */
    HATF_OP_REALLOC_MOVE = 3,    /* size, addr (old), new_addr */
    HATF_OP_REALLOC_NEW = 4,     /* realloc(NULL, size): size, addr 0, new_addr */
    HATF_OP_REALLOC_FREE = 5,    /* realloc(p, 0) that freed: size 0, addr, new_addr 0 */
    HATF_OP_HEAP_CREATE = 6,
    HATF_OP_HEAP_DESTROY = 7,
    HATF_OP_THREAD_CREATE = 8,
    HATF_OP_THREAD_DESTROY = 9,
    HATF_OP_COMMENT = 10,        /* text in data/data_len; no other field */
    HATF_TAG_METADATA = 11,      /* never an event: changes how later records decode */
    HATF_OP_COUNT_ = 11
} hatf_op;

/* Field codes used by metadata records. */
typedef enum hatf_field {
    HATF_F_SIZE = 0, HATF_F_ADDR = 1, HATF_F_TIME = 2,
    HATF_F_THREAD = 3, HATF_F_HEAP = 4, HATF_F_ATTR = 5, HATF_F_COUNT_ = 6
} hatf_field;

/* Width codes: 0,1,2,4,8 bytes; v1/v2 = 1- or 2-byte length then bytes (attributes only). */
enum { HATF_W_V1 = 9, HATF_W_V2 = 10 };

typedef enum hatf_interp {
    HATF_I_NONE = 0, HATF_I_DEFAULT = 1, HATF_I_BASEOFFSET = 2,
    HATF_I_DELTA = 3, HATF_I_STRIDE = 4
} hatf_interp;

/* One heap event, the unit every layer exchanges.
 * Field use by op (unused fields are 0):
 *   ALLOC           size, addr
 *   FREE            addr
 *   REALLOC_*       size, addr (old), new_addr
 *   HEAP_*          heap
 *   THREAD_*        thread
 *   COMMENT         data/data_len only (time/thread/heap 0)
 * thread, heap, time apply to every op but COMMENT.
 * Attributes: numeric in attr when data_len == 0 (HATF widths 0-8), or a byte
 * string in data/data_len (HATF widths v1/v2). hatrace's own attribute bytes are
 * a key/value list (hatf_attrs_*), attr_is_bytes HATF_ATTRS_HATRACE; another
 * writer's are opaque, HATF_ATTRS_FOREIGN, and mean nothing to hatrace (a HATF
 * 1.0 stream is hatrace's when it starts with the comment HATF1_HATRACE_MARK).
 * data points into the producer's memory: valid until the producer's next call. */
/* hatf_event.attr_is_bytes: the bytes are hatrace's attribute list, or another
 * writer's, which hatf_event_attrs does not read. */
enum { HATF_ATTRS_HATRACE = 1, HATF_ATTRS_FOREIGN = 2 };

/* The text of the comment record a HATF 1.0 stream written by hatrace starts
 * with: its attribute bytes are hatrace's, and " container " and the container
 * header's fields may follow (as in the text form's "# container" line: the
 * time unit, pid, clock, command line). A stream without it is another
 * writer's. */
#define HATF1_HATRACE_MARK "hatrace-hatf1 1"
/* The recorder writes the program's own mmap, munmap, mremap, brk and sbrk
 * calls as comments starting with this (docs/FORMAT.md, "Mappings"). */
#define HATF_MAP_PREFIX "hatrace-map "

typedef struct hatf_event {
    uint8_t op;            /* hatf_op */
    uint8_t attr_is_bytes; /* nonzero: attributes are the bytes in data (even if data_len == 0): HATF_ATTRS_* */
    uint16_t data_len;
    uint64_t size;
    uint64_t addr;
    uint64_t new_addr;
    uint64_t thread;
    uint64_t heap;
    uint64_t time;
    uint64_t attr;
    const uint8_t *data;
    /* A realloc that gave its old block back inside the call (REALLOC_MOVE,
     * REALLOC_FREE: hatf_event_releases_early): the block may have been given
     * back up to this long before time, from when the call began (the
     * recorder's stamp is taken after the call); another thread may reuse it
     * in between. 0 for every other event, and when not known. Readers order
     * the release by it (docs/format-container.md, "Release section"). */
    uint64_t release_lead;
} hatf_event;

/* The recorder notes the signals a process dies of with a core (SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) as a comment in the thread they
 * were delivered to, after its last event before them (docs/FORMAT.md,
 * "Signals"): "hatrace-signal 11 SIGSEGV code=1 addr=0x0 thread=3 fatal", or
 * "... code=-6 pid=1234 thread=1 handled" for one a process sent that a
 * handler of the program took. A fatal one is its thread's last event. */
#define HATF_SIGNAL_PREFIX "hatrace-signal "
typedef struct hatf_signal {
    int sig;          /* the signal's number */
    int code;         /* its si_code: > 0 made by the kernel (a fault), <= 0 sent by a process */
    uint64_t addr;    /* the faulting address (code > 0), or the sender's pid (code <= 0) */
    uint64_t thread;  /* the thread it was delivered to (the trace's id) */
    int fatal;        /* 1: the process died of it (the default action); 0: a handler of the program took it */
    char name[16];    /* "SIGSEGV", or "SIG11" for a number the C library does not name */
} hatf_signal;
/* The comment's text for s into buf (cap bytes, NUL-terminated; s->name is
 * not read). @return its length, or -1 when it does not fit. */
int hatf_signal_format(const hatf_signal *s, char *buf, size_t cap);
/* Read ev as a signal note. @return 1 and *out filled if it is one, else 0. */
int hatf_signal_parse(const hatf_event *ev, hatf_signal *out);

/* One of the program's own mappings the recorder noted (HATF_MAP_PREFIX;
 * docs/FORMAT.md, "Mappings"): "hatrace-map mmap ADDR LEN anon|file",
 * "munmap ADDR LEN", "mremap OLD OLDLEN NEW NEWLEN", "brk DELTA". */
enum { HATF_MAP_MMAP = 1, HATF_MAP_MUNMAP, HATF_MAP_MREMAP, HATF_MAP_BRK };
typedef struct hatf_map {
    int kind;             /* HATF_MAP_* */
    uint64_t addr, len;   /* mmap, munmap; mremap: the new mapping */
    uint64_t old_addr, old_len;  /* mremap: the old one */
    int64_t delta;        /* brk: the break's change in bytes (negative: it shrank) */
    int file;             /* mmap: 1 of a file, 0 anonymous */
} hatf_map;
/* Read ev as a mapping note. @return 1 and *out filled if it is one, else 0. */
int hatf_map_parse(const hatf_event *ev, hatf_map *out);


/* Does this op carry a size / an address / a second address? */
static inline int hatf_op_has_size(unsigned op) { return op == HATF_OP_ALLOC || (op >= 2 && op <= 5); }
static inline int hatf_op_has_addr(unsigned op) { return op <= 5; }
static inline int hatf_op_is_realloc(unsigned op) { return op >= 2 && op <= 5; }

/* The address an event needs live and ends (a free, a realloc of an object),
 * and the one it makes live (an allocation, a realloc's result); 0: none. */
static inline uint64_t hatf_event_ends(const hatf_event *e)
{
    unsigned op = e->op;
    return op == HATF_OP_FREE || op == HATF_OP_REALLOC_INPLACE || op == HATF_OP_REALLOC_MOVE ||
           op == HATF_OP_REALLOC_FREE ? e->addr : 0;
}
static inline uint64_t hatf_event_makes(const hatf_event *e)
{
    unsigned op = e->op;
    return op == HATF_OP_ALLOC ? e->addr
         : op == HATF_OP_REALLOC_INPLACE || op == HATF_OP_REALLOC_MOVE || op == HATF_OP_REALLOC_NEW ? e->new_addr : 0;
}

/* Does this op give an old block back inside its call (release_lead)? */
static inline int hatf_event_releases_early(const hatf_event *e)
{
    return e->op == HATF_OP_REALLOC_MOVE || e->op == HATF_OP_REALLOC_FREE;
}

/* Stable lower-case names: "alloc", "free", "realloc-inplace", "realloc-move",
 * "realloc-new", "realloc-free", "heap-create", "heap-destroy", "thread-create",
 * "thread-destroy", "comment". @return NULL for an unknown op. */
const char *hatf_op_name(unsigned op);
/* @return the op for a name above, or -1. */
int hatf_op_from_name(const char *name, size_t len);

/* ---- errors -------------------------------------------------------------- */
enum {
    HATF_OK = 0,
    HATF_E_NOMEM = -1,     /* allocation failed */
    HATF_E_IO = -2,        /* read/write/open failed (errno in hatf_err.sys_errno) */
    HATF_E_TRUNCATED = -3, /* input ends inside a record or chunk */
    HATF_E_CORRUPT = -4,   /* malformed bytes: bad tag, width, checksum, ... */
    HATF_E_VERSION = -5,   /* a newer major version than this reader knows */
    HATF_E_USAGE = -6,     /* bad argument from the caller */
    HATF_E_LIMIT = -7      /* a value or length outside what the format allows */
};
const char *hatf_strerror(int code);

/* A one-line description of the first problem met, with the byte offset.
 * msg never contains a newline; offset is where the bad record or chunk starts.
 * A message that names a byte offset begins with "offset N: " where N is this
 * offset (container chunks and headers), so a caller printing the offset on its
 * own takes the rest from hatf_err_text. */
typedef struct hatf_err {
    int code;
    int sys_errno;
    uint64_t offset;
    uint64_t record;   /* index of the record (0-based) where known, else UINT64_MAX */
    char msg[192];
} hatf_err;

/* Record an error (printf-style message) unless one is already recorded.
 * @return code, so callers can write `return hatf_err_set(...)`. */
int hatf_err_set(hatf_err *e, int code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The message without its leading "offset N: " (N = e->offset), the whole
 * message when it has none, or hatf_strerror(e->code) when it is empty. */
const char *hatf_err_text(const hatf_err *e);

/* ---- growable byte buffer ----------------------------------------------- */
typedef struct hatf_buf {
    uint8_t *p;
    size_t len, cap;
    int failed;  /* sticky: an allocation failed, contents are incomplete */
} hatf_buf;

void hatf_buf_init(hatf_buf *b);
void hatf_buf_free(hatf_buf *b);
/* Ensure room for n more bytes. @return pointer to p+len, or NULL (failed set). */
uint8_t *hatf_buf_reserve(hatf_buf *b, size_t n);
void hatf_buf_append(hatf_buf *b, const void *src, size_t n);

/* ---- HATF 1.0 encoder --------------------------------------------------- */
typedef enum hatf1_mode {
    /* Plain: fixed widths set once at the start (size 8, address 8, time 8,
     * thread 4, heap 4; attributes v2 for byte strings, 8 for numbers, absent
     * when the first event has none), interpretation none. The baseline. */
    HATF1_PLAIN = 0,
    /* Best: the writer picks the narrowest width per field and emits metadata to
     * widen and narrow as values change; time delta-coded; thread and heap as
     * default while they do not change (the paper's "HATF best"). */
    HATF1_BEST = 1
} hatf1_mode;

/* An encoder: opaque; its fields are libhatf's (like ZSTD_CCtx). */
typedef struct hatf1_encoder hatf1_encoder;

/* Make an encoder appending to out (which stays the caller's and must
 * outlive the encoder). Nothing is written until the first record.
 * @return the encoder, or NULL when out of memory. Free with hatf1_encoder_free. */
hatf1_encoder *hatf1_encoder_new(hatf_buf *out, hatf1_mode mode);
/* Free enc (NULL: nothing); out is left as it is. */
void hatf1_encoder_free(hatf1_encoder *enc);
/* Data records (comments included) and metadata records written so far. */
uint64_t hatf1_encoder_records(const hatf1_encoder *enc);
uint64_t hatf1_encoder_metadata(const hatf1_encoder *enc);

/* Append one event (with whatever metadata it needs first). Fields the op
 * does not carry are ignored. Comments and byte attributes always fit: their
 * length, data_len, is 16 bits like HATF's v2 length.
 * @return 0, or HATF_E_LIMIT (unknown op), HATF_E_USAGE (data_len > 0 with
 * data NULL), HATF_E_NOMEM (out->failed; the stream is then incomplete). */
int hatf1_encode(hatf1_encoder *enc, const hatf_event *ev);

/* Low-level: emit metadata records directly (tests, and writers with their own
 * policy). fieldSize: width in {0,1,2,4,8,9,10} (9/10 for attributes only).
 * Either call counts as the start of the stream: PLAIN then writes no initial
 * metadata of its own, and both modes change a field only when an event
 * needs it (PLAIN) or by their usual policy (BEST).
 * @return 0, HATF_E_USAGE (bad field, width or interpretation code), HATF_E_NOMEM. */
int hatf1_set_width(hatf1_encoder *enc, unsigned field, unsigned width);
/* fieldInterpretation: a3 is the default value, the base, or the first "previous"
 * (delta, stride); a4 the stride (docs/format-hatf1.md). */
int hatf1_set_interp(hatf1_encoder *enc, unsigned field, unsigned interp, uint64_t a3, uint64_t a4);

/* ---- HATF 1.0 decoder --------------------------------------------------- */
/* A decoder: opaque; its fields are libhatf's (like ZSTD_DCtx). One decoder
 * reads one stream, from one thread at a time. */
typedef struct hatf1_decoder hatf1_decoder;

/* Make a decoder of a complete HATF 1.0 stream held in memory: buf[0..len)
 * stays the caller's and must outlive the decoder and the events it returns.
 * base_offset (the position of buf in its file) is added to error offsets.
 * @return the decoder, or NULL when out of memory. Free with hatf1_decoder_free. */
hatf1_decoder *hatf1_decoder_new(const uint8_t *buf, size_t len, uint64_t base_offset);
/* Free dec (NULL: nothing). */
void hatf1_decoder_free(hatf1_decoder *dec);
/* The last error (code 0 while there was none): what, where (offset with
 * base_offset, record number) and a one-line message. Valid until dec is freed. */
const hatf_err *hatf1_decoder_error(const hatf1_decoder *dec);
/* Bytes of buf consumed so far (len at the clean end). */
size_t hatf1_decoder_pos(const hatf1_decoder *dec);
/* Events returned (comments included) and metadata records consumed so far. */
uint64_t hatf1_decoder_records(const hatf1_decoder *dec);
uint64_t hatf1_decoder_metadata(const hatf1_decoder *dec);

/* Next event, consuming any metadata before it.
 * @return 1 with *ev filled, 0 at the clean end of the buffer, or a negative
 * HATF_E_* code, which hatf1_decoder_error describes (then every later call
 * returns it too).
 * ev->data points into buf. */
int hatf1_decode(hatf1_decoder *dec, hatf_event *ev);
/* Up to max events into ev[0..max), the same as calling hatf1_decode max times
 * but faster (one call for many records). @return the number of events stored
 * (> 0), 0 at the clean end, or a negative HATF_E_* code when an error comes
 * before any event; events before an error are returned first and the next
 * call returns the error. max above INT_MAX counts as INT_MAX. */
int hatf1_decode_many(hatf1_decoder *dec, hatf_event *ev, size_t max);

/* ---- hatrace attribute bytes -------------------------------------------
 * hatrace stores its own attributes as a byte string (width v1/v2) of
 * key/value pairs: one key byte, then the value as an unsigned LEB128 varint,
 * keys strictly increasing. Unknown keys are kept by tools as raw bytes. */
typedef enum hatf_attr_key {
    HATF_A_FUNC = 1,      /* hatf_func: which call made the event */
    HATF_A_ALIGN = 2,     /* alignment requested (memalign family) */
    HATF_A_STACK = 3,     /* call-stack id (tables stream) */
    HATF_A_OSTID = 4,     /* OS thread id (thread-create) */
    HATF_A_PARENT = 5,    /* parent thread (thread-create) */
    HATF_A_FAILED = 6,    /* 1: the call returned NULL / an error */
    HATF_A_NMEMB = 7,     /* calloc/reallocarray element count (size = total) */
    HATF_A_SIZED = 8,     /* the size a sized operator delete was given (a free record) */
    HATF_A_KEY_MAX_ = 8
} hatf_attr_key;

typedef enum hatf_func {
    HATF_FN_MALLOC = 1, HATF_FN_CALLOC, HATF_FN_REALLOC, HATF_FN_REALLOCARRAY,
    HATF_FN_FREE, HATF_FN_POSIX_MEMALIGN, HATF_FN_ALIGNED_ALLOC, HATF_FN_MEMALIGN,
    HATF_FN_VALLOC, HATF_FN_PVALLOC, HATF_FN_NEW, HATF_FN_DELETE,
    HATF_FN_NEW_ARRAY, HATF_FN_DELETE_ARRAY,  /* C++ new[] and delete[] */
    HATF_FN_COUNT_
} hatf_func;

/* The call a record stands for when it has no func attribute: malloc for
 * alloc, free for free, realloc for the realloc records, 0 for other ops. */
static inline unsigned hatf_plain_func(unsigned op)
{
    return op == HATF_OP_ALLOC ? HATF_FN_MALLOC : op == HATF_OP_FREE ? HATF_FN_FREE
         : hatf_op_is_realloc(op) ? HATF_FN_REALLOC : 0;
}

/* "malloc", "calloc", ... @return NULL for an unknown code. */
const char *hatf_func_name(unsigned fn);
int hatf_func_from_name(const char *name, size_t len);

#define HATF_ATTRS_MAX 96  /* room for every known key with a 10-byte varint */
typedef struct hatf_attrs {
    uint64_t value[HATF_A_KEY_MAX_ + 1];
    uint32_t present;  /* bit k set: key k present */
} hatf_attrs;

/* Encode into out (at least HATF_ATTRS_MAX bytes). @return bytes written. */
size_t hatf_attrs_encode(const hatf_attrs *a, uint8_t *out);
/* Parse attribute bytes. @return 0 if they are exactly a canonical hatrace key
 * list of known keys (so re-encoding gives the same bytes), else -1. */
int hatf_attrs_decode(const uint8_t *p, size_t n, hatf_attrs *a);
/* The event's hatrace attributes into *a. @return 0 if the event carries
 * attribute bytes hatf_attrs_decode accepts (none at all included), else -1
 * with *a empty: readers then see every key as absent. */
int hatf_event_attrs(const hatf_event *ev, hatf_attrs *a);
/* 1 if key k is present in a. */
static inline int hatf_attrs_has(const hatf_attrs *a, unsigned k)
{
    return a->present >> k & 1;
}
/* Key k's value in a, or absent if a lacks it. */
static inline uint64_t hatf_attrs_get(const hatf_attrs *a, unsigned k, uint64_t absent)
{
    return hatf_attrs_has(a, k) ? a->value[k] : absent;
}
/* 1 if a says its call failed (failed=1): an allocation that made nothing, or
 * a realloc that left its block as it was. */
static inline int hatf_attrs_failed(const hatf_attrs *a)
{
    return hatf_attrs_get(a, HATF_A_FAILED, 0) != 0;
}
/* 1 if ev's call failed: a (its attributes) says failed=1 and the record
 * agrees: it made no address, or it is a realloc that left its block where it
 * was (new = old, as the recorder writes a failed one). An attribute never
 * contradicts the record: an allocation of a non-zero address, a realloc to
 * another address, did not fail, whatever its attribute bytes say. */
static inline int hatf_event_failed_by(const hatf_event *ev, const hatf_attrs *a)
{
    uint64_t made = hatf_event_makes(ev);
    return hatf_attrs_failed(a) && (!made || (hatf_op_is_realloc(ev->op) && made == ev->addr));
}
/* hatf_event_failed_by with the event's own attributes. */
int hatf_event_failed(const hatf_event *ev);

#ifdef __cplusplus
}
#endif
#endif /* HATF_H */
