/* flusher.c — the ring registry, the background flusher thread, the clock
 * calibration and the container writer of this process.
 *
 * All writer calls happen under one mutex (wlock): on the flusher thread
 * normally, on a producer thread when no flusher runs (its ring is full), and on
 * the exiting thread for the final drain. Code holding wlock is untraced.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder.h"
#include "hatf_container.h"
#include "container_jobs.h"

_Atomic(ht_ring *) ht_rings;
_Atomic uint32_t ht_dead_rings;

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static hatf_writer *writer;
static int out_fd = -1;
static int out_failed;           /* output could not be created or written: trace off */
static int forked;
static char out_path[PATH_MAX];
static char parent_path[PATH_MAX];
static char out_dir[PATH_MAX];   /* working directory when the first trace was opened */
static dev_t out_dev;            /* identity of the trace file behind out_fd */
static ino_t out_ino;

static pthread_t flusher;
static __thread int on_flusher __attribute__((tls_model("initial-exec")));
static int helper_tried;         /* the encoding helper of this writer was started (or could not be) */
static void helper_start(void);
static int due_left;             /* the flusher has flushed groups still to write (wlock) */
static _Atomic int flusher_on;
static _Atomic int flusher_stop;
static _Atomic uint32_t finish_req, finish_done;  /* ht_flusher_finish: asked, done (futex) */
static uint64_t last_flush_ns;

/* counters: events written, and drops/waits of rings already reclaimed */
static uint64_t n_events, n_drops, n_waits, n_wait_ns;

/* clock: start sample, and the unit fixed when the writer opens */
static uint64_t mono0, real0;
static uint64_t unit_num = 1, unit_den = 1;

/* ---- clock ---------------------------------------------------------------- */

void ht_clock_init(void)
{
    const char *c = ht_opt_clock();
    ht_use_tsc = !strcmp(c, "tsc") || (!strcmp(c, "auto") && ht_tsc_invariant());
    if (ht_use_tsc && ht_has_rdtscp()) ht_use_tsc = HT_TSC_RDTSCP;
    real0 = ht_real_ns();
    /* pair the start samples as tightly as we can */
    uint64_t m1 = ht_mono_ns();
    ht_t0 = ht_now();
    uint64_t m2 = ht_mono_ns();
    mono0 = m1 + (m2 - m1) / 2;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) { uint64_t t = a % b; a = b; b = t; }
    return a;
}

/* ns per tick as num/den: ticks since t0 against CLOCK_MONOTONIC since the start
 * sample, over at least 2 ms (a short program waits for it once, at exit). */
static void calibrate(uint64_t *num, uint64_t *den)
{
    *num = *den = 1;
    if (!ht_use_tsc) return;
    uint64_t m1, m2, tsc;
    do {
        m1 = ht_mono_ns();
        tsc = ht_now();
        m2 = ht_mono_ns();
    } while (m1 - mono0 < 2000000 || m2 - m1 > 2000);
    uint64_t ns = m1 + (m2 - m1) / 2 - mono0, ticks = tsc - ht_t0;
    uint64_t g = gcd64(ns, ticks);
    *num = ns / g;
    *den = ticks / g;
    /* keep both under 2^32 so readers can multiply without overflow worries */
    while (*num > UINT32_MAX || *den > UINT32_MAX) { *num >>= 1; *den >>= 1; }
    if (!*den) *den = 1;
}

/* ---- registry --------------------------------------------------------------- */

static uint32_t ring_cap(void)
{
    uint32_t want = (uint32_t)ht_opt(HT_OPT_RING_SIZE), cap = 64;
    while (cap < want) cap <<= 1;
    return cap;
}

/* A thread that starts while up to HT_RINGS_FULL others hold rings gets the
 * configured size; past them a new thread's ring is halved each time their
 * number doubles (to HT_RING_MIN events at least): with the default size,
 * past 16 threads each new one holds a quarter of a full ring (1.3 MB). A
 * smaller ring only makes its thread wait for the flusher sooner, and with
 * that many busy threads the flusher sets the pace. */
enum { HT_RINGS_FULL = 8, HT_RING_MIN = 8192 };

