/* runtime/quant/image.c — .png (libpng) and .jpg (libjpeg) calibration images:
 * decode to 8-bit RGB, resize to the model input, convert the channels and
 * normalise with --mean/--std (the rules are in quant.h). */
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <jpeglib.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define IMG_MAX_SIDE 16384
#define IMG_MAX_PIXELS ((int64_t)1 << 26)

static const char *ext_of(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

int quant_file_kind(const char *path)
{
    const char *e = ext_of(path);
    if (!strcasecmp(e, "npy"))
        return QF_NPY;
    if (!strcasecmp(e, "png"))
        return QF_PNG;
    if (!strcasecmp(e, "jpg") || !strcasecmp(e, "jpeg"))
        return QF_JPEG;
    return -1;
}

/* "v" or "v0,v1,v2" into vals; the count, or -1 if malformed. */
static int parse_list(const char *s, float *vals, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || n >= max || !isfinite(v))
            return -1;
        vals[n++] = (float)v;
        p = end;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ',') {
            p++;
            if (!*p)
                return -1;
        } else if (*p) {
            return -1;
        }
    }
    return n;
}

void quant_preproc_init(quant_preproc *pp)
{
    memset(pp, 0, sizeof(*pp));
    for (int c = 0; c < 4; c++) {
        pp->mean[c] = 0;
        pp->std[c] = 1;
    }
}

int quant_preproc_parse(const char *mean, const char *std, quant_preproc *pp, char *err,
                        size_t errlen)
{
    float v[4];
    int n;

    quant_preproc_init(pp);
    if (mean) {
        if ((n = parse_list(mean, v, 4)) < 1)
            return rt_err(err, errlen, RT_EINVAL, "--mean takes M or M0,M1,M2 (numbers), got '%s'",
                          mean);
        for (int c = 0; c < 4; c++)
            pp->mean[c] = v[n == 1 ? 0 : c < n ? c : n - 1];
        pp->n_mean = n;
    }
    if (std) {
        if ((n = parse_list(std, v, 4)) < 1)
            return rt_err(err, errlen, RT_EINVAL, "--std takes S or S0,S1,S2 (numbers), got '%s'",
                          std);
        for (int k = 0; k < n; k++)
            if (!(v[k] != 0))
                return rt_err(err, errlen, RT_EINVAL, "--std: a standard deviation of 0");
        for (int c = 0; c < 4; c++)
            pp->std[c] = v[n == 1 ? 0 : c < n ? c : n - 1];
        pp->n_std = n;
    }
    return RT_OK;
}

/* C of a [1,C,H,W] or [1,H,W,C] input with C = 1 or 3; 0 when not an image. */
static int image_channels(const tensor_t *t)
{
    if (t->ndim != 4 || t->dims[0] != 1)
        return 0;
    if (t->dims[1] == 1 || t->dims[1] == 3)
        return (int)t->dims[1];
    if (t->dims[3] == 1 || t->dims[3] == 3)
        return (int)t->dims[3];
    return 0;
}

int quant_preproc_check(const quant_preproc *pp, const tensor_t *t, char *err, size_t errlen)
{
    int C = image_channels(t);
    char shape[128];
    if (!C)
        return RT_OK;
    if (pp->n_mean > 1 && pp->n_mean != C)
        return rt_err(err, errlen, RT_EINVAL, "--mean has %d values, input '%s' %s has %s",
                      pp->n_mean, t->name, tensor_shape_str(t, shape, sizeof(shape)),
                      C == 1 ? "1 channel: give one value" : "3 channels: give 1 or 3 values");
    if (pp->n_std > 1 && pp->n_std != C)
        return rt_err(err, errlen, RT_EINVAL, "--std has %d values, input '%s' %s has %s",
                      pp->n_std, t->name, tensor_shape_str(t, shape, sizeof(shape)),
                      C == 1 ? "1 channel: give one value" : "3 channels: give 1 or 3 values");
    return RT_OK;
}

