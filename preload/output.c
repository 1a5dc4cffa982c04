/* output.c — the trace file of this process: its name (the output pattern, a
 * fork child's pid, a number when the name is taken) and creation, the
 * writer's opening with the header, hatrace record's report lines, and what
 * keeps writing it safe: its descriptor kept open when the program closes
 * every one, the check that the program has not closed it anyway, the end
 * of recording when a write fails, and the SIGXFSZ guard.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "effort.h"
#include "flusher_state.h"
#include "options.h"
#include "output.h"
#include "prim.h"
#include "recorder.h"
#include "stacks.h"

/* One line per event of a trace's life for hatrace record: "L pid" when the
 * library starts in a process (record tells a program LD_PRELOAD does not
 * reach, a static one, from one that recorded nothing), "S path pid" when the
 * file is created, "E path events bytes dropped waits cpu_ns fast signal" when it is
 * closed (cpu_ns: the background threads' CPU; fast: events coded fast;
 * signal: the one the process died of, 0 when it did not), "F
 * path" when it could not be created (the process runs untraced), "X path
 * why" when recording into it stopped early (it gets no "E" line). One
 * write(2) with O_APPEND each, so lines of concurrent processes do not mix. */
static void report_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
    /* never created here, nor written through a link: hatrace record made it
     * (mkstemp), and a child still running after record removed it must not
     * make it again where another user may have put a link */
    int fd = open(rep, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    ht_xfsz_guard g;  /* a file size limit of 0 refuses this line too: its SIGXFSZ is not the program's */
    ht_xfsz_hold(&g);
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    ht_xfsz_release(&g);
    close(fd);
}

void ht_report_end(uint64_t bytes, uint64_t dropped, uint64_t waits, uint64_t bg_ns, uint64_t fast_events,
                   uint64_t stored_events)
{
    report_line("E\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%d\t%llu\n", ht_fs.out_path,
                (unsigned long long)ht_fs.n_events, (unsigned long long)bytes, (unsigned long long)dropped,
                (unsigned long long)waits, (unsigned long long)bg_ns, (unsigned long long)fast_events,
                ht_fs.death_sig, (unsigned long long)stored_events);
}

/* Where a trace name's ".hatf" extension starts in name (its end when it has none). */
static size_t hatf_ext_at(const char *name)
{
    size_t n = strlen(name);
    const char *slash = strrchr(name, '/');
    size_t base = slash ? (size_t)(slash + 1 - name) : 0;
    return n - base > 5 && !strcmp(name + n - 5, ".hatf") ? n - 5 : n;
}

/* name with ins put before its ".hatf" extension (at its end without one),
 * into out. @return -1 when it does not fit. */
static int hatf_name_insert(const char *name, const char *ins, char *out, size_t cap)
{
    size_t at = hatf_ext_at(name);
    int k = snprintf(out, cap, "%.*s%s%s", (int)at, name, ins, name + at);
    return k < 0 || (size_t)k >= cap ? -1 : 0;
}

/* Static, not on the stack: at init this runs on the program's main thread,
 * whose stack pages it would leave resident (12 KiB, counted as the program's
 * in resident samples). One call at a time: init's, then the writer's under wlock. */
static char pattern[PATH_MAX], rel[PATH_MAX], first[PATH_MAX];

/* The trace's descriptor, kept open when the program closes it (ht_fd_kept):
 * the last one opened. A number left here after the recorder closed the file
 * keeps nothing: ht_fd_kept asks the descriptor itself which file it is. */
static _Atomic int kept_fd = -1;

