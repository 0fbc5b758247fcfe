/* tests/tools/bench_api.c — cost of the RKNN C API layer over the executor it wraps
 * (issue 3 item 8).
 *
 *   bench_api [-n ITERS] [--header] MODEL [NAME=D0,D1,...]...
 *
 * Interleaves, ITERS times after a warm-up, on one model:
 *   exec      exec_run alone (the fp32 executor, no API: the baseline);
 *   general   rknn_inputs_set (float32 in the model's NCHW layout), rknn_run,
 *             rknn_outputs_get (want_float) + rknn_outputs_release, each timed; the
 *             executor's share of rknn_run is its host time inside that run
 *             (api_last_exec_us: RKNN_QUERY_PERF_RUN answers the simulated board's
 *             frame time, not this host's);
 *   image     rknn_inputs_set of a uint8 NHWC image (4-D inputs of 1/3/4 channels,
 *             what a camera app does: the conversion the NPU would do in hardware);
 *   zero-copy the application's copy into rknn_create_mem memory bound with the
 *             NATIVE_INPUT_ATTR (uint8 NHWC for images), NATIVE_OUTPUT_ATTR outputs,
 *             and rknn_run.
 * Prints one row of medians in microseconds (--header: the column names first):
 *   model exec_us run_us set_us run_ovh_us get_us api_ovh_us api_ovh_pct img_set_us
 *   zc_copy_us zc_run_ovh_us saved_board_us saved_sim_us
 * where run = rknn_run's wall time, api_ovh = set + (run - the executor's time inside
 * that rknn_run) + get, in % of exec. Zero-copy, per frame:
 * saved_board = (img_set + get) - zc_copy, the copies of the general flow that a board
 * does not make (its NPU reads the bound image and writes the native outputs itself);
 * saved_sim = (img_set + run_ovh + get) - (zc_copy + zc_run_ovh), measured here, where
 * rknn_run still converts the bound memory for the CPU executor (the simulated NPU's
 * input/output stage). img_set is set_us for models without an image input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "runtime/api/api_internal.h"
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "util/util.h"

#define MAX_IN 8
#define MAX_OUT 16

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

typedef struct spec {
    char name[128];
    int ndim;
    int64_t dims[MODEL_MAX_DIMS];
} spec;

static int parse_spec(const char *s, spec *o)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof(o->name))
        return -1;
    memcpy(o->name, s, (size_t)(eq - s));
    o->name[eq - s] = 0;
    o->ndim = 0;
    for (const char *p = eq + 1; *p && o->ndim < MODEL_MAX_DIMS;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v <= 0)
            return -1;
        o->dims[o->ndim++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return o->ndim ? 0 : -1;
}

int main(int argc, char **argv)
{
    int iters = 20, nspec = 0, header = 0, ret = 4, st;
    const char *model = NULL;
    spec sp[MAX_IN];
    char err[512];
    graph_t *g = NULL;
    exec_t *x = NULL;
    exec_opts eo = {0};
    input_shape_t sh[MAX_IN];
    rknn_context ctx = 0, zctx = 0;
    rknn_input_output_num io;
    rknn_tensor_attr ia[MAX_IN], zia[MAX_IN], zoa[MAX_OUT];
    rknn_input in[MAX_IN], img[MAX_IN];
    rknn_output out[MAX_OUT];
    rknn_tensor_mem *zin[MAX_IN] = {0}, *zout[MAX_OUT] = {0};
    void *fdata[MAX_IN] = {0}, *u8data[MAX_IN] = {0};
    int is_img[MAX_IN] = {0}, any_img = 0;
    double *t[11];

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--header") == 0)
            header = 1;
        else if (!model)
            model = argv[i];
        else if (nspec < MAX_IN && parse_spec(argv[i], &sp[nspec]) == 0)
            nspec++;
        else {
            fprintf(stderr, "bench_api: bad argument '%s'\n", argv[i]);
            return 1;
        }
    }
    if (!model || iters < 1) {
        fprintf(stderr, "usage: bench_api [-n ITERS] [--header] MODEL [NAME=D0,D1,...]...\n");
        return 1;
    }
    if (header)
        printf("%-32s %9s %9s %8s %10s %8s %10s %11s %10s %10s %13s %14s %12s\n", "model",
               "exec_us", "run_us", "set_us", "run_ovh_us", "get_us", "api_ovh_us",
               "api_ovh_pct", "img_set_us", "zc_copy_us", "zc_run_ovh_us", "saved_board_us",
               "saved_sim_us");
    for (int k = 0; k < 11; k++)
        t[k] = xcalloc((size_t)iters, sizeof(double));

    /* ---- the baseline: the executor alone ---- */
    st = model_load_file(model, &g, err, sizeof(err));
    if (st)
        goto fail;
    if (g->n_inputs > MAX_IN) {
        snprintf(err, sizeof(err), "more than %d inputs", MAX_IN);
        goto fail;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const tensor_t *ti = &g->t[g->inputs[i]];
        sh[i].name = ti->name;
        sh[i].ndim = ti->ndim;
        for (int d = 0; d < ti->ndim; d++)
            sh[i].dims[d] = ti->dims[d] < 0 ? 1 : ti->dims[d];
        for (int s = 0; s < nspec; s++)
            if (strcmp(sp[s].name, ti->name) == 0) {
                sh[i].ndim = sp[s].ndim;
                memcpy(sh[i].dims, sp[s].dims, sizeof(sh[i].dims));
            }
    }
    st = passes_prepare(g, sh, g->n_inputs, err, sizeof(err));
    if (!st)
        st = exec_create(g, &eo, &x, err, sizeof(err));
    if (st)
        goto fail;

    /* ---- the API contexts ---- */
    if (rknn_init(&ctx, (void *)model, 0, 0, NULL) || rknn_init(&zctx, (void *)model, 0, 0, NULL) ||
        rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)) || io.n_input != (uint32_t)g->n_inputs ||
        io.n_output > MAX_OUT) {
        snprintf(err, sizeof(err), "rknn_init/query failed");
        goto fail;
    }
    for (uint32_t i = 0; i < io.n_input; i++) {
        memset(&ia[i], 0, sizeof(ia[i]));
        ia[i].index = i;
        ia[i].fmt = RKNN_TENSOR_NCHW;
        ia[i].n_dims = (uint32_t)sh[i].ndim;
        for (int d = 0; d < sh[i].ndim; d++)
            ia[i].dims[d] = (uint32_t)sh[i].dims[d];
    }
    if (rknn_set_input_shapes(ctx, io.n_input, ia) || rknn_set_input_shapes(zctx, io.n_input, ia)) {
        snprintf(err, sizeof(err), "rknn_set_input_shapes failed");
        goto fail;
    }
    uint64_t seed = 12345;
    for (uint32_t i = 0; i < io.n_input; i++) {
        const tensor_t *ti = &g->t[g->inputs[i]];
        size_t nb = tensor_nbytes(ti), n = (size_t)tensor_numel(ti);
        fdata[i] = xmalloc(nb ? nb : 1);
        u8data[i] = xmalloc(n ? n : 1);
        for (size_t k = 0; k < nb; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            ((uint8_t *)u8data[i])[k % (n ? n : 1)] = (uint8_t)(seed >> 56);
        }
        for (size_t k = 0; k < n && ti->dtype == DT_FLOAT; k++)
            ((float *)fdata[i])[k] = ((uint8_t *)u8data[i])[k] / 255.0f;
        if (ti->dtype != DT_FLOAT)
            memset(fdata[i], 0, nb);
        if (exec_set_input(x, (int)i, fdata[i], nb, err, sizeof(err)))
            goto fail;
        memset(&in[i], 0, sizeof(in[i]));
        in[i].index = i;
        in[i].buf = fdata[i];
        in[i].size = (uint32_t)nb;
        in[i].type = ti->dtype == DT_FLOAT ? RKNN_TENSOR_FLOAT32 : RKNN_TENSOR_UINT8;
        in[i].pass_through = ti->dtype != DT_FLOAT; /* other types: the model's own bytes */
        in[i].fmt = RKNN_TENSOR_NCHW;
        is_img[i] = ti->dtype == DT_FLOAT && ti->ndim == 4 &&
                    (ti->dims[1] == 1 || ti->dims[1] == 3 || ti->dims[1] == 4);
        any_img |= is_img[i];
        img[i] = in[i];
        if (is_img[i]) {
            img[i].buf = u8data[i];
            img[i].size = (uint32_t)n;
            img[i].type = RKNN_TENSOR_UINT8;
            img[i].fmt = RKNN_TENSOR_NHWC;
        }

        /* zero-copy input: native attr, uint8 NHWC for an image */
        memset(&zia[i], 0, sizeof(zia[i]));
        zia[i].index = i;
        if (rknn_query(zctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &zia[i], sizeof(zia[i]))) {
            snprintf(err, sizeof(err), "native input attr");
            goto fail;
        }
        if (is_img[i])
            zia[i].type = RKNN_TENSOR_UINT8;
        else
            zia[i].pass_through = 1;
        zin[i] = rknn_create_mem(zctx, zia[i].size_with_stride);
        if (!zin[i] || rknn_set_io_mem(zctx, zin[i], &zia[i])) {
            snprintf(err, sizeof(err), "zero-copy input binding");
            goto fail;
        }
    }
    for (uint32_t i = 0; i < io.n_output; i++) {
        memset(&zoa[i], 0, sizeof(zoa[i]));
        zoa[i].index = i;
        if (rknn_query(zctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &zoa[i], sizeof(zoa[i])) ||
            !(zout[i] = rknn_create_mem(zctx, zoa[i].size_with_stride)) ||
            rknn_set_io_mem(zctx, zout[i], &zoa[i])) {
            snprintf(err, sizeof(err), "zero-copy output binding");
            goto fail;
        }
    }

    /* Phase by phase (each context's worker threads spin a little after a run, and
     * would slow whichever context runs next on a busy 2-CPU host), two warm-ups each. */
    for (int it = -2; it < iters; it++) {
        int k = it < 0 ? 0 : it;
        double a = rt_now_us();
        if (exec_run(x, NULL, NULL, err, sizeof(err)))
            goto fail;
        t[0][k] = rt_now_us() - a;
    }
    for (int it = -2; it < iters; it++) {
        int k = it < 0 ? 0 : it;
        double a, b;

        /* general flow, float input */
        a = rt_now_us();
        if (rknn_inputs_set(ctx, io.n_input, in))
            goto api_fail;
        b = rt_now_us();
        t[1][k] = b - a;
        if (rknn_run(ctx, NULL))
            goto api_fail;
        a = rt_now_us();
        t[7][k] = a - b;
        t[2][k] = a - b - (double)api_last_exec_us(ctx);
        memset(out, 0, sizeof(out));
        for (uint32_t i = 0; i < io.n_output; i++) {
            out[i].index = i;
            out[i].want_float = 1;
        }
        if (rknn_outputs_get(ctx, io.n_output, out, NULL) ||
            rknn_outputs_release(ctx, io.n_output, out))
            goto api_fail;
        t[3][k] = rt_now_us() - a;

        /* the camera image through rknn_inputs_set */
        a = rt_now_us();
        if (any_img && rknn_inputs_set(ctx, io.n_input, img))
            goto api_fail;
        t[4][k] = any_img ? rt_now_us() - a : 0;

    }
    for (int it = -2; it < iters; it++) {
        int k = it < 0 ? 0 : it;
        double a, b;

        /* zero-copy: the application's copy into the bound memory, then run */
        a = rt_now_us();
        for (uint32_t i = 0; i < io.n_input; i++) {
            uint8_t *dst = zin[i]->virt_addr;
            if (is_img[i]) { /* rows of w_stride pixels */
                uint32_t h = zia[i].dims[1], w = zia[i].dims[2], c = zia[i].dims[3];
                for (uint32_t r = 0; r < h * zia[i].dims[0]; r++)
                    memcpy(dst + (size_t)r * zia[i].w_stride * c,
                           (uint8_t *)u8data[i] + (size_t)r * w * c, (size_t)w * c);
            } else {
                /* data already produced in the native layout by the application */
                memcpy(dst, fdata[i], zia[i].size < in[i].size ? zia[i].size : in[i].size);
            }
        }
        b = rt_now_us();
        t[5][k] = b - a;
        if (rknn_run(zctx, NULL))
            goto api_fail;
        t[6][k] = rt_now_us() - b - (double)api_last_exec_us(zctx);
    }

    double exec_us = median(t[0], iters), set_us = median(t[1], iters);
    double run_us = median(t[7], iters), run_ovh = median(t[2], iters);
    double get_us = median(t[3], iters);
    double img_us = any_img ? median(t[4], iters) : set_us, zc_copy = median(t[5], iters);
    double zc_run = median(t[6], iters);
    double api = set_us + run_ovh + get_us;
    const char *base = strrchr(model, '/');
    printf("%-32s %9.1f %9.1f %8.1f %10.1f %8.1f %10.1f %10.2f%% %10.1f %10.1f %13.1f %14.1f "
           "%12.1f\n", base ? base + 1 : model, exec_us, run_us, set_us, run_ovh, get_us, api,
           100.0 * api / exec_us, img_us, zc_copy, zc_run, img_us + get_us - zc_copy,
           (img_us + run_ovh + get_us) - (zc_copy + zc_run));
    ret = 0;
    goto out;
api_fail:
    snprintf(err, sizeof(err), "an rknn_* call failed (see the E RKNN line above)");
fail:
    fprintf(stderr, "bench_api: %s: %s\n", model, err);
    ret = 2;
out:
    for (uint32_t i = 0; i < MAX_IN; i++) {
        if (zin[i])
            rknn_destroy_mem(zctx, zin[i]);
        free(fdata[i]);
        free(u8data[i]);
    }
    for (uint32_t i = 0; i < MAX_OUT; i++)
        if (zout[i])
            rknn_destroy_mem(zctx, zout[i]);
    if (ctx)
        rknn_destroy(ctx);
    if (zctx)
        rknn_destroy(zctx);
    if (x)
        exec_free(x);
    if (g)
        graph_free(g);
    for (int k = 0; k < 11; k++)
        free(t[k]);
    return ret;
}
