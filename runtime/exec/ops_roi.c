/* runtime/exec/ops_roi.c — region-of-interest pooling of two-stage detectors
 * and DETR-style heads: RoiAlign (bilinear samples averaged or maxed per bin)
 * and MaxRoiPool (Caffe's integer bins), fp32.
 *
 * RoiAlign follows onnxruntime's kernel, which the ONNX conformance data was
 * made with: a sample outside [-1, size] contributes zero, coordinates below 0
 * clamp to 0, and mode "max" takes the largest weighted corner value of each
 * sample rather than the maximum of the interpolated values. */
#include "runtime/exec/kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- RoiAlign (opset 10 and 16) ---- */

static int ra_half_pixel(const graph_t *g, const node_t *n)
{
    /* opset 16 added the attribute with half_pixel as its default */
    const char *d = g->opset >= 16 ? "half_pixel" : "output_half_pixel";
    return !strcmp(node_attr_str(n, "coordinate_transformation_mode", d), "half_pixel");
}

static int ra_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 3, 3, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0), *r = node_input(g, n, 1), *b = node_input(g, n, 2);
    if (rc)
        return rc;
    const char *mode = node_attr_str(n, "mode", "avg");
    const char *ct = node_attr_str(n, "coordinate_transformation_mode", "half_pixel");
    if (strcmp(mode, "avg") && strcmp(mode, "max"))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "unsupported attribute mode=%s of op RoiAlign", mode);
    if (strcmp(ct, "half_pixel") && strcmp(ct, "output_half_pixel"))
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "unsupported attribute coordinate_transformation_mode=%s of op RoiAlign", ct);
    if (x->dtype != DT_FLOAT || r->dtype != DT_FLOAT || x->ndim != 4)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (RoiAlign): needs fp32 NCHW input and rois",
                      n->name);
    if (r->ndim != 2 || r->dims[1] != 4 || (b->dtype != DT_INT64 && b->dtype != DT_INT32) ||
        tensor_numel(b) != r->dims[0])
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (RoiAlign): rois must be [num_rois, 4] with one batch index each", n->name);
    int64_t oh = node_attr_int(n, "output_height", 1), ow = node_attr_int(n, "output_width", 1);
    if (oh < 1 || ow < 1 || node_attr_int(n, "sampling_ratio", 0) < 0)
        return rt_err(err, errlen, RT_EINVAL, "node '%s' (RoiAlign): output size and sampling_ratio",
                      n->name);
    int64_t d[4] = {r->dims[0], x->dims[1], oh, ow};
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, 4, d);
    return RT_OK;
}

/* Samples per output cell beyond which a ROI is refused: twice a whole 4K
 * frame pooled to one cell (3840 x 2160); it keeps the counts far from
 * overflowing and a run from taking hours on coordinates that are garbage. */
#define RA_MAX_SAMPLES 16777216.0

typedef struct ra_job {
    const float *x, *rois;
    const tensor_t *bidx;
    float *y;
    int64_t C, H, W, oh, ow, N;
    int sampling, half, is_max;
    float scale;
    int bad;  /* 1: a batch index out of range, 2: a ROI's sample grid (reported after the loop) */
} ra_job;

/* One bilinear sample at (y, x): the four corner offsets and weights, or 0
 * when the point lies outside [-1, size] or is NaN (a NaN ROI coordinate). */
static int ra_sample(double y, double x, int64_t H, int64_t W, int64_t *o, double *w)
{
    if (!(y >= -1.0 && y <= (double)H && x >= -1.0 && x <= (double)W))
        return 0;
    if (y <= 0)
        y = 0;
    if (x <= 0)
        x = 0;
    int64_t yl = (int64_t)y, xl = (int64_t)x, yh, xh;
    if (yl >= H - 1) {
        yh = yl = H - 1;
        y = (double)yl;
    } else
        yh = yl + 1;
    if (xl >= W - 1) {
        xh = xl = W - 1;
        x = (double)xl;
    } else
        xh = xl + 1;
    double ly = y - (double)yl, lx = x - (double)xl, hy = 1 - ly, hx = 1 - lx;
    o[0] = yl * W + xl, o[1] = yl * W + xh, o[2] = yh * W + xl, o[3] = yh * W + xh;
    w[0] = hy * hx, w[1] = hy * lx, w[2] = ly * hx, w[3] = ly * lx;
    return 1;
}

