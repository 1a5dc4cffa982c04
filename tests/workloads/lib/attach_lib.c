/* attach_lib — a library attach_server dlopens while hatrace is attached: its
 * own calls (through its own GOT) must be recorded too. */
#include <stdlib.h>
#include <string.h>

void *volatile attach_lib_sink;

/* n mallocs, each freed: @return the number of malloc (and of free) calls */
int attach_lib_work(int n)
{
    for (int i = 0; i < n; i++) {
        char *p = malloc(24 + (size_t)i % 100);
        if (p) memset(p, 2, 24);
        attach_lib_sink = p;
        free(p);
    }
    return n;
}
