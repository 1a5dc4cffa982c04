/* allocator.c — allocator names -> shared objects to preload.
 *
 * Known allocators are found where the dynamic loader looks: LD_LIBRARY_PATH,
 * then the directories listed in /etc/ld.so.conf (following its includes), then
 * /lib and /usr/lib. Nothing is loaded into this process: the library is
 * preloaded into a child that runs the plan.
 */
#include <glob.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

typedef struct known {
    const char *name, *soname, *package;
} known;

static const known known_libs[] = {
    { "jemalloc", "libjemalloc.so.2", "libjemalloc2" },
    { "tcmalloc", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4" },
    { "mimalloc", "libmimalloc.so.2", "libmimalloc2.0" },
};

const char *const rp_known_allocators[4] = { "glibc", "jemalloc", "tcmalloc", "mimalloc" };

static int try_dir(const char *dir, size_t len, const char *soname, char *out, size_t cap)
{
    if (!len) return 0;
    int n = snprintf(out, cap, "%.*s/%s", (int)len, dir, soname);
    return n > 0 && (size_t)n < cap && access(out, R_OK) == 0;
}

static int search_conf(const char *conf, const char *soname, char *out, size_t cap, int depth)
{
    FILE *f = fopen(conf, "r");
    if (!f) return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "#\r\n")] = 0;
        size_t len = strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) p[--len] = 0;
        if (!len) continue;
        if (strncmp(p, "include", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
            if (depth > 4) continue;
            char *pat = p + 8 + strspn(p + 8, " \t");
            glob_t g;
            if (glob(pat, 0, NULL, &g) == 0) {
                for (size_t i = 0; !found && i < g.gl_pathc; i++)
                    found = search_conf(g.gl_pathv[i], soname, out, cap, depth + 1);
                globfree(&g);
            }
        } else if (*p == '/') {
            found = try_dir(p, len, soname, out, cap);
        }
    }
    fclose(f);
    return found;
}

/* Find soname the way the loader would. @return 1 with out filled. */
static int find_lib(const char *soname, char *out, size_t cap)
{
    const char *llp = getenv("LD_LIBRARY_PATH");
    while (llp && *llp) {
        size_t len = strcspn(llp, ":;");
        if (try_dir(llp, len, soname, out, cap)) return 1;
        llp += len + (llp[len] != 0);
    }
    if (search_conf("/etc/ld.so.conf", soname, out, cap, 0)) return 1;
    static const char *const dflt[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64" };
    for (size_t i = 0; i < sizeof dflt / sizeof *dflt; i++)
        if (try_dir(dflt[i], strlen(dflt[i]), soname, out, cap)) return 1;
    return 0;
}

int rp_allocator_installed(const char *name)
{
    if (strcmp(name, "glibc") == 0 || strcmp(name, "null") == 0) return 1;
    char path[4096];
    for (size_t i = 0; i < sizeof known_libs / sizeof *known_libs; i++)
        if (strcmp(name, known_libs[i].name) == 0) return find_lib(known_libs[i].soname, path, sizeof path);
    return 0;
}

int rp_allocator_resolve(const char *name, rp_allocator *a, hatf_err *err)
{
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    if (strcmp(name, "glibc") == 0) return 0;
    if (strcmp(name, "null") == 0) {
        a->is_null = 1;
        return 0;
    }
    for (size_t i = 0; i < sizeof known_libs / sizeof *known_libs; i++) {
        const known *k = &known_libs[i];
        if (strcmp(name, k->name) != 0) continue;
        if (!find_lib(k->soname, a->path, sizeof a->path))
            return hatf_err_set(err, HATF_E_USAGE, 0,
                                "allocator %s: %s not found (install the Debian package %s)",
                                name, k->soname, k->package);
        return 0;
    }
    if (!strchr(name, '/'))
        return hatf_err_set(err, HATF_E_USAGE, 0,
                            "unknown allocator '%s' (glibc, jemalloc, tcmalloc, mimalloc, null, "
                            "or a path to a shared object)", name);
    if (access(name, R_OK) != 0)
        return hatf_err_set(err, HATF_E_USAGE, 0, "allocator %s: cannot read the file", name);
    if (strlen(name) >= sizeof a->path)
        return hatf_err_set(err, HATF_E_USAGE, 0, "allocator path too long");
    /* the loader takes a path with a slash as is; make it absolute for the child */
    if (name[0] != '/') {
        char cwd[2048];
        if (!getcwd(cwd, sizeof cwd) ||
            (size_t)snprintf(a->path, sizeof a->path, "%s/%s", cwd, name) >= sizeof a->path)
            return hatf_err_set(err, HATF_E_USAGE, 0, "allocator path too long");
    } else {
        snprintf(a->path, sizeof a->path, "%s", name);
    }
    const char *base = strrchr(name, '/') + 1;
    snprintf(a->name, sizeof a->name, "%s", *base ? base : name);
    return 0;
}