static uint32_t ring_cap_now(void)
{
    uint32_t full = ring_cap(), cap = full, owned = 0;
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next)
        owned += atomic_load_explicit(&r->state, memory_order_relaxed) == HT_RING_OWNED;
    uint32_t floor = full < HT_RING_MIN ? full : HT_RING_MIN;
    while (cap > floor && (uint64_t)cap * owned > (uint64_t)full * HT_RINGS_FULL) cap >>= 1;
    return cap;
}

ht_ring *ht_ring_claim(void)
{
    uint32_t cap = ring_cap_now();
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        uint32_t st = HT_RING_FREE;  /* a free ring as large or larger: its memory is there already */
        if (r->mask + 1 >= cap && atomic_compare_exchange_strong(&r->state, &st, HT_RING_OWNED))
            return r;
    }
    size_t bytes = ht_ring_bytes(cap);
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    ht_ring *r = m;
    ht_ring_init(r, cap);
    r->map_bytes = bytes;
    atomic_store(&r->state, HT_RING_OWNED);
    ht_ring *head = atomic_load(&ht_rings);
    do r->next = head;
    while (!atomic_compare_exchange_weak(&ht_rings, &head, r));
    return r;
}

/* ---- output ----------------------------------------------------------------- */

static void report_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int ht_output_open(void)
{
    char pattern[PATH_MAX];
    const char *pat = ht_opt_output();
    report_line("L\t%d\n", (int)getpid());  /* the library runs in this process */
    /* a child must not collide with its parent's file */
    if (forked && !strstr(pat, "%p")) {
        if (snprintf(pattern, sizeof pattern, "%s.%%p", pat) >= (int)sizeof pattern) goto toolong;
        pat = pattern;
    }
    char rel[PATH_MAX];
    extern char *program_invocation_short_name;
    if (ht_expand_pattern(pat, rel, sizeof rel, (uint32_t)getpid(), program_invocation_short_name,
                          real0 / 1000000000u) < 0)
        goto toolong;
    /* absolute, so the path stays true for reports and fork children after chdir */
    if (rel[0] == '/') {
        snprintf(out_path, sizeof out_path, "%s", rel);
    } else {
        /* fork children write next to their parent's trace even after a chdir */
        if (!out_dir[0] && !getcwd(out_dir, sizeof out_dir)) snprintf(out_dir, sizeof out_dir, ".");
        if (snprintf(out_path, sizeof out_path, "%s/%s", out_dir, rel) >= (int)sizeof out_path) goto toolong;
    }
    /* the same pid can trace again after exec: number the name instead of overwriting */
    size_t base = strlen(out_path);
    for (int k = 0; k < 100; k++) {
        if (k && snprintf(out_path + base, sizeof out_path - base, ".%d", k) >= (int)(sizeof out_path - base))
            goto toolong;
        out_fd = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out_fd >= 0 || errno != EEXIST) break;
    }
    if (out_fd < 0) {
        out_path[base] = 0;
        ht_say("cannot create trace file %s: %s; the program runs untraced", out_path, strerror(errno));
        out_failed = 1;
        return -1;
    }
    /* out of the way of programs that dup2 onto low descriptors */
    int high = fcntl(out_fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        close(out_fd);
        out_fd = high;
    }
    struct stat sb;
    if (fstat(out_fd, &sb) == 0) out_dev = sb.st_dev, out_ino = sb.st_ino;
    if (ht_opt(HT_OPT_VERBOSE)) ht_say("tracing into %s", out_path);
    report_line("S\t%s\n", out_path);
    return 0;
toolong:
    ht_say("trace file name from pattern '%s' is too long; the program runs untraced", pat);
    out_failed = 1;
    return -1;
}

static hatf_info info;  /* 8 KB: static, the flusher's stack stays small */

