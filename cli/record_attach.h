/* record_attach.h — hatrace record -p PID: the recorder loaded into a running
 * process for a window, then detached (cli/record_attach.c).
 */
#ifndef HATRACE_RECORD_ATTACH_H
#define HATRACE_RECORD_ATTACH_H

#include <sys/types.h>

/* Load lib into pid, start tracing with the HATRACE_* settings of our own
 * environment (HATRACE_REPORT among them), wait for seconds (0: until Ctrl-C
 * or SIGTERM) or the process's exit, and detach. Errors are said in one line.
 * @return 0 when a window was recorded, CLI_FAIL when the attach failed (the
 * process left as it was). *exited: the process ended during the window. */
int record_attach(pid_t pid, double seconds, const char *lib, int *exited);

#endif /* HATRACE_RECORD_ATTACH_H */
