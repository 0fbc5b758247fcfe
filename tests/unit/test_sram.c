/* tests/unit/test_sram.c — the RK3588 SRAM pool, the Internal-buffer plan and
 * the level-3 table.
 *
 * Oracles: the driver's `mm` text of two real boards' states (Rockchip's
 * doc, shared/data/logs/debugfs-mm-sram-bitmap-*) must come out byte for byte;
 * first-fit placements, SramHit, the Predict RW amounts and the DDR saving are
 * computed by hand below for a five-conv graph; the level-3 printer is read
 * back with tracer/sramlog, which is itself checked on the real level-3 log. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "tests/test.h"
#include "tracer/tracer.h"
#include "util/util.h"

#define LOGS CORPUS
#define CORPUS "tests/fuzz/corpus/sramlog/"

/* The `mm` text of a sample: its lines from "SRAM bitmap" on, without the
 * "# ..." notes and the shell prompt. */
static char *mm_text(const char *path)
{
    char *buf = NULL, *out;
    size_t len = 0, u = 0;
    char err[256];
    char *line, *save = NULL;

    if (rt_read_file(path, (void **)&buf, &len, err, sizeof err))
        return NULL;
    out = xcalloc(len + 1, 1);
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (!strncmp(line, "SRAM", 4) || line[0] == '[')
            u += (size_t)sprintf(out + u, "%s\n", line);
    free(buf);
    return out;
}

static int add_t(graph_t *g, const char *name, int64_t n, int64_t c, int64_t h, int64_t w, int kind)
{
    int i = graph_add_tensor(g, name);
    tensor_t *t = &g->t[i];

    t->dtype = DT_FLOAT;
    t->ndim = 4;
    t->dims[0] = n;
    t->dims[1] = c;
    t->dims[2] = h;
    t->dims[3] = w;
    t->kind = kind;
    return i;
}

static int conv(graph_t *g, int x, int oc, int ic, int k, int y)
{
    char nm[16];
    int w, in[2], o[1] = {y}, ni;

    snprintf(nm, sizeof nm, "w%d", g->n_t);
    w = add_t(g, nm, oc, ic, k, k, TK_CONST);
    in[0] = x;
    in[1] = w;
    ni = graph_add_node(g, NULL, "Conv", "", 2, in, 1, o);
    g->t[y].producer = ni;
    return ni;
}

/* input(1,3,64,64) -> A(16,64,64) -> B(16,32,32) -> C(16,32,32) -> D = C' + B
 * (ConvAdd) -> E(8,32,32) output. int8 on rk3588: C2 16, so A 65536 bytes (16
 * pages), B/C/D 16384 (4 pages); the input is a UINT8 NHWC image (12288), E
 * a conv writing a model output, channels padded to 2*C2: 32768. */
static graph_t *five_convs(void)
{
    graph_t *g = graph_new();
    int x = add_t(g, "x", 1, 3, 64, 64, TK_INPUT);
    int a = add_t(g, "A", 1, 16, 64, 64, TK_ACT);
    int b = add_t(g, "B", 1, 16, 32, 32, TK_ACT);
    int c = add_t(g, "C", 1, 16, 32, 32, TK_ACT);
    int d0 = add_t(g, "D0", 1, 16, 32, 32, TK_ACT);
    int d = add_t(g, "D", 1, 16, 32, 32, TK_ACT);
    int e = add_t(g, "E", 1, 8, 32, 32, TK_ACT);
    int in[2], o[1];

    conv(g, x, 16, 3, 3, a);
    conv(g, a, 16, 16, 3, b);
    conv(g, b, 16, 16, 3, c);
    conv(g, c, 16, 16, 1, d0);
    in[0] = d0;
    in[1] = b;
    o[0] = d;
    g->t[d].producer = graph_add_node(g, NULL, "Add", "", 2, in, 1, o);
    conv(g, d, 8, 16, 1, e);
    graph_set_io(g, 1, &x, 1, &e);
    return g;
}

static const npu_mem_tensor_t *entry(const npu_graph_t *ng, const char *name)
{
    for (int i = 0; i < ng->mem->n; i++)
        if (!strcmp(ng->mem->t[i].name, name))
            return &ng->mem->t[i];
    return NULL;
}

