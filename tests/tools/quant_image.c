/* tests/tools/quant_image.c — the C side of the image cross-check
 * (tests/quant/images.sh): loads one .png/.jpg as calibration does and writes
 * the model-input tensor as .npy, for numpy + PIL to re-compute.
 *
 *   quant_image IMAGE D0,D1,D2,D3 MEAN|- STD|- OUT.npy
 * Exit 0 and the file, or exit 2 with the loader's one-line message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump/dump.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

int main(int argc, char **argv)
{
    tensor_t t;
    quant_preproc pp;
    char err[512];
    int rc;

    if (argc != 6) {
        fputs("usage: quant_image IMAGE D0,D1,D2,D3 MEAN|- STD|- OUT.npy\n", stderr);
        return 1;
    }
    memset(&t, 0, sizeof(t));
    t.name = (char *)"input";
    t.dtype = DT_FLOAT;
    char *p = argv[2];
    while (*p && t.ndim < MODEL_MAX_DIMS) {
        t.dims[t.ndim++] = strtoll(p, &p, 10);
        if (*p == ',')
            p++;
    }
    rc = quant_preproc_parse(strcmp(argv[3], "-") ? argv[3] : NULL,
                             strcmp(argv[4], "-") ? argv[4] : NULL, &pp, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int64_t n = tensor_numel(&t);
    float *out = xmalloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    rc = quant_image_load(argv[1], &t, &pp, out, err, sizeof(err));
    if (!rc)
        rc = npy_write(argv[5], DT_FLOAT, t.ndim, t.dims, out, err, sizeof(err));
    free(out);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    return 0;
}
