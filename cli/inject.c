/* inject.c — function calls into a running process through ptrace (inject.h).
 *
 * One thread is stopped (PTRACE_SEIZE, PTRACE_INTERRUPT), the others run on:
 * what is called (dlopen, the recorder's attach) is made to run beside the
 * program's threads anyway, and a stopped thread holding a lock the call
 * needs would hang it. So the thread chosen holds no lock of the C library:
 * it waits in a blocking system call, or runs the program's own code. Its
 * registers and vector state are saved, the call made with a return address
 * of 0 (its return faults, caught here), and everything put back: a system
 * call it was in is restarted by the kernel as after any signal.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

#if defined(__x86_64__)

static int fail(inj_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(inj_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- checks before touching the process ---------------------------------------- */

/* The value after "key:" in /proc/PID/status, or "" */
static void status_field(const char *status, const char *key, char *out, size_t cap)
{
    out[0] = 0;
    size_t k = strlen(key);
    for (const char *l = status; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, key, k) || l[k] != ':') continue;
        const char *v = l + k + 1;
        while (*v == ' ' || *v == '\t') v++;
        size_t n = strcspn(v, "\n");
        if (n >= cap) n = cap - 1;
        memcpy(out, v, n);
        out[n] = 0;
        return;
    }
}

static long read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    ssize_t r;
    while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)r;
    close(fd);
    buf[n] = 0;
    return (long)n;
}

/* The C library mapped in pid: its path and the start of its first mapping. */
static int find_libc(pid_t pid, char *path, size_t cap, uint64_t *base)
{
    char maps[64], line[PATH_MAX + 128];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(maps, "r");
    if (!f) return -1;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, off;
        char *slash = strchr(line, '/');
        if (!slash || sscanf(line, "%llx-%*x %*s %llx", &lo, &off) != 2 || off) continue;
        slash[strcspn(slash, "\n")] = 0;
        const char *name = strrchr(slash, '/') + 1;
        if (strncmp(name, "libc.so", 7) && strncmp(name, "libc-", 5)) continue;
        snprintf(path, cap, "%s", slash);
        *base = lo;
        found = 1;
        break;
    }
    fclose(f);
    return found ? 0 : -1;
}

int inj_preflight(pid_t pid, inj_err *err)
{
    char path[64], status[4096], v[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (pid <= 0 || read_small(path, status, sizeof status) <= 0) return fail(err, "no process %d", (int)pid);
    status_field(status, "State", v, sizeof v);
    if (v[0] == 'Z' || v[0] == 'X') return fail(err, "process %d has exited", (int)pid);
    if (v[0] == 'T') return fail(err, "process %d is stopped (%s): continue it first (kill -CONT %d)", (int)pid, v, (int)pid);
    status_field(status, "TracerPid", v, sizeof v);
    if (atoi(v)) return fail(err, "process %d is already traced by process %s (a debugger or another tracer): "
                                  "detach that one first", (int)pid, v);
    status_field(status, "Uid", v, sizeof v);
    unsigned ruid = 0, euid = 0;
    sscanf(v, "%u %u", &ruid, &euid);
    if (geteuid() != 0 && (euid != geteuid() || ruid != geteuid()))
        return fail(err, "process %d runs as user %u, not as you (%u): attach as that user or as root", (int)pid,
                    euid, (unsigned)geteuid());
    char exe[64];
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)pid);
    struct stat st;
    if (stat(exe, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
        return fail(err, "process %d runs a set-user-ID or set-group-ID program: hatrace does not attach to one",
                    (int)pid);
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    Elf64_Ehdr eh;
    if (fd >= 0) {
        ssize_t n = read(fd, &eh, sizeof eh);
        close(fd);
        if (n == (ssize_t)sizeof eh && (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64))
            return fail(err, "process %d is not an x86-64 program: hatrace attaches to x86-64 programs only", (int)pid);
    }
    char libc[PATH_MAX];
    uint64_t base;
    if (find_libc(pid, libc, sizeof libc, &base) < 0)
        return fail(err, "process %d has no C library mapped (statically linked?): hatrace attaches to "
                         "dynamically linked programs only", (int)pid);
    return 0;
}

/* ---- the C library's exported functions ------------------------------------------ */

uint64_t inj_libc_function(pid_t pid, const char *name, inj_err *err)
{
    char libc[PATH_MAX], file[PATH_MAX + 32];
    uint64_t base;
    if (find_libc(pid, libc, sizeof libc, &base) < 0) {
        fail(err, "process %d has no C library mapped", (int)pid);
        return 0;
    }
    /* through the process's root: the same file even in another mount namespace */
    snprintf(file, sizeof file, "/proc/%d/root%s", (int)pid, libc);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0) close(fd);
        fail(err, "cannot read the C library %s of process %d: %s", libc, (int)pid, strerror(errno));
        return 0;
    }
    const uint8_t *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        fail(err, "cannot map the C library %s: %s", libc, strerror(errno));
        return 0;
    }
    uint64_t addr = 0, size = (uint64_t)st.st_size;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size || eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
        goto done;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(m + eh->e_phoff);
    uint64_t first_vaddr = UINT64_MAX;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < first_vaddr) first_vaddr = ph[i].p_vaddr & ~0xfffull;
    for (int i = 0; i < eh->e_shnum && !addr; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size) continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof *sym;
        for (size_t k = 0; k < n; k++) {
            if (sym[k].st_name >= strs->sh_size || !sym[k].st_value || sym[k].st_shndx == SHN_UNDEF) continue;
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC) continue;
            const char *s = (const char *)(m + strs->sh_offset + sym[k].st_name);
            if (!memchr(s, 0, strs->sh_size - sym[k].st_name) || strcmp(s, name)) continue;
            addr = base + sym[k].st_value - first_vaddr;
            break;
        }
    }