static const npu_layer_t *layer_of(const npu_graph_t *ng, const char *fullname_part)
{
    for (int i = 0; i < ng->n; i++)
        if (strstr(ng->l[i].fullname, fullname_part))
            return &ng->l[i];
    return NULL;
}

static void test_pool(void)
{
    const npu_platform_t *p = npu_platform_find("rk3588");
    npu_sram_pool_t sp;
    char err[256], buf[4096], *empty = mm_text(LOGS "debugfs-mm-sram-bitmap-empty-rk3588-rkdoc-01.txt");
    char *half = mm_text(LOGS "debugfs-mm-sram-bitmap-512k-used-rk3588-rkdoc-02.txt");
    uint32_t off[6];
    sramlog_mm_t mm;

    CHECK(empty && half, "sample logs readable");
    CHECK(npu_sram_pool_init(&sp, p, err, sizeof err) == 0, "%s", err);
    CHECK(sp.npages == 239, "0xef000 = 239 pages: %d", sp.npages);
    CHECK(npu_sram_pool_format(&sp, buf, sizeof buf) > 0, "format");
    CHECK(empty && !strcmp(buf, empty), "empty mm as on the board:\n%s", buf);
    CHECK(npu_sram_pool_alloc(&sp, 524288, &off[0]) == 0 && off[0] == 0, "512 KiB at 0");
    npu_sram_pool_format(&sp, buf, sizeof buf);
    CHECK(half && !strcmp(buf, half), "512 KiB used mm as on the board:\n%s", buf);
    CHECK(npu_sram_pool_free_bytes(&sp) == 454656, "free 454656");
    CHECK(sramlog_parse_mm(buf, strlen(buf), &mm, err, sizeof err) == 239 && mm.used == 524288 &&
              mm.map[127] == '*' && mm.map[128] == '.',
          "mm read back: %s", err);
    npu_sram_pool_free(&sp, 0, 524288);
    npu_sram_pool_format(&sp, buf, sizeof buf);
    CHECK(empty && !strcmp(buf, empty), "freed");

    /* first fit, by hand: 8K@0, 4K@8K, 8K@12K; free 8K@0; 4K -> 0 (first
     * hole), 8K -> 20K (the 4K left at 4K is too short), 5000 B -> 2 pages at
     * 28K; 1 B more than what is free in one run fails */
    CHECK(npu_sram_pool_alloc(&sp, 8192, &off[0]) == 0 && off[0] == 0, "a");
    CHECK(npu_sram_pool_alloc(&sp, 4096, &off[1]) == 0 && off[1] == 8192, "b");
    CHECK(npu_sram_pool_alloc(&sp, 8192, &off[2]) == 0 && off[2] == 12288, "c");
    npu_sram_pool_free(&sp, 0, 8192);
    CHECK(npu_sram_pool_alloc(&sp, 4096, &off[3]) == 0 && off[3] == 0, "d first hole");
    CHECK(npu_sram_pool_alloc(&sp, 8192, &off[4]) == 0 && off[4] == 20480, "e skips 4K hole: %u",
          off[4]);
    CHECK(npu_sram_pool_alloc(&sp, 5000, &off[5]) == 0 && off[5] == 28672, "f 2 pages: %u", off[5]);
    CHECK(npu_sram_pool_largest_free(&sp) == 978944 - 36864, "largest run %u",
          npu_sram_pool_largest_free(&sp));
    CHECK(npu_sram_pool_free_bytes(&sp) == 978944 - 32768, "free %u", npu_sram_pool_free_bytes(&sp));
    CHECK(npu_sram_pool_alloc(&sp, 978944 - 36864 + 1, &off[0]) == RT_ENOMEM, "too big");
    CHECK(npu_sram_pool_alloc(&sp, 0, &off[0]) == RT_EINVAL, "0 bytes");

    /* chips without SRAM */
    CHECK(npu_sram_pool_init(&sp, npu_platform_find("rk3566"), err, sizeof err) == RT_EUNSUPPORTED,
          "rk3566 has none");
    CHECK(strstr(err, "rk3566") && strstr(err, "rk3588"), "message: %s", err);
    CHECK(npu_sram_pool_process(npu_platform_find("rk3576")) == NULL, "no process pool on rk3576");
    CHECK(npu_sram_pool_process(p) == npu_sram_pool_process(npu_platform_find("RK3588")), "one pool");

    /* RKNN_INTERNAL_MEM_TYPE */
    {
        uint32_t b;
        CHECK(npu_sram_parse_mem_type("sram", &b, err, sizeof err) == 1 && b == 0, "sram");
        CHECK(npu_sram_parse_mem_type("sram#256", &b, err, sizeof err) == 1 && b == 262144, "#256");
        CHECK(npu_sram_parse_mem_type(NULL, &b, err, sizeof err) == 0, "unset");
        CHECK(npu_sram_parse_mem_type("ddr", &b, err, sizeof err) == 0, "ddr");
        CHECK(npu_sram_parse_mem_type("sram#", &b, err, sizeof err) == RT_EINVAL, "sram#");
        CHECK(npu_sram_parse_mem_type("sram#12k", &b, err, sizeof err) == RT_EINVAL, "12k");
        CHECK(npu_sram_parse_mem_type("nbuf", &b, err, sizeof err) == RT_EINVAL, "nbuf");
    }
    free(empty);
    free(half);
}

