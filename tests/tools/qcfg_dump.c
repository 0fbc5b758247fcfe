/* tests/tools/qcfg_dump.c — a *.quantization.cfg as quant_cfg_parse reads it,
 * printed as JSON ({"fp16": [...], "params": {tensor: {"min": [...], ...}}}), for
 * tests/quant/cfg_yaml.sh to compare with python3-yaml's reading of the same
 * file. Exit 2 with the error on stderr when the file is refused.
 * Usage: qcfg_dump FILE */
#include <jansson.h>
#include <stdio.h>

#include "runtime/quant/quant.h"

static json_t *list(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

int main(int argc, char **argv)
{
    quant_cfg c;
    char err[512];
    json_t *o, *fp16, *params;

    if (argc != 2) {
        fprintf(stderr, "usage: qcfg_dump FILE\n");
        return 1;
    }
    if (quant_cfg_load(argv[1], &c, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    o = json_object();
    fp16 = json_array();
    params = json_object();
    for (int i = 0; i < c.n_fp16; i++)
        json_array_append_new(fp16, json_string(c.fp16[i]));
    for (int i = 0; i < c.n_params; i++) {
        const quant_cfg_param *p = &c.params[i];
        json_t *e = json_object();
        if (p->n_min)
            json_object_set_new(e, "min", list(p->min, p->n_min));
        if (p->n_max)
            json_object_set_new(e, "max", list(p->max, p->n_max));
        if (p->n_scale)
            json_object_set_new(e, "scale", list(p->scale, p->n_scale));
        if (p->n_zp)
            json_object_set_new(e, "zero_point", list(p->zp, p->n_zp));
        json_object_set_new(params, p->name, e);
    }
    json_object_set_new(o, "fp16", fp16);
    json_object_set_new(o, "params", params);
    json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(17));
    putchar('\n');
    json_decref(o);
    quant_cfg_free(&c);
    return 0;
}
