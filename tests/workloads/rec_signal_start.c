/* rec_signal_start.c — a SIGALRM handler that allocates (malloc(77), free)
 * every 100 us from the program's first instruction on, while 4 threads start
 * and allocate 40-byte blocks (20000 each, then they wait): handlers that run while a thread's recording
 * is being set up (its first call) must be recorded as any other. No heap
 * call comes before the timer. Prints "handler 77 N" and "threads 40 M".
 *
 * A handler that interrupts glibc (its allocator, or pthread_create
 * allocating a thread's TLS) allocates nothing: glibc's arena may be locked
 * by the interrupted call, and the handler's malloc would wait for it
 * forever, natively as much as recorded. So the handler looks at the
 * interrupted instruction, and the program sleeps by its own system call,
 * outside glibc, for the handlers to run there (x86-64 and aarch64; on
 * other CPUs the program exits 77 at once: it cannot tell where it is). */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

/* glibc's code: libc's and the dynamic loader's executable segments */
static struct { uintptr_t lo, hi; } glibc_text[8];
static int n_glibc_text;

static int find_glibc(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    if (!strstr(info->dlpi_name, "/libc.so") && !strstr(info->dlpi_name, "/ld-linux")) return 0;
    for (int i = 0; i < info->dlpi_phnum && n_glibc_text < 8; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        glibc_text[n_glibc_text].lo = info->dlpi_addr + ph->p_vaddr;
        glibc_text[n_glibc_text++].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    return 0;
}

#if defined(__x86_64__)
#define INTERRUPTED_PC(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RIP])
#elif defined(__aarch64__)
#define INTERRUPTED_PC(uc) ((uintptr_t)(uc)->uc_mcontext.pc)
#endif

static int in_glibc(void *ctx)
{
#ifdef INTERRUPTED_PC
    uintptr_t pc = INTERRUPTED_PC((ucontext_t *)ctx);
    for (int i = 0; i < n_glibc_text; i++)
        if (pc >= glibc_text[i].lo && pc < glibc_text[i].hi) return 1;
    return 0;
#else
    (void)ctx;
    return 1;  /* unknown: main does not run here */
#endif
}

/* nanosleep for d, restarted after handlers, by the program's own system call */
static void sleep_own(struct timespec d)
{
    long rc;
    do {
#if defined(__x86_64__)
        __asm__ volatile("syscall" : "=a"(rc) : "0"((long)SYS_nanosleep), "D"(&d), "S"(&d) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
        register long x0 __asm__("x0") = (long)&d;
        register long x1 __asm__("x1") = (long)&d;
        register long x8 __asm__("x8") = SYS_nanosleep;
        __asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x8) : "memory");
        rc = x0;
#else
        rc = nanosleep(&d, &d) ? -errno : 0;
#endif
    } while (rc == -EINTR);  /* the rest of d is in d */
}

static atomic_long handler_calls, thread_calls;
static atomic_int stop;

static void on_alarm(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)si;
    if (in_glibc(ctx)) return;
    void *volatile p = malloc(77);
    free(p);
    atomic_fetch_add(&handler_calls, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    long n = 0;
    for (; n < 20000 && !atomic_load(&stop); n++) {  /* bounded: the trace stays small */
        void *volatile p = malloc(40);
        free(p);
    }
    while (!atomic_load(&stop)) sleep_own((struct timespec){ 0, 1000000 });
    atomic_fetch_add(&thread_calls, n);
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
#ifndef INTERRUPTED_PC
    puts("rec_signal_start: no way to see the interrupted instruction on this CPU");
    return 77;
#endif
    dl_iterate_phdr(find_glibc, NULL);
    if (n_glibc_text == 0) return 5;  /* glibc's code not found: the handler could deadlock */
    sa.sa_sigaction = on_alarm;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 100 }, { 0, 100 } };
    setitimer(ITIMER_REAL, &it, NULL);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, worker, NULL);
    sleep_own((struct timespec){ 0, 300000000 });
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("handler 77 %ld\nthreads 40 %ld\n", atomic_load(&handler_calls), atomic_load(&thread_calls));
    return atomic_load(&handler_calls) > 10 ? 0 : 4;
}
