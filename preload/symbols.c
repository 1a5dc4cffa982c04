/* symbols.c — the load map and the names of frame addresses, resolved once at
 * the end of the trace (off the hot path, on the thread that closes it).
 *
 * Modules come from dl_iterate_phdr: path, address range, load bias and the
 * GNU build id from the PT_NOTE segments. A frame's name comes from the
 * module's dynamic symbol table, with exactly dladdr's answer (glibc's
 * elf/dl-addr.c: the symbols it considers, the largest value that holds the
 * address, the first in its hash-table order among equals), found in a table
 * sorted once per module instead of dladdr's scan of every symbol per call.
 * When that has none, the name comes from the module file's own .symtab,
 * which also holds static functions and the functions of a program linked
 * without -rdynamic. Stripped files without .symtab keep only their exported
 * names; separate debug files are not searched. Frames are return addresses:
 * each is resolved at address - 1, inside the call.
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

#include "options.h"
#include "prim.h"
#include "symbols.h"
#include "hatf_container.h"

typedef struct fsym { uint64_t value, size; const char *name; } fsym;

/* A dynamic symbol dladdr would consider: it names the addresses [start, end).
 * Sorted by start, then by order (dladdr's scan order); reach is the largest
 * end of this and every earlier entry, so a search knows where to stop. */
typedef struct dsym {
    uint64_t start, end, reach;
    const char *name;  /* NULL: not NUL-terminated within DT_STRSZ */
    size_t order;
} dsym;

typedef struct mod {
    hatf_module m;
    char path[PATH_MAX];
    const ElfW(Phdr) *phdr;
    int phnum;
    /* dynamic symbols, sorted on first need; -1: none usable, ask dladdr */
    int dyn_state;
    dsym *dsyms;
    size_t ndsyms, capdsyms;
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
    md->phdr = info->dlpi_phdr;
    md->phnum = info->dlpi_phnum;
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

/* ---- the dynamic symbol table, as dladdr reads it --------------------------- */

/* [a, a + len) lies in one loaded segment of md (what the loader mapped). */
static int in_load(const mod *md, uint64_t a, uint64_t len)
{
    for (int i = 0; i < md->phnum; i++) {
        const ElfW(Phdr) *ph = &md->phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R)) continue;
        uint64_t s = md->m.bias + ph->p_vaddr;
        if (a >= s && a - s <= ph->p_memsz && len <= ph->p_memsz - (a - s)) return 1;
    }
    return 0;
}

/* A DT_* address as the loader left it: relocated in a writable dynamic
 * section, file-relative in a read-only one (the vDSO). */
static const void *dyn_ptr(const mod *md, uint64_t v, uint64_t len)
{
    if (in_load(md, v, len)) return (const void *)(uintptr_t)v;
    uint64_t r = v + md->m.bias;
    if (r >= v && in_load(md, r, len)) return (const void *)(uintptr_t)r;
    return NULL;
}

