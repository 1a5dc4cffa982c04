/* hooks.c — the interposed symbols of libhatrace.so.
 *
 * Each allocation hook calls the real function, then records one raw event
 * (ht_emit_ret: a timestamp and five words into the thread's ring). A free is
 * stamped before the real free runs, so its time precedes any reuse of the
 * address by another thread (ht_emit_free). The real functions are the next definitions after
 * this library (dlsym RTLD_NEXT): a program linked with jemalloc is traced on
 * top of jemalloc. C++ operator new, new[], delete and delete[] (each form:
 * sized, aligned, nothrow) are interposed too and recorded as such: new calls
 * the real malloc (posix_memalign when aligned) itself, delete the real free,
 * so each is one event; only a new that fails goes on to the C++ runtime's
 * operator (its new-handler loop and bad_alloc), whose retries are recorded as
 * malloc. A program that defines its own operators keeps them (they come
 * first in the lookup), and their calls of malloc and free are recorded.
 *
 * Bootstrap: dlsym itself may call calloc/malloc before the real functions are
 * known. Those calls, made on the initialising thread while it resolves symbols,
 * are the recorder's own and are served from a small static arena, unrecorded
 * (as the frees of arena blocks are: free/realloc recognise them). The program's
 * own first call is recorded: it triggers the resolution, then runs for real.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach.h"
#include "crash.h"
#include "flusher.h"
#include "output.h"
#include "own_heap.h"
#include "prim.h"
#include "process.h"
#include "recorder.h"
#include "stacks.h"

#define HT_EXPORT __attribute__((visibility("default")))

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static size_t (*real_malloc_usable_size)(void *);
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execv)(const char *, char *const[]);
static int (*real_execvp)(const char *, char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);
static int (*real_execveat)(int, const char *, char *const[], char *const[], int);
static void (*real__exit)(int);
static sighandler_t (*real_signal)(int, sighandler_t);
static sighandler_t (*real_bsd_signal)(int, sighandler_t);
static sighandler_t (*real_sysv_signal)(int, sighandler_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static int (*real_brk)(void *);
static void *(*real_sbrk)(intptr_t);
static int (*real_close)(int);
static int (*real_close_range)(unsigned, unsigned, int);
static void (*real_closefrom)(int);

/* ---- bootstrap arena ---------------------------------------------------------- */

enum { ARENA_BYTES = 64 * 1024, ARENA_HDR = 16 };
static _Alignas(64) char arena[ARENA_BYTES];
static _Atomic size_t arena_used;

static int in_arena(const void *p)
{
    return (const char *)p >= arena && (const char *)p < arena + ARENA_BYTES;
}

/* Bump allocation; blocks are never reused, so they are zeroed (calloc). */
static void *arena_alloc(size_t n, size_t align)
{
    if (align < ARENA_HDR) align = ARENA_HDR;
    if (n > ARENA_BYTES || (align & (align - 1))) return NULL;
    size_t used = atomic_load(&arena_used), start, end;
    do {
        start = (used + ARENA_HDR + align - 1) & ~(align - 1);
        end = start + ((n + 15) & ~(size_t)15);
        if (end > ARENA_BYTES) return NULL;
    } while (!atomic_compare_exchange_weak(&arena_used, &used, end));
    memcpy(arena + start - sizeof(size_t), &n, sizeof n);
    return arena + start;
}

static size_t arena_size(const void *p)
{
    size_t n;
    memcpy(&n, (const char *)p - sizeof(size_t), sizeof n);
    return n;
}

/* The library's entry points live here, with the hooks, so that the recorder
 * core linked into unit tests (libhatpreload.a) does not start recording the
 * test programs themselves. */
static void resolve_real(void);  /* the real functions, looked up: given to ht_init */
__attribute__((constructor(101))) static void ht_ctor(void)
{
    if (ht_attach_loaded_late()) return;  /* hatrace_attach starts it (attach.c) */
    ht_init(resolve_real);
    /* quick_exit ends in libc's own _exit, which no hook sees: the trace
     * ends as at _exit. Registered first, this handler runs after the
     * program's. Not when attached: a detached library must leave nothing of
     * its own to call. */
    at_quick_exit(ht_before_exit);
}

