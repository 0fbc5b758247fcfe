/* record/rows_npu.c — the one mapping between a costed NPU layer (the level-4
 * table's row) and the store's layer rows, both ways.
 *
 * Forward, a layer's figures go on the row of the node that produces its
 * output (rows_npu_fill). Backward, the table is rebuilt from those carrier
 * rows in order (carrier_layer). What that does not give back exactly — the
 * Input/OutputOperator and exDataConvert layers (no node of the source graph),
 * the layers of a node lowered to several (a GlobalAveragePool cascade), a
 * fused layer whose shapes or name differ from its nodes' — is kept whole in
 * the run's npu_rows (docs/store.md), checked by formatting
 * both, so the rebuilt table is the printed one row for row. */
#include "record/rows_npu.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int *rows_node_order(const graph_t *g, const npu_graph_t *ng)
{
    int *order = xmalloc(sizeof(int) * (size_t)(g->n_nodes ? g->n_nodes : 1)), n = 0;

    for (int i = 0; i < g->n_nodes; i++) {
        const npu_layer_t *l = ng && i < ng->n_nodes && ng->node_layer[i] >= 0
                                   ? &ng->l[ng->node_layer[i]] : NULL;
        if (!l || !l->deferred || !l->n_src_nodes) {
            order[n++] = i;
            continue;
        }
        if (l->src_nodes[l->n_src_nodes - 1] != i)
            continue; /* placed with the layer's last node */
        for (int k = 0; k < l->n_src_nodes; k++)
            if (l->src_nodes[k] >= 0 && l->src_nodes[k] < g->n_nodes &&
                ng->node_layer[l->src_nodes[k]] == ng->node_layer[i])
                order[n++] = l->src_nodes[k];
    }
    /* nodes a layer lists but that map elsewhere (never expected): in order */
    for (int i = 0; n < g->n_nodes && i < g->n_nodes; i++) {
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
            seen = order[k] == i;
        if (!seen)
            order[n++] = i;
    }
    return order;
}

static int known_int(int64_t v)
{
    return v != STORE_NULL_INT;
}

void rows_npu_fill(const npu_graph_t *ng, const npu_layer_t *l, store_layer *row, char *wl,
                   size_t wlen)
{
    size_t u = 0;

    row->target = l->target == NPU_TGT_CPU ? "CPU" : "NPU";
    row->npu_op = l->optype;
    row->bound = npu_bound_name(l->bound);
    row->cpu_reason = l->reason;
    row->npu_cycles = (int64_t)l->npu_cycles;
    row->ddr_cycles = (int64_t)l->ddr_cycles;
    row->total_cycles = (int64_t)l->total_cycles;
    row->time_us = l->time_us;
    row->mac_usage = l->mac_usage[0];
    row->rw_kb = l->rw_kb;
    row->tasks = l->task_number;
    row->sram_hit = l->sram_hit;
    row->frame_us = l->frame_us;
    row->npu_dtype = l->datatype;
    wl[0] = '\0';
    for (int c = 0; c < ng->plat->cores && c < NPU_MAX_CORES && u < wlen; c++)
        u += (size_t)snprintf(wl + u, wlen - u, "%s%.0f%%", c ? "/" : "", l->workload[c]);
    row->workload = wl; /* the store keeps the whole percents it prints as numbers too */
}

/* ---- rows -> layers ----------------------------------------------------------- */

static int is_carrier(const store_layer *l)
{
    return known_int(l->total_cycles);
}

/* "[[1,3,224,224],[64,3,7,7]]" (or one "[1,1000]") into shapes; returns the
 * count of shapes in the text (only the first max are stored); "[]" is none. */
static int parse_shapes(const char *js, npu_shape_t *sh, int max)
{
    int n = 0, depth = 0;
    npu_shape_t cur = {0};
    if (!js || !strcmp(js, "[]"))
        return 0;
    int nested = js[0] == '[' && strchr(js + 1, '[') != NULL;
    for (const char *p = js; *p; p++) {
        if (*p == '[') {
            depth++;
            if (depth == 1 + nested)
                cur.nd = 0;
        } else if (*p == ']') {
            if (depth == 1 + nested) {
                if (n < max)
                    sh[n] = cur;
                n++;
            }
            depth--;
        } else if ((*p == '-' || (*p >= '0' && *p <= '9')) && depth == 1 + nested) {
            char *end;
            long long v = strtoll(p, &end, 10);
            if (cur.nd < NPU_SHAPE_MAX)
                cur.d[cur.nd++] = v;
            p = end - 1;
        }
    }
    return n;
}

