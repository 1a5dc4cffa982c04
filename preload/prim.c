/* prim.c — host coupling of the recorder: clock, futex, thread id, logging.
 * Everything here is callable from inside malloc: no allocation, no stdio. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define HT_CPU_GLIBC 1
#endif
#endif
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "prim.h"

int ht_use_tsc;
__thread ht_tls ht_t __attribute__((tls_model("initial-exec")));

uint64_t ht_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ht_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long ht_read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    while (n < cap) {
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        n += (size_t)k;
    }
    close(fd);
    return (long)n;
}

/* An invariant TSC ticks at a constant rate in every power state and is
 * synchronised across CPUs: then rdtsc is a monotonic clock for the whole machine.
 * x86: CPUID leaf 0x80000007, EDX bit 8, the bit from which Linux sets both
 * constant_tsc and nonstop_tsc. Asked of glibc, which read it with its own CPUID
 * at start (<sys/platform/x86.h>): in a VM a CPUID traps to the hypervisor,
 * ~14 us a call on a 2-CPU VM (reading /proc/cpuinfo cost ~0.1 ms a process).
 * aarch64's virtual counter is so by the architecture; it is taken when
 * cntfrq_el0 states a rate (firmware sets it; 0 means the counter is not set up). */
int ht_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
#ifdef HT_CPU_GLIBC
    return CPU_FEATURE_PRESENT(INVARIANT_TSC);
#else
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return 0;  /* no such leaf */
    return (d >> 8) & 1u;
#endif
#elif defined(__aarch64__)
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz != 0;
#else
    return 0;
#endif
}

uint32_t ht_gettid(void) { return (uint32_t)syscall(SYS_gettid); }

void ht_futex_wake(_Atomic uint32_t *addr, int n)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void ht_futex_wait(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns)
{
    struct timespec ts = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, timeout_ns ? &ts : NULL, NULL, 0);
}

static _Atomic int warnings;

/* The messages go to the standard error the process started with, never to
 * a file of the program's own that took its number later (a program that
 * closes 2 and opens a data file gets it as 2): a copy above the program's
 * numbers, else 2 itself, whichever is still that file (device and inode).
 * None of them: the message is dropped. Not started (the recorder core in
 * the unit tests): 2. */
static int say_inited, say_fd = -1;
static dev_t say_dev;
static ino_t say_ino;

void ht_say_init(void)
{
    struct stat sb;
    if (say_inited) return;
    say_inited = 1;
    if (fstat(2, &sb) != 0) return;  /* no stderr at start: no messages */
    say_dev = sb.st_dev, say_ino = sb.st_ino;
    int copy = fcntl(2, F_DUPFD_CLOEXEC, 600);
    say_fd = copy >= 0 ? copy : 2;
}

static int say_to(void)
{
    if (!say_inited) return 2;  /* the recorder core alone (unit tests) */
    int fds[2] = { say_fd, 2 };
    for (int i = 0; i < 2; i++) {
        struct stat sb;
        if (fds[i] >= 0 && fstat(fds[i], &sb) == 0 && sb.st_dev == say_dev && sb.st_ino == say_ino) return fds[i];
    }
    return -1;
}

static void vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void vsay(const char *fmt, va_list ap)
{
    char buf[512];
    ht_untraced_enter(&ht_t);  /* vsnprintf does not allocate for our formats; be sure anyway */
    int n = snprintf(buf, sizeof buf, "hatrace[%d]: ", (int)getpid());
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    ht_untraced_leave(&ht_t);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    buf[len++] = '\n';
    int fd = say_to();
    if (fd < 0) return;
    ssize_t w = write(fd, buf, len);
    (void)w;
}

void ht_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

void ht_warn(const char *fmt, ...)
{
    int k = atomic_fetch_add(&warnings, 1);
    if (k > HT_MAX_WARNINGS) return;
    if (k == HT_MAX_WARNINGS) { ht_say("further warnings suppressed"); return; }
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

uint64_t ht_resident_of(const void *start, size_t bytes)
{
    enum { CHUNK = 512 };
    unsigned char vec[CHUNK];
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)start + page - 1) & ~(page - 1), hi = ((uintptr_t)start + bytes) & ~(page - 1);
    uint64_t res = 0;
    for (uintptr_t at = lo; at < hi;) {
        size_t k = (hi - at) / page < CHUNK ? (size_t)((hi - at) / page) : CHUNK;
        if (mincore((void *)at, k * page, vec) < 0) return hi > lo ? hi - lo : 0;
        for (size_t i = 0; i < k; i++) res += vec[i] & 1;
        at += k * page;
    }
    return res * page;
}
