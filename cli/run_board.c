/* cli/run_board.c — `run MODEL --backend board`: the model on the NPU through a
 * vendor-style librknnrt.so loaded with dlopen. N timed runs without perf
 * collection (it slows the NPU), then one profiled run in a context made with
 * RKNN_FLAG_COLLECT_PERF_MASK whose PERF_DETAIL table becomes the layer rows;
 * the environment and the NPU load sampled during the runs are stored with it. */
#include "cli/cli.h"
#include "analyze/store.h"
#include "tracer/tracer.h"
#include "util/util.h"
#include "rknn_api.h"
#include "dump/dump.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* Where a vendor runtime usually is: Debian/Ubuntu board images, Rockchip's
 * rootfs (/usr/lib), Android (/vendor/lib64). */
static const char *const standard_paths[] = {
    "/usr/lib/librknnrt.so", "/usr/lib64/librknnrt.so", "/usr/lib/aarch64-linux-gnu/librknnrt.so",
    "/usr/local/lib/librknnrt.so", "/vendor/lib64/librknnrt.so", "/system/lib64/librknnrt.so",
};

const char *board_runtime_find(const char *given)
{
    const char *env = getenv("RKNN_TRACE_RUNTIME");

    if (given && *given)
        return given;
    if (env && *env)
        return env;
    for (size_t i = 0; i < sizeof standard_paths / sizeof *standard_paths; i++)
        if (access(standard_paths[i], R_OK) == 0)
            return standard_paths[i];
    return NULL;
}

int board_npu_present(const char *root)
{
    board_snapshot_t *s = xcalloc(1, sizeof(*s));
    char dev[600];
    int yes;

    board_snapshot(s, root, 0, BOARD_SNAP_DRM);
    snprintf(dev, sizeof dev, "%s/dev/rknpu", strcmp(root, "/") ? root : "");
    yes = s->drm_state == BOARD_OK || access(dev, F_OK) == 0;
    free(s);
    return yes;
}

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
static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Seeded float32 data in [0, 1) per input: the runtime converts it to the
 * model's type and layout as it would for an application. */
