/* stats.c — hatrace stats: the figures of the paper's Table 3 and more.
 *
 * Live objects are tracked in an address map as the events come in global
 * time order: alloc and realloc-new add an object, free and realloc-free
 * remove one, realloc-inplace replaces its size, realloc-move moves it, and
 * heap-destroy removes what is still live in that heap (heaplive.c, which
 * stats --sites shares; here a cell per heap). Peaks are taken after every
 * event. Addresses that are not live when freed are counted, not fatal
 * (validate reports them). Heaps that share a name (one per request, say) are
 * also summed per name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "addrmap.h"
#include "cli_util.h"
#include "commands.h"
#include "heaplive.h"
#include "lookahead.h"
#include "phases_print.h"
#include "sitediff.h"
#include "sites.h"
#include "stats.h"
#include "temporary.h"

static const char help[] =
    "usage: hatrace stats [--json] [--from FORMAT] [-j N] FILE\n"
    "       hatrace stats --follow [--json] [--top N] [--interval MS] [--timeout S] FILE\n"
    "       hatrace stats [--json] [--from FORMAT] FILE|FOLDER...\n"
    "       hatrace stats --sites [--by stack|function|line] [--sort KEY] [--top N] [--json | --folded]\n"
    "                     [--no-demangle] [--no-lines] [--suppress FILE] [--no-builtin-suppressions] FILE\n"
    "       hatrace stats --diff [--by stack|function|line] [--sort KEY] [--top N] [--json | --folded] OLD NEW\n"
    "       hatrace stats --timeline [--points N] [--json] FILE\n"
    "       hatrace stats --massif [--points N] [--no-demangle] [--no-lines] FILE > massif.out\n"
    "\n"
    "Count what a trace did, in global time order: alloc, free and realloc\n"
    "records, bytes allocated, the peak number and size of live objects, the\n"
    "average size, per-thread and per-heap breakdowns, a size histogram (powers\n"
    "of two), counts by function, the duration, and for a container its\n"
    "counters (dropped events, ring waits) and any damage.\n"
    "\n"
    "Several traces, or a folder (its *.hatf files: the processes of one\n"
    "recording): one row per process, its program, pid, parent pid, events,\n"
    "peak live bytes, leaked bytes and temporary allocations, and the totals.\n"
    "\n"
    "  --json         print one JSON object instead of a table\n"
    "  --from FORMAT  hatrace (default), hatf1.0, text or metatf\n"
    "  --sites        allocation sites instead (traces recorded with --stacks):\n"
    "                 per call stack, calls, bytes, the site's peak of live objects\n"
    "                 and bytes, objects still live at the end (leaked), and the\n"
    "                 call chain by function name, with each call's source\n"
    "                 file:line where this machine has the module's debug\n"
    "                 information (same build id)\n"
    "  --suppress FILE  with --sites: leaks to take out of the sites' leaked\n"
    "                 figures, in heaptrack's shape (lines leak:PATTERN matched in\n"
    "                 a frame's function, module or source file, * ^ $ as in\n"
    "                 LeakSanitizer's; # comments), each said with what it hid\n"
    "                 (docs/tools.md, \"Suppressions\"); more than one may be given\n"
    "  --no-builtin-suppressions  keep the C++ runtime's one-time allocations\n"
    "                 (libstdc++'s emergency pool), suppressed by default, among\n"
    "                 the leaks\n"
    "  --by WHAT      one line per call stack (stack, the default), or per\n"
    "                 place the allocation was made: the innermost function\n"
    "                 that is not operator new (function), or that and the\n"
    "                 source line of its call (line), each with its sites'\n"
    "                 figures summed (not their own peaks) and its three first\n"
    "                 stacks (text and JSON)\n"
    "  --sort KEY     sites by count (calls, default), bytes, peak (the site's\n"
    "                 own peak of live bytes), at-peak (the bytes it held when the\n"
    "                 whole heap was at its peak, max_live_bytes: heaptrack's peak\n"
    "                 consumers), leaked (bytes still live at the end) or\n"
    "                 temporary (objects freed by their thread before it made any\n"
    "                 other allocation: heaptrack's temporary allocations)\n"
    "  --top N        the first N sites (default 20; 0: all; with --folded, all)\n"
    "  --folded       for flame graphs (flamegraph.pl, speedscope, inferno): one\n"
    "                 line per call chain, 'outermost;...;innermost VALUE', with\n"
    "                 the --sort key's figure (calls, bytes, peak, at-peak or\n"
    "                 leaked bytes, temporary allocations);\n"
    "                 frames by function name, chains that differ only in offsets\n"
    "                 add up, frames without a name as module+0xfile-address\n"
    "  --diff         what changed per site from trace OLD to NEW (two runs of\n"
    "                 one program): sites matched by call chain (--by stack) or\n"
    "                 place (function, line); in each, calls, bytes, bytes held at\n"
    "                 the heap's peak, leaked bytes and temporary allocations,\n"
    "                 old, new and the change; the changed sites by the largest\n"
    "                 absolute change of the --sort figure (default bytes; peak\n"
    "                 and at-peak: the bytes held at the heap's peak); --folded:\n"
    "                 each chain whose figure changed with the change as its\n"
    "                 value (a differential flame graph's input)\n"
    "  --timeline     the heap over time instead: per interval (of equal time,\n"
    "                 from the first event), the live bytes and objects at its\n"
    "                 end, the most live bytes in it (with a bar), alloc and\n"
    "                 realloc records, frees and the bytes asked for; by record\n"
    "                 number when the trace has no times\n"
    "  --massif       the heap over time as valgrind massif's file (for ms_print\n"
    "                 and massif-visualizer): a snapshot per interval, the call\n"
    "                 tree of what was live at the heap's peak, at the end and\n"
    "                 at every tenth interval's end (traces recorded with\n"
    "                 --stacks; callers under 1% summed; the trace is read twice),\n"
    "                 and where the trace has the program's resident memory, the\n"
    "                 resident bytes over the live ones as mem_heap_extra_B\n"
    "  --points N     at most N intervals (default 50, at most 100000)\n"
    "  --no-demangle  C++ and Rust function names as the symbol table has them\n"
    "                 (shown demangled by default; JSON gives both)\n"
    "  --no-lines     no source lines (nor any look at the modules' files)\n"
    "  --phases       the figures split at the trace's comments (hatrace_comment\n"
    "                 in include/hatrace.h): each phase's records, calls, bytes,\n"
    "                 peak and live bytes at its end; they add up to the whole\n"
    "  --strict       stop at the first damaged part of a container (exit 1)\n"
    "                 instead of reading on past it (the damage said, exit 3)\n"
    "  --follow       a trace still being written (hatrace record's, while the\n"
    "                 program runs): every interval, the figures so far, calls\n"
    "                 per second and the top sites (--top, default 5) of the\n"
    "                 interval, until the trace is complete, the user stops it\n"
    "                 (Ctrl-C) or it has not grown for --timeout seconds; the\n"
    "                 last refresh gives the figures of the whole trace; with\n"
    "                 --json one JSON object per line and refresh\n"
    "  --interval MS  --follow: milliseconds between refreshes (default 1000)\n"
    "  --timeout S    --follow: give up on a file that has not grown for S\n"
    "                 seconds (default 30), or sooner when its recording\n"
    "                 process is gone, and read it as a cut trace (exit 3)\n"
    WINDOW_HELP
    "  -j, --jobs N   read on N threads (default: one per core; 1: this thread alone)\n"
    "  -h, --help     this help\n";

#define HIST_BUCKETS 65  /* size 0, then [2^k, 2^(k+1)) for k = 0..63 */
#define FUNC_SLOTS (HATF_FN_COUNT_ + 1)  /* 0: no func attribute, last: unknown code */

