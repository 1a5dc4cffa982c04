/* flusher.c — the background flusher thread and the drain it runs: every
 * ring's raw events, converted in batches, into the container writer; a flush
 * every interval; the encoding helper thread it starts once the trace is open.
 * The drain also runs without the thread: on a producer whose ring is full
 * when no flusher runs, and on the exiting thread at the end.
 *
 * All writer calls happen under one mutex (ht_fs.wlock, flusher_state.h).
 * Code holding it is untraced.
 */
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clock.h"
#include "convert.h"
#include "crash.h"
#include "flusher.h"
#include "flusher_state.h"
#include "last_thread.h"
#include "options.h"
#include "output.h"
#include "own_arena.h"
#include "own_heap.h"
#include "own_libs.h"
#include "prim.h"
#include "recorder.h"
#include "registry.h"
#include "ring.h"
#include "stacks.h"

static __thread int on_flusher __attribute__((tls_model("initial-exec")));
static __thread int on_helper __attribute__((tls_model("initial-exec")));

int ht_on_background_thread(void) { return on_flusher || on_helper; }

/* Scratch of drain_ring, not state (wlock): one batch for hatf_writer_add. */
enum { BATCH = 256 };
static hatf_event evs[BATCH];
static uint8_t attr_bytes[BATCH][HATF_ATTRS_MAX];

/* The comments' text of a batch's mapping events (under wlock, as evs). */
static char map_text[BATCH][112];

/* A MAP event (hooks.c) as its comment "hatrace-map ..." (docs/FORMAT.md). */
static void map_comment(const ht_rawev *x, uint64_t tid, hatf_event *e, char *text)
{
    unsigned long long a = x->a, b = x->b, arg = x->c >> 8, d = x->d;
    int n;
    switch (x->c & 0xff) {
    case HT_MAP_MMAP_ANON: n = snprintf(text, 112, HT_MAP_PREFIX "mmap 0x%llx %llu anon", a, b); break;
    case HT_MAP_MMAP_FILE: n = snprintf(text, 112, HT_MAP_PREFIX "mmap 0x%llx %llu file", a, b); break;
    case HT_MAP_MUNMAP: n = snprintf(text, 112, HT_MAP_PREFIX "munmap 0x%llx %llu", a, b); break;
    case HT_MAP_MREMAP: n = snprintf(text, 112, HT_MAP_PREFIX "mremap 0x%llx %llu 0x%llx %llu", a, b, d, arg); break;
    default: n = snprintf(text, 112, HT_MAP_PREFIX "brk %lld", (long long)d); break;
    }
    memset(e, 0, sizeof *e);
    e->op = HATF_OP_COMMENT;
    e->thread = tid;
    e->time = x->tk >> HT_TK_SHIFT;
    e->data = (const uint8_t *)text;
    e->data_len = (uint16_t)(n > 0 && n < 112 ? n : 0);
}

/* A SIGNAL event (crash.c) as its comment "hatrace-signal ..." (include/hatf.h). */
static void signal_comment(const ht_rawev *x, uint64_t tid, hatf_event *e, char *text)
{
    hatf_signal s = { .sig = (int)(x->b & 0xff), .code = (int)(int32_t)(uint32_t)x->c, .addr = x->a,
                      .thread = tid, .fatal = (int)(x->b >> 8) == HT_SIG_FATAL };
    int n = hatf_signal_format(&s, text, 112);
    memset(e, 0, sizeof *e);
    e->op = HATF_OP_COMMENT;
    e->thread = tid;
    e->time = x->tk >> HT_TK_SHIFT;
    e->data = (const uint8_t *)text;
    e->data_len = (uint16_t)(n > 0 ? n : 0);
}

/* The comment of a MAP or SIGNAL event: the flusher writes their text. */
static void note_comment(const ht_rawev *x, uint64_t tid, hatf_event *e, char *text)
{
    if ((x->tk & HT_KIND_MASK) == HT_K_SIGNAL) signal_comment(x, tid, e, text);
    else map_comment(x, tid, e, text);
}

