/* cli/cmd_store.c — `rknn-trace ls` and `rknn-trace show RUN`: read the store. */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct store_args {
    const char *db, *ref;
    int json;
} store_args;

static int parse(int argc, char **argv, store_args *a, int want_ref, const char *usage)
{
    memset(a, 0, sizeof(*a));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return -2;
        } else if (!strcmp(argv[i], "--json")) {
            a->json = 1;
        } else if (cli_opt_is(argv[i], "--db")) {
            if (!(a->db = cli_opt_value(argc, argv, &i)))
                return -1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("unknown option '%s'", argv[i]);
            return -1;
        } else if (want_ref && !a->ref) {
            a->ref = argv[i];
        } else {
            cli_error("unexpected argument '%s'", argv[i]);
            return -1;
        }
    }
    if (want_ref && !a->ref) {
        fputs(usage, stderr);
        return -1;
    }
    return 0;
}

static void json_opt_int(json_writer *w, const char *key, int64_t v)
{
    json_key(w, key);
    if (v == STORE_NULL_INT)
        json_write_null(w);
    else
        json_int(w, v);
}

static void json_run_fields(json_writer *w, const store_run *r)
{
    json_key(w, "id");
    json_int(w, r->id);
    json_key(w, "label");
    json_str(w, r->label);
    json_key(w, "time");
    json_str(w, r->time);
    json_key(w, "model");
    json_str(w, r->model_path);
    json_key(w, "model_sha256");
    json_str(w, r->model_sha256);
    json_key(w, "platform");
    json_str(w, r->platform);
    json_key(w, "backend");
    json_str(w, r->backend);
    json_key(w, "quant");
    json_str(w, r->quant);
    json_opt_int(w, "threads", r->threads);
    json_opt_int(w, "iterations", r->iterations);
    json_opt_int(w, "seed", r->seed);
    json_key(w, "total_us");
    json_num(w, r->total_us);
    json_key(w, "status");
    json_str(w, r->status);
    json_opt_int(w, "layer_count", r->n_layers);
    json_key(w, "inputs");
    if (r->inputs_json)
        json_raw(w, r->inputs_json);
    else
        json_write_null(w);
}

int cmd_ls(int argc, char **argv)
{
    store_args a;
    store *st = NULL;
    store_run *runs = NULL;
    int n = 0, rc;
    char err[512];

    rc = parse(argc, argv, &a, 0,
               "usage: rknn-trace ls [--db PATH] [--json]\nLists the recorded runs.\n");
    if (rc)
        return rc == -2 ? EXIT_OK : EXIT_USAGE;
    const char *path = store_default_path(a.db);
    /* No database yet is an empty list, not an error. */
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        if (a.json)
            puts("[]");
        else
            printf("(no runs yet in %s: rknn-trace run MODEL records one)\n", path);
        return EXIT_OK;
    }
    rc = store_open_readonly(path, &st, err, sizeof(err));
    if (!rc)
        rc = store_list_runs(st, &runs, &n, err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        store_close(st);
        return cli_exit_code(rc);
    }
    if (a.json) {
        json_writer w;
        json_begin(&w, stdout);
        json_arr_open(&w);
        for (int i = 0; i < n; i++) {
            json_obj_open(&w);
            json_run_fields(&w, &runs[i]);
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_end(&w);
    } else {
        printf("%5s  %-20s  %-20s  %-7s %-4s %-5s %7s %11s  %s\n", "id", "label", "time",
               "target", "bk", "quant", "layers", "median ms", "model");
        for (int i = 0; i < n; i++) {
            const store_run *r = &runs[i];
            printf("%5" PRId64 "  %-20s  %-20s  %-7s %-4s %-5s %7" PRId64 " %11.3f  %s\n", r->id,
                   r->label ? r->label : "-", r->time ? r->time : "-",
                   r->platform ? r->platform : "-", r->backend ? r->backend : "-",
                   r->quant ? r->quant : "-", r->n_layers == STORE_NULL_INT ? 0 : r->n_layers,
                   r->total_us / 1e3, r->model_path ? r->model_path : "-");
        }
        if (!n)
            printf("(no runs yet: rknn-trace run MODEL records one)\n");
    }
    store_runs_free(runs, n);
    store_close(st);
    return EXIT_OK;
}

