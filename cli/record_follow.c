/* record_follow.c — hatrace record's figures counted while the command runs;
 * see record_follow.h.
 *
 * Every trace the report file names is followed, in turns: a wrapper (env,
 * a shell) writes a small trace of its own beside the program's, before it
 * or around it. Two threads share the follows, one at a time, handed over
 * under a lock: the follower (idle class) while the command runs, then the
 * command's waiter (record's main thread, normal priority) for the rest. The
 * follower hands the follows over at the next event it counts once told the
 * command ended; if it does not get the CPU to do so within a second (the
 * machine has no idle CPU, and a thread of the idle class may not raise
 * itself back), the waiter leaves it and the traces are read back as before:
 * the figures never wait on a starved thread. And while the command runs, if
 * the follower has not caught up for LAG_MS (a machine with no idle CPU
 * starves it), the waiter takes the follows over at once and counts them as
 * they grow, between looks at the command (record_follow_wait): the figures
 * are then ready about a second after the end however long the command ran,
 * their count paid at normal priority while it runs.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "lookahead.h"
#include "record_follow.h"
#include "record_left.h"

enum {
    POLL_MS = 50,          /* the follower's pause between reads of what was appended */
    FLOWING_MS = 5,        /* its pause while the traces grow: what is left to count at the end is
                            * the last chunk groups and at most this much of the program's time */
    STALL_MS = 1000,       /* a follower of the idle class that does not park this long after the end is left */
    QUIET_MS = 1000,       /* a trace that does not grow this long after the command ended: read back */
    MAX_FOLLOWED = 64,     /* traces followed at once; later ones are read back */
    LAG_MS = 1000,         /* a follower not caught up this long while the command runs is taken over */
};

typedef struct followed {
    char *path;
    hatf_source *s;        /* NULL: not opened yet, or the follow failed (the trace is read back) */
    stats *st;
    int opened;            /* tried with a header in place: a failure since is final */
    int waiter;            /* read by the waiter now: no pauses */
    uint64_t at_end;       /* events counted when the command ended */
    _Atomic int *pause;    /* the follower is asked to hand over: stop counting */
} followed;

struct record_follow {
    pthread_t thread;
    int idle;              /* the follower runs in the idle class (else at normal priority) */
    int running;           /* the follower thread is to be joined */
    pthread_mutex_t lock;
    pthread_cond_t parked_cv;
    char report[PATH_MAX];
    long report_pos;       /* how far the report file was read */
    followed t[MAX_FOLLOWED];
    size_t n;
    _Atomic int ended;     /* the command ended, or the waiter takes over: the follower pauses its count and parks */
    _Atomic uint64_t caught_up_at; /* when the follower last read every trace to its end (cli_now_ms) */
    uint64_t lag_ms;       /* LAG_MS, or HATRACE_RECORD_LAG_MS */
    int taken;             /* the follows are the waiter's */
    int taken_early;       /* and were taken while the command still ran */
    /* under lock */
    int parked;            /* the follower stopped; the follows are the waiter's */
    int left;              /* the waiter gave up: the follower frees the follows itself, and
                            * still uses f, which is never freed (set by the waiter only) */
};


static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void drop(followed *x)
{
    stats_free(x->st);
    hatf_source_close(x->s);
    x->st = NULL, x->s = NULL;
}

/* Open trace x for following. A file just created has no header yet: it is
 * tried again at the next look. */
static void open_trace(followed *x)
{
    hatf_err err = { 0 };
    x->s = hatf_source_open_follow(x->path, &err);
    if (!x->s) return;
    x->opened = 1;
    hatf_source_read_on(x->s, !cli_strict);
    if (!(x->st = stats_new(x->s))) drop(x);
    else stats_summary_only(x->st);  /* the closing figures only */
}

/* Follow a trace the report names (read back if it never opens). */
static void add_trace(record_follow *f, const char *path)
{
    if (f->n == MAX_FOLLOWED) return;
    followed *x = &f->t[f->n];
    if (!(x->path = strdup(path))) return;
    f->n++;
    x->pause = &f->ended;
    open_trace(x);
}

/* Traces named in the report since the last look ("S\tpath" lines, record.c). */
static void new_traces(record_follow *f)
{
    FILE *in = fopen(f->report, "r");
    if (!in) return;
    char line[PATH_MAX + 128];
    if (fseek(in, f->report_pos, SEEK_SET) == 0) {
        while (fgets(line, sizeof line, in)) {
            size_t len = strlen(line);
            if (!len || line[len - 1] != '\n') break;  /* a line still being written: next time */
            f->report_pos += (long)len;
            if (line[0] != 'S' || line[1] != '\t') continue;
            line[2 + strcspn(line + 2, "\t\n")] = 0;
            add_trace(f, line + 2);
        }
    }
    fclose(in);
}

