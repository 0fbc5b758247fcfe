/* record/source_board.c — a run on a vendor runtime (`run --backend board`):
 * the model on the NPU through a vendor-style librknnrt.so loaded with dlopen.
 * N timed runs without perf collection (it slows the NPU), then one profiled
 * run in a context made with RKNN_FLAG_COLLECT_PERF_MASK whose PERF_DETAIL
 * table becomes the layer rows, its level-5 dumps the output rows; the
 * environment and the NPU load sampled during the runs go with them. */
#include "record/board_facts.h"
#include "record/inputs.h"
#include "record/load_sampler.h"
#include "record/perf_rows.h"
#include "record/rows.h"
#include "record/source_board.h"
#include "record/timing.h"
#include "record/version.h"
#include "dump/dump.h"
#include "rknn_api.h"
#include "util/util.h"
#include "util/dtype.h"
#include "runtime/model/model.h"
#include "tracer/board.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct vendor_api {
    void *h;
    __typeof__(rknn_init) *init;
    __typeof__(rknn_destroy) *destroy;
    __typeof__(rknn_query) *query;
    __typeof__(rknn_inputs_set) *inputs_set;
    __typeof__(rknn_run) *run;
    __typeof__(rknn_outputs_get) *outputs_get;
    __typeof__(rknn_outputs_release) *outputs_release;
} vendor_api;

