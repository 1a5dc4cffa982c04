/* tune_run.c — the settings replay --tune runs and their runs, shared by
 * hatrace replay --tune and hatrace report --tune (replay_tune.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "replay_tune.h"

static int add_setting(cli_tune *t, const rp_tune_setting *s)
{
    rp_tune_setting *b = realloc(t->set, (t->n + 1) * sizeof *b);
    if (!b) return -1;
    t->set = b;
    b[t->n++] = *s;
    return 0;
}

static int in_list(const char *const *names, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

/* The allocators to tune: those of list, or the four that are installed. */
static int tune_allocators(const char *cmd, const char *list, const char **names, unsigned *n)
{
    *n = 0;
    if (!list) {
        for (unsigned i = 0; i < 4; i++)
            if (rp_allocator_installed(rp_known_allocators[i])) names[(*n)++] = rp_known_allocators[i];
        return 0;
    }
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        unsigned k = 4;
        for (unsigned i = 0; i < 4; i++)
            if (strlen(rp_known_allocators[i]) == len && strncmp(p, rp_known_allocators[i], len) == 0) k = i;
        if (k == 4)
            return cli_usage(cmd, "--allocator: '%.*s': --tune knows the settings of glibc, jemalloc, tcmalloc and "
                             "mimalloc only", (int)len, p);
        if (!in_list(names, *n, rp_known_allocators[k])) names[(*n)++] = rp_known_allocators[k];
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Settings from the lines of a file: one per line, '#' starts a comment. */
static int read_file(const char *cmd, const char *file, rp_tune_setting **out, unsigned *n)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        cli_error("%s: %s: cannot read: %s", cmd, file, strerror(errno));
        return CLI_FAIL;
    }
    char line[4096];
    unsigned lineno = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "#\r\n")] = 0;
        char *p = line + strspn(line, " \t");
        size_t len = strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) p[--len] = 0;
        if (!len) continue;
        rp_tune_setting s;
        hatf_err e = { 0 };
        rp_tune_setting *b = realloc(*out, (*n + 1) * sizeof *b);
        if (!b) rc = CLI_FAIL;
        else if (rp_tune_parse(p, &s, &e)) {
            cli_error("%s: %s: line %u: %s", cmd, file, lineno, e.msg);
            rc = CLI_FAIL;
        } else {
            *out = b;
            b[(*n)++] = s;
        }
    }
    if (!rc && ferror(f)) {
        cli_error("%s: %s: cannot read: %s", cmd, file, strerror(errno));
        rc = CLI_FAIL;
    }
    fclose(f);
    return rc;
}

int cli_tune_settings(const char *cmd, const char *list, char **specs, unsigned nspecs, const char *file,
                      int builtin, cli_tune *t)
{
    const char *names[4];
    unsigned nn, ngiven = 0;
    int rc;
    if ((rc = tune_allocators(cmd, list, names, &nn))) return rc;
    rp_tune_setting *given = NULL;
    for (unsigned i = 0; i < nspecs; i++) {
        hatf_err e = { 0 };
        rp_tune_setting *b = realloc(given, (ngiven + 1) * sizeof *b);
        if (!b) { free(given); return CLI_FAIL; }
        given = b;
        if (rp_tune_parse(specs[i], &given[ngiven], &e)) {
            free(given);
            return cli_usage(cmd, "--setting: %s", e.msg);
        }
        ngiven++;
    }
    if (file && (rc = read_file(cmd, file, &given, &ngiven))) {
        free(given);
        return rc;
    }
    for (unsigned i = 0; i < ngiven; i++) {
        if (in_list(names, nn, given[i].alloc)) continue;
        if (list) {
            rc = cli_usage(cmd, "setting %s:%s: %s is not among --allocator %s", given[i].alloc, given[i].label,
                           given[i].alloc, list);
            free(given);
            return rc;
        }
        for (unsigned k = 0; k < 4; k++)
            if (strcmp(rp_known_allocators[k], given[i].alloc) == 0) names[nn++] = rp_known_allocators[k];
    }
    rc = 0;
    for (unsigned a = 0; !rc && a < nn; a++) {
        unsigned first = t->n;
        if (rp_tune_grid(names[a], &t->set, &t->n)) rc = CLI_FAIL;
        if (!builtin) t->n = first + 1;  /* the defaults, to compare with */
        for (unsigned i = 0; !rc && i < ngiven; i++)
            if (strcmp(given[i].alloc, names[a]) == 0 && add_setting(t, &given[i])) rc = CLI_FAIL;
    }
    free(given);
    t->alloc = rc ? NULL : calloc(t->n, sizeof *t->alloc);
    t->paths = rc ? NULL : calloc(t->n, sizeof *t->paths);
    if (!rc && (!t->alloc || !t->paths)) rc = CLI_FAIL;
    for (unsigned i = 0; !rc && i < t->n; i++) {
        hatf_err e = { 0 };
        if (rp_allocator_resolve(t->set[i].alloc, &t->alloc[i], &e)) {
            cli_error("%s: %s", cmd, e.msg);
            rc = CLI_FAIL;
        }
        t->paths[i] = t->alloc[i].path;
    }
    if (!rc && !t->n) {
        cli_error("%s: no allocator to tune", cmd);
        rc = CLI_FAIL;
    }
    return rc;
}

