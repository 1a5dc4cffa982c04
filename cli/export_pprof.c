/* export_pprof.c — hatrace convert --to pprof: the sites of stats --sites as
 * a gzip-compressed profile.proto, the form Go's heap profiles take, which
 * go tool pprof, Pyroscope, Parca, Perfetto and speedscope read.
 *
 * One sample per site (call stack), with the four values of a Go heap
 * profile: alloc_objects (the site's calls, reallocs included, as stats
 * --sites counts them), alloc_space (the bytes of the objects they made),
 * inuse_objects and inuse_space (what the site held at the heap's peak, or,
 * with --inuse end, what it still held at the end: its leaks). A location
 * per frame address, its lines the functions inlined at the call (innermost
 * first) then its own function; a mapping per module of the load map, with
 * its build id. The protocol buffer is written by pbwire.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "export.h"
#include "export_sink.h"
#include "pbwire.h"
#include "sites.h"
#include "strtab.h"

/* profile.proto's field numbers */
enum { P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING_TABLE, P_TIME_NANOS = 9,
       P_PERIOD_TYPE = 11, P_PERIOD, P_COMMENT, P_DEFAULT_SAMPLE_TYPE };
enum { VT_TYPE = 1, VT_UNIT };
enum { S_LOCATION_ID = 1, S_VALUE, S_LABEL };
enum { LB_KEY = 1, LB_STR, LB_NUM };
enum { M_ID = 1, M_START, M_LIMIT, M_OFFSET, M_FILENAME, M_BUILD_ID, M_HAS_FUNCTIONS, M_HAS_FILENAMES,
       M_HAS_LINES, M_HAS_INLINE };  /* M_OFFSET (4) not written */
enum { L_ID = 1, L_MAPPING_ID, L_ADDRESS, L_LINE };
enum { LN_FUNCTION_ID = 1, LN_LINE };
enum { F_ID = 1, F_NAME, F_SYSTEM_NAME, F_FILENAME };

typedef struct pprof {
    frames *fr;
    hatf_buf out, msg, sub;  /* the profile; a message being built; one nested in it */
    strtab strings;          /* the profile's string table ("" first) */
    strtab funcs;            /* "name\1file" of the functions written, numbered from 0 (id - 1) */
    addrmap locs;            /* frame address -> location id */
    uint64_t nlocs;
    int failed;
} pprof;

static uint64_t str(pprof *p, const char *s)
{
    long i = strtab_id(&p->strings, s, NULL);
    if (i < 0) p->failed = 1;
    return i < 0 ? 0 : (uint64_t)i;
}

/* The message in p->msg as field field of the profile. */
static void put_msg(pprof *p, unsigned field)
{
    pb_bytes(&p->out, field, p->msg.p, p->msg.len);
    p->msg.len = 0;
}

static void value_type(pprof *p, unsigned field, const char *type, const char *unit)
{
    pb_int(&p->msg, VT_TYPE, (int64_t)str(p, type));
    pb_int(&p->msg, VT_UNIT, (int64_t)str(p, unit));
    put_msg(p, field);
}

/* The id of the function (name, file), written the first time. */
static uint64_t function_id(pprof *p, const char *name, const char *system_name, const char *file)
{
    char key[2048];
    snprintf(key, sizeof key, "%s\1%s", name, file ? file : "");
    int added;
    long i = strtab_id(&p->funcs, key, &added);
    if (i < 0) { p->failed = 1; return 0; }
    if (added) {
        pb_uint(&p->msg, F_ID, (uint64_t)i + 1);
        pb_int(&p->msg, F_NAME, (int64_t)str(p, name));
        pb_int(&p->msg, F_SYSTEM_NAME, (int64_t)str(p, system_name ? system_name : name));
        if (file) pb_int(&p->msg, F_FILENAME, (int64_t)str(p, file));
        put_msg(p, P_FUNCTION);
    }
    return (uint64_t)i + 1;
}