/* pre: wlock held. @return 0, or -1 if the trace is off. */
static int writer_open(void)
{
    if (writer) return 0;
    if (out_failed) return -1;
    if (out_fd < 0 && ht_output_open() < 0) return -1;
    calibrate(&unit_num, &unit_den);
    memset(&info, 0, sizeof info);
    info.address_bits = sizeof(void *) * 8;
    info.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
    info.pid = (uint32_t)getpid();
    info.ppid = (uint32_t)getppid();
    info.start_realtime_ns = real0;
    info.time_unit_ns_num = unit_num;
    info.time_unit_ns_den = unit_den;
    snprintf(info.clock, sizeof info.clock, "%s", ht_use_tsc ? "TSC" : "CLOCK_MONOTONIC");
    long n = ht_read_file("/proc/self/cmdline", info.cmdline, sizeof info.cmdline - 1);
    if (n > 0) {
        while (n > 0 && !info.cmdline[n - 1]) n--;
        for (long i = 0; i < n; i++)
            if (!info.cmdline[i]) info.cmdline[i] = ' ';
        info.cmdline[n] = 0;
    }
    if (forked) {
        info.flags |= HATF_INFO_FORKED;
        snprintf(info.parent_trace, sizeof info.parent_trace, "%s", parent_path);
    }
    if (ht_opt(HT_OPT_DROP)) info.flags |= HATF_INFO_DROP_MODE;
    hatf_writer_opts opts = { .zstd_level = (int)ht_opt(HT_OPT_ZSTD_LEVEL),
                              .time_res_ns = (uint64_t)ht_opt(HT_OPT_TIME_RES) };
    if (!opts.zstd_level) opts.zstd_level = 1;
    hatf_err err;
    memset(&err, 0, sizeof err);
    writer = hatf_writer_open_fd(out_fd, &info, &opts, &err);
    if (!writer) {
        ht_say("cannot write trace %s: %s; the program runs untraced", out_path, err.msg);
        out_failed = 1;
        return -1;
    }
    last_flush_ns = ht_mono_ns();
    return 0;
}

/* ---- raw event -> hatf_event ------------------------------------------------ */

enum { BATCH = 256 };
static hatf_event evs[BATCH];
static uint8_t attr_bytes[BATCH][HATF_ATTRS_MAX];

/* hatrace attribute bytes of "func=K" alone: key 1, then K as a one-byte varint */
static const uint8_t func_only[HT_K_PVALLOC + 1][2] = {
    { 0, 0 }, { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 1, 5 }, { 1, 6 }, { 1, 7 }, { 1, 8 }, { 1, 9 }, { 1, 10 },
};

/* A realloc's record by its outcome: of NULL, to NULL (freed), in place, moved. */
static inline uint8_t realloc_op(uint64_t old, uint64_t new_addr)
{
    return !old ? HATF_OP_REALLOC_NEW : !new_addr ? HATF_OP_REALLOC_FREE
         : new_addr == old ? HATF_OP_REALLOC_INPLACE : HATF_OP_REALLOC_MOVE;
}

/* Raw kinds convert_plain() takes when their flags are all clear: malloc, free
 * and realloc with no stack, heap or failure, nearly every event of a program. */
#define PLAIN_KINDS (1u << HT_K_MALLOC | 1u << HT_K_FREE | 1u << HT_K_REALLOC)

/* convert() of a plain kind (PLAIN_KINDS, no flag), without its attribute
 * work: such a record is its op's plain call, so it carries no attributes. */
static inline void convert_plain(const ht_rawev *r, uint64_t tid, hatf_event *e)
{
    unsigned kind = (unsigned)r->tk & HT_KIND_MASK;
    uint64_t a = r->a, b = r->b, c = r->c;
    uint8_t op;
    if (kind == HT_K_MALLOC) op = HATF_OP_ALLOC, c = 0;
    else if (kind == HT_K_FREE) op = HATF_OP_FREE, b = c = 0;
    else op = realloc_op(a, c);
    e->op = op;
    e->attr_is_bytes = 0;
    e->data_len = 0;
    e->size = b;
    e->addr = a;
    e->new_addr = c;
    e->thread = tid;
    e->heap = 0;
    e->time = r->tk >> 8;
    e->attr = 0;
    e->data = NULL;
}

