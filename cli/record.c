/* record.c — hatrace record: run a program under libhatrace.so.
 *
 * The options become HATRACE_* environment variables (the library's only
 * input), LD_PRELOAD gets libhatrace.so in front, and every traced process
 * (the program, its forked children, programs it execs) appends one line to a
 * report file when its trace is closed: path, events, bytes, dropped, waits.
 * Each trace's figures are counted while the command runs (record_follow.c),
 * or read back once it has ended.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"
#include "hatf_container.h"
#include "record_attach.h"
#include "record_follow.h"
#include "record_left.h"
#include "stats_many.h"
#include "stats_read.h"

static const char help[] =
    "usage: hatrace record [OPTIONS] -- CMD [ARGS...]\n"
    "       hatrace record -p PID [--seconds N] [OPTIONS]\n"
    "\n"
    "Run CMD with every heap operation recorded into a trace file (see\n"
    "docs/recorder.md). Prints the trace path(s), each with its figures as hatrace\n"
    "stats counts them (calls, peak, leaked at exit, temporary allocations, size per\n"
    "event; counted while CMD runs, with CPU time nothing else wants, the rest read\n"
    "back after it), a summary and the next commands at the end, and exits with\n"
    "CMD's exit code.\n"
    "\n"
    "  -p, --pid PID           attach to the running process PID instead: record\n"
    "                          from now until --seconds pass, Ctrl-C or its exit,\n"
    "                          then detach and leave it running (x86-64, glibc\n"
    "                          2.34 or later; docs/recorder.md, \"Attaching\")\n"
    "      --seconds N         with -p: the window's length (default: until Ctrl-C)\n"
    "  -o, --output PATTERN    trace file name; %p pid, %e program name, %t start\n"
    "                          time (s since the epoch); default hatrace.%e.%p.hatf\n"
    "      --level N           zstd level, -7..19 (default 3)\n"
    "      --ring-size N       16-byte units per thread ring (default 131072; a malloc,\n"
    "                          a free, a realloc of NULL or a small calloc takes one,\n"
    "                          other events three; k/m suffixes;\n"
    "                          past 8 threads alive, new threads get smaller rings)\n"
    "      --flush-ms N        flusher interval in ms (default 100)\n"
    "      --follow-children   trace forked children and exec'd programs (default)\n"
    "      --no-follow-children  only CMD itself\n"
    "      --drop              drop (and count) events when a ring is full instead\n"
    "                          of making the thread wait\n"
    "      --effort MODE       how chunk groups are coded: fast (the default;\n"
    "                          auto is the same) codes them with a few\n"
    "                          instructions per event and packs them with zstd\n"
    "                          (~1-2 bytes per event); stored leaves them\n"
    "                          unpacked (the least CPU, 4-9 bytes per event);\n"
    "                          full codes them with the address model (the\n"
    "                          smallest trace, at several times the CPU).\n"
    "                          `hatrace convert` recodes a trace in full\n"
    "      --no-encode-helper  encode every chunk group on the flusher thread, not\n"
    "                          on a helper thread that yields its CPU between slices\n"
    "      --stacks[=DEPTH]    record the call stack of each allocation and realloc,\n"
    "                          up to DEPTH frames (default 32, at most 256)\n"
    "      --stacks-fp         stacks by walking frame pointers (x86-64; 3-4x cheaper\n"
    "                          than libunwind, for programs built with them)\n"
    "      --time-res NS       store event times in units of NS ns, rounded down\n"
    "                          (default 1000; 0: the raw clock, a larger trace);\n"
    "                          readers order equal times of different threads by\n"
    "                          address liveness\n"
    "      --force             replace the -o file when it exists (a name without\n"
    "                          %p, %e or %t; without --force, an existing one is an error)\n"
    "      --no-figures        end with the paths and counts only, without the figures\n"
    "                          of each trace (counted while the program runs, or read\n"
    "                          back after it: about 0.05 s of CPU per million events)\n"
    "  -h, --help              this help\n"
    "\n"
    "The same settings can be given to LD_PRELOAD=libhatrace.so directly through\n"
    "HATRACE_OUTPUT, HATRACE_ZSTD_LEVEL, HATRACE_RING_SIZE, HATRACE_FLUSH_MS,\n"
    "HATRACE_FOLLOW_CHILDREN, HATRACE_DROP, HATRACE_STACKS, HATRACE_STACKS_FP,\n"
    "HATRACE_TIME_RES, HATRACE_EFFORT, HATRACE_ENCODE_HELPER (and\n"
    "HATRACE_CLOCK=auto|tsc|monotonic).\n"
    "\n"
    "With -p, exit status 0 once the window is recorded (the process keeps its\n"
    "own), 1 when the attach failed (the process is left as it was).\n"
    "\n"
    "Exit status: CMD's (128 + the signal that killed it); 1 when the output folder\n"
    "cannot take traces (CMD is not run); 125 when a trace of the run is missing or\n"
    "incomplete for a reason other than the program's death: a process of CMD could\n"
    "not create its trace file and ran untraced, or recording into a trace stopped\n"
    "early (a full disk, a file size limit, a write error).\n";

/* libhatrace.so next to this binary (the build folder) or in ../lib. */
static int find_library(char *out, size_t cap)
{
    const char *env = getenv("HATRACE_LIB");
    if (env && *env) {
        if (access(env, R_OK) != 0) {
            cli_error("HATRACE_LIB=%s: %s", env, strerror(errno));
            return -1;
        }
        return snprintf(out, cap, "%s", env) < (int)cap ? 0 : -1;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        cli_error("cannot find the hatrace binary: %s", strerror(errno));
        return -1;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    static const char *const rel[] = { "libhatrace.so", "../lib/libhatrace.so" };
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        if (snprintf(out, cap, "%s/%s", self, rel[i]) >= (int)cap) continue;
        if (access(out, R_OK) == 0) return 0;
    }
    cli_error("libhatrace.so not found next to %s or in %s/../lib (set HATRACE_LIB)", self, self);
    return -1;
}