/* One line of a location (in p->sub) into p->msg. */
static void line(pprof *p, uint64_t function, int at)
{
    pb_uint(&p->sub, LN_FUNCTION_ID, function);
    if (at > 0) pb_int(&p->sub, LN_LINE, at);
    pb_bytes(&p->msg, L_LINE, p->sub.p, p->sub.len);
    p->sub.len = 0;
}

/* The location of frame address addr, written the first time. Its
 * functions are written before it (p->msg is free until the location's). */
static uint64_t location_id(pprof *p, uint64_t addr)
{
    int added;
    addrmap_entry *e = addrmap_put(&p->locs, addr, &added);
    if (!e) { p->failed = 1; return 0; }
    if (!added) return e->size;
    e->size = ++p->nlocs;
    const srcline *in;
    size_t ni = frames_inlined(p->fr, addr, &in), n = ni + 1;
    uint64_t *fn = calloc(n, sizeof *fn);
    int *at = calloc(n, sizeof *at);
    if (!fn || !at) {
        free(fn), free(at);
        p->failed = 1;
        return 0;
    }
    const hatf_symbol *sym = p->fr->r ? hatf_reader_symbol(p->fr->r, addr) : NULL;
    for (size_t i = 0; i < n; i++) {  /* innermost first, as pprof's lines go */
        const char *file;
        char tmp[1024];
        const char *name = frames_place_named(p->fr, addr, i, &file, &at[i], tmp, sizeof tmp);
        const char *raw = i < ni ? in[i].inlined : sym && sym->name[0] ? sym->name : NULL;  /* as stored */
        fn[i] = function_id(p, name, raw, file);
        if (!file) at[i] = 0;
    }
    const hatf_module *m = frames_module_of(p->fr, addr);
    pb_uint(&p->msg, L_ID, e->size);
    if (m) pb_uint(&p->msg, L_MAPPING_ID, m->id);
    pb_uint(&p->msg, L_ADDRESS, addr);
    for (size_t i = 0; i < n; i++) line(p, fn[i], at[i]);
    put_msg(p, P_LOCATION);
    free(fn);
    free(at);
    return e->size;
}

/* A location with no address for a site without frames: "(no stack)". */
static uint64_t pseudo_location(pprof *p, const char *name)
{
    uint64_t f = function_id(p, name, NULL, NULL);
    pb_uint(&p->msg, L_ID, ++p->nlocs);
    line(p, f, 0);
    put_msg(p, P_LOCATION);
    return p->nlocs;
}

static void mappings(pprof *p, int lines)
{
    const hatf_module *m;
    size_t n = p->fr->r ? hatf_reader_modules(p->fr->r, &m) : 0;
    for (size_t i = 0; i < n; i++) {
        char id[2 * HATF_BUILD_ID_MAX + 1] = "";
        for (uint32_t k = 0; k < m[i].build_id_len && k < HATF_BUILD_ID_MAX; k++)
            snprintf(id + 2 * k, 3, "%02x", m[i].build_id[k]);
        pb_uint(&p->msg, M_ID, m[i].id);
        pb_uint(&p->msg, M_START, m[i].start);
        pb_uint(&p->msg, M_LIMIT, m[i].end);
        /* file_offset left 0: a module's lowest mapping maps its file from offset 0 (the ELF
         * headers' segment); the frames are named here, pprof need not look into the file */
        pb_int(&p->msg, M_FILENAME, (int64_t)str(p, m[i].path));
        if (*id) pb_int(&p->msg, M_BUILD_ID, (int64_t)str(p, id));
        pb_uint(&p->msg, M_HAS_FUNCTIONS, 1);
        if (lines) {
            pb_uint(&p->msg, M_HAS_FILENAMES, 1);
            pb_uint(&p->msg, M_HAS_LINES, 1);
            pb_uint(&p->msg, M_HAS_INLINE, 1);
        }
        put_msg(p, P_MAPPING);
    }
}

