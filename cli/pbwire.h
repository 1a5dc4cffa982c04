/* pbwire.h — the protocol buffers wire format, written (cli/pbwire.c), for
 * hatrace convert --to pprof.
 *
 * A profile.proto needs five things of the wire format: varints, the tag of a
 * field, int64 and uint64 fields, length-delimited fields (strings, nested
 * messages) and packed repeated varints. That is a page of code, tested
 * against the encodings the protocol buffers documentation gives
 * (tests/unit/cli/test_pbwire.c), against a code generator and a library
 * kept in step with a schema (docs/tools.md, "convert --to pprof").
 * A nested message is built in its own hatf_buf and appended with
 * pb_bytes. Fields are written in any order; a reader merges them.
 */
#ifndef HATRACE_CLI_PBWIRE_H
#define HATRACE_CLI_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "hatf.h"

/* v as a base-128 varint (7 bits a byte, lowest first). */
void pb_varint(hatf_buf *o, uint64_t v);

/* Field number field of wire type 0 (varint): uint64, or int64 in two's
 * complement (a negative number takes ten bytes, as the format says). */
void pb_uint(hatf_buf *o, unsigned field, uint64_t v);
void pb_int(hatf_buf *o, unsigned field, int64_t v);

/* Field of wire type 2: n bytes (a string, or a nested message's bytes). */
void pb_bytes(hatf_buf *o, unsigned field, const void *p, size_t n);
void pb_string(hatf_buf *o, unsigned field, const char *s);

/* A packed repeated varint field (wire type 2, the varints one after another). */
void pb_packed(hatf_buf *o, unsigned field, const uint64_t *v, size_t n);

#endif
