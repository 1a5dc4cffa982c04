/* clock.h — the clock of a trace (clock.c): which one the hooks read, the
 * start sample, the tick rate. Reading it (ht_now) is the hot path's
 * (recorder.h). */
#ifndef HT_CLOCK_H
#define HT_CLOCK_H

#include "prim.h"

/* Choose the clock (HATRACE_CLOCK, invariant TSC) and take the start sample. */
void ht_clock_init(void) HT_HIDDEN;
/* Fix the trace's unit (ht_fs.unit_num/den) by calibration; the writer opens next. */
void ht_clock_fix_unit(void) HT_HIDDEN;
/* At close: measure the rate again over the whole run, warn of a drift above 0.1%. */
void ht_clock_check_drift(void) HT_HIDDEN;

#endif /* HT_CLOCK_H */
