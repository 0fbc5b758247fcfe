/* tests/unit/test_npu_platform.c — the platform table against the numbers in
 * npu-hw.md, hand-checked (peak TOPS, DDR bytes per cycle, masks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "tests/test.h"
#include "util/util.h"

static int t4(graph_t *g, const char *name, int64_t c, int kind)
{
    int i = graph_add_tensor(g, name);
    g->t[i].dtype = DT_FLOAT;
    g->t[i].ndim = 4;
    g->t[i].dims[0] = 1;
    g->t[i].dims[1] = c;
    g->t[i].dims[2] = 8;
    g->t[i].dims[3] = 8;
    g->t[i].kind = kind;
    return i;
}

static char *table(const npu_graph_t *ng)
{
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);
    npu_print_perf_table(f, ng, 0);
    fclose(f);
    return t;
}

/* The level-4 printer caches rows and the whole table: a second print is the
 * same text, and a change of cores (WorkLoad, time) shows up, as in a table
 * printed by a fresh, uncached graph. */
static void table_cache(const graph_t *g, npu_graph_t *ng)
{
    npu_graph_t *fresh = NULL;
    char *a = table(ng), *b = table(ng), *c, *d, err[128];

    CHECK(a && b && !strcmp(a, b), "cached table identical");
    npu_set_core_mask(ng, 7, err, sizeof err);
    npu_cost(ng);
    c = table(ng);
    npu_lower(g, ng->plat, DT_INT8, &fresh, err, sizeof err);
    npu_set_core_mask(fresh, 7, err, sizeof err);
    npu_cost(fresh);
    d = table(fresh);
    CHECK(strcmp(a, c) != 0 && !strcmp(c, d), "core mask change shown as by a fresh graph");
    free(a);
    free(b);
    free(c);
    free(d);
    npu_graph_free(fresh);
}

/* x -> Conv -> Div(by a constant) -> Div(by an activation): the first is a Mul
 * on the NPU (the converter's "_2mul"), the second stays on the CPU in int8
 * (NPU Div is fp16 only); npu_frame_us = the frame model over the NPU layers
 * ((max(n, d) + f_overlap x min(n, d)) / MHz + f_layer_us with n the NPU and
 * d the DDR cycles x f_ddr, plus f_lut a cycle for each output element of
 * the elementwise Mul, which passes the DPU on its own; the conv has no
 * lookup-table activation) plus the CPU layers' times. */
static void div_and_frame(void)
{
    graph_t *g = graph_new();
    int x = t4(g, "x", 16, TK_INPUT), w = t4(g, "w", 16, TK_CONST), y = t4(g, "y", 16, TK_ACT);
    int k = t4(g, "k", 1, TK_CONST), z = t4(g, "z", 16, TK_ACT), q = t4(g, "q", 16, TK_ACT);
    int in[2], o[1];
    npu_graph_t *ng = NULL;
    char err[256];
    const npu_platform_t *p = npu_platform_find("rk3588");
    double want = 0;
    int n_mul = 0, n_div_cpu = 0;

    g->t[w].dims[0] = 16;
    g->t[k].ndim = 0;
    in[0] = x, in[1] = w, o[0] = y;
    g->t[y].producer = graph_add_node(g, NULL, "Conv", "", 2, in, 1, o);
    in[0] = y, in[1] = k, o[0] = z;
    g->t[z].producer = graph_add_node(g, NULL, "Div", "", 2, in, 1, o);
    in[0] = z, in[1] = y, o[0] = q;
    g->t[q].producer = graph_add_node(g, NULL, "Div", "", 2, in, 1, o);
    graph_set_io(g, 1, &x, 1, &q);
    CHECK(npu_lower(g, p, DT_INT8, &ng, err, sizeof err) == 0, "lower: %s", err);
    if (ng) {
        npu_cost(ng);
        for (int i = 0; i < ng->n; i++) {
            const npu_layer_t *l = &ng->l[i];
            n_mul += !strcmp(l->optype, "Mul") && l->target == NPU_TGT_NPU;
            n_div_cpu += !strcmp(l->optype, "Div") && l->target == NPU_TGT_CPU;
            double n = (double)l->npu_cycles, d = l->ddr_cycles * p->f_ddr, e = 0;
            if (!strcmp(l->optype, "Mul") && l->target == NPU_TGT_NPU) {
                e = 1;
                for (int k = 0; k < l->out[0].nd; k++)
                    e *= (double)l->out[0].d[k];
            }
            want += l->target == NPU_TGT_NPU
                        ? (fmax(n, d) + p->f_overlap * fmin(n, d) + e * p->f_lut) / p->npu_mhz +
                              p->f_layer_us
                        : l->time_us;
        }
        CHECK(n_mul == 1 && n_div_cpu == 1, "Div by constant -> NPU Mul (%d), other Div on CPU (%d)",
              n_mul, n_div_cpu);
        CHECK(fabs(npu_frame_us(ng) - want) < 1e-9 && npu_frame_us(ng) < ng->total_us,
              "frame %.3f want %.3f", npu_frame_us(ng), want);
        table_cache(g, ng);
    }
    npu_graph_free(ng);
    graph_free(g);
}