static void check_table_roundtrip(const npu_graph_t *ng)
{
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sramlog_table_t *t = NULL;
    int n = 0;
    const npu_mem_plan_t *mp = ng->mem;

    npu_print_sram_table(f, ng, NPU_PRINT_PREFIX | NPU_PRINT_DEBUG);
    fclose(f);
    CHECK(!strncmp(text, "D RKNN: [", 9), "debug prefix");
    CHECK(sramlog_parse(text, len, &t, &n, err, sizeof err) == 0 && n == 1, "parse: %s", err);
    if (n != 1)
        goto out;
    CHECK(t->n_rows == mp->n && t->n_bad_rows == 0, "rows %d/%d bad %d", t->n_rows, mp->n,
          t->n_bad_rows);
    CHECK(t->has_hit && !t->has_dataformat, "columns");
    CHECK(mp->sram_size ? t->alloc_size == mp->sram_size && t->alloc_start == mp->iova_internal
                        : t->alloc_size == -1,
          "box");
    CHECK(t->total_weight == (int64_t)mp->weight_size && t->total_internal == (int64_t)mp->internal_size &&
              t->rw_internal == (int64_t)mp->rw_internal && t->rw_weight == (int64_t)mp->rw_weight &&
              t->rw_sram_hit == (int64_t)mp->rw_sram_hit,
          "footer");
    for (int i = 0; i < t->n_rows && i < mp->n; i++) {
        const sramlog_row_t *r = &t->rows[i];
        const npu_mem_tensor_t *e = &mp->t[i];
        CHECK(r->id == i + 1 && !strcmp(r->tensor, e->name) && !strcmp(r->user, e->user) &&
                  r->start == e->addr && r->size == e->bytes && r->end == e->addr + e->bytes &&
                  r->hit == (e->internal ? (int64_t)e->hit : -1),
              "row %d", i + 1);
    }
out:
    sramlog_free(t, n);
    free(text);
}