static void ra_range(void *arg, int64_t t0, int64_t t1)
{
    ra_job *j = arg;
    for (int64_t t = t0; t < t1; t++) { /* t = roi * C + c */
        int64_t roi = t / j->C, c = t % j->C, bi = tensor_get_int(j->bidx, roi);
        float *y = j->y + t * j->oh * j->ow;
        if (bi < 0 || bi >= j->N) {
            j->bad = 1;
            continue;
        }
        const float *r = j->rois + roi * 4, *x = j->x + (bi * j->C + c) * j->H * j->W;
        double off = j->half ? 0.5 : 0;
        double sw = r[0] * j->scale - off, sh = r[1] * j->scale - off;
        double rw = r[2] * j->scale - off - sw, rh = r[3] * j->scale - off - sh;
        if (!j->half) {
            rw = rw > 1 ? rw : 1;
            rh = rh > 1 ? rh : 1;
        }
        double bh = rh / (double)j->oh, bw = rw / (double)j->ow;
        double ghd = j->sampling > 0 ? j->sampling : ceil(rh / (double)j->oh);
        double gwd = j->sampling > 0 ? j->sampling : ceil(rw / (double)j->ow);
        if (!(ghd <= RA_MAX_SAMPLES && gwd <= RA_MAX_SAMPLES && ghd * gwd <= RA_MAX_SAMPLES)) {
            j->bad = 2; /* NaN coordinates fail too */
            continue;
        }
        /* an inverted box (half-pixel mode) takes no samples, as in onnxruntime */
        int64_t gh = ghd > 0 ? (int64_t)ghd : 0, gw = gwd > 0 ? (int64_t)gwd : 0;
        double count = (double)(gh * gw > 1 ? gh * gw : 1);
        for (int64_t ph = 0; ph < j->oh; ph++)
            for (int64_t pw = 0; pw < j->ow; pw++) {
                double acc = 0, mx = -DBL_MAX;
                int any = 0;
                for (int64_t iy = 0; iy < gh; iy++)
                    for (int64_t ix = 0; ix < gw; ix++) {
                        int64_t o[4];
                        double w[4];
                        double yy = sh + ph * bh + (iy + 0.5) * bh / (double)gh;
                        double xx = sw + pw * bw + (ix + 0.5) * bw / (double)gw;
                        if (!ra_sample(yy, xx, j->H, j->W, o, w)) {
                            /* onnxruntime counts the zero sample in both modes */
                            mx = fmax(mx, 0);
                            any = 1;
                            continue;
                        }
                        any = 1;
                        if (j->is_max)
                            for (int k = 0; k < 4; k++)
                                mx = fmax(mx, w[k] * x[o[k]]);
                        else
                            acc += w[0] * x[o[0]] + w[1] * x[o[1]] + w[2] * x[o[2]] + w[3] * x[o[3]];
                    }
                y[ph * j->ow + pw] = (float)(j->is_max ? (any ? mx : 0) : acc / count);
            }
    }
}

static int ra_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0), *r = node_input(g, n, 1);
    ra_job j = {.x = x->data, .rois = r->data, .bidx = node_input(g, n, 2),
                .y = node_output(g, n, 0)->data, .N = x->dims[0], .C = x->dims[1], .H = x->dims[2],
                .W = x->dims[3], .oh = node_attr_int(n, "output_height", 1),
                .ow = node_attr_int(n, "output_width", 1),
                .sampling = (int)node_attr_int(n, "sampling_ratio", 0), .half = ra_half_pixel(g, n),
                .is_max = !strcmp(node_attr_str(n, "mode", "avg"), "max"),
                .scale = node_attr_float(n, "spatial_scale", 1.0f)};
    if (r->dims[0] * j.C > 0)
        op_parallel_for_work(c, r->dims[0] * j.C, j.oh * j.ow * 16, ra_range, &j);
    if (j.bad == 2)
        return rt_err(c->err, c->errlen, RT_EINVAL,
                      "node '%s' (RoiAlign): a ROI is not finite or needs more than %.0f samples "
                      "per output cell", n->name, RA_MAX_SAMPLES);
    if (j.bad)
        return rt_err(c->err, c->errlen, RT_EINVAL, "node '%s' (RoiAlign): a batch index is outside [0, %lld)",
                      n->name, (long long)j.N);
    return RT_OK;
}

