/* container_format.h — byte layout of hatrace's trace file (internal to libhatf).
 *
 * docs/format-container.md is the specification; this header holds its
 * constants and the packing of the fixed-size parts. All container integers
 * are little-endian (the HATF 1.0 records inside chunks stay big-endian).
 *
 *   file    = header chunk* [index-chunk trailer]
 *   header  = "HATRACE\0" u16 major u16 minor u32 hlen ... u64 xxh3      (hlen bytes)
 *   chunk   = 64-byte chunk header, then `stored` payload bytes (one zstd frame)
 *   trailer = u64 index_offset u64 index_len u32 check u32 0 "HATF-END"  (32 bytes)
 *
 * Chunk header (64 bytes):
 *    0  4  magic "HCHK"
 *    4  1  kind (HATF_CK_*)
 *    5  1  codec: 0 stored, 1 zstd
 *    6  2  coding: the stream's coding version (address chunks: HATF_ACODE_*)
 *    8  8  thread
 *   16  4  seq: number of this chunk group within its thread (0, 1, 2, ...)
 *   20  4  events in the group
 *   24  4  raw (decoded) payload length
 *   28  4  stored payload length
 *   32  8  time of the group's first event
 *   40  8  time of the group's last event
 *   48  8  XXH3-64 of the stored payload
 *   56  4  low 32 bits of XXH3-64 of bytes 0..55 (the header check)
 *   60  4  0 (reserved)
 */
#ifndef HATF_CONTAINER_FORMAT_H
#define HATF_CONTAINER_FORMAT_H

#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "bytes.h"

#define HATF_HDR_FIXED 56          /* header bytes before the three strings */
#define HATF_HDR_MAX 65536         /* a header longer than this is corrupt */
#define HATF_STR_MAX 4095          /* longest header string */

#define HATF_CK_MAGIC "HCHK"
#define HATF_CK_HDR 64

enum hatf_chunk_kind {
    HATF_CK_RECORDS = 1,   /* HATF 1.0 records of one thread, addresses split off */
    HATF_CK_ADDRS = 2,     /* the addresses of the records chunk with the same thread and seq */
    HATF_CK_TABLES = 3,    /* names of threads and heaps; stacks, modules, symbols */
    HATF_CK_INDEX = 4,     /* the index (last chunk of a complete file) */
    HATF_CK_KIND_MAX_ = 4  /* kinds above are skipped by this reader */
};

enum { HATF_CODEC_STORED = 0, HATF_CODEC_ZSTD = 1 };

/* Address stream codings (chunk header "coding" of an address chunk). */
/* 1: the model without recent frees (hatrace before the recency codes), no longer read;
 * 2: one bump reference (the newest object), still read; 3: the top and per-class
 * bump references (written since); 4: each address as the difference from the
 * previous one (the recorder's fast groups: a few instructions an address),
 * still read; 5: the same, NULL as 0 and the others one up, still read; 6: an
 * address seen earlier in the group as its distance back, the others as a
 * difference (written since). */
enum { HATF_ACODE_MODEL2 = 2, HATF_ACODE_MODEL = 3, HATF_ACODE_DELTA = 4, HATF_ACODE_DELTA_N = 5,
       HATF_ACODE_REF = 6 };
/* A coding of the recorder's fast groups (no model). */
static inline int hatf_acode_is_fast(unsigned coding)
{
    return coding == HATF_ACODE_DELTA || coding == HATF_ACODE_DELTA_N || coding == HATF_ACODE_REF;
}

/* Records chunk codings: 0, a HATF 1.0 stream with its times (written before);
 * 1, a time section (varint length, then its runs) followed by a HATF 1.0
 * stream whose times are all 0 (docs/format-container.md, "Records chunk"). */
enum { HATF_RCODE_HATF = 0, HATF_RCODE_TIMES = 1, HATF_RCODE_RELEASE = 2 };

/* Table entry types in a tables chunk. */
enum {
    HATF_TAB_THREAD_NAME = 1, HATF_TAB_HEAP_NAME = 2,
    HATF_TAB_STACK = 3,    /* id: stack id; frames as varints, innermost first */
    HATF_TAB_MODULE = 4,   /* id: module id; start, end, bias, build-id length (varints), build id, path */
    HATF_TAB_SYMBOL = 5,   /* id: frame address; module id, offset in function (varints), name */
    HATF_TAB_LOSS = 6,     /* id: its number; text: what the trace this one was copied from had lost */
    HATF_TAB_STACK_DEPTH = 7, /* id: the most frames a stack was given (a stack that long may be cut); no bytes */
    HATF_TAB_RESIDENT = 8  /* id: ns since the trace's start; the process's resident bytes then, and of
                              them the recorder's own it knows of (varints; the second may be absent) */
};

/* container_write.c: append one entry to the tables stream (bytes cut at
 * HATF_STR_MAX). @return 0 or a negative code (the writer is then failed). */
