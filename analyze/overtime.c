/* overtime.c — the heap over time (overtime.h). */
#include <stdlib.h>

#include "overtime.h"

void overtime_make(overtime *ot, sitecount *st, uint64_t points, const char *path, uint64_t num, uint64_t den,
                   const hatf_resident *res, size_t nres)
{
    timeline_finish(st->by_time, points);
    timeline_finish(st->by_record, points);
    /* a trace without times (all equal) is drawn by record number */
    int by_records = st->by_time->last_x == st->by_time->x0 && st->by_record->last_x > st->by_record->x0;
    *ot = (overtime){ .tl = by_records ? st->by_record : st->by_time, .by_records = by_records,
                      .max_live_bytes = st->max_live_bytes, .peak_x = by_records ? st->peak_record : st->peak_time,
                      .path = path, .num = num, .den = den, .res = res, .nres = nres };
    if (!st->peak_no) ot->peak_x = ot->tl->x0;  /* nothing was ever live */
}

uint64_t overtime_ns(const overtime *ot, uint64_t dx)
{
    return (uint64_t)((unsigned __int128)dx * ot->num / ot->den);
}

uint64_t overtime_x(const overtime *ot, uint64_t dx) { return ot->by_records ? dx : overtime_ns(ot, dx); }

uint64_t overtime_end_at(const overtime *ot, size_t i)
{
    const timeline *tl = ot->tl;
    return timeline_end(tl, i) - tl->x0 + (ot->by_records && i + 1 == tl->n);
}

uint64_t overtime_end(const overtime *ot, size_t i) { return overtime_x(ot, overtime_end_at(ot, i)); }

uint64_t overtime_peak_at(const overtime *ot) { return ot->peak_x - ot->tl->x0 + (uint64_t)ot->by_records; }

int overtime_has_resident(const overtime *ot) { return ot->nres && !ot->by_records; }

uint64_t overtime_resident(const overtime *ot, size_t i, size_t *k, uint64_t *last)
{
    uint64_t end = overtime_end_at(ot, i), best = 0;
    int any = 0, final = i + 1 == ot->tl->n;  /* the last interval takes the rest (the sample at the end) */
    for (; *k < ot->nres; ++*k) {
        const hatf_resident *s = &ot->res[*k];
        uint64_t x = (uint64_t)((unsigned __int128)s->time_ns * ot->den / ot->num);
        if (!final && (x > ot->tl->x0 ? x - ot->tl->x0 : 0) > end) break;
        uint64_t b = s->bytes - s->own;
        if (b > best) best = b;
        any = 1;
        *last = b;
    }
    return any ? best : *last;
}

uint64_t *overtime_residents(const overtime *ot, int *failed)
{
    const timeline *tl = ot->tl;
    uint64_t *res = overtime_has_resident(ot) ? malloc(tl->n * sizeof *res) : NULL;
    *failed = overtime_has_resident(ot) && tl->n && !res;
    size_t k = 0;
    uint64_t last = 0;
    for (size_t i = 0; res && i < tl->n; i++) res[i] = overtime_resident(ot, i, &k, &last);
    return res;
}

const uint64_t *overtime_detail_at(const overtime_detail *d, const overtime *ot, size_t i)
{
    int last = i + 1 == ot->tl->n;
    return !last && d && (i + 1) % d->every == 0 ? d->bytes + ((i + 1) / d->every - 1) * d->nsites : NULL;
}
