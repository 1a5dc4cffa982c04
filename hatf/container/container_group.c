/* container_group.c — encoding one chunk group: the address model, zstd and
 * the two chunks' headers (container_group.h). */
#include <stdlib.h>
#include <string.h>

#include "container_group.h"

int hatf_genc_init(hatf_genc *c, int level, size_t max_items)
{
    hatf_amodel_init(&c->am, 1);
    c->cctx = ZSTD_createCCtx();
    c->pack = NULL;
    c->pause = NULL;
    if (!c->cctx) return HATF_E_NOMEM;
    ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, 0);
    if (max_items > HATF_CK_EVENTS_MAX) max_items = HATF_CK_EVENTS_MAX;
    if (hatf_amodel_reset(&c->am, (uint32_t)max_items, HATF_ACODE_MODEL) != 0) {
        hatf_genc_free(c);
        return HATF_E_NOMEM;
    }
    return 0;
}

void hatf_genc_free(hatf_genc *c)
{
    hatf_amodel_free(&c->am);
    ZSTD_freeCCtx(c->cctx);
    ZSTD_freeCCtx(c->pack);
    c->cctx = c->pack = NULL;
}

void hatf_gout_free(hatf_gout *o)
{
    hatf_buf_free(&o->rbuf);
    hatf_buf_free(&o->abuf);
    hatf_buf_free(&o->out);
}

/* ZSTD_compress2 in pieces, pause() between them: with the size pledged the
 * frame is the one ZSTD_compress2 makes (zstd 1.5; test_container checks). */
static size_t compress_paused(ZSTD_CCtx *cctx, uint8_t *dst, size_t cap, const uint8_t *src, size_t len,
                              void (*pause)(void))
{
    enum { PIECE = 32768 };  /* ~50-100 us at the recorder's levels */
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
    size_t rc = ZSTD_CCtx_setPledgedSrcSize(cctx, len);
    if (ZSTD_isError(rc)) return rc;
    ZSTD_outBuffer o = { dst, cap, 0 };
    for (size_t at = 0; at < len;) {
        size_t k = len - at < PIECE ? len - at : PIECE;
        ZSTD_inBuffer in = { src + at, k, 0 };
        ZSTD_EndDirective end = at + k == len ? ZSTD_e_end : ZSTD_e_continue;
        do {
            rc = ZSTD_compressStream2(cctx, &o, &in, end);
            if (ZSTD_isError(rc)) return rc;
        } while (in.pos < in.size || (end == ZSTD_e_end && rc));
        at += k;
        pause();
    }
    return o.pos;
}

int hatf_chunk_pack(ZSTD_CCtx *cctx, hatf_chunk_hdr *h, const uint8_t *src, size_t len, hatf_buf *out,
                    void (*pause)(void))
{
    size_t bound = len ? ZSTD_compressBound(len) : 0;
    uint8_t *hb = hatf_buf_reserve(out, HATF_CK_HDR + (bound > len ? bound : len));
    if (!hb) return HATF_E_NOMEM;
    uint8_t *payload = hb + HATF_CK_HDR;
    size_t plen = len;
    h->codec = HATF_CODEC_STORED;
    if (len && cctx) {
        size_t z = pause ? compress_paused(cctx, payload, bound, src, len, pause)
                         : ZSTD_compress2(cctx, payload, bound, src, len);
        if (ZSTD_isError(z)) return HATF_E_IO;
        if (z < len) {
            plen = z;
            h->codec = HATF_CODEC_ZSTD;
        }
    }
    if (h->codec == HATF_CODEC_STORED && len) memcpy(payload, src, len);  /* src may be NULL when len is 0 */
    h->raw_len = (uint32_t)len;
    h->stored_len = (uint32_t)plen;
    h->payload_hash = XXH3_64bits(payload, plen);
    hatf_ck_hdr_pack(hb, h);
    out->len += HATF_CK_HDR + plen;
    return 0;
}

static ZSTD_CCtx *pack_cctx(hatf_genc *c)
{
    if (!c->pack && (c->pack = ZSTD_createCCtx()) != NULL) {
        ZSTD_CCtx_setParameter(c->pack, ZSTD_c_compressionLevel, HATF_PACK_LEVEL);
        ZSTD_CCtx_setParameter(c->pack, ZSTD_c_checksumFlag, 0);
    }
    return c->pack;
}

/* Has p[0..n) a byte that is not 0 (a lead that is not 0)? */
static int memchr_nonzero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 1;
    return 0;
}

int hatf_group_encode(hatf_genc *c, const hatf_group *g, hatf_gout *o)
{
    o->out.len = o->rbuf.len = o->abuf.len = 0;
    ZSTD_CCtx *cctx = !g->fast ? c->cctx : g->packed ? pack_cctx(c) : NULL;
    if (g->fast && g->packed && !cctx) return HATF_E_NOMEM;
    /* a packed group is packed in one go (no pauses): on the writer's thread */
    void (*pause)(void) = g->fast ? NULL : c->pause;
    const hatf_buf *adr = g->fast ? &g->adr : &o->abuf;
    if (g->fast && g->adr.failed) return HATF_E_NOMEM;
    if (!g->fast) {
        if (hatf_amodel_reset(&c->am, (uint32_t)g->nitems, HATF_ACODE_MODEL) != 0) return HATF_E_NOMEM;
        /* with a pause, in slices of ~30 us (the codes are the same either way) */
        size_t slice = c->pause ? 1024 : g->nitems;
        for (size_t i = 0; i < g->nitems; i += slice) {
            hatf_aenc_run(&c->am, g->items + i, g->nitems - i < slice ? g->nitems - i : slice, &o->abuf);
            if (c->pause) c->pause();
        }
    }
    if (o->abuf.failed) return HATF_E_NOMEM;
    if (g->rsec.failed) return HATF_E_NOMEM;
    /* the release section only when a lead is not 0: other groups as before */
    size_t rlen = memchr_nonzero(g->rsec.p, g->rsec.len) ? g->rsec.len : 0;
    uint8_t *p = hatf_buf_reserve(&o->rbuf, 2 * HATF_VARINT_MAX + g->tsec.len + rlen + g->rec.len);
    if (!p) return HATF_E_NOMEM;
    size_t n = hatf_varint_put(p, g->tsec.len);
    memcpy(p + n, g->tsec.p, g->tsec.len);
    n += g->tsec.len;
    if (rlen) {
        n += hatf_varint_put(p + n, rlen);
        memcpy(p + n, g->rsec.p, rlen);
        n += rlen;
    }
    memcpy(p + n, g->rec.p, g->rec.len);
    o->rbuf.len = n + g->rec.len;
    hatf_chunk_hdr h = g->h;
    h.kind = HATF_CK_RECORDS;
    h.coding = rlen ? HATF_RCODE_RELEASE : HATF_RCODE_TIMES;
    int rc = hatf_chunk_pack(cctx, &h, o->rbuf.p, o->rbuf.len, &o->out, pause);
    if (rc) return rc;
    o->len1 = o->out.len;
    h = g->h;
    h.kind = HATF_CK_ADDRS;
    h.coding = g->fast ? HATF_ACODE_REF : HATF_ACODE_MODEL;
    return hatf_chunk_pack(cctx, &h, adr->p, adr->len, &o->out, pause);
}

void hatf_group_free(hatf_group *g)
{
    hatf_buf_free(&g->tsec);
    hatf_buf_free(&g->rec);
    hatf_buf_free(&g->rsec);
    hatf_buf_free(&g->adr);
    free(g->items);
    g->items = NULL;
    g->nitems = g->cap_items = 0;
}
