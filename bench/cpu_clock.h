/* cpu_clock.h — the figures a benchmark program samples around its timed
 * window (header-only; bench/server_sim.c, bench/alloc_chain.c): wall time,
 * the process's CPU time, and the CPU time of the recorder's background
 * threads (every thread named hatrace-*, from /proc/self/task/TID/schedstat,
 * whose first field is the thread's time on a CPU in ns). */
#ifndef BENCH_CPU_CLOCK_H
#define BENCH_CPU_CLOCK_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct cpu_sample {
    uint64_t wall_ns, cpu_ns, bg_ns;
} cpu_sample;

static inline uint64_t cpu_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU ns of the threads whose name starts with "hatrace-". */
static inline uint64_t cpu_background_ns(void)
{
    uint64_t sum = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int named = fgets(name, sizeof name, f) && !strncmp(name, "hatrace-", 8);
        fclose(f);
        if (!named) continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        unsigned long long ns = 0;
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%llu", &ns) != 1) ns = 0;
            fclose(f);
        }
        sum += ns;
    }
    closedir(d);
    return sum;
}

static inline void cpu_sample_take(cpu_sample *s)
{
    s->bg_ns = cpu_background_ns();
    s->cpu_ns = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    s->wall_ns = cpu_clock_ns(CLOCK_MONOTONIC);
}

#endif /* BENCH_CPU_CLOCK_H */
