/* addrmap.h — the tools' address map: an open-addressing hash table keyed by
 * 64-bit values (addresses, thread and heap ids), for stats, validate, sites
 * and the replay compiler.
 *
 * libhatf keeps the same map for its own use under hatf_ names; this is that
 * source (hatf/addrmap.h, hatf/addrmap.c) compiled again into the tools'
 * module under the addrmap_ names. The contracts are in hatf/addrmap.h.
 */
#ifndef TOOLS_ADDRMAP_H
#define TOOLS_ADDRMAP_H

#define ADDRMAP_TOOLS 1
#include "../hatf/addrmap.h"

#endif
