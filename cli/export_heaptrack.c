/* export_heaptrack.c — hatrace convert --to heaptrack: a data file of
 * heaptrack 1.4 (file format 3, the text heaptrack_interpret writes), which
 * heaptrack_print and heaptrack_gui open: zstd-compressed when OUT ends in
 * .zst, gzip when in .gz (heaptrack picks the decompressor by the name),
 * plain text otherwise.
 *
 * The lines, each a letter and hex numbers: "s" a string (its length, then
 * it; strings are numbered from 1), "i" a frame address with its module,
 * and its function, file and line, then the same for each function inlined
 * at it (innermost first), "t" a node of the call tree (its "i", its parent
 * node; numbered from 1, 0 the root), "a" an allocation kind (a size and a
 * node; numbered from 0), "+" and "-" an object of a kind made and ended,
 * "c" the time in ms, "R" the resident pages.
 *
 * Objects live and end by the rule of stats and stats --sites (heaplive.h):
 * each change of a kind's live objects becomes its "+" and "-" lines, so a
 * heap-destroy ends its objects, and a realloc ends the old block before
 * it makes the new one, as heaptrack records it. What heaptrack counts
 * otherwise (docs/tools.md, "convert --to heaptrack"): calls that failed and
 * realloc(p, 0) make no "+" (heaptrack sees no object), its temporary
 * allocations are a "-" right after the "+" of the same kind, and its
 * leak total leaves out its built-in suppressions (heaptrack_print
 * --disable-builtin-suppressions counts them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "export.h"
#include "export_sink.h"
#include "frames.h"
#include "heaplive.h"
#include "sites.h"
#include "strtab.h"

#define U(x) ((unsigned long long)(x))
#define PAGE 4096  /* the resident pages' size in the file's "I" line */

typedef struct heaptrack {
    hatf_buf *o;
    frames fr;
    strtab strings;    /* numbered from 0 here, from 1 in the file */
    addrmap ips;       /* frame address -> its "i" number */
    addrmap nodes;     /* (ip << 32 | parent) -> its "t" number */
    addrmap stacks;    /* stack id -> its innermost node */
    addrmap kinds;     /* (size, node) mixed -> its "a" number (a), size, node (rec) */
    heaplive live;     /* cell tags: "a" numbers */
    addrmap heaps;     /* heap id -> dense number */
    uint64_t nips, nnodes, nkinds;
    int failed;
} heaptrack;

/* s on its line: heaptrack reads a line at a time, so a line break in it becomes a space */
static void put_line_text(hatf_buf *o, const char *s)
{
    size_t at = o->len, n = strlen(s);
    hatf_buf_append(o, s, n);
    for (size_t i = at; !o->failed && i < at + n; i++)
        if (o->p[i] == '\n' || o->p[i] == '\r') o->p[i] = ' ';
}

static uint64_t string_of(heaptrack *h, const char *s)
{
    int added;
    long i = strtab_id(&h->strings, s, &added);
    if (i < 0) { h->failed = 1; return 0; }
    if (added) {
        cli_put(h->o, "s %zx ", strlen(s));
        put_line_text(h->o, s);
        hatf_buf_append(h->o, "\n", 1);
    }
    return (uint64_t)i + 1;
}

/* The "i" number of frame address addr, its line (and its strings) written the first time. */
static uint64_t ip_of(heaptrack *h, uint64_t addr)
{
    int added;
    addrmap_entry *e = addrmap_put(&h->ips, addr, &added);
    if (!e) { h->failed = 1; return 0; }
    if (!added) return e->size;
    const hatf_module *m = frames_module_of(&h->fr, addr);
    uint64_t mod = m ? string_of(h, m->path[0] ? m->path : "(main program)") : 0;
    size_t n = frames_places(&h->fr, addr);
    uint64_t fn[HATF_STACK_MAX + 1], file[HATF_STACK_MAX + 1];
    int line[HATF_STACK_MAX + 1];
    if (n > HATF_STACK_MAX + 1) n = HATF_STACK_MAX + 1;
    for (size_t i = 0; i < n; i++) {  /* innermost first, as heaptrack lists them */
        const char *f;
        char tmp[1024];
        int named = frames_place(&h->fr, addr, i, &f, &line[i]) != NULL;
        const char *name = frames_place_named(&h->fr, addr, i, &f, &line[i], tmp, sizeof tmp);
        fn[i] = named ? string_of(h, name) : 0;  /* unnamed: heaptrack shows the address */
        file[i] = f ? string_of(h, f) : 0;
        if (!f) line[i] = 0;
    }
    cli_put(h->o, "i %llx %llx", U(addr), U(mod));
    for (size_t i = 0; i < n && (fn[0] || file[0] || n > 1); i++)
        cli_put(h->o, " %llx %llx %x", U(fn[i]), U(file[i]), (unsigned)line[i]);
    cli_put(h->o, "\n");
    return e->size = ++h->nips;
}

/* The innermost node of stack id's call chain, its nodes written the first time (0: no stack). */
static uint64_t node_of_stack(heaptrack *h, uint64_t id)
{
    int added;
    addrmap_entry *e = addrmap_put(&h->stacks, id, &added);
    if (!e) { h->failed = 1; return 0; }
    if (!added) return e->size;
    const uint64_t *f;
    size_t n = sites_stack(h->fr.r, id, &f);
    uint64_t parent = 0;
    for (size_t k = n; k-- > 0 && !h->failed;) {  /* from the outermost frame */
        uint64_t ip = ip_of(h, f[k]);
        addrmap_entry *t = addrmap_put(&h->nodes, ip << 32 | parent, &added);
        if (!t) { h->failed = 1; return 0; }
        if (added) {
            t->size = ++h->nnodes;
            cli_put(h->o, "t %llx %llx\n", U(ip), U(parent));
        }
        parent = t->size;
    }
    e = addrmap_find(&h->stacks, id);  /* the map may have moved */
    return e->size = parent;
}