typedef struct counts {
    uint64_t id;              /* thread or heap id; for a name: heaps made with that name (creates,
                                 or 1 for an id used without a create) */
    uint64_t allocs, frees, reallocs, bytes;
    uint64_t live_objects, live_bytes, max_live_objects, max_live_bytes;
    uint64_t destroy_frees, destroy_bytes;  /* objects ended by heap-destroy */
    uint32_t cell;            /* heaps: its cell in live */
    int32_t group;            /* heaps: index in names, or -1 */
    const char *name;         /* names: the name (owned by the reader) */
} counts;

typedef struct table {
    addrmap index;   /* id -> position in v */
    counts *v;
    size_t n, cap;
    uint64_t last_id;  /* the last id asked for, at v[last] (n > 0): most events keep their thread and heap */
    size_t last;
} table;

typedef struct stats {
    uint64_t records, allocs, frees, free_null, reallocs, kinds[HATF_OP_COUNT_];
    uint64_t total_bytes, live_objects, live_bytes, max_live_objects, max_live_bytes;
    uint64_t unknown_frees, failed_allocs;
    uint64_t first_time, last_time;
    int timed;
    uint64_t hist[HIST_BUCKETS];
    uint64_t funcs[FUNC_SLOTS];
    table threads, heaps;
    heaplive live;   /* cell tag = heap position */
    /* with stats_share_live: another count's table of the same live objects,
     * which it changes after this count has seen each event (its changes
     * come through stats_heap_changed); NULL: live is ours */
    heaplive *shared;
    uint64_t last_heap_id;   /* stats_heap_changed's last heap, at last_hpos */
    uint32_t last_hpos;
    int last_known;
    hatf_reader *reader;  /* names, or NULL */
    counts *names;   /* per heap name */
    size_t nnames, capnames;
    addrmap name_index;   /* hash of a name -> position in names (collisions: linear search) */
    temporary tmp;   /* temporary allocations (tag unused) */
    int want_phases;
    phases ph;       /* with want_phases: the figures split at comments */
    /* the program's own mappings, from the recorder's "hatrace-map" comments */
    uint64_t mmaps, mmap_bytes, munmaps, munmap_bytes, mremaps, brks;
    int64_t brk_bytes;
    /* the recorder's "hatrace-signal" notes: the signal the process died of, those its handlers took */
    int died;
    hatf_signal death;
    uint64_t signals_handled;
} stats;

static counts *table_get(table *t, uint64_t id)
{
    if (t->n && id == t->last_id) return &t->v[t->last];
    int added;
    long i = addrmap_index(&t->index, id, &added);
    if (i < 0) return NULL;
    if (added) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 16;
            counts *v = realloc(t->v, cap * sizeof *v);
            if (!v) return NULL;
            t->v = v;
            t->cap = cap;
        }
        memset(&t->v[t->n], 0, sizeof t->v[0]);
        t->v[t->n].group = -1;
        t->v[t->n++].id = id;
    }
    t->last_id = id;
    t->last = (size_t)i;
    return &t->v[i];
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The group of a newly seen heap, by its name in the container. @return 0, or HATF_E_NOMEM. */
static int heap_group(stats *st, counts *h)
{
    const char *nm = st->reader ? hatf_reader_heap_name(st->reader, h->id) : NULL;
    if (!nm) return 0;
    int added;
    addrmap_entry *e = addrmap_put(&st->name_index, name_hash(nm), &added);
    if (!e) return HATF_E_NOMEM;
    long g = -1;
    if (!added && strcmp(st->names[e->a].name, nm) == 0) g = e->a;
    for (size_t i = 0; g < 0 && !added && i < st->nnames; i++)  /* a hash collision */
        if (strcmp(st->names[i].name, nm) == 0) g = (long)i;
    if (g < 0) {
        if (st->nnames == st->capnames) {
            size_t cap = st->capnames ? 2 * st->capnames : 16;
            counts *v = realloc(st->names, cap * sizeof *v);
            if (!v) return HATF_E_NOMEM;
            st->names = v;
            st->capnames = cap;
        }
        g = (long)st->nnames++;
        memset(&st->names[g], 0, sizeof st->names[g]);
        st->names[g].name = nm;
        if (added) e->a = (uint32_t)g;
    }
    h->group = (int32_t)g;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const counts *)a)->name, ((const counts *)b)->name);
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const counts *)a)->id, y = ((const counts *)b)->id;
    return x < y ? -1 : x > y;
}

static unsigned hist_bucket(uint64_t size)
{
    return size ? 64 - (unsigned)__builtin_clzll(size) : 0;
}

/* Live bytes and objects of heap hpos (and its name) change by n objects,
 * bytes; the peaks follow (an event ends objects before it makes one, so
 * the peaks seen after each change are those seen after each event). */
static void heap_change(stats *st, uint32_t hpos, int64_t n, int64_t bytes)
{
    counts *h = &st->heaps.v[hpos];
    h->live_objects += (uint64_t)n;
    h->live_bytes += (uint64_t)bytes;
    st->live_objects += (uint64_t)n;
    st->live_bytes += (uint64_t)bytes;
    if (st->live_objects > st->max_live_objects) st->max_live_objects = st->live_objects;
    if (st->live_bytes > st->max_live_bytes) st->max_live_bytes = st->live_bytes;
    if (h->live_objects > h->max_live_objects) h->max_live_objects = h->live_objects;
    if (h->live_bytes > h->max_live_bytes) h->max_live_bytes = h->live_bytes;
    if (h->group >= 0) {
        counts *g = &st->names[h->group];
        g->live_objects += (uint64_t)n;
        g->live_bytes += (uint64_t)bytes;
        if (g->live_objects > g->max_live_objects) g->max_live_objects = g->live_objects;
        if (g->live_bytes > g->max_live_bytes) g->max_live_bytes = g->live_bytes;
    }
}

