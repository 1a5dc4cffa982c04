/* cli_util.c — shared option parsing, opening traces and error printing. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bufput.h"
#include "cli_util.h"
#include "stats_json.h"
#include "window.h"

void cli_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)  /* one line, always */
        if (*p == '\n' || *p == '\r') *p = ' ';
    fprintf(stderr, "hatrace: %s\n", msg);
}

void cli_error_at(const char *file, const hatf_err *e)
{
    cli_error("%s: offset %llu: %s", file, (unsigned long long)e->offset, hatf_err_text(e));
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "hatrace %s: %s (see 'hatrace %s --help')\n", cmd, msg, cmd);
    else
        fprintf(stderr, "hatrace: %s (see 'hatrace --help')\n", msg);
    return CLI_USAGE;
}

void cli_getopt_begin(void)
{
    optind = 0;  /* glibc: 0 fully reinitialises getopt */
    opterr = 0;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':') return cli_usage(cmd, "option %s needs a value", arg);
    if (c == '?') {
        if (optopt && optopt < 256) return cli_usage(cmd, "unknown option -%c", optopt);
        return cli_usage(cmd, "unknown option %s", arg);
    }
    return cli_usage(cmd, "unexpected option %s", arg);
}

int cli_help(const char *text)
{
    fputs(text, stdout);
    return cli_finish_stdout(CLI_OK);
}

int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
    uint64_t v = 0;
    if (!*arg) return cli_usage(cmd, "%s needs a number", opt);
    for (const char *p = arg; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return cli_usage(cmd, "%s needs a non-negative whole number, not '%s'", opt, arg);
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int cli_parse_word(const char *cmd, const char *opt, const char *arg, const char *const *words, size_t n,
                   int *out)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(arg, words[i])) {
            *out = (int)i;
            return 0;
        }
    char list[256];
    size_t len = 0;
    list[0] = 0;
    for (size_t i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                                words[i]);
    return cli_usage(cmd, "%s: '%s' is not %s", opt, arg, list);
}

int cli_parse_format(const char *cmd, const char *opt, const char *arg, hatf_format *out)
{
    int f = hatf_format_from_name(arg);
    if (f < 0) return cli_usage(cmd, "%s: unknown format '%s' (hatrace, hatf1.0, text, metatf)", opt, arg);
    *out = (hatf_format)f;
    return 0;
}

/* The input as the user named it, and the copy cli_open_source opens instead
 * (a pipe's contents in an unnamed temporary file; see cli_one_file). */
static const char *spooled_name;
static char spooled_path[64];

/* An unnamed file in $TMPDIR (or /tmp), else in memory. @return fd or -1. */
static int unnamed_file(void)
{
    const char *dir = getenv("TMPDIR");
    int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && dir && *dir) fd = open("/tmp", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fd = memfd_create("hatrace-input", MFD_CLOEXEC);
    return fd;
}

/* Copy a non-regular input (a pipe, "-" for standard input) into an unnamed
 * file, to its end: but when its first bytes are not the start of format fmt
 * (AUTO: a container or Meta-TF), only the first block, which the reader then
 * refuses at offset 0 as it would the file itself. Else a stream that never
 * ends (/dev/zero, `yes |`) would fill the disk before it was told to be no
 * trace. A HATF 1.0 stream has no magic: it is copied whole.
 * @return 0, or CLI_FAIL after printing why. */
