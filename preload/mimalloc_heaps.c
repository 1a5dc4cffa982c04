/* mimalloc_heaps.c — mimalloc's first-class heaps, recorded with heap records.
 *
 * When the program uses libmimalloc's heap API, these definitions come before
 * libmimalloc's (we are preloaded), record the call and forward it to the next
 * definition (dlsym RTLD_NEXT):
 *   mi_heap_new                      createHeap named "mi_heap"; the heap's id is
 *                                    its address (reused after a destroy: the
 *                                    tools count creates, not ids)
 *   mi_heap_malloc, _zalloc, _calloc alloc in that heap (func malloc / calloc):
 *                                    the hooks' kinds with HT_HEAP, heap in d
 *   mi_heap_realloc                  realloc in that heap
 *   mi_heap_destroy                  destroyHeap: mimalloc frees every block left
 *   mi_heap_delete                   the live blocks move to the default heap:
 *                                    each is recorded as freed in the heap and
 *                                    allocated in heap 0 at its usable size, then
 *                                    destroyHeap
 *   mi_malloc, _zalloc, _calloc,     as malloc, calloc, realloc, free (heap 0)
 *   mi_realloc, mi_free
 * mi_free of a block of a heap the freeing thread made (mimalloc heaps are
 * thread-local: the usual case) is recorded in that heap: each thread keeps its
 * live heaps (up to 8) and asks mi_heap_contains_block, O(1) each. Frees from
 * other threads, and free() of heap blocks, are recorded in heap 0, which the
 * tools accept (a free need not know its heap) and attribute to the block's.
 * A thread's backing heap (mi_heap_get_backing) is heap 0. Calls that come from
 * inside libmimalloc (its own calls through the PLT: mi_heap_calloc ->
 * mi_heap_zalloc, realloc -> mi_free) are forwarded unrecorded: the return
 * address is compared with libmimalloc's code range, and with this library's
 * (where a tail call from libmimalloc returns), and calls made while one of
 * these functions runs on the thread (mi_heap_destroy ends with jmp to an
 * internal function that jumps to mi_free@plt) count as inner too. Without
 * libmimalloc these symbols return NULL (mi_free does nothing).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "prim.h"
#include "recorder.h"

#define HT_EXPORT __attribute__((visibility("default")))
#define U(p) ((uint64_t)(uintptr_t)(p))

typedef struct mi_heap_s mi_heap_t;
typedef bool mi_visit_fun(const mi_heap_t *heap, const void *area, void *block, size_t block_size, void *arg);

/* The interposed functions, as mimalloc.h declares them (that header is
 * optional here, so they are declared again). */
HT_EXPORT mi_heap_t *mi_heap_new(void);
HT_EXPORT void mi_heap_destroy(mi_heap_t *h);
HT_EXPORT void mi_heap_delete(mi_heap_t *h);
HT_EXPORT void *mi_heap_malloc(mi_heap_t *h, size_t n);
HT_EXPORT void *mi_heap_zalloc(mi_heap_t *h, size_t n);
HT_EXPORT void *mi_heap_calloc(mi_heap_t *h, size_t count, size_t size);
HT_EXPORT void *mi_heap_realloc(mi_heap_t *h, void *p, size_t n);
HT_EXPORT void *mi_malloc(size_t n);
HT_EXPORT void *mi_zalloc(size_t n);
HT_EXPORT void *mi_calloc(size_t count, size_t size);
HT_EXPORT void *mi_realloc(void *p, size_t n);
HT_EXPORT void mi_free(void *p);

static struct {
    mi_heap_t *(*heap_new)(void);
    void (*heap_delete)(mi_heap_t *);
    void (*heap_destroy)(mi_heap_t *);
    void *(*heap_malloc)(mi_heap_t *, size_t);
    void *(*heap_zalloc)(mi_heap_t *, size_t);
    void *(*heap_calloc)(mi_heap_t *, size_t, size_t);
    void *(*heap_realloc)(mi_heap_t *, void *, size_t);
    mi_heap_t *(*heap_get_backing)(void);
    bool (*heap_visit_blocks)(const mi_heap_t *, bool, mi_visit_fun *, void *);
    bool (*heap_contains_block)(mi_heap_t *, const void *);
    void *(*malloc)(size_t);
    void *(*zalloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    uintptr_t lo, hi;  /* libmimalloc's executable segments */
    uintptr_t self_lo, self_hi;  /* libhatrace's */
} mi;
static pthread_once_t mi_once = PTHREAD_ONCE_INIT;
static __thread mi_heap_t *backing __attribute__((tls_model("initial-exec")));
static __thread unsigned depth __attribute__((tls_model("initial-exec")));  /* inside a forward */
enum { MY_HEAPS = 8 };
static __thread mi_heap_t *my_heaps[MY_HEAPS] __attribute__((tls_model("initial-exec")));
static __thread unsigned n_my_heaps __attribute__((tls_model("initial-exec")));

static void my_heap_add(mi_heap_t *h)
{
    if (n_my_heaps < MY_HEAPS) my_heaps[n_my_heaps++] = h;
}

static void my_heap_remove(mi_heap_t *h)
{
    for (unsigned i = 0; i < n_my_heaps; i++)
        if (my_heaps[i] == h) {
            my_heaps[i] = my_heaps[--n_my_heaps];
            return;
        }
}

typedef struct code_range { void *base; uintptr_t lo, hi; } code_range;

static int find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    code_range *c = arg;
    if ((void *)info->dlpi_addr != c->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (!c->lo || lo < c->lo) c->lo = lo;
        if (hi > c->hi) c->hi = hi;
    }
    return 1;
}

