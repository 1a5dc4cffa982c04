/* export.c — which exporter writes what convert --to asks; see export.h. */
#include <string.h>

#include "cli_util.h"
#include "export.h"

static const char *const kinds[] = { "pprof", "chrome", "speedscope", "heaptrack" };

int export_kind(const char *word)
{
    for (int i = 0; i < (int)(sizeof kinds / sizeof *kinds); i++)
        if (strcmp(word, kinds[i]) == 0) return i;
    return -1;
}

int export_run(const export_opts *o)
{
    switch (o->kind) {
    case EXPORT_PPROF: return export_pprof(o);
    case EXPORT_CHROME: return export_chrome(o);
    case EXPORT_SPEEDSCOPE: return export_speedscope(o);
    default: return export_heaptrack(o);
    }
}

int export_open_sites(const export_opts *o, int codec, sites_list *l, export_sink **k)
{
    sites_opts so = { .demangle = 1, .lines = 1, .from = o->from };
    int rc = sites_list_read(o->in, &so, l);
    if (rc == CLI_FAIL) return rc;
    if (l->records && !l->stacked) sites_say_no_stacks(o->in);
    if (!(*k = sink_open(o->out, o->in, o->force, codec))) {
        sites_list_free(l);
        return CLI_FAIL;
    }
    return rc;
}