static void test_plan(void)
{
    const npu_platform_t *p = npu_platform_find("rk3588");
    graph_t *g = five_convs();
    npu_graph_t *ng = NULL, *ng2 = NULL;
    npu_sram_pool_t sp;
    npu_mem_sizes_t ms;
    char err[256];
    const npu_mem_tensor_t *A, *B, *C, *D, *E, *X;
    uint64_t ddr_a0, ddr_b0;

    CHECK(npu_lower(g, p, DT_INT8, &ng, err, sizeof err) == 0, "lower: %s", err);
    if (!ng)
        goto out;
    npu_cost(ng);
    ddr_a0 = layer_of(ng, "Conv_0")->ddr_cycles;
    ddr_b0 = layer_of(ng, "Conv_1")->ddr_cycles;

    /* no SRAM: placements only */
    CHECK(npu_mem_plan(ng, g, NULL, 0, err, sizeof err) == 0, "plan: %s", err);
    A = entry(ng, "A"), B = entry(ng, "B"), C = entry(ng, "C"), D = entry(ng, "D");
    E = entry(ng, "E"), X = entry(ng, "x");
    CHECK(A && B && C && D && E && X && ng->mem->n == 6, "6 tensors (D0 fused away): %d",
          ng->mem->n);
    if (!(A && B && C && D && E && X))
        goto out;
    CHECK(A->bytes == 65536 && B->bytes == 16384 && X->bytes == 12288 && E->bytes == 32768,
          "sizes %llu %llu %llu %llu", (unsigned long long)A->bytes, (unsigned long long)B->bytes,
          (unsigned long long)X->bytes, (unsigned long long)E->bytes);
    CHECK(X->native.nd == 5 && X->native.d[1] == 1 && X->native.d[4] == 3, "NHWC image input");
    CHECK(E->native.d[1] == 2 && E->native.d[4] == 16, "output (1,2,32,32,16)");
    CHECK(!X->internal && !E->internal && A->internal, "inputs/outputs outside");
    /* A@0 (B is placed while A is held) B@64K; A freed after B; C@0 (B held
     * for D); D@16K; internal size = end of B */
    CHECK(A->offset == 0 && B->offset == 65536 && C->offset == 0 && D->offset == 16384,
          "offsets %llu %llu %llu %llu", (unsigned long long)A->offset,
          (unsigned long long)B->offset, (unsigned long long)C->offset,
          (unsigned long long)D->offset);
    CHECK(ng->mem->internal_size == 81920, "internal %llu", (unsigned long long)ng->mem->internal_size);
    CHECK(B->n_reads == 2 && !strcmp(B->user, "Conv") && !strcmp(C->user, "ConvAdd") &&
              !strcmp(E->user, "OutputOperator"),
          "users %s %s %s", B->user, C->user, E->user);
    CHECK(ng->mem->rw_internal == 290816, "internal RW %llu", (unsigned long long)ng->mem->rw_internal);
    CHECK(ng->mem->sram_size == 0 && ng->mem->rw_sram_hit == 0, "no SRAM");
    check_table_roundtrip(ng);

    /* sram#64: the first 64 KiB of the buffer are SRAM */
    CHECK(npu_sram_pool_init(&sp, p, err, sizeof err) == 0, "pool");
    CHECK(npu_mem_plan(ng, g, &sp, 65536, err, sizeof err) == 0, "plan: %s", err);
    A = entry(ng, "A"), B = entry(ng, "B"), C = entry(ng, "C"), D = entry(ng, "D");
    CHECK(ng->mem->sram_size == 65536 && ng->sram_used == 65536, "sram 64K");
    CHECK(A->hit == 65536 && B->hit == 0 && C->hit == 16384 && D->hit == 16384, "hits");
    CHECK(ng->mem->rw_sram_hit == 196608, "hit RW %llu", (unsigned long long)ng->mem->rw_sram_hit);
    CHECK(layer_of(ng, "Conv_0")->sram_hit == 65536 && layer_of(ng, "Conv_0")->sram_rd == 0, "A");
    CHECK(layer_of(ng, "Conv_1")->sram_rd == 65536 && layer_of(ng, "Conv_1")->sram_hit == 0, "B");
    CHECK(layer_of(ng, "Conv_3")->sram_rd == 16384 && layer_of(ng, "Conv_3")->sram_hit == 16384,
          "D reads C (hit) and B (no hit)");
    npu_cost(ng);
    /* 65536 bytes less to write for A, to read for B: 65536 / 23.6544 B/cycle */
    CHECK(fabs((double)(ddr_a0 - layer_of(ng, "Conv_0")->ddr_cycles) - 65536 / npu_ddr_bytes_per_cycle(p)) <= 1.0,
          "A DDR saving %llu -> %llu", (unsigned long long)ddr_a0,
          (unsigned long long)layer_of(ng, "Conv_0")->ddr_cycles);
    CHECK(fabs((double)(ddr_b0 - layer_of(ng, "Conv_1")->ddr_cycles) - 65536 / npu_ddr_bytes_per_cycle(p)) <= 1.0,
          "B DDR saving");
    npu_mem_query(ng, NULL, &ms);
    CHECK(ms.total_sram_size == 978944 && ms.free_sram_size == 978944 - 65536 &&
              ms.total_internal_size == 81920 && ms.total_weight_size == ng->mem->weight_size,
          "query %u %u", ms.total_sram_size, ms.free_sram_size);
    check_table_roundtrip(ng);

    /* a second context on the same pool gets what is left, in one run */
    CHECK(npu_lower(g, p, DT_INT8, &ng2, err, sizeof err) == 0, "lower 2");
    {
        uint32_t o;
        CHECK(npu_sram_pool_alloc(&sp, 978944 - 65536 - 57344, &o) == 0 && o == 65536, "filler");
    }
    CHECK(npu_mem_plan(ng2, g, &sp, 0, err, sizeof err) == 0, "plan 2");
    CHECK(ng2->mem->sram_size == 57344 && ng2->mem->sram_offset == 978944 - 57344,
          "leftover 56K at the end: %u@%u", ng2->mem->sram_size, ng2->mem->sram_offset);
    CHECK(entry(ng2, "A")->hit == 57344, "partial hit %llu", (unsigned long long)entry(ng2, "A")->hit);
    CHECK(npu_sram_pool_free_bytes(&sp) == 0, "pool full");
    npu_mem_release(ng);
    CHECK(npu_sram_pool_free_bytes(&sp) == 65536, "context 1 released");
    npu_mem_query(ng, &sp, &ms);
    CHECK(ms.free_sram_size == 65536, "query free after release");
    npu_graph_free(ng2); /* releases its part */
    ng2 = NULL;
    CHECK(npu_sram_pool_free_bytes(&sp) == 65536 + 57344, "context 2 released by free");

    /* want = 0: as much as the buffer needs */
    CHECK(npu_mem_plan(ng, g, &sp, 0, err, sizeof err) == 0, "plan 3");
    CHECK(ng->mem->sram_size == 65536, "largest run now 64K: %u", ng->mem->sram_size);
    npu_mem_release(ng);
    {
        npu_sram_pool_t fresh;
        npu_sram_pool_init(&fresh, p, err, sizeof err);
        CHECK(npu_mem_plan(ng, g, &fresh, 0, err, sizeof err) == 0 && ng->mem->sram_size == 81920 &&
                  ng->mem->rw_sram_hit == ng->mem->rw_internal - 12288 - 32768,
              "whole buffer in SRAM");
        npu_mem_release(ng);
    }

    /* SRAM asked on chips without it */
    npu_graph_free(ng);
    ng = NULL;
    CHECK(npu_lower(g, npu_platform_find("rk3566"), DT_INT8, &ng, err, sizeof err) == 0, "rk3566");
    CHECK(npu_mem_plan(ng, g, &sp, 0, err, sizeof err) == RT_EUNSUPPORTED, "rk3566 + SRAM refused");
    CHECK(strstr(err, "rk3566") != NULL, "%s", err);
    CHECK(npu_mem_plan(ng, g, NULL, 0, err, sizeof err) == 0, "plan without SRAM is fine");
    npu_mem_query(ng, NULL, &ms);
    CHECK(ms.total_sram_size == 0 && ms.free_sram_size == 0, "rk3566 query 0/0");
    CHECK(ng->mem->nbuf_size == 0 && ng->mem->rw_sram_hit == 0, "rk3566 has no nbuf");

    /* rk3576 (512 KiB nbuf per core) and rk3562 (256 KiB): no pool, the whole 80 KiB
     * buffer is on chip (C2 16 there too: the same sizes as on rk3588); every
     * internal byte hits, model input and output do not. rk3562 pads the model
     * output E (8 channels) to one C2 group, 16 x 32 x 32 = 16384 bytes, not
     * two (its multiple_input_demo file: native [1,1,128,128,16]) */
    for (int k = 0; k < 2; k++) {
        const char *chip = k ? "rk3562" : "rk3576";
        uint64_t e_bytes = k ? 16384 : 32768;
        npu_graph_free(ng);
        ng = NULL;
        CHECK(npu_lower(g, npu_platform_find(chip), DT_INT8, &ng, err, sizeof err) == 0, "%s", chip);
        if (!ng)
            break;
        CHECK(npu_mem_plan(ng, g, NULL, 0, err, sizeof err) == 0, "%s plan: %s", chip, err);
        A = entry(ng, "A"), D = entry(ng, "D");
        E = entry(ng, "E");
        CHECK(ng->mem->nbuf_size == 81920 && ng->mem->sram_size == 0 && A && A->hit == 65536 &&
                  D && D->hit == 16384 && E && E->bytes == e_bytes &&
                  ng->mem->rw_sram_hit == ng->mem->rw_internal - 12288 - e_bytes,
              "%s nbuf %u, E %llu bytes", chip, ng->mem->nbuf_size,
              E ? (unsigned long long)E->bytes : 0ull);
        npu_cost(ng);
        CHECK(layer_of(ng, "Conv_0")->sram_hit == 65536 &&
                  layer_of(ng, "Conv_1")->sram_rd == 65536,
              "%s: A written to and read from the nbuf", chip);
    }
out:
    npu_graph_free(ng);
    npu_graph_free(ng2);
    graph_free(g);
}

