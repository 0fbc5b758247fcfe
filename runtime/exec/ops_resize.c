/* runtime/exec/ops_resize.c — Resize (opsets 10, 11, 13, 18) and Upsample (7, 9).
 *
 * Every mode is separable, so the op runs one 1-D pass per axis whose mapping is not
 * the identity. For each axis a table gives, per output position, up to four input
 * taps and their weights (nearest: 1, linear: 2, cubic: 4) or "extrapolate"
 * (tf_crop_and_resize outside the ROI). */
#include "runtime/exec/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC optimize("vect-cost-model=dynamic", "no-trapping-math")

enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { CT_HALF_PIXEL, CT_PYTORCH_HALF_PIXEL, CT_ALIGN_CORNERS, CT_ASYMMETRIC,
       CT_TF_HALF_PIXEL_NN, CT_TF_CROP_AND_RESIZE, CT_HALF_PIXEL_SYMMETRIC };
enum { NM_ROUND_PREFER_FLOOR, NM_ROUND_PREFER_CEIL, NM_FLOOR, NM_CEIL };

typedef struct rz_plan {
    int mode, ct, nm, exclude_outside;
    float cubic_a, extrap;
    int r;
    int64_t out[MODEL_MAX_DIMS];
    double scale[MODEL_MAX_DIMS];
    double roi_s[MODEL_MAX_DIMS], roi_e[MODEL_MAX_DIMS];
} rz_plan;

static int is_const_or_empty(const tensor_t *t)
{
    return !t || tensor_numel(t) == 0 || (t->kind == TK_CONST && t->data);
}