/* stats' count; the follower's pauses as soon as the waiter asks */
static int count(void *ctx, const lookahead_item *x)
{
    followed *t = ctx;
    int rc = stats_count(t->st, x);
    return rc ? rc : atomic_load_explicit(t->pause, memory_order_relaxed) && !t->waiter;
}

static void prefetch(void *ctx, const hatf_event *ev) { stats_prefetch(((followed *)ctx)->st, ev); }

/* Take in and count what trace x has appended (all of it the first time,
 * even if it was whole when opened); a failure drops its follow.
 * @return 1 if the file grew, else 0. */
static int read_more(followed *x)
{
    if (!x->s && !x->opened) open_trace(x);
    if (!x->s) return 0;
    hatf_reader *r = hatf_source_container(x->s);
    int g = hatf_reader_following(r) ? hatf_reader_follow(r) : 0, count_rc = 0;
    int k = g < 0 ? 0 : lookahead_run(x->s, count, prefetch, x, &count_rc);
    if (g < 0 || (k != 0 && k != LOOKAHEAD_PAUSED)) {
        drop(x);
        return 0;
    }
    return g > 0;
}

static void *follower(void *arg)
{
    record_follow *f = arg;
    struct sched_param idle = { 0 };
    if (f->idle) pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);  /* best effort: only CPU nothing else wants */
    while (!atomic_load(&f->ended)) {
        new_traces(f);
        int grew = 0;
        for (size_t i = 0; i < f->n && !atomic_load(&f->ended); i++) grew |= read_more(&f->t[i]);
        if (atomic_load(&f->ended)) break;
        atomic_store(&f->caught_up_at, cli_now_ms());
        sleep_ms(grew ? FLOWING_MS : POLL_MS);
    }
    pthread_mutex_lock(&f->lock);
    f->parked = 1;
    int left = f->left;
    pthread_cond_signal(&f->parked_cv);
    pthread_mutex_unlock(&f->lock);
    if (left)  /* the waiter went on without us: nobody else holds these */
        for (size_t i = 0; i < f->n; i++) drop(&f->t[i]);
    return NULL;
}

record_follow *record_follow_start(const char *report_path)
{
    const char *how = getenv("HATRACE_RECORD_FOLLOWER");
    if (how && !strcmp(how, "off")) return NULL;
    record_follow *f = calloc(1, sizeof *f);
    if (!f || strlen(report_path) >= sizeof f->report) {
        free(f);
        return NULL;
    }
    snprintf(f->report, sizeof f->report, "%s", report_path);
    f->idle = !how || strcmp(how, "normal") != 0;
    const char *lag = getenv("HATRACE_RECORD_LAG_MS");
    f->lag_ms = lag && *lag ? strtoull(lag, NULL, 10) : LAG_MS;
    atomic_store(&f->caught_up_at, cli_now_ms());
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->parked_cv, NULL);
    if (pthread_create(&f->thread, NULL, follower, f) != 0) {
        pthread_mutex_destroy(&f->lock);
        pthread_cond_destroy(&f->parked_cv);
        free(f);
        return NULL;
    }
    f->running = 1;
    return f;
}

/* Ask the follower to park and wait for it; leave it if it does not get the
 * CPU to do so. @return 1 if parked. */
static int wait_parked(record_follow *f)
{
    atomic_store(&f->ended, 1);
    uint64_t since = cli_now_ms();
    pthread_mutex_lock(&f->lock);
    while (!f->parked && (!f->idle || cli_now_ms() - since < STALL_MS)) {  /* a normal thread is not starved */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 20 * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&f->parked_cv, &f->lock, &until);
    }
    int parked = f->parked;
    f->left = !parked;
    pthread_mutex_unlock(&f->lock);
    return parked;
}

static int still_following(const followed *x)
{
    return x->s ? hatf_reader_following(hatf_source_container(x->s)) : !x->opened;
}

/* Read the traces to their ends at the waiter's priority; keep a trace's
 * counts only if they are stats' figures of the finished file. */
