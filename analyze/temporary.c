/* temporary.c — temporary allocations (temporary.h). */
#include <string.h>

#include "temporary.h"

int temporary_init(temporary *t)
{
    memset(t, 0, sizeof *t);
    return addrmap_init(&t->newest);
}

void temporary_free(temporary *t)
{
    addrmap_free(&t->newest);
    t->last = NULL;  /* the count stays */
}

addrmap_entry *temporary_newest_(temporary *t, uint64_t thread)
{
    int added;
    addrmap_entry *e = addrmap_put(&t->newest, thread, &added);
    t->last_thread = thread;
    t->last = e;  /* entries move only when one is added, which resets this */
    return e;
}
