/* stats_many.c — hatrace stats of several traces at once (the processes of one
 * recording, say): one row per process, its main figures counted as stats
 * counts them (stats_summarize), and the totals. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "stats_many.h"
#include "stats_read.h"

#define U(x) ((unsigned long long)(x))

typedef struct row {
    char *path;
    char program[64];
    int container;             /* pid, ppid, start and complete are known */
    unsigned pid, ppid;
    uint64_t start;            /* start time, ns since the epoch */
    int complete;
    stats_summary sum;
} row;

typedef struct rows { row *v; size_t n, cap; } rows;

static int add_path(rows *t, const char *path)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        row *v = realloc(t->v, cap * sizeof *v);
        if (!v) return -1;
        t->v = v, t->cap = cap;
    }
    memset(&t->v[t->n], 0, sizeof t->v[0]);
    return (t->v[t->n++].path = strdup(path)) ? 0 : -1;
}

/* A trace's name in a folder: NAME.hatf (every process of a recording: the
 * recorder puts the program and pid before the extension), or NAME.hatf.N (an
 * older recorder's name for the trace of a program a process exec'd). */
static int is_trace_name(const char *name)
{
    const char *h = strstr(name, ".hatf");
    while (h && strstr(h + 1, ".hatf")) h = strstr(h + 1, ".hatf");
    if (!h || h == name) return 0;
    h += 5;
    if (!*h) return 1;
    if (*h++ != '.' || !*h) return 0;
    return strspn(h, "0123456789") == strlen(h);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The folder's traces, by name. @return 0, or CLI_FAIL after saying why. */
static int add_folder(rows *t, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("%s: cannot open: %s", dir, strerror(errno));
        return CLI_FAIL;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (!is_trace_name(e->d_name)) continue;
        if (n == cap) {
            char **v = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!v) { rc = -1; break; }
            names = v;
        }
        if (!(names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) { rc = -1; break; }
        sprintf(names[n++], "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    size_t before = t->n;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!rc && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) rc = add_path(t, names[i]);
        free(names[i]);
    }
    free(names);
    if (rc) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    if (t->n == before) {
        cli_error("%s: no traces (*.hatf) in this folder", dir);
        return CLI_FAIL;
    }
    return 0;
}

/* Count one trace into r (known: its figures, counted already; only its
 * header is read). @return a CLI_* code (said). */
static int count_one(row *r, hatf_format fmt, const stats_summary *known)
{
    hatf_source *s = cli_open_source(r->path, fmt);
    if (!s) return CLI_FAIL;
    int rc = known ? (r->sum = *known, CLI_OK) : stats_summarize(s, r->path, &r->sum);
    hatf_reader *rd = hatf_source_container(s);
    if (rd) {
        const hatf_info *in = hatf_reader_info(rd);
        r->container = 1;
        r->pid = in->pid;
        r->ppid = in->ppid;
        r->start = in->start_realtime_ns;
        r->complete = hatf_reader_complete(rd);
        size_t len = strcspn(in->cmdline, " ");
        const char *p = in->cmdline, *slash = memrchr(p, '/', len);
        if (slash) len -= (size_t)(slash + 1 - p), p = slash + 1;
        snprintf(r->program, sizeof r->program, "%.*s", (int)len, p);
    }
    if (!r->program[0]) snprintf(r->program, sizeof r->program, "-");
    rc = cli_read_end(r->path, s, rc);
    hatf_source_close(s);
    return rc;
}

/* processes in the order they started (a parent before its children), then by pid */
static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return strcmp(x->path, y->path);
}

static void put_ids(hatf_buf *o, const row *r)
{
    if (r->container) cli_put(o, " %8u %8u", r->pid, r->ppid);
    else cli_put(o, " %8s %8s", "-", "-");
}

static void print_text(hatf_buf *o, const row *v, size_t n, const stats_summary *tot)
{
    cli_put(o, "%-20s %8s %8s %14s %16s %16s %12s  %s\n", "program", "pid", "ppid", "events", "max_live_bytes",
            "leaked_bytes", "temporary", "file");
    for (size_t i = 0; i < n; i++) {
        const row *r = &v[i];
        cli_put(o, "%-20.20s", r->program);
        put_ids(o, r);
        /* a process that died of a signal: what was live then is in leaked_bytes, but no leak */
        char died[40] = "";
        if (r->sum.died) snprintf(died, sizeof died, " (died of %s)", r->sum.death.name);
        cli_put(o, " %14llu %16llu %16llu %12llu  %s%s%s\n", U(r->sum.records), U(r->sum.max_live_bytes),
                U(r->sum.live_bytes), U(r->sum.temporary), r->path, r->container && !r->complete ? " (not closed)" : "",
                died);
    }
    cli_put(o, "%-20s %8s %8s %14llu %16llu %16llu %12llu  %zu traces (max_live_bytes: the sum of each "
               "process's own peak)\n", "total", "", "", U(tot->records), U(tot->max_live_bytes),
            U(tot->live_bytes), U(tot->temporary), n);
}