static int dtype_of_name(const char *dt)
{
    return !dt ? NPU_INT8 : !strcmp(dt, "FLOAT16") ? NPU_FP16 : !strcmp(dt, "INT16") ? NPU_INT16
           : !strcmp(dt, "BFLOAT16") ? NPU_BF16 : !strcmp(dt, "FLOAT") ? NPU_FP32 : NPU_INT8;
}

/* The level-4 row carrier row i gives back; first: the row after the previous
 * carrier (a fused layer reads what its first covered node reads). */
static void carrier_layer(const npu_platform_t *p, const store_layer *rows, int i, int first,
                          int zero_mac, npu_layer_t *l)
{
    const store_layer *s = &rows[i];
    char full[512];

    memset(l, 0, sizeof(*l));
    /* the ID store_layers_number gave it (a log's excerpt keeps its own), or
     * 0: its position, set by rows_npu_graph */
    l->id = known_int(s->table_id) && s->table_id > 0 && s->table_id < INT32_MAX ? (int)s->table_id : 0;
    snprintf(l->optype, sizeof(l->optype), "%s", s->npu_op ? s->npu_op : s->op ? s->op : "");
    snprintf(l->datatype, sizeof(l->datatype), "%s", s->npu_dtype ? s->npu_dtype : "");
    l->dtype = dtype_of_name(s->npu_dtype);
    l->target = s->target && !strcmp(s->target, "CPU") ? NPU_TGT_CPU : NPU_TGT_NPU;
    l->n_in = parse_shapes(rows[first].in_shapes, l->in, NPU_MAX_IO);
    l->n_out = parse_shapes(s->out_shapes, l->out, NPU_MAX_IO);
    l->ddr_cycles = known_int(s->ddr_cycles) ? (uint64_t)s->ddr_cycles : 0;
    l->npu_cycles = known_int(s->npu_cycles) ? (uint64_t)s->npu_cycles : 0;
    l->total_cycles = (uint64_t)s->total_cycles;
    /* stored rows may come from any file: the printer converts these to
     * integers, so keep them where that is defined */
    l->time_us = s->time_us >= 0 && s->time_us < 1e15 ? s->time_us : 0;
    l->rw_kb = s->rw_kb >= 0 && s->rw_kb < 1e15 ? s->rw_kb : 0;
    l->task_number = known_int(s->tasks) && s->tasks >= 0 && s->tasks < 1 << 30 ? (int)s->tasks : 0;
    for (int c = 0; c < p->cores && c < NPU_MAX_CORES; c++) {
        /* the split as the store read it; a row without one ran on core 0 */
        double w = c < s->n_workload ? s->workload_pct[c] : 0;
        l->workload[c] = !s->n_workload ? (c == 0 ? 100 : 0) : isnan(w) ? 0 : w;
        /* only core 0's MAC usage is on the row: the busy cores share the work */
        l->mac_usage[c] = l->workload[c] > 0 && !isnan(s->mac_usage) ? s->mac_usage : 0;
    }
    /* an imported log's 0.00 is a printed figure (its rows without one are NULL); the
     * project's own runs store 0 for a layer without MACs */
    l->macs = !isnan(s->mac_usage) && (zero_mac || s->mac_usage > 0);
    store_layer_fullname(rows, i, full, sizeof(full));
    l->fullname = xstrdup(full);
}

/* What the printer shows of a layer (and the figures its totals add up), as
 * text: two layers print alike when these are equal. */
