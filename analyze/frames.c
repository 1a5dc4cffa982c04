/* frames.c — frame names for the reading tools; see frames.h.
 * Demangling is libiberty's (the demangler of binutils' c++filt), for the
 * GNU C++ ABI and Rust's two schemes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "frames.h"

int frames_init(frames *f, hatf_reader *r, int demangle, int lines)
{
    f->r = r;
    f->demangle = demangle;
    f->lines = NULL;
    if (addrmap_init(&f->names)) return -1;
    if (lines && r && !(f->lines = srclines_new(r))) {
        addrmap_free(&f->names);
        return -1;
    }
    return 0;
}

void frames_free(frames *f)
{
    for (size_t i = 0; i <= f->names.mask; i++) {
        addrmap_entry *e = addrmap_slot(&f->names, i);
        if (e) free((char *)(uintptr_t)e->size);
    }
    addrmap_free(&f->names);
    srclines_free(f->lines);
}

int frames_line(frames *f, uint64_t addr, const char **file, int *line)
{
    const srcline *l;
    size_t n = f->lines ? srclines_of_return(f->lines, addr, &l) : 0;
    if (!n) return -1;
    *file = l[n - 1].file;
    *line = l[n - 1].line;
    return 0;
}

size_t frames_inlined(frames *f, uint64_t addr, const srcline **in)
{
    size_t n = f->lines ? srclines_of_return(f->lines, addr, in) : 0;
    return n ? n - 1 : 0;
}

const char *frames_inlined_name(frames *f, const srcline *in)
{
    const char *d = f->demangle ? frames_demangled(f, in->inlined) : NULL;
    return d ? d : in->inlined;
}

const char *frames_place(frames *f, uint64_t addr, size_t i, const char **file, int *line)
{
    const srcline *in;
    size_t ni = frames_inlined(f, addr, &in);
    if (i < ni) {
        *file = in[i].file;
        *line = in[i].line;
        return frames_inlined_name(f, &in[i]);
    }
    uint64_t off;
    if (frames_line(f, addr, file, line)) *file = NULL;
    return frames_function(f, addr, &off);
}

const char *frames_demangled(frames *f, const char *name)
{
    int added;
    addrmap_entry *e = addrmap_put(&f->names, (uint64_t)(uintptr_t)name, &added);
    if (!e) return NULL;  /* out of memory: shown as stored */
    if (added) {
        /* only names of the two ABIs: a plain C name that happens to parse as a
         * type ("f" would read as "float" with DMGL_TYPES) stays as it is */
        char *d = strncmp(name, "_Z", 2) && strncmp(name, "_R", 2) ? NULL
                  : cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
        e->size = (uint64_t)(uintptr_t)d;
    }
    return (const char *)(uintptr_t)e->size;
}

const char *frames_function(frames *f, uint64_t addr, uint64_t *offset)
{
    const hatf_symbol *s = f->r ? hatf_reader_symbol(f->r, addr) : NULL;
    const char *name = s && s->name[0] ? s->name : NULL;
    if (name) *offset = s->offset;
    else if (!f->lines || !(name = srclines_function(f->lines, addr, offset))) return NULL;
    const char *d = f->demangle ? frames_demangled(f, name) : NULL;
    return d ? d : name;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

const hatf_module *frames_module_of(frames *f, uint64_t addr)
{
    if (!f->r) return NULL;
    const hatf_symbol *s = hatf_reader_symbol(f->r, addr);
    const hatf_module *m;
    size_t n = hatf_reader_modules(f->r, &m);
    for (size_t i = 0; i < n; i++) {
        /* the symbol says which module; an address without one, its range */
        if (s && s->module ? m[i].id != s->module : addr < m[i].start || addr >= m[i].end) continue;
        return &m[i];
    }
    return NULL;
}

const char *frames_module(frames *f, uint64_t addr, uint64_t *vaddr)
{
    const hatf_module *m = frames_module_of(f, addr);
    if (!m) return NULL;
    *vaddr = addr - m->bias;
    return base_name(m->path);
}

size_t frames_places(frames *f, uint64_t addr)
{
    const srcline *in;
    return frames_inlined(f, addr, &in) + 1;
}

const char *frames_place_named(frames *f, uint64_t addr, size_t i, const char **file, int *line, char *tmp,
                               size_t cap)
{
    const char *name = frames_place(f, addr, i, file, line);
    if (name) return name;
    frames_node(f, addr, tmp, cap);
    return tmp;
}

void frames_describe(frames *f, uint64_t addr, char *out, size_t cap)
{
    uint64_t off = 0, vaddr;
    const char *fn = frames_function(f, addr, &off), *mod = frames_module(f, addr, &vaddr);
    if (!mod) mod = "";
    int k;
    if (fn)
        k = snprintf(out, cap, "%s+0x%llx (%s)", fn, (unsigned long long)off, mod);
    else if (*mod)
        k = snprintf(out, cap, "0x%llx (%s)", (unsigned long long)addr, mod);
    else
        k = snprintf(out, cap, "0x%llx", (unsigned long long)addr);
    const char *file;
    int line;
    if (k > 0 && (size_t)k < cap && !frames_line(f, addr, &file, &line))
        snprintf(out + k, cap - (size_t)k, " %s:%d", file, line);
}

/* ';' separates the folded format's frames, a line break its stacks */
static void node_safe(char *s)
{
    for (; *s; s++)
        if (*s == ';' || *s == '\n' || *s == '\r') *s = '_';
}

void frames_node(frames *f, uint64_t addr, char *out, size_t cap)
{
    uint64_t off, vaddr;
    const char *fn = frames_function(f, addr, &off), *mod = fn ? NULL : frames_module(f, addr, &vaddr);
    if (fn)
        snprintf(out, cap, "%s", fn);
    else if (mod && *mod)
        snprintf(out, cap, "%s+0x%llx", mod, (unsigned long long)vaddr);
    else
        snprintf(out, cap, "0x%llx", (unsigned long long)addr);
    node_safe(out);
}

void frames_inlined_node(frames *f, const srcline *in, char *out, size_t cap)
{
    snprintf(out, cap, "%s", frames_inlined_name(f, in));
    node_safe(out);
}
