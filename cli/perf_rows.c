/* cli/perf_rows.c — a vendor per-layer performance table (tracer/perflog_parse.c)
 * as the store's layer rows: what `import` reads from a log, `run --backend board`
 * and `attach` from RKNN_QUERY_PERF_DETAIL. */
#include "cli/cli.h"
#include "analyze/store.h"
#include "tracer/tracer.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *perf_numpy_dtype(const char *vendor)
{
    static const struct { const char *v, *np; } map[] = {
        {"INT8", "int8"}, {"UINT8", "uint8"}, {"INT16", "int16"}, {"UINT16", "uint16"},
        {"INT32", "int32"}, {"INT64", "int64"}, {"FLOAT16", "float16"}, {"FP16", "float16"},
        {"FLOAT", "float32"}, {"FLOAT32", "float32"}, {"BFLOAT16", "bfloat16"},
        {"float", "float32"}, {"uint8", "uint8"}, {"int8", "int8"}, {"float16", "float16"},
        {"int32", "int32"}, {"int64", "int64"}, {"int16", "int16"},
        {"float32", "float32"}, {"float64", "float64"}, {"uint16", "uint16"}, {"bool", "bool"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(vendor, map[i].v))
            return map[i].np;
    return NULL;
}

/* "(1,3,224,224),(64,3,7,7),..." -> "[[1,3,224,224],[64,3,7,7]]"; NULL for "\" or
 * nothing readable. A truncated list (",...") keeps the shapes printed. */
char *perf_shapes_json(const char *s, int single)
{
    size_t n = strlen(s);
    char *out = xmalloc(2 * n + 8), *o = out;
    int shapes = 0;

    if (!single)
        *o++ = '[';
    for (const char *p = s; *p;) {
        if (*p != '(') {
            p++;
            continue;
        }
        const char *c = strchr(p, ')');
        if (!c)
            break;
        if (single && shapes)
            break;
        if (shapes)
            *o++ = ',';
        *o++ = '[';
        for (const char *q = p + 1; q < c; q++)
            if ((*q >= '0' && *q <= '9') || *q == ',' || *q == '-')
                *o++ = *q;
        *o++ = ']';
        shapes++;
        p = c + 1;
    }
    if (!single)
        *o++ = ']';
    *o = 0;
    if (!shapes) {
        free(out);
        return NULL;
    }
    return out;
}

/* "%s%.1f%%" of sep and v: the tables print one decimal, so most values are
 * already whole tenths and are written without printf (every row has three). */
static size_t fmt_pct1(char *buf, size_t len, const char *sep, double v)
{
    double t = v * 10;
    long long k = (long long)(t + 0.5);
    char digits[24];
    size_t n = 0, o = 0;

    if (len < 40 || !(v >= 0 && v < 1e12) || fabs(t - (double)k) > 1e-6) {
        int w = snprintf(buf, len, "%s%.1f%%", sep, v);
        return w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
    }
    while (*sep)
        buf[o++] = *sep++;
    digits[n++] = (char)('0' + k % 10);
    digits[n++] = '.';
    k /= 10;
    do
        digits[n++] = (char)('0' + k % 10);
    while ((k /= 10) > 0);
    while (n)
        buf[o++] = digits[--n];
    buf[o++] = '%';
    buf[o] = 0;
    return o;
}

int perf_layers_store(store *st, int64_t id, const perflog_table_t *t, const double *sram_hit,
                      char *err, size_t errlen)
{
    for (int k = 0; k < t->n_rows; k++) {
        const perflog_row_t *p = &t->rows[k];
        store_layer l;
        char wl[64] = "", op[48] = "", *colon;
        char *in = NULL, *out = NULL;
        int rc;

        store_layer_init(&l);
        l.idx = p->id;
        l.name = p->fullname[0] ? p->fullname : NULL;
        /* FullName is "<ONNX op>:<node>" */
        if ((colon = strchr(p->fullname, ':')) != NULL && colon > p->fullname) {
            size_t n = (size_t)(colon - p->fullname);
            n = n < sizeof op - 1 ? n : sizeof op - 1;
            memcpy(op, p->fullname, n);
            op[n] = 0;
            l.op = op;
            l.node = colon[1] ? colon + 1 : NULL;
        }
        l.npu_op = p->optype;
        l.npu_dtype = p->datatype[0] ? p->datatype : NULL;
        l.dtype = perf_numpy_dtype(p->datatype);
        if (!strcmp(p->target, "NPU") || !strcmp(p->target, "CPU"))
            l.target = p->target;
        in = strcmp(p->inshape, "\\") && p->inshape[0] ? perf_shapes_json(p->inshape, 0) : NULL;
        out = strcmp(p->outshape, "\\") && p->outshape[0] ? perf_shapes_json(p->outshape, 0) : NULL;
        l.in_shapes = in;
        l.out_shapes = out;
        if (p->npu >= 0) l.npu_cycles = p->npu;
        if (p->ddr >= 0) l.ddr_cycles = p->ddr;
        if (p->total >= 0) l.total_cycles = p->total;
        if (p->time_us >= 0) l.time_us = (double)p->time_us;
        if (p->n_mac) {
            double m = p->mac[0];
            for (int c = 1; c < p->n_mac; c++)
                m = p->mac[c] > m ? p->mac[c] : m;
            l.mac_usage = m;
        }
        if (p->n_wl) {
            size_t u = 0;
            for (int c = 0; c < p->n_wl; c++)
                u += fmt_pct1(wl + u, sizeof wl - u, c ? "/" : "", p->wl[c]);
            l.workload = wl;
        }
        if (p->task_number >= 0) l.tasks = p->task_number;
        if (p->rw_kb >= 0) l.rw_kb = p->rw_kb;
        if (l.target && !strcmp(l.target, "CPU"))
            l.bound = "CPU";
        else if (l.target && p->npu >= 0 && p->ddr >= 0 && (p->npu || p->ddr))
            l.bound = p->npu >= p->ddr ? "compute" : "DDR";
        if (sram_hit)
            l.sram_hit = sram_hit[k];
        rc = store_layer_add(st, id, &l, err, errlen);
        free(in);
        free(out);
        if (rc)
            return rc;
    }
    return 0;
}


/* Level-5 dump files (vendor names, tracer/vlog_parse_dump_name) as output rows. */
int dump_rows_store(store *st, int64_t id, const vlog_dump_t *d, int n, char *err, size_t errlen)
{
    for (int k = 0; k < n; k++) {
        store_output o;
        int64_t dims[8];
        char shape[160];
        int rc;

        store_output_init(&o);
        for (int j = 0; j < d[k].n_dims; j++)
            dims[j] = d[k].dims[j];
        o.idx = k;
        o.name = d[k].name;
        o.shape = store_format_shape(shape, sizeof shape, d[k].n_dims, dims);
        o.dtype = perf_numpy_dtype(d[k].dtype);
        o.dump_file = d[k].path;
        if ((rc = store_output_add(st, id, &o, err, errlen)))
            return rc;
    }
    return 0;
}

