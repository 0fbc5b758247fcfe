/* tests/fuzz/fuzz_emu_cpu.c — fuzz target: bytes -> one CPU layer of the emulator's
 * built-ins (runtime/emu/emu_cpu.c) through the chain without a caller's hook, over
 * tensors of the shapes the bytes give, as a vendor file gives them: the op type,
 * axis and shapes come from the file and nothing checks them before the layer.
 * Input: byte 0 the op type (mod 11: the ten built-in types and Gather, which is
 * refused; 0xf0 and up Exp), byte 1 bit 7 whether the node has an axis, bits 0..6 the axis - 64,
 * byte 2 the inputs (bits 0..1, 1 to 4) and outputs (bits 2..3, 1 to 4), byte 3 bit k
 * input k named "<input 0>_exSecondary" (an alias a Concat does not read), then per
 * tensor (inputs, then outputs) a rank byte (mod 6) and that many dimension bytes
 * (mod 7: 0 allowed); the rest fills the inputs' values. Each input holds exactly its
 * shape's elements, each output its shape's (calloc'd), so that ASan sees any read or
 * write past them. Any status is fine; a crash, a sanitizer report, a leak or a
 * failure without a message is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXT 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *types[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "ArgMax",
                                  "ArgMin",  "Softmax", "Sigmoid", "Concat",    "Split",
                                  "Gather", "Exp"};
    if (size < 4)
        return 0;
    int n_in = (data[2] & 3) + 1, n_out = ((data[2] >> 2) & 3) + 1;
    size_t pos = 4;
    rknn_tensor t[MAXT];
    int64_t shp[MAXT][6];
    int64_t count[MAXT];
    char names[MAXT][32];
    int in[4], out[4];
    memset(t, 0, sizeof t);
    for (int i = 0; i < n_in + n_out; i++) {
        int nd = pos < size ? data[pos++] % 6 : 1;
        count[i] = 1;
        for (int d = 0; d < nd; d++) {
            shp[i][d] = pos < size ? data[pos++] % 7 : 1;
            count[i] *= shp[i][d];
        }
        if (i < n_in && i > 0 && (data[3] >> i & 1))
            snprintf(names[i], sizeof names[i], "t0_exSecondary");
        else
            snprintf(names[i], sizeof names[i], "t%d", i);
        t[i] = (rknn_tensor){.name = names[i], .dtype = 1, .kind = RKNN_TK_ACT, .nd = nd,
                             .shape = shp[i], .buffer = -1, .data_off = -1, .data_len = -1,
                             .task_node = -1, .task_lut = -1};
        if (i < n_in)
            in[i] = i;
        else
            out[i - n_in] = i;
    }
    rknn_node nd = {.type = (char *)types[data[0] >= 0xf0 ? 11 : data[0] % 11], .name = "fuzz", .target = RKNN_TGT_CPU,
                    .in = in, .n_in = n_in, .out = out, .n_out = n_out,
                    .axis = (data[1] & 0x7f) - 64, .has_axis = data[1] >> 7};
    rknn_model m = {.container = RKNN_C_TK2_FB, .tensors = t, .n_tensors = n_in + n_out,
                    .nodes = &nd, .n_nodes = 1};
    emu_cpu_chain ch;
    emu_cpu_hook *h = emu_cpu_chain_init(&ch, NULL);
    float *vin[4] = {0}, *vout[4] = {0};
    for (int k = 0; k < n_in; k++) {
        if (!h->reads(h, &m, 0, k))
            continue;
        vin[k] = xmalloc(sizeof(float) * (size_t)(count[k] ? count[k] : 1));
        for (int64_t i = 0; i < count[k]; i++)
            vin[k][i] = pos < size ? (float)(int8_t)data[pos + (size_t)i % (size - pos)] : 0.5f;
    }
    for (int k = 0; k < n_out; k++)
        vout[k] = xcalloc((size_t)(count[n_in + k] ? count[n_in + k] : 1), sizeof(float));
    char err[512] = "";
    if (emu_cpu_runs(&ch, &m, 0)) {
        int rc = h->run(h, &m, 0, (const float *const *)vin, vout, err, sizeof err);
        if (rc && !err[0])
            abort();
    } else if (emu_cpu_refuse(&m, 0, err, sizeof err) != RT_EUNSUPPORTED || !err[0]) {
        abort();
    }
    for (int k = 0; k < 4; k++) {
        free(vin[k]);
        free(vout[k]);
    }
    return 0;
}