/* ReduceSum over the channels (axes as an opset-13 constant input) + Clip ->
 * one NPU ConvClip "<node>_2conv", 8 -> 1 channels: as LOG-Y8's yolov8n score
 * sum, whose row 78 bills 4 cycles a pixel (230,400 for 240x240): 64 pixels,
 * 256 cycles. Over another axis it stays a ReduceSum on the CPU. A Sigmoid
 * fused into a conv is a lookup-table activation, a HardSigmoid or ReLU is not. */
static void channel_sum(void)
{
    for (int axis = 1; axis <= 2; axis++) {
        graph_t *g = graph_new();
        int x = t4(g, "x", 8, TK_INPUT), r = t4(g, "r", 1, TK_ACT), y = t4(g, "y", 1, TK_ACT);
        int ax = graph_add_tensor(g, "axes"), in[2], o[1];
        npu_graph_t *ng = NULL;
        char err[256];
        int64_t *v = xmalloc(sizeof(int64_t));

        g->t[ax].dtype = DT_INT64;
        g->t[ax].ndim = 1;
        g->t[ax].dims[0] = 1;
        g->t[ax].kind = TK_CONST;
        *v = axis;
        g->t[ax].data = v;
        in[0] = x, in[1] = ax, o[0] = r;
        g->t[r].producer = graph_add_node(g, "rs", "ReduceSum", "", 2, in, 1, o);
        in[0] = r, o[0] = y;
        g->t[y].producer = graph_add_node(g, NULL, "Clip", "", 1, in, 1, o);
        graph_set_io(g, 1, &x, 1, &y);
        CHECK(npu_lower(g, npu_platform_find("rk3588"), DT_INT8, &ng, err, sizeof err) == 0,
              "lower: %s", err);
        if (ng) {
            const npu_layer_t *l = NULL;
            npu_cost(ng);
            for (int i = 0; i < ng->n; i++)
                if (ng->l[i].kind != NPU_K_IO && ng->l[i].kind != NPU_K_CONVERT)
                    l = l ? l : &ng->l[i];
            if (axis == 1)
                CHECK(l && !strcmp(l->optype, "ConvClip") && l->target == NPU_TGT_NPU &&
                          l->ic == 8 && l->oc == 1 && l->npu_cycles == 256 &&
                          strstr(l->fullname, "rs_2conv") && !npu_layer_uses_lut(l),
                      "channel sum: %s %s ic %d oc %d cycles %llu", l ? l->optype : "-",
                      l ? l->fullname : "-", l ? l->ic : 0, l ? l->oc : 0,
                      l ? (unsigned long long)l->npu_cycles : 0ULL);
            else
                CHECK(l && !strcmp(l->optype, "ReduceSum") && l->target == NPU_TGT_CPU,
                      "sum over H: %s", l ? l->optype : "-");
        }
        npu_graph_free(ng);
        graph_free(g);
    }
    {
        npu_layer_t l = {0};
        const char *lut[] = {"ConvSigmoid", "ConvExSwish", "Sigmoid", "ConvElu", "exGelu"};
        const char *plain[] = {"ConvHardSigmoid", "ConvRelu", "Conv", "ConvClip", "Relu"};
        for (int i = 0; i < 5; i++) {
            snprintf(l.optype, sizeof l.optype, "%s", lut[i]);
            CHECK(npu_layer_uses_lut(&l), "%s uses the LUT", lut[i]);
            snprintf(l.optype, sizeof l.optype, "%s", plain[i]);
            CHECK(!npu_layer_uses_lut(&l), "%s does not", plain[i]);
        }
    }
}

