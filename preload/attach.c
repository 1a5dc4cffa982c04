/* attach.c — the recorder in a process that was already running: loaded by
 * hatrace record -p (cli/record_attach.c), which then calls hatrace_attach
 * and, at the window's end, hatrace_detach on one of its threads.
 *
 * Loaded late, the library's malloc interposes nothing (the program's calls
 * are bound already), so the slots of every loaded object that hold the
 * allocation functions' addresses are rewritten to the hooks (got_patch.c),
 * and those of objects loaded later by a dlopen, whose slot is rewritten too.
 * The hooks' real functions are what the program's calls were bound to (the
 * global scope's: glibc's, or an allocator the program is linked with).
 * Detaching puts every slot back and closes the trace; the library stays
 * mapped, and a later attach starts a new trace.
 */

#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "attach.h"
#include "flusher.h"
#include "flusher_state.h"
#include "got_patch.h"
#include "options.h"
#include "prim.h"
#include "recorder.h"
#include "registry.h"
#include "ring.h"
#include "stacks.h"

#define HT_EXPORT __attribute__((visibility("default")))

/* ---- loaded late? ------------------------------------------------------------ */

typedef struct order {
    const void *self, *libc;
    int i, self_at, libc_at;
} order;

static int holds(const struct dl_phdr_info *info, const void *addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (uintptr_t)addr >= lo && (uintptr_t)addr < lo + ph->p_memsz) return 1;
    }
    return 0;
}

static int find_order(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    order *o = data;
    if (o->self_at < 0 && holds(info, o->self)) o->self_at = o->i;
    if (o->libc_at < 0 && holds(info, o->libc)) o->libc_at = o->i;
    o->i++;
    return 0;
}

int ht_attach_loaded_late(void)
{
    order o = { (const void *)ht_attach_loaded_late, (const void *)dl_iterate_phdr, 0, -1, -1 };
    dl_iterate_phdr(find_order, &o);
    return o.self_at >= 0 && o.libc_at >= 0 && o.self_at > o.libc_at;
}

/* ---- the options hatrace record -p hands over ---------------------------------- */

enum { OPT_TEXT = 16384, OPT_MAX = 32 };
static char opt_text[OPT_TEXT];
static const char *opt_name[OPT_MAX], *opt_value[OPT_MAX];
static int nopts;

/* "NAME=VALUE" lines into the table. @return 0, or -1 if they do not fit. */
static int take_options(const char *text)
{
    size_t n = text ? strlen(text) : 0;
    if (n >= sizeof opt_text) return -1;
    memcpy(opt_text, text ? text : "", n + 1);
    nopts = 0;
    for (char *line = opt_text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        char *eq = strchr(line, '=');
        if (eq) {
            if (nopts == OPT_MAX) return -1;
            *eq = 0;
            opt_name[nopts] = line, opt_value[nopts] = eq + 1, nopts++;
        }
        line = next;
    }
    return 0;
}

static const char *option(const char *name)
{
    for (int i = 0; i < nopts; i++)
        if (!strcmp(opt_name[i], name)) return opt_value[i];
    return NULL;
}

/* ---- the functions redirected -------------------------------------------------- */

static const char *const hooked[] = {
    "malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign", "aligned_alloc", "memalign",
    "valloc", "pvalloc", "malloc_usable_size",
    "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
    "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
    "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
    "_ZdlPvSt11align_val_tRKSt9nothrow_t", "_ZdaPvSt11align_val_tRKSt9nothrow_t",
    "mmap", "mmap64", "munmap", "mremap", "brk", "sbrk",
};
enum { NHOOKED = sizeof hooked / sizeof *hooked };
static ht_got_target targets[NHOOKED + 2];  /* and dlopen, dlclose */
static size_t ntargets;
static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static int window_open;  /* slots rewritten (under the patcher's lock) */
static int windows;      /* windows opened so far */

/* Objects a dlopen brought in get their slots rewritten once it returns (their
 * constructors' calls, made inside it, are not recorded). */
static void *attach_dlopen(const char *file, int mode)
{
    void *h = real_dlopen(file, mode);
    if (h) {
        ht_got_lock();
        if (window_open && ht_got_patch_new(targets, ntargets, (const void *)attach_dlopen) < 0)
            ht_warn("out of memory for the slots of %s: its calls are not recorded", file ? file : "(main)");
        ht_got_unlock();
    }
    return h;
}

/* A dlclose may unmap an object: its slots are forgotten before anyone writes them. */
static int attach_dlclose(void *h)
{
    ht_got_lock();
    int rc = real_dlclose(h);
    ht_got_forget_unloaded();
    ht_got_unlock();
    return rc;
}

