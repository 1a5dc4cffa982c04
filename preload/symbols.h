/* symbols.h — the load map and the names of every frame (symbols.c). */
#ifndef HT_SYMBOLS_H
#define HT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "prim.h"

struct hatf_writer;
/* Write the load map and a symbol for each of the n sorted unique frame
 * addresses. pre: untraced (it allocates). */
void ht_symbols_write(struct hatf_writer *w, const uint64_t *addrs, size_t n) HT_HIDDEN;

#endif /* HT_SYMBOLS_H */
