/* tests/fuzz/fuzz_perfcmp.c — predicted vs measured (analyze/compare_perf.c)
 * on arbitrary stored rows, as a database from anywhere may hold them: each
 * input line is a layer "side|op|node|npu_op|out_shapes|npu|ddr|time|bound"
 * (empty fields missing). Never crashes; every pair it makes is consistent;
 * the shapes' 4-D view (compare_shapes_4d) always fits its buffer. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analyze.h"
#include "util/util.h"

#define MAX_ROWS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *line, *save = NULL, err[256];
    store_layer rows[2][MAX_ROWS];
    int n[2] = {0, 0};
    store_run run[2];
    perfcmp_result r;

    memcpy(buf, data, size);
    buf[size] = 0;
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[9] = {0}, *p = line;
        for (int k = 0; k < 9 && p; k++) {
            f[k] = p;
            p = strchr(p, '|');
            if (p)
                *p++ = 0;
        }
        int side = f[0] && f[0][0] == 'm';
        if (n[side] == MAX_ROWS)
            continue;
        store_layer *l = &rows[side][n[side]++];
        store_layer_init(l);
        l->idx = n[side];
        l->op = f[1] && *f[1] ? f[1] : NULL;
        l->node = f[2] && *f[2] ? f[2] : NULL;
        l->npu_op = f[3] && *f[3] ? f[3] : NULL;
        l->out_shapes = f[4] && *f[4] ? f[4] : NULL;
        /* the shapes' 4-D view, into buffers too small and large enough */
        char v4[24], big[512];
        if (strlen(compare_shapes_4d(l->out_shapes, v4, sizeof v4)) >= sizeof v4 ||
            strlen(compare_shapes_4d(l->out_shapes, big, sizeof big)) >= sizeof big)
            abort();
        if (f[5] && *f[5])
            l->npu_cycles = strtoll(f[5], NULL, 10);
        if (f[6] && *f[6])
            l->ddr_cycles = strtoll(f[6], NULL, 10);
        if (f[7] && *f[7])
            l->time_us = strtod(f[7], NULL);
        l->bound = f[8] && *f[8] ? f[8] : NULL;
    }
    for (int k = 0; k < 2; k++) {
        store_run_init(&run[k]);
        run[k].id = k + 1;
    }
    if (perfcmp_compute(&run[0], rows[0], n[0], &run[1], rows[1], n[1], &r, err, sizeof err) == 0) {
        int pairs = 0;
        for (int i = 0; i < r.n_rows; i++) {
            const perfcmp_row *w = &r.rows[i];
            if ((w->layer[0] >= n[0]) || (w->layer[1] >= n[1]) || (w->layer[0] < 0 && w->layer[1] < 0))
                abort();
            pairs += w->layer[0] >= 0 && w->layer[1] >= 0;
        }
        if (pairs != r.n_by_name + r.n_by_shape || r.n_top > PERFCMP_TOP)
            abort();
        FILE *sink = fopen("/dev/null", "w");
        if (sink) {
            json_writer w;
            perfcmp_print(&r, sink);
            json_begin(&w, sink);
            perfcmp_json(&r, &w);
            json_end(&w);
            fclose(sink);
        }
    }
    perfcmp_free(&r);
    free(buf);
    return 0;
}
