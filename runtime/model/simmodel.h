/* runtime/model/simmodel.h — the simulator model container written by
 * `rknn-trace build` (layout: docs/sim-model-format.md). A small table of
 * tagged sections: META (JSON: target, quantization, build options), ONNX (the
 * source model: graph and weights), QCFG (quantization parameters and fp16
 * layers, in the *.quantization.cfg layout of runtime/quant). model_load_file
 * recognises the magic and loads the ONNX section. */
#ifndef RT_SIMMODEL_H
#define RT_SIMMODEL_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/model/model.h"

#define SIMMODEL_MAGIC "RKTRSIM\0"
#define SIMMODEL_MAGIC_LEN 8
#define SIMMODEL_VERSION 1
#define SIMMODEL_MAX_SECTIONS 64

typedef struct simmodel_section {
    char tag[9];          /* NUL-terminated */
    const void *data;     /* into the buffer given to simmodel_parse */
    size_t len;
} simmodel_section;

typedef struct simmodel {
    int n;
    simmodel_section s[SIMMODEL_MAX_SECTIONS];
} simmodel;

/* Non-zero if buf starts with the magic. */
int simmodel_is(const void *buf, size_t len);
/* Validates the table (version, bounds, an ONNX section) and fills m with
 * pointers into buf. RT_EFORMAT with a one-line reason otherwise. */
int simmodel_parse(const void *buf, size_t len, simmodel *m, char *err, size_t errlen);
/* The section with that tag, or NULL. */
const simmodel_section *simmodel_find(const simmodel *m, const char *tag);
/* Writes a container with n sections (tags of at most 8 characters). */
int simmodel_write(const char *path, int n, const char *const *tags, const void *const *data,
                   const size_t *lens, char *err, size_t errlen);
/* The graph of a container (its ONNX section). */
int simmodel_load_graph(const void *buf, size_t len, graph_t **out, char *err, size_t errlen);
/* The string value of "key" in the META JSON (a flat object of strings and
 * numbers, as build writes it) into val; -1 if absent. */
int simmodel_meta_str(const simmodel *m, const char *key, char *val, size_t vlen);

#endif
