/* runtime/npu/npu_dump.c — the vendor's level-5 dump file names
 * (shared/research/log-formats.md §5). */
#include <stdio.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "util/util.h"

const char *npu_dump_dtype(int dt)
{
    switch (dt) {
    case DT_FLOAT: return "float";
    case DT_UINT8: return "uint8";
    case DT_INT8: return "int8";
    case DT_FLOAT16: return "float16";
    case DT_INT16: return "int16";
    case DT_INT32: return "int32";
    case DT_INT64: return "int64";
    case DT_BOOL: return "bool";
    }
    return NULL;
}

/* appends s with path-unsafe characters replaced */
static size_t put_clean(char *buf, size_t len, size_t u, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f || strchr("/:\\*?\"<>|", c))
            c = '_';
        if (u + 1 < len)
            buf[u] = (char)c;
        u++;
    }
    if (len)
        buf[u < len ? u : len - 1] = 0;
    return u;
}

int npu_dump_name(char *buf, size_t len, int index, const char *optype, const char *tensor,
                  const npu_shape_t *shape, const char *dtype)
{
    size_t u;
    char tmp[32];

    if (!buf || !len)
        return RT_EINVAL;
    snprintf(tmp, sizeof tmp, "%03d_", index);
    u = put_clean(buf, len, 0, tmp);
    u = put_clean(buf, len, u, optype);
    u = put_clean(buf, len, u, "_");
    u = put_clean(buf, len, u, tensor);
    u = put_clean(buf, len, u, "_shape");
    for (int i = 0; shape && i < shape->nd; i++) {
        snprintf(tmp, sizeof tmp, "_%lld", (long long)shape->d[i]);
        u = put_clean(buf, len, u, tmp);
    }
    u = put_clean(buf, len, u, "_");
    u = put_clean(buf, len, u, dtype);
    u = put_clean(buf, len, u, ".npy");
    return u < len ? 0 : RT_EINVAL;
}