done:
    munmap((void *)m, (size_t)st.st_size);
    if (!addr) fail(err, "the C library %s of process %d exports no %s (glibc 2.34 or later is needed)", libc, (int)pid, name);
    return addr;
}

/* ---- stopping a thread ------------------------------------------------------------- */

struct inj_thread {
    pid_t pid, tid;
    struct user_regs_struct regs;  /* as it was stopped */
    struct iovec xs;               /* its vector state (NT_X86_XSTATE), or fp below */
    struct user_fpregs_struct fp;
    int have_xs;
    uint8_t xs_buf[16384];
};

/* Wait for tid's next stop. @return the status, or -1 if it is gone. */
static int wait_stop(pid_t tid)
{
    int st;
    for (;;) {
        if (waitpid(tid, &st, __WALL) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (WIFEXITED(st) || WIFSIGNALED(st)) return -1;
        if (WIFSTOPPED(st)) return st;
    }
}

/* The ranges of the C library's and the dynamic linker's mappings. */
typedef struct lib_ranges { uint64_t lo[64], hi[64]; int n; } lib_ranges;

static void read_lib_ranges(pid_t pid, lib_ranges *r)
{
    char maps[64], line[PATH_MAX + 128];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    r->n = 0;
    FILE *f = fopen(maps, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f) && r->n < 64) {
        unsigned long long lo, hi;
        const char *slash = strrchr(line, '/');
        if (!slash || sscanf(line, "%llx-%llx", &lo, &hi) != 2) continue;
        if (strncmp(slash + 1, "libc.so", 7) && strncmp(slash + 1, "libc-", 5) && strncmp(slash + 1, "ld-linux", 8))
            continue;
        r->lo[r->n] = lo, r->hi[r->n] = hi, r->n++;
    }
    fclose(f);
}

/* System calls a thread waits in without holding a lock of the C library. */
static int blocking_wait(long nr)
{
    switch (nr) {
    case SYS_read: case SYS_readv: case SYS_recvfrom: case SYS_recvmsg: case SYS_poll: case SYS_ppoll:
    case SYS_select: case SYS_pselect6: case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_accept:
    case SYS_accept4: case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_pause: case SYS_wait4:
    case SYS_waitid: case SYS_rt_sigsuspend: case SYS_rt_sigtimedwait: case SYS_futex: case SYS_restart_syscall:
        return 1;
    default:
        return 0;
    }
}

