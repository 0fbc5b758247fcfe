/* tests/unit/test_exec_cores.c — the executor's default thread count: one per
 * physical core in the affinity mask. exec_count_cores on topology trees written
 * here (hyperthread pairs as "0,4" lists and as "0-1" ranges, a machine without
 * SMT, an unreadable topology), each answer counted by hand; and
 * exec_default_threads on this machine against the CPUs of its own affinity mask
 * (at least 1, at most that many) and against the distinct thread_siblings_list
 * lines of those CPUs, read here with plain stdio. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/exec/exec.h"
#include "tests/test.h"

static char root[] = "/tmp/rt_cores_XXXXXX";

/* root/NAME/cpuC/topology/thread_siblings_list = LIST */
static void put(const char *name, int c, const char *list)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", root, name);
    mkdir(p, 0700);
    snprintf(p, sizeof(p), "%s/%s/cpu%d", root, name, c);
    mkdir(p, 0700);
    snprintf(p, sizeof(p), "%s/%s/cpu%d/topology", root, name, c);
    mkdir(p, 0700);
    snprintf(p, sizeof(p), "%s/%s/cpu%d/topology/thread_siblings_list", root, name, c);
    FILE *f = fopen(p, "w");
    if (f) {
        fprintf(f, "%s\n", list);
        fclose(f);
    }
}

static int count(const char *name, const char *maskstr)
{
    unsigned char mask[16] = {0};
    char p[512];
    for (int i = 0; maskstr[i]; i++)
        mask[i] = maskstr[i] == '1';
    snprintf(p, sizeof(p), "%s/%s", root, name);
    return exec_count_cores(mask, 16, p);
}

static void rm_tree(void)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", root);
}

int main(void)
{
    if (!mkdtemp(root)) {
        CHECK(0, "mkdtemp");
        TEST_END();
    }
    /* 4 cores x 2 threads, siblings n and n+4 (Intel's numbering) */
    for (int c = 0; c < 8; c++) {
        char l[16];
        snprintf(l, sizeof(l), "%d,%d", c % 4, c % 4 + 4);
        put("ht", c, l);
    }
    CHECK(count("ht", "11111111") == 4, "8 threads of 4 cores: %d", count("ht", "11111111"));
    CHECK(count("ht", "11110000") == 4, "one thread of each core: %d", count("ht", "11110000"));
    CHECK(count("ht", "10001000") == 1, "both threads of core 0: %d", count("ht", "10001000"));
    CHECK(count("ht", "00001111") == 4, "the second threads only: %d", count("ht", "00001111"));
    CHECK(count("ht", "01000100") == 1, "core 1 twice: %d", count("ht", "01000100"));
    CHECK(count("ht", "00000000") == 0, "empty mask: %d", count("ht", "00000000"));
    /* 2 cores x 2 threads, adjacent siblings as ranges (AMD's numbering) */
    put("amd", 0, "0-1");
    put("amd", 1, "0-1");
    put("amd", 2, "2-3");
    put("amd", 3, "2-3");
    CHECK(count("amd", "1111") == 2, "ranges: %d", count("amd", "1111"));
    CHECK(count("amd", "0110") == 2, "one thread of each: %d", count("amd", "0110"));
    CHECK(count("amd", "0011") == 1, "one core: %d", count("amd", "0011"));
    /* no SMT: every CPU its own core */
    for (int c = 0; c < 3; c++) {
        char l[16];
        snprintf(l, sizeof(l), "%d", c);
        put("flat", c, l);
    }
    CHECK(count("flat", "111") == 3, "no SMT: %d", count("flat", "111"));
    CHECK(count("flat", "101") == 2, "no SMT, masked: %d", count("flat", "101"));
    /* no topology: each allowed CPU counts */
    CHECK(count("missing", "1101") == 3, "no sysfs: %d", count("missing", "1101"));
    rm_tree();

    /* this machine: distinct sibling lists among the allowed CPUs */
    cpu_set_t set;
    CPU_ZERO(&set);
    int allowed = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    int n = exec_default_threads();
    CHECK(n >= 1 && (!allowed || n <= allowed), "default %d, allowed CPUs %d", n, allowed);
    char lists[64][64];
    int nl = 0, readable = 1;
    for (int c = 0; c < CPU_SETSIZE && allowed; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        char p[128], l[64] = "";
        snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
        FILE *f = fopen(p, "r");
        if (!f || !fgets(l, sizeof(l), f) || nl >= 64)
            readable = 0;
        if (f)
            fclose(f);
        int seen = 0;
        for (int k = 0; k < nl; k++)
            seen |= !strcmp(lists[k], l);
        if (!seen && nl < 64)
            strcpy(lists[nl++], l);
    }
    if (allowed && readable)
        CHECK(n == nl, "default %d threads, %d distinct sibling lists", n, nl);
    TEST_END();
}