static void shown(const npu_layer_t *l, int id, int cores, char *buf, size_t len)
{
    int npu = l->target == NPU_TGT_NPU;
    size_t u = (size_t)snprintf(buf, len, "%d|%s|%s|%d|%d|%d|", id, l->optype, l->datatype, npu,
                                l->n_in, l->n_out);
    for (int k = 0; k < l->n_in && k < NPU_MAX_IO && u < len; k++)
        for (int d = 0; d <= l->in[k].nd && u < len; d++)
            u += (size_t)snprintf(buf + u, len - u, d < l->in[k].nd ? "%lld," : ";",
                                  (long long)(d < l->in[k].nd ? l->in[k].d[d] : 0));
    for (int k = 0; k < l->n_out && k < NPU_MAX_IO && u < len; k++)
        for (int d = 0; d <= l->out[k].nd && u < len; d++)
            u += (size_t)snprintf(buf + u, len - u, d < l->out[k].nd ? "%lld," : ";",
                                  (long long)(d < l->out[k].nd ? l->out[k].d[d] : 0));
    if (u < len)
        u += (size_t)snprintf(buf + u, len - u, "|%llu/%llu/%llu|%lld|%.17g|%d|%s|%s|%s|",
                              (unsigned long long)l->ddr_cycles, (unsigned long long)l->npu_cycles,
                              (unsigned long long)l->total_cycles, (long long)l->time_us, l->rw_kb,
                              npu ? l->task_number : 0, l->fullname ? l->fullname : "",
                              npu ? npu_dtype_name(l->dtype) : "", l->dtype_note ? l->dtype_note : "");
    for (int c = 0; c < cores && u < len; c++)
        u += (size_t)snprintf(buf + u, len - u, "%.2f/%.1f,", npu && l->macs ? l->mac_usage[c] : -1.0,
                              npu ? l->workload[c] : 0.0);
}

static char *shapes_text(const npu_shape_t *sh, int n)
{
    json_writer w;
    size_t len;
    json_begin_mem(&w);
    json_arr_open(&w);
    for (int k = 0; k < n && k < NPU_MAX_IO; k++) {
        json_arr_open(&w);
        for (int d = 0; d < sh[k].nd; d++)
            json_int(&w, sh[k].d[d]);
        json_arr_close(&w);
    }
    json_arr_close(&w);
    char *t = json_take(&w, &len);
    while (len && (t[len - 1] == '\n' || t[len - 1] == ' '))
        t[--len] = '\0';
    return t;
}

/* Layer l whole, as a row of npu_rows (its strings malloc'd: rows_npu_rows_free). */
static void row_out(store_npu_row *r, const npu_layer_t *l, int at, int skip, int cores)
{
    store_npu_row_init(r);
    r->at = at;
    r->skip = skip;
    r->id = l->id;
    r->op = xstrdup(l->optype);
    r->datatype = xstrdup(l->datatype);
    r->dtype = l->dtype;
    r->target = l->target == NPU_TGT_CPU ? "CPU" : "NPU";
    r->n_in = l->n_in;
    r->n_out = l->n_out;
    r->in_shapes = shapes_text(l->in, l->n_in);
    r->out_shapes = shapes_text(l->out, l->n_out);
    r->ddr_cycles = (int64_t)l->ddr_cycles;
    r->npu_cycles = (int64_t)l->npu_cycles;
    r->total_cycles = (int64_t)l->total_cycles;
    r->time_us = l->time_us;
    r->frame_us = l->frame_us;
    r->rw_kb = l->rw_kb;
    r->macs = l->macs != 0;
    r->n_cores = cores < STORE_NPU_ROW_CORES ? cores : STORE_NPU_ROW_CORES;
    for (int c = 0; c < r->n_cores; c++) {
        r->mac_usage[c] = l->mac_usage[c];
        r->workload[c] = l->workload[c];
    }
    r->tasks = l->task_number;
    r->fullname = xstrdup(l->fullname ? l->fullname : "");
    r->note = l->dtype_note ? xstrdup(l->dtype_note) : NULL;
}

void rows_npu_rows_free(store_npu_row *rows, int n)
{
    for (int i = 0; rows && i < n; i++) {
        const char *str[6] = {rows[i].op, rows[i].datatype, rows[i].in_shapes, rows[i].out_shapes,
                              rows[i].fullname, rows[i].note};
        for (int k = 0; k < 6; k++)
            free((void *)str[k]);
    }
    free(rows);
}

/* The carrier rows of stored rows, in order, as level-4 layers (*n of them);
 * zero_mac: a MacUsage of 0 is a figure (carrier_layer). */
