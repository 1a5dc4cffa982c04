/* inject.h — calls into a running process's functions through ptrace
 * (x86-64 Linux): one of its threads is stopped at a safe point, made to call
 * a function with two arguments and a block of bytes on its stack, and put
 * back exactly as it was. hatrace record -p loads the recorder with it.
 */
#ifndef HT_INJECT_H
#define HT_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A thread of the target, stopped for calls. */
typedef struct inj_thread inj_thread;

/* Why it could not be done: said by the caller in one line. */
typedef struct inj_err {
    char msg[512];
} inj_err;

/* Checks before touching the process: it exists, is ours to trace, is not
 * traced, stopped, set-user-ID, statically linked, nor of another
 * architecture. @return 0, or -1 with err. */
int inj_preflight(pid_t pid, inj_err *err);
/* The address of the exported function name in the C library mapped in pid
 * (dlopen, dlsym...), 0 with err if none. */
uint64_t inj_libc_function(pid_t pid, const char *name, inj_err *err);
/* Stop a thread of pid that holds no lock of the C library (blocked in a
 * system call, or running the program's own code), trying for a few seconds.
 * @return it, or NULL with err. */
inj_thread *inj_stop(pid_t pid, inj_err *err);
/* Call fn(a0, a1) on t. data (len bytes, may be NULL) is copied to its stack
 * first; an argument equal to INJ_DATA stands for its address there.
 * @return 0 with *ret (rax), or -1 with err (the process died meanwhile). */
#define INJ_DATA UINT64_MAX
int inj_call(inj_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, const void *data, size_t len, uint64_t *ret,
             inj_err *err);
/* Read a NUL-terminated string of the process at addr into out. */
int inj_read_string(inj_thread *t, uint64_t addr, char *out, size_t cap);
/* Put the thread's registers back and let it run on. */
void inj_release(inj_thread *t);

#endif /* HT_INJECT_H */