/* stack: the event's process-wide stack id, 0 for none. */
static void convert(const ht_rawev *r, uint64_t tid, hatf_event *e, uint8_t *ab, uint64_t stack)
{
    unsigned kind = r->tk & HT_KIND_MASK;
    int failed = (r->tk & HT_FAILED) != 0;
    hatf_attrs at;
    at.present = 0;  /* hatf_attrs_encode reads only the keys marked present */
    memset(e, 0, sizeof *e);
    e->thread = tid;
    e->time = r->tk >> 8;
    if (r->tk & HT_HEAP) e->heap = r->d;  /* mimalloc_heaps.c */
    if (kind <= HT_K_PVALLOC) {
        at.value[HATF_A_FUNC] = kind;  /* the kinds are the hatf_func codes */
        at.present |= 1u << HATF_A_FUNC;
    }
    uint64_t size;
    switch (kind) {
    case HT_K_MALLOC:
    case HT_K_VALLOC:
    case HT_K_PVALLOC:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = r->b;
        if (kind != HT_K_MALLOC) {
            at.value[HATF_A_ALIGN] = (uint64_t)sysconf(_SC_PAGESIZE);
            at.present |= 1u << HATF_A_ALIGN;
        }
        break;
    case HT_K_CALLOC:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = __builtin_mul_overflow(r->b, r->c, &size) ? UINT64_MAX : size;
        at.value[HATF_A_NMEMB] = r->b;
        at.present |= 1u << HATF_A_NMEMB;
        break;
    case HT_K_REALLOC:
    case HT_K_REALLOCARRAY:
        e->addr = r->a;
        e->new_addr = r->c;
        e->size = r->b;
        if (kind == HT_K_REALLOCARRAY) {
            uint64_t elsize = (r->tk & HT_STACKED) ? (uint32_t)r->d : r->d;
            e->size = __builtin_mul_overflow(r->b, elsize, &size) ? UINT64_MAX : size;
            at.value[HATF_A_NMEMB] = r->b;
            at.present |= 1u << HATF_A_NMEMB;
        }
        if (failed && r->a) e->op = HATF_OP_REALLOC_INPLACE, e->new_addr = r->a; /* block unchanged */
        else e->op = realloc_op(r->a, r->c);
        break;
    case HT_K_FREE:
        e->op = HATF_OP_FREE;
        e->addr = r->a;
        break;
    case HT_K_POSIX_MEMALIGN:
    case HT_K_ALIGNED_ALLOC:
    case HT_K_MEMALIGN:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = r->b;
        at.value[HATF_A_ALIGN] = r->c;
        at.present |= 1u << HATF_A_ALIGN;
        break;
    case HT_K_THREAD_CREATE:
        e->op = HATF_OP_THREAD_CREATE;
        at.value[HATF_A_OSTID] = r->b;
        at.present |= 1u << HATF_A_OSTID;
        if (r->a) {
            at.value[HATF_A_PARENT] = r->a;
            at.present |= 1u << HATF_A_PARENT;
        }
        break;
    case HT_K_THREAD_DESTROY:
        e->op = HATF_OP_THREAD_DESTROY;
        break;
    case HT_K_HEAP_CREATE:
        e->op = HATF_OP_HEAP_CREATE;
        e->heap = r->a;
        if (r->d) {  /* the name travelled as a copy made by hatrace_rt_heap_create or mi_heap_new */
            if (writer && !out_failed) hatf_writer_name_heap(writer, r->a, (const char *)(uintptr_t)r->d);
            free((void *)(uintptr_t)r->d);
        }
        break;
    case HT_K_HEAP_DESTROY:
        e->op = HATF_OP_HEAP_DESTROY;
        e->heap = r->a;
        break;
    case HT_K_HEAP_ALLOC:
        e->op = HATF_OP_ALLOC;
        e->addr = r->a;
        e->size = r->b;
        e->heap = r->c;
        break;
    case HT_K_HEAP_FREE:
        e->op = HATF_OP_FREE;
        e->addr = r->a;
        e->heap = r->c;
        break;
    case HT_K_HEAP_REALLOC:
        e->addr = r->a;
        e->size = r->b;
        e->new_addr = r->c;
        e->heap = r->d;
        if (!r->a) e->op = HATF_OP_REALLOC_NEW;
        else if (!r->c && !r->b) e->op = HATF_OP_REALLOC_FREE;
        else e->op = r->c == r->a ? HATF_OP_REALLOC_INPLACE : HATF_OP_REALLOC_MOVE;
        break;
    default:
        e->op = HATF_OP_COMMENT;  /* unreachable: every kind the hooks write is above */
        break;
    }
    if (failed) {
        at.value[HATF_A_FAILED] = 1;
        at.present |= 1u << HATF_A_FAILED;
    }
    if (stack) {
        at.value[HATF_A_STACK] = stack;
        at.present |= 1u << HATF_A_STACK;
    }
    /* The plain call of its record (malloc for alloc, free for free, realloc
     * for a realloc record) is left out: readers take an absent func as that,
     * and the trace is smaller and cheaper to write. */
    if ((kind == HT_K_MALLOC && e->op == HATF_OP_ALLOC) || (kind == HT_K_FREE && e->op == HATF_OP_FREE) ||
        (kind == HT_K_REALLOC && hatf_op_is_realloc(e->op)))
        at.present &= ~(1u << HATF_A_FUNC);
    if (!at.present) return;  /* no attributes at all (the common case; heap records) */
    e->attr_is_bytes = 1;
    if (at.present == 1u << HATF_A_FUNC) {  /* another function alone */
        e->data = func_only[kind];
        e->data_len = 2;
        return;
    }
    e->data = ab;
    e->data_len = (uint16_t)hatf_attrs_encode(&at, ab);
}

