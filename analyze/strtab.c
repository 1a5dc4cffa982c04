/* strtab.c — distinct strings by number; see strtab.h. */
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

int strtab_init(strtab *t)
{
    memset(t, 0, sizeof *t);
    return addrmap_init(&t->index);
}

void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->v[i]);
    free(t->v);
    addrmap_free(&t->index);
    memset(t, 0, sizeof *t);
}

long strtab_id(strtab *t, const char *s, int *added)
{
    uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a */
    for (const char *c = s; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    for (;; h++) {  /* a clash of two strings' hashes: the next key */
        int add;
        addrmap_entry *e = addrmap_put(&t->index, h, &add);
        if (!e) return -1;
        if (!add) {
            if (strcmp(t->v[e->size], s) == 0) {
                if (added) *added = 0;
                return (long)e->size;
            }
            continue;
        }
        if (t->n == t->cap) {
            size_t c = t->cap ? 2 * t->cap : 256;
            char **v = realloc(t->v, c * sizeof *v);
            if (!v) { addrmap_remove(&t->index, e); return -1; }
            t->v = v, t->cap = c;
        }
        if (!(t->v[t->n] = strdup(s))) { addrmap_remove(&t->index, e); return -1; }
        e->size = t->n;
        if (added) *added = 1;
        return (long)t->n++;
    }
}
