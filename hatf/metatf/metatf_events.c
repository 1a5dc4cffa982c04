/* metatf_events.c — the records of a DTD that says "events hatf" as heap
 * events (docs/metatf.md, "Heap events"). The records are decoded by the
 * DTD-driven reader (metatf_read.c); this maps them by name only:
 *
 *   a record named after a hatf_op (alloc, free, realloc-inplace, ...,
 *   thread-destroy) is that event; its fields size, address, old, new,
 *   thread, heap, time and attributes (a number or bytes) fill the event's,
 *   any other field is passed over, a missing one is 0;
 *   a comment record (= comment) is a comment event;
 *   a leading hatrace-info record says the attribute bytes are hatrace's and
 *   carries the header, as the mark of a HATF 1.0 stream does;
 *   every other record (metadata, section, names) is no event.
 */
#include <string.h>

#include "metatf_read.h"

const uint8_t *mtf_hatrace_info(hatf_metatf_reader *r, size_t *len)
{
    const hatf_metatf_dtd *d = r->dtd;
    r->foreign = 1;
    if (r->cur >= d->nsects || r->end - r->pos < d->tag_width) return NULL;
    uint32_t tag = 0;
    for (unsigned i = 0; i < d->tag_width; i++) {
        unsigned k = r->little ? d->tag_width - 1 - i : i;
        tag = tag << 8 | r->buf[r->pos + k];
    }
    const mtf_rec *rec = mtf_dtd_record(d, tag);
    if (!rec || strcmp(rec->name, "hatrace-info") != 0 || mtf_next(r) != 1) return NULL;
    for (size_t i = 0; i < r->nitems; i++) {
        const mtf_item *it = &r->items[i];
        if (it->kind == MTF_IT_FIELD && it->shape != MTF_V_NUM && strcmp(it->node->name, "text") == 0) {
            r->foreign = 0;
            *len = it->n;
            return it->p;
        }
    }
    return NULL;
}

static int too_long(hatf_metatf_reader *r, const char *what)
{
    return hatf_err_set(&r->err, HATF_E_LIMIT, r->rec_at, "record '%s': %s longer than 65535 bytes", r->rec->name, what);
}

int mtf_next_event(hatf_metatf_reader *r, hatf_event *ev)
{
    for (;;) {
        int rc = mtf_next(r);
        if (rc <= 0) return rc;
        const mtf_rec *rec = r->rec;
        memset(ev, 0, sizeof *ev);
        if (rec->predef == MTF_P_COMMENT) {
            const mtf_item *it = r->nitems ? &r->items[0] : NULL;
            if (!it || it->shape == MTF_V_NUM) continue;
            if (it->n > UINT16_MAX) return too_long(r, "the comment is");
            ev->op = HATF_OP_COMMENT;
            ev->data = it->p;
            ev->data_len = (uint16_t)it->n;
            return 1;
        }
        if (rec->predef != MTF_P_NONE) continue;
        int op = hatf_op_from_name(rec->name, strlen(rec->name));
        if (op < 0 || op >= HATF_OP_COMMENT) continue;
        ev->op = (uint8_t)op;
        int depth = 0;
        for (size_t i = 0; i < r->nitems; i++) {
            const mtf_item *it = &r->items[i];
            if (it->kind == MTF_IT_GROUP || it->kind == MTF_IT_REPEAT) depth++;
            else if (it->kind == MTF_IT_GROUP_END || it->kind == MTF_IT_REPEAT_END) depth--;
            if (it->kind != MTF_IT_FIELD || depth) continue;
            const char *n = it->node->name;
            uint64_t v = it->num;
            if (!strcmp(n, "size")) ev->size = v;
            else if (!strcmp(n, "address") || !strcmp(n, "old")) ev->addr = v;
            else if (!strcmp(n, "new")) ev->new_addr = v;
            else if (!strcmp(n, "thread")) ev->thread = v;
            else if (!strcmp(n, "heap")) ev->heap = v;
            else if (!strcmp(n, "time")) ev->time = v;
            else if (!strcmp(n, "attributes")) {
                if (it->shape == MTF_V_NUM) {
                    ev->attr = v;
                } else {
                    if (it->n > UINT16_MAX) return too_long(r, "the attributes are");
                    ev->attr_is_bytes = r->foreign ? HATF_ATTRS_FOREIGN : HATF_ATTRS_HATRACE;
                    ev->data = it->p;
                    ev->data_len = (uint16_t)it->n;
                }
            }
        }
        return 1;
    }
}