/* The variables the settings set, taken out of this process's environment
 * (the children inherit it): the defaults are then the allocator's own. */
static void clear_tuning_env(const char *cmd)
{
    extern char **environ;
    char names[64][128];
    unsigned n = 0;
    for (char **e = environ; e && *e && n < 64; e++) {
        size_t len = strcspn(*e, "=");
        for (const char *const *v = rp_tune_env_names; *v && len < sizeof names[0]; v++) {
            size_t vl = strlen(*v);
            int prefix = (*v)[vl - 1] == '_';
            if (prefix ? strncmp(*e, *v, vl) == 0 : (len == vl && strncmp(*e, *v, vl) == 0)) {
                snprintf(names[n++], sizeof names[0], "%.*s", (int)len, *e);
                break;
            }
        }
    }
    for (unsigned i = 0; i < n; i++) {
        cli_error("%s: %s is unset for the runs: each setting gives its own variables", cmd, names[i]);
        unsetenv(names[i]);
    }
}

int cli_tune_run(const char *cmd, cli_replay *x, cli_tune *t, rp_run_opts run, unsigned repeat)
{
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    rp_result *runs = calloc(repeat, sizeof *runs);
    t->rows = calloc(t->n, sizeof *t->rows);
    if (sl <= 0 || !x->have_plan || !runs || !t->rows) {
        free(runs);
        cli_error("%s: cannot set up the child processes", cmd);
        return CLI_FAIL;
    }
    self[sl] = 0;
    clear_tuning_env(cmd);
    for (unsigned i = 0; i < t->n; i++) {
        rp_tune_row *row = &t->rows[i];
        const rp_tune_setting *s = &t->set[i];
        row->s = s;
        rp_launch l = { .self = self, .plan_fd = x->plan_fd, .run = run, .env = s->env, .nenv = s->nenv };
        unsigned k;
        for (k = 0; k < repeat; k++) {
            char label[320];
            snprintf(label, sizeof label, "tune %s %s %u/%u", s->alloc, s->label, k + 1, repeat);
            l.run.progress = label;
            hatf_err e = { 0 };
            if (rp_launch_run(&l, &t->alloc[i], &runs[k], &e)) {
                /* said in the table; the search goes on with the next setting */
                row->failed = 1;
                snprintf(row->msg, sizeof row->msg, "run %u of %u: %s", k + 1, repeat, e.msg);
                cli_error("%s: setting %s %s: %s", cmd, s->alloc, s->label, row->msg);
                break;
            }
        }
        if (!row->failed) rp_tune_summarize(runs, repeat, row);
    }
    free(runs);
    rp_tune_front(t->rows, t->n);
    return 0;
}

rp_tune_ctx cli_tune_ctx(const cli_replay *x, const cli_tune *t, const char *path, int touch, unsigned repeat,
                         rp_tune_objective obj)
{
    return (rp_tune_ctx){ .trace = path, .repeat = repeat, .objective = obj, .program_rss = x->program_rss,
                          .peak_live_bytes = x->plan.st.peak_live_bytes, .touch = rp_touch_names[touch],
                          .threads = x->plan.single ? "1" : "trace", .paths = t->paths };
}

void cli_tune_free(cli_tune *t)
{
    free(t->set);
    free(t->alloc);
    free(t->paths);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int cli_tune_page_json(const char *cmd, const char *path, hatf_format fmt, cli_replay *x, cli_tune *t, hatf_buf *out)
{
    int partial;
    if (!x->have_plan && cli_replay_compile(cmd, path, fmt, 0, 0, x, &partial)) return CLI_FAIL;
    if (cli_tune_run(cmd, x, t, (rp_run_opts){ .touch = RP_TOUCH_PAGE, .latency_every = 64 }, RP_TUNE_REPEAT))
        return CLI_FAIL;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return -1;
    rp_tune_ctx ctx = cli_tune_ctx(x, t, path, RP_TOUCH_PAGE, RP_TUNE_REPEAT, RP_OBJ_RSS);
    rp_tune_print_json(m, &ctx, t->rows, t->n, rp_tune_best(t->rows, t->n, RP_OBJ_RSS));
    if (fclose(m)) {
        free(text);
        return -1;
    }
    hatf_buf_append(out, text, len);
    free(text);
    return out->failed ? -1 : 0;
}
