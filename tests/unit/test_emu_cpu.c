/* tests/unit/test_emu_cpu.c — the emulator's built-in CPU layers (runtime/emu/emu_cpu.c)
 * against numpy (tests/unit/emu_cpu_ref.py, run on the inputs this test writes):
 * ArgMax/ArgMin with ties (numpy's first index) over every axis, kept or dropped,
 * and with the axis told by the shapes; Softmax over a row of range 2000 (exp of
 * the raw values overflows a float) and over a middle axis; Sigmoid at +-1000;
 * Reshape/Flatten/Unsqueeze keeping the order; Concat and Split offsets along
 * the first, a middle and the last axis (a Concat's "X_exSecondary" input not
 * read). The chain: a custom op (cst*) goes to the caller's hook, a built-in
 * does not, another type is refused with its node named. End to end through
 * emu_fb_exec (no NPU task): an int8 input, a CPU Softmax into an int8 NC1HWC2
 * tensor, a CPU Reshape into a 2-D int8 output kept as floats on its grid. */
#include "dump/dump.h"
#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "tests/test.h"
#include "util/dtype.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXT 6

typedef struct tcase {
    const char *name, *type;
    int has_axis, axis; /* the node's */
    const char *ref_axis; /* numpy's: the node's, or the one the shapes tell */
    int n_in, n_out;
    const char *in[MAXT], *out[MAXT]; /* shapes "2,3,4" */
    int gen;          /* inputs: 0 smooth, 1 ties (values 0, 1, 2), 2 large range */
    int alias;        /* input index named "<input 0>_exSecondary", -1 none */
} tcase;

static const tcase cases[] = {
    {"amax_a1", "ArgMax", 1, 1, "1", 1, 1, {"2,3,4"}, {"2,1,4"}, 1, -1},
    {"amax_a0", "ArgMax", 1, 0, "0", 1, 1, {"3,2,4"}, {"2,4"}, 1, -1},
    {"amax_last", "ArgMax", 1, -1, "-1", 1, 1, {"2,3,5"}, {"2,3"}, 1, -1},
    {"amax_smooth", "ArgMax", 1, 2, "2", 1, 1, {"1,3,6,2"}, {"1,3,1,2"}, 0, -1},
    {"amin_a1", "ArgMin", 1, 1, "1", 1, 1, {"2,4,3"}, {"2,1,3"}, 1, -1},
    {"amin_last", "ArgMin", 1, 2, "2", 1, 1, {"3,2,4"}, {"3,2"}, 1, -1},
    /* pp_human_segv2's [1,2,H,W] -> [1,1,H,W], the axis not given */
    {"amax_shapes", "ArgMax", 0, 0, "1", 1, 1, {"1,2,3,4"}, {"1,1,3,4"}, 1, -1},
    {"smax_range", "Softmax", 1, 1, "1", 1, 1, {"3,6"}, {"3,6"}, 2, -1},
    {"smax_mid", "Softmax", 1, 1, "1", 1, 1, {"2,5,3"}, {"2,5,3"}, 0, -1},
    {"smax_shapes", "Softmax", 0, 0, "1", 1, 1, {"1,7,1,1"}, {"1,7,1,1"}, 0, -1},
    {"sigmoid", "Sigmoid", 0, 0, "none", 1, 1, {"3,6"}, {"3,6"}, 2, -1},
    {"reshape", "Reshape", 0, 0, "none", 2, 1, {"1,6,2,2", "2"}, {"1,24"}, 0, -1},
    {"flatten", "Flatten", 0, 0, "none", 1, 1, {"2,3,2"}, {"2,6"}, 0, -1},
    {"unsqueeze", "Unsqueeze", 0, 0, "none", 1, 1, {"3,4"}, {"3,1,4"}, 0, -1},
    {"cat_a1", "Concat", 1, 1, "1", 4, 1, {"2,1,3", "2,2,3", "2,1,3", "2,3,3"}, {"2,6,3"}, 0, 2},
    {"cat_a0", "Concat", 1, 0, "0", 2, 1, {"1,2,3", "2,2,3"}, {"3,2,3"}, 0, -1},
    {"cat_last", "Concat", 1, -1, "-1", 2, 1, {"1,2,2", "1,2,3"}, {"1,2,5"}, 0, -1},
    {"cat_shapes", "Concat", 0, 0, "2", 2, 1, {"2,3,1,2", "2,3,4,2"}, {"2,3,5,2"}, 0, -1},
    {"split_a2", "Split", 1, 2, "2", 1, 3, {"2,3,7"}, {"2,3,2", "2,3,4", "2,3,1"}, 0, -1},
    {"split_a0", "Split", 1, 0, "0", 1, 2, {"5,2,2"}, {"3,2,2", "2,2,2"}, 0, -1},
    {"split_mid", "Split", 1, 1, "1", 1, 2, {"1,4,3,2"}, {"1,1,3,2", "1,3,3,2"}, 0, -1},
};
#define N_CASES (int)(sizeof(cases) / sizeof(cases[0]))

