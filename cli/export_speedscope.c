/* export_speedscope.c — hatrace convert --to speedscope: the sites of stats
 * --sites in speedscope's own file format (its file-format-schema.json),
 * one "sampled" profile per figure: the bytes allocated, the calls, the
 * bytes live at the heap's peak and the bytes leaked. Each site is one
 * sample, its stack the call chain outermost first (speedscope's order),
 * weighted by the site's figure; a frame is one place of a call chain
 * (frames_place: a function inlined at a call, or the frame's own function)
 * with its source file and line, so speedscope's views show what --folded
 * shows, and their totals are stats --sites' totals.
 *
 * Folded stacks (stats --folded) open in speedscope too, but carry one
 * figure and no file or line; this file carries all four with the lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "export.h"
#include "export_sink.h"
#include "sites.h"
#include "strtab.h"

#define U(x) ((unsigned long long)(x))

/* the figures given a profile each, in sites_key's terms */
static const struct { int key; const char *name, *unit; } figures[] = {
    { SITES_SORT_BYTES, "bytes allocated", "bytes" },
    { SITES_SORT_COUNT, "allocation calls", "none" },
    { SITES_SORT_AT_PEAK, "bytes live at the heap's peak", "bytes" },
    { SITES_SORT_LEAKED, "bytes leaked (live at the end)", "bytes" },
};
#define NFIGURES (sizeof figures / sizeof *figures)

typedef struct chain { uint32_t *v; size_t n; } chain;

typedef struct speedscope {
    frames *fr;
    strtab places;     /* "name\1file\1line" -> frame number */
    hatf_buf frames;   /* the "frames" array's entries */
    int failed;
} speedscope;

/* The frame number of a place, its entry written the first time. */
static uint32_t frame_of(speedscope *s, const char *name, const char *file, int line)
{
    char key[2300];
    snprintf(key, sizeof key, "%s\1%s\1%d", name, file ? file : "", file ? line : 0);
    int added;
    long i = strtab_id(&s->places, key, &added);
    if (i < 0) { s->failed = 1; return 0; }
    if (added) {
        cli_put(&s->frames, "%s\n    {\"name\": ", i ? "," : "");
        cli_json_string(&s->frames, name);
        if (file) {
            cli_put(&s->frames, ", \"file\": ");
            cli_json_string(&s->frames, file);
            if (line > 0) cli_put(&s->frames, ", \"line\": %d", line);
        }
        cli_put(&s->frames, "}");
    }
    return (uint32_t)i;
}

/* The site's chain of frame numbers, outermost first. */
static chain chain_of(speedscope *s, const site *st)
{
    const uint64_t *f;
    size_t n = sites_stack(s->fr->r, st->stack, &f), cap = 1;
    for (size_t k = 0; k < n; k++) cap += frames_places(s->fr, f[k]);
    chain c = { malloc(cap * sizeof *c.v), 0 };
    if (!c.v) { s->failed = 1; return c; }
    size_t depth = s->fr->r ? hatf_reader_stack_depth(s->fr->r) : 0;
    if (!n) c.v[c.n++] = frame_of(s, st->stack ? "(stack not in the trace)" : "(no stack)", NULL, 0);
    else if (depth && n >= depth) c.v[c.n++] = frame_of(s, SITES_TRUNCATED, NULL, 0);
    for (size_t k = n; k-- > 0;)
        for (size_t i = frames_places(s->fr, f[k]); i-- > 0;) {  /* the frame's own function, then what it inlined */
            const char *file;
            int line;
            char tmp[1024];
            const char *name = frames_place_named(s->fr, f[k], i, &file, &line, tmp, sizeof tmp);
            c.v[c.n++] = frame_of(s, name, file, line);
        }
    return c;
}

static void profile(hatf_buf *o, const sites_list *l, const chain *ch, size_t fig, const char *path)
{
    uint64_t total = 0;
    for (size_t i = 0; i < l->n; i++) total += sites_key(&l->v[i], figures[fig].key);
    cli_put(o, "%s\n  {\"type\": \"sampled\", \"name\": ", fig ? "," : "");
    char name[1200];
    snprintf(name, sizeof name, "%s: %s", path, figures[fig].name);
    cli_json_string(o, name);
    cli_put(o, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %llu, \"samples\": [", figures[fig].unit,
            U(total));
    size_t shown = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!sites_key(&l->v[i], figures[fig].key)) continue;  /* nothing to draw */
        cli_put(o, "%s[", shown++ ? ", " : "");
        for (size_t k = 0; k < ch[i].n; k++) cli_put(o, "%s%u", k ? "," : "", ch[i].v[k]);
        cli_put(o, "]");
    }
    cli_put(o, "], \"weights\": [");
    shown = 0;
    for (size_t i = 0; i < l->n; i++) {
        uint64_t w = sites_key(&l->v[i], figures[fig].key);
        if (w) cli_put(o, "%s%llu", shown++ ? ", " : "", U(w));
    }
    cli_put(o, "]}");
}

int export_speedscope(const export_opts *o)
{
    sites_list l;
    export_sink *k;
    int rc = export_open_sites(o, SINK_PLAIN, &l, &k);
    if (rc == CLI_FAIL) return rc;
    speedscope s = { .fr = &l.fr };
    hatf_buf_init(&s.frames);
    chain *ch = calloc(l.n ? l.n : 1, sizeof *ch);
    if (!ch || strtab_init(&s.places)) s.failed = 1;
    for (size_t i = 0; i < l.n && !s.failed; i++) ch[i] = chain_of(&s, &l.v[i]);
    hatf_buf *out = sink_buf(k);
    if (!s.failed) {
        cli_put(out, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\", \"name\": ");
        cli_json_string(out, o->in);
        cli_put(out, ", \"exporter\": \"hatrace %s\", \"activeProfileIndex\": 0,\n \"shared\": {\"frames\": [",
                HATRACE_VERSION);
        hatf_buf_append(out, s.frames.p, s.frames.len);
        cli_put(out, "\n ]},\n \"profiles\": [");
        for (size_t fig = 0; fig < NFIGURES; fig++) profile(out, &l, ch, fig, o->in);
        cli_put(out, "\n ]}\n");
    }
    int ok = !s.failed && !s.frames.failed && !out->failed;
    if (!ok) cli_error("%s: out of memory", o->out);
    if (sink_close(k, ok) < 0) ok = 0;
    for (size_t i = 0; ch && i < l.n; i++) free(ch[i].v);
    free(ch);
    strtab_free(&s.places);
    hatf_buf_free(&s.frames);
    sites_list_free(&l);
    return ok ? rc : CLI_FAIL;
}
