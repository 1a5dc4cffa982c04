/* hatf1_internal.h — the HATF 1.0 encoder's and decoder's state (not
 * installed). include/hatf.h keeps them opaque (hatf1_encoder_new, _free,
 * hatf1_decoder_new, _free); libhatf embeds them (the container writer holds
 * an encoder per thread, the reader and the any-format source a decoder) and
 * starts them in place with the _init functions below. The unit tests, fuzz
 * targets and benchmarks read the fields too.
 */
#ifndef HATF1_INTERNAL_H
#define HATF1_INTERNAL_H

#include "hatf.h"

struct hatf1_encoder {
    hatf_buf *out;
    hatf1_mode mode;
    /* current stream state, as a decoder would see it */
    uint8_t width[HATF_F_COUNT_];
    uint8_t interp[HATF_F_COUNT_];
    uint8_t last_nonzero_width[HATF_F_COUNT_];
    uint64_t arg[HATF_F_COUNT_];   /* a3: default value, base, or first "previous" */
    uint64_t stride[HATF_F_COUNT_];/* a4 of stride */
    uint64_t prev[HATF_F_COUNT_];  /* previous value per field */
    int started;                   /* PLAIN's first metadata written (or set by hand) */
    int split_addr;                /* 1: addresses are not written (width 0, none); the
                                      container stores them in their own stream */
    uint64_t records;              /* data records written (comments included) */
    uint64_t metadata;             /* metadata records written */
    /* adaptive choice state (BEST), private to hatf1_encode.c */
    uint32_t run_len[HATF_F_COUNT_];  /* values since the last width decision */
    uint8_t run_max[HATF_F_COUNT_];   /* widest need among them */
    uint32_t stable[HATF_F_COUNT_];   /* uses in a row without a change of value */
    uint8_t chosen[HATF_F_COUNT_];    /* width picked since the last interpretation change */
    uint32_t same_delta[HATF_F_COUNT_]; /* repeats of last_delta in a row (stride runs) */
    uint64_t last_delta[HATF_F_COUNT_];
};

/* Start enc in place, appending to out (hatf1_encoder_new without the allocation). */
void hatf1_encoder_init(hatf1_encoder *enc, hatf_buf *out, hatf1_mode mode);

/* How the decoder reads a numeric field (derived from width and interpretation). */
enum { HATF1_K_CONST, HATF1_K_NONE, HATF1_K_BASE, HATF1_K_DELTA, HATF1_K_STEP, HATF1_K_SKIP };
struct hatf1_decoder {
    const uint8_t *buf;
    size_t len, pos;
    uint64_t base_offset;          /* added to pos in error offsets (position of buf in the file) */
    /* stream state, as the metadata read so far set it */
    uint8_t width[HATF_F_COUNT_];
    uint8_t interp[HATF_F_COUNT_];
    uint8_t last_nonzero_width[HATF_F_COUNT_];
    uint64_t arg[HATF_F_COUNT_];   /* a3: default value, base, or first "previous" */
    uint64_t stride[HATF_F_COUNT_];/* a4 of stride */
    uint64_t prev[HATF_F_COUNT_];
    /* hatf1_decode.c's alone down to rec_len: per-field readers folded from
     * the state, record lengths */
    uint64_t add[HATF_F_COUNT_];   /* default value, base or stride */
    uint64_t smask[HATF_F_COUNT_]; /* sign bit of the width, for signed stored values */
    uint8_t kind[HATF_F_COUNT_];   /* HATF1_K_* */
    uint8_t shift[HATF_F_COUNT_];  /* 64 - 8 * width, mod 64 */
    uint8_t nbytes[HATF_F_COUNT_]; /* bytes a numeric field takes */
    uint8_t attr_len_bytes;        /* 1 or 2 under v1/v2 attributes, else 0 */
    uint8_t rec_len[HATF_OP_COMMENT]; /* tag + numeric fields, per event tag */
    uint64_t records;              /* events returned so far (comments included) */
    uint64_t metadata;             /* metadata records consumed so far */
    uint64_t last_record_offset;   /* offset (incl. base_offset) of the last event returned */
    hatf_err err;
};

/* Start dec in place (hatf1_decoder_new without the allocation). */
void hatf1_decoder_init(hatf1_decoder *dec, const uint8_t *buf, size_t len, uint64_t base_offset);

#endif
