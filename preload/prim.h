/* prim.h — the recorder's primitives (prim.c): what calls nothing else of
 * preload/: the thread state (ht_t, defined in prim.c, whose logging runs
 * untraced), the clock's sources, futex, thread id, capped logging without
 * malloc; and the macros every file of preload/ uses. The bottom of preload/:
 * it includes only ring.h (a thread's ring in ht_tls). */
#ifndef HT_PRIM_H
#define HT_PRIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>

#include "ring.h"

#define HT_HIDDEN __attribute__((visibility("hidden")))
#define HT_LIKELY(x) __builtin_expect(!!(x), 1)
#define HT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Per-thread state. initial-exec TLS: one fs-relative load in the hook. */
typedef struct ht_tls {
    ht_ring *ring;        /* this thread's ring, NULL until its first event */
    uint32_t busy;        /* inside the ring-write window of a hook (see hooks.c) */
    uint32_t untraced;    /* >0: the recorder's own code runs; hooks pass through */
    uint32_t ignoring;    /* the program's ignore sections in untraced (hatrace_rt_ignore) */
    uint32_t exited;      /* its last key destructor run, or its trace ended: mappings, stacks not recorded */
    uint32_t dtor_rounds; /* pthread key destructor rounds seen */
    uint64_t parent;      /* dense id of the creating thread (set by our pthread_create) */
    void *altstack;       /* the alternate signal stack crash.c gave it, or NULL */
} ht_tls;

extern __thread ht_tls ht_t __attribute__((tls_model("initial-exec"))) HT_HIDDEN;

/* The recorder's own calls (its copies, dlsym, libunwind, the writer) are not
 * recorded: the hooks test the thread's untraced count, raised around them.
 * The fences keep the count's stores where they are: the compiler takes
 * malloc and free for functions that read no memory of the program and would
 * otherwise drop an increment and decrement around them. Pairs nest. */
static inline void ht_untraced_enter(ht_tls *t)
{
    t->untraced++;
    atomic_signal_fence(memory_order_seq_cst);
}
static inline void ht_untraced_leave(ht_tls *t)
{
    atomic_signal_fence(memory_order_seq_cst);
    t->untraced--;
}
static inline int ht_in_own_code(const ht_tls *t) { return t->untraced > t->ignoring; }

/* Timestamp source chosen at init: "tsc" (the CPU's counter, ht_counter) or
 * "monotonic" (clock_gettime). */
extern int ht_use_tsc HT_HIDDEN;                /* 0: CLOCK_MONOTONIC; 1: ht_counter() */
uint64_t ht_mono_ns(void) HT_HIDDEN;
uint64_t ht_real_ns(void) HT_HIDDEN;
int ht_tsc_invariant(void) HT_HIDDEN;
uint32_t ht_gettid(void) HT_HIDDEN;
void ht_futex_wake(_Atomic uint32_t *addr, int n) HT_HIDDEN;
/* Wait while *addr == val, at most timeout_ns (0: forever). */
void ht_futex_wait(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns) HT_HIDDEN;
/* "hatrace[pid]: message\n" on stderr, formatted on the stack; at most
 * HT_MAX_WARNINGS per process, then one "further warnings suppressed". */
void ht_warn(const char *fmt, ...) HT_HIDDEN __attribute__((format(printf, 1, 2)));
/* Where the messages go: the standard error the process started with (see
 * prim.c). Once, as the recorder starts; before it, to 2. */
void ht_say_init(void) HT_HIDDEN;
/* The same without the cap (fatal-to-tracing messages, verbose output). */
void ht_say(const char *fmt, ...) HT_HIDDEN __attribute__((format(printf, 1, 2)));
/* Read a small file (e.g. /proc/self/cmdline) into buf. @return bytes, or -1. */
long ht_read_file(const char *path, char *buf, size_t cap) HT_HIDDEN;
/* The resident bytes of the whole pages inside [start, start + bytes)
 * (mincore; all of them when it cannot tell). No allocation. */
uint64_t ht_resident_of(const void *start, size_t bytes) HT_HIDDEN;
#define HT_MAX_WARNINGS 8

#endif /* HT_PRIM_H */
