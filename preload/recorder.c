/* recorder.c — process state of the recorder: init, per-thread rings, the slow
 * paths of the hooks, fork, exec and exit. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "recorder.h"

_Atomic int ht_state;
int ht_attached;
_Atomic uint32_t ht_poke_word;
uint64_t ht_t0;
_Atomic uint64_t ht_lost;
_Atomic uint64_t ht_side_events;
_Atomic uint32_t ht_side_most;

static _Atomic uint64_t next_tid = 2;  /* 1 is the process's main thread */
static pthread_key_t exit_key;
static int have_exit_key;
static pid_t owner_pid;                /* the process whose trace we write */
static _Atomic int finishing, finished; /* ht_finish begun, done */

static void thread_exit(void *ring);
static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);

/* The option that keeps children untraced also has to reach programs exec'd
 * later: blank LD_PRELOAD in place (no allocation; environ strings are ours). */
static void stop_following(void)
{
    extern char **environ;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "LD_PRELOAD=", 11)) (*e)[11] = 0;
}

#ifdef HT_BENCH_KNOBS
int ht_bench_skip;
volatile uint64_t ht_bench_sink;
static void bench_knobs_init(void)
{
    const char *v = getenv("HATRACE_BENCH_SKIP");
    ht_bench_skip = !v ? 0 : !strcmp(v, "ring") ? HT_BENCH_RING : !strcmp(v, "encode") ? HT_BENCH_ENCODE : 0;
}
#else
static void bench_knobs_init(void) {}
#endif

/* Every signal held while the recorder's own code runs untraced on a program
 * thread at its start (a ring attached, the recorder set up): a handler's
 * heap calls there would be taken for the recorder's own and lost. They run
 * when it is done, recorded as any. */
static void hold_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, old);
}

void ht_init_wait(void)
{
    if (ht_t.untraced) return;  /* our own dlsym recursing: the arena serves it */
    while (atomic_load_explicit(&ht_state, memory_order_acquire) == HT_ST_INITING) sched_yield();
}