/* suffix: accept k/m/g (powers of 1024), as the library does for every number */
static int set_num(const char *cmd, const char *opt, const char *env, const char *arg, long lo, long hi,
                   int suffix)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (suffix && end != arg && *end && !end[1] && strchr("kKmMgG", *end)) {
        int shift = strchr("kK", *end) ? 10 : strchr("mM", *end) ? 20 : 30;
        v = v >= 0 && v <= hi >> shift ? v << shift : hi + 1;  /* out of range: reported below */
        end++;
    }
    if (errno || end == arg || *end || v < lo || v > hi)
        return cli_usage(cmd, "%s: '%s' is not a number in %ld..%ld", opt, arg, lo, hi);
    setenv(env, arg, 1);
    return 0;
}

#define U(x) ((unsigned long long)(x))

static void human(char *out, size_t cap, double b)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    while (b >= 1024 && u < 4) b /= 1024, u++;
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* The figures a user wants first, read back from the trace at path by stats'
 * own counting (so they equal stats --json's, and stats --sites'
 * temporary): calls, the heap's peak, what was still live at the end,
 * temporary allocations, the file's size per event; and whether the trace
 * is whole. *stacks: set when it holds call stacks. */
/* when the command ended (its figures' delay is counted from there) */
static double ended_at;

