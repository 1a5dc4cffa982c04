/* count_events.c — a program built on libhatf: counts the events of a trace.
 *
 * It uses only the public API (include/hatf_source.h): open the file, read its
 * events in time order, close it. Comments are events too, so the count equals
 * the "records" of `hatrace stats`.
 *
 * Build against an installed libhatf (docs/FORMAT.md, "Using libhatf from C"):
 *     cc count_events.c $(pkg-config --cflags --libs hatf)
 *
 * Usage: count_events TRACE [FORMAT]   FORMAT: hatrace (the default: the
 *        container, recognised by its magic), hatf1.0 or text
 */
#include <stdint.h>
#include <stdio.h>

#include <hatf_source.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: count_events TRACE [hatrace|hatf1.0|text]   (libhatf %s)\n",
                hatf_version());
        return 2;
    }
    hatf_format fmt = HATF_FMT_AUTO;
    if (argc == 3) {
        int f = hatf_format_from_name(argv[2]);
        if (f < 0) {
            fprintf(stderr, "count_events: unknown format '%s'\n", argv[2]);
            return 2;
        }
        fmt = (hatf_format)f;
    }

    hatf_err err = {0};
    hatf_source *src = hatf_source_open(argv[1], fmt, &err);
    if (!src) {
        fprintf(stderr, "count_events: %s: %s\n", argv[1], hatf_err_text(&err));
        return 1;
    }
    uint64_t n = 0;
    hatf_event ev;
    int rc;
    while ((rc = hatf_source_next(src, &ev)) > 0)
        n++;
    if (rc < 0) {
        const hatf_err *e = hatf_source_error(src);
        fprintf(stderr, "count_events: %s: %s (after %llu events)\n", argv[1],
                e ? hatf_err_text(e) : hatf_strerror(rc), (unsigned long long)n);
        hatf_source_close(src);
        return 1;
    }
    hatf_source_close(src);
    printf("%llu\n", (unsigned long long)n);
    return 0;
}
