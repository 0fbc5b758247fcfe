/* record/perf_rows.c — a vendor per-layer performance table (tracer/perflog_parse.c)
 * as the store's layer rows: what `import` reads from a log, `run --backend board`
 * and `attach` from RKNN_QUERY_PERF_DETAIL. */
#include "record/perf_rows.h"
#include "analyze/store.h"
#include "tracer/tracer.h"
#include "util/dtype.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *perf_numpy_dtype(const char *vendor)
{
    int d = dtype_from_name(vendor); /* vendor or numpy spelling */
    return dtype_size(d) ? dtype_name(d) : NULL;
}

/* "(1,3,224,224),(64,3,7,7),..." -> "[[1,3,224,224],[64,3,7,7]]" into out
 * (room for 2 * strlen(s) + 8); 0 for "\" or nothing readable. A truncated
 * list (",...") keeps the shapes printed. Returns the length written. */
static size_t shapes_json_into(char *out, const char *s, int single)
{
    char *o = out;
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
    return shapes ? (size_t)(o - out) : 0;
}

char *perf_shapes_json(const char *s, int single)
{
    char *out = xmalloc(2 * strlen(s) + 8);

    if (!shapes_json_into(out, s, single)) {
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

/* A row's strings other than the table's own: op, two shape lists, workload. */
static size_t row_text_room(const perflog_row_t *p)
{
    return 48 + 64 + 2 * strlen(p->inshape) + 8 + 2 * strlen(p->outshape) + 8;
}

/* Shapes as JSON at *o (then past it), NULL for "\" or nothing readable. */
static const char *shapes_at(char **o, const char *s)
{
    size_t n;
    if (!s[0] || !strcmp(s, "\\") || !(n = shapes_json_into(*o, s, 0)))
        return NULL;
    const char *v = *o;
    *o += n + 1;
    return v;
}

void perf_layers_make(perf_layers *pl, const perflog_table_t *t, const double *sram_hit)
{
    size_t room = 1;
    char *o;

    for (int k = 0; k < t->n_rows; k++)
        room += row_text_room(&t->rows[k]);
    pl->n = t->n_rows;
    pl->rows = xmalloc((size_t)(pl->n ? pl->n : 1) * sizeof(*pl->rows));
    pl->text = o = xmalloc(room);
    for (int k = 0; k < t->n_rows; k++) {
        const perflog_row_t *p = &t->rows[k];
        store_layer *l = &pl->rows[k];
        const char *colon;

        store_layer_init(l);
        l->idx = p->id;
        l->name = p->fullname[0] ? p->fullname : NULL;
        /* FullName is "<ONNX op>:<node>" */
        if ((colon = strchr(p->fullname, ':')) != NULL && colon > p->fullname) {
            size_t n = (size_t)(colon - p->fullname);
            n = n < 47 ? n : 47;
            memcpy(o, p->fullname, n);
            o[n] = 0;
            l->op = o;
            o += n + 1;
            l->node = colon[1] ? colon + 1 : NULL;
        }
        l->npu_op = p->optype;
        l->npu_dtype = p->datatype[0] ? p->datatype : NULL;
        l->dtype = perf_numpy_dtype(p->datatype);
        if (!strcmp(p->target, "NPU") || !strcmp(p->target, "CPU"))
            l->target = p->target;
        l->in_shapes = shapes_at(&o, p->inshape);
        l->out_shapes = shapes_at(&o, p->outshape);
        if (p->npu >= 0) l->npu_cycles = p->npu;
        if (p->ddr >= 0) l->ddr_cycles = p->ddr;
        if (p->total >= 0) l->total_cycles = p->total;
        if (p->time_us >= 0) l->time_us = (double)p->time_us;
        if (p->n_mac) {
            double m = p->mac[0];
            for (int c = 1; c < p->n_mac; c++)
                m = p->mac[c] > m ? p->mac[c] : m;
            l->mac_usage = m;
        }
        if (p->n_wl) {
            size_t u = 0;
            for (int c = 0; c < p->n_wl; c++)
                u += fmt_pct1(o + u, 64 - u, c ? "/" : "", p->wl[c]);
            l->workload = o;
            o += u + 1;
        }
        if (p->task_number >= 0) l->tasks = p->task_number;
        if (p->rw_kb >= 0) l->rw_kb = p->rw_kb;
        if (l->target && !strcmp(l->target, "CPU"))
            l->bound = "CPU";
        else if (l->target && p->npu >= 0 && p->ddr >= 0 && (p->npu || p->ddr))
            l->bound = p->npu >= p->ddr ? "compute" : "DDR";
        if (sram_hit)
            l->sram_hit = sram_hit[k];
    }
    store_layers_number(pl->rows, pl->n, NULL, 0, STORE_NULL_INT, 1); /* the table's own IDs */
}

int perf_layers_add(store *st, int64_t id, const perf_layers *pl, char *err, size_t errlen)
{
    for (int k = 0; k < pl->n; k++) {
        int rc = store_layer_add(st, id, &pl->rows[k], err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

void perf_layers_free(perf_layers *pl)
{
    free(pl->rows);
    free(pl->text);
    memset(pl, 0, sizeof(*pl));
}

int perf_layers_store(store *st, int64_t id, const perflog_table_t *t, const double *sram_hit,
                      char *err, size_t errlen)
{
    perf_layers pl;
    int rc;

    perf_layers_make(&pl, t, sram_hit);
    rc = perf_layers_add(st, id, &pl, err, errlen);
    perf_layers_free(&pl);
    return rc;
}


/* Level-5 dump files (vendor names, tracer/vlog_parse_dump_name) as output rows. */
void dump_rows_make(const vlog_dump_t *d, int n, store_output *o, char (*shape)[160])
{
    for (int k = 0; k < n; k++) {
        int64_t dims[8];
        store_output_init(&o[k]);
        for (int j = 0; j < d[k].n_dims && j < 8; j++)
            dims[j] = d[k].dims[j];
        o[k].idx = k;
        o[k].name = d[k].name;
        o[k].shape = store_format_shape(shape[k], sizeof shape[k], d[k].n_dims < 8 ? d[k].n_dims : 8, dims);
        o[k].dtype = perf_numpy_dtype(d[k].dtype);
        o[k].dump_file = d[k].path;
    }
}

int dump_rows_store(store *st, int64_t id, const vlog_dump_t *d, int n, char *err, size_t errlen)
{
    for (int k = 0; k < n; k++) {
        store_output o;
        char shape[1][160];
        int rc;

        dump_rows_make(&d[k], 1, &o, shape);
        o.idx = k;
        if ((rc = store_output_add(st, id, &o, err, errlen)))
            return rc;
    }
    return 0;
}
