/* tests/samples/sample_util.h — the helpers a vendor sample keeps beside its main
 * (file loading, the attr dump, a small detection post-process), so that the two
 * sample flows stay a line-for-line picture of the SDK guide's code. Only libc and
 * rknn_api.h: these programs are applications, not part of rknn-trace. */
#ifndef SAMPLE_UTIL_H
#define SAMPLE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rknn_api.h"

static inline double sample_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline unsigned char *sample_load_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* A binary PPM (P6, maxval 255): what a camera pipeline hands over, packed RGB rows. */
static inline unsigned char *sample_load_ppm(const char *path, int *w, int *h)
{
    size_t len = 0, pos = 0;
    unsigned char *f = sample_load_file(path, &len), *img = NULL;
    long v[3];

    if (!f || len < 2 || f[0] != 'P' || f[1] != '6')
        goto out;
    pos = 2;
    for (int k = 0; k < 3; k++) {
        while (pos < len && (f[pos] == ' ' || f[pos] == '\n' || f[pos] == '\r' ||
                             f[pos] == '\t' || f[pos] == '#')) {
            if (f[pos] == '#')
                while (pos < len && f[pos] != '\n')
                    pos++;
            else
                pos++;
        }
        v[k] = 0;
        while (pos < len && f[pos] >= '0' && f[pos] <= '9' && v[k] < 100000)
            v[k] = v[k] * 10 + (f[pos++] - '0');
    }
    pos++; /* the single whitespace after maxval */
    if (v[0] <= 0 || v[1] <= 0 || v[2] != 255 || len < pos || len - pos < (size_t)(v[0] * v[1] * 3))
        goto out;
    img = malloc((size_t)(v[0] * v[1] * 3));
    if (img) {
        memcpy(img, f + pos, (size_t)(v[0] * v[1] * 3));
        *w = (int)v[0];
        *h = (int)v[1];
    }
out:
    free(f);
    return img;
}

static inline void sample_dump_attr(const rknn_tensor_attr *a)
{
    char dims[128] = "";
    size_t o = 0;

    for (uint32_t i = 0; i < a->n_dims && i < RKNN_MAX_DIMS && o < sizeof(dims); i++)
        o += (size_t)snprintf(dims + o, sizeof(dims) - o, "%s%u", i ? ", " : "", a->dims[i]);
    printf("  index=%u, name=%s, n_dims=%u, dims=[%s], n_elems=%u, size=%u, w_stride=%u, "
           "size_with_stride=%u, fmt=%s, type=%s, qnt_type=%s, zp=%d, scale=%f\n",
           a->index, a->name, a->n_dims, dims, a->n_elems, a->size, a->w_stride,
           a->size_with_stride, get_format_string(a->fmt), get_type_string(a->type),
           get_qnt_type_string(a->qnt_type), a->zp, a->scale);
}

/* rknn_outputs_get of every output, allocated by the runtime, as float or as the
 * model's own type. */
static inline int sample_outputs_get(rknn_context ctx, uint32_t n, rknn_output *out,
                                     int want_float)
{
    memset(out, 0, sizeof(*out) * n);
    for (uint32_t i = 0; i < n; i++) {
        out[i].index = i;
        out[i].want_float = (uint8_t)want_float;
    }
    return rknn_outputs_get(ctx, n, out, NULL);
}

/* Outputs as float32, concatenated, for the test to compare. */
static inline int sample_write_f32(const char *path, const float *const *outs, const uint32_t *n,
                            uint32_t n_out)
{
    FILE *f = fopen(path, "wb");
    int ok = f != NULL;

    for (uint32_t i = 0; ok && i < n_out; i++)
        ok = fwrite(outs[i], sizeof(float), n[i], f) == n[i];
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* YOLOX-style head [1, boxes, 5 + classes] (cx, cy, w, h, objectness, class scores):
 * prints the boxes whose score passes the threshold, best first (at most 5). */
static inline void sample_print_detections(const float *out, const rknn_tensor_attr *a, float thresh)
{
    uint32_t nb, stride, shown = 0, count = 0;

    if (a->n_dims != 3 || a->dims[2] < 6)
        return;
    nb = a->dims[1];
    stride = a->dims[2];
    for (uint32_t i = 0; i < nb; i++) {
        const float *r = out + (size_t)i * stride;
        float best = 0;
        for (uint32_t k = 5; k < stride; k++)
            best = r[k] > best ? r[k] : best;
        count += r[4] * best >= thresh;
    }
    printf("detections (score >= %.2f): %u\n", thresh, count);
    /* best first without sorting: each pass takes the best below the previous pick */
    for (float prev = 2.0f; shown < count && shown < 5; shown++) {
        float top = -1;
        uint32_t ti = 0, tc = 0;
        for (uint32_t i = 0; i < nb; i++) {
            const float *r = out + (size_t)i * stride;
            for (uint32_t k = 5; k < stride; k++) {
                float s = r[4] * r[k];
                if (s >= thresh && s > top && s < prev)
                    top = s, ti = i, tc = k - 5;
            }
        }
        if (top < 0)
            break;
        const float *r = out + (size_t)ti * stride;
        printf("  class %u score %.3f box cx=%.1f cy=%.1f w=%.1f h=%.1f\n", tc, top, r[0], r[1],
               r[2], r[3]);
        prev = top;
    }
}

#endif
