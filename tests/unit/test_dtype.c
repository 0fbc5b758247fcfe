/* tests/unit/test_dtype.c — util/dtype.c's one table against its sources: the
 * codes against onnx.proto's TensorProto.DataType (the generated header), the
 * sizes and names against numpy's (np.dtype(name).itemsize, written out here),
 * the vendor names as its perf tables print them (DataType column). */
#include <string.h>

#include "onnx/onnx.pb-c.h"
#include "tests/test.h"
#include "util/dtype.h"

#define P(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x

int main(void)
{
    static const struct {
        int dt, onnx;
        size_t size;            /* numpy itemsize; 0: no fixed-size element */
        const char *np, *vendor;
    } want[] = {
        {DT_FLOAT, P(FLOAT), 4, "float32", "FLOAT"},
        {DT_UINT8, P(UINT8), 1, "uint8", "UINT8"},
        {DT_INT8, P(INT8), 1, "int8", "INT8"},
        {DT_UINT16, P(UINT16), 2, "uint16", "UINT16"},
        {DT_INT16, P(INT16), 2, "int16", "INT16"},
        {DT_INT32, P(INT32), 4, "int32", "INT32"},
        {DT_INT64, P(INT64), 8, "int64", "INT64"},
        {DT_STRING, P(STRING), 0, "string", NULL},
        {DT_BOOL, P(BOOL), 1, "bool", NULL},
        {DT_FLOAT16, P(FLOAT16), 2, "float16", "FLOAT16"},
        {DT_DOUBLE, P(DOUBLE), 8, "float64", NULL},
        {DT_UINT32, P(UINT32), 4, "uint32", NULL},
        {DT_UINT64, P(UINT64), 8, "uint64", NULL},
        {DT_COMPLEX64, P(COMPLEX64), 0, "complex64", NULL},
        {DT_COMPLEX128, P(COMPLEX128), 0, "complex128", NULL},
        {DT_BFLOAT16, P(BFLOAT16), 2, "bfloat16", "BFLOAT16"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int d = want[i].dt;
        CHECK(d == want[i].onnx, "%s: code %d, onnx.proto %d", want[i].np, d, want[i].onnx);
        CHECK(dtype_size(d) == want[i].size, "%s: size %zu", want[i].np, dtype_size(d));
        CHECK(!strcmp(dtype_name(d), want[i].np), "%d: name %s", d, dtype_name(d));
        CHECK(dtype_from_name(want[i].np) == d, "from %s", want[i].np);
        const char *v = dtype_vendor_name(d);
        CHECK(want[i].vendor ? v && !strcmp(v, want[i].vendor) : !v, "%s: vendor %s",
              want[i].np, v ? v : "(none)");
        if (want[i].vendor)
            CHECK(dtype_from_name(want[i].vendor) == d, "from %s", want[i].vendor);
    }
    /* the vendor's other spellings; what is none */
    CHECK(dtype_from_name("FP16") == DT_FLOAT16, "FP16");
    CHECK(dtype_from_name("FLOAT32") == DT_FLOAT && dtype_from_name("float") == DT_FLOAT, "f32");
    CHECK(dtype_from_name("fp17") == DT_UNDEFINED && dtype_from_name(NULL) == DT_UNDEFINED &&
          dtype_from_name("undefined") == DT_UNDEFINED && dtype_from_name("") == DT_UNDEFINED,
          "unknown names");
    CHECK(!strcmp(dtype_name(99), "undefined") && !strcmp(dtype_name(-1), "undefined") &&
          !dtype_name_or_null(17) && !dtype_name_or_null(-1) &&
          !strcmp(dtype_name_or_null(0), "undefined"), "out of range codes");
    CHECK(dtype_size(17) == 0 && dtype_size(-3) == 0 && !dtype_vendor_name(40), "no size");
    TEST_END();
}
