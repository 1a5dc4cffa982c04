/* container_stream.h — a chunk group's payload decompressed as its decoders
 * reach it.
 *
 * A records or address payload packed with zstd whose raw length passes
 * HATF_STREAM_MIN is not decompressed whole when its group is loaded: its
 * zstd blocks (128 KiB at most each) are decompressed in place, into a buffer
 * of its raw length, as far as the decoders need them. A group whose events
 * go bad at the first one then costs a block or two, not the 64 MiB its
 * header may claim (a 1.2 MB file of such groups kept every reader busy for
 * 6 s, with 200 MB). Smaller payloads are decompressed whole, as they always
 * were (no state between batches: the common case, at full speed), at most
 * HATF_STREAM_MIN each: a group costs at most that much work before its
 * first event is checked, whatever the file claims.
 */
#ifndef HATF_CONTAINER_STREAM_H
#define HATF_CONTAINER_STREAM_H

#include <zstd.h>

#include "hatf_container.h"
#include "container_format.h"

#define HATF_STREAM_MIN (512u << 10)
/* Bytes a streamed payload is decompressed past where its decoder stands,
 * before a batch; an event cut by that end is decoded again once with this
 * much more (an event and the metadata before it take at most
 * HATF_CK_EVENT_REC_MAX in any trace a writer makes). */
#define HATF_STREAM_AHEAD (2u * HATF_CK_EVENT_REC_MAX)

/* One payload of the group a cursor has loaded. */
typedef struct hatf_zpay {
    ZSTD_DCtx *dctx;  /* the cursor's own, from its first streamed payload on (freed with it) */
    hatf_buf in;      /* a streamed payload's stored bytes */
    size_t in_pos;    /* ... consumed so far */
    size_t have;      /* raw bytes ready at out->p[0..have) */
    size_t raw;       /* the payload's raw length (out->len) */
    uint64_t off;     /* its chunk, for messages */
    const char *what; /* its kind's name, for messages */
} hatf_zpay;

/* Is the payload of the chunk with header h streamed? */
static inline int hatf_zpay_streamed(const hatf_chunk_hdr *h)
{
    return h->codec == HATF_CODEC_ZSTD && h->raw_len > HATF_STREAM_MIN;
}

/* Start streaming the payload of the chunk at off (header h, streamed), its
 * stored bytes read and checked into z->in (the reader's part,
 * container_read.c), into out: nothing decompressed yet; what: the chunk
 * kind's name.
 * @return 0 or HATF_E_NOMEM with a message in err. */
int hatf_zpay_begin_(hatf_zpay *z, uint64_t off, const char *what, const hatf_chunk_hdr *h, hatf_buf *out,
                     hatf_err *err);
/* A payload someone else loaded whole into out (a decoding thread). */
void hatf_zpay_whole_(hatf_zpay *z, const hatf_buf *out);
/* Decompress z into out until at least want raw bytes are ready (all of them
 * when want passes its raw length: then its frames are checked to the end).
 * @return 0 or HATF_E_CORRUPT with a message in err. */
int hatf_zpay_more_(hatf_zpay *z, hatf_buf *out, size_t want, hatf_err *err);
/* Is all of it ready? */
static inline int hatf_zpay_done(const hatf_zpay *z) { return z->have == z->raw; }
/* Free what it holds (a cursor's end). */
void hatf_zpay_free_(hatf_zpay *z);

#endif /* HATF_CONTAINER_STREAM_H */
