/* suppress.c — leak suppressions; see suppress.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "suppress.h"

#define U(x) ((unsigned long long)(x))

/* '*' matches any text (none included); everything else itself. */
static int glob(const char *p, const char *t)
{
    for (; *p; p++, t++) {
        if (*p == '*') {
            while (p[1] == '*') p++;
            if (!p[1]) return 1;
            for (; *t; t++)
                if (glob(p + 1, t)) return 1;
            return 0;
        }
        if (*t != *p) return 0;
    }
    return !*t;
}

int suppress_match_text(const char *pattern, const char *text)
{
    if (!text || !*text) return 0;
    /* a substring unless anchored: "^a" is "a*", "b$" is "*b", "x" is "*x*" */
    size_t n = strlen(pattern);
    char buf[1024];
    int start = pattern[0] == '^', end = n > (size_t)start && pattern[n - 1] == '$';
    int k = snprintf(buf, sizeof buf, "%s%.*s%s", start ? "" : "*", (int)(n - (size_t)start - (size_t)end),
                     pattern + start, end ? "" : "*");
    return k > 0 && (size_t)k < sizeof buf && glob(buf, text);
}

static suppression *add(suppressions *s)
{
    suppression *v = realloc(s->v, (s->n + 1) * sizeof *v);
    if (!v) return NULL;
    s->v = v;
    memset(&v[s->n], 0, sizeof *v);
    return &v[s->n++];
}

int suppress_load(suppressions *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error("%s: cannot open the suppressions: %m", path);
        return CLI_FAIL;
    }
    char line[1024];
    int rc = 0;
    for (unsigned no = 1; !rc && fgets(line, sizeof line, f); no++) {
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            cli_error("%s: line %u: longer than %zu bytes", path, no, sizeof line - 2);
            rc = CLI_FAIL;
            break;
        }
        char *b = line, *e = line + n;
        while (*b == ' ' || *b == '\t') b++;
        while (e > b && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) e--;
        *e = 0;
        if (!*b || *b == '#') continue;
        if (strncmp(b, "leak:", 5) || !b[5]) {
            cli_error("%s: line %u: '%s' is not a suppression (leak:PATTERN, or # for a comment)", path, no, b);
            rc = CLI_FAIL;
            break;
        }
        suppression *x = add(s);
        if (!x || !(x->pattern = strdup(b + 5))) {
            cli_error("out of memory");
            rc = CLI_FAIL;
            break;
        }
        snprintf(x->origin, sizeof x->origin, "%s:%u", path, no);
    }
    if (!rc && ferror(f)) {
        cli_error("%s: cannot read the suppressions: %m", path);
        rc = CLI_FAIL;
    }
    fclose(f);
    s->user = 1;
    return rc;
}

int suppress_builtin(suppressions *s)
{
    suppression *x = add(s);
    if (!x || !(x->pattern = strdup("^_dl_init$"))) return -1;
    x->innermost = "^libstdc++.so";
    x->what = "libstdc++'s allocations while it is loaded (its emergency exception pool: 72,704 bytes with GCC 12)";
    snprintf(x->origin, sizeof x->origin, "built-in");
    return 0;
}

void suppress_free(suppressions *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i].pattern);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Whether pattern matches the frame at addr: its function (as shown, and as
 * stored), its module's file name, or its source file. */
static int frame_matches(const char *pattern, frames *fr, uint64_t addr, int module_only)
{
    uint64_t off, vaddr;
    const char *mod = frames_module(fr, addr, &vaddr);
    if (suppress_match_text(pattern, mod)) return 1;
    if (module_only) return 0;
    const char *fn = frames_function(fr, addr, &off);
    const hatf_symbol *sy = fr->r ? hatf_reader_symbol(fr->r, addr) : NULL;
    if (suppress_match_text(pattern, fn) || (sy && suppress_match_text(pattern, sy->name))) return 1;
    const char *file;
    int line;
    return !frames_line(fr, addr, &file, &line) && suppress_match_text(pattern, file);
}

suppression *suppress_find(suppressions *s, frames *fr, const uint64_t *f, size_t n)
{
    for (size_t i = 0; i < s->n; i++) {
        suppression *x = &s->v[i];
        if (x->innermost && (!n || !frame_matches(x->innermost, fr, f[0], 1))) continue;
        for (size_t k = 0; k < n; k++)
            if (frame_matches(x->pattern, fr, f[k], 0)) return x;
    }
    return NULL;
}

int suppress_said(const suppressions *s)
{
    int any = s->user;
    for (size_t i = 0; i < s->n; i++) any |= s->v[i].objects != 0;
    return any;
}

void suppress_print(hatf_buf *o, const suppressions *s, int json)
{
    if (json) cli_put(o, "[");
    else if (s->n) cli_put(o, "\nsuppressed leaks:\n");
    for (size_t i = 0; i < s->n; i++) {
        const suppression *x = &s->v[i];
        if (json) {
            cli_put(o, "%s{\"suppression\": ", i ? ", " : "");
            cli_json_string(o, x->what ? x->what : x->pattern);
            cli_put(o, ", \"origin\": ");
            cli_json_string(o, x->origin);
            cli_put(o, ", \"sites\": %llu, \"objects\": %llu, \"bytes\": %llu}", U(x->sites), U(x->objects), U(x->bytes));
        } else {
            cli_put(o, "  %s%s (%s): %llu objects (%llu bytes) in %llu sites\n", x->what ? "" : "leak:",
                    x->what ? x->what : x->pattern, x->origin, U(x->objects), U(x->bytes), U(x->sites));
        }
    }
    if (json) cli_put(o, "]");
}
