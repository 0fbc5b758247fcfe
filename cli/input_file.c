/* cli/input_file.c — `run -i NAME=FILE` and `--shape NAME=...`: input names
 * checked against the model (with the closest one suggested), and the files
 * read: .npy as they are, .png/.jpg through the dataset image rule (resize to
 * the input, --mean/--std; runtime/quant/image.c). */
#include "cli/cli.h"
#include "cli/input_file.h"
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

int cli_inputs_images(const char *const *files, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += quant_file_kind(files[i]) == QF_PNG || quant_file_kind(files[i]) == QF_JPEG;
    return k;
}

/* The graph input named name, or an RT_EINVAL naming the inputs and the
 * closest one. */
static int find_input(const graph_t *g, const char *opt, const char *name, int *idx, char *err,
                      size_t errlen)
{
    const char **names = xcalloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof(*names));
    char list[512] = "";
    size_t off = 0;
    int rc = RT_OK;

    *idx = -1;
    for (int j = 0; j < g->n_inputs; j++) {
        names[j] = g->t[g->inputs[j]].name;
        if (!strcmp(names[j], name))
            *idx = j;
        if (off < sizeof(list))
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s'%s'", j ? ", " : "",
                                    names[j]);
    }
    if (*idx < 0) {
        const char *near = cli_suggest(name, names, g->n_inputs);
        char hint[300] = "";
        if (near)
            snprintf(hint, sizeof(hint), "; did you mean '%s'?", near);
        rc = rt_err(err, errlen, RT_EINVAL, "%s %s: the model has no input named '%s'%s "
                    "(inputs: %s)", opt, name, name, hint, g->n_inputs ? list : "none");
    }
    free(names);
    return rc;
}

/* An image for input t: the model's shape (batch 1, --shape for the rest of
 * its dynamic dims), float32 values by the dataset rule. */
static int read_image(const char *file, const tensor_t *t, const input_shape_t *shapes,
                      int n_shapes, const quant_preproc *pp, npy_array *out, char *err,
                      size_t errlen)
{
    tensor_t img = *t;
    for (int s = 0; s < n_shapes; s++)
        if (!strcmp(shapes[s].name, t->name)) {
            img.ndim = shapes[s].ndim;
            memcpy(img.dims, shapes[s].dims, sizeof(int64_t) * (size_t)img.ndim);
        }
    if (img.ndim > 0 && img.dims[0] < 0)
        img.dims[0] = 1;
    if (t->dtype != DT_FLOAT)
        return rt_err(err, errlen, RT_EFORMAT, "%s: an image fills a float32 input; '%s' is %s "
                      "(give it as .npy)", file, t->name, dtype_name(t->dtype));
    if (img.ndim != 4 || tensor_numel(&img) < 0)
        return rt_err(err, errlen, RT_ESHAPE, "%s: input '%s' has no fixed [1,C,H,W] or "
                      "[1,H,W,C] shape to size the image; give --shape %s=1,3,H,W", file,
                      t->name, t->name);
    memset(out, 0, sizeof(*out));
    out->dtype = DT_FLOAT;
    out->ndim = 4;
    memcpy(out->dims, img.dims, sizeof(int64_t) * 4);
    out->count = (size_t)tensor_numel(&img);
    out->nbytes = out->count * sizeof(float);
    out->data = xaligned_alloc(out->nbytes ? out->nbytes : 1);
    return quant_image_load(file, &img, pp, out->data, err, errlen);
}

int cli_inputs_read(const graph_t *g, const char *const *in_name, const char *const *in_file,
                    int n_in, const char *mean, const char *std, npy_array *given,
                    input_shape_t *shapes, int *n_shapes, int max_shapes, char *err,
                    size_t errlen)
{
    quant_preproc pp;
    int rc, idx;

    for (int s = 0; s < *n_shapes; s++)
        if ((rc = find_input(g, "--shape", shapes[s].name, &idx, err, errlen)))
            return rc;
    if ((rc = quant_preproc_parse(mean, std, &pp, err, errlen)))
        return rc;
    for (int k = 0; k < n_in; k++) {
        int kind = quant_file_kind(in_file[k]);
        if ((rc = find_input(g, "-i", in_name[k], &idx, err, errlen)))
            return rc;
        if (kind == QF_PNG || kind == QF_JPEG)
            rc = read_image(in_file[k], &g->t[g->inputs[idx]], shapes, *n_shapes, &pp,
                            &given[k], err, errlen);
        else
            rc = npy_read(in_file[k], &given[k], err, errlen);
        if (rc)
            return rc;
        if (given[k].ndim > MODEL_MAX_DIMS || *n_shapes >= max_shapes)
            return rt_err(err, errlen, RT_ESHAPE, "%s: too many dimensions", in_file[k]);
        shapes[*n_shapes].name = in_name[k];
        shapes[*n_shapes].ndim = given[k].ndim;
        memcpy(shapes[*n_shapes].dims, given[k].dims, sizeof(int64_t) * (size_t)given[k].ndim);
        (*n_shapes)++;
    }
    return RT_OK;
}
