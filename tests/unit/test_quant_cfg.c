/* tests/unit/test_quant_cfg.c — the hybrid quantization file parser on
 * hand-written files in Toolkit2's layout (block and flow lists, quoted keys
 * holding ':' and '#', comments, CRLF) and on broken ones (each must fail with
 * the line it names). Expected values are read off the texts. */
#include <string.h>

#include "runtime/quant/quant.h"
#include "tests/test.h"
#include "util/util.h"

static int parse(const char *text, quant_cfg *c, char *err, size_t errlen)
{
    return quant_cfg_parse(text, strlen(text), c, err, errlen);
}

int main(void)
{
    quant_cfg c;
    char err[512];
    qparam_t p;

    const char *ok =
        "# written by hand\n"
        "custom_quantize_layers:\n"
        "    528_shape4_Slice_315: float16\n"
        "    'onnx::Conv_7': float16   # a comment after a value\n"
        "    \"a # b\": float16\n"
        "quantize_parameters:\n"
        "    input:\n"
        "        qtype: asymmetric_quantized\n"
        "        qmethod: layer\n"
        "        dtype: int8\n"
        "        min:\n"
        "        - -1.0\n"
        "        max:\n"
        "        - 1.0\n"
        "        scale:\n"
        "        - 0.0078125\n"
        "        zero_point:\n"
        "        - -1\n"
        "    conv.weight:\n"
        "        min: [-0.5, -0.25]\n"
        "        max: [0.5, 0.25]\n"
        "        scale: [0.00390625, 0.001953125]\n"
        "        zero_point: [0, 0]\n"
        "    relu_out:\n"
        "        min: [0]\n"
        "        max: [2.55]\n";
    CHECK(parse(ok, &c, err, sizeof(err)) == 0, "parse: %s", err);
    CHECK(c.n_fp16 == 3, "3 fp16 layers, got %d", c.n_fp16);
    if (c.n_fp16 == 3)
        CHECK(!strcmp(c.fp16[0], "528_shape4_Slice_315") && !strcmp(c.fp16[1], "onnx::Conv_7") &&
              !strcmp(c.fp16[2], "a # b"), "names %s %s %s", c.fp16[0], c.fp16[1], c.fp16[2]);
    CHECK(c.n_params == 3, "3 tensors, got %d", c.n_params);
    if (c.n_params == 3) {
        CHECK(!strcmp(c.params[0].name, "input") && c.params[0].n_scale == 1, "input entry");
        CHECK(quant_cfg_param_get(&c.params[0], &p) == 0 && p.scale == 0.0078125f && p.zp == -1 &&
              p.min == -1.0f && p.max == 1.0f, "input params %g %d %g %g", p.scale, p.zp, p.min,
              p.max);
        CHECK(c.params[1].n_scale == 2 && c.params[1].scale[1] == 0.001953125 &&
              c.params[1].min[1] == -0.25, "per-channel lists");
        CHECK(quant_cfg_param_get(&c.params[1], &p) == -1, "per channel is not one parameter");
        /* min/max only: the SDK formula, scale 2.55/255 = 0.01, zp = -128 */
        CHECK(quant_cfg_param_get(&c.params[2], &p) == 0 && p.zp == -128, "relu zp %d", p.zp);
        CHECK_NEAR(p.scale, 0.01, 1e-9, "relu scale");
    }
    quant_cfg_free(&c);

    CHECK(parse("custom_quantize_layers: {}\r\nquantize_parameters:\r\n", &c, err, sizeof(err)) == 0,
          "empty sections, CRLF: %s", err);
    CHECK(c.n_fp16 == 0 && c.n_params == 0, "nothing in them");
    quant_cfg_free(&c);

    static const struct { const char *text, *want; } bad[] = {
        { "", "no custom_quantize_layers or quantize_parameters section" },
        { "custom_quantize_layers:\n\tx: float16\n", "line 2: found character that cannot start any token" },
        { "custom_quantize_layers:\n    x: int4\n", "line 2: layer 'x': only float16" },
        { "quantize_parameters:\n    t:\n        scale: [0.1, 0.2]\n        zero_point: [3]\n",
          "tensor 't': min/max or scale/zero_point missing or of different lengths" },
        { "quantize_parameters:\n    t:\n        scale: [0.5]\n        zero_point: [300]\n",
          "zero_point in [-128, 127]" },
        { "quantize_parameters:\n    t:\n        min: [-1, x]\n        max: [1]\n",
          "line 3: tensor 't': 'min' takes numbers, got 'x'" },
        { "quantize_parameters:\n    t:\n        min: [2]\n        max: [1]\n", "min > max" },
        { "    x: float16\n", "line 1: unknown section 'x'" },
        { "custom_quantize_layers: {}\n---\nquantize_parameters: {}\n", "line 3: a second YAML document" },
        { "custom_quantize_layers:\n    '': float16\n", "line 2: a tensor name must be a non-empty string" },
        { "layers:\n", "line 1: unknown section 'layers'" },
        { "quantize_parameters:\n    t:\n        min:\n        - one\n", "line 4: tensor 't': 'min' takes numbers, got 'one'" },
        { "quantize_parameters:\n    t: 3\n", "line 2: tensor 't' takes an indented block" },
        { "quantize_parameters:\n    t:\n        min: [1]\n        min: [1]\n", "given twice" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        int rc = parse(bad[i].text, &c, err, sizeof(err));
        CHECK(rc == RT_EFORMAT && strstr(err, bad[i].want), "case %zu: rc %d, '%s' lacks '%s'", i,
              rc, err, bad[i].want);
    }
    TEST_END();
}