int ht_output_open(void)
{
    const char *pat = ht_opt_output();
    report_line("L\t%d\n", (int)getpid());  /* the library runs in this process */
    /* a child must not collide with its parent's file: its program and pid
     * go before the extension (x.hatf -> x.sh.1234.hatf) */
    if (ht_fs.forked && !strstr(pat, "%p")) {
        if (hatf_name_insert(pat, strstr(pat, "%e") ? ".%p" : ".%e.%p", pattern, sizeof pattern) < 0) goto toolong;
        pat = pattern;
    }
    extern char *program_invocation_short_name;
    if (ht_expand_pattern(pat, rel, sizeof rel, (uint32_t)getpid(), program_invocation_short_name,
                          ht_fs.real0 / 1000000000u) < 0)
        goto toolong;
    /* absolute, so the path stays true for reports and fork children after chdir */
    if (rel[0] == '/') {
        snprintf(ht_fs.out_path, sizeof ht_fs.out_path, "%s", rel);
    } else {
        /* fork children write next to their parent's trace even after a chdir */
        if (!ht_fs.out_dir[0] && !getcwd(ht_fs.out_dir, sizeof ht_fs.out_dir))
            snprintf(ht_fs.out_dir, sizeof ht_fs.out_dir, ".");
        if (snprintf(ht_fs.out_path, sizeof ht_fs.out_path, "%s/%s", ht_fs.out_dir, rel) >=
            (int)sizeof ht_fs.out_path)
            goto toolong;
    }
    /* the name is taken (a program exec'd by a traced process of the same pid,
     * or something else there): never overwrite; the program and pid go before
     * the extension when the pattern did not name them, then a number */
    char ins[96];
    snprintf(first, sizeof first, "%s", ht_fs.out_path);
    int named = strstr(pat, "%p") && strstr(pat, "%e");
    for (int k = 0; k < 100; k++) {
        if (k) {
            if (named) snprintf(ins, sizeof ins, ".%d", k);
            else if (k == 1) snprintf(ins, sizeof ins, ".%.40s.%d", program_invocation_short_name, (int)getpid());
            else snprintf(ins, sizeof ins, ".%.40s.%d.%d", program_invocation_short_name, (int)getpid(), k - 1);
            if (hatf_name_insert(first, ins, ht_fs.out_path, sizeof ht_fs.out_path) < 0) goto toolong;
        }
        ht_fs.out_fd = open(ht_fs.out_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (ht_fs.out_fd >= 0 || errno != EEXIST) break;
    }
    if (ht_fs.out_fd < 0) {
        snprintf(ht_fs.out_path, sizeof ht_fs.out_path, "%s", first);
        ht_say("cannot create trace file %s: %s; the program runs untraced", ht_fs.out_path, strerror(errno));
        report_line("F\t%s\n", ht_fs.out_path);
        ht_fs.out_failed = 1;
        return -1;
    }
    /* out of the way of programs that dup2 onto low descriptors */
    int high = fcntl(ht_fs.out_fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        close(ht_fs.out_fd);
        ht_fs.out_fd = high;
    }
    struct stat sb;
    if (fstat(ht_fs.out_fd, &sb) == 0) {
        ht_fs.out_dev = sb.st_dev, ht_fs.out_ino = sb.st_ino;
        atomic_store_explicit(&kept_fd, ht_fs.out_fd, memory_order_release);  /* after dev, ino */
    }
    if (ht_opt(HT_OPT_VERBOSE)) ht_say("tracing into %s", ht_fs.out_path);
    report_line("S\t%s\t%d\n", ht_fs.out_path, (int)getpid());
    return 0;
toolong:
    ht_say("trace file name from pattern '%s' is too long; the program runs untraced", pat);
    report_line("F\t%s\n", pat);
    ht_fs.out_failed = 1;
    return -1;
}

/* Scratch, not state (the writer copies it into the header): 8 KB, static so
 * the flusher's stack stays small. */
static hatf_info info;

int ht_writer_open(void)
{
    HATF_PRE(ht_wlock_held());
    if (ht_fs.writer) return 0;
    if (ht_fs.out_failed) return -1;
    if (ht_fs.out_fd < 0 && ht_output_open() < 0) return -1;
    ht_clock_fix_unit();
    memset(&info, 0, sizeof info);
    info.address_bits = sizeof(void *) * 8;
    info.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
    info.pid = (uint32_t)getpid();
    info.ppid = (uint32_t)getppid();
    info.start_realtime_ns = ht_fs.real0;
    info.time_unit_ns_num = ht_fs.unit_num;
    info.time_unit_ns_den = ht_fs.unit_den;
    snprintf(info.clock, sizeof info.clock, "%s", ht_use_tsc ? HT_COUNTER_NAME : "CLOCK_MONOTONIC");
    long n = ht_read_file("/proc/self/cmdline", info.cmdline, sizeof info.cmdline - 1);
    if (n > 0) {
        while (n > 0 && !info.cmdline[n - 1]) n--;
        for (long i = 0; i < n; i++)
            if (!info.cmdline[i]) info.cmdline[i] = ' ';
        info.cmdline[n] = 0;
    }
    if (ht_fs.forked) {
        info.flags |= HATF_INFO_FORKED;
        snprintf(info.parent_trace, sizeof info.parent_trace, "%s", ht_fs.parent_path);
    }
    if (ht_opt(HT_OPT_DROP)) info.flags |= HATF_INFO_DROP_MODE;
    if (ht_attached) info.flags |= HATF_INFO_ATTACHED;
    /* rdtsc may run ahead of the load that gave a free its pointer (docs/recorder.md, "Order") */
    if (ht_use_tsc) info.flags |= HATF_INFO_EARLY_RELEASE;
    hatf_writer_opts opts = { .zstd_level = (int)ht_opt(HT_OPT_ZSTD_LEVEL),
                              .time_res_ns = (uint64_t)ht_opt(HT_OPT_TIME_RES) };
    if (!opts.zstd_level) opts.zstd_level = 1;
    hatf_err err;
    memset(&err, 0, sizeof err);
    ht_fs.writer = hatf_writer_open_fd(ht_fs.out_fd, &info, &opts, &err);
    if (!ht_fs.writer) {  /* its header could not be written: a disk full from the start */
        ht_say("cannot write trace %s: %s; the program runs untraced", ht_fs.out_path, err.msg);
        ht_report_failed(err.msg);
        ht_fs.out_failed = 1;
        return -1;
    }
    /* readers mark stacks this deep as cut (stats --sites --folded) */
    if (ht_stack_depth) hatf_writer_stack_depth(ht_fs.writer, (unsigned)ht_stack_depth);
    hatf_writer_set_coding_(ht_fs.writer, ht_effort_coding());  /* from the first group on (effort.c) */
    ht_fs.last_flush_ns = ht_mono_ns();
    return 0;
}

/* The writer failed (a full disk, RLIMIT_FSIZE, an I/O error): close it now,
 * so its memory goes and its message says why, in one line; the file keeps
 * every complete chunk and reads back as incomplete. Later events are counted
 * as dropped. */
void ht_write_failed(void)
{
    HATF_PRE(ht_wlock_held());
    hatf_err err;
    memset(&err, 0, sizeof err);
    ht_background_cpu_read();  /* the helper's CPU to the end: the close ends it */
    hatf_writer_close(ht_fs.writer, NULL, &err);  /* writes nothing more: the writer is failed */
    ht_fs.writer = NULL;
    ht_fs.out_fd = -1;
    ht_fs.out_failed = 1;
    const char *why = err.msg[0] ? err.msg : "unknown error";
    ht_say("writing the trace %s failed: %s; recording stops, the trace is incomplete", ht_fs.out_path, why);
    ht_report_failed(why);
}

void ht_report_failed(const char *why) { report_line("X\t%s\twriting failed: %s\n", ht_fs.out_path, why); }

int ht_fd_kept(int fd)
{
    if (HT_LIKELY(fd != atomic_load_explicit(&kept_fd, memory_order_acquire)) || fd < 0 || ht_in_own_code(&ht_t))
        return 0;
    struct stat sb;
    return fstat(fd, &sb) == 0 && sb.st_dev == ht_fs.out_dev && sb.st_ino == ht_fs.out_ino;
}

int ht_fd_kept_in(unsigned lo, unsigned hi)
{
    int fd = atomic_load_explicit(&kept_fd, memory_order_acquire);
    return fd >= 0 && (unsigned)fd >= lo && (unsigned)fd <= hi && ht_fd_kept(fd) ? fd : -1;
}

/* A program that closes every descriptor (daemons do) may reuse the trace's
 * number for a file of its own: never write into that. The close hooks keep
 * it open against close, close_range and closefrom through the PLT; a direct
 * system call is caught here. */
int ht_out_fd_intact(void)
{
    HATF_PRE(ht_wlock_held());
    if (ht_fs.out_fd < 0 || ht_fs.out_failed) return !ht_fs.out_failed;
    struct stat sb;
    if (fstat(ht_fs.out_fd, &sb) == 0 && sb.st_dev == ht_fs.out_dev && sb.st_ino == ht_fs.out_ino) return 1;
    ht_say("the trace file %s was closed by the program; recording stops", ht_fs.out_path);
    report_line("X\t%s\tthe program closed the trace file\n", ht_fs.out_path);
    ht_fs.out_failed = 1;
    ht_fs.writer = NULL;  /* abandoned: closing it would write into someone else's file */
    ht_fs.out_fd = -1;
    return 0;
}

/* A write past RLIMIT_FSIZE fails with EFBIG and sends SIGXFSZ to the writing
 * thread, whose default action kills the program. The flusher blocks every
 * signal; a program thread that writes the trace (exit, exec, a drain without
 * flusher) blocks SIGXFSZ meanwhile and takes back the one its write raised,
 * so the program sees neither the signal nor a change of its mask. */
void ht_xfsz_hold(ht_xfsz_guard *g)
{
    sigset_t s, p;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &s, &g->old);
    g->was_pending = sigpending(&p) == 0 && sigismember(&p, SIGXFSZ);
}

void ht_xfsz_release(ht_xfsz_guard *g)
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