void ht_init(void (*resolve_real)(void))
{
    int s = atomic_load_explicit(&ht_state, memory_order_acquire);
    if (HT_LIKELY(s >= HT_ST_READY)) return;
    int expect = HT_ST_UNINIT;
    if (!atomic_compare_exchange_strong(&ht_state, &expect, HT_ST_INITING)) {
        ht_init_wait();
        return;
    }
    sigset_t old;
    hold_signals(&old);
    ht_untraced_enter(&ht_t);
    if (resolve_real) resolve_real();
    ht_options_init();
    bench_knobs_init();
    ht_stacks_init();
    ht_clock_init();
    owner_pid = getpid();
    static int registered;  /* once per process: an attached one starts again for each window */
    if (!registered) {
        registered = 1;
        have_exit_key = pthread_key_create(&exit_key, thread_exit) == 0;
        if (!have_exit_key) ht_warn("pthread_key_create failed: thread exits are not recorded");
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    }
    int st = HT_ST_READY;
    if (ht_output_open() < 0) st = HT_ST_OFF;
    /* attached: the program's environment and signal actions are its own */
    if (!ht_opt(HT_OPT_FOLLOW_CHILDREN) && !ht_attached) stop_following();
    if (st == HT_ST_READY && !ht_attached) ht_crash_install();
    ht_untraced_leave(&ht_t);
    atomic_store_explicit(&ht_state, st, memory_order_release);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Give the calling thread a ring and record its thread-create first. */
static ht_ring *thread_attach(ht_tls *t)
{
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return NULL;
    sigset_t old;
    hold_signals(&old);
    ht_untraced_enter(t);
    ht_ring *r = ht_ring_claim();
    if (!r) {
        ht_untraced_leave(t);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        ht_warn("out of memory for a thread ring: this thread is not traced");
        return NULL;
    }
    if (ht_stack_depth) ht_stacks_attach(r);
    uint32_t ostid = ht_gettid();
    /* the main thread is 1 even if another thread allocated first */
    r->tid = (pid_t)ostid == getpid() ? 1 : atomic_fetch_add(&next_tid, 1);
    r->ostid = ostid;
    r->name[0] = 0;
    if (have_exit_key) pthread_setspecific(exit_key, r);
    if (!ht_flusher_running() && ht_flusher_start() < 0)
        ht_warn("cannot start the flusher thread: rings are drained when full");
    if (!t->altstack) t->altstack = ht_crash_thread_attach();
    ht_untraced_leave(t);
    t->ring = r;
    ht_emit(HT_K_THREAD_CREATE, t->parent, ostid, 0, 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL);  /* a handler that was held runs now, after the thread-create */
    return r;
}

uint64_t ht_current_tid(void)
{
    ht_tls *t = &ht_t;
    if (!t->ring && !t->untraced && !t->exited) thread_attach(t);
    return t->ring ? t->ring->tid : 0;
}

void ht_thread_begin(void)
{
    ht_tls *t = &ht_t;
    if (!t->ring) thread_attach(t);
}

/* Key destructors run in rounds; re-arm so ours runs in the last one, after the
 * frees of other keys' destructors and of C++ thread_local destructors. */
static void thread_exit(void *ring)
{
    ht_tls *t = &ht_t;
    if (++t->dtor_rounds < PTHREAD_DESTRUCTOR_ITERATIONS) {
        pthread_setspecific(exit_key, ring);
        return;
    }
    ht_ring *r = t->ring;
    if (!r) return;
    /* No handler runs on this thread from here to its end: its heap calls
     * would come after its thread-destroy, with no ring to take them (lost,
     * counted); a signal sent to the process goes to another thread, where it
     * is recorded as any. */
    sigset_t old;
    hold_signals(&old);
    ht_emit(HT_K_THREAD_DESTROY, 0, 0, 0, 0);
    /* the name is the thread's last one (pthread_setname_np may have changed it) */
    if (prctl(PR_GET_NAME, r->name) != 0) r->name[0] = 0;
    r->name[sizeof r->name - 1] = 0;
    t->ring = NULL;
    t->exited = 1;
    ht_untraced_enter(t);
    ht_crash_thread_exit(t->altstack);
    ht_untraced_leave(t);
    t->altstack = NULL;
    atomic_store_explicit(&r->state, HT_RING_DEAD, memory_order_release);
    /* bounded memory under a thread storm: reclaim before rings pile up */
    if (atomic_fetch_add(&ht_dead_rings, 1) + 1 >= 16) ht_poke();
}

_Atomic int64_t ht_own_heap;
size_t (*ht_real_usable_size)(void *);
int (*ht_real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* The recorder's own blocks of OWN_BIG bytes or more (zstd's contexts, the
 * writer's group buffers): a resident sample counts their resident pages,
 * not their size, as much of such a block may never be touched (an allocator
 * maps it fresh). A table under a spin lock: such blocks are few and made
 * rarely; one that finds the table full is counted at its size. */
enum { OWN_BIG = 64 * 1024, OWN_BIG_SLOTS = 512 };
static struct { uint64_t addr, size; } own_big[OWN_BIG_SLOTS];
static size_t own_big_n;
static atomic_flag own_big_lock = ATOMIC_FLAG_INIT;

static void own_big_take(void) { while (atomic_flag_test_and_set_explicit(&own_big_lock, memory_order_acquire)) sched_yield(); }
static void own_big_give(void) { atomic_flag_clear_explicit(&own_big_lock, memory_order_release); }

/* Block a of n usable bytes made (n > 0) or given back (n < 0). */
static void own_block(uint64_t a, int64_t n)
{
    atomic_fetch_add_explicit(&ht_own_heap, n, memory_order_relaxed);
    if (n > -OWN_BIG && n < OWN_BIG) return;
    own_big_take();
    if (n > 0 && own_big_n < OWN_BIG_SLOTS) {
        own_big[own_big_n].addr = a, own_big[own_big_n].size = (uint64_t)n, own_big_n++;
    } else if (n < 0) {
        for (size_t i = 0; i < own_big_n; i++)
            if (own_big[i].addr == a) {
                own_big[i] = own_big[--own_big_n];
                break;
            }
    }
    own_big_give();
}

void ht_own_heap_note(uint32_t kind, uint64_t a)
{
    HATF_PRE(ht_t.untraced > 0);
    if (!a || !ht_real_usable_size) return;
    int64_t n = (int64_t)ht_real_usable_size((void *)(uintptr_t)a);
    switch (kind) {
    case HT_K_MALLOC: case HT_K_CALLOC: case HT_K_POSIX_MEMALIGN: case HT_K_ALIGNED_ALLOC:
    case HT_K_MEMALIGN: case HT_K_VALLOC: case HT_K_PVALLOC: case HT_K_NEW: case HT_K_NEW_ARRAY:
        own_block(a, n);
        break;
    case HT_K_FREE: case HT_K_DELETE: case HT_K_DELETE_ARRAY:
        own_block(a, -n);
        break;
    default:  /* a realloc counts itself (ht_own_heap_realloc); the heap kinds are the program's */
        break;
    }
}

void ht_own_heap_realloc(uint64_t old, int64_t old_size, uint64_t now, int64_t now_size)
{
    if (old) own_block(old, -old_size);
    if (now) own_block(now, now_size);
}

/* The most bytes of small blocks the recorder held at a sample: what it frees
 * its allocator keeps for its next blocks (glibc's thread arenas of the flusher
 * and the helper give back only a large free top), so they count at their
 * high-water mark, not as they are now. Under wlock (ht_resident_sample). */
static int64_t own_small_most;

uint64_t ht_own_heap_resident(void)
{
    int64_t small = atomic_load_explicit(&ht_own_heap, memory_order_relaxed), big = 0;
    own_big_take();
    for (size_t i = 0; i < own_big_n; i++) {
        small -= (int64_t)own_big[i].size;
        big += (int64_t)ht_resident_of((void *)(uintptr_t)own_big[i].addr, own_big[i].size);
    }
    own_big_give();
    if (small > own_small_most) own_small_most = small;
    /* a block of the program's freed here can take the count below 0 */
    return (uint64_t)(own_small_most > 0 ? own_small_most : 0) + (uint64_t)big;
}

/* ---- the recorder's own libraries ---------------------------------------------
 * libhatrace.so and the libraries only it needs (zstd, xxhash, libunwind and
 * theirs) have writable segments (data, relocated pointers, bss) whose pages
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

void ht_event_dropped(uint32_t kind, uint64_t d)
{
    if (!HT_KIND_OWNS_COPY(kind & HT_KIND_MASK) || !d) return;
    ht_untraced_enter(&ht_t);
    free((void *)(uintptr_t)d);
    ht_untraced_leave(&ht_t);
}

static void side_push(ht_ring *r, uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    if (r->side_w - r->side_r >= HT_SIDE_CAP) {
        atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        ht_event_dropped(kind, d);
        return;
    }
    uint32_t held = r->side_w - r->side_r + 1;
    if (held > atomic_load_explicit(&ht_side_most, memory_order_relaxed))
        atomic_store_explicit(&ht_side_most, held, memory_order_relaxed);  /* a diagnostic: races are harmless */
    ht_rawev *e = &r->side[r->side_w % HT_SIDE_CAP];
    e->tk = (ht_now() - ht_t0) << HT_TK_SHIFT | kind;
    e->a = a, e->b = b, e->c = c, e->d = d;
    atomic_signal_fence(memory_order_seq_cst);
    r->side_w++;
    atomic_fetch_add_explicit(&ht_side_events, 1, memory_order_relaxed);
}

void ht_record_slow(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ht_tls *t = &ht_t;
    if (t->untraced) {  /* the recorder's own allocations, or an ignored section */
        if (ht_in_own_code(t)) ht_own_heap_note(kind & HT_KIND_MASK, a);
        ht_event_dropped(kind, d);
        return;
    }
    if (t->exited) {
        /* glibc's thread exit calls free(NULL) after the last key destructor;
         * a no-op is not a lost event */
        if (kind != HT_K_FREE || a) atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        ht_event_dropped(kind, d);
        return;
    }
    if (t->busy) {  /* a signal handler interrupted this thread inside a hook */
        side_push(t->ring, kind, a, b, c, d);
        return;
    }
    int s = atomic_load_explicit(&ht_state, memory_order_acquire);
    if (s == HT_ST_INITING) {
        ht_init_wait();  /* another thread is initialising */
        s = atomic_load_explicit(&ht_state, memory_order_acquire);
    }
    if (s != HT_ST_READY || (!t->ring && !thread_attach(t))) {
        ht_event_dropped(kind, d);
        return;
    }
    ht_emit(kind, a, b, c, d);
}

/* ---- the fast path's ways off (recorder.h, ht_emit_ret and ht_emit_free) ---- */

void *ht_emit_slow(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d, void *ret)
{
    ht_record_slow(kind, a, b, c, d);
    return ret;
}

void *ht_emit_held(uint32_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d, void *ret)
{
    ht_tls *t = &ht_t;
    ht_ring *r = t->ring;
    HATF_PRE(t->busy == 1 && r == t->ring);
    if (r->side_w != r->side_r) ht_side_drain(r);
    ht_rawev *e = ht_ring_slot(r);
    if (!e) e = ht_ring_full(r);
    ht_leave(t, r, e, (ht_now() - ht_t0) << HT_TK_SHIFT | kind, a, b, c, d);
    return ret;
}

void *ht_emit_after(int poke, void *ret)
{
    ht_tls *t = &ht_t;
    if (poke) ht_poke();
    if (t->ring->side_w != t->ring->side_r) ht_side_flush(t, t->ring);
    return ret;
}

void ht_free_slow(uint32_t kind, void *p, void (*real)(void *))
{
    ht_record_slow(kind, (uint64_t)(uintptr_t)p, 0, 0, 0);
    real(p);
}

void ht_free_held(uint32_t kind, void *p, void (*real)(void *))
{
    ht_emit_held(kind, (uint64_t)(uintptr_t)p, 0, 0, 0, NULL);
    real(p);
}

void ht_free_after(int poke, void *p, void (*real)(void *))
{
    ht_emit_after(poke, NULL);
    real(p);
}

/* ---- the orphan queue: events of threads with no ring yet (ht_emit_nowait) ---- */

enum { ORPHAN_CAP = 4096 };
static ht_rawev orphans[ORPHAN_CAP];
static _Atomic uint32_t orphan_ready[ORPHAN_CAP];
static _Atomic uint32_t orphan_w;  /* slots claimed; never reset (at most ORPHAN_CAP per process) */
static uint32_t orphan_r;          /* slots taken by the flusher (wlock) */

void ht_orphan_push(uint64_t tk, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint32_t i = atomic_fetch_add_explicit(&orphan_w, 1, memory_order_relaxed);
    if (i >= ORPHAN_CAP) {
        atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        return;
    }
    orphans[i] = (ht_rawev){ .tk = tk, .a = a, .b = b, .c = c, .d = d };
    atomic_store_explicit(&orphan_ready[i], 1, memory_order_release);
}

size_t ht_orphan_peek(const ht_rawev **first)
{
    HATF_PRE(ht_wlock_held());
    uint32_t n = 0, end = atomic_load_explicit(&orphan_w, memory_order_relaxed);
    if (end > ORPHAN_CAP) end = ORPHAN_CAP;
    while (orphan_r + n < end && atomic_load_explicit(&orphan_ready[orphan_r + n], memory_order_acquire)) n++;
    *first = &orphans[orphan_r];
    return n;
}

void ht_orphan_consume(size_t n) { orphan_r += (uint32_t)n; }

void ht_side_drain(ht_ring *r)
{
    HATF_PRE(ht_t.busy == 1);
    atomic_signal_fence(memory_order_seq_cst);
    while ((int32_t)(r->side_w - r->side_r) > 0) {
        ht_rawev *e = ht_ring_slot(r);
        if (!e) {
            /* Wait for space with busy clear and nothing claimed: a handler
             * that runs meanwhile drains the side buffer itself before writing
             * its own event (ht_emit), so the order holds and the side buffer
             * cannot overflow however long the flusher takes. */
            if (!ht_ring_full(r)) {  /* drop mode (counted) or past the trace's end */
                const ht_rawev *x = &r->side[r->side_r % HT_SIDE_CAP];
                ht_event_dropped((uint32_t)x->tk, x->d);
                r->side_r++;
            }
            continue;  /* look again: a handler may have emptied the side buffer */
        }
        ht_rawev ev = r->side[r->side_r % HT_SIDE_CAP];
        r->side_r++;
        atomic_signal_fence(memory_order_seq_cst);
        /* the handler may have taken its time before the interrupted
         * event did; keep the thread's stream in time order */
        const uint64_t low = (1u << HT_TK_SHIFT) - 1;
        if (ev.tk >> HT_TK_SHIFT < r->last_tk >> HT_TK_SHIFT) ev.tk = (r->last_tk & ~low) | (ev.tk & low);
        unsigned units = ht_rawev_put(e, ev.tk, ev.a, ev.b, ev.c, ev.d);
        r->last_tk = ev.tk;
        if (ht_ring_publish(r, units)) ht_poke();
        atomic_signal_fence(memory_order_seq_cst);
    }
}

void ht_side_flush(ht_tls *t, ht_ring *r)
{
    HATF_PRE(t->busy == 0);
    for (;;) {
        t->busy = 1;
        ht_side_drain(r);
        atomic_signal_fence(memory_order_seq_cst);
        t->busy = 0;
        atomic_signal_fence(memory_order_seq_cst);
        if ((int32_t)(r->side_w - r->side_r) <= 0) break;
    }
}

void ht_poke(void)
{
    if (atomic_load_explicit(&ht_poke_word, memory_order_relaxed)) return;
    if (atomic_exchange(&ht_poke_word, 1) == 0) ht_futex_wake(&ht_poke_word, 1);
}

/* ht_ring_full's wait: a slot, or NULL once the trace is over
 * (not a loss: past its end) or lost (counted). */
static ht_rawev *ring_wait(ht_ring *r)
{
    for (;;) {
        /* The trace has ended (exit or exec is finishing it): a thread still
         * running then is past the trace's end, not losing events from it. */
        if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return NULL;
        if (ht_flusher_running()) {
            /* The flusher wakes us as soon as it has freed half the ring
             * (ht_ring_wake_due), not after its whole pass over every ring,
             * so the program runs on while the rest is drained. */
            uint32_t seq = atomic_load_explicit(&r->wake, memory_order_acquire);
            atomic_store_explicit(&r->waiting, 1, memory_order_relaxed);
            atomic_thread_fence(memory_order_seq_cst);
            ht_poke();
            ht_rawev *e = ht_ring_slot(r);
            if (e) {
                atomic_store_explicit(&r->waiting, 0, memory_order_relaxed);
                return e;
            }
            /* no slot is held while waiting: a signal handler may record
             * straight into the ring instead of overflowing the side buffer */
            ht_t.busy = 0;
            atomic_signal_fence(memory_order_seq_cst);
            ht_futex_wait(&r->wake, seq, 2000000);
            atomic_signal_fence(memory_order_seq_cst);
            ht_t.busy = 1;
        } else {
            ht_untraced_enter(&ht_t);
            long n = ht_drain_one(r);
            ht_untraced_leave(&ht_t);
            if (n < 0) break;
        }
        ht_rawev *e = ht_ring_slot(r);
        if (e) return e;
    }
    r->drops++;
    return NULL;
}

ht_rawev *ht_ring_full(ht_ring *r)
{
    if (ht_opt(HT_OPT_DROP)) {
        r->drops++;
        return NULL;
    }
    r->waits++;
    uint64_t t0 = ht_mono_ns();
    ht_rawev *e = ring_wait(r);
    /* only this thread writes it (no locked add); the flusher sums it at close (writer_end.c) */
    atomic_store_explicit(&r->wait_ns, atomic_load_explicit(&r->wait_ns, memory_order_relaxed) + ht_mono_ns() - t0,
                          memory_order_relaxed);
    return e;
}

/* The flusher stopped, every ring drained, the trace closed (ht_finish, ht_finish_window). */
static void end_trace(ht_tls *t)
{
    ht_untraced_enter(t);
    ht_flusher_stop();
    ht_drain_all();
    atomic_store_explicit(&ht_state, HT_ST_OFF, memory_order_release);
    ht_writer_finish();
    ht_untraced_leave(t);
    atomic_store_explicit(&finished, 1, memory_order_release);
}

void ht_finish(void)
{
    ht_tls *t = &ht_t;
    /* Once per process: exit racing exec (or exit) on another thread must not
     * join the flusher twice, nor end the process while the index is written.
     * A handler on the finishing thread itself (untraced) must not wait. */
    if (atomic_exchange(&finishing, 1)) {
        if (!t->untraced)
            while (!atomic_load_explicit(&finished, memory_order_acquire)) sched_yield();
        return;
    }
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) {
        atomic_store_explicit(&finished, 1, memory_order_release);
        return;
    }
    if (t->ring && !t->untraced) ht_emit(HT_K_THREAD_DESTROY, 0, 0, 0, 0);
    t->exited = 1;
    end_trace(t);
}