/* The parser on the real samples, values read by hand from the files. */
static void test_parse_real(void)
{
    char *buf = NULL, err[256];
    size_t len = 0;
    sramlog_table_t *t = NULL;
    int n = 0;

    CHECK(rt_read_file(CORPUS "sram-level3-mobilenetv1-rk3588-rkdoc-01.txt", (void **)&buf, &len, err,
                       sizeof err) == 0,
          "%s", err);
    CHECK(sramlog_parse(buf, len, &t, &n, err, sizeof err) == 0 && n == 1, "%s", err);
    if (n == 1) {
        CHECK(t->n_rows == 31 && t->n_bad_rows == 0, "31 rows (%d, %d bad)", t->n_rows, t->n_bad_rows);
        CHECK(!strcmp(t->alloc_kind, "Internal") && t->alloc_size == 524288 &&
                  t->alloc_start == 0xff3e0000 && t->alloc_end == 0xff460000,
              "box");
        CHECK(t->rows[0].hit == -1 && t->rows[1].hit == 0x5b400 && t->rows[2].hit == 0 &&
                  t->rows[30].hit == -1,
              "hits");
        CHECK(t->rows[3].star && !t->rows[2].star && t->rows[3].end == 0xff5eec00, "star row 4");
        CHECK(!strcmp(t->rows[27].user, "AveragePool") && !strcmp(t->rows[24].nativeshape, "(1,33,7,7,16)") &&
                  !strcmp(t->rows[30].datatype, "FLOAT"),
              "fields");
        CHECK(t->total_weight == 4260864 && t->total_internal == 2157568 && t->rw_internal == 11068320 &&
                  t->rw_weight == 4260832 && t->rw_sram_hit == 6688768,
              "footer");
        /* the vendor's own rules, which our printer follows: hit RW = 2 x
         * sum(hit); internal RW = 2 x sum(internal sizes) + input + output */
        {
            int64_t h = 0, s = 0;
            for (int i = 0; i < t->n_rows; i++)
                if (t->rows[i].hit >= 0) {
                    h += t->rows[i].hit;
                    s += (int64_t)t->rows[i].size;
                }
            CHECK(2 * h == t->rw_sram_hit, "hit rule");
            CHECK(2 * s + (int64_t)t->rows[0].size + (int64_t)t->rows[30].size == t->rw_internal,
                  "internal rule");
        }
    }
    sramlog_free(t, n);
    free(buf);

    CHECK(rt_read_file(CORPUS "buildlog-debug-feature-tensor-memtable-rv1106-174-01.txt", (void **)&buf,
                       &len, err, sizeof err) == 0,
          "%s", err);
    CHECK(sramlog_parse(buf, len, &t, &n, err, sizeof err) == 0 && n == 1, "%s", err);
    if (n == 1) {
        CHECK(t->n_rows == 5 && !t->has_hit && t->has_dataformat && t->alloc_size == -1, "2.x table");
        CHECK(!strcmp(t->rows[1].tensor, "onnx::Conv_75") && !strcmp(t->rows[1].dataformat, "NC1HWC2") &&
                  t->rows[4].start == 0x4a340 && t->rows[4].size == 0x1c300 && t->rows[4].hit == -2,
              "row 2/5");
    }
    sramlog_free(t, n);
    free(buf);

    CHECK(sramlog_parse("hello\n", 6, &t, &n, err, sizeof err) == RT_EFORMAT, "no table");
    {
        sramlog_mm_t mm;
        const char *bad = "SRAM bitmap\n[000] [***]\nSRAM total size: 12288, used: 4096, free: 8192\n";
        CHECK(sramlog_parse_mm(bad, strlen(bad), &mm, err, sizeof err) == RT_EFORMAT, "mm disagree");
    }
}

int main(void)
{
    test_pool();
    test_plan();
    test_parse_real();
    TEST_END();
}
