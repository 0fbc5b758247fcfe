/* tests/unit/test_emu_support.c — which vendor files the NPU emulator takes
 * (emu_exec_supported), decided from the file at once, so that rknn_init and
 * `run --emulate` refuse with the reason instead of stopping at a first task:
 * an rk3588 FlatBuffer file whose input is an int8 AFFINE 4-D activation is taken,
 * and so is one with a float16 input (as the SDK's custom-op demo ships,
 * dual_residual_custom.rknn: inputs float16 [1,3,10,10]); an int8 4-D input without
 * quantization, a float16 one with a quantization, an int64 one (token ids), a 2-D
 * input, an input that names no tensor, a Toolkit1 container and a lite file for a
 * chip other than rv1103/rv1106 are refused, an input's refusal naming the input,
 * its dtype and shape and what fails. */
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

/* 1 when the file is taken (why ""), or refused with want in why */
static int verdict(const one_input *o, int taken, const char *want, char *why, size_t n)
{
    int r = emu_exec_supported(&o->m, why, n);
    return taken ? r == 1 && !*why : r == 0 && strstr(why, want) != NULL;
}

int main(void)
{
    one_input o;
    char why[320];
#define TAKEN(what) CHECK(verdict(&o, 1, NULL, why, sizeof(why)), "%s: %s", what, why)
#define REFUSED(want, what) CHECK(verdict(&o, 0, want, why, sizeof(why)), "%s: %s", what, why)

    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 4);
    TAKEN("int8 AFFINE input");
    make(&o, "rk3588", RKNN_C_TK2_FB, 10, 0, 4);
    TAKEN("float16 input");
    make(&o, "rk3588", RKNN_C_TK2_FB, 10, 1, 4);
    REFUSED("input 'x' (float16 [1,3,10,10]) is a quantized float16", "quantized float16 input");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 0, 4);
    REFUSED("(int8 [1,3,10,10]) has no quantization", "int8 input without quantization");
    /* token ids, as a BERT's input_ids (emapco/rk-transformers' random_bert) */
    make(&o, "rk3588", RKNN_C_TK2_FB, 7, 0, 2);
    REFUSED("(int64 [1,3]) is not of 4 dims", "int64 [1, 3] input");
    make(&o, "rk3588", RKNN_C_TK2_FB, 7, 0, 4);
    REFUSED("(int64 [1,3,10,10]) is neither int8 nor float16", "int64 input");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 2);
    REFUSED("(int8 [1,3]) is not of 4 dims", "2-D input without a native shape");
    /* [1, C] stored flat (a float16 Linear's input, native [1, C]) is taken */
    int64_t flat[2] = {1, 3};
    make(&o, "rk3588", RKNN_C_TK2_FB, 10, 0, 2);
    o.t.native = flat;
    o.t.nnd = 2;
    TAKEN("flat [1, 3] float16 input");
    o.shape[0] = 2; /* a batch of 2 is not [1, C] */
    flat[0] = 2;
    REFUSED("(float16 [2,3]) is not of 4 dims", "flat [2, 3] input");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 4);
    o.io.tensor = 5;
    REFUSED("input 'x' names no tensor", "input naming no tensor");
    make(&o, "rk3588", RKNN_C_TK2_FB, 3, 1, 4);
    o.io.is_output = 1; /* outputs are not checked: any dtype the tasks write */
    o.t.dtype = 10, o.t.has_quant = 0;
    TAKEN("float16 output");
    make(&o, "rk1808", RKNN_C_VPMN, 3, 1, 4);
    REFUSED("no compiled NPU tasks", "Toolkit1");
    make(&o, "rk3588", RKNN_C_LITE, 3, 1, 4);
    REFUSED("rv1103/rv1106", "lite file for rk3588");
    TEST_END();
}
