/* tests/tools/npu_fidelity.c — the simulated NPU against real RK3588 per-layer logs.
 *
 * usage: npu_fidelity [--check] LOG...   (runtime 2.x tables; other generations
 *        are skipped)
 *
 * Every NPU row whose OpType is a convolution (Conv, ConvRelu, ConvExSwish, ...,
 * depthwise included) is rebuilt as a one-layer ONNX-like graph with the row's
 * shapes (Conv + the fused activation/Add nodes), lowered and costed for rk3588
 * in the row's dtype, and compared: NPU cycles must match exactly, DDR cycles are
 * reported with their relative error. Prints one line per row and a summary;
 * exit status 0 (a report), 2 on unreadable input. --check: exit 3 unless every
 * row's NPU cycles and OpType are reproduced (batched rows among them), with
 * "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "tracer/tracer.h"
#include "util/util.h"

static int parse_shapes(const char *s, int64_t sh[][4], int *nd, int max)
{
    int n = 0;

    while (*s && n < max) {
        if (*s != '(') {
            s++;
            continue;
        }
        s++;
        nd[n] = 0;
        while (*s && *s != ')') {
            char *e;
            long long v = strtoll(s, &e, 10);
            if (e == s)
                return -1;
            if (nd[n] < 4)
                sh[n][nd[n]] = v;
            nd[n]++;
            s = e;
            if (*s == ',')
                s++;
        }
        if (*s == ')')
            s++;
        n++;
    }
    return n;
}

static int add_t(graph_t *g, const char *name, int nd, const int64_t *d, int kind)
{
    int i = graph_add_tensor(g, name);
    tensor_t *t = &g->t[i];

    t->dtype = DT_FLOAT;
    t->ndim = nd;
    for (int k = 0; k < nd; k++)
        t->dims[k] = d[k];
    t->kind = kind;
    return i;
}

static int add_n(graph_t *g, const char *op, int n_in, const int *in, int out)
{
    int o[1] = {out};
    int ni = graph_add_node(g, NULL, op, "", n_in, in, 1, o);
    g->t[out].producer = ni;
    return ni;
}

/* Conv row -> graph; returns NULL when the row is not rebuildable. */
static graph_t *build(const perflog_row_t *r, int is_output, int *dw_out)
{
    int64_t sh[8][4], ysh[2][4];
    int nd[8], ynd[2], n, yn;
    int64_t C, OC;
    int dw;
    graph_t *g;
    int x, w, b = -1, y, cur, in[3];
    const char *rest;

    n = parse_shapes(r->inshape, sh, nd, 8);
    yn = parse_shapes(r->outshape, ysh, ynd, 2);
    if (n < 2 || yn < 1 || nd[0] != 4 || nd[1] != 4 || ynd[0] != 4)
        return NULL;
    C = sh[0][1];
    OC = ysh[0][1];
    dw = sh[1][0] == 1 && sh[1][1] == C && OC == C && C > 1;
    *dw_out = dw;

    g = graph_new();
    x = add_t(g, "x", 4, sh[0], TK_INPUT);
    if (dw) {
        int64_t wd[4] = {C, 1, sh[1][2], sh[1][3]};
        w = add_t(g, "w", 4, wd, TK_CONST);
    } else {
        w = add_t(g, "w", 4, sh[1], TK_CONST);
    }
    if (n >= 3 && nd[2] == 1)
        b = add_t(g, "b", 1, sh[2], TK_CONST);
    y = add_t(g, "conv_out", 4, ysh[0], TK_ACT);
    g->inputs = xmalloc(sizeof(int));
    g->inputs[0] = x;
    g->n_inputs = 1;
    in[0] = x;
    in[1] = w;
    in[2] = b;
    {
        int ni = add_n(g, "Conv", b >= 0 ? 3 : 2, in, y);
        node_t *nn = &g->nodes[ni];
        nn->attrs = xcalloc(1, sizeof(attr_t));
        nn->n_attr = 1;
        nn->attrs[0].name = xstrdup("group");
        nn->attrs[0].type = ATTR_INT;
        nn->attrs[0].i = dw ? C : 1;
    }
    cur = y;
    rest = r->optype + 4; /* after "Conv" */
    while (*rest) {
        static const char *const acts[] = {"ExSwish", "Relu", "LeakyRelu", "PRelu", "Clip",
                                           "Sigmoid", "Tanh", "ExGelu", "Add", NULL};
        const char *a = NULL;
        for (int i = 0; acts[i]; i++)
            if (!strncmp(rest, acts[i], strlen(acts[i])) &&
                (!a || strlen(acts[i]) > strlen(a)))
                a = acts[i];
        if (!a) {
            graph_free(g);
            return NULL;
        }
        {
            char name[32];
            int o;
            snprintf(name, sizeof(name), "t%d", g->n_t);
            o = add_t(g, name, 4, ysh[0], TK_ACT);
            if (!strcmp(a, "ExSwish")) {
                int s = add_t(g, "sig", 4, ysh[0], TK_ACT);
                int i1[1] = {cur}, i2[2] = {cur, s};
                add_n(g, "Sigmoid", 1, i1, s);
                add_n(g, "Mul", 2, i2, o);
            } else if (!strcmp(a, "Add")) {
                int other = add_t(g, "add_in", 4, ysh[0], TK_INPUT);
                int i2[2] = {cur, other};
                g->inputs = xrealloc(g->inputs, (size_t)(g->n_inputs + 1) * sizeof(int));
                g->inputs[g->n_inputs++] = other;
                add_n(g, "Add", 2, i2, o);
            } else {
                int i1[1] = {cur};
                add_n(g, !strcmp(a, "ExGelu") ? "Gelu" : a, 1, i1, o);
            }
            cur = o;
        }
        rest += strlen(a);
    }
    /* the conv is a model output only when the log's next row is its
     * OutputOperator; otherwise a Reshape consumer keeps it internal */
    if (!is_output) {
        int o = add_t(g, "reshaped", 4, ysh[0], TK_ACT), i1[1] = {cur};
        add_n(g, "Reshape", 1, i1, o);
        cur = o;
    }
    g->t[cur].is_output = 1;
    g->outputs = xmalloc(sizeof(int));
    g->outputs[0] = cur;
    g->n_outputs = 1;
    return g;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const npu_platform_t *p = npu_platform_find("rk3588");
    int total = 0, exact = 0, optype_ok = 0;
    /* the cases whose rounding the vendor might treat apart: fp16 depthwise
     * with a large kernel (>= 5x5), and batched inputs (N > 1) */
    int dw_big = 0, dw_big_exact = 0, batched = 0, batched_exact = 0;
    /* Time(us) of our model (npu_cost, our cycles) against the fp16 rows, which
     * come from a runtime 2.3 table like the one we print */
    double *terr = NULL;
    int nterr = 0;
    double *derr = NULL;
    int nderr = 0, check = 0, first = 1;

    if (argc > 1 && !strcmp(argv[1], "--check"))
        check = first = 2;
    if (argc <= first) {
        fprintf(stderr, "usage: npu_fidelity [--check] LOG...\n");
        return 1;
    }
    printf("%-44s %4s %-13s %-7s %-36s %-16s %10s %10s %-5s %9s %9s %7s\n", "log", "id", "optype",
           "dtype", "input,weight", "output", "npu_log", "npu_ours", "match", "ddr_log",
           "ddr_ours", "ddr_err");
    for (int a = first; a < argc; a++) {
        char err[256];
        void *buf;
        size_t len;
        perflog_table_t *tabs;
        int nt;
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];

        if (rt_read_file(argv[a], &buf, &len, err, sizeof err)) {
            fprintf(stderr, "npu_fidelity: %s\n", err);
            return 2;
        }
        if (perflog_parse(buf, len, &tabs, &nt, err, sizeof err)) {
            free(buf);
            continue;
        }
        for (int ti = 0; ti < nt; ti++) {
            if (tabs[ti].generation != 'A')
                continue;
            for (int ri = 0; ri < tabs[ti].n_rows; ri++) {
                const perflog_row_t *r = &tabs[ti].rows[ri];
                int dt, dw = 0;
                graph_t *g;
                npu_graph_t *ng;
                const npu_layer_t *l = NULL;
                char shp[64], io[40];

                if (strcmp(r->target, "NPU") || strncmp(r->optype, "Conv", 4) ||
                    !strncmp(r->optype, "ConvTranspose", 13) || r->npu < 0)
                    continue;
                dt = !strcmp(r->datatype, "FLOAT16") ? DT_FLOAT16 : DT_INT8;
                g = build(r, ri + 1 < tabs[ti].n_rows &&
                                 !strcmp(tabs[ti].rows[ri + 1].optype, "OutputOperator"), &dw);
                if (!g) {
                    printf("%-44.44s %4d %-13s skipped: shapes not rebuildable (%s)\n", base,
                           r->id, r->optype, r->inshape);
                    continue;
                }
                if (npu_lower(g, p, dt, &ng, err, sizeof err)) {
                    printf("%-44.44s %4d lower failed: %s\n", base, r->id, err);
                    graph_free(g);
                    continue;
                }
                npu_cost(ng);
                for (int k = 0; k < ng->n; k++)
                    if (ng->l[k].kind == NPU_K_CONV || ng->l[k].kind == NPU_K_DWCONV)
                        l = &ng->l[k];
                if (l) {
                    double e = r->ddr > 0 ? ((double)l->ddr_cycles - (double)r->ddr) / (double)r->ddr : 0;
                    int ok = (int64_t)l->npu_cycles == r->npu;
                    total++;
                    exact += ok;
                    if (dt == DT_FLOAT16 && r->time_us > 0) {
                        terr = xrealloc(terr, (size_t)(nterr + 1) * sizeof(double));
                        terr[nterr++] = fabs(l->time_us / (double)r->time_us - 1);
                    }
                    if (dw && dt == DT_FLOAT16 && l->kh * l->kw >= 25) {
                        dw_big++;
                        dw_big_exact += ok;
                    }
                    if (l->n_in > 0 && l->in[0].nd == 4 && l->in[0].d[0] > 1) {
                        batched++;
                        batched_exact += ok;
                    }
                    optype_ok += !strcmp(l->optype, r->optype);
                    derr = xrealloc(derr, (size_t)(nderr + 1) * sizeof(double));
                    derr[nderr++] = fabs(e);
                    snprintf(shp, sizeof shp, "%.36s", r->inshape);
                    snprintf(io, sizeof io, "%.30s%s", r->outshape, dw ? " dw" : "");
                    printf("%-44.44s %4d %-13s %-7s %-36s %-16s %10lld %10llu %-5s %9lld %9llu %+6.2f%%%s\n",
                           base, r->id, r->optype, r->datatype, shp, io, (long long)r->npu,
                           (unsigned long long)l->npu_cycles, ok ? "yes" : "NO", (long long)r->ddr,
                           (unsigned long long)l->ddr_cycles, 100 * e,
                           strcmp(l->optype, r->optype) ? "  (fused as " : "");
                    if (strcmp(l->optype, r->optype))
                        printf("%s)\n", l->optype);
                }
                npu_graph_free(ng);
                graph_free(g);
            }
        }
        perflog_free(tabs, nt);
        free(buf);
    }
    qsort(derr, (size_t)nderr, sizeof(double), cmp_d);
    printf("\nsummary: %d conv/depthwise rows; NPU cycles exact: %d/%d; OpType reproduced by "
           "fusion: %d/%d; DDR |error| median %.3f%%, max %.3f%%\n",
           total, exact, total, optype_ok, total, nderr ? 100 * derr[nderr / 2] : 0.0,
           nderr ? 100 * derr[nderr - 1] : 0.0);
    printf("fp16 depthwise rows with kernels >= 5x5: %d/%d exact; rows with a batch N > 1: "
           "%d/%d exact%s\n",
           dw_big_exact, dw_big, batched_exact, batched,
           batched ? "" : " (no such row in these logs: our N*ceil16(OH*OW) is derived, not verified)");
    printf("verified: the npu/ddr columns, each row's logged cycles against ours\n");
    qsort(terr, (size_t)nterr, sizeof(double), cmp_d);
    if (nterr)
        printf("estimate: Time(us) of these rows, fp16 (runtime 2.3): median |error| %.1f%% over "
               "%d rows (a fitted model, bench/npu_time.sh)\n",
               100 * (nterr % 2 ? terr[nterr / 2] : (terr[nterr / 2 - 1] + terr[nterr / 2]) / 2),
               nterr);
    free(terr);
    free(derr);
    if (check) {
        int passed = 0, failed = 0;
        const struct { const char *what; int ok; } c[] = {
            {"NPU cycles exact on every conv row", total > 0 && exact == total},
            {"OpType reproduced by fusion on every conv row", total > 0 && optype_ok == total},
            {"batched rows present and exact", batched > 0 && batched_exact == batched},
            {"fp16 depthwise rows >= 5x5 present and exact", dw_big > 0 && dw_big_exact == dw_big},
        };
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
            printf("%s: %s\n", c[i].ok ? "ok" : "FAIL", c[i].what);
            c[i].ok ? passed++ : failed++;
        }
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 3 : 0;
    }
    return 0;
}
