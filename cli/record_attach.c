/* record_attach.c — hatrace record -p PID: load libhatrace.so into a running
 * process (its dlopen, called through inject.c), start a window with the
 * library's hatrace_attach and end it with hatrace_detach (preload/attach.c).
 * Between the two the process runs free of us: no thread is stopped, and its
 * exit (a pidfd turns readable) closes its trace through the library's own
 * destructor.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "inject.h"
#include "record_attach.h"

/* hatrace_attach's results (preload/attach.c) */
enum { ATTACH_OK = 0, ATTACH_PRELOADED = 1, ATTACH_ALREADY = 2, ATTACH_NO_TRACE = 3, ATTACH_OPTIONS = 4,
       ATTACH_NO_MEMORY = 5 };

static const char *attach_failure(int rc)
{
    switch (rc) {
    case ATTACH_PRELOADED: return "it records already (libhatrace.so was preloaded at its start)";
    case ATTACH_ALREADY: return "another hatrace record -p is attached to it";
    case ATTACH_NO_TRACE: return "its trace file could not be created (the process's own error output says why)";
    case ATTACH_OPTIONS: return "the options are too long";
    case ATTACH_NO_MEMORY: return "it is out of memory";
    default: return "unknown result";
    }
}

/* Our HATRACE_* settings as "NAME=VALUE" lines; children are not followed
 * unless asked. @return malloc'd text or NULL. */
static char *options_text(void)
{
    extern char **environ;
    size_t n = 64;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "HATRACE_", 8)) n += strlen(*e) + 1;
    char *text = malloc(n), *p = text;
    if (!text) return NULL;
    *p = 0;
    if (!getenv("HATRACE_FOLLOW_CHILDREN")) p += sprintf(p, "HATRACE_FOLLOW_CHILDREN=0\n");
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "HATRACE_", 8) && strncmp(*e, "HATRACE_LIB=", 12)) p += sprintf(p, "%s\n", *e);
    return text;
}

/* The library's functions in the process, by dlsym through its own dlopen handle. */
typedef struct remote_lib {
    uint64_t dlsym, dlclose, handle, attach, detach;
} remote_lib;

static int call_or_say(inj_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, const void *data, size_t len,
                       uint64_t *ret)
{
    inj_err err;
    if (inj_call(t, fn, a0, a1, data, len, ret, &err) == 0) return 0;
    cli_error("%s", err.msg);
    return -1;
}

/* Load lib and find its two functions. @return 0, or -1 after saying why. */
static int load_library(inj_thread *t, pid_t pid, const char *lib, remote_lib *rl)
{
    inj_err err;
    uint64_t dlopen_fn = inj_libc_function(pid, "dlopen", &err), dlerror_fn = 0;
    if (dlopen_fn) rl->dlsym = inj_libc_function(pid, "dlsym", &err);
    if (rl->dlsym) rl->dlclose = inj_libc_function(pid, "dlclose", &err);
    if (rl->dlclose) dlerror_fn = inj_libc_function(pid, "dlerror", &err);
    if (!dlerror_fn) {
        cli_error("%s", err.msg);
        return -1;
    }
    enum { MODE_NOW = 2 };  /* RTLD_NOW, RTLD_LOCAL: its symbols interpose nothing */
    if (call_or_say(t, dlopen_fn, INJ_DATA, MODE_NOW, lib, strlen(lib) + 1, &rl->handle) < 0) return -1;
    if (!rl->handle) {
        uint64_t msg = 0;
        char why[400] = "unknown reason";
        if (inj_call(t, dlerror_fn, 0, 0, NULL, 0, &msg, &err) == 0 && msg) inj_read_string(t, msg, why, sizeof why);
        cli_error("process %d could not load %s: %s", (int)pid, lib, why);
        return -1;
    }
    static const char attach[] = "hatrace_attach", detach[] = "hatrace_detach";
    if (call_or_say(t, rl->dlsym, rl->handle, INJ_DATA, attach, sizeof attach, &rl->attach) < 0 ||
        call_or_say(t, rl->dlsym, rl->handle, INJ_DATA, detach, sizeof detach, &rl->detach) < 0)
        return -1;
    if (!rl->attach || !rl->detach) {
        cli_error("%s has no hatrace_attach: a libhatrace.so of another version?", lib);
        uint64_t ignored;
        inj_call(t, rl->dlclose, rl->handle, 0, NULL, 0, &ignored, &err);
        return -1;
    }
    return 0;
}