static int cmp_dsym(const void *a, const void *b)
{
    const dsym *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Keep sym if dladdr would consider it (dl-addr.c's tests before the address
 * match); its range is where DL_ADDR_SYM_MATCH holds. @return -1: no memory. */
static int dsym_add(mod *md, const ElfW(Sym) *sy, const char *str, uint64_t strsz, size_t order)
{
    if (ELF64_ST_TYPE(sy->st_info) == STT_TLS || sy->st_shndx == SHN_ABS ||
        (sy->st_shndx == SHN_UNDEF && !sy->st_value) || sy->st_name >= strsz)
        return 0;
    uint64_t start = md->m.bias + sy->st_value, end = start + sy->st_size;
    if (start < sy->st_value) return 0;  /* beyond the address space */
    if (end < start) end = start;        /* wraps: glibc's `addr < end` never holds */
    if ((sy->st_shndx == SHN_UNDEF || !sy->st_size) && end == start) end = start + 1;  /* exact match */
    if (end <= start) return 0;
    if (md->ndsyms == md->capdsyms) {
        size_t c = md->capdsyms ? md->capdsyms * 2 : 256;
        dsym *v = realloc(md->dsyms, c * sizeof *v);
        if (!v) return -1;
        md->dsyms = v, md->capdsyms = c;
    }
    const char *nm = str + sy->st_name;
    md->dsyms[md->ndsyms++] = (dsym){ start, end, 0, memchr(nm, 0, strsz - sy->st_name) ? nm : NULL, order };
    return 0;
}

/* Symbols in DT_GNU_HASH's chains, bucket by bucket, as glibc walks them. */
static int dsym_gnu_hash(mod *md, const uint32_t *h, const ElfW(Sym) *symtab, const char *str, uint64_t strsz)
{
    uint32_t nbuckets = h[0], symbias = h[1], nbloom = h[2];
    uintptr_t buckets = (uintptr_t)(h + 4) + (uintptr_t)nbloom * sizeof(ElfW(Addr));
    if (!in_load(md, buckets, (uint64_t)nbuckets * 4)) return -1;
    uintptr_t chain = buckets + (uintptr_t)nbuckets * 4;  /* entry of symbol symbias */
    size_t order = 0, budget = (size_t)1 << 22;           /* malformed: chains shared by buckets */
    for (uint32_t b = 0; b < nbuckets; b++) {
        uint64_t i = ((const uint32_t *)buckets)[b];
        if (!i) continue;
        if (i < symbias) return -1;
        for (;; i++) {
            uintptr_t c = chain + (uintptr_t)(i - symbias) * 4, sy = (uintptr_t)symtab + (uintptr_t)i * sizeof *symtab;
            if (!budget-- || !in_load(md, c, 4) || !in_load(md, sy, sizeof *symtab)) return -1;
            if (dsym_add(md, (const ElfW(Sym) *)sy, str, strsz, order++)) return -1;
            if (*(const uint32_t *)c & 1) break;
        }
    }
    return 0;
}

/* Build md's sorted table. @return 0, or -1: unusable (dladdr answers). */
static int dsym_build(mod *md)
{
    const ElfW(Dyn) *dyn = NULL;
    size_t ndyn = 0;
    for (int i = 0; i < md->phnum; i++)
        if (md->phdr[i].p_type == PT_DYNAMIC) {
            dyn = (const ElfW(Dyn) *)(uintptr_t)(md->m.bias + md->phdr[i].p_vaddr);
            ndyn = md->phdr[i].p_memsz / sizeof *dyn;
            if (!in_load(md, (uintptr_t)dyn, ndyn * sizeof *dyn)) return -1;
        }
    uint64_t symtab_v = 0, strtab_v = 0, strsz = 0, hash_v = 0, gnu_v = 0;
    int have_strsz = 0;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        uint64_t v = dyn[i].d_un.d_val;
        switch (dyn[i].d_tag) {
        case DT_SYMTAB: symtab_v = v; break;
        case DT_STRTAB: strtab_v = v; break;
        case DT_STRSZ: strsz = v, have_strsz = 1; break;
        case DT_HASH: hash_v = v; break;
        case DT_GNU_HASH: gnu_v = v; break;
        }
    }
    if (!symtab_v || !strtab_v || !have_strsz) return -1;
    const ElfW(Sym) *symtab = dyn_ptr(md, symtab_v, sizeof(ElfW(Sym)));
    const char *str = dyn_ptr(md, strtab_v, strsz);
    if (!symtab || !str) return -1;
    if (gnu_v) {
        const uint32_t *h = dyn_ptr(md, gnu_v, 16);
        if (!h || dsym_gnu_hash(md, h, symtab, str, strsz)) return -1;
    } else {
        /* DT_HASH's nchain symbols, or (no hash table) up to the string table */
        size_t n;
        if (hash_v) {
            const uint32_t *h = dyn_ptr(md, hash_v, 8);
            if (!h) return -1;
            n = h[1];
        } else {
            n = str > (const char *)symtab ? ((size_t)(str - (const char *)symtab) + sizeof *symtab - 1) / sizeof *symtab : 0;
        }
        if (n && !in_load(md, (uintptr_t)symtab, (uint64_t)n * sizeof *symtab)) return -1;
        for (size_t i = 0; i < n; i++) {
            const ElfW(Sym) *sy = &symtab[i];
            int bind = ELF64_ST_BIND(sy->st_info), vis = ELF64_ST_VISIBILITY(sy->st_other);
            if ((bind != STB_GLOBAL && bind != STB_WEAK) || vis == STV_HIDDEN || vis == STV_INTERNAL) continue;
            if (dsym_add(md, sy, str, strsz, i)) return -1;
        }
    }
    qsort(md->dsyms, md->ndsyms, sizeof *md->dsyms, cmp_dsym);
    uint64_t reach = 0;
    for (size_t i = 0; i < md->ndsyms; i++) {
        if (md->dsyms[i].end > reach) reach = md->dsyms[i].end;
        md->dsyms[i].reach = reach;
    }
    return 0;
}

