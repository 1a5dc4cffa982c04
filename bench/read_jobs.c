/* read_jobs.c — how fast a trace reads on 1 and on N threads: every event
 * through hatf_source_next (what the hatrace commands read) and nothing else,
 * with the container's chunk groups decoded on N threads (hatf_source_jobs).
 *
 *   read_jobs [-j N] FILE        (N: 0 or none, one per core; 1, this thread alone)
 *
 * Prints one line: threads, records, wall seconds, million records/s, and a
 * digest of the events in the order read (so runs with different N can be
 * compared: they must print the same records and digest). bench/read_cores.sh
 * runs it beside the hatrace commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hatf_source.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    unsigned jobs = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-j") && i + 1 < argc) jobs = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!path && argv[i][0] != '-') path = argv[i];
        else path = NULL, i = argc;
    }
    if (!path) {
        fprintf(stderr, "usage: read_jobs [-j N] FILE\n");
        return 2;
    }
    double t0 = now();
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(path, HATF_FMT_AUTO, &err);
    if (!s) {
        fprintf(stderr, "read_jobs: %s: %s\n", path, err.msg);
        return 1;
    }
    hatf_source_read_on(s, 1);
    int threads = hatf_source_jobs(s, jobs);
    hatf_event ev;
    uint64_t n = 0, h = 0x9e3779b97f4a7c15ull;
    int rc;
    while ((rc = hatf_source_next(s, &ev)) > 0) {
        n++;
        h = (h ^ ev.op ^ ev.time * 31 ^ ev.thread * 131 ^ ev.addr ^ ev.new_addr * 7 ^ ev.size * 13) *
            0x100000001b3ull;
    }
    double t1 = now();
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    double main_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                      (double)ru.ru_stime.tv_usec * 1e-6;
    if (rc < 0) fprintf(stderr, "read_jobs: %s: %s\n", path, hatf_source_error(s)->msg);
    hatf_source_close(s);
    printf("threads %d records %llu seconds %.3f Mrec/s %.1f main_cpu %.3f digest %016llx\n", threads,
           (unsigned long long)n, t1 - t0, (double)n / (t1 - t0) / 1e6, main_cpu, (unsigned long long)h);
    return rc < 0;
}