static void heap_live(void *ctx, uint32_t hpos, uint32_t heap, int64_t n, int64_t bytes)
{
    (void)heap;  /* our tags are the heaps */
    heap_change(ctx, hpos, n, bytes);
}

void stats_heap_changed(void *ctx, uint64_t heap_id, int64_t n, int64_t bytes)
{
    stats *st = ctx;
    if (!st->last_known || heap_id != st->last_heap_id) {
        /* counted by us first: the heap is in the table */
        addrmap_entry *e = addrmap_find(&st->heaps.index, heap_id);
        if (!e) return;
        st->last_heap_id = heap_id;
        st->last_hpos = e->a;
        st->last_known = 1;
    }
    heap_change(st, st->last_hpos, n, bytes);
}

void stats_share_live(stats *st, heaplive *l) { st->shared = l; }

/* Whether the event's free ends a live object: it does so here, or the
 * sharing count will after this one. */
static int end_live(stats *st, uint64_t addr)
{
    return st->shared ? heaplive_live(st->shared, addr) : heaplive_remove(&st->live, addr);
}

/* A new live object, unless the sharing count adds it. @return 0 or -1 out of memory. */
static int add_live(stats *st, uint64_t addr, uint64_t size, const counts *h)
{
    return st->shared ? 0 : heaplive_add(&st->live, addr, size, h->cell);
}

static void heap_destroy(stats *st, counts *h)
{
    h->destroy_frees += h->live_objects;
    h->destroy_bytes += h->live_bytes;
    if (h->group >= 0) {
        st->names[h->group].destroy_frees += h->live_objects;
        st->names[h->group].destroy_bytes += h->live_bytes;
    }
    if (!st->shared) heaplive_destroy_heap(&st->live, (uint32_t)(h - st->heaps.v));
}

/* The most resident bytes sampled while recording, the recorder's rings
 * taken out. @return the number of samples. */
static uint64_t resident_peak(hatf_reader *r, uint64_t *max)
{
    const hatf_resident *v;
    size_t n = hatf_reader_resident(r, &v);
    *max = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].bytes - v[i].own > *max) *max = v[i].bytes - v[i].own;
    return n;
}

/* A comment the recorder wrote for one of the program's own mappings
 * (docs/FORMAT.md, "Mappings and phases"): counted. */
static void count_mapping(stats *st, const hatf_event *ev)
{
    hatf_map m;
    if (!hatf_map_parse(ev, &m)) return;
    if (m.kind == HATF_MAP_MMAP) st->mmaps++, st->mmap_bytes += m.len;
    else if (m.kind == HATF_MAP_MUNMAP) st->munmaps++, st->munmap_bytes += m.len;
    else if (m.kind == HATF_MAP_MREMAP) st->mremaps++;
    else st->brks++, st->brk_bytes += m.delta;
}

static void counts_now(const stats *st, phase_counts *c)
{
    *c = (phase_counts){ st->records, st->allocs, st->frees, st->reallocs, st->total_bytes, st->live_bytes,
                         st->live_objects };
}

static int add_event(stats *st, const hatf_event *ev)
{
    if (ev->op == HATF_OP_COMMENT && st->want_phases) {  /* the comment opens its phase */
        phase_counts now;
        counts_now(st, &now);
        if (phases_comment(&st->ph, ev->data, ev->data_len, &now)) return HATF_E_NOMEM;
    }
    st->records++;
    st->kinds[ev->op]++;
    if (ev->op == HATF_OP_COMMENT) {
        hatf_signal sig;
        if (!hatf_signal_parse(ev, &sig)) count_mapping(st, ev);
        else if (!sig.fatal) st->signals_handled++;
        else if (!st->died) st->died = 1, st->death = sig;
        return 0;
    }
    if (!st->timed || ev->time < st->first_time) st->first_time = ev->time;
    if (!st->timed || ev->time > st->last_time) st->last_time = ev->time;
    st->timed = 1;

    counts *t = table_get(&st->threads, ev->thread);
    size_t nheaps = st->heaps.n;
    counts *h = table_get(&st->heaps, ev->heap);
    if (!t || !h) return HATF_E_NOMEM;
    int first = st->heaps.n != nheaps;
    if (first) {
        uint32_t hpos = (uint32_t)(h - st->heaps.v);
        long cell = st->shared ? 0 : heaplive_cell_of(&st->live, hpos, hpos);
        if (cell < 0 || heap_group(st, h)) return HATF_E_NOMEM;
        h->cell = (uint32_t)cell;
    }
    counts *g = h->group >= 0 ? &st->names[h->group] : NULL;
    if (g && (first || ev->op == HATF_OP_HEAP_CREATE)) g->id++;  /* ids can be reused (addresses) */

    unsigned fn = 0;
    uint32_t tag;
    int ended;
    hatf_attrs a;
    hatf_event_attrs(ev, &a);
    if (hatf_attrs_has(&a, HATF_A_FUNC))
        fn = a.value[HATF_A_FUNC] > 0 && a.value[HATF_A_FUNC] < HATF_FN_COUNT_ ? (unsigned)a.value[HATF_A_FUNC]
                                                                              : FUNC_SLOTS - 1;
    if (!fn) fn = hatf_plain_func(ev->op);  /* an absent func is the plain call */
    if (hatf_op_has_addr(ev->op)) st->funcs[fn]++;

    switch (ev->op) {
    case HATF_OP_ALLOC:
        st->allocs++; t->allocs++; h->allocs++;
        if (g) g->allocs++;
        if (!ev->addr) {  /* failed: its (often absurd) size made no object */
            st->failed_allocs++;
            break;
        }
        st->total_bytes += ev->size; t->bytes += ev->size; h->bytes += ev->size;
        if (g) g->bytes += ev->size;
        st->hist[hist_bucket(ev->size)]++;
        if (add_live(st, ev->addr, ev->size, h) ||
            temporary_made(&st->tmp, ev->thread, ev->addr, 0))
            return HATF_E_NOMEM;
        break;
    case HATF_OP_FREE:
        st->frees++; t->frees++; h->frees++;
        if (g) g->frees++;
        if (!ev->addr) st->free_null++;
        else if (!end_live(st, ev->addr)) st->unknown_frees++;
        else if (temporary_ended(&st->tmp, ev->thread, ev->addr, &tag) < 0) return HATF_E_NOMEM;
        break;
    case HATF_OP_REALLOC_INPLACE: case HATF_OP_REALLOC_MOVE:
    case HATF_OP_REALLOC_NEW: case HATF_OP_REALLOC_FREE:
        st->reallocs++; t->reallocs++; h->reallocs++;
        if (g) g->reallocs++;
        /* a failed realloc left its block as it was (the requested size, often absurd, is not its size) */
        if (hatf_event_failed_by(ev, &a)) break;
        ended = ev->op != HATF_OP_REALLOC_NEW && ev->addr && end_live(st, ev->addr);
        if (ev->op != HATF_OP_REALLOC_NEW && ev->addr && !ended) st->unknown_frees++;
        if (ev->op == HATF_OP_REALLOC_FREE) {
            if (ended && temporary_ended(&st->tmp, ev->thread, ev->addr, &tag) < 0) return HATF_E_NOMEM;
        } else if (add_live(st, ev->new_addr, ev->size, h) ||
                   (ev->new_addr && temporary_made(&st->tmp, ev->thread, ev->new_addr, 0))) {
            return HATF_E_NOMEM;
        }
        break;
    case HATF_OP_HEAP_DESTROY:
        heap_destroy(st, h);
        break;
    default:
        break;
    }
    if (st->want_phases) phases_event(&st->ph, ev->time, st->live_bytes);
    return 0;
}