/* x -> Conv -> Div(by an activation) in int8: the Div runs on the CPU in
 * float (DataType FLOAT, exDataConvert rows around it). Its time is its work
 * through the constants, by hand: reads y and the converted conv output as
 * float32 NCHW (2 x 1024 elements, no padding), 1024 elements, 1024 flops;
 * on rk3566 the same divided by its CPU speed (A55 1.8 GHz x 0.45 against
 * A76 2.256 GHz). Costing again, under any host load, changes nothing; no
 * host time can enter. On rv1106 a Sqrt (no CPU op there) is refused, named. */
static void cpu_cost(void)
{
    const char *chips[] = {"rk3588", "rk3566"};
    for (int c = 0; c < 2; c++) {
        graph_t *g = graph_new();
        int x = t4(g, "x", 16, TK_INPUT), w = t4(g, "w", 16, TK_CONST), y = t4(g, "y", 16, TK_ACT);
        int q = t4(g, "q", 16, TK_ACT), in[2], o[1];
        npu_graph_t *ng = NULL;
        char err[256];
        const npu_platform_t *p = npu_platform_find(chips[c]);
        const npu_cpu_consts_t *k = &npu_cpu_fit;
        const npu_layer_t *div = NULL;

        g->t[w].dims[0] = 16;
        in[0] = x, in[1] = w, o[0] = y;
        g->t[y].producer = graph_add_node(g, NULL, "Conv", "", 2, in, 1, o);
        in[0] = y, in[1] = y, o[0] = q;
        g->t[q].producer = graph_add_node(g, NULL, "Div", "", 2, in, 1, o);
        graph_set_io(g, 1, &x, 1, &q);
        CHECK(npu_lower(g, p, DT_INT8, &ng, err, sizeof err) == 0, "lower: %s", err);
        if (ng) {
            double want, speed = c ? 1800 * 0.45 / (2256 * 1.0) : 1.0, first;
            npu_cost(ng);
            for (int i = 0; i < ng->n; i++)
                if (!strcmp(ng->l[i].optype, "Div"))
                    div = &ng->l[i];
            want = (k->op_us + (2 * 1024 * k->ns_rd + 1024 * k->ns_elem + 1024 * k->ns_flop) /
                                   1000) / speed;
            CHECK(div && div->target == NPU_TGT_CPU && !strcmp(div->datatype, "FLOAT") &&
                      fabs(div->time_us - want) < 1e-9 && div->frame_us == div->time_us,
                  "%s CPU Div %.6f us, want %.6f", chips[c], div ? div->time_us : -1, want);
            CHECK(fabs(npu_cpu_speed(p) - speed) < 1e-12, "%s CPU speed", chips[c]);
            first = npu_frame_us(ng);
            npu_set_core_mask(ng, 0, err, sizeof err); /* forces a new costing */
            npu_cost(ng);
            CHECK(npu_frame_us(ng) == first, "costing again: same frame, bit for bit");
        }
        npu_graph_free(ng);
        graph_free(g);
    }
    {
        graph_t *g = graph_new();
        int x = t4(g, "x", 16, TK_INPUT), y = t4(g, "y", 16, TK_ACT), o[1] = {y};
        npu_graph_t *ng = NULL;
        char err[256] = "";
        g->t[y].producer = graph_add_node(g, "root", "Sqrt", "", 1, &x, 1, o);
        graph_set_io(g, 1, &x, 1, &y);
        CHECK(npu_lower(g, npu_platform_find("rv1106"), DT_INT8, &ng, err, sizeof err) ==
                      RT_EUNSUPPORTED && !ng && strstr(err, "cannot run on rv1106") &&
                  strstr(err, "Sqrt 'root': Sqrt is not in the rv1106 NPU op list") &&
                  strstr(err, "no CPU Sqrt"),
              "rv1106 Sqrt refused: %s", err);
        CHECK(npu_lower(g, npu_platform_find("rk3566"), DT_INT8, &ng, err, sizeof err) == 0 &&
                  ng && ng->l[ng->n - 2].target == NPU_TGT_CPU &&
                  !strcmp(ng->l[ng->n - 2].optype, "Sqrt") && ng->l[ng->n - 2].reason,
              "rk3566 Sqrt on the CPU: %s", ng ? "" : err);
        npu_graph_free(ng);
        ng = NULL;
        /* a float16-only NPU refuses int8 and names what it has */
        CHECK(npu_lower(g, npu_platform_find("rk2118"), DT_INT8, &ng, err, sizeof err) ==
                      RT_EUNSUPPORTED && !ng && strstr(err, "rk2118 NPU has no INT8") &&
                  strstr(err, "(supported: float16)"),
              "rk2118 int8 refused: %s", err);
        graph_free(g);
    }
}

