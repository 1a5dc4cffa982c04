/* srclines.c — source lines of frames from the modules' DWARF; see srclines.h.
 *
 * Each module of the trace is reported to libdwfl at the place the traced
 * process had it (its load bias), so a frame's address is looked up as it
 * was recorded. A trace names files, and a hostile one could name a FIFO or
 * a device: only regular files are opened, without blocking, and only a file
 * with the recorded build id is used. debuginfod is not asked (no network).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "addrmap.h"
#include "srclines.h"

enum { MOD_UNTRIED = 0, MOD_USABLE, MOD_UNUSABLE };

struct srclines {
    Dwfl *dwfl;
    Dwfl_Callbacks cb;
    char *debuginfo_path;
    const hatf_module *mods;
    size_t nmods;
    Dwfl_Module **dmod;   /* per module of the trace, once tried */
    uint8_t *state;       /* MOD_* */
    addrmap seen;         /* return address -> size: its srclines (srcline *, malloc'd), a: count */
    addrmap names;        /* address -> size: its function (char *), rec: offset, b: 1 found 2 not */
};

srclines *srclines_new(hatf_reader *r)
{
    srclines *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->nmods = r ? hatf_reader_modules(r, &s->mods) : 0;
    s->dmod = calloc(s->nmods + 1, sizeof *s->dmod);
    s->state = calloc(s->nmods + 1, 1);
    if (!s->dmod || !s->state || addrmap_init(&s->seen) || addrmap_init(&s->names)) {
        srclines_free(s);
        return NULL;
    }
    return s;
}

void srclines_free(srclines *s)
{
    if (!s) return;
    if (s->dwfl) dwfl_end(s->dwfl);
    for (size_t i = 0; i <= s->seen.mask; i++) {
        addrmap_entry *e = addrmap_slot(&s->seen, i);
        if (e) free((void *)(uintptr_t)e->size);
    }
    free(s->dmod);
    free(s->state);
    addrmap_free(&s->seen);
    addrmap_free(&s->names);
    free(s);
}

static int start_dwfl(srclines *s)
{
    if (s->dwfl) return 0;
    /* libdw would otherwise fetch missing debug files over the network */
    unsetenv("DEBUGINFOD_URLS");
    s->cb.find_elf = dwfl_build_id_find_elf;
    s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
    s->cb.debuginfo_path = &s->debuginfo_path;  /* NULL: the default search path */
    s->dwfl = dwfl_begin(&s->cb);
    return s->dwfl ? 0 : -1;
}

/* Module i of the trace in libdwfl, reported on first use; NULL when unusable. */
static Dwfl_Module *module_at(srclines *s, size_t i)
{
    if (s->state[i] != MOD_UNTRIED) return s->dmod[i];
    s->state[i] = MOD_UNUSABLE;
    const hatf_module *m = &s->mods[i];
    if (!m->path[0] || !m->build_id_len || start_dwfl(s)) return NULL;
    int fd = open(m->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    dwfl_report_begin_add(s->dwfl);
    /* at bias + the file's addresses, as it was loaded (fd is libdwfl's on success) */
    Dwfl_Module *dm = dwfl_report_elf(s->dwfl, m->path, m->path, fd, m->bias, true);
    dwfl_report_end(s->dwfl, NULL, NULL);
    if (!dm) {
        close(fd);
        return NULL;
    }
    const unsigned char *bits;
    GElf_Addr where;
    int n = dwfl_module_build_id(dm, &bits, &where);
    if (n != (int)m->build_id_len || memcmp(bits, m->build_id, (size_t)n)) return NULL;  /* another build */
    s->state[i] = MOD_USABLE;
    return s->dmod[i] = dm;
}

/* The usable module holding pc, or NULL. */
static Dwfl_Module *module_of(srclines *s, uint64_t pc)
{
    for (size_t i = 0; i < s->nmods; i++)
        if (pc >= s->mods[i].start && pc < s->mods[i].end) return module_at(s, i);
    return NULL;
}

static const char *function_of(srclines *s, uint64_t addr, uint64_t *offset)
{
    Dwfl_Module *dm = module_of(s, addr);
    GElf_Off off;
    GElf_Sym sym;
    const char *name = dm ? dwfl_module_addrinfo(dm, addr, &off, &sym, NULL, NULL, NULL) : NULL;
    if (!name || !*name) return NULL;
    *offset = off;
    return name;
}

const char *srclines_function(srclines *s, uint64_t addr, uint64_t *offset)
{
    if (!s || !s->nmods) return NULL;
    int added;
    addrmap_entry *e = addrmap_put(&s->names, addr, &added);
    if (!e) return function_of(s, addr, offset);  /* out of memory: not kept (the search is slow) */
    if (added) {
        const char *name = function_of(s, addr, &e->rec);
        e->size = (uint64_t)(uintptr_t)name;
        e->b = name ? 1 : 2;
    }
    if (e->b != 1) return NULL;
    *offset = e->rec;
    return (const char *)(uintptr_t)e->size;
}

/* A function DIE's name: its linkage name (mangled, qualified) when it has
 * one, else its plain name; through abstract origins and specifications. */
static const char *die_function_name(Dwarf_Die *die)
{
    Dwarf_Attribute at;
    const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
    if (!n) n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
    if (!n) n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
    return n && *n ? n : "?";
}

/* Where an inlined call was made: its DW_AT_call_file and DW_AT_call_line. */
static int call_site(Dwarf_Die *cu, Dwarf_Die *inl, const char **file, int *line)
{
    Dwarf_Attribute at;
    Dwarf_Word fi, ln;
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &at), &fi) ||
        dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &at), &ln) || ln == 0 || ln > INT32_MAX ||
        dwarf_getsrcfiles(cu, &files, &nfiles) || fi >= nfiles)
        return -1;
    const char *f = dwarf_filesrc(files, fi, NULL, NULL);
    if (!f) return -1;
    *file = f;
    *line = (int)ln;
    return 0;
}