static npu_layer_t *carriers_of(const npu_platform_t *p, const store_layer *rows, int n_rows,
                                int zero_mac, int *n)
{
    npu_layer_t *c = xcalloc((size_t)(n_rows ? n_rows : 1), sizeof(*c));
    int first = 0;

    *n = 0;
    for (int i = 0; i < n_rows; i++) {
        if (!is_carrier(&rows[i]))
            continue;
        carrier_layer(p, rows, i, first, zero_mac, &c[(*n)++]);
        first = i + 1;
    }
    return c;
}

static void layers_free(npu_layer_t *l, int n)
{
    for (int i = 0; l && i < n; i++) {
        free(l[i].fullname);
        free(l[i].dtype_note);
    }
    free(l);
}

store_npu_row *rows_npu_table(const npu_graph_t *ng, const store_layer *rows, int n_rows,
                              const int *carrier, store_run *run, int *n_out)
{
    int cores = ng->plat->cores < NPU_MAX_CORES ? ng->plat->cores : NPU_MAX_CORES, nc = 0, k = 0;
    npu_layer_t *c = carriers_of(ng->plat, rows, n_rows, 0, &nc);
    store_npu_row *out = xcalloc((size_t)(ng->n ? ng->n : 1), sizeof(*out));
    int64_t total = 0;
    char a[2048], b[2048];

    for (int i = 0; i < ng->n; i++)
        total += (int64_t)ng->l[i].time_us;
    run->perf_table_us = (double)total;
    /* the clocks the prediction used (run --npu-mhz/--ddr-mhz may override
     * the platform's); compare reads them back for its clock hints */
    run->npu_clock_mhz = ng->plat->npu_mhz;
    run->ddr_clock_mhz = ng->plat->ddr_mhz;
    run->npu_table_layers = ng->n;
    *n_out = 0;
    for (int i = 0; i < ng->n; i++) {
        shown(&ng->l[i], ng->l[i].id, cores, a, sizeof a);
        if (k < nc) {
            shown(&c[k], i + 1, cores, b, sizeof b);
            if (!strcmp(a, b)) {
                k++;
                continue;
            }
        }
        /* not given back by the next carrier: kept whole; that carrier is
         * skipped when it is this layer's own */
        int skip = k < nc && carrier && carrier[i] >= 0 && is_carrier(&rows[carrier[i]]);
        if (skip) {
            int idx = 0; /* the carrier's position among the carriers */
            for (int r = 0; r < carrier[i]; r++)
                idx += is_carrier(&rows[r]);
            skip = idx == k;
        }
        row_out(&out[(*n_out)++], &ng->l[i], i, skip, cores);
        k += skip;
    }
    layers_free(c, nc);
    return out;
}

/* A stored JSON list of shapes (the store's own text) into s. */
static void shapes_in(const char *text, npu_shape_t *s)
{
    json_t *a = text ? json_loads(text, 0, NULL) : NULL, *v;
    size_t k;
    json_array_foreach(a, k, v) {
        if (k >= NPU_MAX_IO)
            break;
        size_t d;
        json_t *x;
        s[k].nd = 0;
        json_array_foreach(v, d, x) if (d < NPU_SHAPE_MAX) s[k].d[s[k].nd++] = json_integer_value(x);
    }
    json_decref(a);
}

static int64_t or_zero(int64_t v)
{
    return v == STORE_NULL_INT ? 0 : v;
}

static void layer_in(const store_npu_row *r, npu_layer_t *l, int cores)
{
    memset(l, 0, sizeof(*l));
    snprintf(l->optype, sizeof(l->optype), "%s", r->op ? r->op : "");
    snprintf(l->datatype, sizeof(l->datatype), "%s", r->datatype ? r->datatype : "");
    l->id = (int)or_zero(r->id);
    l->dtype = (int)or_zero(r->dtype);
    if (l->dtype < 0 || l->dtype >= NPU_NDTYPE)
        l->dtype = NPU_INT8;
    l->target = r->target && !strcmp(r->target, "CPU") ? NPU_TGT_CPU : NPU_TGT_NPU;
    l->n_in = (int)or_zero(r->n_in);
    l->n_out = (int)or_zero(r->n_out);
    l->n_in = l->n_in < 0 ? 0 : l->n_in;
    l->n_out = l->n_out < 0 ? 0 : l->n_out;
    shapes_in(r->in_shapes, l->in);
    shapes_in(r->out_shapes, l->out);
    l->ddr_cycles = (uint64_t)or_zero(r->ddr_cycles);
    l->npu_cycles = (uint64_t)or_zero(r->npu_cycles);
    l->total_cycles = (uint64_t)or_zero(r->total_cycles);
    l->time_us = r->time_us >= 0 && r->time_us < 1e15 ? r->time_us : 0;
    l->macs = r->macs;
    for (int c = 0; c < cores && c < r->n_cores; c++) {
        l->mac_usage[c] = isnan(r->mac_usage[c]) ? 0 : r->mac_usage[c];
        l->workload[c] = isnan(r->workload[c]) ? 0 : r->workload[c];
    }
    l->task_number = (int)or_zero(r->tasks);
    l->rw_kb = r->rw_kb >= 0 && r->rw_kb < 1e15 ? r->rw_kb : 0;
    l->fullname = xstrdup(r->fullname ? r->fullname : "");
    if (r->note)
        l->dtype_note = xstrdup(r->note);
}

