/* runtime/model/window.c — the window attributes of convolutions and pools
 * (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode), read once for
 * every executor, int8 kernel and NPU lowering that needs them. */
#include "runtime/model/model.h"
#include "util/util.h"

#include <string.h>

/* Kernel, dilation and pad bound: keeps (k - 1) * d + 1 and the padded extent
 * far from overflow on a hostile model. */
#define WINDOW_MAX (1 << 20)

static int64_t div_up(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Copies an optional ints attribute of nsp (or 2 * nsp for pads) values into
 * the last slots of dst (pads: begins into dst, ends into dst2). */
static int read_ints(const node_t *n, const char *name, int nsp, int64_t *dst, int64_t *dst2)
{
    const int64_t *v;
    int cnt = node_attr_ints(n, name, &v), off = 3 - nsp;
    if (cnt < 0)
        return 0;
    if (cnt != (dst2 ? 2 * nsp : nsp))
        return -1;
    for (int i = 0; i < nsp; i++) {
        dst[off + i] = v[i];
        if (dst2)
            dst2[off + i] = v[nsp + i];
    }
    return 0;
}

static int parse_auto_pad(const char *s)
{
    static const char *const names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* Pads and output extent of axis i for input extent in. The ONNX operator
 * specification (Conv, MaxPool, AveragePool; docs/Operators.md): SAME_UPPER
 * and SAME_LOWER pad so that output = ceil(input / stride), the total
 * (output - 1) * stride + (kernel - 1) * dilation + 1 - input split evenly,
 * the odd one at the end for SAME_UPPER and at the beginning for SAME_LOWER;
 * VALID pads nothing; NOTSET takes the pads as written, with
 * output = floor or, under ceil_mode, ceil((in + pads - extent) / stride) + 1. */
static int resolve_axis(node_window *w, int i)
{
    int64_t ext = (w->k[i] - 1) * w->d[i] + 1, s = w->s[i], in = w->in[i];
    if (w->auto_pad == AUTO_PAD_SAME_UPPER || w->auto_pad == AUTO_PAD_SAME_LOWER) {
        w->out[i] = div_up(in, s);
        int64_t tot = (w->out[i] - 1) * s + ext - in;
        if (tot < 0)
            tot = 0;
        w->pb[i] = w->auto_pad == AUTO_PAD_SAME_UPPER ? tot / 2 : tot - tot / 2;
        w->pe[i] = tot - w->pb[i];
        return 0;
    }
    if (w->auto_pad == AUTO_PAD_VALID)
        w->pb[i] = w->pe[i] = 0;
    int64_t span = in + w->pb[i] + w->pe[i] - ext;
    if (span < 0)
        return -1;
    /* VALID's ceil((in - extent + 1) / stride) is this floor form too */
    int ceil = w->ceil_mode && w->auto_pad == AUTO_PAD_NOTSET;
    w->out[i] = (ceil ? div_up(span, s) : span / s) + 1;
    /* the last window must start inside the input or the left padding */
    if (ceil && (w->out[i] - 1) * s >= in + w->pb[i])
        w->out[i]--;
    return 0;
}

int node_window_read(const node_t *n, int nsp, const int64_t *kernel, const int64_t *in,
                     node_window *w, char *err, size_t errlen)
{
    int off = 3 - nsp;

    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > 3)
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): %d spatial dims not supported",
                      n->name, n->op, nsp);
    w->nsp = nsp;
    for (int i = 0; i < 3; i++)
        w->k[i] = w->s[i] = w->d[i] = w->in[i] = w->out[i] = 1;
    const int64_t *v;
    int cnt = node_attr_ints(n, "kernel_shape", &v);
    if (kernel) {
        if (cnt >= 0 && cnt != nsp)
            goto bad_len;
        for (int i = 0; i < cnt; i++)
            if (v[i] != kernel[i])
                return rt_err(err, errlen, RT_ESHAPE,
                              "node '%s' (%s): kernel_shape does not match the weights",
                              n->name, n->op);
    } else if (cnt != nsp) {
        return rt_err(err, errlen, RT_ESHAPE, "node '%s' (%s): kernel_shape must have %d values",
                      n->name, n->op, nsp);
    }
    for (int i = 0; i < nsp; i++)
        w->k[off + i] = kernel ? kernel[i] : v[i];
    if (read_ints(n, "strides", nsp, w->s, NULL) || read_ints(n, "dilations", nsp, w->d, NULL) ||
        read_ints(n, "pads", nsp, w->pb, w->pe))
        goto bad_len;
    for (int i = 0; i < 3; i++)
        if (w->k[i] < 1 || w->s[i] < 1 || w->d[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0 ||
            w->k[i] > WINDOW_MAX || w->d[i] > WINDOW_MAX || w->pb[i] > WINDOW_MAX ||
            w->pe[i] > WINDOW_MAX)
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (%s): kernel, strides and dilations must be >= 1 and pads >= 0 "
                          "(kernel, dilations and pads at most %d)",
                          n->name, n->op, WINDOW_MAX);
    w->ceil_mode = node_attr_int(n, "ceil_mode", 0) != 0;
    w->auto_pad_name = node_attr_str(n, "auto_pad", "NOTSET");
    w->auto_pad = parse_auto_pad(w->auto_pad_name);
    if (w->auto_pad < 0)
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node '%s' (%s): auto_pad '%s'", n->name,
                      n->op, w->auto_pad_name);
    if (!in)
        return RT_OK;
    for (int i = 0; i < nsp; i++)
        w->in[off + i] = in[i];
    for (int i = 0; i < 3; i++)
        if (resolve_axis(w, i))
            return rt_err(err, errlen, RT_ESHAPE,
                          "node '%s' (%s): kernel larger than the padded input", n->name, n->op);
    return RT_OK;
bad_len:
    return rt_err(err, errlen, RT_ESHAPE,
                  "node '%s' (%s): attribute length does not match %d spatial dims", n->name,
                  n->op, nsp);
}
