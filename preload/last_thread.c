/* last_thread.c — whether the thread ending is the program's last (see
 * last_thread.h). Read from /proc/self/task with system calls and stack
 * buffers: the thread is in its last key destructor, with no allocation. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "last_thread.h"
#include "registry.h"

static _Atomic uint32_t own_tids[2];  /* the flusher's and the helper's, 0: none */
static _Atomic int claimed;           /* an ending thread answered 1 */
static _Atomic int main_ended;        /* the main thread reached its end (pthread_exit) */

void ht_last_thread_atfork_child(void)
{
    atomic_store(&own_tids[0], 0);
    atomic_store(&own_tids[1], 0);
    atomic_store(&claimed, 0);
    atomic_store(&main_ended, 0);
}

void ht_own_thread(uint32_t tid, int starts)
{
    for (int i = 0; i < 2; i++) {
        uint32_t want = starts ? 0 : tid;
        if (atomic_compare_exchange_strong(&own_tids[i], &want, starts ? tid : 0)) return;
    }
}

static int is_own(uint32_t tid)
{
    return tid == atomic_load(&own_tids[0]) || tid == atomic_load(&own_tids[1]);
}

/* the thread's ring is ending: it is past its last key destructor */
static int is_ending(uint32_t tid)
{
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next)
        if (r->ostid == tid && atomic_load_explicit(&r->state, memory_order_acquire) == HT_RING_EXITING) return 1;
    return 0;
}

/* its state letter ('Z' a zombie, 'X' dead), 0 when it is gone */
static char task_state(const char *tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *end = strrchr(buf, ')');
    return end && end[1] == ' ' ? end[2] : '?';
}

int ht_last_program_thread(void)
{
    uint32_t self = ht_gettid();
    /* while the main thread lives no other is the last: the look at /proc
     * (20 us) is only taken once it has ended, not at every thread's end */
    if (self == (uint32_t)getpid()) atomic_store(&main_ended, 1);
    if (!atomic_load(&main_ended)) return 0;
    if (!atomic_load(&own_tids[0]) && !atomic_load(&own_tids[1])) return 0;
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[4096];
    int others = 0;
    long n;
    while (!others && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long at = 0; at < n && !others;) {  /* the main thread first: one look in most programs */
            struct dirent64 *d = (struct dirent64 *)(buf + at);
            at += d->d_reclen;
            if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
            uint32_t tid = 0;
            for (const char *c = d->d_name; *c; c++) tid = tid * 10 + (uint32_t)(*c - '0');
            if (tid == self || is_own(tid) || is_ending(tid)) continue;
            char st = task_state(d->d_name);
            if (st && st != 'Z' && st != 'X') others = 1;
        }
    }
    close(fd);
    return !others && n == 0 && !atomic_exchange(&claimed, 1);
}