struct hatf_writer;
int hatf_writer_table_entry_(struct hatf_writer *w, unsigned type, uint64_t id, const void *bytes, size_t len);
/* A resident entry added to the pending tables, as given (container_tables.c;
 * hatf_writer_resident decides which samples are written). */
int hatf_writer_resident_put_(struct hatf_writer *w, uint64_t time_ns, uint64_t bytes, uint64_t own);

/* Bounds that keep a corrupt size from causing a huge allocation. The writer
 * cuts chunks well below them. */
#define HATF_CK_EVENTS_MAX (1u << 20)
#define HATF_CK_RAW_MAX (64u << 20)
#define HATF_CK_STORED_MAX (HATF_CK_RAW_MAX + (HATF_CK_RAW_MAX >> 7) + 4096)
#define HATF_CK_WRITER_RAW_CUT (8u << 20)  /* the writer emits a chunk past this */
/* The most raw bytes an event takes: in a records chunk its HATF 1.0 record
 * (a comment or attribute string of up to 65535 bytes, its fields, metadata
 * records before it) and its times; in an address chunk a realloc's two
 * codes, each an escape and a varint. A chunk's raw length is at most its
 * events times this, plus HATF_CK_EVENTS_SLACK: so a zstd frame that expands
 * to 64 MiB is refused from its header unless it claims the events to fill
 * them (a bomb of one event cost a 64 MiB buffer and its decompression). */
#define HATF_CK_EVENT_REC_MAX (65536u + 512u)
#define HATF_CK_EVENT_ADDR_MAX (2u * (1u + HATF_VARINT_MAX))
#define HATF_CK_EVENTS_SLACK 4096u
/* Events the writer holds in open groups, all threads together, as a
 * multiple of the group size: past it, each thread's group is cut at
 * HATF_CK_WRITER_GROUP_MIN events, so a program with many busy threads does
 * not keep a full group's buffers (~40 bytes an event) for each of them
 * (not with best: the smallest file, whatever the memory). */
#define HATF_CK_WRITER_PENDING_GROUPS 4
#define HATF_CK_WRITER_GROUP_MIN 8192

#define HATF_TRAILER_LEN 32
#define HATF_TRAILER_MAGIC "HATF-END"

/* Index entry: u64 chunk offset + a copy of its 64-byte header. */
#define HATF_IX_ENTRY 72

typedef struct hatf_chunk_hdr {
    uint8_t kind, codec;
    uint16_t coding;
    uint64_t thread;
    uint32_t seq, events, raw_len, stored_len;
    uint64_t t_first, t_last;
    uint64_t payload_hash;
} hatf_chunk_hdr;

static inline uint32_t hatf_ck_hdr_check(const uint8_t *p)
{
    return (uint32_t)XXH3_64bits(p, 56);
}

static inline void hatf_ck_hdr_pack(uint8_t *p, const hatf_chunk_hdr *h)
{
    memcpy(p, HATF_CK_MAGIC, 4);
    p[4] = h->kind;
    p[5] = h->codec;
    p[6] = (uint8_t)h->coding;
    p[7] = (uint8_t)(h->coding >> 8);
    hatf_store_le64(p + 8, h->thread);
    hatf_store_le32(p + 16, h->seq);
    hatf_store_le32(p + 20, h->events);
    hatf_store_le32(p + 24, h->raw_len);
    hatf_store_le32(p + 28, h->stored_len);
    hatf_store_le64(p + 32, h->t_first);
    hatf_store_le64(p + 40, h->t_last);
    hatf_store_le64(p + 48, h->payload_hash);
    hatf_store_le32(p + 56, hatf_ck_hdr_check(p));
    hatf_store_le32(p + 60, 0);
}

/* @return 0 if p holds a chunk header with a good magic and check, else -1. */
static inline int hatf_ck_hdr_unpack(const uint8_t *p, hatf_chunk_hdr *h)
{
    if (memcmp(p, HATF_CK_MAGIC, 4) != 0) return -1;
    if (hatf_load_le32(p + 56) != hatf_ck_hdr_check(p)) return -1;
    h->kind = p[4];
    h->codec = p[5];
    h->coding = (uint16_t)(p[6] | p[7] << 8);
    h->thread = hatf_load_le64(p + 8);
    h->seq = hatf_load_le32(p + 16);
    h->events = hatf_load_le32(p + 20);
    h->raw_len = hatf_load_le32(p + 24);
    h->stored_len = hatf_load_le32(p + 28);
    h->t_first = hatf_load_le64(p + 32);
    h->t_last = hatf_load_le64(p + 40);
    h->payload_hash = hatf_load_le64(p + 48);
    return 0;
}

static inline uint32_t hatf_trailer_check(const uint8_t *p)
{
    return (uint32_t)XXH3_64bits(p, 16);
}

#endif /* HATF_CONTAINER_FORMAT_H */
