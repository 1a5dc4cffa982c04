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

/* The thread's newest-object entry (NULL when out of memory). */
static addrmap_entry *newest_of(temporary *t, uint64_t thread)
{
    if (t->last && t->last_thread == thread) return t->last;
    int added;
    addrmap_entry *e = addrmap_put(&t->newest, thread, &added);
    t->last_thread = thread;
    t->last = e;  /* entries move only when one is added, which resets this */
    return e;
}

int temporary_made(temporary *t, uint64_t thread, uint64_t addr, uint32_t tag)
{
    addrmap_entry *e = newest_of(t, thread);
    if (!e) return -1;
    e->rec = addr;
    e->a = tag;
    return 0;
}

int temporary_ended(temporary *t, uint64_t thread, uint64_t addr, uint32_t *tag)
{
    addrmap_entry *e = newest_of(t, thread);
    if (!e) return -1;
    if (!addr || e->rec != addr) return 0;
    e->rec = 0;
    *tag = e->a;
    t->count++;
    return 1;
}
