/* record_left.h — the processes a recorded command leaves running when it
 * ends (a daemon, a server that forks into the background): record makes
 * itself their subreaper before it starts the command, so a process whose
 * parent ends becomes record's child, and record can name those still
 * running when the command is done. Their traces are written until they end.
 */
#ifndef CLI_RECORD_LEFT_H
#define CLI_RECORD_LEFT_H

#include <stddef.h>
#include <sys/types.h>

/* Before the command starts: adopt its orphans (PR_SET_CHILD_SUBREAPER).
 * @return 0, or -1 (an old kernel: nothing is listed then). */
int record_left_adopt(void);

/* While the command runs: reap the adopted processes that ended (each
 * would stay a zombie until record ends), but never the command, whose
 * status is waited for. */
void record_left_reap(pid_t command);

/* After the command was waited for: reap the adopted ones that ended, and
 * put the pids of those still running in pids (at most cap).
 * @return how many run (may exceed cap). */
size_t record_left_running(pid_t *pids, size_t cap);

/* The program name of a running pid (/proc/PID/comm) into name; "?" when
 * it cannot be read. */
void record_left_name(pid_t pid, char *name, size_t cap);

#endif