/* pre: wlock held. The program's mappings by threads that had no ring yet
 * (ht_emit_nowait): comments, with the writer's last thread. */
static long drain_orphans(void)
{
    HATF_PRE(ht_wlock_held());
    const ht_rawev *raw;
    size_t n = ht_orphan_peek(&raw);
    if (n > BATCH) n = BATCH;
    if (!n) return 0;
    if (!ht_fs.writer) ht_writer_open();
    for (size_t i = 0; i < n; i++) note_comment(&raw[i], 0, &evs[i], map_text[i]);
    ht_orphan_consume(n);
    if (!ht_fs.out_failed && hatf_writer_add(ht_fs.writer, evs, n) < 0) ht_write_failed();
    if (ht_fs.out_failed) ht_fs.n_drops += n;
    else ht_fs.n_events += n;
    return (long)n;
}

/* The recorder's kinds of plain calls are the writer's (hatf_recorder.h). */
_Static_assert(HT_PLAIN_KINDS == HATF_PLAIN_FNS && HT_TK_SHIFT > 8 && HT_SHORT > 0xffu,
               "the recorder's plain raw events are the writer's plain events");

/* Texts of a batch's comments to free once written (drain_ring). */
static void *texts[BATCH];
static size_t ntexts;

/* pre: wlock held. Convert the events that start in the units raw[*i..n)
 * into evs up to the next plain event (the writer takes those itself) or a
 * batch, moving *i past them; the comments' texts into texts. @return the
 * number of events in evs. */
static size_t convert_others(ht_ring *r, const uint64_t *raw, size_t n, size_t *i)
{
    uint64_t tid = r->tid;
    size_t m = 0;
    for (; *i < n && m < BATCH; *i += HT_LONG_UNITS) {
        const ht_rawev *x = (const ht_rawev *)(const void *)&raw[*i * HT_UNIT_WORDS];
        if (hatf_raw_plain(x->tk)) break;  /* a long event: not plain, not short */
        unsigned kind = (unsigned)x->tk & HT_KIND_MASK;
        if (HT_UNLIKELY(kind == HT_K_STACK)) {  /* not an event: frames for the tables */
            ht_stacks_take(ht_fs.out_failed ? NULL : ht_fs.writer, r, x);
            continue;
        }
        if (HT_UNLIKELY(kind == HT_K_MAP || kind == HT_K_SIGNAL)) {  /* a mapping or a signal: a comment, written here */
            note_comment(x, tid, &evs[m], map_text[m]);
            m++;
            continue;
        }
        uint64_t sid = 0;
        if (x->tk & HT_STACKED)  /* a realloc's d has its begin above the id (HATF_RAW_RELEASE_BIT) */
            sid = ht_stacks_gid(r, kind == HT_K_REALLOCARRAY && !(x->tk & HT_PACKED) ? x->d >> 32
                                   : kind == HT_K_REALLOC || kind == HT_K_REALLOCARRAY ? x->d & (HATF_RAW_RELEASE_BIT - 1)
                                                                                     : x->d);
        ht_convert(x, tid, &evs[m], attr_bytes[m], sid);
        if (kind == HT_K_COMMENT && x->d) texts[ntexts++] = (void *)(uintptr_t)x->d;
        m++;
    }
    return m;
}

/* pre: wlock held. The thread-destroy of r's thread at tk. @return 1 if written. */
static long write_destroy(ht_ring *r, uint64_t tk)
{
    if (!ht_fs.writer && !ht_fs.out_failed) ht_writer_open();
    ht_rawev x = { .tk = tk };
    ht_convert(&x, r->tid, &evs[0], attr_bytes[0], 0);
    if (!ht_fs.out_failed && ht_fs.writer && hatf_writer_add(ht_fs.writer, evs, 1) < 0) ht_write_failed();
    if (ht_fs.out_failed || !ht_fs.writer) {
        ht_fs.n_drops++;
        return 0;
    }
    ht_fs.n_events++;
    return 1;
}

