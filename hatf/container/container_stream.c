/* container_stream.c — a chunk group's payload decompressed as its decoders
 * reach it (container_stream.h).
 *
 * zstd's buffer-less API decompresses one block per call straight into the
 * payload's buffer, which is the window of the blocks after it: no copy and
 * no buffer of zstd's own, so a streamed payload costs what a whole one does.
 */
#define ZSTD_STATIC_LINKING_ONLY  /* ZSTD_decompressBegin, ZSTD_decompressContinue (libzstd exports them) */
#include <zstd.h>
#include <stdlib.h>
#include <string.h>

#include "container_stream.h"

#define LLU(x) ((unsigned long long)(x))

int hatf_zpay_begin_(hatf_zpay *z, uint64_t off, const char *what, const hatf_chunk_hdr *h, hatf_buf *out,
                     hatf_err *err)
{
    z->off = off;
    z->what = what;
    z->in_pos = 0;
    z->raw = z->have = 0;
    out->len = 0;
    if (!hatf_buf_reserve(out, (size_t)h->raw_len + 1) || (!z->dctx && !(z->dctx = ZSTD_createDCtx())))
        return hatf_err_set(err, HATF_E_NOMEM, off, "offset %llu: out of memory", LLU(off));
    size_t b = ZSTD_decompressBegin(z->dctx);
    if (ZSTD_isError(b)) return hatf_err_set(err, HATF_E_NOMEM, off, "offset %llu: out of memory", LLU(off));
    out->len = z->raw = h->raw_len;  /* its bytes past have are not there yet */
    return 0;
}

void hatf_zpay_whole_(hatf_zpay *z, const hatf_buf *out)
{
    z->raw = z->have = out->len;
}

static int zbad(hatf_zpay *z, hatf_err *err, const char *why)
{
    z->raw = z->have;  /* nothing more comes from it */
    return hatf_err_set(err, HATF_E_CORRUPT, z->off, "offset %llu: %s chunk does not decompress (%s)",
                        LLU(z->off), z->what, why);
}

int hatf_zpay_more_(hatf_zpay *z, hatf_buf *out, size_t want, hatf_err *err)
{
    if (z->have == z->raw) return 0;
    /* past the last raw byte, every frame is read to its end, as
     * ZSTD_decompressDCtx would: checksums, and frames or bytes after */
    for (;;) {
        if (z->have >= want && z->have < z->raw) return 0;
        size_t need = ZSTD_nextSrcSizeToDecompress(z->dctx);
        size_t left = z->in.len - z->in_pos;
        if (need == 0) {  /* a frame ended */
            if (!left) break;
            ZSTD_decompressBegin(z->dctx);  /* another frame follows */
            continue;
        }
        if (need > left) return zbad(z, err, "frame cut short");
        size_t k = ZSTD_decompressContinue(z->dctx, out->p + z->have, z->raw - z->have, z->in.p + z->in_pos, need);
        if (ZSTD_isError(k)) return zbad(z, err, ZSTD_getErrorName(k));
        z->in_pos += need;
        z->have += k;
    }
    if (z->have != z->raw) return zbad(z, err, "wrong length");
    return 0;
}

void hatf_zpay_free_(hatf_zpay *z)
{
    ZSTD_freeDCtx(z->dctx);
    hatf_buf_free(&z->in);
    memset(z, 0, sizeof *z);
}