/* pre: wlock held. The writer failed (a full disk, RLIMIT_FSIZE, an I/O
 * error): close it now, so its memory goes and its message says why, in one
 * line; the file keeps every complete chunk and reads back as incomplete.
 * Later events are counted as dropped. */
static void write_failed(void)
{
    hatf_err err;
    memset(&err, 0, sizeof err);
    hatf_writer_close(writer, NULL, &err);  /* writes nothing more: the writer is failed */
    writer = NULL;
    out_fd = -1;
    out_failed = 1;
    ht_say("writing the trace %s failed: %s; recording stops, the trace is incomplete", out_path,
           err.msg[0] ? err.msg : "unknown error");
}

/* A write past RLIMIT_FSIZE fails with EFBIG and sends SIGXFSZ to the writing
 * thread, whose default action kills the program. The flusher blocks every
 * signal; a program thread that writes the trace (exit, exec, a drain without
 * flusher) blocks SIGXFSZ meanwhile and takes back the one its write raised,
 * so the program sees neither the signal nor a change of its mask. */
typedef struct xfsz_guard { sigset_t old; int was_pending; } xfsz_guard;

static void xfsz_hold(xfsz_guard *g)
{
    sigset_t s, p;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &s, &g->old);
    g->was_pending = sigpending(&p) == 0 && sigismember(&p, SIGXFSZ);
}