static void finish_all(record_follow *f)
{
    uint64_t grew_at = cli_now_ms();
    for (;;) {
        int following = 0, grew = 0;
        for (size_t i = 0; i < f->n; i++)  /* a trace found whole is read too */
            grew |= read_more(&f->t[i]), following |= still_following(&f->t[i]);
        if (!following) break;
        if (grew) grew_at = cli_now_ms();
        else if (cli_now_ms() - grew_at >= QUIET_MS) break;  /* not closed (killed): read back */
        else sleep_ms(10);
    }
    for (size_t i = 0; i < f->n; i++) {
        followed *x = &f->t[i];
        if (!x->s) continue;
        hatf_reader *r = hatf_source_container(x->s);
        const char *const *lines;
        /* not closed; a thread that came late was counted out of order; damage is said by the read back */
        if (hatf_reader_following(r) || hatf_reader_follow_late(r) || hatf_reader_damage(r, &lines)) drop(x);
        else stats_end(x->st);
    }
}

/* a follower left running still uses its f to the process's end: held here,
 * so that it is kept, not leaked (LeakSanitizer; volatile: a store never read
 * is otherwise dropped by the compiler) */
static record_follow *volatile left_behind;

/* The traces named since the last look, read by the waiter from now on. */
static void waiter_traces(record_follow *f)
{
    new_traces(f);
    for (size_t i = 0; i < f->n; i++) f->t[i].waiter = 1;
}

/* The follower has parked: the follows are the waiter's. */
static void take_parked(record_follow *f)
{
    pthread_join(f->thread, NULL);
    f->running = 0;
    f->taken = 1;
    waiter_traces(f);
}

static int parked_now(record_follow *f)
{
    pthread_mutex_lock(&f->lock);
    int parked = f->parked;
    pthread_mutex_unlock(&f->lock);
    return parked;
}

int record_follow_finish(record_follow *f)
{
    if (!f || (!f->running && !f->taken)) return -1;
    if (f->running) {
        f->running = 0;
        if (!wait_parked(f)) {
            pthread_detach(f->thread);
            left_behind = f;
            return -1;
        }
        take_parked(f);
    }
    waiter_traces(f);  /* named since the last look */
    for (size_t i = 0; i < f->n; i++) f->t[i].at_end = f->t[i].st ? stats_records(f->t[i].st) : 0;
    finish_all(f);
    return 0;
}

pid_t record_follow_wait(record_follow *f, pid_t pid, int *status)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    int fd = -1;
#endif
    if (fd < 0) return waitpid(pid, status, 0);  /* no pidfd: the follower keeps it; orphans wait for the end */
    pid_t r;
    while ((r = waitpid(pid, status, WNOHANG)) == 0) {
        int grew = 0, pause = POLL_MS;
        if (f && f->running) {
            /* behind: asked to park, which a starved follower does when it next gets the CPU */
            if (!atomic_load(&f->ended) && cli_now_ms() - atomic_load(&f->caught_up_at) > f->lag_ms)
                atomic_store(&f->ended, 1);
            if (atomic_load(&f->ended) && parked_now(f)) take_parked(f), f->taken_early = 1;
            if (f->taken) {
                waiter_traces(f);
                for (size_t i = 0; i < f->n; i++) grew |= read_more(&f->t[i]);
            }
            /* counting: as the follower does; else looking for a lag shorter than a poll */
            pause = f->taken ? FLOWING_MS : f->lag_ms < POLL_MS ? (int)f->lag_ms + 1 : POLL_MS;
        }
        record_left_reap(pid);  /* the command's orphans that ended: not zombies until record ends */
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (!grew) poll(&p, 1, pause);
    }
    close(fd);
    return r != 0 ? r : waitpid(pid, status, 0);
}

stats *record_follow_take(record_follow *f, const char *path, hatf_source **s, uint64_t *at_end)
{
    if (!f || f->running || f->left) return NULL;
    for (size_t i = 0; i < f->n; i++) {
        followed *x = &f->t[i];
        if (!x->st || strcmp(x->path, path) != 0) continue;
        stats *st = x->st;
        *s = x->s;
        *at_end = x->at_end;
        x->st = NULL, x->s = NULL;
        return st;
    }
    return NULL;
}

int record_follow_taken(const record_follow *f) { return f && f->taken_early; }

void record_follow_free(record_follow *f)
{
    if (!f) return;
    if (f->running) record_follow_finish(f);
    if (f->left) return;  /* left running (starved): it frees the follows; f stays for it */
    for (size_t i = 0; i < f->n; i++) {
        drop(&f->t[i]);
        free(f->t[i].path);
    }
    pthread_mutex_destroy(&f->lock);
    pthread_cond_destroy(&f->parked_cv);
    free(f);
}