/* pre: wlock held. Drain one ring's events stamped at or before upto (raw
 * time); reclaim it once drained if its thread has exited. */
long ht_drain_ring_upto(ht_ring *r, uint64_t upto)
{
    HATF_PRE(ht_wlock_held());
    uint32_t st = atomic_load_explicit(&r->state, memory_order_acquire);
    if (st == HT_RING_FREE) return 0;
    /* an exiting thread's: its destroy after its last calls, once it is gone (process.c) */
    uint64_t destroy_tk = st == HT_RING_EXITING ? ht_thread_gone_tk(r) : 0;
    long total = 0;
    /* only what is there now: a producer faster than us must not keep us here
     * (the other rings would starve, and the exit drain would never end) */
    uint64_t left = ht_ring_fill(r);
    while (left) {
        const uint64_t *raw;
        size_t n = ht_ring_peek(r, &raw, left < BATCH ? (size_t)left : BATCH);
        if (n && upto != UINT64_MAX) n = ht_ring_cut(raw, n, upto);  /* a merged drain (flusher_order.c) */
        if (!n) break;
        /* on failure out_failed is set: the events below are still converted,
         * so heap names are freed and only records count as dropped */
        if (!ht_fs.writer) ht_writer_open();
        uint64_t tid = r->tid;
        if (ht_fs.writer) hatf_writer_comment_thread_(ht_fs.writer, tid);  /* a batch of its comments alone */
        size_t i = 0;  /* in units: the events that start before n, whole */
        while (i < n) {
            size_t m = 0;
            if (hatf_raw_plain(raw[i * HT_UNIT_WORDS])) {
                /* the plain ones, nearly all: coded straight from the ring, in one pass */
                long took = 0;
                if (!ht_fs.out_failed && !HT_BENCH_SKIPS(HT_BENCH_ENCODE)) {
                    took = hatf_writer_add_plain_(ht_fs.writer, tid, raw + i * HT_UNIT_WORDS, n - i, &m);
                    if (took < 0) ht_write_failed();
                }
                if (took > 0) {
                    i += (size_t)took;
                } else {  /* not written: count them as the writer would have taken them */
                    m = 0;
                    while (i < n && hatf_raw_plain(raw[i * HT_UNIT_WORDS])) {
                        i += hatf_raw_units(raw[i * HT_UNIT_WORDS]);
                        m++;
                    }
                }
            } else {
                m = convert_others(r, raw, n, &i);
                if (!ht_fs.out_failed && m && !HT_BENCH_SKIPS(HT_BENCH_ENCODE) &&
                    hatf_writer_add(ht_fs.writer, evs, m) < 0)
                    ht_write_failed();
                while (ntexts) free(texts[--ntexts]);  /* the writer has copied the comments' text */
            }
            if (ht_fs.out_failed) ht_fs.n_drops += m;
            else ht_fs.n_events += m, total += (long)m;
        }
        /* released once written: the plain events were read in place */
        left -= i < left ? i : left;
        ht_ring_consume(r, i);
        if (ht_ring_wake_due(r, 0)) ht_futex_wake(&r->wake, INT_MAX);
    }
    /* a merged drain's step is not its end: it wakes a waiting producer at
     * the mark, or when its pass ends (flusher_order.c), not after each step */
    if (ht_ring_wake_due(r, upto == UINT64_MAX)) ht_futex_wake(&r->wake, INT_MAX);
    int drained = upto == UINT64_MAX || !ht_ring_fill(r);  /* a merged drain may leave later events */
    if (destroy_tk && drained) {
        total += write_destroy(r, destroy_tk);
        st = HT_RING_DEAD;
    }
    if (st == HT_RING_DEAD && drained) {
        if (ht_fs.writer && !ht_fs.out_failed && r->name[0])
            hatf_writer_name_thread(ht_fs.writer, r->tid, r->name);
        ht_fs.n_drops += r->drops;
        ht_fs.n_waits += r->waits;
        ht_fs.n_wait_ns += atomic_load_explicit(&r->wait_ns, memory_order_relaxed);
        ht_ring_init(r, r->mask + 1);
        atomic_store_explicit(&r->state, HT_RING_FREE, memory_order_release);
        atomic_fetch_sub(&ht_dead_rings, 1);
    }
    return total;
}