/* ---- MaxRoiPool: rois [num_rois, 5] = (batch, x1, y1, x2, y2) ---- */

static int mrp_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 2, 2, 1, err, errlen);
    tensor_t *x = node_input(g, n, 0), *r = node_input(g, n, 1);
    const int64_t *ps = NULL;
    if (rc)
        return rc;
    if (x->dtype != DT_FLOAT || r->dtype != DT_FLOAT || x->ndim != 4 || r->ndim != 2 || r->dims[1] != 5)
        return rt_err(err, errlen, RT_ESHAPE,
                      "node '%s' (MaxRoiPool): needs fp32 NCHW input and rois [num_rois, 5]", n->name);
    if (node_attr_ints(n, "pooled_shape", &ps) != 2 || ps[0] < 1 || ps[1] < 1)
        return rt_err(err, errlen, RT_EINVAL, "node '%s' (MaxRoiPool): pooled_shape needs 2 positive values",
                      n->name);
    int64_t d[4] = {r->dims[0], x->dims[1], ps[0], ps[1]};
    tensor_set_shape(node_output(g, n, 0), DT_FLOAT, 4, d);
    return RT_OK;
}

static int mrp_run(op_ctx *c, graph_t *g, node_t *n)
{
    const tensor_t *x = node_input(g, n, 0), *r = node_input(g, n, 1);
    const int64_t *ps = NULL;
    node_attr_ints(n, "pooled_shape", &ps);
    int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], PH = ps[0], PW = ps[1];
    float ss = node_attr_float(n, "spatial_scale", 1.0f);
    float *y = node_output(g, n, 0)->data;
    const float *rois = r->data;
    for (int64_t k = 0; k < r->dims[0]; k++) {
        const float *q = rois + k * 5;
        int64_t b = (int64_t)q[0];
        if (b < 0 || b >= N)
            return rt_err(c->err, c->errlen, RT_EINVAL, "node '%s' (MaxRoiPool): batch index %lld outside [0, %lld)",
                          n->name, (long long)b, (long long)N);
        int64_t x0 = (int64_t)round(q[1] * ss), y0 = (int64_t)round(q[2] * ss);
        int64_t x1 = (int64_t)round(q[3] * ss), y1 = (int64_t)round(q[4] * ss);
        int64_t rh = y1 - y0 + 1 > 1 ? y1 - y0 + 1 : 1, rw = x1 - x0 + 1 > 1 ? x1 - x0 + 1 : 1;
        double bh = (double)rh / (double)PH, bw = (double)rw / (double)PW;
        for (int64_t ch = 0; ch < C; ch++) {
            const float *xp = (const float *)x->data + (b * C + ch) * H * W;
            for (int64_t ph = 0; ph < PH; ph++)
                for (int64_t pw = 0; pw < PW; pw++) {
                    int64_t hs = (int64_t)floor(ph * bh) + y0, he = (int64_t)ceil((ph + 1) * bh) + y0;
                    int64_t ws = (int64_t)floor(pw * bw) + x0, we = (int64_t)ceil((pw + 1) * bw) + x0;
                    hs = hs < 0 ? 0 : hs > H ? H : hs, he = he < 0 ? 0 : he > H ? H : he;
                    ws = ws < 0 ? 0 : ws > W ? W : ws, we = we < 0 ? 0 : we > W ? W : we;
                    float m = (he <= hs || we <= ws) ? 0 : -FLT_MAX;
                    for (int64_t h = hs; h < he; h++)
                        for (int64_t w = ws; w < we; w++)
                            m = xp[h * W + w] > m ? xp[h * W + w] : m;
                    y[((k * C + ch) * PH + ph) * PW + pw] = m;
                }
        }
    }
    return RT_OK;
}

const op_def exec_ops_roi[] = {
    {"RoiAlign", "", ra_infer, NULL, ra_run, NULL, NULL},
    {"MaxRoiPool", "", mrp_infer, NULL, mrp_run, NULL, NULL},
    {0},
};