/* Where the real functions are looked up: the next definitions after this
 * library when it is preloaded; attached, the global scope's (attach.c). */
static void *real_scope = RTLD_NEXT;

void ht_attach_start(void)
{
    real_scope = RTLD_DEFAULT;
    ht_init(resolve_real);
}

/* Destructors of the program and of libraries loaded after us run before this
 * one (we are preloaded: first initialised, last finalised), so their frees are
 * in the trace; the flusher is stopped and the rest drained synchronously. */
__attribute__((destructor(101))) static void ht_dtor(void) { ht_finish(); }

/* Every call made while resolving is served by the arena: the pointers are
 * published together at the end, so no block moves between allocators. */
static void resolve_real(void)
{
#define RESOLVE(name) __typeof__(real_##name) name##_ = (__typeof__(real_##name))dlsym(real_scope, #name)
    RESOLVE(calloc);
    RESOLVE(malloc);
    RESOLVE(free);
    RESOLVE(realloc);
    RESOLVE(posix_memalign);
    RESOLVE(aligned_alloc);
    RESOLVE(memalign);
    RESOLVE(valloc);
    RESOLVE(pvalloc);
    RESOLVE(malloc_usable_size);
    RESOLVE(execve);
    RESOLVE(execv);
    RESOLVE(execvp);
    RESOLVE(execvpe);
    RESOLVE(fexecve);
    RESOLVE(execveat);
    RESOLVE(_exit);
    RESOLVE(signal);
    RESOLVE(bsd_signal);
    RESOLVE(sysv_signal);
    RESOLVE(mmap);
    RESOLVE(munmap);
    RESOLVE(mremap);
    RESOLVE(brk);
    RESOLVE(sbrk);
    RESOLVE(close);
    RESOLVE(close_range);
    RESOLVE(closefrom);
#undef RESOLVE
    __typeof__(ht_real_pthread_create) pc = (__typeof__(pc))dlsym(real_scope, "pthread_create");
    real_calloc = calloc_, real_free = free_, real_realloc = realloc_;
    real_posix_memalign = posix_memalign_;
    real_aligned_alloc = aligned_alloc_, real_memalign = memalign_, real_valloc = valloc_;
    real_pvalloc = pvalloc_, real_malloc_usable_size = malloc_usable_size_;
    ht_real_usable_size = malloc_usable_size_;
    real_execve = execve_, real_execv = execv_, real_execvp = execvp_, real_execvpe = execvpe_;
    real_fexecve = fexecve_, real_execveat = execveat_;
    real__exit = _exit_;
    real_signal = signal_, real_bsd_signal = bsd_signal_, real_sysv_signal = sysv_signal_;
    ht_real_sigaction = (__typeof__(ht_real_sigaction))dlsym(real_scope, "sigaction");
    real_mmap = mmap_, real_munmap = munmap_, real_mremap = mremap_, real_brk = brk_, real_sbrk = sbrk_;
    real_close = close_, real_close_range = close_range_, real_closefrom = closefrom_;
    ht_real_pthread_create = pc;
    atomic_signal_fence(memory_order_seq_cst);
    real_malloc = malloc_;  /* last: the hooks test it to know resolution is done */
}

/* The real functions are not known yet: resolve them (the program's call) or
 * serve from the arena (our own dlsym recursing). @return 1 if resolved. */
static int boot(void)
{
    ht_init(resolve_real);
    return real_malloc != NULL;
}

#define BOOTING() (HT_UNLIKELY(!real_malloc) && !boot())

#define U(p) ((uint64_t)(uintptr_t)(p))

/* The caller's stack id (stacks.c), 0 when stacks are off: then nothing but a
 * load and a test. Inlined into the hook, as ht_stack_here skips exactly its
 * own frame and the hook's. */
static inline __attribute__((always_inline)) uint64_t stack_id(void)
{
    return HT_UNLIKELY(ht_stack_depth) ? ht_stack_here() : 0;
}

/* The event word's flags: the call failed, d carries a stack id. */
#define FLAGS(failed, sid) (((failed) ? HT_FAILED : 0) | ((sid) ? HT_STACKED : 0))

/* Record the call that just returned (a failed one too), with the caller's stack
 * sid (stack_id, taken before the real call: then no call follows the real one
 * outside ht_emit_ret's tail calls) in d. @return ret, the hook's result. */