/* The process's memory now, from /proc/self/status (bytes; all 0 when
 * unknown, anon 0 before Linux 4.5, which has no RssAnon: no sample then): anon, its anonymous resident size (resident less the pages of
 * files, such as the libraries', the program's and the recorder's own, and
 * shared memory: shared), as replay measures an allocator's; rss, the whole
 * resident size; hwm, the kernel's high-water mark of rss since the start. */
typedef struct proc_mem {
    uint64_t anon, shared, rss, hwm;
} proc_mem;

static uint64_t status_kb(const char *buf, const char *key)
{
    const char *at = strstr(buf, key);
    return at ? strtoull(at + strlen(key), NULL, 10) * 1024 : 0;
}

/* pre: wlock held (one static buffer). */
static proc_mem proc_mem_now(void)
{
    static char buf[4096];  /* the status file is ~1.5 KB */
    proc_mem m = { 0, 0, 0, 0 };
    long n = ht_read_file("/proc/self/status", buf, sizeof buf - 1);
    if (n <= 0) return m;
    buf[n] = 0;
    m.anon = status_kb(buf, "\nRssAnon:");
    m.shared = status_kb(buf, "\nRssFile:") + status_kb(buf, "\nRssShmem:");
    m.rss = status_kb(buf, "\nVmRSS:");
    m.hwm = status_kb(buf, "\nVmHWM:");
    return m;
}

/* Each flush interval: seal what is pending, and sample the resident memory
 * beside the heap's (stats --timeline, replay's figures of the program). */
static void flush_if_due(int force)
{
    uint64_t now = ht_mono_ns();
    if (!ht_fs.writer || ht_fs.out_failed) return;
    if (!force && now - ht_fs.last_flush_ns < (uint64_t)ht_opt(HT_OPT_FLUSH_MS) * 1000000u) return;
    ht_fs.last_flush_ns = now;
    ht_resident_sample();
    if (hatf_writer_seal_(ht_fs.writer) < 0) ht_write_failed();
}

/* The kernel's high-water mark, the recorder's own bytes, the shared pages'
 * bytes and the time at the previous sample of the trace res_writer of process
 * res_pid (under wlock). */
static uint64_t res_hwm, res_own, res_shared, res_last_ns;
static const void *res_writer;
static pid_t res_pid;

/* How far the kernel's counters may be off: it reads the high-water mark
 * from per-CPU counters, each off by up to its batch (the larger of 32 and
 * twice the CPUs) pages. */
static uint64_t counter_slack(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
    if (cpus < 1) cpus = 1;
    return (uint64_t)cpus * (uint64_t)(cpus * 2 > 32 ? cpus * 2 : 32) * (uint64_t)page;
}

