/* writer_end.c — the end of this process's trace, once the final drain is
 * done (ht_finish, process.c): what only the end knows goes in (the counters
 * of every ring, the names of threads still alive, the stack tables), the
 * clock's drift is checked, the writer closes, and the trace is reported
 * (hatrace record's "E" line, HATRACE_VERBOSE's figures, a warning of loss).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "flusher_state.h"
#include "options.h"
#include "output.h"
#include "prim.h"
#include "recorder.h"
#include "registry.h"
#include "ring.h"
#include "stacks.h"
#include "writer_end.h"

/* Threads still alive at the end (the main thread at least) are named from
 * /proc; exited threads were named when their ring was reclaimed. pre: wlock. */
static void name_live_threads(void)
{
    HATF_PRE(ht_wlock_held());
    for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
        if (atomic_load(&r->state) != HT_RING_OWNED || !r->ostid) continue;
        char path[64], name[32];
        snprintf(path, sizeof path, "/proc/self/task/%u/comm", r->ostid);
        long n = ht_read_file(path, name, sizeof name - 1);
        if (n <= 0) continue;
        while (n > 0 && (name[n - 1] == '\n' || !name[n - 1])) n--;
        name[n] = 0;
        if (n) hatf_writer_name_thread(ht_fs.writer, r->tid, name);
    }
}

void ht_writer_finish(void)
{
    ht_untraced_enter(&ht_t);
    ht_xfsz_guard g;
    ht_xfsz_hold(&g);
    pthread_mutex_lock(&ht_fs.wlock);
    /* the parent's file exists from the start: give it at least a header and index */
    if (ht_out_fd_intact() && !ht_fs.writer && ht_fs.out_fd >= 0) ht_writer_open();
    if (ht_fs.writer) {
        uint64_t dropped = ht_fs.n_drops + atomic_load(&ht_lost);
        uint64_t waits = ht_fs.n_waits, wait_ns = ht_fs.n_wait_ns;
        for (ht_ring *r = atomic_load(&ht_rings); r; r = r->next) {
            dropped += r->drops;
            waits += r->waits;
            wait_ns += atomic_load_explicit(&r->wait_ns, memory_order_relaxed);
        }
        ht_clock_check_drift();
        ht_resident_sample();  /* the last one: a short run has no other */
        name_live_threads();
        ht_stacks_finish(ht_fs.writer);
        uint64_t by_helper, by_writer, twice, fast_groups, fast_events, stored_events;
        hatf_writer_defer_counts_(ht_fs.writer, &by_helper, &by_writer, &twice);
        hatf_writer_fast_counts_(ht_fs.writer, &fast_groups, &fast_events, &stored_events);
        ht_background_cpu_read();  /* before the close ends the helper */
        uint64_t bg_ns = ht_fs.flusher_cpu_ns + ht_fs.helper_cpu_ns;
        hatf_counters c = { .events = ht_fs.n_events, .dropped = dropped, .ring_waits = waits };
        hatf_err err;
        memset(&err, 0, sizeof err);
        int rc = hatf_writer_close(ht_fs.writer, &c, &err);
        ht_fs.writer = NULL;
        ht_fs.out_fd = -1;
        struct stat sb;
        if (rc < 0) {  /* its end not written: incomplete, not closed */
            ht_say("writing the trace %s failed: %s; the trace is incomplete", ht_fs.out_path, err.msg);
            ht_report_failed(err.msg);
        } else {
            ht_report_end(stat(ht_fs.out_path, &sb) == 0 ? (uint64_t)sb.st_size : 0, dropped, waits, bg_ns,
                          fast_events, stored_events);
        }
        if (ht_opt(HT_OPT_VERBOSE))
            ht_say("%llu events, %llu dropped (%llu outside rings), %llu ring waits (%.1f ms), "
                   "%llu wakes of the flusher by the program, "
                   "%llu queued by signal handlers inside a hook (at most %u at once)",
                   (unsigned long long)ht_fs.n_events, (unsigned long long)dropped,
                   (unsigned long long)atomic_load(&ht_lost), (unsigned long long)waits, wait_ns / 1e6,
                   (unsigned long long)atomic_load(&ht_pokes),
                   (unsigned long long)atomic_load(&ht_side_events), atomic_load(&ht_side_most));
        if (ht_opt(HT_OPT_VERBOSE))
            ht_say("background CPU %.1f ms (flusher %.1f, helper %.1f), %.1f ns per event; %llu of %llu events in "
                   "%llu chunk groups coded fast (%llu events stored unpacked)",
                   bg_ns / 1e6, ht_fs.flusher_cpu_ns / 1e6, ht_fs.helper_cpu_ns / 1e6,
                   ht_fs.n_events ? (double)bg_ns / (double)ht_fs.n_events : 0.0, (unsigned long long)fast_events,
                   (unsigned long long)ht_fs.n_events, (unsigned long long)fast_groups,
                   (unsigned long long)stored_events);
        if (ht_opt(HT_OPT_VERBOSE) && by_helper + by_writer)
            ht_say("chunk groups encoded by the helper: %llu, by the flusher: %llu (full slots, flushes, "
                   "exit; %llu of them the helper had begun)",
                   (unsigned long long)by_helper, (unsigned long long)by_writer, (unsigned long long)twice);
        if (dropped) ht_warn("%llu events were not recorded (%s)", (unsigned long long)dropped,
                             ht_opt(HT_OPT_DROP) ? "drop mode" : "tracer limits");
    }
    pthread_mutex_unlock(&ht_fs.wlock);
    ht_xfsz_release(&g);
    ht_untraced_leave(&ht_t);
}
