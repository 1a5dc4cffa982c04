/* got_patch.c — the relocated slots of every loaded object that hold the
 * address of a function to redirect, rewritten and put back (got_patch.h).
 *
 * An object is known by its load address and program headers (a dlclose'd
 * object's slots are forgotten, never written: its pages may be someone
 * else's now). Slots in the RELRO range are read-only after relocation: their
 * page is made writable for the write and read-only again. The record of
 * slots is a mapping of its own, not the heap: the heap is what is redirected.
 */

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "got_patch.h"

typedef struct slot {
    uintptr_t base;        /* the object's load address and program headers: its identity */
    const void *phdr;
    uintptr_t *where;
    uintptr_t was;
    int relro;             /* the slot's page is read-only between writes */
} slot;

static slot *slots;
static size_t nslots, cap_slots;
static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;

static void lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &a);
}

void ht_got_lock(void)
{
    pthread_once(&lock_once, lock_init);
    pthread_mutex_lock(&lock);
}

void ht_got_unlock(void) { pthread_mutex_unlock(&lock); }

static int grow(void)
{
    size_t cap = cap_slots ? cap_slots * 2 : 1024;
    void *m = mmap(NULL, cap * sizeof *slots, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return -1;
    if (slots) {
        memcpy(m, slots, nslots * sizeof *slots);
        munmap(slots, cap_slots * sizeof *slots);
    }
    slots = m;
    cap_slots = cap;
    return 0;
}

/* Write v into *where, opening a read-only page for the time of the write. */
static void put(uintptr_t *where, uintptr_t v, int relro)
{
    long page = sysconf(_SC_PAGESIZE);
    void *p = (void *)((uintptr_t)where & ~(uintptr_t)(page - 1));
    if (relro && mprotect(p, (size_t)page, PROT_READ | PROT_WRITE) != 0) return;
    __atomic_store_n(where, v, __ATOMIC_RELEASE);  /* other threads call through it meanwhile */
    if (relro) mprotect(p, (size_t)page, PROT_READ);
}

static int known(uintptr_t base, const void *phdr)
{
    for (size_t i = 0; i < nslots; i++)
        if (slots[i].base == base && slots[i].phdr == phdr) return 1;
    return 0;
}

/* The dynamic section's pointers: relocated in place by the dynamic linker
 * for most objects, offsets from the load address for some (the vDSO). */
static uintptr_t dyn_ptr(uintptr_t v, uintptr_t base) { return v < base ? v + base : v; }

typedef struct walk {
    const ht_got_target *t;
    size_t n;
    const void *skip;
    long patched;
    int failed;
} walk;

static const ht_got_target *target_named(const walk *w, const char *name)
{
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->t[i].name, name)) return &w->t[i];
    return NULL;
}

static int skipped(const struct dl_phdr_info *info, const walk *w)
{
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (strstr(name, "linux-vdso") || strstr(name, "/ld-linux") || strstr(name, "ld64.so")) return 1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (uintptr_t)w->skip >= lo && (uintptr_t)w->skip < lo + ph->p_memsz) return 1;
    }
    return 0;
}

/* The relocations rel[0..count) of one object: rewrite those naming a target. */
static void patch_relas(walk *w, const struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t count,
                        const ElfW(Sym) *symtab, const char *strtab, uintptr_t relro_lo, uintptr_t relro_hi)
{
    for (size_t i = 0; i < count && !w->failed; i++) {
        unsigned type = ELF64_R_TYPE(rel[i].r_info);
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && !(type == R_X86_64_64 && !rel[i].r_addend))
            continue;
        size_t sym = ELF64_R_SYM(rel[i].r_info);
        if (!sym) continue;
        const ht_got_target *t = target_named(w, strtab + symtab[sym].st_name);
        if (!t) continue;
        uintptr_t *where = (uintptr_t *)(info->dlpi_addr + rel[i].r_offset);
        if (*where == (uintptr_t)t->hook) continue;
        if (nslots == cap_slots && grow() < 0) {
            w->failed = 1;
            return;
        }
        int relro = (uintptr_t)where >= relro_lo && (uintptr_t)where < relro_hi;
        slots[nslots++] = (slot){ info->dlpi_addr, info->dlpi_phdr, where, *where, relro };
        put(where, (uintptr_t)t->hook, relro);
        w->patched++;
    }
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    walk *w = data;
    if (skipped(info, w) || known(info->dlpi_addr, info->dlpi_phdr)) return 0;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t relro_lo = 0, relro_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) relro_lo = info->dlpi_addr + ph->p_vaddr, relro_hi = relro_lo + ph->p_memsz;
    }
    if (!dyn) return 0;
    uintptr_t base = info->dlpi_addr, symtab = 0, strtab = 0, jmprel = 0, rela = 0;
    size_t pltrelsz = 0, relasz = 0;
    long pltrel = DT_RELA;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = dyn_ptr(dyn->d_un.d_ptr, base); break;
        case DT_STRTAB: strtab = dyn_ptr(dyn->d_un.d_ptr, base); break;
        case DT_JMPREL: jmprel = dyn_ptr(dyn->d_un.d_ptr, base); break;
        case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrel = (long)dyn->d_un.d_val; break;
        case DT_RELA: rela = dyn_ptr(dyn->d_un.d_ptr, base); break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        default: break;
        }
    }
    if (!symtab || !strtab) return 0;
    const ElfW(Sym) *st = (const ElfW(Sym) *)symtab;
    const char *str = (const char *)strtab;
    if (jmprel && pltrel == DT_RELA)
        patch_relas(w, info, (const ElfW(Rela) *)jmprel, pltrelsz / sizeof(ElfW(Rela)), st, str, relro_lo, relro_hi);
    if (rela) patch_relas(w, info, (const ElfW(Rela) *)rela, relasz / sizeof(ElfW(Rela)), st, str, relro_lo, relro_hi);
    /* an object with no slot to rewrite is still known: a marker slot, never written */
    if (!w->failed && !known(info->dlpi_addr, info->dlpi_phdr)) {
        if (nslots == cap_slots && grow() < 0) {
            w->failed = 1;
            return 0;
        }
        slots[nslots++] = (slot){ info->dlpi_addr, info->dlpi_phdr, NULL, 0, 0 };
    }
    return 0;
}

long ht_got_patch_new(const ht_got_target *t, size_t n, const void *skip)
{
    walk w = { t, n, skip, 0, 0 };
    dl_iterate_phdr(patch_object, &w);
    return w.failed ? -1 : w.patched;
}

/* Objects loaded now, by identity: a slot's object is kept if listed. */
typedef struct loaded {
    int *keep;  /* per slot */
} loaded;

static int mark_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    loaded *l = data;
    for (size_t i = 0; i < nslots; i++)
        if (slots[i].base == info->dlpi_addr && slots[i].phdr == info->dlpi_phdr) l->keep[i] = 1;
    return 0;
}

void ht_got_forget_unloaded(void)
{
    if (!nslots) return;
    size_t bytes = nslots * sizeof(int);
    int *keep = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (keep == MAP_FAILED) return;
    loaded l = { keep };
    dl_iterate_phdr(mark_loaded, &l);
    size_t k = 0;
    for (size_t i = 0; i < nslots; i++)
        if (keep[i]) slots[k++] = slots[i];
    nslots = k;
    munmap(keep, bytes);
}

void ht_got_restore(void)
{
    ht_got_forget_unloaded();
    for (size_t i = nslots; i-- > 0;)
        if (slots[i].where) put(slots[i].where, slots[i].was, slots[i].relro);
    nslots = 0;
}
