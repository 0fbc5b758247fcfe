/* tests/tools/bench_rknn.c — in-process cost of reading a vendor .rknn
 * (rknn_model_read: file, container, JSON trailer, FlatBuffer graph,
 * generator string): what `rknn-trace inspect` adds to the process start.
 *
 *   bench_rknn [-n RUNS] FILE    prints "FILE median_ms min_ms nodes tensors" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/rknn_file.h"
#include "util/util.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int runs = 21, nodes = 0, tensors = 0;
    const char *path = NULL;
    double t[1000];
    char err[512];

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else
            path = argv[i];
    }
    if (!path || runs < 1 || runs > 1000) {
        fprintf(stderr, "usage: bench_rknn [-n RUNS] FILE\n");
        return 1;
    }
    for (int r = 0; r < runs; r++) {
        rknn_model *m;
        double t0 = rt_now_us();
        if (rknn_model_read(path, &m, err, sizeof(err))) {
            fprintf(stderr, "bench_rknn: %s\n", err);
            return 2;
        }
        t[r] = (rt_now_us() - t0) / 1e3;
        nodes = m->n_nodes;
        tensors = m->n_tensors;
        rknn_model_free(m);
    }
    qsort(t, (size_t)runs, sizeof(double), cmp);
    printf("%s %.3f %.3f %d %d\n", path, t[runs / 2], t[0], nodes, tensors);
    return 0;
}