/* lookahead_run's callbacks */
int stats_count(void *ctx, const lookahead_item *x) { return add_event(ctx, &x->ev); }
void stats_prefetch(void *ctx, const hatf_event *ev) { heaplive_prefetch(&((stats *)ctx)->live, ev); }

stats *stats_new(hatf_source *s)
{
    stats *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    if (heaplive_init(&st->live, heap_live, st) || addrmap_init(&st->threads.index) || addrmap_init(&st->heaps.index) ||
        addrmap_init(&st->name_index) || temporary_init(&st->tmp)) {
        stats_free(st);  /* what was made is freed */
        return NULL;
    }
    st->reader = hatf_source_container(s);
    return st;
}

void stats_free(stats *st)
{
    if (!st) return;
    heaplive_free(&st->live);
    addrmap_free(&st->threads.index);
    addrmap_free(&st->heaps.index);
    addrmap_free(&st->name_index);
    temporary_free(&st->tmp);
    if (st->want_phases) phases_free(&st->ph);
    free(st->names);
    free(st->threads.v);
    free(st->heaps.v);
    free(st);
}

uint64_t stats_records(const stats *st) { return st->records; }

/* Threads and heaps by id, heap names by name, as both outputs list them. */
static void sort_tables(stats *st)
{
    if (st->threads.n) qsort(st->threads.v, st->threads.n, sizeof(counts), cmp_id);
    if (st->heaps.n) qsort(st->heaps.v, st->heaps.n, sizeof(counts), cmp_id);
    if (st->nnames) qsort(st->names, st->nnames, sizeof(counts), cmp_name);
}

/* ---- output -------------------------------------------------------------- */


/* What both reports derive from the counts and the source. */
typedef struct derived {
    hatf_reader *r;          /* the container's reader, NULL for the other formats */
    uint64_t num, den, dur;  /* the time unit (num/den ns), the duration in it */
    double dur_ns;
    char avg[32];            /* avg_size: bytes per allocation that made an object, 2 decimals */
    char avg_json[40];       /* the same at full precision (the shortest that reads back the same) */
} derived;

static void derive(const stats *st, hatf_source *s, derived *d)
{
    d->r = hatf_source_container(s);
    cli_time_unit(s, &d->num, &d->den);
    d->dur = st->timed ? st->last_time - st->first_time : 0;
    d->dur_ns = (double)d->dur * (double)d->num / (double)d->den;
    uint64_t made = st->allocs - st->failed_allocs;
    double avg = made ? (double)st->total_bytes / (double)made : 0;
    if (!made) snprintf(d->avg, sizeof d->avg, "0");
    else snprintf(d->avg, sizeof d->avg, "%.2f", avg);
    snprintf(d->avg_json, sizeof d->avg_json, "%.17g", avg);
    for (int prec = 1; prec < 17; prec++) {  /* the shortest decimal that is the same double */
        char b[40];
        snprintf(b, sizeof b, "%.*g", prec, avg);
        if (strtod(b, NULL) == avg) { snprintf(d->avg_json, sizeof d->avg_json, "%s", b); break; }
    }
}

static const char *func_label(unsigned i)
{
    if (i == 0) return "(none)";
    if (i == FUNC_SLOTS - 1) return "(other)";
    return hatf_func_name(i);
}

static void hist_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
    if (b == 0) { *lo = *hi = 0; return; }
    *lo = 1ull << (b - 1);
    *hi = b == 64 ? UINT64_MAX : (1ull << b) - 1;
}

static const char *name_of(hatf_reader *r, int heap, uint64_t id)
{
    if (!r) return NULL;
    return heap ? hatf_reader_heap_name(r, id) : hatf_reader_thread_name(r, id);
}

#define U(x) ((unsigned long long)(x))

/* Recorded by attaching to a running process (hatrace record -p): its
 * unknown frees are of objects allocated before tracing, and what is live at
 * its end was live when the recorder detached. */
static int attached_trace(hatf_source *s)
{
    const hatf_info *in = s ? hatf_source_info(s) : NULL;
    return in && (in->flags & HATF_INFO_ATTACHED);
}