static int figures(const char *path, int *stacks, record_follow *fl, stats_summary *out)
{
    double t0 = cli_now_s();
    hatf_source *s = NULL;
    uint64_t at_end = 0;
    stats *st = record_follow_take(fl, path, &s, &at_end);
    int followed = st != NULL;
    if (!st) {
        if (!(s = cli_open_source(path, HATF_FMT_CONTAINER))) return 0;  /* said */
        st = stats_read(s, path, STATS_READ_SUMMARY);
    }
    stats_summary sum;
    int rc = st ? CLI_OK : CLI_FAIL;
    if (st) stats_figures(st, &sum);
    stats_free(st);
    hatf_reader *r = hatf_source_container(s);
    const char *const *lines;
    size_t damage = r ? hatf_reader_damage(r, &lines) : 0;
    int complete = r && hatf_reader_complete(r);
    const hatf_info *in = hatf_source_info(s);
    int attached = in && (in->flags & HATF_INFO_ATTACHED);
    if (r && hatf_reader_stack_count(r)) *stacks = 1;
    hatf_source_close(s);
    if (rc != CLI_OK) {
        fprintf(stderr, "hatrace:   the trace could not be read back for its figures (hatrace validate %s)\n", path);
        return 0;
    }
    *out = sum;
    char peak[32], leaked[32], size[32];
    struct stat fst;
    uint64_t bytes = stat(path, &fst) == 0 ? (uint64_t)fst.st_size : 0;
    uint64_t made = sum.allocs + sum.reallocs;
    human(peak, sizeof peak, (double)sum.max_live_bytes);
    human(leaked, sizeof leaked, (double)sum.live_bytes);
    human(size, sizeof size, (double)bytes);
    fprintf(stderr, "hatrace:   calls: %llu allocations, %llu frees, %llu reallocs\n", U(sum.allocs), U(sum.frees),
            U(sum.reallocs));
    fprintf(stderr, "hatrace:   peak: %s live (%llu bytes in %llu objects)\n", peak, U(sum.max_live_bytes),
            U(sum.max_live_objects));
    if (sum.died) {
        char how[160];
        cli_signal_text(&sum.death, how, sizeof how);
        fprintf(stderr, "hatrace:   died of %s\n", how);
        fprintf(stderr, "hatrace:   live when it died: %s (%llu bytes in %llu objects; not leaks)\n", leaked,
                U(sum.live_bytes), U(sum.live_objects));
    } else if (attached) {
        fprintf(stderr, "hatrace:   live when it detached: %s (%llu bytes in %llu objects; not leaks)\n", leaked,
                U(sum.live_bytes), U(sum.live_objects));
    } else {
        fprintf(stderr, "hatrace:   leaked at exit: %s (%llu bytes in %llu objects)\n", leaked, U(sum.live_bytes),
                U(sum.live_objects));
    }
    fprintf(stderr, "hatrace:   temporary allocations: %llu (%.1f%% of allocation calls)\n", U(sum.temporary),
            made ? 100.0 * (double)sum.temporary / (double)made : 0.0);
    fprintf(stderr, "hatrace:   size: %s, %.2f bytes per event\n", size,
            sum.records ? (double)bytes / (double)sum.records : 0.0);
    /* what the follower could not count while the program ran (no idle CPU):
     * said when it is most of the events and more than the last chunk groups
     * every trace leaves for the end (two of the recorder's) */
    uint64_t after = sum.records > at_end ? sum.records - at_end : 0;
    if (followed && after > sum.records / 2 && after > 2 * HATF_CHUNK_EVENTS_DEFAULT)
        fprintf(stderr, "hatrace:   figures counted after it ended: %.0f%% of its events (no CPU was idle while it "
                        "ran; --no-figures skips the count), ready %.2f s after it ended\n",
                100.0 * (double)after / (double)sum.records, cli_now_s() - ended_at);
    else if (followed)
        fprintf(stderr, "hatrace:   figures counted while it ran%s, ready %.2f s after it ended\n",
                record_follow_taken(fl) ? " (the idle follower fell behind: at normal priority)" : "",
                cli_now_s() - ended_at);
    else
        fprintf(stderr, "hatrace:   figures read back after it ended in %.2f s\n", cli_now_s() - t0);
    if (!complete)
        fprintf(stderr, "hatrace:   the trace was not closed: these figures cover its readable events only "
                        "(what was live when it ended counts as leaked)\n");
    else if (damage)
        fprintf(stderr, "hatrace:   the trace is damaged: these figures cover what could be read "
                        "(hatrace validate %s)\n", path);
    return 1;
}

/* Print the traces the processes reported (in the order they were created,
 * flagging those never closed: the process was killed), and one summary line.
 * Lines: "L pid" when the library starts in a process, "S path pid" at a
 * trace's creation (the pid missing: a library of an older build), "E path
 * events bytes dropped waits cpu_ns fast signal stored" when it is closed (the last four, the recorder threads' CPU ns, the events coded
 * fast, the signal it died of and the fast events stored unpacked, may be
 * missing: a library of an older build), "F path" when a process could
 * not create its trace, "X path why" when recording into it stopped early.
 * A trace never closed is counted from what it holds (its readable chunk
 * groups), and said why it ended: the recorder's reason, or none given (the
 * process was killed or crashed), or that it is still being written: its
 * process is one of the nleft in left, still running after the command ended
 * (record_left.h), which are named at the end. ran: the command was started
 * (it may still be one that LD_PRELOAD does not reach). @return the
 * processes that ran untraced because their trace could not be created. */
