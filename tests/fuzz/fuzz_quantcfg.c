/* tests/fuzz/fuzz_quantcfg.c — fuzz target: bytes -> the hybrid quantization
 * file parser (quant_cfg_parse, Toolkit2's *.quantization.cfg layout). Any
 * status is fine; a crash, a sanitizer report or a leak is a bug. On success
 * the result must be consistent: names non-empty, list lengths as validated,
 * scales positive, zero points in [-128, 127]. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/quant/quant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    quant_cfg c;
    char err[512];

    if (quant_cfg_parse((const char *)data, size, &c, err, sizeof(err)) != 0) {
        if (!err[0])
            abort(); /* a failure always says why */
        return 0;
    }
    for (int i = 0; i < c.n_fp16; i++)
        if (!c.fp16[i] || !c.fp16[i][0])
            abort();
    for (int i = 0; i < c.n_params; i++) {
        const quant_cfg_param *p = &c.params[i];
        qparam_t q;
        if (!p->name || p->n_min != p->n_max || p->n_scale != p->n_zp)
            abort();
        for (int k = 0; k < p->n_scale; k++)
            if (!(p->scale[k] > 0) || p->zp[k] < -128 || p->zp[k] > 127)
                abort();
        if (quant_cfg_param_get(p, &q) == 0 && !(q.scale > 0))
            abort();
    }
    quant_cfg_free(&c);
    return 0;
}