static int spool(const char *name, hatf_format fmt)
{
    int in = strcmp(name, "-") ? open(name, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
    struct stat st;
    if (in < 0 || fstat(in, &st) < 0) {
        cli_error("%s: cannot open: %s", name, strerror(errno));
        if (in > STDIN_FILENO) close(in);
        return CLI_FAIL;
    }
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {  /* read in place (a directory is refused there) */
        if (in == STDIN_FILENO) {  /* "-" redirected from a file */
            snprintf(spooled_path, sizeof spooled_path, "/proc/self/fd/%d", STDIN_FILENO);
            spooled_name = name;
        } else {
            close(in);
        }
        return 0;
    }
    int out = unnamed_file();
    if (out < 0) {
        cli_error("%s: cannot make a temporary file to read it into: %s", name, strerror(errno));
        if (in != STDIN_FILENO) close(in);
        return CLI_FAIL;
    }
    char buf[1 << 16];
    char head[HATF_FORMAT_HEAD];
    size_t nhead = 0;
    int rc = 0, refused = 0;
    while (!refused) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { cli_error("%s: read: %s", name, strerror(errno)); rc = CLI_FAIL; break; }
        if (n == 0) break;
        if (nhead < sizeof head && fmt != HATF_FMT_HATF1) {
            size_t k = (size_t)n < sizeof head - nhead ? (size_t)n : sizeof head - nhead;
            memcpy(head + nhead, buf, k);
            nhead += k;
            hatf_format found = hatf_format_of_head(head, nhead);
            if (nhead == sizeof head)
                refused = fmt == HATF_FMT_AUTO ? found != HATF_FMT_CONTAINER && found != HATF_FMT_METATF
                                               : found != fmt;
        }
        for (ssize_t w = 0; w < n;) {
            ssize_t k = write(out, buf + w, (size_t)(n - w));
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) {
                cli_error("%s: copying it to a temporary file: %s", name, k < 0 ? strerror(errno) : "no space");
                rc = CLI_FAIL;
                break;
            }
            w += k;
        }
        if (rc) break;
    }
    if (in != STDIN_FILENO) close(in);
    if (rc) { close(out); return rc; }
    /* kept open for the process's life: the commands that read twice reopen it */
    snprintf(spooled_path, sizeof spooled_path, "/proc/self/fd/%d", out);
    spooled_name = name;
    return 0;
}