static int parse_str(const char *s, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

static int rz_plan_make(graph_t *g, const node_t *n, const tensor_t *x, rz_plan *p, char *err,
                        size_t errlen)
{
    static const char *const modes[] = { "nearest", "linear", "cubic" };
    static const char *const cts[] = { "half_pixel", "pytorch_half_pixel", "align_corners",
                                       "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize",
                                       "half_pixel_symmetric" };
    static const char *const nms[] = { "round_prefer_floor", "round_prefer_ceil", "floor", "ceil" };
    int r = x->ndim, legacy = !strcmp(n->op, "Upsample") || (g->opset > 0 && g->opset < 11);
    const char *ms = node_attr_str(n, "mode", "nearest");
    tensor_t *roi = NULL, *sc = NULL, *sz = NULL;
    int64_t axes[MODEL_MAX_DIMS];
    int na = r;

    memset(p, 0, sizeof(*p));
    p->r = r;
    if (!strcmp(ms, "bilinear") || !strcmp(ms, "trilinear"))
        ms = "linear";
    p->mode = parse_str(ms, modes, 3);
    if (p->mode < 0)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): mode '%s'", n->name, n->op, ms);
    if (legacy) {
        p->ct = CT_ASYMMETRIC;
        p->nm = NM_FLOOR;
        if (p->mode == M_CUBIC)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): cubic", n->name, n->op);
        sc = node_input(g, n, 1);
    } else {
        const char *c = node_attr_str(n, "coordinate_transformation_mode", "half_pixel");
        const char *m = node_attr_str(n, "nearest_mode", "round_prefer_floor");
        p->ct = parse_str(c, cts, 7);
        p->nm = parse_str(m, nms, 4);
        if (p->ct < 0 || p->nm < 0)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (Resize): mode '%s'/'%s'",
                          n->name, c, m);
        if (node_attr_int(n, "antialias", 0) && p->mode != M_NEAREST)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (Resize): antialias", n->name);
        roi = node_input(g, n, 1);
        sc = node_input(g, n, 2);
        sz = node_input(g, n, 3);
    }
    p->cubic_a = node_attr_float(n, "cubic_coeff_a", -0.75f);
    p->exclude_outside = (int)node_attr_int(n, "exclude_outside", 0);
    p->extrap = node_attr_float(n, "extrapolation_value", 0.0f);

    const int64_t *av;
    int k = node_attr_ints(n, "axes", &av);
    if (k >= 0 && !legacy) {
        if (k > r)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Resize): too many axes", n->name);
        for (int i = 0; i < k; i++) {
            int a = norm_axis(av[i], r);
            if (a < 0)
                return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Resize): bad axis", n->name);
            axes[i] = a;
        }
        na = k;
    } else {
        for (int i = 0; i < r; i++)
            axes[i] = i;
    }

    for (int i = 0; i < r; i++) {
        p->out[i] = x->dims[i];
        p->scale[i] = 1.0;
        p->roi_s[i] = 0.0;
        p->roi_e[i] = 1.0;
    }
    if (!is_const_or_empty(roi) || !is_const_or_empty(sc) || !is_const_or_empty(sz))
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "node '%s' (%s): roi/scales/sizes are not constant; dynamic shapes are not "
                      "supported", n->name, n->op);
    if (roi && tensor_numel(roi) > 0 && p->ct == CT_TF_CROP_AND_RESIZE) {
        if (tensor_numel(roi) != 2 * na)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Resize): roi has %lld values",
                          n->name, (long long)tensor_numel(roi));
        for (int i = 0; i < na; i++) {
            p->roi_s[axes[i]] = tensor_get_f64(roi, i);
            p->roi_e[axes[i]] = tensor_get_f64(roi, i + na);
        }
    }
    if (sz && tensor_numel(sz) > 0) {
        const char *pol = node_attr_str(n, "keep_aspect_ratio_policy", "stretch");
        if (tensor_numel(sz) != na)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (Resize): sizes has %lld values for %d axes",
                          n->name, (long long)tensor_numel(sz), na);
        if (!strcmp(pol, "stretch")) {
            for (int i = 0; i < na; i++) {
                int a = (int)axes[i];
                p->out[a] = tensor_get_int(sz, i);
                p->scale[a] = x->dims[a] ? (double)p->out[a] / (double)x->dims[a] : 1.0;
            }
        } else {
            int larger = !strcmp(pol, "not_smaller");
            double s = larger ? 0 : INFINITY;
            for (int i = 0; i < na; i++) {
                double v = (double)tensor_get_int(sz, i) / (double)x->dims[axes[i]];
                s = larger ? (v > s ? v : s) : (v < s ? v : s);
            }
            for (int i = 0; i < na; i++) {
                int a = (int)axes[i];
                p->scale[a] = s;
                p->out[a] = (int64_t)floor(s * (double)x->dims[a] + 0.5);
            }
        }
    } else if (sc && tensor_numel(sc) > 0) {
        if (tensor_numel(sc) != na)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): scales has %lld values for %d axes",
                          n->name, n->op, (long long)tensor_numel(sc), na);
        for (int i = 0; i < na; i++) {
            int a = (int)axes[i];
            double s = tensor_get_f64(sc, i);
            if (!(s > 0))
                return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): scale %g", n->name, n->op, s);
            p->scale[a] = s;
            double len = (double)x->dims[a];
            if (p->ct == CT_TF_CROP_AND_RESIZE)
                len *= p->roi_e[a] - p->roi_s[a];
            /* floor, with a little slack for scales like 1/3 * 3 */
            p->out[a] = (int64_t)floor(len * s + 1e-6);
        }
    } else if (legacy && node_attr(n, "scales")) {
        const float *fv;
        int m = node_attr_floats(n, "scales", &fv);
        if (m != r)
            return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): %d scales for rank %d",
                          n->name, n->op, m, r);
        for (int i = 0; i < r; i++) {
            p->scale[i] = fv[i];
            p->out[i] = (int64_t)floor((double)x->dims[i] * fv[i] + 1e-6);
        }
    } else {
        return rt_err(err, errlen, RT_EFORMAT, "node '%s' (%s): neither scales nor sizes", n->name,
                      n->op);
    }
    return RT_OK;
}

