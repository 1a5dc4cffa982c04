/* addrmap.c — the tools' copy of libhatf's address map (see addrmap.h). */
#include "addrmap.h"
#include "../hatf/addrmap.c"