int cli_one_file(const char *cmd, int argc, char **argv, hatf_format fmt, const char **path)
{
    if (optind >= argc) return cli_usage(cmd, "missing input file");
    if (optind + 1 < argc) return cli_usage(cmd, "one input file only (got '%s' too)", argv[optind + 1]);
    *path = argv[optind];
    struct stat st;
    if (!strcmp(*path, "-") || (stat(*path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
        return spool(*path, fmt);
    return 0;
}

int cli_strict;
unsigned cli_jobs;

int cli_parse_jobs(const char *cmd, const char *arg)
{
    uint64_t v;
    int rc = cli_parse_u64(cmd, "--jobs", arg, &v);
    if (rc) return rc;
    if (v < 1 || v > HATF_SOURCE_JOBS_MAX)
        return cli_usage(cmd, "--jobs: %s is not a number of threads from 1 to %d", arg, HATF_SOURCE_JOBS_MAX);
    cli_jobs = (unsigned)v;
    return 0;
}

/* the window options (--from-time, --to-time, --phase, --thread) */
static struct {
    int given;
    window_spec spec;
} window_opts = { 0, { 0, UINT64_MAX, NULL, 0, 0 } };

int window_parse_time(const char *arg, uint64_t *ns)
{
    char *end;
    if (!arg[0] || arg[0] == '-' || arg[0] == '+') return -1;
    double v = strtod(arg, &end);
    double scale = 1e9;
    if (!strcmp(end, "ns")) scale = 1;
    else if (!strcmp(end, "us")) scale = 1e3;
    else if (!strcmp(end, "ms")) scale = 1e6;
    else if (strcmp(end, "s") && *end) return -1;
    double x = v * scale;
    if (!(x >= 0) || x >= 1.8e19) return -1;
    *ns = (uint64_t)(x + 0.5);
    return 0;
}

int window_parse(const char *cmd, int opt, const char *arg)
{
    window_opts.given = 1;
    switch (opt) {
    case WINDOW_O_FROM:
    case WINDOW_O_TO: {
        uint64_t ns;
        if (window_parse_time(arg, &ns))
            return cli_usage(cmd, "%s: %s is not a time (a number of s, ms, us or ns: 1.5s, 250ms)",
                             opt == WINDOW_O_FROM ? "--from-time" : "--to-time", arg);
        if (opt == WINDOW_O_FROM) window_opts.spec.from_ns = ns;
        else window_opts.spec.to_ns = ns;
        if (window_opts.spec.from_ns >= window_opts.spec.to_ns) return cli_usage(cmd, "--from-time must be before --to-time");
        return 0;
    }
    case WINDOW_O_PHASE:
        window_opts.spec.phase = arg;
        return 0;
    default:
        window_opts.spec.has_thread = 1;
        return cli_parse_u64(cmd, "--thread", arg, &window_opts.spec.thread);
    }
}

int window_given(void) { return window_opts.given; }

/* Put the window options' window on s. @return 0, or -1 out of memory (said). */
static int window_install(hatf_source *s)
{
    if (!window_opts.given) return 0;
    uint64_t num, den;
    cli_time_unit(s, &num, &den);
    if (window_filter(s, &window_opts.spec, num, den) < 0) {
        cli_error("out of memory");
        return -1;
    }
    return 0;
}

hatf_source *cli_open_source(const char *path, hatf_format fmt)
{
    hatf_err err = { 0 };
    const char *real = spooled_name && !strcmp(path, spooled_name) ? spooled_path : path;
    hatf_source *s = hatf_source_open(real, fmt, &err);
    if (!s) cli_error_at(path, &err);
    else {
        hatf_source_read_on(s, !cli_strict);
        hatf_source_jobs(s, cli_jobs);
        if (window_install(s) < 0) {
            hatf_source_close(s);
            return NULL;
        }
    }
    return s;
}

mode_t cli_derived_mode(const char *in_path)
{
    struct stat st;
    if (strcmp(in_path, "-") != 0 && stat(in_path, &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 0666;
    return 0666;
}

int cli_read_end(const char *path, hatf_source *s, int rc)
{
    hatf_reader *r = hatf_source_container(s);
    if (!r || hatf_source_error(s)->code) return rc;  /* a read that stopped at an error has said it */
    const char *const *lines;
    size_t n = hatf_reader_damage(r, &lines);
    if (!n && hatf_reader_complete(r)) return rc;
    for (size_t i = 0; i < n; i++) cli_error("%s: %s", path, lines[i]);
    if (rc != CLI_OK) return rc;
    cli_error("%s: the trace is %s: the output covers what could be read (exit status %d)", path,
              n ? "damaged or cut" : "not closed", CLI_PARTIAL);
    return CLI_PARTIAL;
}

int cli_source_failed(const char *path, const hatf_source *s)
{
    cli_error_at(path, hatf_source_error(s));
    return CLI_FAIL;
}

int cli_finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("writing to standard output: %s", strerror(errno));
        return CLI_FAIL;
    }
    return rc;
}

void cli_time_unit(hatf_source *s, uint64_t *num, uint64_t *den) { stats_time_unit(s, num, den); }

void cli_json_string(hatf_buf *out, const char *s) { buf_json_string(out, s); }

void cli_put(hatf_buf *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vput(o, fmt, ap);
    va_end(ap);
}

/* What a fault's si_code says, for the codes the kernel gives most */
static const char *fault_words(int sig, int code)
{
    switch (sig) {
    case SIGSEGV: return code == SEGV_MAPERR ? "address not mapped" : code == SEGV_ACCERR ? "no access" : NULL;
    case SIGBUS: return code == BUS_ADRALN ? "misaligned address" : code == BUS_ADRERR ? "no such address"
                        : code == BUS_OBJERR ? "hardware error" : NULL;
    case SIGILL: return code == ILL_ILLOPC ? "illegal opcode" : code == ILL_PRVOPC ? "privileged opcode" : NULL;
    case SIGFPE: return code == FPE_INTDIV ? "integer divide by zero" : code == FPE_INTOVF ? "integer overflow" : NULL;
    case SIGTRAP: return code == TRAP_BRKPT ? "breakpoint" : code == TRAP_TRACE ? "trace trap" : NULL;
    default: return NULL;
    }
}

void cli_signal_text(const hatf_signal *s, char *out, size_t cap)
{
    const char *words = s->code > 0 ? fault_words(s->sig, s->code) : NULL;
    char why[64];
    if (words) snprintf(why, sizeof why, ", %s", words);
    else snprintf(why, sizeof why, ", code %d", s->code);
    if (s->code > 0)
        snprintf(out, cap, "signal %d (%s%s) on thread %llu at address 0x%llx", s->sig, s->name, why,
                 (unsigned long long)s->thread, (unsigned long long)s->addr);
    else
        snprintf(out, cap, "signal %d (%s) on thread %llu, sent by process %llu", s->sig, s->name,
                 (unsigned long long)s->thread, (unsigned long long)s->addr);
}

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
