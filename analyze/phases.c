/* phases.c — a trace's figures split at its comments (see phases.h). */
#include <stdlib.h>
#include <string.h>

#include "phases.h"

static int phase_begin(phases *p, const char *name, size_t len, const phase_counts *now)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        phase *v = realloc(p->v, cap * sizeof *v);
        if (!v) return -1;
        p->v = v;
        p->cap = cap;
    }
    phase *c = &p->v[p->n++];
    memset(c, 0, sizeof *c);
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < sizeof c->name; i++) {
        unsigned char ch = (unsigned char)name[i];
        c->name[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    c->name[k] = 0;
    c->start = *now;
    c->max_live_bytes = now->live_bytes;
    return 0;
}

int phases_init(phases *p, const phase_counts *now)
{
    memset(p, 0, sizeof *p);
    return phase_begin(p, "(start)", 7, now);
}

void phases_free(phases *p)
{
    free(p->v);
    memset(p, 0, sizeof *p);
}

int phases_is_phase(const uint8_t *text, size_t len)
{
    static const char *const not_phases[] = { HATF1_HATRACE_MARK, HATF_MAP_PREFIX, HATF_SIGNAL_PREFIX };
    for (size_t i = 0; i < sizeof not_phases / sizeof *not_phases; i++) {
        size_t mark = strlen(not_phases[i]);
        if (len >= mark && memcmp(text, not_phases[i], mark) == 0) return 0;
    }
    return 1;
}

int phases_comment(phases *p, const uint8_t *text, size_t len, const phase_counts *now)
{
    if (!phases_is_phase(text, len)) return 0;
    p->v[p->n - 1].end = *now;
    return phase_begin(p, (const char *)text, len, now);
}

void phases_finish(phases *p, const phase_counts *now)
{
    p->v[p->n - 1].end = *now;
}
