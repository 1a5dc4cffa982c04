/* phases.c — a trace's figures split at its comments (see phases.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "phases.h"

#define U(x) ((unsigned long long)(x))

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

void phases_print(hatf_buf *o, const phases *p, int json)
{
    if (!json)
        cli_put(o, "\n%-24s %12s %12s %10s %10s %10s %12s %10s %14s %14s\n", "phase", "first_time", "last_time",
                "records", "allocs", "frees", "reallocs", "bytes", "max_live_bytes", "live_at_end");
    else
        cli_put(o, "[");
    int shown = 0;
    for (size_t i = 0; i < p->n; i++) {
        const phase *c = &p->v[i];
        const phase_counts *a = &c->start, *b = &c->end;
        if (i == 0 && b->records == a->records) continue;  /* nothing before the first comment */
        if (json) {
            cli_put(o, "%s\n    {\"name\": ", shown++ ? "," : "");
            cli_json_string(o, c->name);
            cli_put(o, ", \"first_time\": %llu, \"last_time\": %llu, \"records\": %llu, \"allocs\": %llu, "
                       "\"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, \"max_live_bytes\": %llu, "
                       "\"live_bytes_at_end\": %llu}",
                    U(c->first_time), U(c->last_time), U(b->records - a->records), U(b->allocs - a->allocs),
                    U(b->frees - a->frees), U(b->reallocs - a->reallocs), U(b->bytes - a->bytes),
                    U(c->max_live_bytes), U(b->live_bytes));
        } else {
            cli_put(o, "%-24.24s %12llu %12llu %10llu %10llu %10llu %12llu %10llu %14llu %14llu\n", c->name,
                    U(c->first_time), U(c->last_time), U(b->records - a->records), U(b->allocs - a->allocs),
                    U(b->frees - a->frees), U(b->reallocs - a->reallocs), U(b->bytes - a->bytes),
                    U(c->max_live_bytes), U(b->live_bytes));
        }
    }
    if (json) cli_put(o, "\n  ]");
}