static int resize_infer(graph_t *g, node_t *n, char *err, size_t errlen)
{
    int rc = check_arity(n, 1, 4, 1, err, errlen);
    rz_plan p;
    tensor_t *x;
    if (rc)
        return rc;
    x = node_input(g, n, 0);
    rc = rz_plan_make(g, n, x, &p, err, errlen);
    if (rc)
        return rc;
    if (p.mode != M_NEAREST && x->dtype != DT_FLOAT)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): %s interpolation on %s",
                      n->name, n->op, p.mode == M_LINEAR ? "linear" : "cubic", dtype_name(x->dtype));
    tensor_set_shape(node_output(g, n, 0), x->dtype, x->ndim, p.out);
    return RT_OK;
}

/* ---- per-axis tables ----------------------------------------------------- */

typedef struct axis_tab {
    int taps;
    int64_t *idx;  /* out * taps; -1 marks "extrapolate" in idx[o * taps] */
    float *w;
} axis_tab;

static double orig_coord(const rz_plan *p, int a, int64_t o, int64_t in)
{
    /* The resized length is in * scale, not the floored output size: they differ
     * when scales are given (the ONNX reference uses the former). */
    double s = p->scale[a], x = (double)o, out = s * (double)in;
    switch (p->ct) {
    case CT_HALF_PIXEL: return (x + 0.5) / s - 0.5;
    case CT_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case CT_ALIGN_CORNERS: return out == 1 ? 0.0 : x * (double)(in - 1) / (out - 1);
    case CT_ASYMMETRIC: return x / s;
    case CT_TF_HALF_PIXEL_NN: return (x + 0.5) / s;
    case CT_TF_CROP_AND_RESIZE: {
        double st = p->roi_s[a], en = p->roi_e[a];
        out = (double)p->out[a];
        if (out > 1)
            return st * (double)(in - 1) + x * (en - st) * (double)(in - 1) / (out - 1);
        return 0.5 * (st + en) * (double)(in - 1);
    }
    case CT_HALF_PIXEL_SYMMETRIC: {
        double adj = out / (s * (double)in), center = (double)in / 2;
        double off = center * (1 - adj);
        return off + (x + 0.5) / s - 0.5;
    }
    }
    return x;
}