int cmd_show(int argc, char **argv)
{
    store_args a;
    store *st = NULL;
    store_run run;
    store_layer *layers = NULL;
    store_output *outs = NULL;
    store_accuracy *acc = NULL;
    int nl = 0, no = 0, na = 0, rc, have_run = 0;
    char err[512];

    rc = parse(argc, argv, &a, 1,
               "usage: rknn-trace show RUN [--db PATH] [--json]\n"
               "Shows one run (RUN: its id or its label) with its layers.\n");
    if (rc)
        return rc == -2 ? EXIT_OK : EXIT_USAGE;
    rc = store_open_readonly(store_default_path(a.db), &st, err, sizeof(err));
    if (!rc && !(rc = store_get_run(st, a.ref, &run, err, sizeof(err))))
        have_run = 1;
    if (!rc)
        rc = store_get_layers(st, run.id, &layers, &nl, err, sizeof(err));
    if (!rc)
        rc = store_get_outputs(st, run.id, &outs, &no, err, sizeof(err));
    if (!rc)
        rc = store_get_accuracy(st, run.id, &acc, &na, err, sizeof(err));
    if (rc) {
        cli_error("%s", err);
        goto out;
    }
    if (a.json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w);
        json_run_fields(&w, &run);
        json_key(&w, "outputs");
        json_arr_open(&w);
        for (int i = 0; i < no; i++) {
            json_obj_open(&w);
            json_key(&w, "name");
            json_str(&w, outs[i].name);
            json_key(&w, "shape");
            json_raw(&w, outs[i].shape ? outs[i].shape : "null");
            json_key(&w, "dtype");
            json_str(&w, outs[i].dtype);
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_key(&w, "layers");
        json_arr_open(&w);
        for (int i = 0; i < nl; i++) {
            const store_layer *l = &layers[i];
            json_obj_open(&w);
            json_key(&w, "index");
            json_int(&w, l->idx);
            json_key(&w, "node");
            json_str(&w, l->node);
            json_key(&w, "op");
            json_str(&w, l->op);
            json_key(&w, "name");
            json_str(&w, l->name);
            json_key(&w, "in_shapes");
            json_raw(&w, l->in_shapes ? l->in_shapes : "null");
            json_key(&w, "out_shapes");
            json_raw(&w, l->out_shapes ? l->out_shapes : "null");
            json_key(&w, "dtype");
            json_str(&w, l->dtype);
            json_key(&w, "host_us");
            json_num(&w, l->host_us);
            json_key(&w, "target");
            json_str(&w, l->target);
            json_key(&w, "npu_op");
            json_str(&w, l->npu_op);
            json_key(&w, "bound");
            json_str(&w, l->bound);
            json_key(&w, "cpu_reason");
            json_str(&w, l->cpu_reason);
            json_opt_int(&w, "npu_cycles", l->npu_cycles);
            json_opt_int(&w, "ddr_cycles", l->ddr_cycles);
            json_key(&w, "time_us");
            json_num(&w, l->time_us);
            json_key(&w, "mac_usage");
            json_num(&w, l->mac_usage);
            json_key(&w, "rw_kb");
            json_num(&w, l->rw_kb);
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_key(&w, "accuracy");
        if (na)
            accuracy_json_stored(acc, na, &w);
        else
            json_write_null(&w);
        json_obj_close(&w);
        json_end(&w);
    } else {
        printf("run       #%" PRId64 "%s%s\n", run.id, run.label ? " " : "",
               run.label ? run.label : "");
        printf("time      %s\n", run.time ? run.time : "-");
        printf("model     %s\n          sha256 %s\n", run.model_path ? run.model_path : "-",
               run.model_sha256 ? run.model_sha256 : "-");
        printf("target    %s (backend %s, %s)\n", run.platform ? run.platform : "-",
               run.backend ? run.backend : "-", run.quant ? run.quant : "-");
        printf("time      %.3f ms median of %" PRId64 " run(s)\n", run.total_us / 1e3,
               run.iterations == STORE_NULL_INT ? 0 : run.iterations);
        for (int i = 0; i < no; i++)
            printf("output    %s %s %s\n", outs[i].name, outs[i].dtype ? outs[i].dtype : "-",
                   outs[i].shape ? outs[i].shape : "-");
        printf("\n%5s  %-18s %10s  %-3s %-14s %-7s %10s  %-32s %s\n", "layer", "op", "host us",
               "on", "NPU layer", "bound", "pred us", "node", "output shape");
        for (int i = 0; i < nl; i++) {
            const store_layer *l = &layers[i];
            char pred[32] = "";
            if (!isnan(l->time_us))
                snprintf(pred, sizeof(pred), "%.1f", l->time_us);
            printf("%5" PRId64 "  %-18s %10.1f  %-3s %-14s %-7s %10s  %-32s %s\n", l->idx,
                   l->op ? l->op : "-", l->host_us, l->target ? l->target : "-",
                   l->npu_op ? l->npu_op : "-", l->bound ? l->bound : "-", pred,
                   l->node ? l->node : "-", l->out_shapes ? l->out_shapes : "-");
        }
        if (na) {
            printf("\n# per-layer error vs the fp32 golden (%s%s%s%s%s)\n",
                   run.quant ? run.quant : "-", run.quant_algo ? ", " : "",
                   run.quant_algo ? run.quant_algo : "", run.quant_method ? ", " : "",
                   run.quant_method ? run.quant_method : "");
            accuracy_print_stored(acc, na, stdout, 0.99, isatty(fileno(stdout)));
        }
    }
out:
    store_layers_free(layers, nl);
    store_outputs_free(outs, no);
    store_accuracy_free(acc, na);
    if (have_run)
        store_run_clear(&run);
    store_close(st);
    return cli_exit_code(rc);
}