static inline __attribute__((always_inline)) void *emit(uint32_t kind, int failed, uint64_t a, uint64_t b,
                                                        uint64_t c, uint64_t sid, void *ret)
{
    __asm__("" : "+r"(sid));  /* its flag made here, not kept in one more register across the real call */
    return ht_emit_ret(kind | FLAGS(failed, sid), a, b, c, sid, ret);
}

/* ---- the malloc family ------------------------------------------------------ */

HT_EXPORT void *malloc(size_t n)
{
    if (BOOTING()) return arena_alloc(n, 16);
    uint64_t sid = stack_id();
    void *p = real_malloc(n);
    return emit(HT_K_MALLOC, !p, U(p), n, 0, sid, p);
}

HT_EXPORT void *calloc(size_t nmemb, size_t size)
{
    if (BOOTING()) {
        size_t total;
        return __builtin_mul_overflow(nmemb, size, &total) ? NULL : arena_alloc(total, 16);
    }
    uint64_t sid = stack_id();
    void *p = real_calloc(nmemb, size);
    return emit(HT_K_CALLOC, !p, U(p), nmemb, size, sid, p);
}

HT_EXPORT void free(void *p)
{
    if (HT_UNLIKELY(in_arena(p))) return;
    if (BOOTING()) return;
    ht_emit_free(HT_K_FREE, p, real_free);
}

/* Move an arena block to the real heap (or the arena while still booting). */
static void *arena_realloc(void *p, size_t n)
{
    void *q = real_malloc ? real_malloc(n) : arena_alloc(n, 16);
    if (q) {
        size_t old = arena_size(p);
        memcpy(q, p, old < n ? old : n);
    }
    return q;
}

/* A realloc in the recorder's own code: its change of the recorder's heap
 * (ht_own_heap; a realloc's old block is gone once it returns). Not recorded. */
static __attribute__((noinline)) void *own_realloc(void *p, size_t n)
{
    int64_t old = p && ht_real_usable_size ? (int64_t)ht_real_usable_size(p) : 0;
    void *q = real_realloc(p, n);
    if (q || !n) {  /* moved, resized or freed; a failure leaves p as it was */
        int64_t now = q && ht_real_usable_size ? (int64_t)ht_real_usable_size(q) : 0;
        ht_own_heap_realloc(U(p), old, U(q), now);
    }
    return q;
}

HT_EXPORT void *realloc(void *p, size_t n)
{
    if (HT_UNLIKELY(in_arena(p))) return arena_realloc(p, n);
    if (BOOTING()) return p ? NULL : arena_alloc(n, 16);
    if (HT_UNLIKELY(ht_t.untraced) && ht_in_own_code(&ht_t)) return own_realloc(p, n);
    uint64_t sid = stack_id();
    /* the old block may be given back inside the call and taken by another
     * thread before the stamp below: d carries when the call began too, the
     * earliest its release can be (hatf_raw_release_d). realloc(NULL, n)
     * gives nothing back: no second clock read. */
    uint64_t begin = p && !HT_BENCH_SKIPS(HT_BENCH_CLOCK) ? hatf_raw_release_d(ht_now() - ht_t0) : 0;
    void *q = real_realloc(p, n);
    int failed = !q && (n || !p);  /* realloc(p, 0) may free and return NULL */
    __asm__("" : "+r"(sid));  /* as in emit */
    return ht_emit_ret(HT_K_REALLOC | FLAGS(failed, sid), U(p), n, U(q), sid | begin, q);
}

/* reallocarray with a count or an element size of 2^32 or more (an overflow
 * among them): the wide layout, no release lead (recorder.h, HT_PACKED). */
static __attribute__((noinline)) void *reallocarray_wide(void *p, size_t nmemb, size_t size)
{
    void *q;
    size_t total;
    uint64_t sid = size <= UINT32_MAX ? stack_id() : 0;  /* d holds both: see HT_STACKED */
    if (__builtin_mul_overflow(nmemb, size, &total)) {
        errno = ENOMEM;
        q = NULL;
    } else if (HT_UNLIKELY(ht_t.untraced) && ht_in_own_code(&ht_t)) {
        return own_realloc(p, total);
    } else {
        q = real_realloc(p, total);
    }
    int failed = !q && ((nmemb && size) || !p);
    return ht_emit_ret(HT_K_REALLOCARRAY | FLAGS(failed, sid), U(p), nmemb, U(q), size | sid << 32, q);
}