static int no_figures;  /* --no-figures: the traces are not read back */
enum { LEFT_NAMED = 16 };  /* processes left running named at the end */

static int report(const char *path, int ran, int *incomplete, record_follow *fl, const pid_t *left, size_t nleft)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hatrace: no trace was written\n");
        return 0;
    }
    int untraced = 0;
    size_t named = nleft < LEFT_NAMED ? nleft : LEFT_NAMED;  /* those left has room for */
    typedef struct trace { char *path; int closed, counted, running; char why[160]; stats_summary sum; } trace;
    trace *tr = NULL;
    size_t n = 0, cap = 0;
    char line[PATH_MAX + 128];
    unsigned long long ev, by, dr, wa, cpu, fa, sto, tev = 0, tby = 0, tdr = 0, twa = 0, tcpu = 0, tfa = 0, tst = 0;
    unsigned long long closed_ev = 0;  /* of closed traces: those whose CPU and coding were reported */
    int loaded = 0;
    while (fgets(line, sizeof line, f)) {
        char kind = line[0];
        loaded |= kind == 'L';
        untraced += kind == 'F' && line[1] == '\t';
        if ((kind != 'S' && kind != 'E' && kind != 'X') || line[1] != '\t') continue;
        char *p = line + 2, *end = p + strcspn(p, "\t\n");
        char *rest = *end == '\t' ? end + 1 : end;
        *end = 0;
        size_t i = 0;
        while (i < n && strcmp(tr[i].path, p)) i++;
        if (i == n) {
            if (n == cap) {
                trace *t2 = realloc(tr, (cap = cap ? 2 * cap : 16) * sizeof *tr);
                if (!t2) break;
                tr = t2;
            }
            tr[n].path = strdup(p);
            tr[n].closed = tr[n].counted = tr[n].running = 0;
            tr[n].why[0] = 0;
            if (!tr[n].path) break;
            n++;
        }
        if (kind == 'S')
            for (size_t k = 0; k < named; k++) tr[i].running |= atol(rest) == (long)left[k];
        if (kind == 'X') snprintf(tr[i].why, sizeof tr[i].why, "%.*s", (int)strcspn(rest, "\n"), rest);
        *incomplete += kind == 'X';
        cpu = fa = sto = 0;
        int sig;
        if (kind == 'E' &&
            sscanf(rest, "%llu %llu %llu %llu %llu %llu %d %llu", &ev, &by, &dr, &wa, &cpu, &fa, &sig, &sto) >= 4) {
            tr[i].closed = 1;
            tev += ev, tby += by, tdr += dr, twa += wa, tcpu += cpu, tfa += fa, tst += sto;
            closed_ev += ev;
        }
    }
    fclose(f);
    int open_ones = 0, stacks = 0;
    for (size_t i = 0; i < n; i++) {
        if (tr[i].closed) {
            fprintf(stderr, "hatrace: trace %s\n", tr[i].path);
        } else {
            /* what it holds: the events of its intact chunk groups, its bytes */
            hatf_err err = { 0 };
            hatf_reader *r = hatf_reader_open(tr[i].path, &err);
            struct stat st;
            uint64_t held = r ? hatf_reader_event_count(r) : 0, bytes = stat(tr[i].path, &st) == 0 ? (uint64_t)st.st_size : 0;
            if (r) hatf_reader_close(r);
            if (tr[i].running)
                fprintf(stderr, "hatrace: trace %s (still being written: its process runs on; %llu events "
                                "readable so far)\n", tr[i].path, (unsigned long long)held);
            else
                fprintf(stderr, "hatrace: trace %s (not closed, %s; no index: %llu events readable)\n", tr[i].path,
                        tr[i].why[0] ? tr[i].why : "the process was killed or crashed", (unsigned long long)held);
            tev += held, tby += bytes;
        }
        if (!no_figures) tr[i].counted = figures(tr[i].path, &stacks, fl, &tr[i].sum);
        open_ones += !tr[i].closed;
    }
    char size[32];
    human(size, sizeof size, (double)tby);
    fprintf(stderr, "hatrace: %zu trace%s, %llu events, %s (%.2f bytes/event), %llu dropped, %llu ring waits",
            n, n == 1 ? "" : "s", tev, size, tev ? (double)tby / (double)tev : 0.0, tdr, twa);
    if (open_ones)
        fprintf(stderr, " (%d trace%s not closed: %s readable events, no counts of drops or waits)", open_ones,
                open_ones == 1 ? "" : "s", open_ones == 1 ? "its" : "their");
    fputc('\n', stderr);
    if (nleft) {  /* a daemon: its trace is not done when the command is */
        fprintf(stderr, "hatrace: %zu process%s still running after the command ended:", nleft, nleft == 1 ? "" : "es");
        for (size_t k = 0; k < named; k++) {
            char name[64];
            record_left_name(left[k], name, sizeof name);
            fprintf(stderr, "%s %s (pid %d)", k ? "," : "", name, (int)left[k]);
        }
        fprintf(stderr, "%s; %s, named with %s pid beside the others, %s written until %s ends\n",
                nleft > named ? ", ..." : "", nleft == 1 ? "its trace" : "their traces", nleft == 1 ? "its" : "the",
                nleft == 1 ? "is" : "are", nleft == 1 ? "it" : "each");
    }
    /* what recording cost besides the hooks, and what it chose to spend it on */
    if (closed_ev && tcpu) {
        const char *effort = getenv("HATRACE_EFFORT");
        const char *why = tst && effort && !strcmp(effort, "stored")
                          ? " (--effort stored; `hatrace convert --best` makes the trace small)" : "";
        fprintf(stderr, "hatrace: recorder threads' CPU %.1f ms, %.1f ns/event; %.0f%% of events coded fast, "
                        "%.0f%% stored unpacked%s\n",
                (double)tcpu / 1e6, (double)tcpu / (double)closed_ev, 100.0 * (double)tfa / (double)closed_ev,
                100.0 * (double)tst / (double)closed_ev, why);
        /* the figures' count is a cost of recording too, paid in this process */
        struct rusage ru;
        if (!no_figures && tev && getrusage(RUSAGE_SELF, &ru) == 0) {
            double own = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
                         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
            fprintf(stderr, "hatrace: record's own CPU, mostly counting the figures: %.1f ms, %.1f ns/event "
                            "(--no-figures skips it)\n", own / 1e6, own / (double)tev);
        }
    }
    if (n) {
        /* what to look at next (the first trace: the command's own) */
        const char *asked = getenv("HATRACE_STACKS");
        if (stacks || (asked && strcmp(asked, "0") != 0))
            fprintf(stderr, "hatrace: next: hatrace stats --sites %s (where the memory goes); "
                            "hatrace stats --timeline %s\n", tr[0].path, tr[0].path);
        else
            fprintf(stderr, "hatrace: next: hatrace stats %s; hatrace stats --timeline %s; "
                            "record with --stacks for allocation sites\n", tr[0].path, tr[0].path);
        if (n > 1 && !no_figures) {  /* the processes side by side: which one was the program */
            char **paths = malloc(n * sizeof *paths);
            const stats_summary **known = malloc(n * sizeof *known);
            if (paths && known) {
                for (size_t i = 0; i < n; i++) paths[i] = tr[i].path, known[i] = tr[i].counted ? &tr[i].sum : NULL;
                fprintf(stderr, "hatrace: the processes, in the order they started:\n");
                fflush(stderr);
                stats_many_known(stderr, (int)n, paths, HATF_FMT_CONTAINER, 0, known);
            }
            free(paths);
            free(known);
        }
        if (n > 1) {
            const char *slash = strrchr(tr[0].path, '/');
            fprintf(stderr, "hatrace: next: hatrace stats %.*s (every trace of the folder, one row each)\n",
                    slash ? (int)(slash - tr[0].path) : 1, slash ? tr[0].path : ".");
        }
    }
    for (size_t i = 0; i < n; i++) free(tr[i].path);
    free(tr);
    if (!loaded && ran)
        fprintf(stderr, "hatrace: no process loaded libhatrace.so: a statically linked or set-user-ID "
                        "program ignores LD_PRELOAD\n");
    return untraced;
}

