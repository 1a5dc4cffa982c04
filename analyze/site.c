/* site.c — a site's figures and a stack's frames; see site.h. */
#include <stdlib.h>

#include "site.h"

size_t sites_stack(hatf_reader *r, uint64_t id, const uint64_t **out)
{
    return r && id ? hatf_reader_stack(r, id, out) : 0;
}

uint64_t sites_event_stack(const hatf_event *ev)
{
    hatf_attrs a;
    hatf_event_attrs(ev, &a);
    return hatf_attrs_get(&a, HATF_A_STACK, 0);
}

uint64_t sites_key(const site *s, int sort)
{
    switch (sort) {
    case SITES_SORT_BYTES: return s->bytes;
    case SITES_SORT_PEAK: return s->peak_bytes;
    case SITES_SORT_AT_PEAK: return s->at_peak_bytes;
    case SITES_SORT_LEAKED: return s->live_bytes;
    case SITES_SORT_TEMPORARY: return s->temporary;
    default: return s->calls;
    }
}

static int sort_key;
static int cmp_site(const void *a, const void *b)
{
    const site *x = a, *y = b;
    uint64_t kx = sites_key(x, sort_key), ky = sites_key(y, sort_key);
    if (kx != ky) return kx > ky ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

void sites_sort(site *v, size_t n, int sort)
{
    sort_key = sort;
    if (n) qsort(v, n, sizeof *v, cmp_site);
}