static void xfsz_release(xfsz_guard *g)
{
    sigset_t s, p;
    if (!g->was_pending && sigpending(&p) == 0 && sigismember(&p, SIGXFSZ)) {
        sigemptyset(&s);
        sigaddset(&s, SIGXFSZ);
        struct timespec zero = { 0, 0 };
        sigtimedwait(&s, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* pre: wlock held. Drain one ring; reclaim it if its thread has exited. */
static long drain_ring(ht_ring *r)
{
    uint32_t st = atomic_load_explicit(&r->state, memory_order_acquire);
    if (st == HT_RING_FREE) return 0;
    long total = 0;
    /* only what is there now: a producer faster than us must not keep us here
     * (the other rings would starve, and the exit drain would never end) */
    uint64_t left = ht_ring_fill(r);
    while (left) {
        const ht_rawev *raw;
        size_t n = ht_ring_peek(r, &raw, left < BATCH ? (size_t)left : BATCH);
        if (!n) break;
        left -= n;
        /* on failure out_failed is set: the events below are still converted,
         * so heap names are freed and only records count as dropped */
        if (!writer) writer_open();
        uint64_t tid = r->tid;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const ht_rawev *x = &raw[i];
            unsigned low = (unsigned)x->tk & 0xffu;  /* kind and flags */
            if (HT_LIKELY(low <= HT_KIND_MASK && (PLAIN_KINDS >> low & 1))) {
                convert_plain(x, tid, &evs[m++]);
                continue;
            }
            unsigned kind = low & HT_KIND_MASK;
            if (HT_UNLIKELY(kind == HT_K_STACK)) {  /* not an event: frames for the tables */
                ht_stacks_take(out_failed ? NULL : writer, r, x);
                continue;
            }
            uint64_t sid = 0;
            if (x->tk & HT_STACKED) sid = ht_stacks_gid(r, kind == HT_K_REALLOCARRAY ? x->d >> 32 : x->d);
            convert(x, tid, &evs[m], attr_bytes[m], sid);
            m++;
        }
        ht_ring_consume(r, n);
        if (ht_ring_wake_due(r, 0)) ht_futex_wake(&r->wake, INT_MAX);
        n = m;
        if (!out_failed && n) {
            if (hatf_writer_add(writer, evs, n) < 0) write_failed();
        }
        if (out_failed) n_drops += n;
        else n_events += n, total += (long)n;
    }
    if (ht_ring_wake_due(r, 1)) ht_futex_wake(&r->wake, INT_MAX);
    if (st == HT_RING_DEAD) {
        if (writer && !out_failed && r->name[0]) hatf_writer_name_thread(writer, r->tid, r->name);
        n_drops += r->drops;
        n_waits += r->waits;
        n_wait_ns += r->wait_ns;
        ht_ring_init(r, r->mask + 1);
        atomic_store_explicit(&r->state, HT_RING_FREE, memory_order_release);
        atomic_fetch_sub(&ht_dead_rings, 1);
    }
    return total;
}

static void flush_if_due(int force)
{
    uint64_t now = ht_mono_ns();
    if (!writer || out_failed) return;
    if (!force && now - last_flush_ns < (uint64_t)ht_opt(HT_OPT_FLUSH_MS) * 1000000u) return;
    last_flush_ns = now;
    if (hatf_writer_seal_(writer) < 0) write_failed();
}

/* A program that closes every descriptor (daemons do) may reuse the trace's
 * number for a file of its own: never write into that. pre: wlock held. */
static int out_fd_intact(void)
{
    if (out_fd < 0 || out_failed) return !out_failed;
    struct stat sb;
    if (fstat(out_fd, &sb) == 0 && sb.st_dev == out_dev && sb.st_ino == out_ino) return 1;
    ht_say("the trace file %s was closed by the program; recording stops", out_path);
    out_failed = 1;
    writer = NULL;  /* abandoned: closing it would write into someone else's file */
    out_fd = -1;
    return 0;
}

long ht_drain_all(void)
{
    ht_t.untraced++;
    xfsz_guard g;
    xfsz_hold(&g);
    pthread_mutex_lock(&wlock);
    out_fd_intact();
    long total = 0;
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) total += drain_ring(r);
    if (on_flusher && !helper_tried && writer && !out_failed) helper_start();
    flush_if_due(0);
    /* groups the helper left at the last flush: one at a time between drains */
    if (on_flusher && writer && !out_failed) {
        int rc = hatf_writer_write_due_(writer);
        if (rc < 0) write_failed();
        due_left = rc > 0;
    }
    int off = out_failed;
    pthread_mutex_unlock(&wlock);
    xfsz_release(&g);
    ht_t.untraced--;
    return off ? -1 : total;
}

long ht_drain_one(ht_ring *r)
{
    ht_t.untraced++;
    xfsz_guard g;
    xfsz_hold(&g);
    pthread_mutex_lock(&wlock);
    out_fd_intact();
    long n = drain_ring(r);
    int off = out_failed;
    pthread_mutex_unlock(&wlock);
    xfsz_release(&g);
    ht_t.untraced--;
    return off ? -1 : n;
}

/* ---- the encoding helper ------------------------------------------------------
 * Encoding a full chunk group (the address model, zstd) is most of the
 * flusher's work per event. A helper thread does it, giving its CPU back
 * between slices of 30-100 us of work (sched_yield), so a program thread
 * that wakes on its CPU waits about that long at most; the writer takes back
 * any group the helper has not finished when it needs it (container_jobs.h).
 * The helper takes none of the recorder's locks.
 *
 * Not SCHED_IDLE, though that would run it only on CPU time no one else wants:
 * an idle-policy thread starved on a busy machine must still get a CPU to die
 * when the process exits, which kept kvstore beside four busy loops from
 * exiting for up to 3 s (0.3 s without it); an unprivileged thread cannot
 * leave SCHED_IDLE again. At nice 19 it took up to 0.7 s. */

static void helper_pause(void) { sched_yield(); }

static void *helper_main(void *q)
{
    ht_t.untraced = 1;  /* for good, as the flusher */
    prctl(PR_SET_NAME, "hatrace-encode");
    hatf_jobq_run_(q, helper_pause);
    return NULL;
}

/* pre: wlock held, on the flusher thread, writer open. */
static void helper_start(void)
{
    helper_tried = 1;
    if (!ht_opt(HT_OPT_ENCODE_HELPER)) return;
    hatf_jobq *q = hatf_writer_defer_(writer, 4);
    if (!q) return;
    pthread_attr_t at;
    pthread_t th;
    sigset_t all, old;
    sigfillset(&all);
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = ht_real_pthread_create(&th, &at, helper_main, q);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&at);
    if (rc) hatf_jobq_release_(q);  /* the writer encodes everything, as without a helper */
}

