/* symbols.c — the load map and the names of frame addresses, resolved once at
 * the end of the trace (off the hot path, on the thread that closes it).
 *
 * Modules come from dl_iterate_phdr: path, address range, load bias and the
 * GNU build id from the PT_NOTE segments. A frame's name comes from dladdr
 * (the dynamic symbol table) and, when that has none, from the module file's
 * own .symtab, which also holds static functions and the functions of a
 * program linked without -rdynamic. Stripped files without .symtab keep only
 * their exported names; separate debug files are not searched. Frames are
 * return addresses: each is resolved at address - 1, inside the call.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder.h"
#include "hatf_container.h"

typedef struct fsym { uint64_t value, size; const char *name; } fsym;

typedef struct mod {
    hatf_module m;
    char path[PATH_MAX];
    /* .symtab of the file, loaded on first need */
    int tried;
    void *map;
    size_t map_len;
    fsym *syms;
    size_t nsyms;
} mod;

typedef struct modlist { mod *v; size_t n, cap; } modlist;

static void build_id(const struct dl_phdr_info *info, hatf_module *m)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
            const char *d = p + sizeof *nh + name;
            if (d + desc > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(p + sizeof *nh, "GNU", 4)) {
                m->build_id_len = nh->n_descsz > HATF_BUILD_ID_MAX ? HATF_BUILD_ID_MAX : nh->n_descsz;
                memcpy(m->build_id, d, m->build_id_len);
                return;
            }
            p = d + desc;
        }
    }
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    modlist *l = arg;
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 32;
        mod *v = realloc(l->v, c * sizeof *v);
        if (!v) return 1;
        l->v = v, l->cap = c;
    }
    mod *md = &l->v[l->n];
    memset(md, 0, sizeof *md);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uint64_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo) lo = s;
        if (s + ph->p_memsz > hi) hi = s + ph->p_memsz;
    }
    if (lo >= hi) return 0;
    if (info->dlpi_name && info->dlpi_name[0]) {
        snprintf(md->path, sizeof md->path, "%s", info->dlpi_name);
    } else if (l->n == 0) {  /* the program itself */
        ssize_t k = readlink("/proc/self/exe", md->path, sizeof md->path - 1);
        md->path[k > 0 ? k : 0] = 0;
    }
    md->m.id = l->n + 1;
    md->m.start = lo;
    md->m.end = hi;
    md->m.bias = info->dlpi_addr;
    md->m.path = md->path;
    build_id(info, &md->m);
    l->n++;
    return 0;
}

static int cmp_fsym(const void *a, const void *b)
{
    const fsym *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return (x->size < y->size) - (x->size > y->size);  /* the larger first */
}

/* Read the function symbols of md's .symtab (bounds-checked: the file is input). */
static void load_symtab(mod *md)
{
    md->tried = 1;
    if (!md->path[0] || md->path[0] != '/') return;
    int fd = open(md->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size < (off_t)sizeof(ElfW(Ehdr))) { close(fd); return; }
    size_t len = (size_t)sb.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return;
    const unsigned char *b = map;
    const ElfW(Ehdr) *eh = map;
    if (memcmp(b, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > len ||
        (size_t)eh->e_shnum > (len - eh->e_shoff) / sizeof(ElfW(Shdr))) {
        munmap(map, len);
        return;
    }
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(const void *)(b + eh->e_shoff);
    for (size_t i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
        const ElfW(Shdr) *st = &sh[i], *str = &sh[st->sh_link];
        if (st->sh_offset > len || st->sh_size > len - st->sh_offset || str->sh_offset > len ||
            str->sh_size > len - str->sh_offset || st->sh_entsize != sizeof(ElfW(Sym)))
            break;
        size_t n = st->sh_size / sizeof(ElfW(Sym));
        const ElfW(Sym) *sy = (const ElfW(Sym) *)(const void *)(b + st->sh_offset);
        const char *names = (const char *)b + str->sh_offset;
        fsym *v = malloc((n ? n : 1) * sizeof *v);
        if (!v) break;
        size_t k = 0;
        for (size_t j = 0; j < n; j++) {
            if (ELF64_ST_TYPE(sy[j].st_info) != STT_FUNC || sy[j].st_shndx == SHN_UNDEF || !sy[j].st_value) continue;
            if (sy[j].st_name >= str->sh_size) continue;
            const char *nm = names + sy[j].st_name;
            if (!memchr(nm, 0, str->sh_size - sy[j].st_name)) continue;
            v[k++] = (fsym){ sy[j].st_value, sy[j].st_size, nm };
        }
        qsort(v, k, sizeof *v, cmp_fsym);
        md->syms = v;
        md->nsyms = k;
        md->map = map;
        md->map_len = len;
        return;
    }
    munmap(map, len);
}

/* The .symtab function holding file address va, or NULL. */
static const fsym *symtab_find(mod *md, uint64_t va)
{
    if (!md->tried) load_symtab(md);
    size_t lo = 0, hi = md->nsyms;
    while (lo < hi) {  /* first symbol above va */
        size_t mid = lo + (hi - lo) / 2;
        if (md->syms[mid].value <= va) lo = mid + 1;
        else hi = mid;
    }
    /* nested or overlapping entries (aliases): look back a little */
    for (size_t k = lo, steps = 0; k-- > 0 && steps < 8; steps++) {
        const fsym *s = &md->syms[k];
        if (va >= s->value && va < s->value + (s->size ? s->size : 1)) return s;
    }
    return NULL;
}

void ht_symbols_write(hatf_writer *w, const uint64_t *addrs, size_t n)
{
    modlist l = { 0 };
    dl_iterate_phdr(add_module, &l);
    for (size_t i = 0; i < l.n; i++) hatf_writer_module(w, &l.v[i].m);
    for (size_t i = 0; i < n; i++) {
        uint64_t pc = addrs[i] - 1;
        hatf_symbol s = { .addr = addrs[i], .name = "" };
        mod *md = NULL;
        for (size_t k = 0; k < l.n; k++)
            if (pc >= l.v[k].m.start && pc < l.v[k].m.end) { md = &l.v[k]; break; }
        if (md) s.module = md->m.id;
        Dl_info di;
        if (dladdr((void *)(uintptr_t)pc, &di) && di.dli_sname && di.dli_saddr) {
            s.name = di.dli_sname;
            s.offset = addrs[i] - (uint64_t)(uintptr_t)di.dli_saddr;
        } else if (md) {
            const fsym *f = symtab_find(md, pc - md->m.bias);
            if (f) {
                s.name = f->name;
                s.offset = addrs[i] - md->m.bias - f->value;
            }
        }
        hatf_writer_symbol(w, &s);
    }
    for (size_t k = 0; k < l.n; k++) {
        free(l.v[k].syms);
        if (l.v[k].map) munmap(l.v[k].map, l.v[k].map_len);
    }
    free(l.v);
}