/* The "a" number of objects of size made at node, written the first time. */
static long kind_of(heaptrack *h, uint64_t size, uint64_t node)
{
    uint64_t key = (size * 0x9E3779B97F4A7C15ull) ^ node;
    for (;; key++) {  /* two kinds that mix to one key: the next key */
        int added;
        addrmap_entry *e = addrmap_put(&h->kinds, key, &added);
        if (!e) return -1;
        if (added) {
            e->size = size, e->rec = node, e->a = (uint32_t)h->nkinds++;
            cli_put(h->o, "a %llx %llx\n", U(size), U(node));
        } else if (e->size != size || e->rec != node) {
            continue;
        }
        return e->a;
    }
}

/* heaplive's callback: objects of kind tag were made or ended */
static void kind_live(void *ctx, uint32_t tag, uint32_t heap, int64_t objects, int64_t bytes)
{
    (void)heap, (void)bytes;
    heaptrack *h = ctx;
    for (int64_t i = 0; i < objects; i++) cli_put(h->o, "+ %x\n", tag);
    for (int64_t i = 0; i < -objects; i++) cli_put(h->o, "- %x\n", tag);
}

/* heaplive_event's cell: the heap's and the kind's of the event's size and stack */
static long kind_cell(void *ctx, uint32_t heap, const hatf_event *ev)
{
    heaptrack *h = ctx;
    long kind = kind_of(h, ev->size, node_of_stack(h, sites_event_stack(ev)));
    return kind < 0 || h->failed ? -1 : heaplive_cell_of(&h->live, heap, (uint32_t)kind);
}

static int codec_of(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && !strcmp(path + n - 4, ".zst")) return SINK_ZSTD;
    if (n > 3 && !strcmp(path + n - 3, ".gz")) return SINK_GZIP;
    return SINK_PLAIN;
}

/* Every event of src as heaptrack's lines, with its times and resident samples. */
static int write_events(heaptrack *h, export_sink *k, hatf_source *src, const char *path)
{
    uint64_t num, den, ms = 0, first = 0;
    cli_time_unit(src, &num, &den);
    hatf_reader *r = hatf_source_container(src);
    const hatf_resident *res = NULL;
    size_t nres = r ? hatf_reader_resident(r, &res) : 0, next_res = 0;
    hatf_event ev;
    int n, started = 0;
    while ((n = hatf_source_next(src, &ev)) > 0) {
        if (ev.op == HATF_OP_COMMENT) continue;
        uint64_t ns = (uint64_t)((unsigned __int128)ev.time * num / den);
        if (!started) first = ns, started = 1;
        if (ns >= first && (ns - first) / 1000000 > ms) {
            ms = (ns - first) / 1000000;
            cli_put(h->o, "c %llx\n", U(ms));
        }
        for (; next_res < nres && res[next_res].time_ns <= ns; next_res++)
            cli_put(h->o, "R %llx\n", U((res[next_res].bytes - res[next_res].own) / PAGE));
        if (heaplive_event(&h->live, &h->heaps, &ev, kind_cell, h) < 0 || h->failed) {
            cli_error("%s: out of memory", path);
            return -1;
        }
        if (sink_flush(k, 0) < 0) return -1;
    }
    for (; next_res < nres; next_res++)
        cli_put(h->o, "R %llx\n", U((res[next_res].bytes - res[next_res].own) / PAGE));
    if (n < 0) {
        cli_source_failed(path, src);
        return -1;
    }
    return 0;
}

int export_heaptrack(const export_opts *o)
{
    hatf_source *src = cli_open_source(o->in, o->from);
    if (!src) return CLI_FAIL;
    export_sink *k = sink_open(o->out, o->in, o->force, codec_of(o->out));
    if (!k) {
        hatf_source_close(src);
        return CLI_FAIL;
    }
    hatf_reader *r = hatf_source_container(src);
    heaptrack h = { .o = sink_buf(k) };
    int ok = !frames_init(&h.fr, r, 1, 1) && !strtab_init(&h.strings) && !addrmap_init(&h.ips) &&
             !addrmap_init(&h.nodes) && !addrmap_init(&h.stacks) && !addrmap_init(&h.kinds) &&
             !addrmap_init(&h.heaps) && !heaplive_init(&h.live, kind_live, &h);
    if (!ok) cli_error("out of memory");
    const hatf_info *info = r ? hatf_reader_info(r) : NULL;
    /* heaptrack 1.4.0, file format 3 (strings with their lengths) */
    cli_put(h.o, "v 10400 3\nX ");
    put_line_text(h.o, info && info->cmdline[0] ? info->cmdline : o->in);
    cli_put(h.o, "\nI %x 0\n", PAGE);
    if (ok && write_events(&h, k, src, o->in) < 0) ok = 0;
    if (sink_close(k, ok) < 0) ok = 0;
    heaplive_free(&h.live);
    frames_free(&h.fr);
    strtab_free(&h.strings);
    addrmap_free(&h.ips);
    addrmap_free(&h.nodes);
    addrmap_free(&h.stacks);
    addrmap_free(&h.kinds);
    addrmap_free(&h.heaps);
    int rc = cli_read_end(o->in, src, ok ? CLI_OK : CLI_FAIL);
    hatf_source_close(src);
    return rc;
}
