/* writer_end.h — the end of a trace (writer_end.c). */
#ifndef HT_WRITER_END_H
#define HT_WRITER_END_H

#include "prim.h"

/* Close the writer (final drain done by the caller), report counters. */
void ht_writer_finish(void) HT_HIDDEN;

#endif /* HT_WRITER_END_H */
