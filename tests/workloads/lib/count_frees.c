/* count_frees.c — a counting preload of the tests' own, independent of the
 * recorder: it counts the free calls made on threads other than the main one
 * (free(NULL) apart), glibc's own at thread exit among them, and writes
 * "free_null N" and "free N" lines to the file COUNT_FREES_OUT names when the
 * process ends. Run natively beside a recording of the same program
 * (tests/integration/record_thread_exit.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic unsigned long nulls, frees;
static void (*real_free)(void *);

void free(void *p)
{
    if (!real_free) real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    if (syscall(SYS_gettid) != getpid()) {
        if (p) frees++;
        else nulls++;
    }
    if (real_free) real_free(p);
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("COUNT_FREES_OUT");
    if (!path) return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    char line[96];
    int n = snprintf(line, sizeof line, "free_null %lu\nfree %lu\n", (unsigned long)nulls, (unsigned long)frees);
    if (write(fd, line, (size_t)n) != n) _exit(3);
    close(fd);
}