void ht_resident_sample(void)
{
    HATF_PRE(ht_wlock_held());
    uint64_t now = ht_mono_ns(), own = 0;
    proc_mem m = proc_mem_now();
    /* a ring's pages are touched as it fills: a quiet thread's are mostly not */
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) own += ht_resident_of(r, r->map_bytes);
    own += ht_own_heap_resident() + ht_own_libs_resident();
    if (atomic_load(&ht_fs.flusher_stack))
        own += ht_resident_of((void *)atomic_load(&ht_fs.flusher_stack), atomic_load(&ht_fs.flusher_stack_size));
    if (ht_fs.helper_on && atomic_load(&ht_fs.helper_stack))  /* the helper ends with the writer */
        own += ht_resident_of((void *)atomic_load(&ht_fs.helper_stack), atomic_load(&ht_fs.helper_stack_size));
    if (!m.anon || !ht_fs.writer || ht_fs.out_failed) return;
    uint64_t at = now > ht_fs.mono0 ? now - ht_fs.mono0 : 0;
    if (res_writer != ht_fs.writer || res_pid != getpid() || res_last_ns > at)  /* a new trace: a forked child's, a second attach's */
        res_hwm = res_own = res_shared = res_last_ns = 0, res_writer = ht_fs.writer, res_pid = getpid();
    /* A peak since the last sample (or the start): the high-water mark rose
     * since and is above the resident size now (memory was given back). Its
     * anonymous part goes in as a sample halfway, so a short peak is not lost
     * between samples (issue 42: sqlite's peak of 11 MB was sampled as 7.4).
     * The file pages and the recorder's own memory then: the more of the two
     * samples' (a file unmapped since, or a block the recorder freed, was in
     * the mark; a file mapped and unmapped between the two is not known and
     * counts as anonymous). A rise within the counters' error is not a peak. */
    uint64_t shared = m.shared > res_shared ? m.shared : res_shared;
    uint64_t peak = m.hwm > shared ? m.hwm - shared : 0, peak_own = own > res_own ? own : res_own;
    if (m.hwm > res_hwm && m.hwm > m.rss + counter_slack() && peak > m.anon &&
        hatf_writer_resident(ht_fs.writer, res_last_ns + (at - res_last_ns) / 2, peak,
                             peak_own < peak ? peak_own : peak) < 0) {
        ht_write_failed();
        return;
    }
    res_hwm = m.hwm, res_own = own, res_shared = m.shared, res_last_ns = at;
    if (hatf_writer_resident(ht_fs.writer, at, m.anon, own < m.anon ? own : m.anon) < 0) ht_write_failed();
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

/* The calling thread's stack into *lo, *size (ht_resident_sample counts its
 * touched pages as the recorder's). */
static void own_stack(_Atomic uintptr_t *lo, _Atomic size_t *size)
{
    pthread_attr_t a;
    void *addr;
    size_t n;
    if (pthread_getattr_np(pthread_self(), &a)) return;
    if (!pthread_attr_getstack(&a, &addr, &n)) {
        atomic_store(size, n);
        atomic_store(lo, (uintptr_t)addr);
    }
    pthread_attr_destroy(&a);
}

static void *helper_main(void *q)
{
    ht_t.untraced = 1;  /* for good, as the flusher */
    on_helper = 1;
    uint32_t tid = ht_gettid();
    ht_own_thread(tid, 1);
    own_stack(&ht_fs.helper_stack, &ht_fs.helper_stack_size);
    int arena = ht_own_arena_enter(ht_real_usable_size);
    prctl(PR_SET_NAME, "hatrace-encode");
    hatf_jobq_run_(q, helper_pause);
    ht_own_arena_leave(arena);
    ht_own_thread(tid, 0);
    return NULL;
}

/* The helper starts once the trace holds this many events (a group's worth):
 * before, the flusher's own encoding costs less than a thread, and a short
 * program (sort, a shell's child) whose first drain is its exit made one
 * only to end it (its 8 MiB stack mapped, the exit waiting for it). */
#define HELPER_FROM_EVENTS 65536

/* pre: wlock held, on the flusher thread, writer open. */
static void helper_start(void)
{
    HATF_PRE(ht_wlock_held());
    ht_fs.helper_tried = 1;
    if (!ht_opt(HT_OPT_ENCODE_HELPER)) return;
    hatf_jobq *q = hatf_writer_defer_(ht_fs.writer, 4);
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
    else ht_fs.helper = th, ht_fs.helper_on = 1;  /* it lives until the writer closes */
}