/* ---- the flusher thread ----------------------------------------------------- */

static void *flusher_main(void *arg)
{
    (void)arg;
    ht_t.untraced = 1;  /* for good: its allocations are the recorder's */
    on_flusher = 1;
    prctl(PR_SET_NAME, "hatrace-flush");  /* tells it apart in top, perf and /proc */
    uint64_t interval = (uint64_t)ht_opt(HT_OPT_FLUSH_MS) * 1000000u;
    while (!atomic_load(&flusher_stop)) {
        /* flushed groups still to write: back in 1 ms (the helper may finish them) */
        uint64_t wait = due_left && interval > 1000000 ? 1000000 : interval;
        if (!atomic_load(&ht_poke_word)) ht_futex_wait(&ht_poke_word, 0, wait);
        atomic_store(&ht_poke_word, 0);
        if (atomic_load(&finish_req)) {
            ht_finish_on_flusher();
            atomic_store(&finish_done, 1);
            ht_futex_wake(&finish_done, INT_MAX);
            break;
        }
        ht_drain_all();
    }
    return NULL;
}

int ht_flusher_finish(uint64_t timeout_ns)
{
    if (!atomic_load(&flusher_on) || pthread_equal(pthread_self(), flusher)) return -1;
    atomic_store(&finish_req, 1);
    atomic_store(&ht_poke_word, 1);
    ht_futex_wake(&ht_poke_word, 1);
    uint64_t end = ht_mono_ns() + timeout_ns;
    while (!atomic_load(&finish_done)) {
        uint64_t now = ht_mono_ns();
        if (now >= end) return -1;
        ht_futex_wait(&finish_done, 0, end - now);
    }
    return 0;
}

