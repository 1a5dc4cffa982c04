/* effort.c — how much CPU the recorder's background threads spend per event.
 *
 * Where a core is idle, the full coding (the address model and zstd, most of
 * it on the encoding helper) costs the program nothing and makes the trace
 * small. Where the program keeps every core busy, every nanosecond of it is
 * taken from the program, and the fast coding (container address coding 4,
 * chunks stored: a few instructions per event) keeps most of the program's
 * speed at the price of a larger file, which `hatrace convert` recovers
 * offline. The choice is made per chunk group, as groups begin.
 *
 * Every window (EFFORT_WINDOW_NS, 100 ms) the flusher looks back and codes
 * fast while either
 *   - the machine had no idle CPU: all CPUs together were idle for less than
 *     EFFORT_IDLE_PCT % of one CPU's time (/proc/stat, whose first line sums
 *     every CPU), our own threads' work included: what the full coding takes
 *     would then be taken from the program, or from whoever else wants the
 *     cores; or
 *   - it was behind: the program's threads waited for room in their rings for
 *     EFFORT_WAIT_PCT % of the window or more (a few short waits, when the
 *     flusher was a little late, are no reason), except in the first window,
 *     while the trace opens (a program's first burst is not its pace);
 * and goes back to the full coding once neither has been seen for
 * EFFORT_CALM_NS. HATRACE_EFFORT=fast|full fixes the choice.
 *
 * Why idle time and not the flusher's own wait for a CPU: with one core
 * idle, the flusher and the helper share it and wait for each other, which
 * is no cost to the program.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "flusher_state.h"

enum { EFFORT_IDLE_PCT = 15, EFFORT_WAIT_PCT = 5 };
#define EFFORT_WINDOW_NS 100000000ull  /* 100 ms: /proc/stat counts in 10 ms ticks */
#define EFFORT_CALM_NS 300000000ull    /* 300 ms */
/* The first window is shorter, and judged by the program's own CPU time: a
 * program that fills every core from its start would otherwise have its first
 * 100 ms coded in full, at several times the fast coding's CPU
 * (bench/results/recorder.md, "The background at 7-8 ns": "The first window"). 30 ms is too short for
 * /proc/stat's 10 ms ticks (a CPU that our own full coding keeps 85 % busy
 * would read as not idle at all half the time), so the first verdict is "busy"
 * when the program's threads alone, not ours, took all the CPUs but half of
 * one (CLOCK_PROCESS_CPUTIME_ID less the flusher's and the helper's time, to
 * the ns). Load from other processes is seen from the next window on. */
#define EFFORT_FIRST_NS 30000000ull    /* 30 ms */

/* The idle time of all CPUs together, in ns: the first line of /proc/stat,
 * "cpu  user nice system idle iowait ...", in clock ticks. @return 0 or -1. */
static int idle_read(int fd, uint64_t *idle_ns)
{
    char buf[256];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    if (buf[0] != 'c' || buf[1] != 'p' || buf[2] != 'u' || buf[3] != ' ') return -1;
    char *p = buf + 4, *end;
    uint64_t f[5];
    for (int i = 0; i < 5; i++, p = end) {
        f[i] = strtoull(p, &end, 10);
        if (end == p) return -1;
    }
    static long hz;
    if (!hz) hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
    *idle_ns = (f[3] + f[4]) * (1000000000u / (uint64_t)hz);
    return 0;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The program's CPU time: the process's, less the background threads'
 * (own: the flusher's, on which this runs; helper: the helper's, 0 if none). */
static uint64_t program_cpu_ns(uint64_t own, uint64_t helper)
{
    uint64_t all = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    return all > own + helper ? all - own - helper : 0;
}

void ht_effort_start(void)
{
    ht_effort *e = &ht_fs.effort;
    long mode = ht_opt(HT_OPT_EFFORT);
    e->fast = mode == HT_EFFORT_FAST;
    e->stat_fd = -1;
    if (mode != HT_EFFORT_AUTO) return;
    e->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (e->stat_fd >= 0 && idle_read(e->stat_fd, &e->idle_ns) < 0) {
        close(e->stat_fd);
        e->stat_fd = -1;  /* then only "behind" decides */
    }
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    e->ncpu = n > 0 ? (unsigned)n : 1;
    e->prog_cpu_ns = program_cpu_ns(clock_ns(CLOCK_THREAD_CPUTIME_ID), 0);  /* no helper yet */
    e->started = e->window_start = ht_mono_ns();
}

int ht_effort_choose(uint64_t now, uint64_t waited_ns)
{
    ht_effort *e = &ht_fs.effort;
    if (ht_opt(HT_OPT_EFFORT) != HT_EFFORT_AUTO) return e->fast;
    uint64_t span = now - e->window_start;
    int first = e->window_start == e->started;
    if (span < (first ? EFFORT_FIRST_NS : EFFORT_WINDOW_NS)) return e->fast;
    uint64_t idle;
    int busy = 0;
    if (e->stat_fd >= 0 && idle_read(e->stat_fd, &idle) == 0) {
        busy = !first && (idle - e->idle_ns) * 100 < span * EFFORT_IDLE_PCT;
        e->idle_ns = idle;
    }
    if (first) {
        ht_background_cpu_read();
        uint64_t prog = program_cpu_ns(ht_fs.flusher_cpu_ns, ht_fs.helper_on ? ht_fs.helper_cpu_ns : 0);
        uint64_t used = prog > e->prog_cpu_ns ? prog - e->prog_cpu_ns : 0;
        busy = used * 2 >= span * (2 * (uint64_t)e->ncpu - 1);
    }
    int behind = e->window_start != e->started && (waited_ns - e->waited_ns) * 100 >= span * EFFORT_WAIT_PCT;
    e->waited_ns = waited_ns;
    e->window_start = now;
    if (busy || behind) {
        if (!e->fast) e->switches++;
        e->fast = 1;
        e->calm_since = now;
    } else if (e->fast && now - e->calm_since >= EFFORT_CALM_NS) {
        e->fast = 0;
        e->switches++;
    }
    return e->fast;
}

void ht_effort_stop(void)
{
    ht_effort *e = &ht_fs.effort;
    if (e->stat_fd >= 0) close(e->stat_fd);
    e->stat_fd = -1;
}
