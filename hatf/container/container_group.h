/* container_group.h — one thread's chunk group and its encoding.
 *
 * A group is the unit the writer appends: a records chunk (time section and
 * HATF stream, already encoded as the events came) and an address chunk (the
 * addresses, coded against a fresh model when the group is encoded). Encoding
 * a group reads only the group and a context of scratch state, so any thread
 * may do it: the writer itself, or a helper thread (container_jobs.h).
 */
#ifndef HATF_CONTAINER_GROUP_H
#define HATF_CONTAINER_GROUP_H

#include <zstd.h>

#include "container_addr.h"
#include "container_format.h"

typedef struct hatf_group {
    hatf_chunk_hdr h;         /* thread, seq, events, t_first, t_last: set when sealed */
    hatf_buf tsec;            /* the time section, its last run closed */
    hatf_buf rec;             /* the HATF 1.0 records */
    hatf_buf rsec;            /* the release section: a varint per REALLOC_MOVE or REALLOC_FREE (a lead) */
    hatf_aitem *items;        /* the addresses, in event order (a group coded in full) */
    size_t nitems, cap_items;
    int fast;                 /* set when it starts: coded the cheap way, its addresses in adr */
    int packed;               /* a fast group whose chunks zstd packs at HATF_PACK_LEVEL (else stored) */
    hatf_buf adr;             /* a fast group's address codes (coding 6), made as the events came */
    hatf_aref aref;           /* their state: references, count, the group's number in the writer's table */
} hatf_group;

/* zstd's level for packed fast groups: about 550 MB/s on the fast coding's
 * 4-9 bytes per event (7-15 ns an event), which it makes 2-7 times smaller
 * (bench/results/recorder.md, "Packed fast groups"). */
#define HATF_PACK_LEVEL 1

/* An encoder's state: the address model and zstd. */
typedef struct hatf_genc {
    hatf_amodel am;
    ZSTD_CCtx *cctx;
    ZSTD_CCtx *pack;          /* at HATF_PACK_LEVEL, for packed fast groups; made when first needed */
    void (*pause)(void);      /* if set, called between slices of the work (a helper yields there) */
} hatf_genc;

/* A group's encoding: the assembled payloads, then the two chunks. */
typedef struct hatf_gout {
    hatf_buf rbuf, abuf;      /* scratch: records payload, address stream */
    hatf_buf out;             /* records chunk then address chunk */
    size_t len1;              /* bytes of the records chunk in out */
} hatf_gout;

/* A zstd context at level, and the address model sized for max_items at once.
 * @return 0 or HATF_E_NOMEM (then nothing is left allocated). */
int hatf_genc_init(hatf_genc *c, int level, size_t max_items);
void hatf_genc_free(hatf_genc *c);

void hatf_gout_free(hatf_gout *o);

/* Encode g into o->out (emptied first): its records chunk, then its address
 * chunk; o->len1 = bytes of the first. g is only read. A fast group costs a
 * few instructions per event instead of the model's hundreds: its address
 * codes (coding 6, HATF_ACODE_REF) are made as its events come, and both
 * chunks are stored, or packed by zstd at HATF_PACK_LEVEL.
 * @return 0, HATF_E_NOMEM or HATF_E_IO (zstd failed). */
int hatf_group_encode(hatf_genc *c, const hatf_group *g, hatf_gout *o);

/* Compress src behind its chunk header, appended to out; pause (if not NULL)
 * is called between pieces of the compression. cctx NULL: stored as it is. */
int hatf_chunk_pack(ZSTD_CCtx *cctx, hatf_chunk_hdr *h, const uint8_t *src, size_t len, hatf_buf *out,
                    void (*pause)(void));

void hatf_group_free(hatf_group *g);

#endif