static uint64_t thread_cpu_ns(pthread_t th)
{
    clockid_t id;
    struct timespec ts;
    if (pthread_getcpuclockid(th, &id) || clock_gettime(id, &ts)) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ht_background_cpu_read(void)
{
    HATF_PRE(ht_wlock_held());
    uint64_t v;
    if (on_flusher) v = thread_cpu_ns(pthread_self());
    else v = atomic_load(&ht_fs.flusher_on) == HT_FLUSHER_ON ? thread_cpu_ns(ht_fs.flusher) : 0;
    if (v) ht_fs.flusher_cpu_ns = v;
    /* the helper ends when the writer closes (detached: its handle may then
     * point at freed memory; read after a failed write's close, it crashed
     * the program in pthread_getcpuclockid), so only while there is one */
    if (ht_fs.helper_on && ht_fs.writer && (v = thread_cpu_ns(ht_fs.helper)) != 0) ht_fs.helper_cpu_ns = v;
}

/* ---- the drains ------------------------------------------------------------- */

static long drain_ring(ht_ring *r) { return ht_drain_ring_upto(r, UINT64_MAX); }

long ht_drain_all(void)
{
    ht_untraced_enter(&ht_t);
    /* the flusher blocks every signal from its start: a SIGXFSZ its write
     * raises stays pending on it, unseen (four system calls a pass saved) */
    ht_xfsz_guard g;
    if (!on_flusher) ht_xfsz_hold(&g);
    pthread_mutex_lock(&ht_fs.wlock);
    ht_out_fd_intact();
    long total = drain_orphans();
    if (hatf_order_wanted((uint64_t)ht_opt(HT_OPT_TIME_RES))) total += ht_drain_merged();  /* in time order */
    else for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) total += drain_ring(r);
    if (on_flusher && !ht_fs.helper_tried && ht_fs.writer && !ht_fs.out_failed && ht_fs.n_events >= HELPER_FROM_EVENTS)
        helper_start();
    flush_if_due(0);
    /* groups the helper left at the last flush: one at a time between drains */
    if (on_flusher && ht_fs.writer && !ht_fs.out_failed) {
        int rc = hatf_writer_write_due_(ht_fs.writer);
        if (rc < 0) ht_write_failed();
        ht_fs.due_left = rc > 0;
    }
    int off = ht_fs.out_failed;
    pthread_mutex_unlock(&ht_fs.wlock);
    if (!on_flusher) ht_xfsz_release(&g);
    ht_untraced_leave(&ht_t);
    return off ? -1 : total;
}

void ht_write_death(const ht_signal_note *n)
{
    ht_untraced_enter(&ht_t);
    ht_xfsz_guard g;
    ht_xfsz_hold(&g);
    pthread_mutex_lock(&ht_fs.wlock);
    ht_rawev x = { .tk = n->tk << HT_TK_SHIFT | HT_K_SIGNAL, .a = n->addr,
                   .b = ht_signal_b(n), .c = (uint32_t)n->code };
    if (!ht_fs.writer && !ht_fs.out_failed) ht_writer_open();
    if (ht_fs.writer && !ht_fs.out_failed) {
        signal_comment(&x, n->tid, &evs[0], map_text[0]);
        hatf_writer_comment_thread_(ht_fs.writer, n->tid);
        if (hatf_writer_add(ht_fs.writer, evs, 1) < 0) ht_write_failed();
        else ht_fs.n_events++, ht_fs.death_sig = n->sig;
    }
    pthread_mutex_unlock(&ht_fs.wlock);
    ht_xfsz_release(&g);
    ht_untraced_leave(&ht_t);
}

/* On the flusher, asked by ht_flusher_sync: every ring drained, every group
 * written (those the helper holds taken back). */
