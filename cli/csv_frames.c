/* csv_frames.c — the stacks' frames as a CSV table; see csv_frames.h.
 * Names as stats --sites shows them (demangled), source lines from the
 * modules' debug information on this machine (analyze/srclines.h), so a row
 * says what the site report's "at" line says. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "csv_frames.h"
#include "frames.h"

int csv_frames_path(const char *events_path, char *out, size_t cap)
{
    size_t n = strlen(events_path);
    if (n > 4 && strcmp(events_path + n - 4, ".csv") == 0) n -= 4;
    int k = snprintf(out, cap, "%.*s.frames.csv", (int)n, events_path);
    return k < 0 || (size_t)k >= cap ? -1 : 0;
}

/* A CSV field: quoted when it holds a comma, a quote or a line break
 * (C++ names hold commas), quotes doubled. */
static void put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void put_row(FILE *f, frames *fr, uint64_t id, size_t depth, uint64_t addr)
{
    uint64_t off = 0, vaddr = 0;
    const char *fn = frames_function(fr, addr, &off), *mod = frames_module(fr, addr, &vaddr), *file = NULL;
    int line = 0;
    fprintf(f, "%llu,%zu,%llu,", (unsigned long long)id, depth, (unsigned long long)addr);
    put_field(f, mod ? mod : "");
    fputc(',', f);
    if (mod) fprintf(f, "%llu", (unsigned long long)vaddr);
    fputc(',', f);
    put_field(f, fn ? fn : "");
    fputc(',', f);
    if (fn) fprintf(f, "%llu", (unsigned long long)off);
    fputc(',', f);
    if (!frames_line(fr, addr, &file, &line)) {
        put_field(f, file);
        fprintf(f, ",%d\n", line);
    } else {
        fputs(",\n", f);
    }
}

int csv_frames_write(hatf_source *s, const char *path, int force, const char *in_path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), cli_derived_mode(in_path));
    if (fd < 0) {
        if (errno == EEXIST) cli_error("%s: exists (use --force to overwrite)", path);
        else cli_error("%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    frames fr;
    hatf_reader *t = hatf_source_tables(s);
    if (!f || frames_init(&fr, t, 1, 1)) {
        cli_error("out of memory");
        if (f) fclose(f);
        else close(fd);
        unlink(path);
        return -1;
    }
    fputs("stack,depth,address,module,module_offset,function,function_offset,file,line\n", f);
    for (size_t i = 0, n = t ? hatf_reader_stack_count(t) : 0; i < n; i++) {
        uint64_t id;
        const uint64_t *a;
        size_t nf = hatf_reader_stack_at(t, i, &id, &a);
        for (size_t k = 0; k < nf; k++) put_row(f, &fr, id, k, a[k]);
    }
    frames_free(&fr);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        cli_error("%s: cannot write: %s", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}
