/* clock.h — the clock of a trace (clock.c): which one the hooks read, the
 * start sample, the tick rate. Reading it (ht_now) is the hot path's
 * (recorder.h). */
#ifndef HT_CLOCK_H
#define HT_CLOCK_H

#include "prim.h"

/* Choose the clock (HATRACE_CLOCK, invariant TSC) and take the start sample. */
void ht_clock_init(void) HT_HIDDEN;
/* The trace's unit is calibrated over this long from the start sample when its
 * writer opens, so the flusher leaves the events in the rings until then
 * unless a ring or a sync asks for a drain (flusher.c): a short program is
 * not made to wait, nor a CPU to spin, for a calibration it does not need. */
#define HT_CALIBRATE_NS 2000000u
/* ... and once the run has ended (ht_clock_run_ended), over the run, at least this long */
#define HT_CALIBRATE_END_NS 10000u
/* Fix the trace's unit (ht_fs.unit_num/den) by calibration; the writer opens next. */
void ht_clock_fix_unit(void) HT_HIDDEN;
/* The program's run is over, its last events are being drained: a writer
 * opened from now on is calibrated over the run as it was, however short
 * (the last event's time then off by the sampling's microsecond at most). */
void ht_clock_run_ended(void) HT_HIDDEN;
/* At close: measure the rate again over the whole run, warn of a drift above 0.1%. */
void ht_clock_check_drift(void) HT_HIDDEN;

#endif /* HT_CLOCK_H */