static volatile sig_atomic_t stop_asked;
static void on_stop(int sig) { (void)sig; stop_asked = 1; }

/* Until seconds pass (0: no limit), Ctrl-C or SIGTERM, or the process's end.
 * @return 1 if the process ended. */
static int wait_window(pid_t pid, double seconds)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0), gone = 0;
    double end = cli_now_s() + seconds;
    while (!stop_asked && !gone) {
        int ms = 200;
        if (seconds > 0) {
            double left = end - cli_now_s();
            if (left <= 0) break;
            if (left < 0.2) ms = (int)(left * 1000) + 1;
        }
        if (pfd >= 0) {
            struct pollfd p = { pfd, POLLIN, 0 };
            gone = poll(&p, 1, ms) > 0;
        } else {
            usleep((useconds_t)ms * 1000);
            gone = kill(pid, 0) < 0 && errno == ESRCH;
        }
    }
    if (pfd >= 0) close(pfd);
    return gone;
}

int record_attach(pid_t pid, double seconds, const char *lib, int *exited)
{
    *exited = 0;
    inj_err err;
    if (inj_preflight(pid, &err) < 0) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    char *opts = options_text();
    if (!opts) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    /* Ctrl-C ends the window; while a thread of the process is ours it waits */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;  /* no SA_RESTART: poll returns */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigprocmask(SIG_BLOCK, &hold, &old);
    inj_thread *t = inj_stop(pid, &err);
    if (!t) {
        cli_error("%s", err.msg);
        free(opts);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return CLI_FAIL;
    }
    remote_lib rl = { 0 };
    uint64_t rc = 0;
    int ok = load_library(t, pid, lib, &rl) == 0 && call_or_say(t, rl.attach, INJ_DATA, 0, opts, strlen(opts) + 1, &rc) == 0;
    if (ok && (int)rc != ATTACH_OK) {
        cli_error("cannot attach to process %d: %s", (int)pid, attach_failure((int)rc));
        uint64_t ignored;
        /* our reference given back when the recorder did not start: once started, its
         * thread key and fork handlers point into it, and it stays mapped */
        if ((int)rc == ATTACH_PRELOADED || (int)rc == ATTACH_ALREADY || (int)rc == ATTACH_OPTIONS)
            inj_call(t, rl.dlclose, rl.handle, 0, NULL, 0, &ignored, &err);
        ok = 0;
    }
    inj_release(t);
    free(opts);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (!ok) return CLI_FAIL;
    fprintf(stderr, "hatrace: attached to process %d%s\n", (int)pid,
            seconds > 0 ? "" : "; Ctrl-C detaches");

    *exited = wait_window(pid, seconds);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    if (*exited) {
        fprintf(stderr, "hatrace: process %d exited; its trace was closed at its exit\n", (int)pid);
        return 0;
    }
    t = inj_stop(pid, &err);
    if (!t) {
        if (kill(pid, 0) < 0) {
            *exited = 1;
            fprintf(stderr, "hatrace: process %d exited; its trace was closed at its exit\n", (int)pid);
            return 0;
        }
        cli_error("cannot detach from process %d: %s; it records on until it exits", (int)pid, err.msg);
        return CLI_FAIL;
    }
    ok = call_or_say(t, rl.detach, 0, 0, NULL, 0, &rc) == 0;
    inj_release(t);
    if (!ok) {
        *exited = kill(pid, 0) < 0;
        return *exited ? 0 : CLI_FAIL;
    }
    fprintf(stderr, "hatrace: detached from process %d\n", (int)pid);
    return 0;
}
