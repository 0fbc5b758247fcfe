/* tests/unit/test_rknn_predict.c — a vendor file's conv costed from the
 * compiler's shapes (record/source_predict.c): a depthwise conv is billed as
 * depthwise in both weight layouts the files use, (C,1,kh,kw) (RV1103) and
 * (1,C,kh,kw) (toolkit 2.3.2's RK35xx files, e.g. RetinaFace_mobile320 for
 * rk3562/rk3576), and a dense conv of the same shapes as dense. Oracle: the
 * cycle rules of docs/npu-model.md worked out by hand for rk3588 int8 (dense
 * 32x32 atoms, depthwise 64 channels a tap):
 *   (1,128,40,40) -> (1,128,40,40), 3x3, 1600 output pixels (a multiple of 16)
 *   depthwise: 1600 * 9 * ceil(128/64)              =  28800
 *   dense:     1600 * max(9 * 4 * 4, 128/8 = 16)    = 230400 */
#include <stdint.h>
#include <string.h>
#include "record/source_predict.h"
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "runtime/npu/npu.h"
#include "tests/test.h"

/* cycles of the one conv of a model whose weight has shape w */
static uint64_t conv_cycles(const int64_t w[4], int *kind)
{
    int64_t x[4] = {1, 128, 40, 40}, y[4] = {1, 128, 40, 40}, wt[4];
    rknn_tensor t[3];
    rknn_node n;
    rknn_model m;
    int in[2] = {0, 1}, out[1] = {2};
    npu_graph_t *ng = NULL;
    graph_t *g = NULL;
    char err[256];
    uint64_t cyc = 0;

    memcpy(wt, w, sizeof wt);
    memset(t, 0, sizeof t);
    memset(&n, 0, sizeof n);
    memset(&m, 0, sizeof m);
    t[0] = (rknn_tensor){.name = "x", .dtype = 3, .kind = RKNN_TK_ACT, .nd = 4, .shape = x,
                         .buffer = -1, .data_off = -1, .data_len = -1, .size = -1};
    t[1] = (rknn_tensor){.name = "w", .dtype = 3, .kind = RKNN_TK_CONST, .nd = 4, .shape = wt,
                         .buffer = -1, .data_off = -1, .data_len = -1, .size = -1};
    t[2] = (rknn_tensor){.name = "y", .dtype = 3, .kind = RKNN_TK_ACT, .nd = 4, .shape = y,
                         .buffer = -1, .data_off = -1, .data_len = -1, .size = -1};
    n = (rknn_node){.type = "ConvRelu", .name = "Conv:c", .target = RKNN_TGT_NPU, .in = in,
                    .n_in = 2, .out = out, .n_out = 1};
    m.tensors = t;
    m.n_tensors = 3;
    m.nodes = &n;
    m.n_nodes = 1;
    CHECK(predict_graph(&m, npu_platform_find("rk3588"), &ng, &g, err, sizeof err) == 0,
          "predict_graph: %s", err);
    if (!ng)
        return 0;
    CHECK(npu_mem_plan(ng, g, NULL, 0, err, sizeof err) == 0, "memory plan: %s", err);
    npu_cost(ng);
    cyc = ng->l[0].npu_cycles;
    *kind = ng->l[0].kind;
    npu_graph_free(ng);
    graph_free(g);
    return cyc;
}

int main(void)
{
    static const int64_t dw_rv[4] = {128, 1, 3, 3}, dw_rk[4] = {1, 128, 3, 3},
                         dense[4] = {128, 128, 3, 3};
    int kind = -1;
    uint64_t c;

    c = conv_cycles(dw_rv, &kind);
    CHECK(c == 28800 && kind == NPU_K_DWCONV, "(C,1,3,3): %llu cycles, kind %d",
          (unsigned long long)c, kind);
    c = conv_cycles(dw_rk, &kind);
    CHECK(c == 28800 && kind == NPU_K_DWCONV, "(1,C,3,3): %llu cycles, kind %d",
          (unsigned long long)c, kind);
    c = conv_cycles(dense, &kind);
    CHECK(c == 230400 && kind == NPU_K_CONV, "(C,C,3,3): %llu cycles, kind %d",
          (unsigned long long)c, kind);
    TEST_END();
}
