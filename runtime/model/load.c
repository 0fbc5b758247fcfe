/* runtime/model/load.c — model_load_file(): reads a model file and picks the
 * loader from the content, not from the file name. */
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "util/util.h"

/* Signatures of vendor files (see shared research rknn-format.md §1). */
static const char *vendor_kind(const unsigned char *p, size_t len)
{
    if (len >= 8 && memcmp(p, "CYPTRKNN", 8) == 0)
        return "encrypted .rknn";
    if (len >= 4 && memcmp(p, "RKNN", 4) == 0)
        return ".rknn";
    if (len >= 4 && memcmp(p, "RKNX", 4) == 0)
        return "RKNN3 .rknn";
    if (len >= 8 && memcmp(p + 4, "RKNN", 4) == 0)
        return "bare RKNN FlatBuffer";
    if (len >= 4 && memcmp(p, "VPMN", 4) == 0)
        return "OpenVX NBG";
    return NULL;
}

int model_load_buffer(const void *buf, size_t len, const char *what, graph_t **out, char *err,
                      size_t errlen)
{
    const char *vk = vendor_kind(buf, len);
    char msg[768];
    int ret;

    *out = NULL;
    if (vk)
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "%s: vendor-compiled %s holds NPU machine code and cannot be simulated; "
                      "run the source ONNX model instead (`rknn-trace inspect` shows the "
                      "container)", what, vk);
    if (len == 0)
        return rt_err(err, errlen, RT_EFORMAT, "%s: not an ONNX model (empty)", what);
    if (simmodel_is(buf, len)) /* `rknn-trace build` output */
        ret = simmodel_load_graph(buf, len, out, msg, sizeof(msg));
    else
        ret = model_load_onnx(buf, len, out, msg, sizeof(msg));
    if (ret)
        rt_err(err, errlen, ret, "%s: %s", what, msg);
    return ret;
}

int model_load_file(const char *path, graph_t **out, char *err, size_t errlen)
{
    void *buf = NULL;
    size_t len = 0;
    int ret;

    *out = NULL;
    ret = rt_read_file(path, &buf, &len, err, errlen);
    if (ret)
        return ret;
    ret = model_load_buffer(buf, len, path, out, err, errlen);
    free(buf);
    return ret;
}