int ht_flusher_start(void)
{
    if (atomic_exchange(&flusher_on, 1)) return 0;
    atomic_store(&flusher_stop, 0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* the program's signals are not ours */
    int rc = ht_real_pthread_create(&flusher, NULL, flusher_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        atomic_store(&flusher_on, 0);
        return -1;
    }
    return 0;
}

int ht_flusher_running(void) { return atomic_load_explicit(&flusher_on, memory_order_relaxed); }

void ht_flusher_stop(void)
{
    if (!atomic_load(&flusher_on) || pthread_equal(pthread_self(), flusher)) return;
    atomic_store(&flusher_stop, 1);
    atomic_store(&ht_poke_word, 1);
    ht_futex_wake(&ht_poke_word, 1);
    pthread_join(flusher, NULL);
    atomic_store(&flusher_on, 0);
}

/* One line per event of a trace's life for hatrace record: "S path" when the
 * file is created, "E path events bytes dropped waits" when it is closed. One
 * write(2) with O_APPEND each, so lines of concurrent processes do not mix. */
static void report_line(const char *fmt, ...)
{
    const char *rep = ht_opt_report();
    if (!rep) return;
    char line[PATH_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n <= 0 || n >= (int)sizeof line) return;
    int fd = open(rep, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}

static void write_report(uint64_t bytes, uint64_t dropped, uint64_t waits)
{
    report_line("E\t%s\t%llu\t%llu\t%llu\t%llu\n", out_path, (unsigned long long)n_events,
                (unsigned long long)bytes, (unsigned long long)dropped, (unsigned long long)waits);
}

/* Threads still alive at the end (the main thread at least) are named from
 * /proc; exited threads were named when their ring was reclaimed. pre: wlock. */
static void name_live_threads(void)
{
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        if (atomic_load(&r->state) != HT_RING_OWNED || !r->ostid) continue;
        char path[64], name[32];
        snprintf(path, sizeof path, "/proc/self/task/%u/comm", r->ostid);
        long n = ht_read_file(path, name, sizeof name - 1);
        if (n <= 0) continue;
        while (n > 0 && (name[n - 1] == '\n' || !name[n - 1])) n--;
        name[n] = 0;
        if (n) hatf_writer_name_thread(writer, r->tid, name);
    }
}

void ht_writer_finish(void)
{
    ht_t.untraced++;
    xfsz_guard g;
    xfsz_hold(&g);
    pthread_mutex_lock(&wlock);
    /* the parent's file exists from the start: give it at least a header and index */
    if (out_fd_intact() && !writer && out_fd >= 0) writer_open();
    if (writer) {
        uint64_t dropped = n_drops + atomic_load(&ht_lost), waits = n_waits, wait_ns = n_wait_ns;
        for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
            dropped += r->drops;
            waits += r->waits;
            wait_ns += r->wait_ns;
        }
        if (ht_use_tsc) {
            uint64_t num, den;
            calibrate(&num, &den);
            double a = (double)unit_num / (double)unit_den, b = (double)num / (double)den;
            if (a / b > 1.001 || b / a > 1.001)
                ht_warn("TSC rate drifted %.3f%% from the start calibration", 100.0 * (b / a - 1));
        }
        name_live_threads();
        ht_stacks_finish(writer);
        uint64_t by_helper, by_writer, twice;
        hatf_writer_defer_counts_(writer, &by_helper, &by_writer, &twice);
        hatf_counters c = { .events = n_events, .dropped = dropped, .ring_waits = waits };
        hatf_err err;
        memset(&err, 0, sizeof err);
        int rc = hatf_writer_close(writer, &c, &err);
        writer = NULL;
        out_fd = -1;
        if (rc < 0) ht_say("writing the trace %s failed: %s; the trace is incomplete", out_path, err.msg);
        struct stat sb;
        write_report(stat(out_path, &sb) == 0 ? (uint64_t)sb.st_size : 0, dropped, waits);
        if (ht_opt(HT_OPT_VERBOSE))
            ht_say("%llu events, %llu dropped (%llu outside rings), %llu ring waits (%.1f ms), "
                   "%llu queued by signal handlers inside a hook (at most %u at once)",
                   (unsigned long long)n_events, (unsigned long long)dropped,
                   (unsigned long long)atomic_load(&ht_lost), (unsigned long long)waits, wait_ns / 1e6,
                   (unsigned long long)atomic_load(&ht_side_events), atomic_load(&ht_side_most));
        if (ht_opt(HT_OPT_VERBOSE) && by_helper + by_writer)
            ht_say("chunk groups encoded by the helper: %llu, by the flusher: %llu (full slots, flushes, "
                   "exit; %llu of them the helper had begun)",
                   (unsigned long long)by_helper, (unsigned long long)by_writer, (unsigned long long)twice);
        if (dropped) ht_warn("%llu events were not recorded (%s)", (unsigned long long)dropped,
                             ht_opt(HT_OPT_DROP) ? "drop mode" : "tracer limits");
    }
    pthread_mutex_unlock(&wlock);
    xfsz_release(&g);
    ht_t.untraced--;
}

/* ---- fork ------------------------------------------------------------------- */

void ht_flusher_atfork_prepare(void) { pthread_mutex_lock(&wlock); }
void ht_flusher_atfork_parent(void) { pthread_mutex_unlock(&wlock); }

void ht_flusher_atfork_child(void)
{
    pthread_mutex_init(&wlock, NULL);
    /* the parent's writer and its file stay the parent's: forget them */
    if (out_fd >= 0) close(out_fd);
    writer = NULL;
    out_fd = -1;
    forked = 1;
    helper_tried = 0;  /* the parent's helper thread is not in the child */
    due_left = 0;
    if (!out_failed) snprintf(parent_path, sizeof parent_path, "%s", out_path);
    out_path[0] = 0;
    atomic_store(&flusher_on, 0);
    atomic_store(&flusher_stop, 0);
    atomic_store(&finish_req, 0);
    atomic_store(&finish_done, 0);
    n_events = n_drops = n_waits = n_wait_ns = 0;
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        ht_ring_init(r, r->mask + 1);
        atomic_store(&r->state, HT_RING_FREE);
    }
    atomic_store(&ht_dead_rings, 0);
    ht_stacks_atfork_child();
}
