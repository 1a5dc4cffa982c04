/* replay_run.c — the replay of a trace against allocators, shared by hatrace
 * replay and hatrace report --replay (replay_run.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "replay_run.h"

int cli_replay_allocators(const char *cmd, const char *opt, const char *list, cli_replay *x)
{
    unsigned cap = 8, cnt = 0;
    rp_allocator *a = malloc(cap * sizeof *a);
    if (!a) return CLI_FAIL;
    if (!list) {
        for (unsigned i = 0; i < 4; i++) {
            if (!rp_allocator_installed(rp_known_allocators[i])) continue;
            hatf_err e = { 0 };
            if (rp_allocator_resolve(rp_known_allocators[i], &a[cnt], &e) == 0) cnt++;
        }
    } else {
        const char *p = list;
        while (*p) {
            size_t len = strcspn(p, ",");
            char name[4096];
            if (len == 0 || len >= sizeof name) {
                free(a);
                return cli_usage(cmd, "%s: empty or too long name in '%s'", opt, list);
            }
            memcpy(name, p, len);
            name[len] = 0;
            if (cnt == cap) {
                rp_allocator *b = realloc(a, 2 * cap * sizeof *a);
                if (!b) { free(a); return CLI_FAIL; }
                a = b;
                cap *= 2;
            }
            hatf_err e = { 0 };
            if (rp_allocator_resolve(name, &a[cnt], &e)) {
                cli_error("%s: %s", cmd, e.msg);
                free(a);
                return CLI_FAIL;
            }
            cnt++;
            p += len + (p[len] == ',');
        }
    }
    if (!cnt) {
        free(a);
        cli_error("%s: no allocator to run (install libjemalloc2, libtcmalloc-minimal4 or libmimalloc2.0, "
                  "or name one with --allocator)", cmd);
        return CLI_FAIL;
    }
    x->allocs = a;
    x->nalloc = cnt;
    return 0;
}

static double cpu_s(const struct rusage *u)
{
    return (double)(u->ru_utime.tv_sec + u->ru_stime.tv_sec) +
           (double)(u->ru_utime.tv_usec + u->ru_stime.tv_usec) / 1e6;
}

/* One compile of the trace into x->plan (cli_replay_compile). */
static int compile_once(const char *cmd, const char *path, hatf_format fmt, int single, int say_damage,
                        cli_replay *x, int *partial)
{
    *partial = CLI_OK;
    hatf_err err = { 0 };
    hatf_source *src = cli_open_source(path, fmt);
    if (!src) return CLI_FAIL;
    /* a container says its length up front: the plan in memory when it fits */
    hatf_reader *known = hatf_source_container(src);
    uint64_t events = known ? hatf_reader_event_count(known) : 0;
    x->plan_fd = rp_plan_tmpfile(NULL, events * RP_PLAN_BYTES_PER_EVENT, &x->plan_where, &err);
    if (x->plan_fd < 0) {
        hatf_source_close(src);
        cli_error("%s: %s", cmd, err.msg);
        return CLI_FAIL;
    }
    struct timespec t0, t1;
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rp_compile_opts co = { .single = single, .plan_fd = x->plan_fd, .window_ops = x->window_ops,
                           .phases = x->phases, .size_max = rp_mem_total() };
    int rc = rp_compile_source(src, &co, &x->plan, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    getrusage(RUSAGE_SELF, &u1);
    x->compile_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    x->compile_cpu_s = cpu_s(&u1) - cpu_s(&u0);
    /* the damage said either way; a plan of what could be read is partial */
    if (say_damage) {
        *partial = cli_read_end(path, src, rc ? CLI_FAIL : CLI_OK);
    } else {
        hatf_reader *r = hatf_source_container(src);
        const char *const *lines;
        if (!rc && r && (hatf_reader_damage(r, &lines) || !hatf_reader_complete(r))) *partial = CLI_PARTIAL;
    }
    /* the recorded program's resident memory at its peak, when sampled, the recorder's own memory taken out */
    x->program_rss = 0;
    hatf_reader *rd = hatf_source_tables(src);
    const hatf_resident *res;
    for (size_t i = 0, n = rd ? hatf_reader_resident(rd, &res) : 0; i < n; i++)
        if (res[i].bytes - res[i].own > x->program_rss) x->program_rss = res[i].bytes - res[i].own;
    hatf_source_close(src);
    if (rc) {
        cli_error_at(path, &err);
        return CLI_FAIL;
    }
    x->have_plan = 1;
    return 0;
}

/* The plan's peak against the memory available: the peak live bytes, of which
 * page touching writes its share (touch.c). @return 0, or CLI_FAIL (said). */
static int check_peak(const char *path, const cli_replay *x)
{
    const rp_plan_stats *st = &x->plan.st;
    uint64_t avail = rp_mem_available(), share = st->touch_share ? st->touch_share : RP_TOUCH_FULL;
    uint64_t need = st->peak_live_bytes / RP_TOUCH_FULL * share + st->peak_live_bytes % RP_TOUCH_FULL * share / RP_TOUCH_FULL;
    if (!avail || need <= avail) return 0;
    hatf_err err = { 0 };
    hatf_err_set(&err, HATF_E_LIMIT, st->peak_offset,
                 "record %llu: live bytes reach %llu here%s, more than the memory available (%llu bytes: "
                 "MemAvailable, or the room the cgroup leaves): not replayed (docs/replay.md, \"Limits\")",
                 (unsigned long long)st->peak_record, (unsigned long long)st->peak_live_bytes,
                 share < RP_TOUCH_FULL ? ", of which the share touched" : "", (unsigned long long)avail);
    err.record = st->peak_record;
    cli_error_at(path, &err);
    return CLI_FAIL;
}

int cli_replay_compile(const char *cmd, const char *path, hatf_format fmt, int single, int say_damage,
                       cli_replay *x, int *partial)
{
    x->trace_threads = x->at_once = 0;
    if (compile_once(cmd, path, fmt, single, say_damage, x, partial)) return CLI_FAIL;
    if (!single) {
        for (uint32_t t = 0; t < x->plan.nthreads; t++) x->trace_threads += x->plan.threads[t].nops != 0;
        x->at_once = rp_plan_at_once(&x->plan);
    }
    if (x->at_once > RP_RUNNERS_MAX) {
        /* a runner thread for each thread alive at once would be too many: the
           whole trace on one, in its global order (its damage said already) */
        cli_error("%s: %s: %u of the trace's threads are alive at once, more than the %u runner threads replay "
                  "runs at once: replayed on one runner thread, in the trace's global order (as --threads 1)",
                  cmd, path, x->at_once, RP_RUNNERS_MAX);
        rp_plan_free(&x->plan);
        x->have_plan = 0;
        close(x->plan_fd);
        x->plan_fd = -1;
        int again;
        if (compile_once(cmd, path, fmt, 1, 0, x, &again)) return CLI_FAIL;
    }
    return check_peak(path, x);
}

int cli_replay_run(const char *cmd, cli_replay *x, rp_run_opts run, unsigned repeat)
{
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    rp_result *runs = calloc(repeat, sizeof *runs);
    x->rep = calloc(x->nalloc, sizeof *x->rep);
    int rc = CLI_FAIL;
    if (sl <= 0 || !x->have_plan || !runs || !x->rep) {
        cli_error("%s: cannot set up the child processes", cmd);
        goto out;
    }
    self[sl] = 0;
    rp_launch l = { .self = self, .plan_fd = x->plan_fd, .run = run };
    for (unsigned i = 0; i < x->nalloc; i++) {
        for (unsigned k = 0; k < repeat; k++) {
            char label[128];
            snprintf(label, sizeof label, "replay %s %u/%u", x->allocs[i].name, k + 1, repeat);
            l.run.progress = label;
            hatf_err e = { 0 };
            if (rp_launch_run(&l, &x->allocs[i], &runs[k], &e)) {
                cli_error("%s: %s", cmd, e.msg);
                goto out;
            }
        }
        x->rep[i].allocator = x->allocs[i].name;
        rp_figures_median(runs, repeat, &x->rep[i].r);
    }
    rc = CLI_OK;
out:
    free(runs);
    return rc;
}

rp_report_ctx cli_replay_ctx(const cli_replay *x, const char *path, int touch, unsigned repeat, unsigned every)
{
    struct rusage ru;
    uint64_t own = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
    uint64_t ops = 0;
    for (uint32_t t = 0; t < x->plan.nthreads; t++) ops += x->plan.threads[t].nops;
    return (rp_report_ctx){ .trace = path, .threads = x->plan.single ? "1" : "trace",
                            .touch = rp_touch_names[touch], .repeat = repeat, .latency_every = every,
                            .st = &x->plan.st, .nthreads = x->plan.nthreads, .program_rss = x->program_rss,
                            .runner_threads = x->plan.single ? 1 : x->at_once ? x->at_once : 1,
                            .trace_threads = x->trace_threads, .at_once = x->at_once,
                            .compile_s = x->compile_s, .compile_cpu_s = x->compile_cpu_s,
                            .cpu_read_s = x->plan.cpu_read_s, .cpu_compile_s = x->plan.cpu_compile_s,
                            .window_ops = x->plan.window_ops,
                            .plan_bytes = ops * sizeof(rp_op), .plan_segments = x->plan.nsegs, .plan_where = x->plan_where,
                            .own_peak_rss = own, .nphases = x->plan.nphases, .phases = x->plan.phases };
}

void cli_replay_free(cli_replay *x)
{
    free(x->rep);
    free(x->allocs);
    if (x->have_plan) rp_plan_free(&x->plan);
    if (x->plan_fd > 0) close(x->plan_fd);
    memset(x, 0, sizeof *x);
}