static int safe_point(const struct user_regs_struct *r, const lib_ranges *libs)
{
    if ((long)r->orig_rax >= 0) return blocking_wait((long)r->orig_rax);
    for (int i = 0; i < libs->n; i++)
        if (r->rip >= libs->lo[i] && r->rip < libs->hi[i]) return 0;
    return 1;  /* the program's own code */
}

static int save_state(inj_thread *t)
{
    if (ptrace(PTRACE_GETREGS, t->tid, NULL, &t->regs) < 0) return -1;
    t->xs.iov_base = t->xs_buf;
    t->xs.iov_len = sizeof t->xs_buf;
    t->have_xs = ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &t->xs) == 0;
    if (!t->have_xs && ptrace(PTRACE_GETFPREGS, t->tid, NULL, &t->fp) < 0) return -1;
    return 0;
}

/* Seize and stop tid. @return 0, -1 if gone, -2 if not permitted (errno). */
static int seize(pid_t tid)
{
    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) return errno == EPERM ? -2 : -1;
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 || wait_stop(tid) < 0) return -1;
    return 0;
}

static int not_permitted(pid_t pid, inj_err *err)
{
    char scope[16] = "";
    if (read_small("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof scope) > 0 && atoi(scope) > 0) {
        int s = atoi(scope);
        if (s >= 3)
            return fail(err, "tracing process %d is not permitted: kernel.yama.ptrace_scope is 3 (no process may "
                             "be traced until a reboot)", (int)pid);
        return fail(err, "tracing process %d is not permitted: kernel.yama.ptrace_scope is %d; run as root, or "
                         "set it to 0 (sysctl kernel.yama.ptrace_scope=0)", (int)pid, s);
    }
    return fail(err, "tracing process %d is not permitted: run as its user or as root (CAP_SYS_PTRACE)", (int)pid);
}

inj_thread *inj_stop(pid_t pid, inj_err *err)
{
    inj_thread *t = calloc(1, sizeof *t);
    if (!t) {
        fail(err, "out of memory");
        return NULL;
    }
    t->pid = pid;
    lib_ranges libs;
    read_lib_ranges(pid, &libs);
    /* the main thread first, then the others; a round every 20 ms, 10 s in all */
    for (int round = 0; round < 500; round++) {
        pid_t tids[256];
        int n = 0;
        tids[n++] = pid;
        char task[64];
        snprintf(task, sizeof task, "/proc/%d/task", (int)pid);
        DIR *d = opendir(task);
        if (!d) {
            free(t);
            fail(err, "process %d exited", (int)pid);
            return NULL;
        }
        for (struct dirent *e; (e = readdir(d)) && n < 256;) {
            int tid = atoi(e->d_name);
            if (tid > 0 && tid != pid) tids[n++] = tid;
        }
        closedir(d);
        for (int i = 0; i < n; i++) {
            int rc = seize(tids[i]);
            if (rc == -2) {
                free(t);
                not_permitted(pid, err);
                return NULL;
            }
            if (rc < 0) continue;  /* the thread ended meanwhile */
            t->tid = tids[i];
            if (save_state(t) == 0 && safe_point(&t->regs, &libs)) return t;
            ptrace(PTRACE_DETACH, tids[i], NULL, NULL);
        }
        if (kill(pid, 0) < 0) {
            free(t);
            fail(err, "process %d exited", (int)pid);
            return NULL;
        }
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
    }
    free(t);
    fail(err, "no thread of process %d came to a safe point in 10 s (each was inside the C library, outside a "
              "blocking system call)", (int)pid);
    return NULL;
}

/* ---- the call ----------------------------------------------------------------------- */

static int write_mem(pid_t tid, uint64_t addr, const void *data, size_t len)
{
    struct iovec local = { (void *)data, len }, remote = { (void *)(uintptr_t)addr, len };
    return process_vm_writev(tid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

int inj_read_string(inj_thread *t, uint64_t addr, char *out, size_t cap)
{
    struct iovec local = { out, cap - 1 }, remote = { (void *)(uintptr_t)addr, cap - 1 };
    ssize_t n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
    if (n <= 0) return -1;
    out[n] = 0;
    return 0;
}

int inj_call(inj_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, const void *data, size_t len, uint64_t *ret,
             inj_err *err)
{
    struct user_regs_struct r = t->regs;
    uint64_t sp = (t->regs.rsp - 1024) & ~15ull;  /* past the red zone, with room */
    uint64_t data_at = 0;
    if (data && len) {
        sp = (sp - len) & ~15ull;
        data_at = sp;
        if (write_mem(t->tid, data_at, data, len) < 0)
            return fail(err, "cannot write into process %d: %s", (int)t->pid, strerror(errno));
    }
    uint64_t zero = 0;
    sp -= 8;  /* the return address: 0, so the return faults where we catch it */
    if (write_mem(t->tid, sp, &zero, sizeof zero) < 0)
        return fail(err, "cannot write into process %d: %s", (int)t->pid, strerror(errno));
    r.rsp = sp;
    r.rip = fn;
    r.rdi = a0 == INJ_DATA ? data_at : a0;
    r.rsi = a1 == INJ_DATA ? data_at : a1;
    r.rax = 0;
    r.orig_rax = (unsigned long long)-1;  /* not in a system call: no restart on the way out */
    if (ptrace(PTRACE_SETREGS, t->tid, NULL, &r) < 0 || ptrace(PTRACE_CONT, t->tid, NULL, NULL) < 0)
        return fail(err, "cannot run a call in process %d: %s", (int)t->pid, strerror(errno));
    for (;;) {
        int st = wait_stop(t->tid);
        if (st < 0) return fail(err, "process %d exited during the attach", (int)t->pid);
        int sig = WSTOPSIG(st);
        if (st >> 16 == PTRACE_EVENT_STOP) {  /* a group-stop or our interrupt: run on */
            ptrace(PTRACE_CONT, t->tid, NULL, NULL);
            continue;
        }
        if (sig == SIGSEGV) {
            struct user_regs_struct now;
            if (ptrace(PTRACE_GETREGS, t->tid, NULL, &now) == 0 && now.rip == 0) {
                *ret = now.rax;
                return 0;
            }
        }
        /* the program's own signal: delivered, its handler runs as it would anywhere */
        ptrace(PTRACE_CONT, t->tid, NULL, (void *)(uintptr_t)sig);
    }
}

void inj_release(inj_thread *t)
{
    if (!t) return;
    ptrace(PTRACE_SETREGS, t->tid, NULL, &t->regs);
    if (t->have_xs) ptrace(PTRACE_SETREGSET, t->tid, (void *)NT_X86_XSTATE, &t->xs);
    else ptrace(PTRACE_SETFPREGS, t->tid, NULL, &t->fp);
    ptrace(PTRACE_DETACH, t->tid, NULL, NULL);
    free(t);
}

#else /* not x86-64: every call says so */

int inj_preflight(pid_t pid, inj_err *err)
{
    (void)pid;
    snprintf(err->msg, sizeof err->msg, "attaching to a running process works on x86-64 only");
    return -1;
}

uint64_t inj_libc_function(pid_t pid, const char *name, inj_err *err)
{
    (void)name;
    inj_preflight(pid, err);
    return 0;
}

inj_thread *inj_stop(pid_t pid, inj_err *err)
{
    inj_preflight(pid, err);
    return NULL;
}

int inj_call(inj_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, const void *data, size_t len, uint64_t *ret,
             inj_err *err)
{
    (void)t, (void)fn, (void)a0, (void)a1, (void)data, (void)len, (void)ret;
    return inj_preflight(0, err);
}

int inj_read_string(inj_thread *t, uint64_t addr, char *out, size_t cap)
{
    (void)t, (void)addr, (void)out, (void)cap;
    return -1;
}

void inj_release(inj_thread *t) { (void)t; }

#endif