/* The folder the traces go to, when the pattern names it without '%': it
 * must be a folder we may create files in, or no process could record.
 * @return 0, or CLI_FAIL after saying why (the command is not run). */
static int check_output_dir(const char *pattern)
{
    const char *slash = strrchr(pattern, '/');
    if (!slash || memchr(pattern, '%', (size_t)(slash - pattern))) return 0;
    char dir[PATH_MAX];
    size_t n = slash == pattern ? 1 : (size_t)(slash - pattern);
    if (n >= sizeof dir) return 0;  /* the library says it is too long */
    memcpy(dir, pattern, n);
    dir[n] = 0;
    struct stat st;
    const char *why = NULL;
    if (stat(dir, &st) < 0) why = strerror(errno);
    else if (!S_ISDIR(st.st_mode)) why = "not a folder";
    else if (access(dir, W_OK | X_OK) < 0) why = strerror(errno);
    if (!why) return 0;
    cli_error("%s: cannot write traces there: %s (nothing was run)", dir, why);
    return CLI_FAIL;
}

/* -p: the window recorded in a running process, then the traces reported as
 * for a command. The process appends to the report file: it is made its own. */
static int record_window(pid_t pid, double seconds, const char *lib, const char *report_path)
{
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
    if (geteuid() == 0 && stat(proc, &st) == 0 && chown(report_path, st.st_uid, (gid_t)-1) < 0)
        cli_error("%s: %s", report_path, strerror(errno));
    record_follow *fl = no_figures ? NULL : record_follow_start(report_path);
    int exited = 0, rc = record_attach(pid, seconds, lib, &exited);
    ended_at = cli_now_s();
    record_follow_finish(fl);
    int incomplete = 0, untraced = 0;
    if (rc == CLI_OK) untraced = report(report_path, 1, &incomplete, fl, NULL, 0);
    record_follow_free(fl);
    unlink(report_path);
    if (rc != CLI_OK) return rc;
    return untraced || incomplete ? CLI_RECORD_UNTRACED : CLI_OK;
}

