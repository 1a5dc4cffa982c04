/* effort.h — the coding of the chunk groups (effort.c). */
#ifndef HT_EFFORT_H
#define HT_EFFORT_H

#include "../hatf/hatf_recorder.h"  /* enum hatf_coding_ */
#include "prim.h"

/* The coding of every chunk group, as HATRACE_EFFORT asks. */
enum hatf_coding_ ht_effort_coding(void) HT_HIDDEN;

#endif /* HT_EFFORT_H */