int main(void)
{
    div_and_frame();
    channel_sum();
    cpu_cost();
    const char *names[] = {"rk3588", "rk3576", "rk3566", "rk3568", "rk3562", "rv1106", "rv1103",
                           "rv1126b", "rv1106b", "rv1103b", "rk2118"};
    char err[256];
    const npu_platform_t *p;
    unsigned cores;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        p = npu_platform_find(names[i]);
        CHECK(p != NULL, "%s missing", names[i]);
        if (p)
            CHECK(strcmp(p->name, names[i]) == 0, "%s", p->name);
    }
    CHECK(npu_platform_find("RK3588") == npu_platform_find("rk3588"), "case");
    CHECK(npu_platform_get("rk9999", &p, err, sizeof err) == RT_EINVAL, "unknown");
    CHECK(strstr(err, "rk9999") && strstr(err, "rv1103"), "message lists names: %s", err);

    /* Peak: 3 cores x 1024 MAC x 2 ops x 1 GHz = 6.14 TOPS int8 (npu-hw.md §1.2). */
    p = npu_platform_find("rk3588");
    CHECK_NEAR(p->cores * npu_peak_macs(p, NPU_INT8) * 2.0 * p->npu_mhz * 1e6, 6.144e12, 1e9,
               "rk3588 int8 TOPS");
    CHECK(npu_peak_macs(p, NPU_FP16) == 512, "rk3588 fp16 512");
    /* 23.654 B/cycle: the constant that reproduces LOG-Y8 DDR cycles. */
    CHECK_NEAR(npu_ddr_bytes_per_cycle(p), 23.6544, 1e-4, "rk3588 ddr B/cycle");
    CHECK(p->sram_bytes == 978944, "sram 0xef000");
    /* the frame model's partial overlap, by hand with rk3588's f_ddr 1.50,
     * f_overlap 0.3, f_lut 0.20: DDR-bound 1000 NPU / 1000 DDR cycles ->
     * max(1000, 1500) + 0.3 * 1000 = 1800; compute-bound 4000 / 1000 and 100
     * DPU elements -> 4000 + 0.3 * 1500 + 20 = 4470; no DDR -> 4000 */
    CHECK_NEAR(npu_frame_cycles(p, 1000, 1000, 0), 1800, 1e-9, "frame cycles, DDR-bound");
    CHECK_NEAR(npu_frame_cycles(p, 4000, 1000, 100), 4470, 1e-9, "frame cycles, compute-bound");
    CHECK_NEAR(npu_frame_cycles(p, 4000, 0, 0), 4000, 1e-9, "frame cycles, no DDR");
    /* RK3562 512 x 2 x 1 GHz = 1.02 TOPS; RV1106 512 x 2 x 0.5 GHz = 0.51 TOPS */
    p = npu_platform_find("rk3562");
    CHECK_NEAR(npu_peak_macs(p, NPU_INT8) * 2.0 * p->npu_mhz * 1e6, 1.024e12, 1e9, "rk3562");
    p = npu_platform_find("rv1106");
    CHECK_NEAR(npu_peak_macs(p, NPU_INT8) * 2.0 * p->npu_mhz * 1e6, 0.512e12, 1e9, "rv1106");
    CHECK(npu_peak_macs(p, NPU_FP16) == 0, "rv1106 has no fp16");
    p = npu_platform_find("rk3566");
    CHECK(p->c2[NPU_INT8] == 8 && p->c2[NPU_FP16] == 4, "rk356x C2");

    /* The chips Toolkit2 2.1-2.3.2 added (npu-hw.md, rknn-oplist.md, rknn-api.md):
     * RV1126B one core (DRV 0.9.8) at the bench's 950 MHz, C2 16/8 as its sample
     * file's native shapes: 1024 x 2 x 0.95 GHz = 1.9456 TOPS int8; int8 and
     * float16 only (op list). RV1106B/RV1103B: int8 only, C2 8. RK2118: float16
     * only, C2 4. */
    p = npu_platform_find("rv1126b");
    CHECK(p && p->cores == 1 && p->npu_mhz == 950 && !strcmp(p->family, "rk3576"), "rv1126b");
    CHECK_NEAR(npu_peak_macs(p, NPU_INT8) * 2.0 * p->npu_mhz * 1e6, 1.9456e12, 1e9, "rv1126b TOPS");
    CHECK(p->c2[NPU_INT8] == 16 && p->c2[NPU_FP16] == 8 && p->nbuf_bytes == 512 * 1024,
          "rv1126b C2, nbuf");
    CHECK(!npu_peak_macs(p, NPU_BF16) && !npu_peak_macs(p, NPU_INT4), "rv1126b: int8/fp16 only");
    for (int k = 0; k < 2; k++) {
        p = npu_platform_find(k ? "rv1103b" : "rv1106b");
        CHECK(p && p->c2[NPU_INT8] == 8 && npu_peak_macs(p, NPU_INT8) == 512 &&
                  !npu_peak_macs(p, NPU_FP16) && !npu_peak_macs(p, NPU_INT16),
              "%s int8 only, C2 8", k ? "rv1103b" : "rv1106b");
    }
    p = npu_platform_find("rk2118");
    CHECK(p && !npu_peak_macs(p, NPU_INT8) && npu_peak_macs(p, NPU_FP16) == 128 &&
              p->c2[NPU_FP16] == 4, "rk2118 float16 only");
    {
        char dts[64];
        CHECK(!strcmp(npu_platform_dtypes(p, dts, sizeof dts), "float16"), "rk2118: %s", dts);
        CHECK(!strcmp(npu_platform_dtypes(npu_platform_find("rv1126b"), dts, sizeof dts),
                      "int8, float16"), "rv1126b: %s", dts);
    }
    /* every value of a new chip says what it rests on: measured or estimated, a source */
    {
        static const char *const added[] = {"rv1126b", "rv1106b", "rv1103b", "rk2118"};
        for (int k = 0; k < 4; k++) {
            const npu_fact_t *f;
            int n = npu_platform_facts(added[k], &f), bad = 0;
            for (int j = 0; j < n; j++)
                bad += strcmp(f[j].chip, added[k]) ||
                       (strcmp(f[j].status, "measured") && strcmp(f[j].status, "estimated")) ||
                       !f[j].source[0] || !f[j].value[0];
            CHECK(n >= 1 && !bad, "%s: %d facts, %d malformed", added[k], n, bad);
        }
        const npu_fact_t *f;
        CHECK(npu_platform_facts("rv1126b", &f) >= 10, "rv1126b: clock, MACs, cores, SRAM ...");
        CHECK(npu_platform_facts("rk9999", &f) == 0 && !f, "no facts for an unknown chip");
    }

    /* core masks */
    p = npu_platform_find("rk3588");
    CHECK(npu_core_mask_check(p, 7, &cores, err, sizeof err) == 0 && cores == 7, "0_1_2");
    CHECK(npu_core_mask_check(p, 0, &cores, err, sizeof err) == 0 && cores == 1, "auto");
    CHECK(npu_core_mask_check(p, 0xffff, &cores, err, sizeof err) == 0 && cores == 7, "all");
    p = npu_platform_find("rk3576");
    CHECK(npu_core_mask_check(p, 4, &cores, err, sizeof err) == RT_EINVAL, "core2 on rk3576");
    CHECK(strstr(err, "rk3576") != NULL, "%s", err);

    /* The cost model's constants belong to a version: a change to any of them
     * without a new NPU_COST_MODEL_VERSION (and this pin) fails here. */
    {
        static const struct { int version; uint64_t fingerprint; } pinned = { 7, 0xc1edfe49f94f4de5ULL };
        uint64_t fp = npu_cost_model_fingerprint();
        CHECK(NPU_COST_MODEL_VERSION == pinned.version && fp == pinned.fingerprint,
              "cost model constants changed (fingerprint 0x%016llx): bump "
              "NPU_COST_MODEL_VERSION in runtime/npu/npu.h and pin the new fingerprint here",
              (unsigned long long)fp);
        /* a changed constant changes the fingerprint (the hash sees the table) */
        CHECK(fp != 0 && fp != 0xcbf29ce484222325ULL, "fingerprint covers the table");
    }
    TEST_END();
}