static int64_t clampi(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static void cubic_w(double t, double A, double *w)
{
    double x0 = t + 1, x1 = t, x2 = 1 - t, x3 = 2 - t;
    w[0] = ((A * x0 - 5 * A) * x0 + 8 * A) * x0 - 4 * A;
    w[1] = ((A + 2) * x1 - (A + 3)) * x1 * x1 + 1;
    w[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;
    w[3] = ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A;
}

/* Returns 1 when the axis maps every output to the same input position. */
static int axis_tab_make(const rz_plan *p, int a, int64_t in, axis_tab *t)
{
    int64_t out = p->out[a];
    int K = p->mode == M_NEAREST ? 1 : p->mode == M_LINEAR ? 2 : 4, ident = out == in;

    t->taps = K;
    t->idx = xmalloc((size_t)(out * K + 1) * sizeof(int64_t));
    t->w = xmalloc((size_t)(out * K + 1) * sizeof(float));
    for (int64_t o = 0; o < out; o++) {
        double x = orig_coord(p, a, o, in);
        int64_t *ix = t->idx + o * K;
        float *w = t->w + o * K;
        if (p->ct == CT_TF_CROP_AND_RESIZE && (x < 0 || x > (double)(in - 1))) {
            for (int k = 0; k < K; k++) {
                ix[k] = -1;
                w[k] = 0;
            }
            ident = 0;
            continue;
        }
        if (p->mode == M_NEAREST) {
            double f = floor(x), v;
            switch (p->nm) {
            case NM_ROUND_PREFER_FLOOR: v = (x - f == 0.5) ? f : floor(x + 0.5); break;
            case NM_ROUND_PREFER_CEIL: v = floor(x + 0.5); break;
            case NM_FLOOR: v = f; break;
            default: v = ceil(x); break;
            }
            ix[0] = clampi((int64_t)v, 0, in - 1);
            w[0] = 1;
            if (ix[0] != o)
                ident = 0;
        } else if (p->mode == M_LINEAR) {
            double xc = x < 0 ? 0 : (x > (double)(in - 1) ? (double)(in - 1) : x);
            int64_t i0 = (int64_t)floor(xc);
            double f = xc - (double)i0;
            ix[0] = clampi(i0, 0, in - 1);
            ix[1] = clampi(i0 + 1, 0, in - 1);
            w[0] = (float)(1 - f);
            w[1] = (float)f;
            if (ix[0] != o || f != 0)
                ident = 0;
        } else {
            int64_t i0 = (int64_t)floor(x);
            double f = x - (double)i0, cw[4], sum = 0;
            cubic_w(f, p->cubic_a, cw);
            for (int k = 0; k < 4; k++) {
                int64_t j = i0 - 1 + k;
                if (p->exclude_outside && (j < 0 || j >= in))
                    cw[k] = 0;
                sum += cw[k];
                ix[k] = clampi(j, 0, in - 1);
            }
            for (int k = 0; k < 4; k++)
                w[k] = (float)(p->exclude_outside && sum != 0 ? cw[k] / sum : cw[k]);
            if (i0 != o || f != 0)
                ident = 0;
        }
    }
    return ident;
}

/* ---- the plan of one node: tables per axis and the path taken ------------ */

enum { PATH_COPY, PATH_NN2, PATH_LIN2, PATH_PASSES };

typedef struct rz_state {
    rz_plan p;
    int64_t in[MODEL_MAX_DIMS];
    axis_tab tabs[MODEL_MAX_DIMS];
    int todo[MODEL_MAX_DIMS];
    int npass, path;
    int64_t fw; /* PATH_NN2: output column o reads input o / fw (0: use the table) */
} rz_state;

static void rz_state_free(rz_state *s)
{
    if (!s)
        return;
    for (int a = 0; a < s->p.r; a++) {
        free(s->tabs[a].idx);
        free(s->tabs[a].w);
    }
}

/* Integer factor f when table t (one tap) maps output o to input o / f, else 0. */
static int64_t nn_factor(const axis_tab *t, int64_t in, int64_t out)
{
    int64_t f = in > 0 ? out / in : 0;
    if (f < 1 || f * in != out)
        return 0;
    for (int64_t o = 0; o < out; o++)
        if (t->idx[o] != o / f)
            return 0;
    return f;
}

static int rz_state_make(graph_t *g, const node_t *n, const tensor_t *x, rz_state *s, char *err,
                         size_t errlen)
{
    int rc, r = x->ndim, last2 = 1, extrap = 0;

    memset(s, 0, sizeof(*s));
    rc = rz_plan_make(g, n, x, &s->p, err, errlen);
    if (rc)
        return rc;
    for (int a = 0; a < r; a++) {
        s->in[a] = x->dims[a];
        s->todo[a] = !axis_tab_make(&s->p, a, x->dims[a], &s->tabs[a]);
        s->npass += s->todo[a];
        if (s->todo[a] && a < r - 2)
            last2 = 0;
        if (s->p.out[a] > 0 && s->tabs[a].idx[0] < 0)
            extrap = 1;
        for (int64_t o = 1; o < s->p.out[a] && !extrap; o++)
            if (s->tabs[a].idx[o * s->tabs[a].taps] < 0)
                extrap = 1;
    }
    /* Most models upsample H and W only: one pass straight into the output, no
     * intermediate buffers. */
    if (s->npass == 0)
        s->path = PATH_COPY;
    else if (r >= 2 && last2 && !extrap && dtype_size(x->dtype) == 4 && s->p.mode == M_NEAREST)
        s->path = PATH_NN2;
    else if (r >= 2 && last2 && !extrap && x->dtype == DT_FLOAT && s->p.mode == M_LINEAR &&
             s->todo[r - 2] && s->todo[r - 1])
        s->path = PATH_LIN2;
    else
        s->path = PATH_PASSES;
    if (s->path == PATH_NN2)
        s->fw = nn_factor(&s->tabs[r - 1], x->dims[r - 1], s->p.out[r - 1]);
    return RT_OK;
}

static int resize_prepare(graph_t *g, node_t *n, char *err, size_t errlen)
{
    rz_state *s = xcalloc(1, sizeof(*s));
    int rc = rz_state_make(g, n, node_input(g, n, 0), s, err, errlen);
    if (rc) {
        rz_state_free(s);
        free(s);
        return rc;
    }
    if (n->priv) {
        rz_state_free(n->priv);
        free(n->priv);
    }
    n->priv = s;
    return RT_OK;
}

static void resize_release(node_t *n)
{
    rz_state_free(n->priv);
    free(n->priv);
    n->priv = NULL;
}

/* ---- one pass over the last two axes -------------------------------------- */

typedef struct two_job {
    const rz_state *s;
    const char *src;
    char *dst;
    int64_t ih, iw, oh, ow;
} two_job;

/* One output row of nearest: the gather along the last axis. */
static void nn_row(uint32_t *restrict d, const uint32_t *restrict s, int64_t iw, int64_t ow,
                   int64_t fw, const int64_t *ix)
{
    if (fw == 1) {
        memcpy(d, s, (size_t)iw * 4);
    } else if (fw == 2) {
        for (int64_t i = 0; i < iw; i++) {
            d[2 * i] = s[i];
            d[2 * i + 1] = s[i];
        }
    } else if (fw == 4) {
        for (int64_t i = 0; i < iw; i++)
            for (int k = 0; k < 4; k++)
                d[4 * i + k] = s[i];
    } else if (fw > 0) {
        for (int64_t i = 0; i < iw; i++, d += fw)
            for (int64_t k = 0; k < fw; k++)
                d[k] = s[i];
    } else {
        for (int64_t o = 0; o < ow; o++)
            d[o] = s[ix[o]];
    }
}

static void nn2_range(void *arg, int64_t b, int64_t e)
{
    const two_job *j = arg;
    const int64_t *ih = j->s->tabs[j->s->p.r - 2].idx, *ixw = j->s->tabs[j->s->p.r - 1].idx;
    const uint32_t *src = (const uint32_t *)j->src;
    uint32_t *dst = (uint32_t *)j->dst;
    for (int64_t r = b; r < e; r++) {
        int64_t a = r / j->oh, o = r % j->oh;
        uint32_t *d = dst + r * j->ow;
        /* a repeated input row: copy the row just written (still in cache) */
        if (r > b && o > 0 && ih[o] == ih[o - 1])
            memcpy(d, d - j->ow, (size_t)j->ow * 4);
        else
            nn_row(d, src + (a * j->ih + ih[o]) * j->iw, j->iw, j->ow, j->s->fw, ixw);
    }
}

/* Bilinear: the same arithmetic, in the same order, as a pass along H then one
 * along W, without the intermediate tensor. */
static void lin2_range(void *arg, int64_t b, int64_t e)
{
    const two_job *j = arg;
    const axis_tab *th = &j->s->tabs[j->s->p.r - 2], *tw = &j->s->tabs[j->s->p.r - 1];
    const float *src = (const float *)j->src;
    float *dst = (float *)j->dst;
    for (int64_t r = b; r < e; r++) {
        int64_t a = r / j->oh, o = r % j->oh;
        const float *s0 = src + (a * j->ih + th->idx[2 * o]) * j->iw;
        const float *s1 = src + (a * j->ih + th->idx[2 * o + 1]) * j->iw;
        float h0 = th->w[2 * o], h1 = th->w[2 * o + 1];
        float *d = dst + r * j->ow;
        for (int64_t q = 0; q < j->ow; q++) {
            int64_t i0 = tw->idx[2 * q], i1 = tw->idx[2 * q + 1];
            float v0 = h0 * s0[i0] + h1 * s1[i0], v1 = h0 * s0[i1] + h1 * s1[i1];
            d[q] = tw->w[2 * q] * v0 + tw->w[2 * q + 1] * v1;
        }
    }
}

/* ---- general: one pass per axis -------------------------------------------- */

/* One pass along an axis: src [outer, in, inner] -> dst [outer, out, inner]. */
typedef struct pass_job {
    const axis_tab *t;
    const char *src;
    char *dst;
    int64_t in, out, inner;
    size_t es;
    float extrap;
} pass_job;

static void fill_extrap(char *d, int64_t n, size_t es, float v)
{
    if (es == 4) {
        float *df = (float *)d;
        for (int64_t i = 0; i < n; i++)
            df[i] = v;
    } else {
        memset(d, 0, (size_t)n * es);
    }
}

/* The last axis (inner == 1): items are whole rows of the outer dims. */
static void pass_last_range(void *arg, int64_t b, int64_t e)
{
    const pass_job *j = arg;
    int K = j->t->taps;
    const int64_t *idx = j->t->idx;
    const float *wt = j->t->w;
    for (int64_t a = b; a < e; a++) {
        const char *s = j->src + (size_t)(a * j->in) * j->es;
        char *d = j->dst + (size_t)(a * j->out) * j->es;
        if (K == 1 && j->es == 4) {
            const uint32_t *s4 = (const uint32_t *)s;
            uint32_t *d4 = (uint32_t *)d;
            for (int64_t o = 0; o < j->out; o++) {
                if (idx[o] < 0)
                    fill_extrap((char *)(d4 + o), 1, 4, j->extrap);
                else
                    d4[o] = s4[idx[o]];
            }
            continue;
        }
        for (int64_t o = 0; o < j->out; o++) {
            const int64_t *ix = idx + o * K;
            char *dd = d + (size_t)o * j->es;
            if (ix[0] < 0) {
                fill_extrap(dd, 1, j->es, j->extrap);
            } else if (K == 1) {
                memcpy(dd, s + (size_t)ix[0] * j->es, j->es);
            } else {
                const float *sf = (const float *)s, *w = wt + o * K;
                float acc = 0;
                for (int k = 0; k < K; k++)
                    acc += w[k] * sf[ix[k]];
                *(float *)dd = acc;
            }
        }
    }
}

/* An inner axis: items are (outer, out) rows of inner elements. */
static void pass_range(void *arg, int64_t b, int64_t e)
{
    const pass_job *j = arg;
    int K = j->t->taps;
    int64_t inner = j->inner;
    for (int64_t r = b; r < e; r++) {
        int64_t a = r / j->out, o = r % j->out;
        const int64_t *ix = j->t->idx + o * K;
        const float *w = j->t->w + o * K;
        char *d = j->dst + (size_t)(r * inner) * j->es;
        if (ix[0] < 0) {
            fill_extrap(d, inner, j->es, j->extrap);
            continue;
        }
        if (K == 1) {
            memcpy(d, j->src + (size_t)((a * j->in + ix[0]) * inner) * j->es, (size_t)inner * j->es);
            continue;
        }
        const float *s = (const float *)j->src + a * j->in * inner;
        float *df = (float *)d;
        const float *s0 = s + ix[0] * inner, *s1 = s + ix[1] * inner;
        float w0 = w[0], w1 = w[1];
        for (int64_t i = 0; i < inner; i++)
            df[i] = w0 * s0[i] + w1 * s1[i];
        for (int k = 2; k < K; k++) {
            const float *sk = s + ix[k] * inner;
            float wk = w[k];
            for (int64_t i = 0; i < inner; i++)
                df[i] += wk * sk[i];
        }
    }
}

static void run_passes(op_ctx *c, const rz_state *st, const tensor_t *x, tensor_t *y)
{
    int r = x->ndim;
    size_t es = dtype_size(x->dtype);
    int64_t cur[MODEL_MAX_DIMS];
    char *bufs[2] = { NULL, NULL };
    const char *src = x->data;

    for (int a = 0; a < r; a++)
        cur[a] = x->dims[a];
    /* Cheapest order is not critical here: outermost axes first. */
    for (int a = 0, done = 0; a < r; a++) {
        if (!st->todo[a])
            continue;
        pass_job j;
        int64_t outer = dims_prod(cur, 0, a), inner = dims_prod(cur, a + 1, r), out = st->p.out[a];
        char *dst;
        done++;
        if (done == st->npass) {
            dst = y->data;
        } else {
            int slot = done & 1;
            free(bufs[slot]);
            bufs[slot] = xmalloc((size_t)(outer * out * inner) * es + 1);
            dst = bufs[slot];
        }
        j.t = &st->tabs[a];
        j.src = src;
        j.dst = dst;
        j.in = cur[a];
        j.out = out;
        j.inner = inner;
        j.es = es;
        j.extrap = st->p.extrap;
        if (inner == 1)
            op_parallel_for_work(c, outer, out * j.t->taps, pass_last_range, &j);
        else
            op_parallel_for_work(c, outer * out, inner * j.t->taps, pass_range, &j);
        cur[a] = out;
        src = dst;
    }
    free(bufs[0]);
    free(bufs[1]);
}

static int resize_run(op_ctx *c, graph_t *g, node_t *n)
{
    tensor_t *x = node_input(g, n, 0), *y = node_output(g, n, 0);
    rz_state local, *st = n->priv;
    int rc = RT_OK, r = x->ndim;

    if (tensor_numel(y) <= 0)
        return RT_OK;
    /* Nodes run without prepare (constant folding, kernel tests) or with other
     * shapes than prepared build the tables here. */
    if (!st || st->p.r != r || memcmp(st->in, x->dims, sizeof(int64_t) * (size_t)r) ||
        (st->path == PATH_NN2 && dtype_size(x->dtype) != 4) ||
        (st->path == PATH_LIN2 && x->dtype != DT_FLOAT)) {
        rc = rz_state_make(g, n, x, &local, c->err, c->errlen);
        if (rc)
            return rc;
        st = &local;
    }
    if (st->path == PATH_COPY) {
        memcpy(y->data, x->data, tensor_nbytes(y));
    } else if (st->path == PATH_NN2 || st->path == PATH_LIN2) {
        two_job j = { st, x->data, y->data, x->dims[r - 2], x->dims[r - 1], st->p.out[r - 2],
                      st->p.out[r - 1] };
        int64_t rows = dims_prod(x->dims, 0, r - 2) * j.oh;
        if (st->path == PATH_NN2)
            op_parallel_for_work(c, rows, j.ow, nn2_range, &j);
        else
            op_parallel_for_work(c, rows, 4 * j.ow, lin2_range, &j);
    } else {
        run_passes(c, st, x, y);
    }
    if (st == &local)
        rz_state_free(&local);
    return RT_OK;
}

int resize_nearest_maps(const void *priv, const tensor_t *x, const int64_t **ih,
                        const int64_t **iw, int64_t *oh, int64_t *ow)
{
    const rz_state *st = priv;
    int r = x->ndim;
    if (!st || st->path != PATH_NN2 || st->p.r != r || r < 2 || dtype_size(x->dtype) != 4 ||
        memcmp(st->in, x->dims, sizeof(int64_t) * (size_t)r))
        return 0;
    *ih = st->tabs[r - 2].idx;
    *iw = st->tabs[r - 1].idx;
    *oh = st->p.out[r - 2];
    *ow = st->p.out[r - 1];
    return 1;
}

const op_def exec_ops_resize[] = {
    { "Resize", "", resize_infer, resize_prepare, resize_run, resize_release, NULL },
    { "Upsample", "", resize_infer, resize_prepare, resize_run, resize_release, NULL },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};