static int load_api(vendor_api *a, const char *path, char *err, size_t errlen)
{
    memset(a, 0, sizeof(*a));
    if (!(a->h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return rt_err(err, errlen, RT_EINVAL, "cannot load the runtime %s: %s", path, dlerror());
#define SYM(field, name)                                                                      \
    if (!(*(void **)&a->field = dlsym(a->h, name)))                                           \
        return rt_err(err, errlen, RT_EINVAL, "the runtime %s has no %s (too old a version?)", \
                      path, name);
    SYM(init, "rknn_init")
    SYM(destroy, "rknn_destroy")
    SYM(query, "rknn_query")
    SYM(inputs_set, "rknn_inputs_set")
    SYM(run, "rknn_run")
    SYM(outputs_get, "rknn_outputs_get")
    SYM(outputs_release, "rknn_outputs_release")
#undef SYM
    return 0;
}

/* ---- inputs ---- */
/* The seeded input of every backend (record/seed_input.c) as float32: the
 * runtime converts it to the model's type and layout as it would for an
 * application. A 4-D input the runtime holds as NHWC is fed in NCHW order, the
 * order the simulator fills, so that a seed is the same input on both. */
static void seeded_input(const rknn_tensor_attr *a, long long seed, int index, rknn_input *in,
                         run_input_fed *fed, int64_t *dims)
{
    float *f = xmalloc((size_t)(a->n_elems ? a->n_elems : 1) * sizeof(float));

    seed_input_fill(DT_FLOAT, a->n_elems, seed, index, f);
    in->buf = f;
    in->size = a->n_elems * (uint32_t)sizeof(float);
    in->type = RKNN_TENSOR_FLOAT32;
    in->fmt = a->fmt;
    fed->ndim = a->n_dims < MODEL_MAX_DIMS ? (int)a->n_dims : MODEL_MAX_DIMS;
    for (int k = 0; k < fed->ndim; k++)
        dims[k] = a->dims[k];
    if (a->n_dims == 4 && a->fmt == RKNN_TENSOR_NHWC) {
        in->fmt = RKNN_TENSOR_NCHW;
        dims[1] = a->dims[3], dims[2] = a->dims[1], dims[3] = a->dims[2];
    }
    fed->name = a->name;
    fed->dtype = "float32";
    fed->dims = dims;
    fed->data = f;
    fed->nbytes = in->size;
}

/* rknn type of a .npy's dtype, -1 for one the API cannot take. */
static int rknn_type_of(int dt)
{
    switch (dt) {
    case DT_FLOAT: return RKNN_TENSOR_FLOAT32;
    case DT_FLOAT16: return RKNN_TENSOR_FLOAT16;
    case DT_UINT8: return RKNN_TENSOR_UINT8;
    case DT_INT8: return RKNN_TENSOR_INT8;
    case DT_INT16: return RKNN_TENSOR_INT16;
    case DT_INT32: return RKNN_TENSOR_INT32;
    default: return -1;
    }
}

/* -i NAME=FILE.npy: the file's bytes replace input NAME's random data, in its own
 * dtype; a 4-D file in the NCHW order of an NHWC input goes as NCHW (the runtime
 * converts, as for an application). */
static int given_inputs(const board_exec_opts *o, const rknn_tensor_attr *attr, uint32_t n,
                        rknn_input *ins, run_input_fed *fed, int64_t (*dims)[8], char *err,
                        size_t errlen)
{
    for (int k = 0; k < o->n_in; k++) {
        uint32_t i = 0;
        npy_array a;
        int rc, type;

        while (i < n && strncmp(attr[i].name, o->in_name[k], RKNN_MAX_NAME_LEN))
            i++;
        if (i == n)
            return rt_err(err, errlen, RT_EINVAL, "-i %s: the model has no input of that name "
                          "(its first: %s)", o->in_name[k], attr[0].name);
        if ((rc = npy_read(o->in_file[k], &a, err, errlen)))
            return rc;
        if ((type = rknn_type_of(a.dtype)) < 0 || a.count != attr[i].n_elems) {
            rc = rt_err(err, errlen, RT_EINVAL, "%s: %s with %zu elements; input %s takes %u "
                        "elements (float32, float16, uint8, int8, int16 or int32)", o->in_file[k],
                        dtype_name(a.dtype), a.count, attr[i].name, attr[i].n_elems);
            npy_free(&a);
            return rc;
        }
        rknn_tensor_format fmt = attr[i].fmt;
        if (a.ndim == 4 && attr[i].n_dims == 4 && attr[i].fmt == RKNN_TENSOR_NHWC &&
            a.dims[1] == attr[i].dims[3] && a.dims[2] == attr[i].dims[1] && a.dims[3] == attr[i].dims[2] &&
            a.dims[1] != a.dims[3])
            fmt = RKNN_TENSOR_NCHW;
        free(ins[i].buf);
        ins[i].buf = xmalloc(a.nbytes ? a.nbytes : 1);
        memcpy(ins[i].buf, a.data, a.nbytes);
        ins[i].size = (uint32_t)a.nbytes;
        ins[i].type = (rknn_tensor_type)type;
        ins[i].fmt = fmt;
        fed[i].file = o->in_file[k];
        fed[i].dtype = dtype_name(a.dtype);
        fed[i].ndim = a.ndim < 8 ? a.ndim : 8;
        for (int d = 0; d < fed[i].ndim; d++)
            dims[i][d] = a.dims[d];
        fed[i].data = ins[i].buf;
        fed[i].nbytes = ins[i].size;
        npy_free(&a);
    }
    return 0;
}

/* The runtime's level-5 dumps of the profiled run (RKNN_LOG_LEVEL=5 and
 * RKNN_DUMP_DIR around it; the runtime's own print goes to stderr, keeping a
 * --json stdout clean). */
typedef struct dump_guard {
    char dir[PATH_MAX];
    char *old_level, *old_dir;
    int saved_stdout;
} dump_guard;

static int dump_begin(dump_guard *g, const char *dir, char *err, size_t errlen)
{
    const char *l = getenv("RKNN_LOG_LEVEL"), *d = getenv("RKNN_DUMP_DIR");

    memset(g, 0, sizeof(*g));
    g->saved_stdout = -1;
    if (mkdir(dir, 0777) && errno != EEXIST)
        return rt_err(err, errlen, RT_EIO, "--dump %s: %s", dir, strerror(errno));
    if (!realpath(dir, g->dir))
        return rt_err(err, errlen, RT_EIO, "--dump %s: %s", dir, strerror(errno));
    g->old_level = l ? xstrdup(l) : NULL;
    g->old_dir = d ? xstrdup(d) : NULL;
    setenv("RKNN_LOG_LEVEL", "5", 1);
    setenv("RKNN_DUMP_DIR", g->dir, 1);
    fflush(stdout);
    if ((g->saved_stdout = dup(STDOUT_FILENO)) >= 0)
        dup2(STDERR_FILENO, STDOUT_FILENO);
    return 0;
}

static void dump_end(dump_guard *g)
{
    if (!g->dir[0])
        return;
    fflush(stdout);
    if (g->saved_stdout >= 0) {
        dup2(g->saved_stdout, STDOUT_FILENO);
        close(g->saved_stdout);
        g->saved_stdout = -1;
    }
    g->old_level ? setenv("RKNN_LOG_LEVEL", g->old_level, 1) : unsetenv("RKNN_LOG_LEVEL");
    g->old_dir ? setenv("RKNN_DUMP_DIR", g->old_dir, 1) : unsetenv("RKNN_DUMP_DIR");
    free(g->old_level);
    free(g->old_dir);
    g->old_level = g->old_dir = NULL;
}

/* The .npy files of the dump folder, named as the vendor names them, in order. */
static int cmp_dump(const void *a, const void *b)
{
    const vlog_dump_t *x = a, *y = b;
    return x->index != y->index ? (x->index > y->index) - (x->index < y->index) : strcmp(x->path, y->path);
}

static vlog_dump_t *dump_files(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    vlog_dump_t *v = NULL;
    char path[PATH_MAX + 300];

    *n = 0;
    while (d && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".npy") ||
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof v->path)
            continue; /* a path the row cannot hold is left out */
        v = xrealloc(v, (size_t)(*n + 1) * sizeof(*v));
        if (vlog_parse_dump_name(path, &v[*n]) != 0) {
            memset(&v[*n], 0, sizeof(*v));
            v[*n].index = -1;
            snprintf(v[*n].name, sizeof v[*n].name, "%.*s", (int)(l - 4), e->d_name);
        }
        memcpy(v[*n].path, path, strlen(path) + 1);
        (*n)++;
    }
    if (d)
        closedir(d);
    if (*n)
        qsort(v, (size_t)*n, sizeof(*v), cmp_dump);
    return v;
}