/* The executable range of the object holding fn, into *lo, *hi. */
static void code_of(void *fn, uintptr_t *lo, uintptr_t *hi)
{
    Dl_info di;
    code_range c = { 0 };
    if (fn && dladdr(fn, &di) && (c.base = di.dli_fbase) != NULL) dl_iterate_phdr(find_code, &c);
    *lo = c.lo;
    *hi = c.hi;
}

static void resolve(void)
{
    ht_untraced_enter(&ht_t);  /* dlsym may allocate: the recorder's, not the program's */
#define R(field, name) mi.field = (__typeof__(mi.field))dlsym(RTLD_NEXT, name)
    R(heap_new, "mi_heap_new");
    R(heap_delete, "mi_heap_delete");
    R(heap_destroy, "mi_heap_destroy");
    R(heap_malloc, "mi_heap_malloc");
    R(heap_zalloc, "mi_heap_zalloc");
    R(heap_calloc, "mi_heap_calloc");
    R(heap_realloc, "mi_heap_realloc");
    R(heap_get_backing, "mi_heap_get_backing");
    R(heap_visit_blocks, "mi_heap_visit_blocks");
    R(heap_contains_block, "mi_heap_contains_block");
    R(malloc, "mi_malloc");
    R(zalloc, "mi_zalloc");
    R(calloc, "mi_calloc");
    R(realloc, "mi_realloc");
    R(free, "mi_free");
#undef R
    code_of((void *)(uintptr_t)code_of, &mi.self_lo, &mi.self_hi);
    code_of((void *)(uintptr_t)mi.heap_new, &mi.lo, &mi.hi);
    ht_untraced_leave(&ht_t);
}

#define RESOLVE() (HT_UNLIKELY(!mi.hi) ? pthread_once(&mi_once, resolve) : 0)
/* A call from inside libmimalloc (not the program's): forwarded unrecorded. */
#define INNER() inner((uintptr_t)__builtin_return_address(0))
static inline int inner(uintptr_t ra)
{
    return depth || ra - mi.lo < mi.hi - mi.lo || ra - mi.self_lo < mi.self_hi - mi.self_lo;
}
/* Call into libmimalloc, marked (and never a tail call: we return here). */
#define FWD(call) (depth++, __extension__({ __auto_type r_ = (call); depth--; r_; }))
#define FWDV(call) do { depth++; call; depth--; } while (0)

static inline uint64_t heap_id(mi_heap_t *h)
{
    if (HT_UNLIKELY(!backing) && mi.heap_get_backing) backing = mi.heap_get_backing();
    return h == backing ? 0 : U(h);
}

/* Kind bits for an allocating call: in heap h (0: the default heap), failed or not. */
static inline uint32_t akind(uint32_t kind, uint64_t heap, const void *p)
{
    return kind | (heap ? HT_HEAP : 0) | (p ? 0 : HT_FAILED);
}

HT_EXPORT mi_heap_t *mi_heap_new(void)
{
    RESOLVE();
    if (!mi.heap_new) return NULL;
    mi_heap_t *h = FWD(mi.heap_new());
    if (h && !INNER()) {
        ht_emit_heap_create(U(h), "mi_heap");
        my_heap_add(h);
    }
    return h;
}

HT_EXPORT void mi_heap_destroy(mi_heap_t *h)
{
    RESOLVE();
    if (!mi.heap_destroy) return;
    uint64_t id = h ? heap_id(h) : 0;
    if (id && !INNER()) {
        ht_emit(HT_K_HEAP_DESTROY, id, 0, 0, 0);  /* before the memory is reused */
        my_heap_remove(h);
    }
    FWDV(mi.heap_destroy(h));
}

static bool rehome(const mi_heap_t *heap, const void *area, void *block, size_t size, void *arg)
{
    (void)heap, (void)area;
    if (block) {
        uint64_t id = *(uint64_t *)arg;
        ht_emit(HT_K_HEAP_FREE, U(block), 0, id, 0);  /* out of the heap ... */
        ht_emit(HT_K_HEAP_ALLOC, U(block), size, 0, 0);  /* ... into heap 0 */
    }
    return true;
}