HT_EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
    if (HT_UNLIKELY(in_arena(p))) {
        size_t total;
        if (__builtin_mul_overflow(nmemb, size, &total)) return NULL;
        return arena_realloc(p, total);
    }
    if (BOOTING()) return NULL;
    /* glibc's reallocarray calls realloc through the PLT, which would record the
     * call twice: check the product here and call the real realloc directly */
    if (HT_UNLIKELY((nmemb | size) >> 32)) return reallocarray_wide(p, nmemb, size);
    size_t total = nmemb * size;  /* both under 2^32: no overflow */
    if (HT_UNLIKELY(ht_t.untraced) && ht_in_own_code(&ht_t)) return own_realloc(p, total);
    uint64_t sid = stack_id();
    uint64_t begin = p && !HT_BENCH_SKIPS(HT_BENCH_CLOCK) ? hatf_raw_release_d(ht_now() - ht_t0) : 0;  /* as realloc's */
    void *q = real_realloc(p, total);
    int failed = !q && (total || !p);
    __asm__("" : "+r"(sid));  /* as in emit */
    return ht_emit_ret(HT_K_REALLOCARRAY | HT_PACKED | FLAGS(failed, sid), U(p), nmemb | size << 32, U(q),
                       sid | begin, q);
}

HT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (BOOTING()) {
        void *p = arena_alloc(n, align);
        if (!p) return ENOMEM;
        *out = p;
        return 0;
    }
    uint64_t sid = stack_id();
    int rc = real_posix_memalign(out, align, n);
    emit(HT_K_POSIX_MEMALIGN, rc, rc ? 0 : U(*out), n, align, sid, NULL);
    return rc;
}

HT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (BOOTING()) return arena_alloc(n, align);
    uint64_t sid = stack_id();
    void *p = real_aligned_alloc(align, n);
    return emit(HT_K_ALIGNED_ALLOC, !p, U(p), n, align, sid, p);
}

HT_EXPORT void *memalign(size_t align, size_t n)
{
    if (BOOTING()) return arena_alloc(n, align);
    uint64_t sid = stack_id();
    void *p = real_memalign(align, n);
    return emit(HT_K_MEMALIGN, !p, U(p), n, align, sid, p);
}

HT_EXPORT void *valloc(size_t n)
{
    if (BOOTING()) return arena_alloc(n, 4096);
    uint64_t sid = stack_id();
    void *p = real_valloc(n);
    return emit(HT_K_VALLOC, !p, U(p), n, 0, sid, p);
}

HT_EXPORT void *pvalloc(size_t n)
{
    if (BOOTING()) return arena_alloc(n, 4096);
    uint64_t sid = stack_id();
    void *p = real_pvalloc(n);
    return emit(HT_K_PVALLOC, !p, U(p), n, 0, sid, p);
}

HT_EXPORT size_t malloc_usable_size(void *p)
{
    if (HT_UNLIKELY(in_arena(p))) return arena_size(p);
    if (BOOTING()) return 0;
    return real_malloc_usable_size(p);
}

/* ---- the program's own mappings ------------------------------------------------
 * mmap, munmap, mremap, brk and sbrk called through the PLT (the program's
 * and its libraries'; glibc's malloc maps memory with internal calls that
 * never come here) are recorded as comments "hatrace-map ..." (docs/FORMAT.md,
 * "Mappings and phases"), which HATF 1.0 readers skip and hatrace's count. An
 * allocator may call them holding its own lock (jemalloc does), so the hook
 * neither allocates nor waits: ht_emit_nowait, and the flusher writes the text.
 * The recorder's own calls (untraced, or inside a hook) are not recorded. */

/* Recorded when the recorder runs; the comment's text is the flusher's to write. */
static inline void map_note(unsigned call, const void *addr, uint64_t len, uint64_t arg, uint64_t d)
{
    if (real_malloc && atomic_load_explicit(&ht_state, memory_order_acquire) == HT_ST_READY)
        ht_emit_nowait(HT_K_MAP, U(addr), len, call | arg << 8, d);
}