/* a large-range row set: exp of the raw values is inf in float32 */
static const float big[18] = {1000, -1000, 999, 0, 1000, 998.5f, -1000, 80, 88.7f, 89, -1e4f, 60,
                              3, 3, 3, 3, 3, 3};

static int parse_shape(const char *s, int64_t *d)
{
    int n = 0;
    while (*s && n < 8) {
        d[n++] = strtoll(s, (char **)&s, 10);
        if (*s == ',')
            s++;
    }
    return n;
}

typedef struct built {
    rknn_tensor t[2 * MAXT];
    int64_t shp[2 * MAXT][8];
    char names[2 * MAXT][64];
    int in[MAXT], out[MAXT];
    rknn_node nd;
    rknn_model m;
} built;

static void build(built *b, const tcase *c)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < c->n_in + c->n_out; i++) {
        int is_in = i < c->n_in;
        const char *s = is_in ? c->in[i] : c->out[i - c->n_in];
        if (is_in && i == c->alias)
            snprintf(b->names[i], sizeof b->names[i], "%s_in0_exSecondary", c->name);
        else
            snprintf(b->names[i], sizeof b->names[i], "%s_%s%d", c->name, is_in ? "in" : "out",
                     is_in ? i : i - c->n_in);
        b->t[i] = (rknn_tensor){.name = b->names[i], .dtype = DT_FLOAT, .kind = RKNN_TK_ACT,
                                .shape = b->shp[i], .buffer = -1, .data_off = -1, .data_len = -1};
        b->t[i].nd = parse_shape(s, b->shp[i]);
        if (is_in)
            b->in[i] = i;
        else
            b->out[i - c->n_in] = i;
    }
    b->nd = (rknn_node){.type = (char *)c->type, .name = (char *)c->name, .target = RKNN_TGT_CPU,
                        .in = b->in, .n_in = c->n_in, .out = b->out, .n_out = c->n_out,
                        .axis = c->axis, .has_axis = c->has_axis};
    b->m = (rknn_model){.container = RKNN_C_TK2_FB, .tensors = b->t,
                        .n_tensors = c->n_in + c->n_out, .nodes = &b->nd, .n_nodes = 1};
}

static int64_t count(const rknn_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->nd; d++)
        n *= t->shape[d];
    return n;
}

static float *gen_input(const tcase *c, int k, int64_t n)
{
    float *v = xcalloc((size_t)n + 1, sizeof(float));
    for (int64_t i = 0; i < n; i++)
        v[i] = c->gen == 1   ? (float)((i * 7 + k * 3 + i / 5) % 3)
               : c->gen == 2 ? big[i % 18]
                             : (float)(5 * sin(1.7 * (double)i + k) + k);
    return v;
}

/* the caller's hook of the chain tests: counts its calls */
typedef struct user_hook {
    emu_cpu_hook h;
    int calls;
} user_hook;
static int user_run(emu_cpu_hook *h, const rknn_model *m, int node, const float *const *in,
                    float *const *out, char *err, size_t errlen)
{
    (void)m, (void)node, (void)in, (void)out, (void)err, (void)errlen;
    ((user_hook *)h)->calls++;
    return RT_OK;
}

static char dir[] = "/tmp/test_emu_cpu.XXXXXX";