static void put_summary(hatf_buf *o, const stats_summary *s)
{
    cli_put(o, "\"events\": %llu, \"allocs\": %llu, \"frees\": %llu, \"reallocs\": %llu, \"max_live_bytes\": %llu, "
               "\"max_live_objects\": %llu, \"leaked_bytes\": %llu, \"leaked_objects\": %llu, \"temporary\": %llu",
            U(s->records), U(s->allocs), U(s->frees), U(s->reallocs), U(s->max_live_bytes), U(s->max_live_objects),
            U(s->live_bytes), U(s->live_objects), U(s->temporary));
    if (s->died) cli_put(o, ", \"died\": {\"signal\": %d, \"name\": \"%s\"}", s->death.sig, s->death.name);
}

static void print_json(hatf_buf *o, const row *v, size_t n, const stats_summary *tot)
{
    cli_put(o, "{\"traces\": [");
    for (size_t i = 0; i < n; i++) {
        const row *r = &v[i];
        cli_put(o, "%s\n  {\"file\": ", i ? "," : "");
        cli_json_string(o, r->path);
        cli_put(o, ", \"program\": ");
        cli_json_string(o, r->program);
        if (r->container)
            cli_put(o, ", \"pid\": %u, \"ppid\": %u, \"complete\": %s", r->pid, r->ppid, r->complete ? "true" : "false");
        cli_put(o, ", ");
        put_summary(o, &r->sum);
        cli_put(o, "}");
    }
    cli_put(o, "\n],\n\"total\": {\"traces\": %zu, ", n);
    put_summary(o, tot);
    cli_put(o, "}}\n");
}

int stats_many(int n, char **args, hatf_format fmt, int json) { return stats_many_to(stdout, n, args, fmt, json); }

int stats_many_to(FILE *out, int n, char **args, hatf_format fmt, int json)
{
    return stats_many_known(out, n, args, fmt, json, NULL);
}

int stats_many_known(FILE *out, int n, char **args, hatf_format fmt, int json, const stats_summary *const *known)
{
    rows t = { 0 };
    int rc = CLI_OK;
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        struct stat st;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = add_folder(&t, args[i]);
        } else if (!strcmp(args[i], "-") || (stat(args[i], &st) == 0 && !S_ISREG(st.st_mode))) {
            rc = cli_usage("stats", "%s: several traces are read from files or folders, not pipes", args[i]);
        } else if (add_path(&t, args[i])) {
            cli_error("out of memory");
            rc = CLI_FAIL;
        }
    }
    int listed = rc == CLI_OK;  /* else nothing is read */
    stats_summary tot = { 0 };
    size_t kept = 0;
    for (size_t i = 0; i < t.n && listed; i++) {
        int one = count_one(&t.v[i], fmt, known ? known[i] : NULL);
        if (one == CLI_FAIL) {  /* said; the others are still shown */
            free(t.v[i].path);
            rc = CLI_FAIL;
            continue;
        }
        if (one == CLI_PARTIAL && rc == CLI_OK) rc = CLI_PARTIAL;
        const stats_summary *s = &t.v[i].sum;
        tot.records += s->records, tot.allocs += s->allocs, tot.frees += s->frees, tot.reallocs += s->reallocs;
        tot.max_live_bytes += s->max_live_bytes, tot.max_live_objects += s->max_live_objects;
        tot.live_bytes += s->live_bytes, tot.live_objects += s->live_objects, tot.temporary += s->temporary;
        t.v[kept++] = t.v[i];
    }
    if (kept) {
        qsort(t.v, kept, sizeof *t.v, cmp_row);
        hatf_buf o;
        hatf_buf_init(&o);
        if (json) print_json(&o, t.v, kept, &tot);
        else print_text(&o, t.v, kept, &tot);
        if (o.failed) {
            cli_error("out of memory");
            rc = CLI_FAIL;
        } else {
            fwrite(o.p, 1, o.len, out);
        }
        hatf_buf_free(&o);
    }
    for (size_t i = 0; i < (listed ? kept : t.n); i++) free(t.v[i].path);
    free(t.v);
    return out == stdout ? cli_finish_stdout(rc) : rc;
}
