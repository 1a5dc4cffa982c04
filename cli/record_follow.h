/* record_follow.h — hatrace record's figures of the command's own trace,
 * counted while the command runs, so that they are ready when it ends
 * instead of costing a second read of the whole trace after it.
 *
 * A thread follows the first trace the report file names (the command's own
 * process) with stats' own counting (hatf_source_open_follow, lookahead_run,
 * stats_count), at the idle scheduling class: it takes only CPU time nothing
 * else wants, so the recorded program is not slowed by it. When the command
 * has ended, the rest is read at normal priority; and when the follower has
 * not caught up for a second while it runs (no idle CPU), the caller's thread
 * takes the count over then (record_follow_wait), so the figures never lag
 * by more than about that. Anything short of a follow
 * that read the whole finished trace in order (a thread that came late, a
 * damaged or cut trace, a follower starved by a loaded machine, an error)
 * gives no figures here: the caller then reads the trace back as before.
 *
 * HATRACE_RECORD_FOLLOWER (record's own environment): "idle" (the default),
 * "normal" (the follower at normal priority: for comparisons, and for tests
 * that must see the follow on a loaded machine) or "off" (read back after).
 * HATRACE_RECORD_LAG_MS: how long the follower may stay behind before the
 * waiter takes over (1000; 0: at once, for tests).
 */
#ifndef CLI_RECORD_FOLLOW_H
#define CLI_RECORD_FOLLOW_H

#include <sys/types.h>

#include "hatf_source.h"
#include "stats.h"

typedef struct record_follow record_follow;

/* Start following the first trace report_path will name. @return NULL when
 * no follower could be started (the figures are then read back). */
record_follow *record_follow_start(const char *report_path);

/* Wait for the command (pid) as waitpid(pid, status, 0) does, taking the
 * follows over when the follower has not caught up for a second (or
 * HATRACE_RECORD_LAG_MS): they are then counted here, at the caller's
 * priority, as the traces grow. Meanwhile the command's orphans that ended
 * are reaped (record_left_reap). With f NULL, only that; with no pidfd, just
 * waitpid. @return as waitpid. */
pid_t record_follow_wait(record_follow *f, pid_t pid, int *status);

/* The command has ended: finish the follow. @return 0, or -1 (no figures). */
int record_follow_finish(record_follow *f);

/* The counts of the trace at path, if the follow read it whole (then *s is
 * its source, counted to its end and owned by the caller with the stats, and
 * *at_end the events it had counted when the command ended).
 * @return NULL otherwise: path is another trace, or the follow fell short. */
stats *record_follow_take(record_follow *f, const char *path, hatf_source **s, uint64_t *at_end);

/* Whether the waiter took the follows over while the command ran (its
 * follower fell behind). */
int record_follow_taken(const record_follow *f);

/* Free what the follow still holds (nothing if f is NULL). */
void record_follow_free(record_follow *f);

#endif /* CLI_RECORD_FOLLOW_H */
