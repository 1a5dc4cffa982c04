/* own_libs.c — the recorder's own libraries' memory, which a resident sample
 * (the flusher's) takes out: see own_libs.h. */
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "own_libs.h"
#include "prim.h"

/* libhatrace.so (with zstd and xxhash linked in) and the libraries only it
 * needs (libunwind and its liblzma; zstd and xxhash too where linked shared) have writable segments (data, relocated pointers, bss) whose pages
 * are anonymous once written: the recorder's, absent natively (~110 KiB, half
 * a small program's anonymous memory). Found once, on the first sample: the
 * objects reachable by DT_NEEDED from libhatrace.so and from no object outside
 * that closure (the program, its libraries, other preloads). A library the
 * program loads later and finds already loaded as ours is counted as ours. */
enum { OWN_OBJS = 128, OWN_SEGS = 32 };
static struct { uintptr_t lo, hi; } own_seg[OWN_SEGS];
static size_t own_seg_n;
static int own_libs_found;

typedef struct {
    uintptr_t base;
    const char *name;  /* the path's last part */
    const ElfW(Dyn) *dyn;
    const ElfW(Phdr) *phdr;
    size_t phnum;
} lib_obj;
typedef struct {
    lib_obj o[OWN_OBJS];
    size_t n, self;  /* self: libhatrace.so's index, OWN_OBJS when not found */
} lib_set;

/* A dynamic entry's address: relocated by the loader where the section is
 * writable, not where it is read-only. */
static uintptr_t dyn_addr(const lib_obj *o, ElfW(Addr) p) { return p < o->base ? o->base + p : p; }

static const char *lib_strtab(const lib_obj *o)
{
    if (o->dyn)
        for (const ElfW(Dyn) *d = o->dyn; d->d_tag != DT_NULL; d++)
            if (d->d_tag == DT_STRTAB) return (const char *)dyn_addr(o, d->d_un.d_ptr);
    return NULL;
}

static int lib_add(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    lib_set *s = arg;
    if (s->n == OWN_OBJS) return 1;
    lib_obj *o = &s->o[s->n];
    const char *slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    *o = (lib_obj){ info->dlpi_addr, slash ? slash + 1 : info->dlpi_name ? info->dlpi_name : "", NULL,
                    info->dlpi_phdr, info->dlpi_phnum };
    uintptr_t self = (uintptr_t)&ht_own_libs_resident;
    for (size_t i = 0; i < o->phnum; i++) {
        const ElfW(Phdr) *p = &o->phdr[i];
        if (p->p_type == PT_DYNAMIC) o->dyn = (const ElfW(Dyn) *)(o->base + p->p_vaddr);
        if (p->p_type == PT_LOAD && self - o->base - p->p_vaddr < p->p_memsz) s->self = s->n;
    }
    s->n++;
    return 0;
}

/* The object named name (a DT_NEEDED string: its file's or its DT_SONAME), or s->n. */
static size_t lib_find(const lib_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++) {
        if (!strcmp(s->o[i].name, name)) return i;
        const char *str = lib_strtab(&s->o[i]);
        if (str && s->o[i].dyn)
            for (const ElfW(Dyn) *d = s->o[i].dyn; d->d_tag != DT_NULL; d++)
                if (d->d_tag == DT_SONAME && !strcmp(str + d->d_un.d_val, name)) return i;
    }
    return s->n;
}

/* Marks i and what it needs, transitively, with bit. */
static void lib_mark(const lib_set *s, uint8_t *mark, size_t i, uint8_t bit)
{
    if (i >= s->n || (mark[i] & bit)) return;
    mark[i] |= bit;
    const char *str = lib_strtab(&s->o[i]);
    if (str)
        for (const ElfW(Dyn) *d = s->o[i].dyn; d->d_tag != DT_NULL; d++)
            if (d->d_tag == DT_NEEDED) lib_mark(s, mark, lib_find(s, str + d->d_un.d_val), bit);
}

static void own_libs_find(void)
{
    static lib_set s;  /* 5 KiB: off the stack of a program thread that may be sampling */
    uint8_t mark[OWN_OBJS] = { 0 };
    enum { MINE = 1, OTHERS = 2 };
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    s.n = 0, s.self = OWN_OBJS;
    dl_iterate_phdr(lib_add, &s);
    if (s.self >= s.n) return;
    lib_mark(&s, mark, s.self, MINE);
    for (size_t i = 0; i < s.n; i++)
        if (!(mark[i] & MINE)) lib_mark(&s, mark, i, OTHERS);
    for (size_t i = 0; i < s.n; i++) {
        if (mark[i] != MINE) continue;
        for (size_t k = 0; k < s.o[i].phnum && own_seg_n < OWN_SEGS; k++) {
            const ElfW(Phdr) *p = &s.o[i].phdr[k];
            if (p->p_type != PT_LOAD || !(p->p_flags & PF_W)) continue;
            uintptr_t lo = s.o[i].base + p->p_vaddr, hi = lo + p->p_memsz;
            own_seg[own_seg_n].lo = lo & ~(page - 1);
            own_seg[own_seg_n].hi = (hi + page - 1) & ~(page - 1);
            own_seg_n++;
        }
    }
}

/* The anonymous resident pages in [lo, hi) (page-aligned), by /proc/self/pagemap
 * (present, not a file's page: a written copy of a file's private page is
 * anonymous); mincore's resident pages when it cannot be read. pre: wlock held. */
static uint64_t anon_resident_of(int fd, uintptr_t lo, uintptr_t hi)
{
    enum { CHUNK = 512 };
    static uint64_t v[CHUNK];  /* off the stack of a program thread taking the last sample */
    uint64_t n = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (uintptr_t at = lo; at < hi;) {
        size_t k = (hi - at) / page < CHUNK ? (size_t)((hi - at) / page) : CHUNK;
        if (fd < 0 || pread(fd, v, k * sizeof *v, (off_t)(at / page * sizeof *v)) != (ssize_t)(k * sizeof *v))
            return n * page + ht_resident_of((const void *)at, hi - at);
        for (size_t i = 0; i < k; i++) n += (v[i] >> 63 & 1) && !(v[i] >> 61 & 1);
        at += k * page;
    }
    return n * page;
}

uint64_t ht_own_libs_resident(void)
{
    if (!own_libs_found) own_libs_find(), own_libs_found = 1;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    uint64_t res = 0;
    for (size_t i = 0; i < own_seg_n; i++) res += anon_resident_of(fd, own_seg[i].lo, own_seg[i].hi);
    if (fd >= 0) close(fd);
    return res;
}