HT_EXPORT void mi_heap_delete(mi_heap_t *h)
{
    RESOLVE();
    if (!mi.heap_delete) return;
    uint64_t id = h ? heap_id(h) : 0;
    if (id && !INNER()) {
        if (mi.heap_visit_blocks) FWDV(mi.heap_visit_blocks(h, true, rehome, &id));
        ht_emit(HT_K_HEAP_DESTROY, id, 0, 0, 0);
        my_heap_remove(h);
    }
    FWDV(mi.heap_delete(h));
}

HT_EXPORT void *mi_heap_malloc(mi_heap_t *h, size_t n)
{
    RESOLVE();
    if (!mi.heap_malloc) return NULL;
    void *p = FWD(mi.heap_malloc(h, n));
    if (!INNER()) {
        uint64_t id = heap_id(h);
        ht_emit(akind(HT_K_MALLOC, id, p), U(p), n, 0, id);
    }
    return p;
}

HT_EXPORT void *mi_heap_zalloc(mi_heap_t *h, size_t n)
{
    RESOLVE();
    if (!mi.heap_zalloc) return NULL;
    void *p = FWD(mi.heap_zalloc(h, n));
    if (!INNER()) {
        uint64_t id = heap_id(h);
        ht_emit(akind(HT_K_CALLOC, id, p), U(p), 1, n, id);
    }
    return p;
}

HT_EXPORT void *mi_heap_calloc(mi_heap_t *h, size_t count, size_t size)
{
    RESOLVE();
    if (!mi.heap_calloc) return NULL;
    void *p = FWD(mi.heap_calloc(h, count, size));
    if (!INNER()) {
        uint64_t id = heap_id(h);
        ht_emit(akind(HT_K_CALLOC, id, p), U(p), count, size, id);
    }
    return p;
}

HT_EXPORT void *mi_heap_realloc(mi_heap_t *h, void *p, size_t n)
{
    RESOLVE();
    if (!mi.heap_realloc) return NULL;
    void *q = FWD(mi.heap_realloc(h, p, n));
    if (!INNER()) {
        uint64_t id = heap_id(h);
        int failed = !q && (n || !p);
        ht_emit(HT_K_REALLOC | (id ? HT_HEAP : 0) | (failed ? HT_FAILED : 0), U(p), n, U(q), id);
    }
    return q;
}

HT_EXPORT void *mi_malloc(size_t n)
{
    RESOLVE();
    if (!mi.malloc) return NULL;
    void *p = FWD(mi.malloc(n));
    if (!INNER()) ht_emit(akind(HT_K_MALLOC, 0, p), U(p), n, 0, 0);
    return p;
}

HT_EXPORT void *mi_zalloc(size_t n)
{
    RESOLVE();
    if (!mi.zalloc) return NULL;
    void *p = FWD(mi.zalloc(n));
    if (!INNER()) ht_emit(akind(HT_K_CALLOC, 0, p), U(p), 1, n, 0);
    return p;
}

HT_EXPORT void *mi_calloc(size_t count, size_t size)
{
    RESOLVE();
    if (!mi.calloc) return NULL;
    void *p = FWD(mi.calloc(count, size));
    if (!INNER()) ht_emit(akind(HT_K_CALLOC, 0, p), U(p), count, size, 0);
    return p;
}

HT_EXPORT void *mi_realloc(void *p, size_t n)
{
    RESOLVE();
    if (!mi.realloc) return NULL;
    /* as the realloc hook: when the call began, for its release lead (a heap's
     * realloc has no room for it, mi_heap_realloc) */
    uint64_t begin = p && !INNER() ? hatf_raw_release_d(ht_now() - ht_t0) : 0;
    void *q = FWD(mi.realloc(p, n));
    if (!INNER()) {
        int failed = !q && (n || !p);
        ht_emit(HT_K_REALLOC | (failed ? HT_FAILED : 0), U(p), n, U(q), begin);
    }
    return q;
}

HT_EXPORT void mi_free(void *p)
{
    RESOLVE();
    if (!mi.free) return;
    if (INNER()) {
        FWDV(mi.free(p));
        return;
    }
    for (unsigned i = 0; i < n_my_heaps && mi.heap_contains_block; i++)
        if (FWD(mi.heap_contains_block(my_heaps[i], p))) {
            ht_emit(HT_K_FREE | HT_HEAP, U(p), 0, 0, U(my_heaps[i]));  /* stamped before the free */
            FWDV(mi.free(p));
            return;
        }
    depth++;
    ht_emit_free(HT_K_FREE, p, mi.free);
    depth--;
}