int board_exec(const board_exec_opts *o, run_rows *rows, board_exec_out *res, char *err,
               size_t errlen)
{
    vendor_api api;
    rknn_context ctx = 0, pctx = 0;
    rknn_input_output_num io = {0};
    rknn_tensor_attr *iattr = NULL;
    rknn_input *ins = NULL;
    run_input_fed *fed = NULL;
    int64_t (*in_dims)[8] = NULL;
    rknn_output *outs = NULL;
    rknn_sdk_version ver;
    rknn_perf_detail pd = {0};
    rknn_perf_run pr = {0};
    perflog_table_t *tables = NULL;
    load_sampler smp = {0};
    dump_guard dg = {.saved_stdout = -1};
    vlog_dump_t *dumps = NULL;
    int n_dumps = 0;
    void *model = NULL;
    size_t model_len = 0;
    double *times = NULL;
    char sha[65];
    int n_tables = 0, have_ver = 0, ret = RT_EINTERNAL, rc, sampling = 0;
    long long iters = o->iters > 0 ? o->iters : 10, warmup = o->warmup >= 0 ? o->warmup : 2;

    if (o->target)
        setenv("RKNN_TARGET", o->target, 0); /* the simulated runtime's chip; the vendor's ignores it */
    memset(res, 0, sizeof(*res));
    memset(rows, 0, sizeof(*rows));
    if (load_api(&api, o->runtime, err, errlen))
        return RT_EIO;
    if ((rc = rt_read_file(o->model, &model, &model_len, err, errlen))) {
        ret = RT_EIO; /* the file or the runtime: bad input */
        goto out;
    }
    rt_sha256_hex(model, model_len, sha);
    if ((rc = api.init(&ctx, model, (uint32_t)model_len, 0, NULL)) != RKNN_SUCC) {
        ret = rt_err(err, errlen, RT_EIO, "%s: rknn_init of the runtime %s failed (%d)", o->model,
                     o->runtime, rc);
        ctx = 0;
        goto out;
    }
    have_ver = api.query(ctx, RKNN_QUERY_SDK_VERSION, &ver, sizeof ver) == RKNN_SUCC;
    if (api.query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) != RKNN_SUCC || !io.n_input ||
        io.n_input > 64 || io.n_output > 64) {
        ret = rt_err(err, errlen, RT_EIO, "%s: the runtime answers no usable input/output count",
                     o->model);
        goto out;
    }
    iattr = xcalloc(io.n_input, sizeof(*iattr));
    ins = xcalloc(io.n_input, sizeof(*ins));
    outs = xcalloc(io.n_output ? io.n_output : 1, sizeof(*outs));
    fed = xcalloc(io.n_input, sizeof(*fed));
    in_dims = xcalloc(io.n_input, sizeof(*in_dims));
    for (uint32_t i = 0; i < io.n_input; i++) {
        iattr[i].index = i;
        if (api.query(ctx, RKNN_QUERY_INPUT_ATTR, &iattr[i], sizeof iattr[i]) != RKNN_SUCC) {
            ret = rt_err(err, errlen, RT_EIO, "%s: no attributes for input %u", o->model, i);
            goto out;
        }
        ins[i].index = i;
        seeded_input(&iattr[i], o->seed, (int)i, &ins[i], &fed[i], in_dims[i]);
    }
    if ((rc = given_inputs(o, iattr, io.n_input, ins, fed, in_dims, err, errlen))) {
        ret = RT_EIO; /* the file or the runtime: bad input */
        goto out;
    }
    if (o->db && (rc = store_preflight(o->db, o->label, err, errlen))) {
        ret = rc;
        goto out;
    }

    load_sampler_start(&smp, o->root);
    sampling = 1;
    times = xcalloc((size_t)iters, sizeof(double));
    for (long long k = -warmup; k < iters; k++) {
        for (uint32_t i = 0; i < io.n_output; i++)
            outs[i] = (rknn_output){.want_float = 1, .index = i};
        if (api.inputs_set(ctx, io.n_input, ins) != RKNN_SUCC) {
            ret = rt_err(err, errlen, RT_EIO, "%s: rknn_inputs_set failed", o->model);
            goto out;
        }
        double t0 = rt_now_us();
        rc = api.run(ctx, NULL);
        double t1 = rt_now_us();
        if (rc != RKNN_SUCC || api.outputs_get(ctx, io.n_output, outs, NULL) != RKNN_SUCC) {
            ret = rt_err(err, errlen, RT_EIO, "%s: rknn_run/rknn_outputs_get failed (%d)", o->model,
                         rc);
            goto out;
        }
        api.outputs_release(ctx, io.n_output, outs);
        if (k >= 0)
            times[k] = t1 - t0;
    }
    /* the profiled run: its own context, perf collection on (and level 5 with --dump) */
    if (o->dump && (rc = dump_begin(&dg, o->dump, err, errlen))) {
        ret = RT_EIO; /* the file or the runtime: bad input */
        goto out;
    }
    if (api.init(&pctx, model, (uint32_t)model_len, RKNN_FLAG_COLLECT_PERF_MASK, NULL) != RKNN_SUCC) {
        pctx = 0;
        ret = rt_err(err, errlen, RT_EIO, "%s: rknn_init with RKNN_FLAG_COLLECT_PERF_MASK failed",
                     o->model);
        goto out;
    }
    for (uint32_t i = 0; i < io.n_output; i++)
        outs[i] = (rknn_output){.want_float = 1, .index = i};
    if (api.inputs_set(pctx, io.n_input, ins) != RKNN_SUCC || api.run(pctx, NULL) != RKNN_SUCC ||
        api.outputs_get(pctx, io.n_output, outs, NULL) != RKNN_SUCC) {
        ret = rt_err(err, errlen, RT_EIO, "%s: the profiled run failed", o->model);
        goto out;
    }
    api.outputs_release(pctx, io.n_output, outs);
    dump_end(&dg);
    if (o->dump) {
        dumps = dump_files(dg.dir, &n_dumps);
        res->no_dumps = !n_dumps;
        snprintf(res->dump_dir, sizeof res->dump_dir, "%s", dg.dir);
    }
    if (api.query(pctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) != RKNN_SUCC || !pd.perf_data) {
        ret = rt_err(err, errlen, RT_EIO, "%s: the runtime gave no RKNN_QUERY_PERF_DETAIL",
                     o->model);
        goto out;
    }
    if (perflog_parse(pd.perf_data, strnlen(pd.perf_data, pd.data_len ? pd.data_len : SIZE_MAX),
                      &tables, &n_tables, err, errlen)) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        ret = rt_err(err, errlen, RT_EIO, "%s: PERF_DETAIL: %s", o->model, why);
        goto out;
    }
    if (!n_tables) {
        ret = rt_err(err, errlen, RT_EIO, "%s: PERF_DETAIL holds no table", o->model);
        goto out;
    }
    if (api.query(pctx, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) != RKNN_SUCC)
        pr.run_duration = -1;
    load_sampler_stop(&smp);
    sampling = 0;

    time_stats ts = time_stats_of(times, iters);
    board_facts bf = {.runtime = o->runtime, .api_version = have_ver ? ver.api_version : NULL,
                      .drv_version = have_ver ? ver.drv_version : NULL};
    board_model_facts(&bf, model, model_len);
    char platbuf[32], *inputs = inputs_json_of(fed, (int)io.n_input, o->seed);
    int lp[BOARD_MAX_CORES], nl = load_sampler_mean(&smp, 0, 1e300, lp);
    board_run br = {.model = o->model, .label = o->label, .runtime = o->runtime, .sha256 = sha,
                    .platform = board_platform(o->target, &bf, o->root, platbuf, sizeof platbuf),
                    .iters = iters, .warmup = warmup, .seed = o->seed, .times = times,
                    .perf = &tables[0], .perf_run_us = pr.run_duration >= 0 ? pr.run_duration : -1,
                    .dumps = dumps, .n_dumps = n_dumps, .dump_dir = dg.dir, .load = smp.rows,
                    .n_load = smp.n, .load_pct = lp, .n_load_pct = nl,
                    .env = run_env_json(o->root, &bf), .inputs_json = inputs};
    rc = run_rows_board(&br, rows, err, errlen);
    free(inputs);
    if (rc) {
        free(br.env);
        ret = rc;
        goto out;
    }
    /* the rows' strings point into the table and the dump list: theirs now */
    rows->perf_tables = tables;
    rows->n_perf_tables = n_tables;
    tables = NULL;
    run_rows_keep(rows, dumps);
    dumps = NULL;
    res->iters = iters;
    res->times = ts;
    res->perf_run_us = pr.run_duration;
    res->n_layers = rows->n_layers;
    res->n_load = rows->n_load;
    ret = RT_OK;
