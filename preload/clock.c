/* clock.c — the clock of a trace: which one the hooks read (the invariant TSC
 * or aarch64's virtual counter, else CLOCK_MONOTONIC; HATRACE_CLOCK), the start sample every event time is
 * relative to, and the tick rate the header states, calibrated against
 * CLOCK_MONOTONIC when the writer opens and checked again at close.
 * (Reading the clock, ht_now, is prim.c's and recorder.h's.)
 */
#include <stdatomic.h>
#include <string.h>

#include "clock.h"
#include "flusher_state.h"
#include "options.h"
#include "prim.h"
#include "recorder.h"

/* ht_clock_run_ended was called for this trace */
static _Atomic int run_ended;

void ht_clock_run_ended(void) { atomic_store(&run_ended, 1); }

void ht_clock_init(void)
{
    atomic_store(&run_ended, 0);
    const char *c = ht_opt_clock();
    ht_use_tsc = HT_HAVE_COUNTER && (!strcmp(c, "tsc") || (!strcmp(c, "auto") && ht_tsc_invariant()));
    ht_fs.real0 = ht_real_ns();
    /* pair the start samples as tightly as we can */
    uint64_t m1 = ht_mono_ns();
    ht_t0 = ht_now();
    uint64_t m2 = ht_mono_ns();
    ht_fs.mono0 = m1 + (m2 - m1) / 2;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) { uint64_t t = a % b; a = b; b = t; }
    return a;
}

/* ns per tick as num/den: ticks since t0 against CLOCK_MONOTONIC since the start
 * sample, over at least HT_CALIBRATE_NS, or once the run has ended over the
 * run (at least HT_CALIBRATE_END_NS): an error of a microsecond in either sample is then a
 * microsecond at the last event, whatever the run's length. */
static void calibrate(uint64_t *num, uint64_t *den)
{
    *num = *den = 1;
    if (!ht_use_tsc) return;
    uint64_t m1, m2, tsc, window = atomic_load(&run_ended) ? HT_CALIBRATE_END_NS : HT_CALIBRATE_NS;
    do {
        m1 = ht_mono_ns();
        tsc = ht_now();
        m2 = ht_mono_ns();
    } while (m1 - ht_fs.mono0 < window || m2 - m1 > 2000);
    uint64_t ns = m1 + (m2 - m1) / 2 - ht_fs.mono0, ticks = tsc - ht_t0;
    uint64_t g = gcd64(ns, ticks);
    *num = ns / g;
    *den = ticks / g;
    /* keep both under 2^32 so readers can multiply without overflow worries */
    while (*num > UINT32_MAX || *den > UINT32_MAX) { *num >>= 1; *den >>= 1; }
    if (!*den) *den = 1;
}

void ht_clock_fix_unit(void) { calibrate(&ht_fs.unit_num, &ht_fs.unit_den); }

void ht_clock_check_drift(void)
{
    if (!ht_use_tsc) return;
    uint64_t num, den;
    calibrate(&num, &den);
    double a = (double)ht_fs.unit_num / (double)ht_fs.unit_den, b = (double)num / (double)den;
    if (a / b > 1.001 || b / a > 1.001)
        ht_warn(HT_COUNTER_NAME " rate drifted %.3f%% from the start calibration", 100.0 * (b / a - 1));
}
