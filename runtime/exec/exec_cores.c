/* runtime/exec/exec_cores.c — the executor's default thread count: one thread per
 * physical core the process may run on. The FMA-bound kernels gain nothing from a
 * core's second hyperthread (both share its vector units) and each extra thread
 * adds a share of every layer's split and join; CPUs outside the affinity mask
 * (taskset, a container's cpuset) only oversubscribe the allowed ones. onnxruntime
 * picks the same default: "INTRA Threads Total = Number of physical CPU Cores"
 * (onnxruntime.ai, docs/performance/tune-performance/threading.html). */
#include "runtime/exec/exec.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lowest CPU of a cpulist ("0-1", "0,4", "3") that is in mask; -1 if none or
 * unreadable. */
static int first_sibling(const char *path, const unsigned char *mask, int ncpu)
{
    char line[512];
    FILE *f = fopen(path, "r");
    int best = -1;

    if (!f)
        return -1;
    if (fgets(line, sizeof(line), f)) {
        char *p = line;
        while (*p && *p != '\n') {
            char *end;
            long a = strtol(p, &end, 10), b = a;
            if (end == p || a < 0)
                break;
            if (*end == '-') {
                p = end + 1;
                b = strtol(p, &end, 10);
                if (end == p || b < a)
                    break;
            }
            for (long c = a; c <= b && c < ncpu; c++)
                if (mask[c] && (best < 0 || c < best))
                    best = (int)c;
            p = *end == ',' ? end + 1 : end;
            if (*end != ',')
                break;
        }
    }
    fclose(f);
    return best;
}

int exec_count_cores(const unsigned char *mask, int ncpu, const char *sysfs_cpu)
{
    int n = 0;
    char path[4096];

    for (int c = 0; c < ncpu; c++) {
        if (!mask[c])
            continue;
        snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", sysfs_cpu, c);
        int first = first_sibling(path, mask, ncpu);
        /* a core counts once, at its lowest allowed CPU */
        n += first < 0 || first == c;
    }
    return n;
}

int exec_default_threads(void)
{
    cpu_set_t set;
    unsigned char mask[CPU_SETSIZE];
    int n = 0;

    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; c++)
            mask[c] = CPU_ISSET(c, &set) != 0;
        n = exec_count_cores(mask, CPU_SETSIZE, "/sys/devices/system/cpu");
    }
    if (n < 1)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n;
}
