/* plan_place.c — where the replay's plan file lives: in memory when the plan
 * fits easily, else in a directory.
 *
 * The plan is thrown away when hatrace exits, but a plan file on a disk's file
 * system is written back to the disk once its dirty pages pass the kernel's
 * background threshold (a tenth of the memory by default): past about 150 M
 * events the writeback's CPU and the file system's block reservations were
 * the compile's largest cost beyond the compiling itself
 * (bench/results/replay_window.md, "The plan in memory"). A memfd holds the
 * same pages with no disk behind them. It cannot be paged out without swap,
 * so it is taken only for a plan estimated at a quarter of the memory
 * available at most (the machine's MemAvailable, and the room left under the
 * process's cgroup v2 limits), and only when TMPDIR does not name a place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay.h"

int rp_plan_in_memory(uint64_t plan_bytes, uint64_t available)
{
    return plan_bytes && available && plan_bytes <= available / 4;
}

/* The first number in the file at path, or UINT64_MAX (none, or "max"). */
static uint64_t read_number(const char *path, const char *key)
{
    FILE *f = fopen(path, "re");
    if (!f) return UINT64_MAX;
    char line[256];
    uint64_t v = UINT64_MAX;
    size_t klen = key ? strlen(key) : 0;
    while (fgets(line, sizeof line, f)) {
        if (key && strncmp(line, key, klen)) continue;
        char *end, *p = line + klen;
        unsigned long long x = strtoull(p, &end, 10);
        if (end != p) v = (uint64_t)x;
        break;
    }
    fclose(f);
    return v;
}

/* The room under the cgroup v2 limits of this process and its ancestors
 * (memory.max - memory.current, the least), or UINT64_MAX when none; *limit
 * (may be NULL): the least memory.max, or UINT64_MAX. */
static uint64_t cgroup_room(uint64_t *limit)
{
    if (limit) *limit = UINT64_MAX;
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f) return UINT64_MAX;
    char line[4096], rel[4096] = "";
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "0::", 3)) {  /* the unified hierarchy */
            snprintf(rel, sizeof rel, "%s", line + 3);
            rel[strcspn(rel, "\n")] = 0;
            break;
        }
    fclose(f);
    if (!*rel) return UINT64_MAX;
    uint64_t room = UINT64_MAX;
    for (;;) {
        char path[4200];
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", rel);
        uint64_t max = read_number(path, NULL);
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", rel);
        uint64_t cur = read_number(path, NULL);
        if (limit && max < *limit) *limit = max;
        if (max != UINT64_MAX && cur != UINT64_MAX) {
            uint64_t r = max > cur ? max - cur : 0;
            if (r < room) room = r;
        }
        char *slash = strrchr(rel, '/');
        if (!slash || slash == rel) break;
        *slash = 0;
    }
    return room;
}

uint64_t rp_mem_available(void)
{
    uint64_t kb = read_number("/proc/meminfo", "MemAvailable:");
    if (kb == UINT64_MAX) return 0;
    uint64_t avail = kb * 1024, room = cgroup_room(NULL);
    return room < avail ? room : avail;
}

uint64_t rp_mem_total(void)
{
    uint64_t kb = read_number("/proc/meminfo", "MemTotal:"), limit;
    cgroup_room(&limit);
    uint64_t total = kb == UINT64_MAX ? UINT64_MAX : kb * 1024;
    if (limit < total) total = limit;
    return total == UINT64_MAX ? 0 : total;
}

int rp_plan_tmpfile(const char *dir, uint64_t plan_bytes, const char **where, hatf_err *err)
{
    if (!dir) dir = getenv("TMPDIR");
    if ((!dir || !*dir) && rp_plan_in_memory(plan_bytes, rp_mem_available())) {
        int fd = memfd_create("hatrace-plan", MFD_CLOEXEC);
        if (fd >= 0) {
            if (where) *where = "memory";
            return fd;
        }
    }
    if (!dir || !*dir) dir = "/tmp";
    if (where) *where = dir;
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {  /* no O_TMPFILE there */
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/hatrace-plan-XXXXXX", dir);
        if (n > 0 && (size_t)n < sizeof path && (fd = mkostemp(path, O_CLOEXEC)) >= 0) unlink(path);
    }
    if (fd < 0)
        hatf_err_set(err, HATF_E_IO, 0, "cannot create the replay plan file in %s: %s (set TMPDIR to a writable directory)",
                     dir, strerror(errno));
    return fd;
}
