/* own_libs.h — the recorder's own libraries (own_libs.c): the pages of their
 * writable segments that a resident sample (the flusher's) takes out. */
#ifndef HT_OWN_LIBS_H
#define HT_OWN_LIBS_H

#include <stdint.h>

#include "prim.h"

/* The anonymous resident pages of the recorder's own libraries' writable
 * segments (libhatrace.so's and those only it needs). pre: wlock held. */
uint64_t ht_own_libs_resident(void) HT_HIDDEN;

#endif /* HT_OWN_LIBS_H */