/* The hooks' addresses: this library's own definitions, not the global scope's. */
static int find_targets(void)
{
    Dl_info di;
    if (!dladdr((const void *)find_targets, &di) || !di.dli_fname) return -1;
    void *self = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!self) return -1;
    ntargets = 0;
    for (size_t i = 0; i < NHOOKED; i++) {
        void *hook = dlsym(self, hooked[i]);
        if (hook) targets[ntargets++] = (ht_got_target){ hooked[i], hook };
    }
    dlclose(self);
    real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_DEFAULT, "dlopen");
    real_dlclose = (int (*)(void *))dlsym(RTLD_DEFAULT, "dlclose");
    if (real_dlopen) targets[ntargets++] = (ht_got_target){ "dlopen", (void *)attach_dlopen };
    if (real_dlclose) targets[ntargets++] = (ht_got_target){ "dlclose", (void *)attach_dlclose };
    return 0;
}

/* ---- windows --------------------------------------------------------------------- */

/* The writer side as before a first trace. The rings stay: a thread that
 * holds one keeps writing into it (its own pointer to it cannot be reset
 * from here); the rings of threads gone are free again. */
static void writer_side_reset(void)
{
    ht_fs.writer = NULL;
    ht_fs.out_fd = -1;
    ht_fs.out_failed = 0;
    ht_fs.out_path[0] = 0;
    ht_flusher_state_fresh();
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        uint32_t st = atomic_load(&r->state);
        ht_ring_init(r, r->mask + 1);  /* what the last window's end left in it is not this trace's */
        if (st == HT_RING_DEAD) atomic_store(&r->state, HT_RING_FREE);
    }
    atomic_store(&ht_dead_rings, 0);
    ht_stacks_atfork_child();
}

/* A thread that kept its ring from an earlier window starts this trace with
 * its thread-create, written for it: it makes no call into the ring before
 * the slots are rewritten. */
static void announce_kept_threads(void)
{
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        if (atomic_load(&r->state) != HT_RING_OWNED) continue;
        ht_rawev *e = ht_ring_slot(r);
        if (!e) continue;
        uint64_t tk = (ht_now() - ht_t0) << HT_TK_SHIFT | HT_K_THREAD_CREATE;
        unsigned units = ht_rawev_put(e, tk, 0, r->ostid, 0, 0);
        r->last_tk = tk;
        ht_ring_publish(r, units);
    }
}

/* hatrace_attach's results (cli/record_attach.c says them). */
enum { ATTACH_OK = 0, ATTACH_PRELOADED = 1, ATTACH_ALREADY = 2, ATTACH_NO_TRACE = 3, ATTACH_OPTIONS = 4,
       ATTACH_NO_MEMORY = 5 };

HT_EXPORT int hatrace_attach(const char *options);
HT_EXPORT int hatrace_detach(void);

HT_EXPORT int hatrace_attach(const char *options)
{
    /* preloaded, this copy or another one (of another path): it records already */
    void *first = dlsym(RTLD_DEFAULT, "hatrace_attach");
    if (!ht_attach_loaded_late() || (first && first != (void *)hatrace_attach)) return ATTACH_PRELOADED;
    ht_got_lock();
    int rc = ATTACH_OK;
    if (window_open) {
        rc = ATTACH_ALREADY;
    } else if (take_options(options) < 0) {
        rc = ATTACH_OPTIONS;
    } else if (!ntargets && find_targets() < 0) {
        rc = ATTACH_NO_MEMORY;
    } else {
        ht_untraced_enter(&ht_t);
        if (windows++) {
            writer_side_reset();
            ht_window_reset();
        }
        ht_attached = 1;
        ht_options_from(option);
        ht_attach_start();
        if (atomic_load(&ht_state) != HT_ST_READY) {
            rc = ATTACH_NO_TRACE;
        } else {
            announce_kept_threads();
            if (ht_flusher_start() < 0) ht_warn("cannot start the flusher thread: rings are drained when full");
            window_open = 1;
            if (ht_got_patch_new(targets, ntargets, (const void *)attach_dlopen) < 0) rc = ATTACH_NO_MEMORY;
        }
        ht_untraced_leave(&ht_t);
        if (rc == ATTACH_NO_MEMORY) {  /* nothing half done: every slot back, the trace closed */
            ht_got_restore();
            window_open = 0;
            ht_finish_window();
        }
    }
    ht_got_unlock();
    return rc;
}

HT_EXPORT int hatrace_detach(void)
{
    ht_got_lock();
    int was = window_open;
    ht_got_restore();
    window_open = 0;
    ht_got_unlock();
    if (!was) return 1;
    ht_finish_window();
    return 0;
}