/* ---- an attached process's windows (attach.c) ---- */

void ht_finish_window(void)
{
    if (atomic_exchange(&finishing, 1)) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) {
        atomic_store_explicit(&finished, 1, memory_order_release);
        return;
    }
    end_trace(&ht_t);
}

/* The counts and flags of one trace, as before its first event. */
static void trace_flags_fresh(void)
{
    atomic_store(&ht_lost, 0);
    atomic_store(&ht_poke_word, 0);
    atomic_store(&ht_side_events, 0);
    atomic_store(&ht_side_most, 0);
    atomic_store(&finishing, 0);
    atomic_store(&finished, 0);
}

void ht_window_reset(void)
{
    trace_flags_fresh();
    atomic_store(&ht_state, HT_ST_UNINIT);
}

/* The signal the process dies of (ht_before_death), for the flusher to note. */
static ht_signal_note death;
static int have_death;

/* The flusher's end of ht_before_exit: the same as ht_finish after its join. */
void ht_finish_on_flusher(void)
{
    ht_drain_all();
    if (have_death) ht_write_death(&death);
    atomic_store_explicit(&ht_state, HT_ST_OFF, memory_order_release);
    ht_writer_finish();
    atomic_store_explicit(&finished, 1, memory_order_release);
}

void ht_before_exit(void)
{
    ht_tls *t = &ht_t;
    /* a vfork child (posix_spawn's failed exec) leaves the parent's trace alone;
     * a handler that interrupted our own code (which may hold the writer's
     * lock) cannot have the trace closed; one that interrupted a hook can: the
     * hook's event is not recorded, as its call does not return */
    if (getpid() != owner_pid || t->untraced) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return;
    if (!ht_flusher_running()) {  /* nothing recorded yet (or no thread could be made): as exit */
        if (t->busy) return;
        ht_finish();
        return;
    }
    if (atomic_exchange(&finishing, 1)) return;  /* exit or exec is finishing it: _exit ends that */
    if (t->ring && !t->busy) ht_emit(HT_K_THREAD_DESTROY, 0, 0, 0, 0);
    t->exited = 1;
    /* _exit is async-signal-safe: a handler may call it while this thread holds
     * the allocator's lock, so this thread does not allocate; the flusher ends
     * the trace, and if it cannot within the time (it waits on that lock), the
     * trace stays unclosed, as after a kill */
    if (ht_flusher_finish(2000000000u) < 0) ht_say("the trace could not be closed before _exit");
}

