/* effort.c — how the chunk groups are coded.
 *
 * Every nanosecond of the recorder's background threads counts, wherever it
 * runs: two CPUs may be siblings of one core, and where the program keeps
 * every core busy it is taken from the program. So the default is the fast
 * coding (container address coding 5, a few instructions per event on the
 * flusher) with its chunks packed by zstd at level 1, on the flusher too: a
 * few ns an event more than storing them, for a trace 2-7 times smaller.
 * The full coding (the address model) makes it 2-4 times smaller again, at
 * 60-200 ns an event on real programs (bench/results/recorder.md, "Packed
 * fast groups"): only --effort full asks for it, and `hatrace convert
 * --best` gives it offline. --effort stored leaves the chunks unpacked.
 *
 * The choice is not switched while recording: storing the groups while the
 * rings filled (as an earlier rule did) made a loaded machine's traces 3-6
 * times larger without a measurable gain in the program's CPU or wall time.
 */
#include "effort.h"
#include "options.h"

enum hatf_coding_ ht_effort_coding(void)
{
    switch (ht_opt(HT_OPT_EFFORT)) {
    case HT_EFFORT_FULL: return HATF_CODING_FULL_;
    case HT_EFFORT_STORED: return HATF_CODING_STORED_;
    default: return HATF_CODING_PACKED_;
    }
}
