/* record_left.c — the processes a recorded command leaves running (see
 * record_left.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "record_left.h"

int record_left_adopt(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1; }

size_t record_left_running(pid_t *pids, size_t cap)
{
    int st;
    while (waitpid(-1, &st, WNOHANG) > 0) {}  /* adopted ones that ended: not left running */
    /* an adopted process is the child of one of record's threads */
    size_t n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/children", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        long pid;
        while (fscanf(f, "%ld", &pid) == 1) {
            if (n < cap) pids[n] = (pid_t)pid;
            n++;
        }
        fclose(f);
    }
    closedir(d);
    return n;
}

void record_left_name(pid_t pid, char *name, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(name, (int)cap, f)) snprintf(name, cap, "?");
    if (f) fclose(f);
    name[strcspn(name, "\n")] = 0;
}