static void sync_on_flusher(void)
{
    ht_drain_all();
    ht_untraced_enter(&ht_t);
    ht_xfsz_guard g;
    ht_xfsz_hold(&g);
    pthread_mutex_lock(&ht_fs.wlock);
    if (ht_fs.writer && !ht_fs.out_failed) {
        ht_fs.last_flush_ns = ht_mono_ns();
        ht_resident_sample();
        if (hatf_writer_flush(ht_fs.writer) < 0) ht_write_failed();
        ht_fs.due_left = 0;
    }
    pthread_mutex_unlock(&ht_fs.wlock);
    ht_xfsz_release(&g);
    ht_untraced_leave(&ht_t);
}

long ht_drain_one(ht_ring *r)
{
    ht_untraced_enter(&ht_t);
    ht_xfsz_guard g;
    ht_xfsz_hold(&g);
    pthread_mutex_lock(&ht_fs.wlock);
    ht_out_fd_intact();
    long n = drain_ring(r);
    int off = ht_fs.out_failed;
    pthread_mutex_unlock(&ht_fs.wlock);
    ht_xfsz_release(&g);
    ht_untraced_leave(&ht_t);
    return off ? -1 : n;
}

/* ---- the flusher thread ----------------------------------------------------- */

enum { PACE_MIN_NS = 100000 };  /* the shortest sleep the pace sets: 100 µs */

/* How long the flusher may sleep before its next pass, at most max_ns: until
 * the ring that fills fastest, at its rate since the last look, is a quarter
 * full. Its producer then finds it drained when it reaches its poke mark
 * (half) and need not wake the flusher (ht_ring_poke_needed): a wake costs
 * the program's thread tens of µs on a VM, the flusher's own timer costs the
 * flusher. A ring that fills faster than the pace foresaw still pokes, with
 * half a ring left for the flusher to get a CPU (on a machine with none idle,
 * a mark at three quarters left too little: hundreds of ring waits a run). */
static uint64_t pace_ns(uint64_t max_ns)
{
    uint64_t now = ht_mono_ns(), dt = now - ht_fs.pace_at;  /* the first look: since boot */
    ht_fs.pace_at = now;
    uint64_t wait = max_ns;
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        if (atomic_load_explicit(&r->state, memory_order_acquire) == HT_RING_FREE) continue;
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t moved = t >= r->pace_tail ? t - r->pace_tail : t;  /* a reused ring counts from 0 */
        r->pace_tail = t;
        uint64_t w = ht_ring_fill_in(((uint64_t)r->mask + 1) / 4, ht_ring_fill(r), moved, dt, max_ns);
        if (w < wait) wait = w;
    }
    return wait < PACE_MIN_NS ? PACE_MIN_NS : wait;
}

static void *flusher_main(void *arg)
{
    (void)arg;
    ht_t.untraced = 1;  /* for good: its allocations are the recorder's */
    on_flusher = 1;
    uint32_t tid = ht_gettid();
    ht_own_thread(tid, 1);
    own_stack(&ht_fs.flusher_stack, &ht_fs.flusher_stack_size);
    int arena = ht_own_arena_enter(ht_real_usable_size);  /* its arena counted by its pages (own_arena.c) */
    prctl(PR_SET_NAME, "hatrace-flush");  /* tells it apart in top, perf and /proc */
    uint64_t interval = (uint64_t)ht_opt(HT_OPT_FLUSH_MS) * 1000000u;
    while (!atomic_load(&ht_fs.flusher_stop)) {
        /* flushed groups still to write: back in 1 ms (the helper may finish them) */
        uint64_t wait = pace_ns(ht_fs.due_left && interval > 1000000 ? 1000000 : interval);
        if (!atomic_load(&ht_poke_word)) ht_futex_wait(&ht_poke_word, 0, wait);
        int poked = (int)atomic_exchange(&ht_poke_word, 0);
        if (atomic_load(&ht_fs.finish_req)) {
            ht_finish_on_flusher();
            atomic_store(&ht_fs.finish_done, 1);
            ht_futex_wake(&ht_fs.finish_done, INT_MAX);
            break;
        }
        /* the events stay in the rings for the clock's calibration (clock.h),
         * unless a ring half full or a sync asks */
        if (!poked && ht_mono_ns() - ht_fs.mono0 < HT_CALIBRATE_NS) continue;
        ht_drain_all();
        uint32_t asked = atomic_load(&ht_fs.sync_req);
        if (asked != atomic_load(&ht_fs.sync_done)) {
            sync_on_flusher();
            atomic_store(&ht_fs.sync_done, asked);
            ht_futex_wake(&ht_fs.sync_done, INT_MAX);
        }
    }
    /* its CPU to the end: the trace may be closed after its join, on another
     * thread, where its clock is gone) */
    pthread_mutex_lock(&ht_fs.wlock);
    ht_background_cpu_read();
    pthread_mutex_unlock(&ht_fs.wlock);
    ht_own_arena_leave(arena);
    ht_own_thread(tid, 0);
    return NULL;
}

