/* fuzz_hatf1.c — the HATF 1.0 decoder on arbitrary bytes.
 *
 * Properties: decoding never crashes, hangs or reads out of bounds; an error is
 * a known code with a one-line message and an offset inside the input, and it
 * sticks; hatf1_decode_many gives the same events, error and position as
 * hatf1_decode; every decoded event re-encodes (plain and best) and decodes
 * back to the same event.
 */
#include <stdint.h>
#include <stdlib.h>

#include "hatf.h"
#include "hatf1/hatf1_internal.h"  /* the encoder and decoder in place, their fields */
#include "fuzz_common.h"

static void roundtrip(const hatf_event *evs, size_t n, hatf1_mode mode)
{
    hatf_buf out;
    hatf_buf_init(&out);
    hatf1_encoder enc;
    hatf1_encoder_init(&enc, &out, mode);
    for (size_t i = 0; i < n; i++) {
        int rc = hatf1_encode(&enc, &evs[i]);
        if (rc != 0) fuzz_event_print("event", &evs[i]);
        FUZZ_CHECK(rc == 0, "mode %d: encoding decoded event %zu failed: %d", mode, i, rc);
    }
    FUZZ_CHECK(!out.failed, "encoder buffer failed");

    hatf1_decoder dec;
    hatf1_decoder_init(&dec, out.p, out.len, 0);
    hatf_event ev;
    for (size_t i = 0; i < n; i++) {
        int rc = hatf1_decode(&dec, &ev);
        FUZZ_CHECK(rc == 1, "mode %d: re-decoding event %zu: %d (%s)", mode, i, rc, dec.err.msg);
        if (!fuzz_event_equal(&ev, &evs[i])) {
            fuzz_event_print("original", &evs[i]);
            fuzz_event_print("re-decoded", &ev);
            FUZZ_CHECK(0, "mode %d: event %zu changed in a round trip", mode, i);
        }
    }
    int rc = hatf1_decode(&dec, &ev);
    FUZZ_CHECK(rc == 0, "mode %d: %d extra events or error after the round trip", mode, rc);
    hatf_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hatf1_decoder dec;
    hatf1_decoder_init(&dec, data, size, 0);
    /* Every record takes at least one byte, so there are at most size events. */
    hatf_event *evs = malloc((size + 1) * sizeof *evs);
    if (!evs) return 0;
    size_t n = 0;
    int rc;
    while ((rc = hatf1_decode(&dec, &evs[n])) == 1) {
        FUZZ_CHECK(n < size, "more events than input bytes");
        FUZZ_CHECK(evs[n].op < HATF_OP_COUNT_, "event with op %u", evs[n].op);
        FUZZ_CHECK(evs[n].data_len == 0 || (evs[n].data >= data && evs[n].data + evs[n].data_len <= data + size),
                   "event data outside the input");
        n++;
    }
    FUZZ_CHECK(dec.records == n, "decoder counted %llu events, returned %zu",
               (unsigned long long)dec.records, n);
    if (rc < 0) {
        fuzz_check_err(rc, &dec.err, size);
        hatf_event again;
        FUZZ_CHECK(hatf1_decode(&dec, &again) == rc, "error did not stick");
    } else {
        FUZZ_CHECK(rc == 0, "decode returned %d", rc);
        FUZZ_CHECK(dec.pos == size, "clean end at %zu of %zu bytes", dec.pos, size);
    }
    /* the bulk decoder, in batches of a size taken from the input */
    hatf1_decoder bulk;
    hatf1_decoder_init(&bulk, data, size, 0);
    hatf_event *many = malloc((size + 1) * sizeof *many);
    if (!many) { free(evs); return 0; }
    size_t m = 0, batch = size ? 1 + data[size - 1] % 300 : 1;
    int rc2;
    while ((rc2 = hatf1_decode_many(&bulk, many + m, batch)) > 0) {
        FUZZ_CHECK(m + (size_t)rc2 <= n, "decode_many: more events than decode (%zu)", n);
        m += (size_t)rc2;
    }
    FUZZ_CHECK(m == n && rc2 == rc, "decode_many: %zu events then %d, decode: %zu then %d", m, rc2, n, rc);
    for (size_t i = 0; i < n; i++)
        if (!fuzz_event_equal(&many[i], &evs[i])) {
            fuzz_event_print("decode", &evs[i]);
            fuzz_event_print("decode_many", &many[i]);
            FUZZ_CHECK(0, "decode_many: event %zu differs", i);
        }
    FUZZ_CHECK(bulk.pos == dec.pos && bulk.records == dec.records && bulk.metadata == dec.metadata &&
               bulk.err.offset == dec.err.offset && bulk.err.record == dec.err.record,
               "decode_many: state differs (pos %zu/%zu, error offset %llu/%llu)", bulk.pos, dec.pos,
               (unsigned long long)bulk.err.offset, (unsigned long long)dec.err.offset);
    free(many);
    roundtrip(evs, n, HATF1_PLAIN);
    roundtrip(evs, n, HATF1_BEST);
    free(evs);
    return 0;
}