static void print_table(hatf_buf *o, stats *st, const char *path, hatf_source *s)
{
    sort_tables(st);
    derived d;
    derive(st, s, &d);
    cli_put(o, "%-18s %s (%s)\n", "file", path, hatf_format_name(hatf_source_format(s)));
    cli_put(o, "%-18s %llu\n", "records", U(st->records));
    cli_put(o, "%-18s %llu\n", "allocs", U(st->allocs));
    cli_put(o, "%-18s %llu (%llu of NULL)\n", "frees", U(st->frees), U(st->free_null));
    cli_put(o, "%-18s %llu (inplace %llu, move %llu, new %llu, free %llu)\n", "reallocs", U(st->reallocs),
        U(st->kinds[HATF_OP_REALLOC_INPLACE]), U(st->kinds[HATF_OP_REALLOC_MOVE]),
        U(st->kinds[HATF_OP_REALLOC_NEW]), U(st->kinds[HATF_OP_REALLOC_FREE]));
    cli_put(o, "%-18s %llu\n", "total_bytes", U(st->total_bytes));
    cli_put(o, "%-18s %s\n", "avg_size", d.avg);
    cli_put(o, "%-18s %llu\n", "max_live_objects", U(st->max_live_objects));
    cli_put(o, "%-18s %llu\n", "max_live_bytes", U(st->max_live_bytes));
    cli_put(o, "%-18s %llu objects, %llu bytes%s\n", "live_at_end", U(st->live_objects), U(st->live_bytes),
            attached_trace(s) ? " (live when the recorder detached, not leaks)" : "");
    if (st->died) {
        char how[160];
        cli_signal_text(&st->death, how, sizeof how);
        cli_put(o, "%-18s %s (live_at_end: live then, not leaks)\n", "died", how);
    }
    if (st->signals_handled)
        cli_put(o, "%-18s %llu (taken by the program's handlers)\n", "signals", U(st->signals_handled));
    if (attached_trace(s))
        cli_put(o, "%-18s %llu (released, allocated before tracing: an attached recording)\n", "unknown_frees",
                U(st->unknown_frees));
    else
        cli_put(o, "%-18s %llu\n", "unknown_frees", U(st->unknown_frees));
    cli_put(o, "%-18s %llu create, %llu destroy\n", "heap events", U(st->kinds[HATF_OP_HEAP_CREATE]),
        U(st->kinds[HATF_OP_HEAP_DESTROY]));
    cli_put(o, "%-18s %llu create, %llu destroy\n", "thread events", U(st->kinds[HATF_OP_THREAD_CREATE]),
        U(st->kinds[HATF_OP_THREAD_DESTROY]));
    cli_put(o, "%-18s %llu\n", "comments", U(st->kinds[HATF_OP_COMMENT]));
    if (d.num == 1 && d.den == 1)
        cli_put(o, "%-18s %llu ns (time %llu .. %llu)\n", "duration", U(d.dur), U(st->first_time), U(st->last_time));
    else
        cli_put(o, "%-18s %llu units of %llu/%llu ns = %.0f ns\n", "duration", U(d.dur), U(d.num), U(d.den),
            d.dur_ns);
    if (d.r) {
        const hatf_counters *c = hatf_reader_counters(d.r);
        const hatf_info *in = hatf_reader_info(d.r);
        cli_put(o, "%-18s %u\n", "pid", in->pid);
        cli_put(o, "%-18s %s\n", "cmdline", in->cmdline);
        cli_put(o, "%-18s %s\n", "complete", hatf_reader_complete(d.r) ? "yes" : "no");
        cli_put(o, "%-18s %llu\n", "dropped", U(c->dropped));
        cli_put(o, "%-18s %llu\n", "ring_waits", U(c->ring_waits));
        uint64_t groups, fast_groups, fast_events;
        hatf_reader_coding(d.r, &groups, &fast_groups, &fast_events);
        cli_put(o, "%-18s %llu (%llu coded fast, %llu events%s)\n", "chunk_groups", U(groups), U(fast_groups),
            U(fast_events), fast_groups ? "; hatrace convert recodes them in full" : "");
        const char *const *lines;
        size_t n = hatf_reader_damage(d.r, &lines);
        for (size_t i = 0; i < n; i++) cli_put(o, "%-18s %s\n", "damage", lines[i]);
        uint64_t res_max, res_n = resident_peak(d.r, &res_max);
        if (res_n) cli_put(o, "%-18s %llu bytes at most (%llu samples, the recorder's own memory taken out)\n", "resident",
                           U(res_max), U(res_n));
    }
    if (st->mmaps + st->munmaps + st->mremaps + st->brks)
        cli_put(o, "%-18s mmap %llu (%llu bytes), munmap %llu (%llu bytes), mremap %llu, brk %llu (%+lld bytes)\n",
                "mappings", U(st->mmaps), U(st->mmap_bytes), U(st->munmaps), U(st->munmap_bytes), U(st->mremaps),
                U(st->brks), (long long)st->brk_bytes);

    cli_put(o, "\n%-10s %-16s %12s %12s %12s %16s\n", "thread", "name", "allocs", "frees", "reallocs", "bytes");
    for (size_t i = 0; i < st->threads.n; i++) {
        counts *c = &st->threads.v[i];
        const char *nm = name_of(d.r, 0, c->id);
        cli_put(o, "%-10llu %-16s %12llu %12llu %12llu %16llu\n", U(c->id), nm ? nm : "-", U(c->allocs), U(c->frees),
            U(c->reallocs), U(c->bytes));
    }
    cli_put(o, "\n%-10s %-16s %12s %12s %12s %16s %12s %16s %14s\n", "heap", "name", "allocs", "frees", "reallocs", "bytes",
        "max_objects", "max_live_bytes", "destroy_frees");
    for (size_t i = 0; i < st->heaps.n; i++) {
        counts *c = &st->heaps.v[i];
        const char *nm = name_of(d.r, 1, c->id);
        cli_put(o, "%-10llu %-16s %12llu %12llu %12llu %16llu %12llu %16llu %14llu\n", U(c->id), nm ? nm : "-",
            U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects), U(c->max_live_bytes),
            U(c->destroy_frees));
    }
    if (st->nnames) {
        cli_put(o, "\n%-27s %8s %12s %12s %12s %16s %12s %16s %14s\n", "heap name", "heaps", "allocs", "frees", "reallocs",
            "bytes", "max_objects", "max_live_bytes", "destroy_frees");
        for (size_t i = 0; i < st->nnames; i++) {
            counts *c = &st->names[i];
            cli_put(o, "%-27.27s %8llu %12llu %12llu %12llu %16llu %12llu %16llu %14llu\n", c->name, U(c->id),
                U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects), U(c->max_live_bytes),
                U(c->destroy_frees));
        }
    }
    cli_put(o, "\n%-24s %12s\n", "alloc size", "count");
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!st->hist[b]) continue;
        uint64_t lo, hi;
        hist_range(b, &lo, &hi);
        char range[48];
        snprintf(range, sizeof range, "%llu..%llu", U(lo), U(hi));
        cli_put(o, "%-24s %12llu\n", range, U(st->hist[b]));
    }
    cli_put(o, "\n%-24s %12s\n", "function", "count");
    for (unsigned i = 0; i < FUNC_SLOTS; i++)
        if (st->funcs[i]) cli_put(o, "%-24s %12llu\n", func_label(i), U(st->funcs[i]));
    if (st->want_phases) phases_print(o, &st->ph, 0);
}