static void write_cases(void)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *f = fopen(path, "w");
    for (int ci = 0; f && ci < N_CASES; ci++) {
        const tcase *c = &cases[ci];
        built b;
        build(&b, c);
        fprintf(f, "%s|%s|%s|%d", c->name, c->type, c->ref_axis, c->n_in);
        if (c->alias >= 0)
            fprintf(f, "!%d", c->alias);
        fprintf(f, "|");
        for (int k = 0; k < c->n_out; k++)
            fprintf(f, "%s%s", k ? ";" : "", c->out[k]);
        fprintf(f, "\n");
        for (int k = 0; k < c->n_in; k++) {
            int64_t n = count(&b.t[k]);
            float *v = gen_input(c, k, n);
            snprintf(path, sizeof path, "%s/%s_in%d.npy", dir, c->name, k);
            CHECK(npy_write(path, DT_FLOAT, b.t[k].nd, b.t[k].shape, v, err, sizeof err) == 0,
                  "%s", err);
            free(v);
        }
    }
    /* the end-to-end case's input [1,4,1,3] */
    fprintf(f, "e2e|e2e|1|1|1,12\n");
    int64_t d[4] = {1, 4, 1, 3};
    float e[12] = {1.2f, -0.7f, 3.3f, 0.01f, 2.5f, -6.4f, 0.49f, 0.5f, 6.0f, -1.1f, 0.0f, 1.0f};
    snprintf(path, sizeof path, "%s/e2e_in0.npy", dir);
    CHECK(npy_write(path, DT_FLOAT, 4, d, e, err, sizeof err) == 0, "%s", err);
    if (f)
        fclose(f);
    CHECK(f != NULL, "cannot write %s/cases.txt", dir);
}

/* numpy's output k of case name, n values; NULL when missing */
static double *ref(const char *name, int k, int64_t n)
{
    char path[512], err[256];
    npy_array a;
    snprintf(path, sizeof path, "%s/%s_out%d.npy", dir, name, k);
    if (npy_read(path, &a, err, sizeof err)) {
        CHECK(0, "%s", err);
        return NULL;
    }
    double *v = NULL;
    if (a.dtype == DT_DOUBLE && (int64_t)a.count == n) {
        v = xcalloc((size_t)n + 1, sizeof(double));
        memcpy(v, a.data, sizeof(double) * (size_t)n);
    }
    CHECK(v != NULL, "%s: %zu values of dtype %d, want %lld doubles", path, a.count, a.dtype,
          (long long)n);
    npy_free(&a);
    return v;
}

static void run_case(const tcase *c, emu_cpu_hook *h)
{
    built b;
    char err[512] = "";
    float *in[MAXT] = {0}, *out[MAXT] = {0};
    build(&b, c);
    for (int k = 0; k < c->n_in; k++) {
        int reads = h->reads(h, &b.m, 0, k);
        /* a Reshape's shape constant (input 1) and the alias are not read */
        int want = !((!strcmp(c->type, "Reshape") && k == 1) || k == c->alias);
        CHECK(reads == want, "%s: input %d read %d", c->name, k, reads);
        if (reads)
            in[k] = gen_input(c, k, count(&b.t[k]));
    }
    for (int k = 0; k < c->n_out; k++)
        out[k] = xcalloc((size_t)count(&b.t[c->n_in + k]) + 1, sizeof(float));
    int rc = h->run(h, &b.m, 0, (const float *const *)in, out, err, sizeof err);
    CHECK(rc == 0, "%s: %s", c->name, err);
    for (int k = 0; k < c->n_out && rc == 0; k++) {
        int64_t n = count(&b.t[c->n_in + k]), bad = 0, worst = 0;
        double *r = ref(c->name, k, n);
        for (int64_t i = 0; r && i < n; i++) {
            /* the float32 result of a double computation: within one float step */
            double tol = fabs(r[i]) * 1.2e-7 + 1e-30;
            if (!(fabs(out[k][i] - r[i]) <= tol) && bad++ == 0)
                worst = i;
        }
        CHECK(r && bad == 0, "%s output %d: %lld of %lld values differ from numpy (first at "
              "%lld: %.9g vs %.9g)", c->name, k, (long long)bad, (long long)n, (long long)worst,
              r ? out[k][worst] : 0.0, r ? r[worst] : 0.0);
        free(r);
    }
    for (int k = 0; k < MAXT; k++) {
        free(in[k]);
        free(out[k]);
    }
}