HT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = real_mmap ? real_mmap(addr, len, prot, flags, fd, off)
                        : (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED) map_note((flags & MAP_ANONYMOUS) ? HT_MAP_MMAP_ANON : HT_MAP_MMAP_FILE, p, len, 0, 0);
    return p;
}

HT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap(addr, len, prot, flags, fd, off);
}

HT_EXPORT int munmap(void *addr, size_t len)
{
    int rc = real_munmap ? real_munmap(addr, len) : (int)syscall(SYS_munmap, addr, len);
    if (!rc) map_note(HT_MAP_MUNMAP, addr, len, 0, 0);
    return rc;
}

HT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *want = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        want = va_arg(ap, void *);
        va_end(ap);
    }
    void *p = real_mremap ? ((flags & MREMAP_FIXED) ? real_mremap(old, old_len, new_len, flags, want)
                                                    : real_mremap(old, old_len, new_len, flags))
                          : (void *)syscall(SYS_mremap, old, old_len, new_len, flags, want);
    if (p != MAP_FAILED) map_note(HT_MAP_MREMAP, old, old_len, new_len, U(p));
    return p;
}

HT_EXPORT int brk(void *end)
{
    void *before = real_sbrk ? real_sbrk(0) : NULL;
    int rc = real_brk ? real_brk(end) : (errno = ENOSYS, -1);
    if (!rc && before) map_note(HT_MAP_BRK, NULL, 0, 0, (uint64_t)((char *)end - (char *)before));
    return rc;
}

HT_EXPORT void *sbrk(intptr_t incr)
{
    void *p = real_sbrk ? real_sbrk(incr) : (errno = ENOSYS, (void *)-1);
    if (p != (void *)-1 && incr) map_note(HT_MAP_BRK, NULL, 0, 0, (uint64_t)incr);
    return p;
}

/* ---- the program's closes: the trace's descriptor stays open ---------------------
 * A daemon closes every descriptor as it starts (a loop of close, close_range,
 * closefrom); the trace's would go with them and the recording stop
 * (output.c, ht_out_fd_intact). A close of it by the program says it closed
 * and leaves it open (ht_fd_kept: only while it is the trace's file); a range
 * is closed around it. Before the real functions are known: the system call. */

HT_EXPORT int close(int fd)
{
    if (HT_UNLIKELY(ht_fd_kept(fd))) return 0;
    return real_close ? real_close(fd) : (int)syscall(SYS_close, fd);
}

static int close_range_real(unsigned first, unsigned last, int flags)
{
    return real_close_range ? real_close_range(first, last, flags) : (int)syscall(SYS_close_range, first, last, flags);
}

HT_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    int kept = flags & CLOSE_RANGE_CLOEXEC ? -1 : ht_fd_kept_in(first, last);  /* the trace's is close-on-exec */
    if (HT_LIKELY(kept < 0)) return close_range_real(first, last, flags);
    int rc = (unsigned)kept > first ? close_range_real(first, (unsigned)kept - 1, flags) : 0;
    return rc == 0 && (unsigned)kept < last ? close_range_real((unsigned)kept + 1, last, flags) : rc;
}

HT_EXPORT void closefrom(int lowfd)
{
    int kept = lowfd >= 0 ? ht_fd_kept_in((unsigned)lowfd, ~0U) : -1;
    if (kept < 0) {
        if (real_closefrom) real_closefrom(lowfd);
        else close_range_real((unsigned)lowfd, ~0U, 0);
        return;
    }
    /* as glibc's closefrom: a kernel without close_range closes them one by one */
    if (kept > lowfd && close_range_real((unsigned)lowfd, (unsigned)kept - 1, 0) != 0)
        for (int fd = lowfd; fd < kept; fd++) close(fd);
    if (real_closefrom) real_closefrom(kept + 1);
    else close_range_real((unsigned)kept + 1, ~0U, 0);
}

/* ---- C++ operators ------------------------------------------------------------ */

/* The Itanium ABI's name suffixes (size_t is unsigned long: "m"). */
#define CXX_NOTHROW "RKSt9nothrow_t"
#define CXX_ALIGN "St11align_val_t"