out:
    dump_end(&dg);
    free(dumps);
    if (sampling)
        load_sampler_stop(&smp);
    free(smp.rows);
    if (pctx)
        api.destroy(pctx);
    if (ctx)
        api.destroy(ctx);
    for (uint32_t i = 0; ins && i < io.n_input; i++)
        free(ins[i].buf);
    free(ins);
    free(outs);
    free(iattr);
    free(fed);
    free(in_dims);
    free(times);
    free(model);
    if (tables)
        perflog_free(tables, n_tables);
    /* api.h stays loaded: runtimes keep process-wide state (the vendor's threads, our
     * load accounting) that unloading would cut from under them */
    return ret;
}

int run_rows_board(const board_run *b, run_rows *rows, char *err, size_t errlen)
{
    const char *ext = strrchr(b->model, '.');
    time_stats ts = time_stats_of(b->times, b->iters);
    perf_layers pl;

    (void)err, (void)errlen;
    memset(rows, 0, sizeof(*rows));
    store_run_init(&rows->run);
    rt_iso_time(rows->time, sizeof rows->time);
    rows->run.time = rows->time;
    rows->run.label = b->label;
    rows->run.backend = store_backend_name(BACKEND_BOARD);
    rows->run.platform = b->platform ? run_rows_keep(rows, xstrdup(b->platform)) : NULL;
    rows->run.model_path = b->model;
    snprintf(rows->sha, sizeof rows->sha, "%s", b->sha256);
    rows->run.model_sha256 = rows->sha;
    rows->run.model_format = ext && !strcmp(ext, ".rknn") ? "rknn"
                             : ext && !strcmp(ext, ".onnx") ? "onnx" : NULL;
    rows->run.iterations = b->iters;
    rows->run.warmup = b->warmup;
    rows->run.seed = b->seed;
    rows->run.total_us = ts.median;
    rows->run.host_min_us = ts.min;
    rows->run.host_p90_us = ts.p90;
    rows->run.host_stddev_us = ts.stddev;
    rows->run.tool_version = RKNN_TRACE_VERSION;
    rows->run.env_json = rows->env = b->env;
    if (b->n_dumps)
        rows->run.dump_dir = rows->dump_dir = xstrdup(b->dump_dir);
    if (b->inputs_json)
        rows->run.inputs_json = rows->inputs_json = xstrdup(b->inputs_json);
    /* PERF_RUN is measured, not a prediction (npu_us); the summary's NPU
     * load is the mean per core */
    rows->run.extra_json = "{\"source\":\"run --backend board\"}";
    if (b->perf_run_us >= 0)
        rows->run.perf_run_us = b->perf_run_us;
    for (int c = 0; c < b->n_load_pct && c < STORE_MAX_CORES; c++)
        rows->run.load_pct[rows->run.n_load++] = b->load_pct[c];

    perf_layers_make(&pl, b->perf, NULL);
    rows->layers = pl.rows;
    rows->perf_text = pl.text;
    rows->n_layers = pl.n;
    rows->outs = xcalloc((size_t)(b->n_dumps ? b->n_dumps : 1), sizeof(*rows->outs));
    dump_rows_make(b->dumps, b->n_dumps, rows->outs,
                   run_rows_keep(rows, xcalloc((size_t)(b->n_dumps ? b->n_dumps : 1), 160)));
    rows->n_outs = b->n_dumps;
    rows->load = xcalloc((size_t)(b->n_load ? b->n_load : 1), sizeof(*rows->load));
    if (b->n_load)
        memcpy(rows->load, b->load, (size_t)b->n_load * sizeof(*rows->load));
    rows->n_load = b->n_load;
    return RT_OK;
}