void ht_note_signal(ht_signal_note *n)
{
    ht_tls *t = &ht_t;
    ht_ring *r = t->ring;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY || ht_on_background_thread()) return;
    if (!r || t->busy || t->untraced || t->exited) {  /* no ring, or inside a hook or the recorder */
        atomic_fetch_add_explicit(&ht_lost, 1, memory_order_relaxed);
        return;
    }
    ht_emit_nowait(HT_K_SIGNAL, n->addr, ht_signal_b(n), (uint32_t)n->code, 0);
}

/* Wait at most timeout_ns for another thread's end of the trace. */
static void wait_finished(uint64_t timeout_ns)
{
    uint64_t end = ht_mono_ns() + timeout_ns;
    while (!atomic_load_explicit(&finished, memory_order_acquire) && ht_mono_ns() < end) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

/* The handler of a signal the process dies of (crash.c). Like _exit's end:
 * this thread may hold the allocator's lock, or be anywhere in the program,
 * so it neither allocates nor takes a lock; the flusher drains every ring
 * (this thread's up to its last call: the fault interrupted it between
 * hooks, or inside one, whose event is then not written, as its call never
 * returns), writes the note in this thread and closes the trace. It cannot
 * when the fault is its own or the helper's (their trace is left as a kill
 * leaves it), nor when the fault interrupted the recorder's own code holding
 * the writer's lock (it waits for it until the time runs out). */
void ht_before_death(ht_signal_note *n)
{
    ht_tls *t = &ht_t;
    if (getpid() != owner_pid || ht_on_background_thread()) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY || !ht_flusher_running()) return;
    if (atomic_exchange(&finishing, 1)) {  /* exit, exec or another thread's signal is ending it */
        wait_finished(HT_DEATH_WAIT_NS);
        return;
    }
    n->tk = ht_now() - ht_t0;
    n->tid = t->ring ? t->ring->tid : 1;  /* a thread that made no call: noted in the main thread */
    death = *n;
    have_death = 1;
    t->exited = 1;
    if (ht_flusher_finish(HT_DEATH_WAIT_NS) < 0)
        ht_say("the trace could not be closed before the process died of signal %d", n->sig);
}