/* A new that the allocator could not serve: the C++ runtime's own operator
 * (found by its name) runs the new-handler loop and throws bad_alloc, or
 * returns NULL for the nothrow forms. Its retries are recorded as malloc. */
static __attribute__((noinline)) void *cxx_new_failed(const char *name, size_t n, size_t align, int nothrow)
{
    static const char nothrow_tag;  /* stands for std::nothrow: an empty object, passed by reference */
    void *real = dlsym(real_scope, name);
    if (!real) {
        if (nothrow) return NULL;
        abort();  /* no C++ runtime to throw bad_alloc */
    }
    if (align) {
        if (nothrow) return ((void *(*)(size_t, size_t, const void *))real)(n, align, &nothrow_tag);
        return ((void *(*)(size_t, size_t))real)(n, align);
    }
    if (nothrow) return ((void *(*)(size_t, const void *))real)(n, &nothrow_tag);
    return ((void *(*)(size_t))real)(n);
}

/* new of n bytes, aligned when align > 0: one event. */
static inline __attribute__((always_inline)) void *cxx_new(uint32_t kind, size_t n, size_t align,
                                                           const char *name, int nothrow)
{
    void *p = NULL;
    uint64_t sid = stack_id();
    if (BOOTING()) {
        p = arena_alloc(n, align ? align : 16);
    } else if (align) {
        if (real_posix_memalign(&p, align, n ? n : 1)) p = NULL;
    } else {
        p = real_malloc(n ? n : 1);  /* new of 0 bytes returns a unique pointer */
    }
    if (HT_LIKELY(p != NULL)) return emit(kind, 0, U(p), n, align, sid, p);
    emit(kind, 1, 0, n, align, sid, NULL);
    return cxx_new_failed(name, n, align, nothrow);
}

