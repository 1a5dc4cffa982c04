/* phases_print.c — the phases as text; see phases_print.h. */
#include "cli_util.h"
#include "phases_print.h"

#define U(x) ((unsigned long long)(x))

void phases_print(hatf_buf *o, const phases *p)
{
    cli_put(o, "\n%-24s %12s %12s %10s %10s %10s %12s %10s %14s %14s\n", "phase", "first_time", "last_time",
            "records", "allocs", "frees", "reallocs", "bytes", "max_live_bytes", "live_at_end");
    for (size_t i = 0; i < p->n; i++) {
        const phase *c = &p->v[i];
        const phase_counts *a = &c->start, *b = &c->end;
        if (i == 0 && b->records == a->records) continue;  /* nothing before the first comment */
        cli_put(o, "%-24.24s %12llu %12llu %10llu %10llu %10llu %12llu %10llu %14llu %14llu\n", c->name,
                U(c->first_time), U(c->last_time), U(b->records - a->records), U(b->allocs - a->allocs),
                U(b->frees - a->frees), U(b->reallocs - a->reallocs), U(b->bytes - a->bytes),
                U(c->max_live_bytes), U(b->live_bytes));
    }
}
