/* tests/tools/zoo_predict.c — a predicted run (backend "sim") of a network the
 * NPU bench builds from its architecture (tests/tools/zoo), recorded through
 * the store, so that a board's real table of the same network can be compared
 * with it (`compare BOARD SIM`, tests/cli/compare_perf.sh, bench/compare.sh).
 * The network is lowered in int8 and costed as bench/npu_models.sh does; one
 * layer row per NPU layer, named after the first node it covers.
 *
 * usage: zoo_predict NAME CHIP DB [--yolov8 SCALE SIZE CLASSES] [--table FILE]
 *   NAME: a zoo_graph() name, or a label when --yolov8 builds the network;
 *   --table FILE: also the predicted level-4 table as the runtime prints it.
 * Prints the run id. Exit 0, 1 usage, 2 on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/store.h"
#include "runtime/npu/npu.h"
#include "tests/tools/zoo/graphs.h"
#include "util/util.h"

/* "[[1,32,320,320]]": the layer's first output as the store's shape lists */
static void shape_json(const npu_shape_t *s, char *buf, size_t len)
{
    char one[200];
    snprintf(buf, len, "[%s]", store_format_shape(one, sizeof one, s->nd, s->d));
}

int main(int argc, char **argv)
{
    const char *table = NULL;
    graph_t *g = NULL;
    npu_graph_t *ng = NULL;
    store *st = NULL;
    char err[512] = "", model[128];
    int64_t id = 0;
    int rc = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: zoo_predict NAME CHIP DB [--yolov8 SCALE SIZE CLASSES] [--table FILE]\n");
        return 1;
    }
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--yolov8") && i + 3 < argc) {
            g = zoo_yolov8(argv[i + 1][0], atoi(argv[i + 2]), atoi(argv[i + 3]));
            i += 3;
        } else if (!strcmp(argv[i], "--table") && i + 1 < argc) {
            table = argv[++i];
        } else {
            fprintf(stderr, "zoo_predict: unknown argument '%s'\n", argv[i]);
            return 1;
        }
    }
    if (!g)
        g = zoo_graph(argv[1]);
    /* the builder's invented names ("Conv_0") are not the exporter's: keep
     * them from meeting a board's FullName by accident */
    for (int i = 0; g && i < g->n_nodes; i++) {
        char nm[160];
        snprintf(nm, sizeof nm, "zoo/%s", g->nodes[i].name ? g->nodes[i].name : "");
        free(g->nodes[i].name);
        g->nodes[i].name = xstrdup(nm);
    }
    const npu_platform_t *p = npu_platform_find(argv[2]);
    if (!g || !p) {
        fprintf(stderr, "zoo_predict: unknown network '%s' or chip '%s'\n", argv[1], argv[2]);
        rc = 2;
        goto out;
    }
    if (npu_lower(g, p, DT_INT8, &ng, err, sizeof err) ||
        npu_mem_plan(ng, g, NULL, 0, err, sizeof err)) {
        rc = 2;
        goto out;
    }
    npu_cost(ng);
    if (table) {
        FILE *f = fopen(table, "w");
        if (!f) {
            snprintf(err, sizeof err, "cannot write %s", table);
            rc = 2;
            goto out;
        }
        npu_print_perf_table(f, ng, 0);
        fclose(f);
    }
    snprintf(model, sizeof model, "zoo:%s", argv[1]);
    store_run run;
    store_run_init(&run);
    run.model_path = model;
    run.platform = p->name;
    run.backend = "sim";
    run.quant = "i8";
    run.npu_us = npu_frame_us(ng);
    if ((rc = store_open(argv[3], &st, err, sizeof err)) ||
        (rc = store_run_begin(st, &run, &id, err, sizeof err)))
        goto fail;
    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        const node_t *first = l->n_src_nodes ? &g->nodes[l->src_nodes[0]] : NULL;
        store_layer r;
        char shape[256];
        store_layer_init(&r);
        r.idx = i;
        r.op = first ? first->op : l->optype;
        r.node = first ? first->name : NULL;
        r.npu_op = l->optype;
        r.npu_dtype = l->datatype;
        r.target = l->target == NPU_TGT_CPU ? "CPU" : "NPU";
        r.bound = npu_bound_name(l->bound);
        if (l->n_out) {
            shape_json(&l->out[0], shape, sizeof shape);
            r.out_shapes = shape;
        }
        r.npu_cycles = (int64_t)l->npu_cycles;
        r.ddr_cycles = (int64_t)l->ddr_cycles;
        r.total_cycles = (int64_t)l->total_cycles;
        r.time_us = l->time_us;
        r.frame_us = l->frame_us;
        r.rw_kb = l->rw_kb;
        r.tasks = l->task_number;
        if ((rc = store_layer_add(st, id, &r, err, sizeof err)))
            goto fail;
    }
    if ((rc = store_run_commit(st, id, NAN, err, sizeof err)))
        goto fail;
    printf("%lld\n", (long long)id);
    goto out;
fail:
    if (id)
        store_run_abort(st, id);
    rc = 2;
out:
    if (rc)
        fprintf(stderr, "zoo_predict: %s\n", err);
    store_close(st);
    npu_graph_free(ng);
    graph_free(g);
    return rc;
}
