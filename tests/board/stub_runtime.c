/* tests/board/stub_runtime.c — a stand-in for the vendor's librknnrt.so in the
 * board tests: it takes any model (a vendor .rknn too), answers the queries as
 * the vendor runtime 1.5.2 would for one uint8 NHWC 416x416 input and one float
 * 1x3549x8 output, and gives as RKNN_QUERY_PERF_DETAIL the text of the file
 * $STUB_PERF (a real board's table) and 1234 us as RKNN_QUERY_PERF_RUN. Built
 * with cc -shared by the tests; not part of the project. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rknn_api.h"

static char *perf_text;
static float out_buf[3549 * 8];

int rknn_init(rknn_context *context, void *model, uint32_t size, uint32_t flag,
              rknn_init_extend *extend)
{
    (void)model, (void)size, (void)flag, (void)extend;
    *context = 7;
    return RKNN_SUCC;
}

int rknn_destroy(rknn_context context)
{
    (void)context;
    return RKNN_SUCC;
}

static void attr(rknn_tensor_attr *a, int out)
{
    uint32_t index = a->index;
    memset(a, 0, sizeof(*a));
    a->index = index;
    if (!out) {
        a->n_dims = 4;
        a->dims[0] = 1, a->dims[1] = 416, a->dims[2] = 416, a->dims[3] = 3;
        a->n_elems = 416 * 416 * 3;
        a->size = a->n_elems;
        a->fmt = RKNN_TENSOR_NHWC;
        a->type = RKNN_TENSOR_UINT8;
        snprintf(a->name, sizeof a->name, "images");
    } else {
        a->n_dims = 3;
        a->dims[0] = 1, a->dims[1] = 3549, a->dims[2] = 8;
        a->n_elems = 3549 * 8;
        a->size = a->n_elems * 4;
        a->fmt = RKNN_TENSOR_UNDEFINED;
        a->type = RKNN_TENSOR_FLOAT32;
        snprintf(a->name, sizeof a->name, "output");
    }
}

int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size)
{
    (void)context, (void)size;
    switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM:
        ((rknn_input_output_num *)info)->n_input = 1;
        ((rknn_input_output_num *)info)->n_output = 1;
        return RKNN_SUCC;
    case RKNN_QUERY_INPUT_ATTR:
    case RKNN_QUERY_OUTPUT_ATTR:
        attr(info, cmd == RKNN_QUERY_OUTPUT_ATTR);
        return RKNN_SUCC;
    case RKNN_QUERY_SDK_VERSION:
        snprintf(((rknn_sdk_version *)info)->api_version, 256, "1.5.2 (c6b7b351a@2023-08-23T15:28:22)");
        snprintf(((rknn_sdk_version *)info)->drv_version, 256, "0.9.8");
        return RKNN_SUCC;
    case RKNN_QUERY_PERF_RUN:
        ((rknn_perf_run *)info)->run_duration = 1234;
        return RKNN_SUCC;
    case RKNN_QUERY_PERF_DETAIL: {
        const char *path = getenv("STUB_PERF");
        FILE *f = path ? fopen(path, "rb") : NULL;
        long n;
        if (!f)
            return RKNN_ERR_FAIL;
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        rewind(f);
        free(perf_text);
        perf_text = calloc(1, (size_t)n + 1);
        if (!perf_text || fread(perf_text, 1, (size_t)n, f) != (size_t)n) {
            fclose(f);
            return RKNN_ERR_FAIL;
        }
        fclose(f);
        ((rknn_perf_detail *)info)->perf_data = perf_text;
        ((rknn_perf_detail *)info)->data_len = (uint64_t)n;
        return RKNN_SUCC;
    }
    default:
        return RKNN_ERR_FAIL;
    }
}

int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[])
{
    (void)context, (void)inputs;
    return n_inputs == 1 ? RKNN_SUCC : RKNN_ERR_PARAM_INVALID;
}

/* STUB_REPLACE_AT_RUN=PATH: at the first rknn_run, PATH (a database the caller has
 * checked up front) and its journal give way to a folder of that name, so that the
 * caller's recording after the measured runs fails at a known point, not a raced one. */
static void replace_at_run(void)
{
    static int done;
    const char *path = getenv("STUB_REPLACE_AT_RUN");
    char journal[4096];

    if (done || !path)
        return;
    done = 1;
    snprintf(journal, sizeof journal, "%s-journal", path);
    unlink(path);
    unlink(journal);
    mkdir(path, 0755);
}

int rknn_run(rknn_context context, rknn_run_extend *extend)
{
    (void)context, (void)extend;
    replace_at_run();
    return RKNN_SUCC;
}

int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
                     rknn_output_extend *extend)
{
    (void)context, (void)extend;
    for (uint32_t i = 0; i < n_outputs; i++)
        if (!outputs[i].is_prealloc) {
            outputs[i].buf = out_buf;
            outputs[i].size = sizeof out_buf;
        }
    return RKNN_SUCC;
}

int rknn_outputs_release(rknn_context context, uint32_t n_outputs, rknn_output outputs[])
{
    (void)context, (void)n_outputs, (void)outputs;
    return RKNN_SUCC;
}