/* A plain -o name (no %p, %e, %t) that exists: the recorder would write
 * beside it under another name, so it is refused, or with --force removed
 * first (docs/recorder.md, "Output"). @return 0, or -1 after saying why. */
static int keep_existing(const char *out, int force)
{
    struct stat st;
    if (!out || strchr(out, '%') || lstat(out, &st) != 0) return 0;
    if (!force) {
        cli_error("%s exists: use --force to replace it, or a name with %%p (the pid) for a new one", out);
        return -1;
    }
    if (S_ISDIR(st.st_mode) || unlink(out) != 0) {
        cli_error("%s: cannot replace it: %s", out, S_ISDIR(st.st_mode) ? "a folder" : strerror(errno));
        return -1;
    }
    return 0;
}

/* What the command line asks for beyond the recorder's settings (those go
 * into its environment as they are read). */
typedef struct record_args {
    int force;
    pid_t attach_pid;
    double seconds;
} record_args;

enum { RECORD_GO = -1 };  /* parse_args: the options are good, record */
enum { O_LEVEL = 256, O_RING, O_FLUSH, O_FOLLOW, O_NOFOLLOW, O_DROP, O_STACKS, O_STACKS_FP, O_TIME_RES,
       O_NO_HELPER, O_EFFORT, O_NO_FIGURES, O_SECONDS, O_FORCE };

/* -o: the pattern, made absolute (exec'd programs may change directory: anchor it here). */
static void set_output(const char *arg)
{
    if (arg[0] != '/') {
        char cwd[PATH_MAX], abs[2 * PATH_MAX];
        if (getcwd(cwd, sizeof cwd) && snprintf(abs, sizeof abs, "%s/%s", cwd, arg) < (int)sizeof abs) {
            setenv("HATRACE_OUTPUT", abs, 1);
            return;
        }
    }
    setenv("HATRACE_OUTPUT", arg, 1);
}