static void sample(pprof *p, const site *s, int inuse)
{
    const uint64_t *f;
    size_t n = sites_stack(p->fr->r, s->stack, &f);
    uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) { p->failed = 1; return; }
    for (size_t k = 0; k < n; k++) ids[k] = location_id(p, f[k]);
    if (!n) ids[n++] = pseudo_location(p, s->stack ? "(stack not in the trace)" : "(no stack)");
    uint64_t v[4] = { s->calls, s->bytes, inuse == EXPORT_INUSE_END ? s->live_objects : s->at_peak_objects,
                      inuse == EXPORT_INUSE_END ? s->live_bytes : s->at_peak_bytes };
    pb_packed(&p->msg, S_LOCATION_ID, ids, n);
    pb_packed(&p->msg, S_VALUE, v, 4);
    pb_int(&p->sub, LB_KEY, (int64_t)str(p, "stack"));  /* the site's id in stats --sites */
    pb_int(&p->sub, LB_NUM, (int64_t)s->stack);
    pb_bytes(&p->msg, S_LABEL, p->sub.p, p->sub.len);
    p->sub.len = 0;
    put_msg(p, P_SAMPLE);
    free(ids);
}

int export_pprof(const export_opts *o)
{
    sites_list l;
    export_sink *k;
    int rc = export_open_sites(o, SINK_GZIP, &l, &k);
    if (rc == CLI_FAIL) return rc;
    pprof p = { .fr = &l.fr };
    hatf_buf_init(&p.msg);
    hatf_buf_init(&p.sub);
    hatf_buf_init(&p.out);
    if (strtab_init(&p.strings) || strtab_init(&p.funcs) || addrmap_init(&p.locs)) p.failed = 1;
    str(&p, "");  /* string 0 */
    value_type(&p, P_SAMPLE_TYPE, "alloc_objects", "count");
    value_type(&p, P_SAMPLE_TYPE, "alloc_space", "bytes");
    value_type(&p, P_SAMPLE_TYPE, "inuse_objects", "count");
    value_type(&p, P_SAMPLE_TYPE, "inuse_space", "bytes");
    value_type(&p, P_PERIOD_TYPE, "space", "bytes");
    pb_int(&p.out, P_PERIOD, 1);  /* every allocation is in the trace: none sampled */
    pb_int(&p.out, P_DEFAULT_SAMPLE_TYPE, (int64_t)str(&p, "inuse_space"));
    pb_int(&p.out, P_COMMENT, (int64_t)str(&p, o->inuse == EXPORT_INUSE_END
                                                  ? "hatrace: inuse_* is what each site still held at the end (leaked)"
                                                  : "hatrace: inuse_* is what each site held at the heap's peak"));
    hatf_reader *r = hatf_source_container(l.src);
    if (r && hatf_reader_info(r)->start_realtime_ns)
        pb_int(&p.out, P_TIME_NANOS, (int64_t)hatf_reader_info(r)->start_realtime_ns);
    mappings(&p, 1);
    for (size_t i = 0; i < l.n && !p.failed; i++) sample(&p, &l.v[i], o->inuse);
    for (size_t i = 0; i < p.strings.n; i++) pb_string(&p.out, P_STRING_TABLE, p.strings.v[i]);
    hatf_buf_append(sink_buf(k), p.out.p, p.out.len);
    int ok = !(p.failed || p.out.failed || p.msg.failed || p.sub.failed);
    if (!ok) cli_error("%s: out of memory", o->out);
    if (sink_close(k, ok) < 0) ok = 0;
    strtab_free(&p.strings);
    strtab_free(&p.funcs);
    addrmap_free(&p.locs);
    hatf_buf_free(&p.msg);
    hatf_buf_free(&p.sub);
    hatf_buf_free(&p.out);
    sites_list_free(&l);
    return ok ? rc : CLI_FAIL;  /* rc: CLI_PARTIAL for a damaged trace, said by sites_list_read */
}