void stats_json(hatf_buf *o, stats *st, const char *path, hatf_source *s)
{
    sort_tables(st);
    derived d;
    derive(st, s, &d);
    cli_put(o, "{\n  \"file\": ");
    cli_json_string(o, path);
    cli_put(o, ",\n  \"format\": \"%s\",\n", hatf_format_name(hatf_source_format(s)));
    cli_put(o, "  \"records\": %llu,\n  \"allocs\": %llu,\n  \"frees\": %llu,\n  \"free_null\": %llu,\n",
        U(st->records), U(st->allocs), U(st->frees), U(st->free_null));
    cli_put(o, "  \"reallocs\": %llu,\n  \"realloc_inplace\": %llu,\n  \"realloc_move\": %llu,\n"
           "  \"realloc_new\": %llu,\n  \"realloc_free\": %llu,\n",
        U(st->reallocs), U(st->kinds[HATF_OP_REALLOC_INPLACE]), U(st->kinds[HATF_OP_REALLOC_MOVE]),
        U(st->kinds[HATF_OP_REALLOC_NEW]), U(st->kinds[HATF_OP_REALLOC_FREE]));
    cli_put(o, "  \"heap_creates\": %llu,\n  \"heap_destroys\": %llu,\n  \"thread_creates\": %llu,\n"
           "  \"thread_destroys\": %llu,\n  \"comments\": %llu,\n",
        U(st->kinds[HATF_OP_HEAP_CREATE]), U(st->kinds[HATF_OP_HEAP_DESTROY]),
        U(st->kinds[HATF_OP_THREAD_CREATE]), U(st->kinds[HATF_OP_THREAD_DESTROY]), U(st->kinds[HATF_OP_COMMENT]));
    cli_put(o, "  \"total_bytes\": %llu,\n  \"avg_size\": %s,\n  \"max_live_objects\": %llu,\n"
           "  \"max_live_bytes\": %llu,\n  \"live_objects_at_end\": %llu,\n  \"live_bytes_at_end\": %llu,\n"
           "  \"unknown_frees\": %llu,\n  \"attached\": %s,\n",
        U(st->total_bytes), d.avg_json, U(st->max_live_objects), U(st->max_live_bytes), U(st->live_objects),
        U(st->live_bytes), U(st->unknown_frees), attached_trace(s) ? "true" : "false");
    cli_put(o, "  \"first_time\": %llu,\n  \"last_time\": %llu,\n  \"duration\": %llu,\n"
           "  \"time_unit_ns\": [%llu, %llu],\n  \"duration_ns\": %.0f,\n",
        U(st->first_time), U(st->last_time), U(d.dur), U(d.num), U(d.den), d.dur_ns);
    cli_put(o, "  \"threads\": [");
    for (size_t i = 0; i < st->threads.n; i++) {
        counts *c = &st->threads.v[i];
        const char *nm = name_of(d.r, 0, c->id);
        cli_put(o, "%s\n    {\"id\": %llu, ", i ? "," : "", U(c->id));
        if (nm) { cli_put(o, "\"name\": "); cli_json_string(o, nm); cli_put(o, ", "); }
        cli_put(o, "\"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu}", U(c->allocs),
            U(c->frees), U(c->reallocs), U(c->bytes));
    }
    cli_put(o, "%s],\n  \"heaps\": [", st->threads.n ? "\n  " : "");
    for (size_t i = 0; i < st->heaps.n; i++) {
        counts *c = &st->heaps.v[i];
        const char *nm = name_of(d.r, 1, c->id);
        cli_put(o, "%s\n    {\"id\": %llu, ", i ? "," : "", U(c->id));
        if (nm) { cli_put(o, "\"name\": "); cli_json_string(o, nm); cli_put(o, ", "); }
        cli_put(o, "\"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, "
               "\"max_live_objects\": %llu, \"max_live_bytes\": %llu, \"destroy_frees\": %llu, \"destroy_bytes\": %llu}",
            U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects), U(c->max_live_bytes),
            U(c->destroy_frees), U(c->destroy_bytes));
    }
    cli_put(o, "%s],\n  \"heap_names\": [", st->heaps.n ? "\n  " : "");
    for (size_t i = 0; i < st->nnames; i++) {
        counts *c = &st->names[i];
        cli_put(o, "%s\n    {\"name\": ", i ? "," : "");
        cli_json_string(o, c->name);
        cli_put(o, ", \"heaps\": %llu, \"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"bytes\": %llu, "
               "\"max_live_objects\": %llu, \"max_live_bytes\": %llu, \"destroy_frees\": %llu, \"destroy_bytes\": %llu}",
            U(c->id), U(c->allocs), U(c->frees), U(c->reallocs), U(c->bytes), U(c->max_live_objects),
            U(c->max_live_bytes), U(c->destroy_frees), U(c->destroy_bytes));
    }
    cli_put(o, "%s],\n  \"size_histogram\": [", st->nnames ? "\n  " : "");
    int first = 1;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!st->hist[b]) continue;
        uint64_t lo, hi;
        hist_range(b, &lo, &hi);
        cli_put(o, "%s\n    {\"min\": %llu, \"max\": %llu, \"count\": %llu}", first ? "" : ",", U(lo), U(hi),
            U(st->hist[b]));
        first = 0;
    }
    cli_put(o, "%s],\n  \"functions\": {", first ? "" : "\n  ");
    first = 1;
    for (unsigned i = 0; i < FUNC_SLOTS; i++) {
        if (!st->funcs[i]) continue;
        cli_put(o, "%s\"%s\": %llu", first ? "" : ", ", func_label(i), U(st->funcs[i]));
        first = 0;
    }
    cli_put(o, "}");
    if (st->died) {
        hatf_signal *g = &st->death;
        cli_put(o, ",\n  \"died\": {\"signal\": %d, \"name\": \"%s\", \"code\": %d, \"thread\": %llu, \"%s\": %llu}",
                g->sig, g->name, g->code, U(g->thread), g->code > 0 ? "addr" : "pid", U(g->addr));
    }
    if (st->signals_handled) cli_put(o, ",\n  \"signals_handled\": %llu", U(st->signals_handled));
    if (d.r) {
        const hatf_counters *c = hatf_reader_counters(d.r);
        const hatf_info *in = hatf_reader_info(d.r);
        cli_put(o, ",\n  \"container\": {\"pid\": %u, \"cmdline\": ", in->pid);
        cli_json_string(o, in->cmdline);
        uint64_t groups, fast_groups, fast_events;
        hatf_reader_coding(d.r, &groups, &fast_groups, &fast_events);
        cli_put(o, ", \"complete\": %s, \"events\": %llu, \"dropped\": %llu, \"ring_waits\": %llu, "
            "\"chunk_groups\": %llu, \"fast_groups\": %llu, \"fast_events\": %llu, \"damage\": [",
            hatf_reader_complete(d.r) ? "true" : "false", U(c->events), U(c->dropped), U(c->ring_waits),
            U(groups), U(fast_groups), U(fast_events));
        const char *const *lines;
        size_t n = hatf_reader_damage(d.r, &lines);
        for (size_t i = 0; i < n; i++) {
            if (i) cli_put(o, ", ");
            cli_json_string(o, lines[i]);
        }
        uint64_t res_max, res_n = resident_peak(d.r, &res_max);
        cli_put(o, "], \"resident_samples\": %llu, \"max_resident_bytes\": %llu}", U(res_n), U(res_max));
    }
    if (st->mmaps + st->munmaps + st->mremaps + st->brks)
        cli_put(o, ",\n  \"mappings\": {\"mmap\": %llu, \"mmap_bytes\": %llu, \"munmap\": %llu, \"munmap_bytes\": %llu, "
                   "\"mremap\": %llu, \"brk\": %llu, \"brk_bytes\": %lld}",
                U(st->mmaps), U(st->mmap_bytes), U(st->munmaps), U(st->munmap_bytes), U(st->mremaps), U(st->brks),
                (long long)st->brk_bytes);
    if (st->want_phases) {
        cli_put(o, ",\n  \"phases\": ");
        phases_print(o, &st->ph, 1);
    }
    cli_put(o, "\n}\n");
}

