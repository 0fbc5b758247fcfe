/* tests/unit/test_rknn_predict.c — a vendor file's conv costed from the
 * compiler's shapes (runtime/npu/npu_rknn.c): a depthwise conv is billed as
 * depthwise in both weight layouts the files use, (C,1,kh,kw) (RV1103) and
 * (1,C,kh,kw) (toolkit 2.3.2's RK35xx files, e.g. RetinaFace_mobile320 for
 * rk3562/rk3576), and a dense conv of the same shapes as dense. Oracle: the
 * cycle rules of docs/npu-model.md worked out by hand for rk3588 int8 (dense
 * 32x32 atoms, depthwise 64 channels a tap):
 *   (1,128,40,40) -> (1,128,40,40), 3x3, 1600 output pixels (a multiple of 16)
 *   depthwise: 1600 * 9 * ceil(128/64)              =  28800
 *   dense:     1600 * max(9 * 4 * 4, 128/8 = 16)    = 230400
 * and an exSoftmax13 as toolkit 2.3.2 compiles RetinaFace's class scores,
 * (1,4200,1,2) with a constant (1,2,1,1): 4200 rows of 2, on rk3588 its
 * level-4 time grows by 4200 * 552 cycles (npu_platform.c) = 2318.4 us over
 * the same layer on rk3576 (at 950 MHz: the rest of both is the DDR time
 * and the 34.99 us floor, subtracted here), and over its constant read as
 * (1,1008,1,1), the 1001 classes of a C-aligned reduction: one row; and
 * an exSDPAttention as RF-DETR's rows 130/190 (runtime 2.3.2) log it, output
 * (24,64,1,257) = (heads, dv, 1, Lq): 24 x 257 = 6168 rows of its softmax,
 * 6168 * 552 cycles. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/model/rknn_file.h"
#include "runtime/npu/npu.h"
#include "tests/test.h"

/* A vendor model of one NPU node of type "type": input x, constant w (its
 * weight), output y, all of dtype (rknn_file.h codes), predicted on chip;
 * the lowered graph (caller frees ng and g) or NULL with a failed check. */
typedef struct one_node {
    int64_t x[4], w[4], y[4];
    rknn_tensor t[3];
    rknn_node n;
    rknn_model m;
    int in[2], out[1];
    graph_t *g;
} one_node;

static npu_graph_t *predict_one(one_node *o, char *type, int dtype, const char *chip)
{
    static char nx[] = "x", nw[] = "w", ny[] = "y", nn[] = "n";
    char *const names[3] = {nx, nw, ny};
    const int64_t *shapes[3] = {o->x, o->w, o->y};
    npu_graph_t *ng = NULL;
    char err[256];

    memset(o->t, 0, sizeof o->t);
    for (int i = 0; i < 3; i++)
        o->t[i] = (rknn_tensor){.name = names[i], .dtype = dtype,
                                .kind = i == 1 ? RKNN_TK_CONST : RKNN_TK_ACT, .nd = 4,
                                .shape = (int64_t *)shapes[i], .buffer = -1, .data_off = -1,
                                .data_len = -1, .size = -1};
    o->in[0] = 0, o->in[1] = 1, o->out[0] = 2;
    o->n = (rknn_node){.type = type, .name = nn, .target = RKNN_TGT_NPU, .in = o->in,
                       .n_in = 2, .out = o->out, .n_out = 1};
    o->m = (rknn_model){.tensors = o->t, .n_tensors = 3, .nodes = &o->n, .n_nodes = 1};
    o->g = NULL;
    CHECK(npu_graph_of_rknn(&o->m, npu_platform_find(chip), &ng, &o->g, err, sizeof err) == 0,
          "npu_graph_of_rknn %s: %s", type, err);
    if (ng)
        CHECK(npu_mem_plan(ng, o->g, NULL, 0, err, sizeof err) == 0, "memory plan: %s", err);
    if (ng)
        npu_cost(ng);
    return ng;
}

/* cycles of the one conv of a model whose weight has shape w */
static uint64_t conv_cycles(const int64_t w[4], int *kind)
{
    one_node o = {.x = {1, 128, 40, 40}, .y = {1, 128, 40, 40}};
    memcpy(o.w, w, sizeof o.w);
    char type[] = "ConvRelu";
    npu_graph_t *ng = predict_one(&o, type, 3, "rk3588");
    if (!ng)
        return 0;
    uint64_t cyc = ng->l[0].npu_cycles;
    *kind = ng->l[0].kind;
    npu_graph_free(ng);
    graph_free(o.g);
    return cyc;
}

/* level-4 time minus floor and DDR time, in NPU cycles, of one exSoftmax13
 * over x with a constant of shape w; type "exSDPAttention": its row cycles */
static double softmax_cycles_of(const char *type, const char *chip, const int64_t xs[4],
                                const int64_t w[4])
{
    one_node o;
    const npu_platform_t *p = npu_platform_find(chip);
    char tb[32];

    memcpy(o.x, xs, sizeof o.x);
    memcpy(o.y, xs, sizeof o.y);
    memcpy(o.w, w, sizeof o.w);
    snprintf(tb, sizeof tb, "%s", type);
    npu_graph_t *ng = predict_one(&o, tb, 1, chip);
    if (!ng)
        return -1;
    const npu_layer_t *l = &ng->l[0];
    double c = strcmp(type, "exSoftmax13")
                   ? npu_softmax_cycles(p, l)
                   : (l->time_us - p->t_layer_us[l->dtype]) * p->npu_mhz -
                         (double)l->ddr_cycles * p->t_ddr[l->dtype];
    npu_graph_free(ng);
    graph_free(o.g);
    return c;
}

static double softmax_cycles(const char *chip, const int64_t xs[4], const int64_t w[4])
{
    return softmax_cycles_of("exSoftmax13", chip, xs, w);
}

int main(void)
{
    static const int64_t rf[4] = {1, 4200, 1, 2}, rf_w[4] = {1, 2, 1, 1},
                         cls[4] = {1, 1001, 1, 1}, cls_w[4] = {16, 1008, 1, 1},
                         att[4] = {24, 64, 1, 257}, att_k[4] = {24, 64, 1, 257};
    double sm;

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
    sm = softmax_cycles("rk3588", rf, rf_w);
    CHECK(sm > 2318400 - 1 && sm < 2318400 + 1, "rk3588 (1,4200,1,2): %.1f row cycles", sm);
    sm = softmax_cycles("rk3576", rf, rf_w);
    CHECK(sm > -1 && sm < 1, "rk3576 (1,4200,1,2): %.1f row cycles", sm);
    sm = softmax_cycles("rk3588", cls, cls_w);
    CHECK(sm > 552 - 1 && sm < 552 + 1, "rk3588 (1,1001,1,1): %.1f row cycles", sm);
    sm = softmax_cycles_of("exSDPAttention", "rk3588", att, att_k);
    CHECK(sm > 6168.0 * 552 - 1 && sm < 6168.0 * 552 + 1, "rk3588 exSDPAttention: %.1f row cycles",
          sm);
    TEST_END();
}