/* ---- decoders: 8-bit RGB, malloc'd ---- */

static int read_png(const char *path, uint8_t **px, int *w, int *h, char *err, size_t errlen)
{
    png_image im;
    memset(&im, 0, sizeof(im));
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path))
        return rt_err(err, errlen, errno == ENOENT ? RT_EIO : RT_EFORMAT, "%s: %s", path,
                      im.message[0] ? im.message : "not a PNG image");
    if (im.width < 1 || im.height < 1 || im.width > IMG_MAX_SIDE || im.height > IMG_MAX_SIDE ||
        (int64_t)im.width * im.height > IMG_MAX_PIXELS) {
        png_image_free(&im);
        return rt_err(err, errlen, RT_EFORMAT, "%s: image size %ux%u is out of range", path,
                      im.width, im.height);
    }
    im.format = PNG_FORMAT_RGB; /* gray replicated, alpha composited on black */
    *w = (int)im.width;
    *h = (int)im.height;
    *px = xmalloc(PNG_IMAGE_SIZE(im));
    /* libpng fails on truncated or corrupt image data by itself; its warnings
     * (e.g. a known-wrong sRGB profile) concern ancillary chunks only */
    if (!png_image_finish_read(&im, NULL, *px, 0, NULL)) {
        int rc = rt_err(err, errlen, RT_EFORMAT, "%s: corrupt PNG: %s", path,
                        im.message[0] ? im.message : "decoding failed");
        png_image_free(&im);
        free(*px);
        *px = NULL;
        return rc;
    }
    return RT_OK;
}

typedef struct jerr {
    struct jpeg_error_mgr mgr;
    jmp_buf jb;
    char msg[JMSG_LENGTH_MAX];
} jerr;

static void jpeg_fail(j_common_ptr c)
{
    jerr *e = (jerr *)c->err;
    e->mgr.format_message(c, e->msg);
    longjmp(e->jb, 1);
}

/* A warning (level -1) means corrupt or missing data that libjpeg would fill
 * with grey ("Premature end of JPEG file"): an error for calibration data.
 * Trace messages (level >= 0) are not printed. */
static void jpeg_warn(j_common_ptr c, int level)
{
    jerr *e = (jerr *)c->err;
    if (level >= 0)
        return;
    e->mgr.format_message(c, e->msg);
    longjmp(e->jb, 1);
}

static int read_jpeg(const char *path, uint8_t **px, int *w, int *h, char *err, size_t errlen)
{
    struct jpeg_decompress_struct d;
    jerr je;
    FILE *f = fopen(path, "rb");
    uint8_t *volatile buf = NULL;
    int rc = RT_OK;

    *px = NULL;
    if (!f)
        return rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
    memset(&d, 0, sizeof(d));
    d.err = jpeg_std_error(&je.mgr);
    je.mgr.error_exit = jpeg_fail;
    je.mgr.emit_message = jpeg_warn;
    if (setjmp(je.jb)) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: corrupt JPEG: %s", path, je.msg);
        goto out;
    }
    jpeg_create_decompress(&d);
    jpeg_stdio_src(&d, f);
    jpeg_read_header(&d, TRUE);
    if (d.image_width < 1 || d.image_height < 1 || d.image_width > IMG_MAX_SIDE ||
        d.image_height > IMG_MAX_SIDE ||
        (int64_t)d.image_width * d.image_height > IMG_MAX_PIXELS) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: image size %ux%u is out of range", path,
                    d.image_width, d.image_height);
        goto out;
    }
    if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) {
        rc = rt_err(err, errlen, RT_EUNSUPPORTED, "%s: CMYK JPEG images are not supported", path);
        goto out;
    }
    d.out_color_space = JCS_RGB;
    jpeg_start_decompress(&d);
    buf = xmalloc((size_t)d.output_width * d.output_height * 3);
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = buf + (size_t)d.output_scanline * d.output_width * 3;
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    *w = (int)d.output_width;
    *h = (int)d.output_height;
    *px = buf;
    buf = NULL;