/* refusals and the chain's routing */
static void chain_checks(void)
{
    built b;
    char err[512] = "";
    emu_cpu_chain ch;
    user_hook u = {{user_run, NULL}, 0};
    float x[24] = {0}, y[24] = {0}, *in[2] = {x, NULL}, *out[1] = {y};

    /* an ArgMax whose output is not its input reduced over the axis */
    tcase bad = {"bad", "ArgMax", 1, 1, "1", 1, 1, {"2,3,4"}, {"2,3,1"}, 0, -1};
    build(&b, &bad);
    emu_cpu_hook *h = emu_cpu_chain_init(&ch, NULL);
    CHECK(h->run(h, &b.m, 0, (const float *const *)in, out, err, sizeof err) == RT_EUNSUPPORTED &&
              strstr(err, "node 1 (ArgMax bad)"),
          "ArgMax [2,3,4] -> [2,3,1] over axis 1 taken: %s", err);
    /* a Softmax whose axis neither the file nor the shapes give */
    tcase sm = {"sm", "Softmax", 0, 0, "none", 1, 1, {"1,3,4"}, {"1,3,4"}, 0, -1};
    build(&b, &sm);
    err[0] = 0;
    CHECK(h->run(h, &b.m, 0, (const float *const *)in, out, err, sizeof err) == RT_EUNSUPPORTED &&
              strstr(err, "no axis"),
          "Softmax [1,3,4] without an axis taken: %s", err);
    /* a Concat whose inputs do not add up along its axis */
    tcase cc = {"cc", "Concat", 1, 1, "1", 2, 1, {"1,2,3", "1,2,3"}, {"1,5,3"}, 0, -1};
    build(&b, &cc);
    float *in2[2] = {x, x};
    err[0] = 0;
    CHECK(h->run(h, &b.m, 0, (const float *const *)in2, out, err, sizeof err) == RT_EUNSUPPORTED,
          "Concat 2 + 2 -> 5 taken: %s", err);
    /* a type not built in, without a caller's hook: today's refusal */
    tcase g = {"Gather:g", "Gather", 0, 0, "none", 1, 1, {"4"}, {"4"}, 0, -1};
    build(&b, &g);
    err[0] = 0;
    CHECK(!emu_cpu_runs(&ch, &b.m, 0) &&
              emu_cpu_refuse(&b.m, 0, err, sizeof err) == RT_EUNSUPPORTED &&
              !strcmp(err, "node 1 (Gather Gather:g) runs on the CPU: not emulated"),
          "Gather: %s", err);
    /* with a caller's hook: a custom op and an unknown type go to it, a built-in does not */
    h = emu_cpu_chain_init(&ch, &u.h);
    tcase cst = {"cst", "cstDualResidual", 0, 0, "none", 1, 1, {"4"}, {"4"}, 0, -1};
    build(&b, &cst);
    CHECK(emu_cpu_runs(&ch, &b.m, 0) && h->reads(h, &b.m, 0, 0) &&
              h->run(h, &b.m, 0, (const float *const *)in, out, err, sizeof err) == 0 &&
              u.calls == 1, "custom op not given to the caller's hook (%d calls)", u.calls);
    build(&b, &g);
    CHECK(h->run(h, &b.m, 0, (const float *const *)in, out, err, sizeof err) == 0 && u.calls == 2,
          "Gather not given to the caller's hook (%d calls)", u.calls);
    tcase rs = {"rs", "Reshape", 0, 0, "none", 1, 1, {"2,3"}, {"6"}, 0, -1};
    build(&b, &rs);
    for (int i = 0; i < 6; i++)
        x[i] = (float)i + 0.5f;
    CHECK(h->run(h, &b.m, 0, (const float *const *)in, out, err, sizeof err) == 0 &&
              u.calls == 2 && y[5] == 5.5f,
          "Reshape went to the caller's hook (%d calls) or did not copy", u.calls);
}

/* InputOperator, Softmax (CPU) into an int8 NC1HWC2 tensor, Reshape (CPU) into a 2-D
 * int8 output, OutputOperator; no NPU task */
