/* tests/unit/test_emu_support.c — which vendor files the NPU emulator takes
 * (emu_exec_supported), decided from the file at once, so that rknn_init and
 * `run --emulate` refuse with the reason instead of stopping at a first task:
 * an rk3588 FlatBuffer file whose input is an int8 AFFINE 4-D activation is taken,
 * and so is one with a float16 input (as the SDK's custom-op demo ships,
 * dual_residual_custom.rknn: inputs float16 [1,3,10,10]); an int8 4-D input without
 * quantization, a float16 one with a quantization, a 2-D input, an input that names no
 * tensor, a Toolkit1 container and a lite file for a chip other than rv1103/rv1106
 * are refused. */
#include <stdint.h>
#include <string.h>
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "tests/test.h"

typedef struct one_input {
    int64_t shape[4];
    rknn_tensor t;
    rknn_io io;
    rknn_model m;
} one_input;

/* a file for chip with one input tensor of dtype (rknn_file.h codes) */
static void make(one_input *o, const char *chip, int container, int dtype, int quant, int nd)
{
    static char name[] = "x", tgt[16];
    snprintf(tgt, sizeof tgt, "%s", chip);
    int64_t s[4] = {1, 3, 10, 10};
    memcpy(o->shape, s, sizeof s);
    o->t = (rknn_tensor){.name = name, .dtype = dtype, .kind = RKNN_TK_ACT, .nd = nd,
                         .shape = o->shape, .has_quant = quant, .scale = quant ? 0.5 : 0,
                         .buffer = -1, .data_off = -1, .data_len = -1, .size = -1};
    o->io = (rknn_io){.name = name, .tensor = 0};
    o->m = (rknn_model){.container = container, .target = tgt, .tensors = &o->t,
                        .n_tensors = 1, .io = &o->io, .n_io = 1};
}

int main(void)
{
    one_input o;
    const char *why = NULL;

    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 4);
    CHECK(emu_exec_supported(&o.m, &why) == 1 && !why, "int8 AFFINE input: %s", why);
    make(&o, "rk3588", RKNN_C_TK2_FB, 10, 0, 4);
    CHECK(emu_exec_supported(&o.m, &why) == 1 && !why, "float16 input: %s", why);
    make(&o, "rk3588", RKNN_C_TK2_FB, 10, 1, 4);
    CHECK(emu_exec_supported(&o.m, &why) == 0 && why && strstr(why, "float16"),
          "quantized float16 input: %s", why ? why : "taken");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 0, 4);
    CHECK(emu_exec_supported(&o.m, &why) == 0 && why && strstr(why, "quantized int8"),
          "int8 input without quantization: %s", why ? why : "taken");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 2);
    CHECK(emu_exec_supported(&o.m, &why) == 0 && why && strstr(why, "4 dims"),
          "2-D input without a native shape: %s", why ? why : "taken");
    /* [1, C] stored flat (a float16 Linear's input, native [1, C]) is taken */
    int64_t flat[2] = {1, 3};
    make(&o, "rk3588", RKNN_C_TK2_FB, 10, 0, 2);
    o.t.native = flat;
    o.t.nnd = 2;
    CHECK(emu_exec_supported(&o.m, &why) == 1 && !why, "flat [1, 3] float16 input: %s", why);
    o.shape[0] = 2; /* a batch of 2 is not [1, C] */
    flat[0] = 2;
    CHECK(emu_exec_supported(&o.m, &why) == 0 && why, "flat [2, 3] input: %s", why ? why : "taken");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 4);
    o.io.tensor = 5;
    CHECK(emu_exec_supported(&o.m, &why) == 0 && why, "input naming no tensor: %s",
          why ? why : "taken");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 4);
    o.io.is_output = 1; /* outputs are not checked: any dtype the tasks write */
    o.t.dtype = 10, o.t.has_quant = 0;
    CHECK(emu_exec_supported(&o.m, &why) == 1, "float16 output: %s", why);
    make(&o, "rk1808", RKNN_C_VPMN, 3, 1, 4);
    CHECK(emu_exec_supported(&o.m, &why) == 0 && why && strstr(why, "no compiled NPU tasks"),
          "Toolkit1: %s", why ? why : "taken");
    make(&o, "rk3588", RKNN_C_LITE, 3, 1, 4);
    CHECK(emu_exec_supported(&o.m, &why) == 0 && why && strstr(why, "rv1103/rv1106"),
          "lite file for rk3588: %s", why ? why : "taken");
    TEST_END();
}