/* Count every event of s (path: for messages), with want_phases the
 * figures split at comments too. @return the counts, or NULL after saying
 * why. */
static stats *stats_read(hatf_source *s, const char *path, int want_phases)
{
    stats *st = stats_new(s);
    phase_counts zero = { 0 };
    if (st && want_phases) st->want_phases = phases_init(&st->ph, &zero) == 0;
    if (!st || st->want_phases != want_phases) {
        cli_error("out of memory");
        stats_free(st);
        return NULL;
    }
    int count_rc, r = lookahead_run(s, stats_count, stats_prefetch, st, &count_rc);
    if (r == LOOKAHEAD_STOPPED) {
        cli_error("%s: out of memory after %llu records", path, U(st->records));
    } else if (r < 0) {
        cli_source_failed(path, s);
    } else {
        if (st->want_phases) {
            phase_counts now;
            counts_now(st, &now);
            phases_finish(&st->ph, &now);
        }
        return st;  /* threads, heaps and names are sorted by the outputs (sort_tables) */
    }
    stats_free(st);
    return NULL;
}

void stats_figures(const stats *st, stats_summary *out)
{
    *out = (stats_summary){ .records = st->records, .allocs = st->allocs, .frees = st->frees,
                            .reallocs = st->reallocs, .max_live_objects = st->max_live_objects,
                            .max_live_bytes = st->max_live_bytes, .live_objects = st->live_objects,
                            .live_bytes = st->live_bytes, .temporary = st->tmp.count,
                            .total_bytes = st->total_bytes, .first_time = st->first_time,
                            .last_time = st->last_time, .died = st->died, .death = st->death,
                            .signals_handled = st->signals_handled };
}

void stats_table(hatf_buf *o, stats *st, const char *path, hatf_source *s) { print_table(o, st, path, s); }

int stats_summarize(hatf_source *s, const char *path, stats_summary *out)
{
    stats *st = stats_read(s, path, 0);
    if (!st) return CLI_FAIL;
    stats_figures(st, out);
    stats_free(st);
    return CLI_OK;
}

/* SITES_SORT_* and SITES_BY_* by name, in their order */
static const char *const sort_words[] = { "count", "bytes", "peak", "at-peak", "leaked", "temporary" };
static const char *const by_words[] = { "stack", "function", "line" };

int cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {
        { "from", required_argument, NULL, 'f' },
        { "json", no_argument, NULL, 'J' },
        { "sites", no_argument, NULL, 's' },
        { "sort", required_argument, NULL, 'o' },
        { "top", required_argument, NULL, 't' },
        { "folded", no_argument, NULL, 'F' },
        { "no-demangle", no_argument, NULL, 'D' },
        { "no-lines", no_argument, NULL, 'L' },
        { "timeline", no_argument, NULL, 'T' },
        { "massif", no_argument, NULL, 'M' },
        { "points", required_argument, NULL, 'p' },
        { "by", required_argument, NULL, 'B' },
        { "diff", no_argument, NULL, 'X' },
        { "phases", no_argument, NULL, 'P' },
        { "suppress", required_argument, NULL, 'S' },
        { "no-builtin-suppressions", no_argument, NULL, 'N' },
        { "strict", no_argument, NULL, CLI_O_STRICT },
        { "follow", no_argument, NULL, 'W' },
        { "interval", required_argument, NULL, 'I' },
        { "timeout", required_argument, NULL, 'Z' },
        CLI_JOBS_OPTION,
        WINDOW_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    hatf_format fmt = HATF_FMT_AUTO;
    int follow = 0, follow_opts = 0;
    uint64_t interval_ms = 1000, timeout_s = 30;
    int json = 0, c, rc, by_site = 0, folded = 0, top_given = 0, sort_given = 0, timeline = 0, massif = 0,
        points_given = 0, by_given = 0, diff = 0, phases_given = 0, no_builtin = 0;
    const char **supp_files = NULL;
    size_t nsupp = 0;
    sites_opts so = { .form = SITES_TEXT, .sort = SITES_SORT_COUNT, .top = 20, .demangle = 1, .lines = 1,
                      .points = 50 };
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":hj:", opts, NULL)) != -1) {
        if (window_option(c)) {
            if ((rc = window_parse("stats", c, optarg))) return rc;
            continue;
        }
        switch (c) {
        case 'f': if ((rc = cli_parse_format("stats", "--from", optarg, &fmt))) return rc; break;
        case 'J': json = 1; break;
        case 's': by_site = 1; break;
        case 'o':
            sort_given = 1;
            rc = cli_parse_word("stats", "--sort", optarg, sort_words, sizeof sort_words / sizeof *sort_words, &so.sort);
            if (rc) return rc;
            break;
        case 't':
            if ((rc = cli_parse_u64("stats", "--top", optarg, &so.top))) return rc;
            top_given = 1;
            break;
        case 'F': folded = 1; break;
        case 'B':
            by_given = 1;
            if ((rc = cli_parse_word("stats", "--by", optarg, by_words, sizeof by_words / sizeof *by_words, &so.by)))
                return rc;
            break;
        case 'T': timeline = 1; break;
        case 'X': diff = by_site = 1; break;
        case 'P': phases_given = 1; break;
        case 'S':
            if (!supp_files) supp_files = calloc((size_t)argc, sizeof *supp_files);
            if (!supp_files) return cli_usage("stats", "out of memory");
            supp_files[nsupp++] = optarg;
            break;
        case 'N': no_builtin = 1; break;
        case 'M': massif = 1; break;
        case 'p':
            if ((rc = cli_parse_u64("stats", "--points", optarg, &so.points))) return rc;
            if (so.points < 1 || so.points > 100000) return cli_usage("stats", "--points: %s is not 1 to 100000", optarg);
            points_given = 1;
            break;
        case 'D': so.demangle = 0; break;
        case 'L': so.lines = 0; break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'W': follow = 1; break;
        case 'I':
            if ((rc = cli_parse_u64("stats", "--interval", optarg, &interval_ms))) return rc;
            if (interval_ms < 10 || interval_ms > 3600000)
                return cli_usage("stats", "--interval: %s is not 10 to 3600000 (milliseconds)", optarg);
            follow_opts = 1;
            break;
        case 'Z':
            if ((rc = cli_parse_u64("stats", "--timeout", optarg, &timeout_s))) return rc;
            if (timeout_s < 1) return cli_usage("stats", "--timeout: at least 1 (seconds)");
            follow_opts = 1;
            break;
        case 'j': if ((rc = cli_parse_jobs("stats", optarg))) return rc; break;
        case 'h': return cli_help(help);
        default: return cli_bad_option("stats", c, argv);
        }
    }
    if (follow_opts && !follow) return cli_usage("stats", "--interval and --timeout go with --follow");
    if (follow) {
        if (diff || by_site || timeline || massif || phases_given || folded || sort_given || by_given ||
            points_given || window_given() || fmt == HATF_FMT_HATF1 || fmt == HATF_FMT_TEXT)
            return cli_usage("stats", "--follow reads one container as it is written: with --json, --top, "
                                      "--interval, --timeout and --strict only");
        if (argc - optind != 1) return cli_usage("stats", "--follow takes one trace file");
        return cli_finish_stdout(stats_follow(argv[optind], json, interval_ms, timeout_s, top_given ? so.top : 5));
    }
    if (diff && (timeline || massif)) return cli_usage("stats", "--diff compares sites: not with --timeline or --massif");
    if (phases_given && (by_site || timeline || massif))
        return cli_usage("stats", "--phases splits the main figures: not with --sites, --timeline or --massif");
    if (timeline + massif + by_site > 1) return cli_usage("stats", "--sites, --timeline and --massif are three reports: choose one");
    if ((nsupp || no_builtin) && (!by_site || diff))
        return cli_usage("stats", "--suppress and --no-builtin-suppressions go with --sites (leaks by call stack)");
    if ((timeline || massif) && (sort_given || top_given || folded))
        return cli_usage("stats", "--sort, --top and --folded go with --sites");
    if (massif && json) return cli_usage("stats", "--massif and --json are two different outputs: choose one");
    if (points_given && !timeline && !massif) return cli_usage("stats", "--points goes with --timeline or --massif");
    if (folded && !by_site) return cli_usage("stats", "--folded goes with --sites");
    if (by_given && !by_site) return cli_usage("stats", "--by goes with --sites");
    if (so.by != SITES_BY_STACK && folded)
        return cli_usage("stats", "--by %s and --folded: a flame graph merges by function itself; choose one",
                         so.by == SITES_BY_LINE ? "line" : "function");
    if (so.by != SITES_BY_STACK && so.sort == SITES_SORT_PEAK && !diff)
        return cli_usage("stats", "--sort peak goes with --by stack (a group's sites reach their peaks at "
                                  "different moments); at-peak sums");
    if (folded && json) return cli_usage("stats", "--folded and --json are two different outputs: choose one");
    if (diff) {
        if (argc - optind != 2) return cli_usage("stats", "--diff takes two traces, OLD and NEW");
        so.from = fmt;
        so.form = folded ? SITES_FOLDED : json ? SITES_JSON : SITES_TEXT;
        if (!sort_given) so.sort = SITES_SORT_BYTES;
        if (folded && !top_given) so.top = 0;
        return cli_finish_stdout(sitediff_report(argv[optind], argv[optind + 1], &so));
    }
    struct stat dir;
    if (argc - optind > 1 || (argc - optind == 1 && stat(argv[optind], &dir) == 0 && S_ISDIR(dir.st_mode))) {
        if (by_site || timeline || massif || phases_given)
            return cli_usage("stats", "--sites, --timeline, --massif and --phases read one trace (several: the "
                                      "processes' table)");
        return stats_many(argc - optind, argv + optind, fmt, json);
    }
    const char *path;
    if ((rc = cli_one_file("stats", argc, argv, &path))) return rc;
    hatf_source *s = cli_open_source(path, fmt);
    if (!s) return CLI_FAIL;
    if (by_site || timeline || massif) {
        so.from = fmt;
        suppressions supp = { 0 };
        if (by_site && !timeline && !massif) {
            for (size_t i = 0; i < nsupp; i++)
                if (suppress_load(&supp, supp_files[i])) {
                    suppress_free(&supp);
                    hatf_source_close(s);
                    return CLI_FAIL;
                }
            if (!no_builtin && suppress_builtin(&supp)) {
                cli_error("out of memory");
                return CLI_FAIL;
            }
            so.supp = &supp;
        }
        if (timeline) so.form = json ? SITES_TIMELINE_JSON : SITES_TIMELINE;
        else if (massif) so.form = SITES_MASSIF;
        else so.form = folded ? SITES_FOLDED : json ? SITES_JSON : SITES_TEXT;
        if (folded && !top_given) so.top = 0;
        rc = cli_read_end(path, s, sites_report(s, path, &so));
        suppress_free(&supp);
        free(supp_files);
        hatf_source_close(s);
        return cli_finish_stdout(rc);
    }

    stats *st = stats_read(s, path, phases_given);
    rc = st ? CLI_OK : CLI_FAIL;
    if (st) {
        hatf_buf o;
        hatf_buf_init(&o);
        if (json) stats_json(&o, st, path, s);
        else print_table(&o, st, path, s);
        fwrite(o.p, 1, o.len, stdout);
        hatf_buf_free(&o);
        stats_free(st);
    }
    rc = cli_read_end(path, s, rc);
    hatf_source_close(s);
    return cli_finish_stdout(rc);
}
