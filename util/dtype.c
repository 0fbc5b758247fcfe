/* util/dtype.c — the one table of data type sizes and names (util/dtype.h). */
#include "util/dtype.h"

#include <string.h>

static const struct {
    size_t size;
    const char *numpy;
    const char *vendor;
} types[DT_LAST + 1] = {
    [DT_UNDEFINED] = {0, "undefined", NULL},
    [DT_FLOAT] = {4, "float32", "FLOAT"},
    [DT_UINT8] = {1, "uint8", "UINT8"},
    [DT_INT8] = {1, "int8", "INT8"},
    [DT_UINT16] = {2, "uint16", "UINT16"},
    [DT_INT16] = {2, "int16", "INT16"},
    [DT_INT32] = {4, "int32", "INT32"},
    [DT_INT64] = {8, "int64", "INT64"},
    [DT_STRING] = {0, "string", NULL},
    [DT_BOOL] = {1, "bool", NULL},
    [DT_FLOAT16] = {2, "float16", "FLOAT16"},
    [DT_DOUBLE] = {8, "float64", NULL},
    [DT_UINT32] = {4, "uint32", NULL},
    [DT_UINT64] = {8, "uint64", NULL},
    [DT_COMPLEX64] = {0, "complex64", NULL},
    [DT_COMPLEX128] = {0, "complex128", NULL},
    [DT_BFLOAT16] = {2, "bfloat16", "BFLOAT16"},
};

size_t dtype_size(int dt)
{
    return dt >= 0 && dt <= DT_LAST ? types[dt].size : 0;
}

const char *dtype_name_or_null(int dt)
{
    return dt >= 0 && dt <= DT_LAST ? types[dt].numpy : NULL;
}

const char *dtype_name(int dt)
{
    const char *s = dtype_name_or_null(dt);
    return s ? s : "undefined";
}

const char *dtype_vendor_name(int dt)
{
    return dt >= 0 && dt <= DT_LAST ? types[dt].vendor : NULL;
}

int dtype_from_name(const char *s)
{
    if (!s)
        return DT_UNDEFINED;
    /* the vendor's other spellings of float16 and float32 */
    if (!strcmp(s, "FP16"))
        return DT_FLOAT16;
    if (!strcmp(s, "FLOAT32") || !strcmp(s, "float"))
        return DT_FLOAT;
    for (int d = 1; d <= DT_LAST; d++)
        if ((types[d].numpy && !strcmp(s, types[d].numpy)) ||
            (types[d].vendor && !strcmp(s, types[d].vendor)))
            return d;
    return DT_UNDEFINED;
}