static void end_to_end(void)
{
    int64_t s_x[4] = {1, 4, 1, 3}, n_x[5] = {1, 1, 1, 3, 16}, s_o[2] = {1, 12}, n_o[2] = {1, 12};
    int64_t s_c[1] = {2};
    rknn_tensor t[4] = {
        {.name = "x", .dtype = DT_INT8, .kind = RKNN_TK_INPUT, .nd = 4, .nnd = 5, .shape = s_x,
         .native = n_x, .has_quant = 1, .scale = 0.05, .zero_point = 3, .buffer = -1,
         .data_off = -1, .data_len = -1, .size = -1, .task_node = -1, .task_lut = -1},
        {.name = "p", .dtype = DT_INT8, .kind = RKNN_TK_ACT, .nd = 4, .nnd = 5, .shape = s_x,
         .native = n_x, .has_quant = 1, .scale = 1.0 / 255, .zero_point = -128, .buffer = -1,
         .data_off = -1, .data_len = -1, .size = -1, .task_node = -1, .task_lut = -1},
        {.name = "shape", .dtype = DT_INT64, .kind = RKNN_TK_CONST, .nd = 1, .nnd = 1,
         .shape = s_c, .native = s_c, .buffer = 0, .data_off = 0, .data_len = 16, .size = 16,
         .task_node = -1, .task_lut = -1},
        {.name = "y", .dtype = DT_INT8, .kind = RKNN_TK_OUTPUT, .nd = 2, .nnd = 2, .shape = s_o,
         .native = n_o, .has_quant = 1, .scale = 1.0 / 200, .zero_point = -100, .buffer = -1,
         .data_off = -1, .data_len = -1, .size = -1, .task_node = -1, .task_lut = -1},
    };
    int i_x = 0, i_p = 1, i_rs[2] = {1, 2}, i_y = 3;
    rknn_node nodes[4] = {
        {.type = "InputOperator", .name = "InputOperator:x", .target = RKNN_TGT_CPU,
         .out = &i_x, .n_out = 1},
        {.type = "Softmax", .name = "Softmax:p", .target = RKNN_TGT_CPU, .in = &i_x, .n_in = 1,
         .out = &i_p, .n_out = 1, .axis = 1, .has_axis = 1},
        {.type = "Reshape", .name = "Reshape:y", .target = RKNN_TGT_CPU, .in = i_rs, .n_in = 2,
         .out = &i_y, .n_out = 1},
        {.type = "OutputOperator", .name = "OutputOperator:y", .target = RKNN_TGT_CPU,
         .in = &i_y, .n_in = 1},
    };
    rknn_io io[2] = {{.name = "x", .tensor = 0}, {.name = "y", .tensor = 3, .is_output = 1}};
    rknn_model m = {.container = RKNN_C_TK2_FB, .target = "rk3588", .model_version = 6,
                    .tensors = t, .n_tensors = 4, .nodes = nodes, .n_nodes = 4, .io = io,
                    .n_io = 2};
    emu_program p = {.map = EMU_MAP_RK3588, .file_base = -1, .source = EMU_SRC_FB_TASKS};
    float e[12] = {1.2f, -0.7f, 3.3f, 0.01f, 2.5f, -6.4f, 0.49f, 0.5f, 6.0f, -1.1f, 0.0f, 1.0f};
    const float *ins[1] = {e};
    uint8_t file[16] = {0};
    emu_result res;
    char err[512] = "";
    int rc = emu_fb_exec(&m, file, sizeof file, &p, ins, 1, NULL, NULL, &res, err, sizeof err);
    CHECK(rc == 0, "end to end: %s", err);
    if (rc)
        return;
    CHECK(res.n_out == 1 && res.out_dims[0][0] * res.out_dims[0][1] * res.out_dims[0][2] *
                                    res.out_dims[0][3] == 12,
          "end to end: %d outputs", res.n_out);
    double *r = ref("e2e", 0, 12);
    int bad = 0;
    for (int i = 0; r && i < 12; i++)
        bad += fabs(res.out[0][i] - r[i]) > 1e-6;
    CHECK(r && bad == 0, "end to end: %d of 12 values off numpy's int8 grid values (first %.6g vs "
          "%.6g)", bad, res.out[0][0], r ? r[0] : 0.0);
    free(r);
    emu_result_free(&res);
}

int main(void)
{
    char cmd[1024];
    emu_cpu_chain ch;
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        TEST_END();
    }
    write_cases();
    const char *py = getenv("PYTHON") ? getenv("PYTHON") : "/usr/bin/python3";
    snprintf(cmd, sizeof cmd, "%s tests/unit/emu_cpu_ref.py %s", py, dir);
    int rc = system(cmd);
    CHECK(rc == 0, "%s: exit %d", cmd, rc);
    if (rc == 0) {
        for (int ci = 0; ci < N_CASES; ci++)
            run_case(&cases[ci], emu_cpu_chain_init(&ch, NULL));
        end_to_end();
    }
    chain_checks();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", dir);
    TEST_END();
}
