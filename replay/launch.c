/* launch.c — one child process per allocator run.
 *
 * The parent re-executes the hatrace binary as
 *     hatrace replay --child PLAN_FD RESULT_FD TOUCH EVERY SAMPLE_US NULL HEAPS LABEL
 * with LD_PRELOAD naming the allocator (unset for glibc and null). The child
 * reads the index of the plan file the parent compiled (an unlinked file it
 * inherits), runs it streaming the segments (feed.c), and writes
 * one rp_result, plain data, to the pipe. A crash in the allocator under test
 * takes down only the child, and the parent says which allocator and how.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay.h"

int rp_launch_run(const rp_launch *l, const rp_allocator *a, rp_result *res, hatf_err *err)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return hatf_err_set(err, HATF_E_IO, 0, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return hatf_err_set(err, HATF_E_IO, 0, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int wfd = dup(pfd[1]);  /* the copy has no close-on-exec */
        int flags = fcntl(l->plan_fd, F_GETFD);
        if (wfd < 0 || flags < 0 || fcntl(l->plan_fd, F_SETFD, flags & ~FD_CLOEXEC) < 0) _exit(126);
        if (a->path[0]) setenv("LD_PRELOAD", a->path, 1);
        else unsetenv("LD_PRELOAD");
        for (unsigned i = 0; i < l->nenv; i++) putenv((char *)l->env[i]);
        char args[8][32];
        snprintf(args[0], sizeof args[0], "%d", l->plan_fd);
        snprintf(args[1], sizeof args[1], "%d", wfd);
        snprintf(args[2], sizeof args[2], "%d", l->run.touch);
        snprintf(args[3], sizeof args[3], "%u", l->run.latency_every);
        snprintf(args[4], sizeof args[4], "%u", l->run.sample_us);
        snprintf(args[5], sizeof args[5], "%d", a->is_null);
        snprintf(args[6], sizeof args[6], "%d", l->run.heaps_free_each);
        char *argv[] = { (char *)l->self, "replay", "--child", args[0], args[1], args[2], args[3],
                         args[4], args[5], args[6], (char *)(l->run.progress ? l->run.progress : ""), NULL };
        execv(l->self, argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t got = 0;
    while (got < sizeof *res) {
        ssize_t n = read(pfd[0], (char *)res + got, sizeof *res - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(pfd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(st))
        return hatf_err_set(err, HATF_E_IO, 0, "allocator %s: the replay died of signal %d (%s)", a->name,
                            WTERMSIG(st), strsignal(WTERMSIG(st)));
    if (got != sizeof *res)
        return hatf_err_set(err, HATF_E_IO, 0, "allocator %s: the replay exited (status %d) without results",
                            a->name, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    if (res->status)
        return hatf_err_set(err, res->status, 0, "allocator %s: %s", a->name, res->msg);
    return 0;
}

/* In the child: does malloc come from the preloaded object? */
static int check_preload(char *msg, size_t cap)
{
    const char *pre = getenv("LD_PRELOAD");
    if (!pre || !*pre) return 0;
    void *m = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info di;
    const char *base = strrchr(pre, '/') ? strrchr(pre, '/') + 1 : pre;
    if (!m || !dladdr(m, &di) || !di.dli_fname || !strstr(di.dli_fname, base)) {
        snprintf(msg, cap, "%s does not provide malloc (it resolves to %s)", pre,
                 m && dladdr(m, &di) && di.dli_fname ? di.dli_fname : "nothing");
        return -1;
    }
    return 0;
}

int rp_child_main(int argc, char **argv)
{
    if (argc < 8) return 2;
    int plan_fd = atoi(argv[0]), out_fd = atoi(argv[1]);
    rp_run_opts o = { .touch = atoi(argv[2]), .latency_every = (unsigned)strtoul(argv[3], NULL, 10),
                      .sample_us = (unsigned)strtoul(argv[4], NULL, 10), .null_alloc = atoi(argv[5]),
                      .heaps_free_each = atoi(argv[6]), .progress = argv[7][0] ? argv[7] : NULL };
    rp_result *res = mmap(NULL, sizeof *res, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                          -1, 0);
    if (res == MAP_FAILED) return 1;
    memset(res, 0, offsetof(rp_result, samples));
    rp_plan plan;
    hatf_err err = { 0 };
    if (check_preload(res->msg, sizeof res->msg)) {
        res->status = HATF_E_USAGE;
    } else if (rp_plan_load(plan_fd, &plan, &err)) {
        res->status = err.code;
        snprintf(res->msg, sizeof res->msg, "%s", err.msg);
    } else {
        rp_run(&plan, &o, res);  /* streams the plan from plan_fd */
        rp_plan_free(&plan);
        close(plan_fd);
    }
    const char *p = (const char *)res;
    size_t left = sizeof *res;
    while (left) {
        ssize_t n = write(out_fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 1;
        p += n;
        left -= (size_t)n;
    }
    return 0;
}