int rows_npu_graph(const store_run *run, const store_layer *rows, int n_rows,
                   const store_npu_row *extra, int n_extra, npu_graph_t *ng, int *complete,
                   char *err, size_t errlen)
{
    const npu_platform_t *p = run->platform ? npu_platform_find(run->platform) : NULL;
    int nc = 0, k = 0, n;
    npu_layer_t *c;

    memset(ng, 0, sizeof(*ng));
    *complete = 0;
    /* nothing to rebuild whatever the chip: say so before asking for one */
    if (!n_rows && !n_extra)
        return rt_err(err, errlen, RT_ENOTFOUND, "run #%lld has no per-layer table%s",
                      (long long)run->id, run->import_kind ? ": the log it was imported from "
                                                             "printed none" : " (no layer rows)");
    if (!p && (!run->platform || !*run->platform))
        return rt_err(err, errlen, RT_ENOTFOUND, "run #%lld: no platform recorded, and the table is "
                      "laid out for a chip's cores: import the log again with --target CHIP",
                      (long long)run->id);
    if (!p)
        return rt_err(err, errlen, RT_ENOTFOUND, "run #%lld: unknown platform '%s'",
                      (long long)run->id, run->platform);
    int cores = p->cores < NPU_MAX_CORES ? p->cores : NPU_MAX_CORES;
    ng->plat = p;
    if (run->extra_json && strstr(run->extra_json, "total_rw_kb")) { /* an imported log's */
        json_t *root = json_loads(run->extra_json, 0, NULL);
        json_t *v = json_object_get(json_object_get(root, "perf"), "total_rw_kb");
        ng->log_rw_kb = json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : 0;
        json_decref(root);
    }
    if (run->import_kind && run->log_total_us > 0)
        ng->log_total_us = run->log_total_us;
    c = carriers_of(p, rows, n_rows, run->import_kind != NULL, &nc);
    if (run->npu_table_layers != STORE_NULL_INT) {
        n = run->npu_table_layers < 0 ? 0 : run->npu_table_layers > nc + n_extra ? nc + n_extra
                                                                              : (int)run->npu_table_layers;
        *complete = 1;
    } else {
        n = nc;
        n_extra = 0;
    }
    ng->l = xcalloc((size_t)(n ? n : 1), sizeof(npu_layer_t));
    int e = 0;
    for (int pos = 0; pos < n; pos++) {
        const store_npu_row *x = e < n_extra ? &extra[e] : NULL;
        npu_layer_t *l = &ng->l[ng->n];
        if (x && x->at == pos) {
            layer_in(x, l, cores); /* with its own ID */
            k += x->skip == 1;
            e++;
            ng->n++;
        } else if (k < nc) {
            *l = c[k];
            memset(&c[k++], 0, sizeof(*c)); /* its strings move to ng */
            if (!l->id)
                l->id = ng->n + 1;
            ng->n++;
        } else {
            break;
        }
    }
    layers_free(c, nc);
    if (!ng->n)
        return rt_err(err, errlen, RT_ENOTFOUND, "run #%lld has no predicted NPU layers",
                      (long long)run->id);
    return RT_OK;
}

void rows_npu_graph_free(npu_graph_t *ng)
{
    for (int i = 0; ng->l && i < ng->n; i++) {
        free(ng->l[i].fullname);
        free(ng->l[i].dtype_note);
    }
    free(ng->l);
    memset(ng, 0, sizeof(*ng));
}
