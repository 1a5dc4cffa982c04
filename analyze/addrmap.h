/* addrmap.h — the analysis' address map: libhatf's open-addressing hash table
 * keyed by 64-bit values (addresses, thread and heap ids), linked from
 * libhatf.a, for stats, validate, sites and the replay compiler. The
 * contracts are in hatf/addrmap.h.
 */
#ifndef ANALYZE_ADDRMAP_H
#define ANALYZE_ADDRMAP_H

#include "../hatf/addrmap.h"

#endif