/* The operators, declared first (they have no C header), then defined. */
#define NEW_FORMS(X, sym, kind)                                                                   \
    X(void *, return, sym, (size_t n), cxx_new(kind, n, 0, #sym, 0))                                      \
    X(void *, return, sym##RKSt9nothrow_t, (size_t n, const void *nt),                                    \
      ((void)nt, cxx_new(kind, n, 0, #sym CXX_NOTHROW, 1)))                                       \
    X(void *, return, sym##St11align_val_t, (size_t n, size_t al), cxx_new(kind, n, al, #sym CXX_ALIGN, 0)) \
    X(void *, return, sym##St11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *nt),          \
      ((void)nt, cxx_new(kind, n, al, #sym CXX_ALIGN CXX_NOTHROW, 1)))
/* every delete form: plain, sized, aligned, sized and aligned, nothrow, aligned nothrow */
#define DELETE_FORMS(X, sym, kind)                                                                \
    X(void, , sym, (void *p), cxx_delete(kind, p))                                                  \
    X(void, , sym##m, (void *p, size_t n), cxx_delete_sized(kind, p, n))                            \
    X(void, , sym##St11align_val_t, (void *p, size_t al), ((void)al, cxx_delete(kind, p)))          \
    X(void, , sym##mSt11align_val_t, (void *p, size_t n, size_t al), ((void)al, cxx_delete_sized(kind, p, n))) \
    X(void, , sym##RKSt9nothrow_t, (void *p, const void *nt), ((void)nt, cxx_delete(kind, p)))      \
    X(void, , sym##St11align_val_tRKSt9nothrow_t, (void *p, size_t al, const void *nt),             \
      ((void)al, (void)nt, cxx_delete(kind, p)))
#define CXX_OPERATORS(X)                                                                          \
    NEW_FORMS(X, _Znwm, HT_K_NEW)                                                                 \
    NEW_FORMS(X, _Znam, HT_K_NEW_ARRAY)                                                           \
    DELETE_FORMS(X, _ZdlPv, HT_K_DELETE)                                                          \
    DELETE_FORMS(X, _ZdaPv, HT_K_DELETE_ARRAY)

static inline __attribute__((always_inline)) void cxx_delete(uint32_t kind, void *p)
{
    if (HT_UNLIKELY(in_arena(p))) return;
    if (BOOTING()) return;
    ht_emit_free(kind, p, real_free);
}

/* A sized delete: the size the program gave is recorded too (b, with c = 1:
 * its sized= attribute), so a size that is not the block's can be found.
 * Stamped and published before the real free, as ht_emit_free does. */
static inline __attribute__((always_inline)) void cxx_delete_sized(uint32_t kind, void *p, size_t n)
{
    if (HT_UNLIKELY(in_arena(p))) return;
    if (BOOTING()) return;
    ht_emit(kind, U(p), n, 1, 0);
    real_free(p);
}

#define CXX_DECLARE(type, ret, name, params, body) HT_EXPORT type name params;
#define CXX_DEFINE(type, ret, name, params, body) HT_EXPORT type name params { ret body; }
CXX_OPERATORS(CXX_DECLARE)
CXX_OPERATORS(CXX_DEFINE)
#undef CXX_DECLARE
#undef CXX_DEFINE

/* ---- threads ------------------------------------------------------------------ */

typedef struct tramp {
    void *(*fn)(void *);
    void *arg;
    uint64_t parent;
    _Atomic int used;  /* a slot of tramp_pool taken */
} tramp;

/* The trampolines of threads being created: a slot taken by pthread_create
 * and given back by the new thread as it starts, with no heap call. A
 * program's signal handler that allocates (against POSIX, but programs do)
 * must not find glibc's arena locked by a call the program never made: the
 * trampoline's malloc was one, and such a handler deadlocked on it
 * (record_signal). With every slot taken, malloc'd with signals held. */
enum { TRAMP_SLOTS = 64 };
static tramp tramp_pool[TRAMP_SLOTS];

static tramp *tramp_get(void)
{
    for (int i = 0; i < TRAMP_SLOTS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&tramp_pool[i].used, &free_slot, 1)) return &tramp_pool[i];
    }
    sigset_t old;
    ht_hold_signals(&old);
    tramp *t = real_malloc(sizeof *t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return t;
}

static void tramp_put(tramp *t)
{
    if (t >= tramp_pool && t < tramp_pool + TRAMP_SLOTS) {
        atomic_store_explicit(&t->used, 0, memory_order_release);
        return;
    }
    sigset_t old;
    ht_hold_signals(&old);
    real_free(t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void *tramp_main(void *v)
{
    tramp t = *(tramp *)v;
    tramp_put(v);
    ht_t.parent = t.parent;
    ht_thread_begin();
    return t.fn(t.arg);
}

HT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    if (HT_UNLIKELY(!ht_real_pthread_create)) ht_init(resolve_real);
    if (!ht_real_pthread_create) return ENOSYS;
    if (atomic_load(&ht_state) != HT_ST_READY || ht_t.untraced)
        return ht_real_pthread_create(th, attr, fn, arg);
    uint64_t parent = ht_current_tid();
    /* the trampoline's memory is the recorder's: not in the trace */
    tramp *t = tramp_get();
    if (!t) return ht_real_pthread_create(th, attr, fn, arg);
    t->fn = fn;
    t->arg = arg;
    t->parent = parent;
    int rc = ht_real_pthread_create(th, attr, tramp_main, t);
    if (rc) tramp_put(t);
    return rc;
}

/* ---- exec: finish this program's trace; the new program starts its own ----------- */

static int missing(void)
{
    errno = ENOSYS;
    return -1;
}

/* Each exec the same way: the real function resolved (a first call may come
 * before any allocation), the trace finished, the crash handler told (its
 * actions are the new program's), and, when the exec failed, told again. */
#define EXEC_HOOK(name, params, args)                 \
    HT_EXPORT int name params                         \
    {                                                 \
        if (!real_##name) ht_init(resolve_real);      \
        if (!real_##name) return missing();           \
        ht_before_exec();                             \
        ht_crash_exec(0);                             \
        int rc = real_##name args;                    \
        ht_crash_exec(1);                             \
        return rc;                                    \
    }

EXEC_HOOK(execve, (const char *path, char *const argv[], char *const envp[]), (path, argv, envp))
EXEC_HOOK(execv, (const char *path, char *const argv[]), (path, argv))
EXEC_HOOK(execvp, (const char *file, char *const argv[]), (file, argv))
EXEC_HOOK(execvpe, (const char *file, char *const argv[], char *const envp[]), (file, argv, envp))
/* by descriptor: glibc's call the system call inside libc, which no other hook sees */
EXEC_HOOK(fexecve, (int fd, char *const argv[], char *const envp[]), (fd, argv, envp))
EXEC_HOOK(execveat, (int dirfd, const char *path, char *const argv[], char *const envp[], int flags),
          (dirfd, path, argv, envp, flags))

/* _exit and _Exit (one function in glibc): no destructor runs, so the trace is
 * ended here (ht_before_exit: by the flusher, for a bounded time). exit()
 * reaches the kernel through libc's own _exit, not this one, after ht_dtor.
 * The real one was resolved at start: dlsym may allocate, and _exit may be
 * called by a signal handler. */
static __attribute__((noreturn)) void exit_now(int status)
{
    ht_before_exit();
    if (real__exit) real__exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

HT_EXPORT void _exit(int status) { exit_now(status); }
HT_EXPORT void _Exit(int status) { exit_now(status); }

/* daemon(3): glibc's ends the parent with an _exit of its own, inside libc,
 * which no hook sees: the parent's trace would stay unclosed and its last
 * events unwritten. Its steps are done here instead, the parent ending
 * through exit_now: fork, a new session, "/" unless nochdir, and unless
 * noclose standard input, output and error on /dev/null (refused with
 * ENODEV when that is not a character device, as glibc does). */
HT_EXPORT int daemon(int nochdir, int noclose)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid > 0) exit_now(0);
    if (setsid() < 0) return -1;
    if (!nochdir && chdir("/") != 0) { /* as glibc: the daemon runs on where it is */ }
    if (noclose) return 0;
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
        close(fd);
        errno = ENODEV;
        return -1;
    }
    for (int std = 0; std <= 2; std++) dup2(fd, std);
    if (fd > 2) close(fd);
    return 0;
}

/* ---- the program's signal actions: crash.c keeps those of the signals a
 * process dies of, so the trace is closed before it dies of one ---------------- */

HT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (HT_UNLIKELY(!ht_real_sigaction)) ht_init(resolve_real);
    if (!ht_real_sigaction) return missing();
    return ht_crash_sigaction(sig, act, old);
}

/* signal and bsd_signal: BSD's (SA_RESTART); sysv_signal, which strict C
 * programs get as signal: one-shot and not deferred. Others' signals go to
 * the real ones as they are. */
static sighandler_t signal_like(sighandler_t (*real)(int, sighandler_t), int sig, sighandler_t h, int flags)
{
    if (HT_UNLIKELY(!ht_real_sigaction)) ht_init(resolve_real);
    if (!ht_crash_signal(sig) || !ht_real_sigaction) {
        if (real) return real(sig, h);
        errno = ENOSYS;
        return SIG_ERR;
    }
    return ht_crash_signal_fn(sig, h, flags);
}

HT_EXPORT sighandler_t signal(int sig, sighandler_t h) { return signal_like(real_signal, sig, h, SA_RESTART); }
HT_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h);
HT_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h) { return signal_like(real_bsd_signal, sig, h, SA_RESTART); }
HT_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
    return signal_like(real_sysv_signal, sig, h, SA_RESETHAND | SA_NODEFER);
}
HT_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h)
{
    return signal_like(real_sysv_signal, sig, h, SA_RESETHAND | SA_NODEFER);
}

/* The execl family: collect the arguments on the stack, then as above. */
#define COLLECT_ARGS(first, ap, argv, extra)                                   \
    size_t argc_ = 1;                                                          \
    va_start(ap, first);                                                       \
    while (va_arg(ap, char *)) argc_++;                                        \
    va_end(ap);                                                                \
    char *argv[argc_ + 1];                                                     \
    argv[0] = (char *)(first);                                                 \
    va_start(ap, first);                                                       \
    for (size_t i_ = 1; i_ <= argc_; i_++) argv[i_] = va_arg(ap, char *);      \
    extra;                                                                     \
    va_end(ap)

HT_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv, (void)0);
    return execv(path, argv);
}

HT_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv, (void)0);
    return execvp(file, argv);
}

HT_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char *const *envp;
    COLLECT_ARGS(arg, ap, argv, envp = va_arg(ap, char *const *));
    return execve(path, argv, envp);
}
