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

/* model_load_buffer of a buffer read from a file in folder dir (or NULL). */
static int load_buffer_dir(const void *buf, size_t len, const char *what, const char *dir,
                           graph_t **out, char *err, size_t errlen)
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
        ret = model_load_onnx_dir(buf, len, dir, out, msg, sizeof(msg));
    if (ret)
        rt_err(err, errlen, ret, "%s: %s", what, msg);
    return ret;
}

int model_load_buffer(const void *buf, size_t len, const char *what, graph_t **out, char *err,
                      size_t errlen)
{
    return load_buffer_dir(buf, len, what, NULL, out, err, errlen);
}

char *model_file_dir(const char *path)
{
    char *dir = xmalloc(strlen(path) + 2), *slash;
    strcpy(dir, path);
    slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else
        slash[slash == dir ? 1 : 0] = 0;
    return dir;
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
    /* the file's folder, where its external data files are */
    char *dir = model_file_dir(path);
    ret = load_buffer_dir(buf, len, path, dir, out, err, errlen);
    free(dir);
    free(buf);
    return ret;
}