/* One option c (its argument in optarg). @return RECORD_GO, or an exit code (a bad option said, or --help). */
static int take_option(int c, record_args *a, char **argv)
{
    int rc = 0;
    char *end;
    switch (c) {
    case 'o':
        if (!*optarg) return cli_usage("record", "-o: empty pattern");
        set_output(optarg);
        break;
    case O_LEVEL: rc = set_num("record", "--level", "HATRACE_ZSTD_LEVEL", optarg, -7, 19, 0); break;
    case O_RING: rc = set_num("record", "--ring-size", "HATRACE_RING_SIZE", optarg, 64, 1L << 24, 1); break;
    case O_FLUSH: rc = set_num("record", "--flush-ms", "HATRACE_FLUSH_MS", optarg, 1, 60000, 0); break;
    case O_FOLLOW: setenv("HATRACE_FOLLOW_CHILDREN", "1", 1); break;
    case O_NOFOLLOW: setenv("HATRACE_FOLLOW_CHILDREN", "0", 1); break;
    case O_DROP: setenv("HATRACE_DROP", "1", 1); break;
    case O_NO_HELPER: setenv("HATRACE_ENCODE_HELPER", "0", 1); break;
    case O_NO_FIGURES: no_figures = 1; break;
    case O_FORCE: a->force = 1; break;
    case O_EFFORT:
        if (strcmp(optarg, "auto") && strcmp(optarg, "fast") && strcmp(optarg, "full") && strcmp(optarg, "stored"))
            return cli_usage("record", "--effort: expected auto, fast, full or stored");
        setenv("HATRACE_EFFORT", optarg, 1);
        break;
    case O_STACKS: rc = set_num("record", "--stacks", "HATRACE_STACKS", optarg ? optarg : "32", 1, 256, 0); break;
    case O_STACKS_FP:
        setenv("HATRACE_STACKS_FP", "1", 1);
        if (!getenv("HATRACE_STACKS")) setenv("HATRACE_STACKS", "32", 1);
        break;
    case O_TIME_RES: rc = set_num("record", "--time-res", "HATRACE_TIME_RES", optarg, 0, 1000000000, 0); break;
    case 'p':
        errno = 0;
        a->attach_pid = (pid_t)strtol(optarg, &end, 10);
        if (errno || end == optarg || *end || a->attach_pid <= 0)
            return cli_usage("record", "-p: '%s' is not a process id", optarg);
        break;
    case O_SECONDS:
        errno = 0;
        a->seconds = strtod(optarg, &end);
        if (errno || end == optarg || *end || !(a->seconds > 0) || a->seconds > 1e7)
            return cli_usage("record", "--seconds: '%s' is not a number of seconds above 0", optarg);
        break;
    case 'h': return cli_help(help);
    default: return cli_bad_option("record", c, argv);
    }
    return rc ? rc : RECORD_GO;
}

/* The options, checked together, and the output pattern by default.
 * @return RECORD_GO, or an exit code (said). */
static int parse_args(int argc, char **argv, record_args *a)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "level", required_argument, NULL, O_LEVEL },
        { "ring-size", required_argument, NULL, O_RING },
        { "flush-ms", required_argument, NULL, O_FLUSH },
        { "follow-children", no_argument, NULL, O_FOLLOW },
        { "no-follow-children", no_argument, NULL, O_NOFOLLOW },
        { "drop", no_argument, NULL, O_DROP },
        { "stacks", optional_argument, NULL, O_STACKS },
        { "stacks-fp", no_argument, NULL, O_STACKS_FP },
        { "time-res", required_argument, NULL, O_TIME_RES },
        { "no-encode-helper", no_argument, NULL, O_NO_HELPER },
        { "effort", required_argument, NULL, O_EFFORT },
        { "no-figures", no_argument, NULL, O_NO_FIGURES },
        { "pid", required_argument, NULL, 'p' },
        { "seconds", required_argument, NULL, O_SECONDS },
        { "force", no_argument, NULL, O_FORCE },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    int c, rc;
    memset(a, 0, sizeof *a);
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, "+:o:p:h", opts, NULL)) != -1)
        if ((rc = take_option(c, a, argv)) != RECORD_GO) return rc;
    if (a->attach_pid && optind < argc) return cli_usage("record", "-p attaches to a running process: no command to run");
    if (!a->attach_pid && a->seconds > 0) return cli_usage("record", "--seconds goes with -p");
    if (!a->attach_pid && optind >= argc) return cli_usage("record", "no command to run");
    if (!getenv("HATRACE_OUTPUT")) {
        char cwd[PATH_MAX], abs[PATH_MAX + 32];
        if (getcwd(cwd, sizeof cwd) && snprintf(abs, sizeof abs, "%s/hatrace.%%e.%%p.hatf", cwd) < (int)sizeof abs)
            setenv("HATRACE_OUTPUT", abs, 1);
    }
    return RECORD_GO;
}

