/* record/source_predict.c — a vendor .rknn on a PC (`run model.rknn`, backend
 * predict): its compiled graph costed by the NPU model (npu_graph_of_rknn),
 * as one layer row per compiled node. */
#include "record/rows.h"
#include "record/rows_npu.h"
#include "record/source_predict.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *quant_of(int npu_dtype)
{
    return npu_dtype == NPU_INT8 ? "i8" : npu_dtype == NPU_FP16 ? "fp16"
           : npu_dtype == NPU_INT16 ? "i16" : npu_dtype == NPU_BF16 ? "bf16" : "?";
}

static char *shapes_json(const npu_shape_t *s, int n)
{
    size_t cap = 16 + (size_t)n * 24 * NPU_SHAPE_MAX, len = 0;
    char *out = xmalloc(cap), one[24 * NPU_SHAPE_MAX];

    out[len++] = '[';
    for (int k = 0; k < n && k < NPU_MAX_IO; k++) {
        store_format_shape(one, sizeof(one), s[k].nd, s[k].d);
        len += (size_t)snprintf(out + len, cap - len, "%s%s", k ? "," : "", one);
    }
    snprintf(out + len, cap - len, "]");
    return out;
}

/* what has no column: the file's versions, whether outputs were computed and, for an
 * emulated frame, what computed them (the tasks run, and those of nodes computed from
 * their meaning in float64 instead: RKNN_TRACE_EMU_ATTN=float) */
static void write_extra(run_rows *rows, const struct rknn_model *m, const emu_result *er)
{
    json_writer w;
    json_begin_mem(&w); /* the versions are the file's text: json_str escapes them, NULL is null */
    json_obj_open(&w);
    json_key(&w, "toolkit"), json_str(&w, m->toolkit);
    json_key(&w, "compiler"), json_str(&w, m->compiler);
    json_key(&w, "numeric_outputs"), json_bool(&w, er != NULL);
    if (er) {
        json_key(&w, "emulation");
        json_obj_open(&w);
        json_key(&w, "tasks_computed"), json_int(&w, er->tasks_run);
        json_key(&w, "tasks_float64"), json_int(&w, er->tasks_float);
        json_key(&w, "tasks_tiling"), json_int(&w, er->tasks_tiling);
        json_key(&w, "tasks_file"), json_int(&w, er->tasks_file);
        json_obj_close(&w);
    }
    json_obj_close(&w);
    free(rows->extra);
    rows->extra = json_take(&w, NULL);
    rows->run.extra_json = rows->extra;
}

/* One store_layer per compiled node, from the costed graph. */
static void fill_layer_row(const rknn_model *m, const npu_graph_t *ng, int i, store_layer *row,
                           char *op, size_t oplen, char *wl, size_t wlen)
{
    const npu_layer_t *l = &ng->l[i];
    const char *colon = strchr(l->fullname, ':');

    store_layer_init(row);
    row->idx = i;
    row->node = l->fullname;
    /* the source op is the FullName's prefix ("Conv:Conv_0"), else the vendor op */
    snprintf(op, oplen, "%.*s", colon ? (int)(colon - l->fullname) : (int)strlen(l->optype),
             colon ? l->fullname : l->optype);
    row->op = op;
    row->name = l->n_src_tensors ? l->src_tensors[0] : NULL;
    row->dtype = l->out_tensor >= 0 ? rknn_dtype_name(m->tensors[l->out_tensor].dtype) : NULL;
    rows_npu_fill(ng, l, row, wl, wlen);
}

/* The file's outputs, without values (its extra JSON says numeric_outputs
 * false): names and shapes as the emulator's outputs have them, float32 as an
 * application reads them through rknn_outputs_get(want_float) and as
 * --emulate records them, so that `show` and `compare` name every output. */
static void file_outputs(run_rows *rows, const rknn_model *m)
{
    rows->outs = xcalloc((size_t)m->n_io + 1, sizeof(*rows->outs));
    for (int k = 0; k < m->n_io; k++) {
        const rknn_io *io = &m->io[k];
        if (!io->is_output || io->tensor < 0 || io->tensor >= m->n_tensors || !io->name)
            continue;
        const rknn_tensor *t = &m->tensors[io->tensor];
        char sh[24 * 16];
        store_format_shape(sh, sizeof(sh), t->nd, t->shape);
        rows->outs[rows->n_outs] = (store_output){ .idx = rows->n_outs, .name = io->name,
                                                   .shape = run_rows_keep(rows, xstrdup(sh)),
                                                   .dtype = "float32" };
        rows->n_outs++;
    }
}

int run_rows_predict(const char *path, const char *label, const rknn_model *m,
                     const npu_graph_t *ng, run_rows *rows, char *err, size_t errlen)
{
    void *buf = NULL;
    size_t len = 0, n = (size_t)(ng->n ? ng->n : 1);
    int rc;

    memset(rows, 0, sizeof(*rows));
    if ((rc = rt_read_file(path, &buf, &len, err, errlen)))
        return rc;
    rt_sha256_hex(buf, len, rows->sha);
    free(buf);
    rt_iso_time(rows->time, sizeof(rows->time));
    store_run_init(&rows->run);
    rows->run.label = label;
    rows->run.time = rows->time;
    rows->run.model_path = realpath(path, rows->path) ? rows->path : path;
    rows->run.model_sha256 = rows->sha;
    rows->run.model_format = "rknn";
    rows->run.platform = ng->plat->name;
    rows->run.backend = store_backend_name(BACKEND_PREDICT);
    rows->run.quant = quant_of(ng->dtype);
    rows->run.iterations = 0;
    rows->run.npu_us = npu_frame_us(ng);
    if (ng->mem) {
        rows->run.weight_bytes = (int64_t)ng->mem->weight_size;
        rows->run.internal_bytes = (int64_t)ng->mem->internal_size;
    }
    rows->layers = xcalloc(n, sizeof(*rows->layers));
    char (*op)[48] = run_rows_keep(rows, xcalloc(n, 48));
    char (*wl)[96] = run_rows_keep(rows, xcalloc(n, 96));
    int *carrier = xmalloc(n * sizeof(int));
    for (int i = 0; i < ng->n; i++) {
        fill_layer_row(m, ng, i, &rows->layers[i], op[i], sizeof(op[i]), wl[i], sizeof(wl[i]));
        rows->layers[i].in_shapes = run_rows_keep(rows, shapes_json(ng->l[i].in, ng->l[i].n_in));
        rows->layers[i].out_shapes = run_rows_keep(rows, shapes_json(ng->l[i].out, ng->l[i].n_out));
        carrier[i] = i;
    }
    rows->n_layers = ng->n;
    rows->run.n_layers = ng->n;
    /* the level-4 rows the layer rows do not give back go to npu_rows */
    rows->npu_rows = rows_npu_table(ng, rows->layers, rows->n_layers, carrier, &rows->run,
                                    &rows->n_npu_rows);
    store_layers_number(rows->layers, rows->n_layers, rows->npu_rows, rows->n_npu_rows,
                        rows->run.npu_table_layers, 0);
    write_extra(rows, m, NULL);
    free(carrier);
    file_outputs(rows, m);
    return 0;
}

void run_rows_emulated(run_rows *rows, const struct rknn_model *m, const emu_result *er)
{
    rows->run.backend = "emulate";
    write_extra(rows, m, er);
}
