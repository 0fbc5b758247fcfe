/* tests/fuzz/fuzz_dataset.c — fuzz target: bytes -> dataset.txt parser
 * (quant_dataset_parse) for 1 to 4 model inputs (first byte); bytes that start
 * like a PNG or a JPEG are decoded instead, as a dataset image would be
 * (quant_image_load into a small NCHW or NHWC input). Any status is fine; a
 * crash, a sanitizer report or a leak is a bug. On success every parsed path
 * must be non-empty and free of whitespace, and every image value must be a
 * pixel (0..255) after the identity mean/std. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/quant/quant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char img_path[2][64];

static void remove_images(void)
{
    for (int k = 0; k < 2; k++)
        if (img_path[k][0])
            unlink(img_path[k]);
}

/* The loader reads files named by extension: one scratch file per kind. */
static void decode_image(const uint8_t *data, size_t size, int png)
{
    static const int64_t shapes[3][4] = {{1, 3, 8, 8}, {1, 1, 5, 7}, {1, 6, 4, 3}};
    char err[512];
    quant_preproc pp;
    tensor_t t;
    float out[8 * 8 * 3];
    FILE *f;

    if (!img_path[0][0]) {
        snprintf(img_path[0], sizeof(img_path[0]), "/tmp/fuzz_dataset_%ld.png", (long)getpid());
        snprintf(img_path[1], sizeof(img_path[1]), "/tmp/fuzz_dataset_%ld.jpg", (long)getpid());
        atexit(remove_images);
    }
    if (!(f = fopen(img_path[!png], "wb")))
        abort();
    if (fwrite(data, 1, size, f) != size || fclose(f))
        abort();
    memset(&t, 0, sizeof(t));
    t.name = "x";
    t.dtype = DT_FLOAT;
    t.ndim = 4;
    memcpy(t.dims, shapes[size % 3], sizeof(shapes[0]));
    quant_preproc_init(&pp);
    if (quant_image_load(img_path[!png], &t, &pp, out, err, sizeof(err)) != 0)
        return;
    for (int64_t i = 0; i < tensor_numel(&t); i++)
        if (!(out[i] >= 0 && out[i] <= 255))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    quant_dataset ds;
    char err[512];
    int n_inputs = size ? 1 + data[0] % 4 : 1;

    if (size >= 4 && !memcmp(data, "\x89PNG", 4)) {
        decode_image(data, size, 1);
        return 0;
    }
    if (size >= 2 && data[0] == 0xff && data[1] == 0xd8) {
        decode_image(data, size, 0);
        return 0;
    }
    if (quant_dataset_parse((const char *)data, size, size > 1 && data[1] & 1 ? "base" : NULL,
                            n_inputs, &ds, err, sizeof(err)) != 0)
        return 0;
    for (int i = 0; i < ds.n_samples * ds.n_inputs; i++) {
        const char *p = ds.files[i];
        if (!p || !p[0])
            abort();
        for (; *p; p++)
            if (isspace((unsigned char)*p))
                abort();
    }
    quant_dataset_free(&ds);
    return 0;
}
