/* flusher_state.c — the writer side's one state (ht_fs, flusher_state.h) and
 * what a fork does to it, in one place: the writer lock is held across fork,
 * and the child forgets the parent's trace, writer and flusher thread.
 */
#include <stdio.h>
#include <unistd.h>

#include "flusher_state.h"
#include "recorder.h"
#include "registry.h"
#include "stacks.h"

ht_flush_state ht_fs = {
    .wlock = PTHREAD_MUTEX_INITIALIZER,
    .out_fd = -1,
    .unit_num = 1,
    .unit_den = 1,
};

int ht_wlock_held(void)
{
    if (pthread_mutex_trylock(&ht_fs.wlock) != 0) return 1;
    pthread_mutex_unlock(&ht_fs.wlock);
    return 0;
}

void ht_flusher_atfork_prepare(void) { pthread_mutex_lock(&ht_fs.wlock); }
void ht_flusher_atfork_parent(void) { pthread_mutex_unlock(&ht_fs.wlock); }

/* The child keeps none of the parent's trace: its own file is created (named
 * with its pid) when it records its first event, by a flusher of its own.
 * Every field of ht_fs is reset here but these, which survive on purpose:
 *   out_dir        the child's trace goes next to the parent's, even after a chdir
 *   parent_path    set here from out_path: the child's header names the parent's trace
 *   mono0, real0   the clock's start sample (with ht_t0, process.c): the child's
 *                  times are on the parent's time line
 *   out_failed     a trace the parent could not create or write stays off in the child
 * and these, left as they are because nothing reads them before they are set
 * again: out_dev and out_ino (read only while out_fd >= 0), flusher (only while
 * flusher_on), last_flush_ns and unit_num/unit_den (set when the writer opens).
 * The rings and the stacks are reset by their own files. */
void ht_flusher_atfork_child(void)
{
    pthread_mutex_init(&ht_fs.wlock, NULL);
    /* the parent's writer and its file stay the parent's: forget them (the
     * recorder's own close: the close hook would keep the descriptor) */
    if (ht_fs.out_fd >= 0) {
        ht_untraced_enter(&ht_t);
        close(ht_fs.out_fd);
        ht_untraced_leave(&ht_t);
    }
    ht_fs.writer = NULL;
    ht_fs.out_fd = -1;
    ht_fs.forked = 1;
    if (!ht_fs.out_failed) snprintf(ht_fs.parent_path, sizeof ht_fs.parent_path, "%s", ht_fs.out_path);
    ht_fs.out_path[0] = 0;
    /* the parent's flusher and encoding helper are not in the child */
    ht_flusher_state_fresh();
    ht_rings_atfork_child();
    ht_stacks_atfork_child();
}

void ht_flusher_state_fresh(void)
{
    ht_fs.helper_tried = 0;
    ht_fs.helper_on = 0;
    ht_fs.due_left = 0;
    ht_fs.flusher_cpu_ns = ht_fs.helper_cpu_ns = 0;
    atomic_store(&ht_fs.flusher_on, HT_FLUSHER_OFF);
    atomic_store(&ht_fs.flusher_stop, 0);
    atomic_store(&ht_fs.finish_req, 0);
    atomic_store(&ht_fs.finish_done, 0);
    atomic_store(&ht_fs.sync_req, 0);
    atomic_store(&ht_fs.sync_done, 0);
    ht_fs.death_sig = 0;
    ht_fs.pace_at = 0;
    ht_fs.n_events = ht_fs.n_drops = ht_fs.n_waits = ht_fs.n_wait_ns = 0;
    atomic_store(&ht_pokes, 0);
}