/* The flusher's state once any start in progress has finished: its handle is
 * written before the state says HT_FLUSHER_ON (pthread_create takes
 * microseconds; a stop must not join a handle not yet written). */
static int flusher_state_settled(void)
{
    int on;
    while ((on = atomic_load(&ht_fs.flusher_on)) == HT_FLUSHER_STARTING) sched_yield();
    return on;
}

int ht_flusher_finish(uint64_t timeout_ns)
{
    if (flusher_state_settled() != HT_FLUSHER_ON || pthread_equal(pthread_self(), ht_fs.flusher)) return -1;
    atomic_store(&ht_fs.finish_req, 1);
    atomic_store(&ht_poke_word, 1);
    ht_futex_wake(&ht_poke_word, 1);
    uint64_t end = ht_mono_ns() + timeout_ns;
    while (!atomic_load(&ht_fs.finish_done)) {
        uint64_t now = ht_mono_ns();
        if (now >= end) return -1;
        ht_futex_wait(&ht_fs.finish_done, 0, end - now);
    }
    return 0;
}

int ht_flusher_sync(uint64_t timeout_ns)
{
    if (flusher_state_settled() != HT_FLUSHER_ON || ht_on_background_thread()) return -1;
    uint32_t want = atomic_fetch_add(&ht_fs.sync_req, 1) + 1;
    atomic_store(&ht_poke_word, 1);
    ht_futex_wake(&ht_poke_word, 1);
    uint64_t end = ht_mono_ns() + timeout_ns;
    uint32_t done;
    while ((int32_t)((done = atomic_load(&ht_fs.sync_done)) - want) < 0) {
        uint64_t now = ht_mono_ns();
        if (now >= end) return -1;
        ht_futex_wait(&ht_fs.sync_done, done, end - now);
    }
    return 0;
}

int ht_flusher_start(void)
{
    int off = HT_FLUSHER_OFF;
    if (!atomic_compare_exchange_strong(&ht_fs.flusher_on, &off, HT_FLUSHER_STARTING)) return 0;
    atomic_store(&ht_fs.flusher_stop, 0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* the program's signals are not ours */
    int rc = ht_real_pthread_create(&ht_fs.flusher, NULL, flusher_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_store(&ht_fs.flusher_on, rc ? HT_FLUSHER_OFF : HT_FLUSHER_ON);
    return rc ? -1 : 0;
}

int ht_flusher_running(void) { return atomic_load_explicit(&ht_fs.flusher_on, memory_order_relaxed); }

void ht_flusher_stop(void)
{
    if (flusher_state_settled() != HT_FLUSHER_ON || pthread_equal(pthread_self(), ht_fs.flusher)) return;
    atomic_store(&ht_fs.flusher_stop, 1);
    atomic_store(&ht_poke_word, 1);
    ht_futex_wake(&ht_poke_word, 1);
    pthread_join(ht_fs.flusher, NULL);
    atomic_store(&ht_fs.flusher_on, HT_FLUSHER_OFF);
}