enum { MAX_INLINED = 64 };  /* deeper nests are cut (a hostile file could claim thousands) */
enum { MAX_SCOPES = 256 };  /* DIEs nested around one address, from the CU down */

/* The DIEs under cu that contain pc (a DWARF address), outermost first, into
 * out: the concrete nest, one pass down the tree that skips every subtree
 * not holding pc. (dwarf_getscopes went on into an inlined function's
 * abstract definition, so the nest took it and then dwarf_getscopes_die, two
 * walks of the CU, the second one unpruned: most of a report's time on a
 * large trace.) @return the count. */
static int scopes_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
    int n = 0;
    Dwarf_Die parent = *cu, child;
    while (n < MAX_SCOPES && dwarf_child(&parent, &child) == 0) {
        int found;
        while (!(found = dwarf_haspc(&child, pc) > 0) && dwarf_siblingof(&child, &child) == 0) {}
        if (!found) break;
        out[n++] = parent = child;
    }
    return n;
}

/* The chain of srclines.h for ra into out[0..MAX_INLINED]. @return the count. */
static size_t lookup(srclines *s, uint64_t ra, srcline *out)
{
    uint64_t pc = ra - 1;  /* inside the call instruction */
    Dwfl_Module *dm = module_of(s, pc);
    Dwfl_Line *l = dm ? dwfl_module_getsrc(dm, pc) : NULL;
    int line;
    const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
    if (!file || line <= 0) return 0;
    size_t n = 0;
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(dm, pc, &bias), scopes[MAX_SCOPES];
    int ns = cu ? scopes_at(cu, pc - bias, scopes) : 0;
    for (int i = ns - 1; i >= 0 && n < MAX_INLINED; i--) {  /* innermost first */
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
        out[n++] = (srcline){ .inlined = die_function_name(&scopes[i]), .file = file, .line = line };
        /* the next function out is at the place this one was inlined */
        if (call_site(cu, &scopes[i], &file, &line)) {
            n = 0;  /* a chain with a gap would name wrong lines: the plain line only */
            file = out[0].file, line = out[0].line;
            break;
        }
    }
    out[n++] = (srcline){ .inlined = NULL, .file = file, .line = line };
    return n;
}

size_t srclines_of_return(srclines *s, uint64_t ra, const srcline **out)
{
    if (!s || !s->nmods || ra == 0) return 0;
    int added;
    addrmap_entry *e = addrmap_put(&s->seen, ra, &added);
    if (!e) return 0;  /* out of memory: shown without lines */
    if (added) {
        srcline tmp[MAX_INLINED + 1];
        size_t n = lookup(s, ra, tmp);
        srcline *v = n ? malloc(n * sizeof *v) : NULL;
        if (v) memcpy(v, tmp, n * sizeof *v);
        e->size = (uint64_t)(uintptr_t)v;
        e->a = v ? (uint32_t)n : 0;
    }
    *out = (const srcline *)(uintptr_t)e->size;
    return e->a;
}