static float *random_input(uint32_t n, uint64_t seed)
{
    float *f = xmalloc((size_t)(n ? n : 1) * sizeof(float));
    uint64_t st = seed;

    for (uint32_t i = 0; i < n; i++)
        f[i] = (float)((splitmix(&st) >> 40) / (double)(1ULL << 24));
    return f;
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
static int given_inputs(const run_board_opts *o, const rknn_tensor_attr *attr, uint32_t n,
                        rknn_input *ins, char *err, size_t errlen)
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

int run_board(const run_board_opts *o)
{
    vendor_api api;
    rknn_context ctx = 0, pctx = 0;
    rknn_input_output_num io = {0};
    rknn_tensor_attr *iattr = NULL;
    rknn_input *ins = NULL;
    rknn_output *outs = NULL;
    rknn_sdk_version ver;
    rknn_perf_detail pd = {0};
    rknn_perf_run pr = {0};
    perflog_table_t *tables = NULL;
    load_sampler smp = {0};
    dump_guard dg = {.saved_stdout = -1};
    vlog_dump_t *dumps = NULL;
    int n_dumps = 0;
    store *st = NULL;
    store_run run;
    void *model = NULL;
    size_t model_len = 0;
    double *times = NULL;
    char err[1024] = "", sha[65], *env = NULL, idbuf[32];
    int n_tables = 0, have_ver = 0, ret = EXIT_INTERNAL, rc, sampling = 0;
    int64_t run_id = 0;
    long long iters = o->iters > 0 ? o->iters : 10, warmup = o->warmup >= 0 ? o->warmup : 2;

    if (o->target)
        setenv("RKNN_TARGET", o->target, 0); /* the simulated runtime's chip; the vendor's ignores it */
    if ((rc = load_api(&api, o->runtime, err, sizeof err))) {
        cli_error("%s", err);
        return EXIT_INPUT;
    }
    if ((rc = rt_read_file(o->model, &model, &model_len, err, sizeof err))) {
        cli_error("%s", err);
        ret = EXIT_INPUT;
        goto out;
    }
    rt_sha256_hex(model, model_len, sha);
    if ((rc = api.init(&ctx, model, (uint32_t)model_len, 0, NULL)) != RKNN_SUCC) {
        cli_error("%s: rknn_init of the runtime %s failed (%d)", o->model, o->runtime, rc);
        ret = EXIT_INPUT;
        ctx = 0;
        goto out;
    }
    have_ver = api.query(ctx, RKNN_QUERY_SDK_VERSION, &ver, sizeof ver) == RKNN_SUCC;
    if (api.query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) != RKNN_SUCC || !io.n_input ||
        io.n_input > 64 || io.n_output > 64) {
        cli_error("%s: the runtime answers no usable input/output count", o->model);
        ret = EXIT_INPUT;
        goto out;
    }
    iattr = xcalloc(io.n_input, sizeof(*iattr));
    ins = xcalloc(io.n_input, sizeof(*ins));
    outs = xcalloc(io.n_output ? io.n_output : 1, sizeof(*outs));
    for (uint32_t i = 0; i < io.n_input; i++) {
        iattr[i].index = i;
        if (api.query(ctx, RKNN_QUERY_INPUT_ATTR, &iattr[i], sizeof iattr[i]) != RKNN_SUCC) {
            cli_error("%s: no attributes for input %u", o->model, i);
            ret = EXIT_INPUT;
            goto out;
        }
        ins[i].index = i;
        ins[i].buf = random_input(iattr[i].n_elems, (uint64_t)o->seed * 1000003u + i);
        ins[i].size = iattr[i].n_elems * (uint32_t)sizeof(float);
        ins[i].type = RKNN_TENSOR_FLOAT32;
        ins[i].fmt = iattr[i].fmt;
    }
    if ((rc = given_inputs(o, iattr, io.n_input, ins, err, sizeof err))) {
        cli_error("%s", err);
        ret = EXIT_INPUT;
        goto out;
    }
    if (!o->no_db && (rc = store_preflight(store_default_path(o->db), o->label, err, sizeof err))) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }

    load_sampler_start(&smp, o->root);
    sampling = 1;
    times = xcalloc((size_t)iters, sizeof(double));
    for (long long k = -warmup; k < iters; k++) {
        for (uint32_t i = 0; i < io.n_output; i++)
            outs[i] = (rknn_output){.want_float = 1, .index = i};
        if (api.inputs_set(ctx, io.n_input, ins) != RKNN_SUCC) {
            cli_error("%s: rknn_inputs_set failed", o->model);
            ret = EXIT_INPUT;
            goto out;
        }
        double t0 = rt_now_us();
        rc = api.run(ctx, NULL);
        double t1 = rt_now_us();
        if (rc != RKNN_SUCC || api.outputs_get(ctx, io.n_output, outs, NULL) != RKNN_SUCC) {
            cli_error("%s: rknn_run/rknn_outputs_get failed (%d)", o->model, rc);
            ret = EXIT_INPUT;
            goto out;
        }
        api.outputs_release(ctx, io.n_output, outs);
        if (k >= 0)
            times[k] = t1 - t0;
    }
    /* the profiled run: its own context, perf collection on (and level 5 with --dump) */
    if (o->dump && (rc = dump_begin(&dg, o->dump, err, sizeof err))) {
        cli_error("%s", err);
        ret = EXIT_INPUT;
        goto out;
    }
    if (api.init(&pctx, model, (uint32_t)model_len, RKNN_FLAG_COLLECT_PERF_MASK, NULL) != RKNN_SUCC) {
        pctx = 0;
        cli_error("%s: rknn_init with RKNN_FLAG_COLLECT_PERF_MASK failed", o->model);
        ret = EXIT_INPUT;
        goto out;
    }
    for (uint32_t i = 0; i < io.n_output; i++)
        outs[i] = (rknn_output){.want_float = 1, .index = i};
    if (api.inputs_set(pctx, io.n_input, ins) != RKNN_SUCC || api.run(pctx, NULL) != RKNN_SUCC ||
        api.outputs_get(pctx, io.n_output, outs, NULL) != RKNN_SUCC) {
        cli_error("%s: the profiled run failed", o->model);
        ret = EXIT_INPUT;
        goto out;
    }
    api.outputs_release(pctx, io.n_output, outs);
    dump_end(&dg);
    if (o->dump) {
        dumps = dump_files(dg.dir, &n_dumps);
        if (!n_dumps)
            fprintf(stderr, "rknn-trace: warning: the runtime wrote no level-5 dumps into %s\n", dg.dir);
    }
    if (api.query(pctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) != RKNN_SUCC || !pd.perf_data) {
        cli_error("%s: the runtime gave no RKNN_QUERY_PERF_DETAIL", o->model);
        ret = EXIT_INPUT;
        goto out;
    }
    if (perflog_parse(pd.perf_data, strnlen(pd.perf_data, pd.data_len ? pd.data_len : SIZE_MAX),
                      &tables, &n_tables, err, sizeof err)) {
        cli_error("%s: PERF_DETAIL: %s", o->model, err);
        ret = EXIT_INPUT;
        goto out;
    }
    if (api.query(pctx, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) != RKNN_SUCC)
        pr.run_duration = -1;
    load_sampler_stop(&smp);
    sampling = 0;

    time_stats ts = board_time_stats(times, (int)iters);
    double med = ts.median, p90 = ts.p90;
    board_facts bf = {.runtime = o->runtime, .api_version = have_ver ? ver.api_version : NULL,
                      .drv_version = have_ver ? ver.drv_version : NULL};
    board_model_facts(&bf, model, model_len);
    env = run_env_json(o->root, &bf);
    char platbuf[32], extra[256];
    int lp[BOARD_MAX_CORES], nl = load_sampler_mean(&smp, 0, 1e300, lp);
    size_t u = (size_t)snprintf(extra, sizeof extra, "{\"source\":\"run --backend board\"");
    if (pr.run_duration >= 0)
        u += (size_t)snprintf(extra + u, sizeof extra - u, ",\"perf_run_us\":%lld",
                              (long long)pr.run_duration);
    for (int c = 0; c < nl && u < sizeof extra; c++) /* the summary's NPU load: mean per core */
        u += (size_t)snprintf(extra + u, sizeof extra - u, "%s%d", c ? "," : ",\"npu_load\":[", lp[c]);
    if (u < sizeof extra)
        snprintf(extra + u, sizeof extra - u, "%s}", nl ? "]" : "");

    if (!o->no_db) {
        char tm[32];
        const char *ext = strrchr(o->model, '.');
        store_run_init(&run);
        rt_iso_time(tm, sizeof tm);
        run.label = o->label;
        run.backend = "board";
        run.platform = board_platform(o->target, &bf, o->root, platbuf, sizeof platbuf);
        run.model_path = o->model;
        run.model_sha256 = sha;
        run.model_format = ext && !strcmp(ext, ".rknn") ? "rknn" : ext && !strcmp(ext, ".onnx") ? "onnx" : NULL;
        run.iterations = iters;
        run.warmup = warmup;
        run.seed = o->seed;
        run.host_min_us = ts.min;
        run.host_p90_us = p90;
        run.host_stddev_us = ts.stddev;
        run.extra_json = extra; /* PERF_RUN is measured: not a prediction (npu_us) */
        run.env_json = env;
        run.tool_version = RKNN_TRACE_VERSION;
        run.dump_dir = n_dumps ? dg.dir : NULL;
        if ((rc = store_open(store_default_path(o->db), &st, err, sizeof err)) == 0 &&
            (rc = store_run_begin(st, &run, &run_id, err, sizeof err)) == 0) {
            rc = perf_layers_store(st, run_id, &tables[0], NULL, err, sizeof err);
            if (!rc)
                rc = dump_rows_store(st, run_id, dumps, n_dumps, err, sizeof err);
            for (int k = 0; !rc && k < smp.n; k++)
                rc = store_load_add(st, run_id, &smp.rows[k], err, sizeof err);
            if (!rc)
                rc = store_run_commit(st, run_id, med, err, sizeof err);
            else
                store_run_abort(st, run_id);
        }
        if (rc) { /* measured, not stored: the figures, then why */
            printf("board: %s, %lld runs: rknn_run median %.1f us (min %.1f, p90 %.1f); profiled "
                   "run: %d layers, %lld us\n", o->runtime, iters, med, ts.min, p90,
                   tables[0].n_rows, (long long)pr.run_duration);
            ret = cli_not_recorded(err);
            goto out;
        }
        store_close(st);
        st = NULL;
        /* the same summary `show` prints */
        snprintf(idbuf, sizeof idbuf, "%lld", (long long)run_id);
        char *av[] = {"show", idbuf, "--db", (char *)store_default_path(o->db), o->json ? "--json" : NULL, NULL};
        ret = cmd_show(o->json ? 5 : 4, av);
        if (!o->json)
            printf("board: %s, %lld runs: rknn_run median %.1f us (min %.1f, p90 %.1f); profiled run "
                   "%lld us (RKNN_QUERY_PERF_RUN), %d layers; %d load samples\n", o->runtime, iters,
                   med, ts.min, p90, (long long)pr.run_duration, tables[0].n_rows, smp.n);
    } else {
        printf("board: %s, %lld runs: rknn_run median %.1f us (min %.1f, p90 %.1f); profiled run: "
               "%d layers, %lld us\n", o->runtime, iters, med, ts.min, p90, tables[0].n_rows,
               (long long)pr.run_duration);
        ret = EXIT_OK;
    }
out:
    dump_end(&dg);
    free(dumps);
    if (sampling)
        load_sampler_stop(&smp);
    free(smp.rows);
    if (st)
        store_close(st);
    if (pctx)
        api.destroy(pctx);
    if (ctx)
        api.destroy(ctx);
    for (uint32_t i = 0; ins && i < io.n_input; i++)
        free(ins[i].buf);
    free(ins);
    free(outs);
    free(iattr);
    free(times);
    free(env);
    free(model);
    if (tables)
        perflog_free(tables, n_tables);
    /* api.h stays loaded: runtimes keep process-wide state (the vendor's threads, our
     * load accounting) that unloading would cut from under them */
    return ret;
}
