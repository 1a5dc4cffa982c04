/* record_left.c — the processes a recorded command leaves running (see
 * record_left.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "record_left.h"

int record_left_adopt(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1; }

void record_left_reap(pid_t command)
{
    for (;;) {
        siginfo_t si;
        si.si_pid = 0;
        /* who has ended, left in place: the command is not reaped here */
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0 || si.si_pid == command) return;
        waitpid(si.si_pid, NULL, 0);
    }
}

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
