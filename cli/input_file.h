/* cli/input_file.h — the model inputs given on run's command line. */
#ifndef RT_CLI_INPUT_FILE_H
#define RT_CLI_INPUT_FILE_H

#include "dump/dump.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"

/* How many of files are .png/.jpg images. */
int cli_inputs_images(const char *const *files, int n);
/* Checks every --shape name in shapes[0..*n_shapes) and every -i name against
 * the model's inputs (RT_EINVAL naming the inputs and the closest one), then
 * reads each in_file[k] into given[k]: .npy as it is; .png/.jpg decoded,
 * resized to the input's shape (batch 1, --shape for other dynamic dims) and
 * normalised with mean/std (either may be NULL) as dataset images are. The
 * shape of each file is appended to shapes (at most max_shapes in all). */
int cli_inputs_read(const graph_t *g, const char *const *in_name, const char *const *in_file,
                    int n_in, const char *mean, const char *std, npy_array *given,
                    input_shape_t *shapes, int *n_shapes, int max_shapes, char *err,
                    size_t errlen);

#endif