/* LD_PRELOAD for the command: the recorder lib first, then what was there.
 * @return a string to free, or NULL out of memory. */
static char *preload_value(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(len);
    if (preload) snprintf(preload, len, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    return preload;
}

/* The report file the recorded processes append to (in $TMPDIR, else /tmp),
 * its name in path[PATH_MAX]. @return 0, or CLI_FAIL after saying why. */
static int make_report_file(char *path)
{
    const char *tmp = getenv("TMPDIR");
    int fd = -1;
    if (tmp && *tmp && snprintf(path, PATH_MAX, "%s/hatrace-report.XXXXXX", tmp) < PATH_MAX) fd = mkstemp(path);
    if (fd < 0) {
        snprintf(path, PATH_MAX, "/tmp/hatrace-report.XXXXXX");
        fd = mkstemp(path);
    }
    if (fd < 0) {
        cli_error("cannot create a report file: %s", strerror(errno));
        return CLI_FAIL;
    }
    close(fd);
    return 0;
}

/* The command's exit status as record's: CLI_RECORD_UNTRACED when a trace is
 * missing or incomplete (said), else the command's own. */
static int record_status(int status, int untraced, int incomplete, const char *cmd)
{
    if (untraced || incomplete) {
        /* a script must not take a run without its whole trace for a
         * recording: a trace file not created, or a full disk, a file size
         * limit, a write error (not the program's doing) */
        char why[96];
        if (untraced)
            snprintf(why, sizeof why, "%d process%s ran untraced: the trace file could not be created", untraced,
                     untraced == 1 ? "" : "es");
        else
            snprintf(why, sizeof why, "%d trace%s incomplete: recording stopped early (see above)", incomplete,
                     incomplete == 1 ? " is" : "s are");
        fprintf(stderr, "hatrace: %s (the command %s %d); exit status %d\n", why,
                WIFSIGNALED(status) ? "was killed by signal" : "exited with",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), CLI_RECORD_UNTRACED);
        return CLI_RECORD_UNTRACED;
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "hatrace: %s killed by signal %d\n", cmd, WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

/* Run cmd with the recorder preloaded, wait for it, report its traces.
 * @return record's exit code. */
static int run_command(char **cmd, char *preload, const char *report_path)
{
    record_left_adopt();  /* without it (an old kernel) no process is named as left running */
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("fork: %s", strerror(errno));
        unlink(report_path);
        free(preload);
        return CLI_FAIL;
    }
    if (pid == 0) {
        setenv("LD_PRELOAD", preload, 1);
        execvp(cmd[0], cmd);
        fprintf(stderr, "hatrace: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    free(preload);
    /* the terminal's signals reach the program; we only wait for it */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    record_follow *fl = no_figures ? NULL : record_follow_start(report_path);
    int status = 0;
    while (record_follow_wait(fl, pid, &status) < 0)
        if (errno != EINTR) { status = 127 << 8; break; }
    ended_at = cli_now_s();
    record_follow_finish(fl);
    int incomplete = 0;
    pid_t left[LEFT_NAMED];
    size_t nleft = record_left_running(left, LEFT_NAMED);
    int untraced = report(report_path, !(WIFEXITED(status) && WEXITSTATUS(status) == 127), &incomplete, fl, left,
                          nleft);
    record_follow_free(fl);
    unlink(report_path);
    return record_status(status, untraced, incomplete, cmd[0]);
}

int cmd_record(int argc, char **argv)
{
    record_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != RECORD_GO) return rc;
    char **cmd = argv + optind;
    if (check_output_dir(getenv("HATRACE_OUTPUT")) || keep_existing(getenv("HATRACE_OUTPUT"), a.force)) return CLI_FAIL;

    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib) < 0) return CLI_FAIL;
    char *preload = preload_value(lib);
    if (!preload) return CLI_FAIL;
    char report_path[PATH_MAX];
    if (make_report_file(report_path)) {
        free(preload);
        return CLI_FAIL;
    }
    setenv("HATRACE_REPORT", report_path, 1);
    if (a.attach_pid) {  /* the library is injected (cli/inject.c), not preloaded */
        free(preload);
        return record_window(a.attach_pid, a.seconds, lib, report_path);
    }
    return run_command(cmd, preload, report_path);
}
