/* rec_close_all.c — a program that closes every descriptor above 2 as it
 * starts, as daemons do, then allocates: its trace must survive (the close
 * hooks keep the trace's descriptor open, preload/hooks.c), and its own
 * descriptors must really close.
 *   rec_close_all HOW N     HOW: none, loop (close 3..1023), range
 *                           (close_range), from (closefrom), syscall (the
 *                           close_range system call, past every hook), fork
 *                           (a child makes N pairs, so its trace may be open,
 *                           then does "from" and the rest; the parent waits),
 *                           daemon (N pairs, then daemon(3), whose parent ends
 *                           in libc's own _exit, then "from" in the daemon,
 *                           which ends at SIGTERM: it outlives the command),
 *                           orphans (20 children whose own children outlive
 *                           them a moment: they end as the parent's parent's,
 *                           record's, which must reap them: exit 1 when some
 *                           are still zombies after 10 s), stderr (closes 2
 *                           and opens rec_close_all.data, which takes it,
 *                           writes "data" there after the pairs: the
 *                           recorder's messages must not go into it); then N
 *                           pairs
 * Before the pairs: /dev/null opens as descriptor 3 (the lowest is free), and
 * a pipe's write end closed the same way gives its read end an end of file
 * (a close that only said so would hang here: alarm ends it after 20 s).
 * Exit 0, or 1 with a line on stderr. No stdio: its buffer is an allocation. */
#define _GNU_SOURCE  /* close_range */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int die(const char *why)
{
    ssize_t w = write(2, why, strlen(why));
    (void)w;
    return 1;
}

/* close fds from lo up, as HOW says */
static void close_from(const char *how, int lo)
{
    if (!strcmp(how, "loop")) {
        for (int fd = lo; fd < 1024; fd++) close(fd);
    } else if (!strcmp(how, "range")) {
        close_range((unsigned)lo, ~0U, 0);
    } else if (!strcmp(how, "from")) {
        closefrom(lo);
    } else if (!strcmp(how, "syscall")) {
        syscall(SYS_close_range, (unsigned)lo, ~0U, 0);
    }
}

static void pairs(long n)
{
    for (long i = 0; i < n; i++) {
        void *volatile b = malloc((size_t)(16 + i % 200));
        free(b);
    }
}

/* 'Z' while pid is a zombie, 0 once it is gone, else its state */
static char state_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0) return 0;
    buf[k] = 0;
    char *end = strrchr(buf, ')'), state = '?';
    return end && sscanf(end + 1, " %c", &state) == 1 ? state : '?';
}

/* 20 grandchildren, each ending once its parent has ended and it was
 * adopted (by record, the subreaper, under it): each writes its pid into a
 * pipe it keeps open until it ends, so the end of the pipe says all ended */
static int orphans(long n)
{
    enum { KIDS = 20 };
    int p[2];
    if (pipe(p)) return die("rec_close_all: pipe\n");
    for (int i = 0; i < KIDS; i++) {
        pid_t kid = fork();
        if (kid == 0) {
            pid_t me = getpid();
            if (fork() == 0) {
                pid_t self = getpid();
                ssize_t w = write(p[1], &self, sizeof self);
                (void)w;
                while (getppid() == me) usleep(1000);
                _exit(0);
            }
            _exit(0);
        }
        waitpid(kid, NULL, 0);
    }
    close(p[1]);
    pid_t pids[KIDS];
    size_t got = 0;
    for (ssize_t k; (k = read(p[0], (char *)pids + got, sizeof pids - got)) > 0;) got += (size_t)k;
    while (read(p[0], &got, 1) > 0) {}  /* EOF: every grandchild is ending */
    pairs(n);
    /* each is a zombie or gone within moments; reaped ones are gone */
    for (int t = 0; t < 200; t++) {
        int left = 0;
        for (size_t i = 0; i < got / sizeof pids[0]; i++) left += state_of(pids[i]) != 0;
        if (!left) return 0;
        usleep(50000);
    }
    return die("rec_close_all: orphans left as zombies of record\n");
}

static int run(const char *how, long n)
{
    close_from(how, 3);
    int null = open("/dev/null", O_RDONLY);
    if (strcmp(how, "none") && null != 3) return die("rec_close_all: /dev/null did not open as 3\n");
    int p[2];
    if (pipe(p)) return die("rec_close_all: pipe\n");
    if (!strcmp(how, "none")) close(p[1]);
    else close_from(how, p[1]);  /* the write end, the highest of the program's */
    char c;
    if (read(p[0], &c, 1) != 0) return die("rec_close_all: the pipe's write end is still open\n");
    pairs(n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) return die("usage: rec_close_all none|loop|range|from|syscall|fork|daemon|orphans|stderr N\n");
    long n = atol(argv[2]);
    alarm(20);
    if (!strcmp(argv[1], "orphans")) return orphans(n);
    if (!strcmp(argv[1], "stderr")) {
        close(2);
        int fd = open("rec_close_all.data", O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd != 2) return 1;
        pairs(n);
        return write(fd, "data\n", 5) == 5 ? 0 : 1;
    }
    if (!strcmp(argv[1], "daemon")) {
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        sigprocmask(SIG_BLOCK, &term, NULL);  /* before the fork: a TERM sent early waits */
        pairs(n);
        if (daemon(1, 0)) return die("rec_close_all: daemon\n");
        alarm(20);  /* a fork child's own */
        int rc = run("from", n), sig;
        sigwait(&term, &sig);
        return rc;
    }
    if (strcmp(argv[1], "fork")) return run(argv[1], n);
    pid_t kid = fork();
    if (kid < 0) return die("rec_close_all: fork\n");
    if (kid == 0) {
        pairs(n);
        _exit(run("from", n));
    }
    int st;
    if (waitpid(kid, &st, 0) != kid || !WIFEXITED(st) || WEXITSTATUS(st)) return die("rec_close_all: the child failed\n");
    return 0;
}
