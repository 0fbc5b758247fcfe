/* runtime/quant/dataset.c — the calibration list (Toolkit2's dataset.txt):
 * one sample per line, one file per model input, space separated. */
#include "runtime/quant/quant.h"
#include "dump/dump.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static char *join_path(const char *base, const char *p, size_t plen)
{
    size_t blen = base && base[0] && p[0] != '/' ? strlen(base) : 0;
    char *s = xmalloc(blen + 1 + plen + 1);
    size_t k = 0;
    if (blen) {
        memcpy(s, base, blen);
        k = blen;
        if (s[k - 1] != '/')
            s[k++] = '/';
    }
    memcpy(s + k, p, plen);
    s[k + plen] = '\0';
    return s;
}

int quant_dataset_parse(const char *text, size_t len, const char *base_dir, int n_inputs,
                        quant_dataset *out, char *err, size_t errlen)
{
    int rc = RT_OK, line = 0, cap = 0;
    size_t pos = 0;

    memset(out, 0, sizeof(*out));
    quant_preproc_init(&out->pp);
    out->n_inputs = n_inputs;
    if (n_inputs < 1)
        return rt_err(err, errlen, RT_EINVAL, "dataset: the model has no input");
    /* a UTF-8 byte-order mark (a Windows editor's) is no part of the first name */
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        pos = 3;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        line++;
        size_t a = pos, b = end;
        pos = end + 1;
        while (a < b && isspace((unsigned char)text[a]))
            a++;
        while (b > a && isspace((unsigned char)text[b - 1]))
            b--;
        if (a == b || text[a] == '#')
            continue;
        for (size_t k = a; k < b; k++) {
            if (text[k] == '\0' || ((unsigned char)text[k] < 0x20 && text[k] != '\t' &&
                                    text[k] != '\r')) {
                rc = rt_err(err, errlen, RT_EFORMAT, "dataset line %d: control character in "
                            "a file name", line);
                goto fail;
            }
        }
        int n = 0;
        for (size_t k = a; k < b;) {
            while (k < b && isspace((unsigned char)text[k]))
                k++;
            if (k < b)
                n++;
            while (k < b && !isspace((unsigned char)text[k]))
                k++;
        }
        if (n != n_inputs) {
            rc = rt_err(err, errlen, RT_EFORMAT,
                        "dataset line %d: %d file%s, the model has %d input%s (one file per "
                        "input, space separated)", line, n, n == 1 ? "" : "s", n_inputs,
                        n_inputs == 1 ? "" : "s");
            goto fail;
        }
        if ((out->n_samples + 1) * n_inputs > cap) {
            cap = cap ? cap * 2 : 16 * n_inputs;
            out->files = xrealloc(out->files, sizeof(char *) * (size_t)cap);
        }
        int j = 0;
        for (size_t k = a; k < b;) {
            while (k < b && isspace((unsigned char)text[k]))
                k++;
            size_t s = k;
            while (k < b && !isspace((unsigned char)text[k]))
                k++;
            if (k > s) {
                char *f = join_path(base_dir, text + s, k - s);
                out->files[out->n_samples * n_inputs + j++] = f;
                if (quant_file_kind(f) < 0) {
                    out->n_samples++; /* so that the files so far are freed */
                    for (int r = j; r < n_inputs; r++)
                        out->files[(out->n_samples - 1) * n_inputs + r] = NULL;
                    rc = rt_err(err, errlen, RT_EFORMAT, "dataset line %d: '%.*s' is not a "
                                ".npy, .png or .jpg file", line, (int)(k - s), text + s);
                    goto fail;
                }
            }
        }
        out->n_samples++;
    }
    if (!out->n_samples) {
        rc = rt_err(err, errlen, RT_EFORMAT, "dataset: no sample (every line is blank or a "
                    "comment)");
        goto fail;
    }
    return RT_OK;
fail:
    quant_dataset_free(out);
    return rc;
}

int quant_dataset_load(const char *path, int n_inputs, quant_dataset *out, char *err,
                       size_t errlen)
{
    void *buf = NULL;
    size_t len = 0;
    char *dir = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = rt_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        dir[0] = '\0';
    rc = quant_dataset_parse(buf, len, dir, n_inputs, out, err, errlen);
    /* Every file must be there before a long calibration starts. */
    for (int i = 0; !rc && i < out->n_samples * out->n_inputs; i++) {
        if (access(out->files[i], R_OK) != 0) {
            char msg[512];
            snprintf(msg, sizeof(msg), "%s", out->files[i]);
            rc = rt_err(err, errlen, RT_EIO, "sample %d: %s: %s", i / out->n_inputs + 1, msg,
                        strerror(errno));
            quant_dataset_free(out);
        }
    }
    if (rc) {
        /* Name the file in the message. */
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", err ? err : "");
        rt_err(err, errlen, rc, "%s: %s", path, msg);
    }
    free(dir);
    free(buf);
    return rc;
}

void quant_dataset_free(quant_dataset *d)
{
    if (!d->files) {
        memset(d, 0, sizeof(*d));
        return;
    }
    for (int i = 0; i < d->n_samples * d->n_inputs; i++)
        free(d->files[i]);
    free(d->files);
    memset(d, 0, sizeof(*d));
}

int quant_dataset_sample(const quant_dataset *ds, int s, const graph_t *g, float *const *bufs,
                         char *err, size_t errlen)
{
    if (ds->n_inputs != g->n_inputs)
        return rt_err(err, errlen, RT_EINVAL, "dataset has %d files per line, the model %d inputs",
                      ds->n_inputs, g->n_inputs);
    for (int j = 0; j < g->n_inputs; j++) {
        const tensor_t *t = &g->t[g->inputs[j]];
        const char *f = ds->files[s * ds->n_inputs + j];
        char shape[128];
        int rc;
        if (quant_file_kind(f) != QF_NPY) {
            if (t->dtype != DT_FLOAT)
                return rt_err(err, errlen, RT_EUNSUPPORTED, "sample %d: %s: input '%s' is %s: "
                              "give it as a .npy of that type, not an image", s + 1, f, t->name,
                              dtype_name(t->dtype));
            if ((rc = quant_image_load(f, t, &ds->pp, bufs[j], err, errlen)))
                return rc;
            continue;
        }
        npy_array a = {0};
        if ((rc = npy_read(f, &a, err, errlen)))
            return rc;
        if (t->dtype == DT_FLOAT)
            npy_widen_f16(&a);
        if (a.dtype != t->dtype || (int64_t)a.count != tensor_numel(t)) {
            rc = rt_err(err, errlen, RT_ESHAPE, "sample %d: %s: %s with %zu values, input '%s' "
                        "needs %s %s", s + 1, f, dtype_name(a.dtype), a.count, t->name,
                        dtype_name(t->dtype), tensor_shape_str(t, shape, sizeof(shape)));
            npy_free(&a);
            return rc;
        }
        memcpy(bufs[j], a.data, tensor_nbytes(t));
        npy_free(&a);
    }
    return RT_OK;
}
