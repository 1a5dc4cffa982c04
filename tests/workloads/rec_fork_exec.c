/* rec_fork_exec.c — fork and exec under the recorder. Each process allocates
 * blocks of its own size so tests/integration/record_fork_exec.sh can tell the
 * traces apart:
 *   parent            1001 bytes x 300 (before and after the forks)
 *   child 1 (fork)    1002 bytes x 200, frees 6 of the parent's 7 blocks of 1005
 *                     bytes and reallocs the 7th (inherited objects), then exit()
 *   child 2 (fork)    1003 bytes x 100, then exec of this program with "exec"
 *   exec'd program    1004 bytes x 50
 * With "fexecve" or "execveat": 1006 bytes x 60, then the exec by that call
 * (by descriptor: inside libc, past execve's hook) of this program, "exec". */
#define _GNU_SOURCE  /* execveat */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void churn(size_t size, int n)
{
    void *keep[512];
    for (int i = 0; i < n; i++) keep[i] = malloc(size);
    for (int i = 0; i < n; i++) free(keep[i]);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exec")) {
        churn(1004, 50);
        return 0;
    }
    if (argc > 1 && (!strcmp(argv[1], "fexecve") || !strcmp(argv[1], "execveat"))) {
        churn(1006, 60);
        char *av[] = { argv[0], "exec", NULL };
        int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        if (argv[1][1] == 'e') fexecve(fd, av, environ);
        else execveat(fd, "", av, environ, AT_EMPTY_PATH);
        return 126;
    }
    churn(1001, 150);
    void *inherit[7];
    for (int i = 0; i < 7; i++) inherit[i] = malloc(1005);
    pid_t a = fork();
    if (a == 0) {
        churn(1002, 200);
        for (int i = 0; i < 6; i++) free(inherit[i]);
        free(realloc(inherit[6], 5000));
        exit(0);
    }
    pid_t b = fork();
    if (b == 0) {
        churn(1003, 100);
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        _exit(126);
    }
    int sa, sb;
    if (waitpid(a, &sa, 0) != a || waitpid(b, &sb, 0) != b) return 2;
    churn(1001, 150);
    for (int i = 0; i < 7; i++) free(inherit[i]);
    return WIFEXITED(sa) && !WEXITSTATUS(sa) && WIFEXITED(sb) && !WEXITSTATUS(sb) ? 0 : 3;
}