out:
    jpeg_destroy_decompress(&d);
    free(buf);
    fclose(f);
    return rc;
}

/* ---- resize, channels, normalisation ---- */

/* Bilinear with half-pixel centres: src = (dst + 0.5) * in / out - 0.5,
 * clamped to [0, in - 1] (OpenCV's INTER_LINEAR without its rounding). */
static void axis_map(int in, int out, int *i0, int *i1, float *f)
{
    for (int d = 0; d < out; d++) {
        double s = (d + 0.5) * in / out - 0.5;
        if (s < 0)
            s = 0;
        if (s > in - 1)
            s = in - 1;
        int a = (int)floor(s);
        i0[d] = a;
        i1[d] = a + 1 < in ? a + 1 : a;
        f[d] = (float)(s - a);
    }
}

int quant_image_load(const char *path, const tensor_t *t, const quant_preproc *pp, float *out,
                     char *err, size_t errlen)
{
    uint8_t *px = NULL;
    int w = 0, h = 0, rc, kind = quant_file_kind(path);
    int C, H, W, nhwc;
    char shape[128];

    if (!image_channels(t))
        return rt_err(err, errlen, RT_ESHAPE, "%s: input '%s' is %s: an image fills a 4-D input "
                      "[1,C,H,W] or [1,H,W,C] with C = 1 or 3", path, t->name,
                      tensor_shape_str(t, shape, sizeof(shape)));
    nhwc = !(t->dims[1] == 1 || t->dims[1] == 3);
    C = (int)(nhwc ? t->dims[3] : t->dims[1]);
    H = (int)(nhwc ? t->dims[1] : t->dims[2]);
    W = (int)(nhwc ? t->dims[2] : t->dims[3]);
    if ((rc = quant_preproc_check(pp, t, err, errlen)))
        return rc;
    if (kind == QF_PNG)
        rc = read_png(path, &px, &w, &h, err, errlen);
    else if (kind == QF_JPEG)
        rc = read_jpeg(path, &px, &w, &h, err, errlen);
    else
        rc = rt_err(err, errlen, RT_EUNSUPPORTED, "%s: not a .png or .jpg image", path);
    if (rc)
        return rc;
    int *x0 = xmalloc(sizeof(int) * (size_t)W), *x1 = xmalloc(sizeof(int) * (size_t)W);
    int *y0 = xmalloc(sizeof(int) * (size_t)H), *y1 = xmalloc(sizeof(int) * (size_t)H);
    float *fx = xmalloc(sizeof(float) * (size_t)W), *fy = xmalloc(sizeof(float) * (size_t)H);
    axis_map(w, W, x0, x1, fx);
    axis_map(h, H, y0, y1, fy);
    for (int y = 0; y < H; y++) {
        const uint8_t *r0 = px + (size_t)y0[y] * w * 3, *r1 = px + (size_t)y1[y] * w * 3;
        for (int x = 0; x < W; x++) {
            float rgb[3];
            for (int c = 0; c < 3; c++) {
                float a = r0[x0[x] * 3 + c] + fx[x] * (r0[x1[x] * 3 + c] - r0[x0[x] * 3 + c]);
                float b = r1[x0[x] * 3 + c] + fx[x] * (r1[x1[x] * 3 + c] - r1[x0[x] * 3 + c]);
                rgb[c] = a + fy[y] * (b - a);
            }
            for (int c = 0; c < C; c++) {
                float v = C == 3 ? rgb[c] : 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
                v = (v - pp->mean[c]) / pp->std[c];
                size_t at = nhwc ? ((size_t)y * W + x) * C + c : ((size_t)c * H + y) * W + x;
                out[at] = v;
            }
        }
    }
    free(x0);
    free(x1);
    free(y0);
    free(y1);
    free(fx);
    free(fy);
    free(px);
    return RT_OK;
}
