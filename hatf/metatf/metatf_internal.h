/* metatf_internal.h — the parsed DTD, shared by metatf_dtd.c (parser),
 * metatf_read.c (the DTD-driven reader) and metatf_write.c (not installed).
 * The language and the file layout: docs/metatf.md. */
#ifndef HATF_METATF_INTERNAL_H
#define HATF_METATF_INTERNAL_H

#include <stdint.h>

#include "hatf_metatf.h"

#define MTF_NAME_MAX 32        /* names: 1..31 bytes of [A-Za-z0-9_.-], a letter first */
#define MTF_DTD_MAX (1u << 20) /* bytes of DTD text */
#define MTF_SECT_MAX 16
#define MTF_DECL_MAX 256
#define MTF_NODE_MAX 4096
#define MTF_REC_MAX 256
#define MTF_DEPTH_MAX 8        /* groups and repeats nested */
#define MTF_REPEAT_MAX 65535   /* elements of one repeated field */

/* value types: how a stored value is shown, which widths it may take */
enum { MTF_T_UINT, MTF_T_INT, MTF_T_ADDR, MTF_T_TEXT, MTF_T_BYTES, MTF_T_MIXED };
/* width codes, as metadata records carry them: 0, 1, 2, 4, 8 bytes, then
 * vfields (a 1-, 2- or 4-byte length, then that many bytes) and the
 * address class of the file header (4 or 8 bytes) */
enum { MTF_W_V1 = 9, MTF_W_V2 = 10, MTF_W_V4 = 11, MTF_W_ADDR = 12 };
static inline int mtf_width_is_v(unsigned w) { return w >= MTF_W_V1 && w <= MTF_W_V4; }
/* interpretations, with their metadata codes (0-4 as HATF 1.0's) */
enum {
    MTF_I_NONE, MTF_I_DEFAULT, MTF_I_BASEOFFSET, MTF_I_DELTA, MTF_I_STRIDE,
    MTF_I_SECTIONOFFSET, MTF_I_SECTIONSTRIDE, MTF_I_COUNT_
};
enum { MTF_S_RECORDS, MTF_S_STRINGS, MTF_S_BYTES };
/* predefined records */
enum { MTF_P_NONE, MTF_P_COMMENT, MTF_P_METADATA, MTF_P_SECTION };
/* record body nodes */
enum { MTF_N_FIELD, MTF_N_GROUP, MTF_N_REPEAT };

/* A field's encoding: declared at the top (shared by every record naming it,
 * with one state; numbered ones can be changed by metadata records) or in a
 * record body (its own). For the section interpretations a3 is the section's
 * index, a4 the entry size of sectionStride. */
typedef struct mtf_decl {
    char name[MTF_NAME_MAX];
    int number;               /* metadata field code 0..255, or -1 */
    int shared;               /* declared at the top */
    uint8_t type, width, interp;
    uint64_t a3, a4;
} mtf_decl;

typedef struct mtf_node {
    char name[MTF_NAME_MAX];
    uint8_t kind;             /* MTF_N_* */
    int decl;                 /* FIELD: index in decls */
    int child;                /* GROUP, REPEAT: first child node, or -1 */
    int next;                 /* next sibling, or -1 */
    int count_node;           /* REPEAT: the earlier sibling field holding the count, or -1 */
    uint32_t count;           /* REPEAT: the count when count_node is -1 */
} mtf_node;

typedef struct mtf_rec {
    char name[MTF_NAME_MAX];
    uint32_t tag;
    uint8_t predef;           /* MTF_P_* */
    int first;                /* first body node, or -1 */
} mtf_rec;

typedef struct mtf_sect {
    char name[MTF_NAME_MAX];
    uint8_t kind;             /* MTF_S_* */
} mtf_sect;

struct hatf_metatf_dtd {
    char name[64];
    unsigned tag_width;       /* 1, 2 or 4 bytes */
    int events;               /* "events hatf" */
    mtf_decl *decls;
    size_t ndecls;
    mtf_node *nodes;
    size_t nnodes;
    mtf_rec *recs;
    size_t nrecs;
    mtf_sect sects[MTF_SECT_MAX];
    size_t nsects;
    int16_t by_number[256];   /* metadata field code -> decl, or -1 */
};

/* The record with this tag, or NULL. */
const mtf_rec *mtf_dtd_record(const hatf_metatf_dtd *d, uint32_t tag);
/* The names of the interpretations and types, as the DTD spells them. */
extern const char *const mtf_interp_names[MTF_I_COUNT_];
/* Arguments an interpretation takes in a metadata record (8 bytes each). */
unsigned mtf_interp_args(unsigned interp);

#endif /* HATF_METATF_INTERNAL_H */
