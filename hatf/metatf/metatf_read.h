/* metatf_read.h — the Meta-TF reader's state, shared by metatf_read.c (the
 * DTD-driven decoder), metatf_events.c (records as heap events) and source.c
 * (not installed). */
#ifndef HATF_METATF_READ_H
#define HATF_METATF_READ_H

#include <stddef.h>
#include <stdint.h>

#include "metatf_internal.h"

/* A field's encoding as the metadata read so far set it. */
typedef struct mtf_state {
    uint8_t width, interp, lnz;  /* lnz: last non-zero width */
    uint64_t a3, a4, prev;
} mtf_state;

/* One decoded value, or a bracket around a group, a repeat, an element. */
enum { MTF_IT_FIELD, MTF_IT_GROUP, MTF_IT_GROUP_END, MTF_IT_REPEAT, MTF_IT_REPEAT_END, MTF_IT_ELEM, MTF_IT_ELEM_END };
enum { MTF_V_NUM, MTF_V_BYTES, MTF_V_STRING };
typedef struct mtf_item {
    uint8_t kind, shape, width;
    const mtf_node *node;
    uint64_t num;          /* a number, or a section field's stored offset or index */
    const uint8_t *p;      /* bytes of a vfield or a section's string */
    size_t n;
} mtf_item;

typedef struct mtf_sect_data {
    uint64_t off, len, count;   /* from the section header */
    const uint8_t *data;        /* contents so far (the file's, or ext once section records add to them) */
    size_t dlen;
    hatf_buf ext;
} mtf_sect_data;

struct hatf_metatf_reader {
    const uint8_t *buf;
    size_t len;
    hatf_metatf_dtd *dtd;
    int little, embedded;
    unsigned addr_bytes;
    char url[256];
    uint64_t nrecords;          /* the header's count, UINT64_MAX: not known */
    mtf_sect_data sect[MTF_SECT_MAX];
    mtf_state *st;              /* per decl */
    uint64_t *last_val;         /* per node: its last value (repeat counts) */
    /* position */
    size_t cur;                 /* records section being read; nsects at the end */
    uint64_t pos, end, in_sect, records;
    /* the last record */
    const mtf_rec *rec;
    uint64_t rec_at;
    mtf_item *items;
    size_t nitems, cap_items;
    uint8_t md_op, md_code;     /* a metadata record's operation, code, arguments */
    const char *md_field;
    uint64_t md_a3, md_a4;
    unsigned md_section;        /* a section record's section and bytes added */
    size_t md_added;
    hatf_err err;
    /* metatf_events.c */
    int foreign;                /* no hatrace-info record: attribute bytes are another writer's */
};

/* Open a Meta-TF file held in buf (owned by the caller, kept until close);
 * path locates a DTD given by a relative URL. @return NULL with *err set. */
hatf_metatf_reader *mtf_open(const uint8_t *buf, size_t len, const char *path, hatf_err *err);
void mtf_close(hatf_metatf_reader *r);
/* Back to the first record, every field's encoding as the DTD declares it. */
void mtf_rewind(hatf_metatf_reader *r);
/* Decode the next record into r->rec, r->items. @return 1, 0 at the end, or an error (r->err). */
int mtf_next(hatf_metatf_reader *r);

/* metatf_events.c: a DTD with "events hatf" read as heap events. */
/* The text of a leading hatrace-info record (consumed), or NULL when the
 * first record is not one. */
const uint8_t *mtf_hatrace_info(hatf_metatf_reader *r, size_t *len);
/* The next heap event. @return 1, 0 at the end, or an error (r->err). */
int mtf_next_event(hatf_metatf_reader *r, hatf_event *ev);

#endif /* HATF_METATF_READ_H */