/* dladdr's symbol for pc in md: the largest start that holds pc, the first
 * in dladdr's order among equal starts. @return NULL when none holds it. */
static const dsym *dsym_find(const mod *md, uint64_t pc)
{
    const dsym *d = md->dsyms;
    size_t lo = 0, hi = md->ndsyms;
    while (lo < hi) {  /* first entry starting above pc */
        size_t mid = lo + (hi - lo) / 2;
        if (d[mid].start <= pc) lo = mid + 1;
        else hi = mid;
    }
    /* entries overlap (aliases, nested objects): go down while one may hold pc */
    const dsym *best = NULL;
    for (size_t k = lo; k-- > 0 && d[k].reach > pc;) {
        if (best && d[k].start != best->start) break;
        if (pc < d[k].end) best = &d[k];  /* lower order among equal starts */
    }
    return best;
}

/* The dynamic symbol's name and address for pc, as dladdr gives them.
 * @return 1 named, 0 not, -1 no table for md (ask dladdr). */
static int dyn_name(mod *md, uint64_t pc, const char **name, uint64_t *addr)
{
    if (!md->dyn_state) {
        md->dyn_state = dsym_build(md) ? -1 : 1;
        if (md->dyn_state < 0) free(md->dsyms), md->dsyms = NULL, md->ndsyms = 0;
    }
    if (md->dyn_state < 0) return -1;
    const dsym *d = dsym_find(md, pc);
    if (!d || !d->name || !d->start) return 0;  /* dli_saddr 0 counts as none, as before */
    *name = d->name;
    *addr = d->start;
    return 1;
}

void ht_symbols_write(hatf_writer *w, const uint64_t *addrs, size_t n)
{
    HATF_PRE(ht_t.untraced > 0);
    modlist l = { 0 };
    dl_iterate_phdr(add_module, &l);
    for (size_t i = 0; i < l.n; i++) hatf_writer_module(w, &l.v[i].m);
    /* HATRACE_STACKS_CHECK=1: every name from the tables against dladdr's */
    int check = ht_opt(HT_OPT_STACKS_CHECK) != 0;
    size_t tabled = 0, checked = 0, differ = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t pc = addrs[i] - 1;
        hatf_symbol s = { .addr = addrs[i], .name = "" };
        mod *md = NULL;
        for (size_t k = 0; k < l.n; k++)
            if (pc >= l.v[k].m.start && pc < l.v[k].m.end) { md = &l.v[k]; break; }
        if (md) s.module = md->m.id;
        const char *name = NULL;
        uint64_t at = 0;
        int got = md ? dyn_name(md, pc, &name, &at) : -1;
        if (got > 0) tabled++;
        if (got < 0 || check) {  /* outside the load map or no usable table; or checking */
            Dl_info di;
            int dl = dladdr((void *)(uintptr_t)pc, &di) && di.dli_sname && di.dli_saddr;
            if (got >= 0) {
                checked++;
                if (dl != got || (dl && (di.dli_sname != name || (uintptr_t)di.dli_saddr != at))) {
                    if (!differ++)
                        ht_warn("symbol check: %#llx: %s at %#llx, dladdr %s at %#llx",
                                (unsigned long long)pc, got ? name : "?", (unsigned long long)at,
                                dl ? di.dli_sname : "?", (unsigned long long)(dl ? (uintptr_t)di.dli_saddr : 0));
                }
            } else if (dl) {
                got = 1, name = di.dli_sname, at = (uint64_t)(uintptr_t)di.dli_saddr;
            }
        }
        if (got > 0) {
            s.name = name;
            s.offset = addrs[i] - at;
        } else if (md) {
            const fsym *f = symtab_find(md, pc - md->m.bias);
            if (f) {
                s.name = f->name;
                s.offset = addrs[i] - md->m.bias - f->value;
            }
        }
        hatf_writer_symbol(w, &s);
    }
    if (check)
        ht_warn("symbol check: %zu of %zu names differ from dladdr's (%zu of %zu frames named from the tables)",
                differ, checked, tabled, n);
    for (size_t k = 0; k < l.n; k++) {
        free(l.v[k].dsyms);
        free(l.v[k].syms);
        if (l.v[k].map) munmap(l.v[k].map, l.v[k].map_len);
    }
    free(l.v);
}