void ht_before_abort(void)
{
    ht_tls *t = &ht_t;
    if (getpid() != owner_pid || t->untraced || ht_on_background_thread()) return;
    if (atomic_load_explicit(&ht_state, memory_order_acquire) != HT_ST_READY) return;
    if (!atomic_load(&finishing)) ht_flusher_sync(HT_DEATH_WAIT_NS);
}

int ht_owns_trace(void) { return getpid() == owner_pid; }

void ht_before_exec(void)
{
    /* a vfork child shares our memory: it must not touch the parent's trace */
    if (getpid() != owner_pid) return;
    ht_finish();
}

static void atfork_prepare(void) { ht_flusher_atfork_prepare(); }
static void atfork_parent(void) { ht_flusher_atfork_parent(); }

/* The child keeps none of the parent's trace: its rings are reset and its own
 * file is created (named with its pid) when it records its first event. */
static void atfork_child(void)
{
    ht_flusher_atfork_child();
    ht_t.ring = NULL;
    ht_t.parent = 0;
    ht_t.dtor_rounds = 0;
    atomic_store(&next_tid, 2);
    trace_flags_fresh();
    owner_pid = getpid();
    int s = atomic_load(&ht_state);
    if (s == HT_ST_READY && !ht_opt(HT_OPT_FOLLOW_CHILDREN)) atomic_store(&ht_state, HT_ST_OFF);
}
