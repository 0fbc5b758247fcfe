/* The int8 simulation of every bundled model (tests/e2e/models.txt, its
 * shapes and input range) run without a hook, where int8 Convs hand their
 * outputs on as bytes (quant_bytes), equals bit for bit the node-by-node run
 * with a hook, where every int8 layer quantizes its input floats (the run
 * tests/quant/i8_hash.sh checks against the hashes of earlier builds). The
 * graph outputs are compared, and the bytes with the node-by-node floats
 * they stand for (some must have been written). Calibrated on the seeded random
 * input as `run -q i8` does without a dataset. */
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "runtime/quant/quant.h"
#include "tests/test.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static float frand(float lo, float hi)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (hi - lo) * (float)((rng >> 40) / (double)(1ULL << 24));
}

/* The node-by-node values as each layer writes them (the arena reuses a
 * tensor's memory after its last reader): graph outputs and every tensor
 * with bytes. */
typedef struct capture {
    const graph_t *g;
    const quant_graph *q;
    float **ref;
} capture;

static int capture_hook(const layer_event_t *ev, void *user)
{
    capture *c = user;
    for (int k = 0; k < ev->n_out; k++) {
        const tensor_t *x = ev->out[k];
        int t = x ? (int)(x - c->g->t) : -1;
        if (t < 0 || t >= c->g->n_t || !x->data || x->dtype != DT_FLOAT ||
            !(x->is_output || (c->q->bytes && c->q->bytes[t])))
            continue;
        size_t nb = tensor_nbytes(x);
        free(c->ref[t]);
        c->ref[t] = xmalloc(nb ? nb : 1);
        memcpy(c->ref[t], x->data, nb);
    }
    return 0;
}

static int total_written, total_slice_cats, total_placed;

/* NAME=D0,D1,... into sh (one input). */
static int parse_shape(const char *spec, input_shape_t *sh, char *name, size_t nlen)
{
    const char *eq = strchr(spec, '=');
    if (!eq || strchr(spec, ';') || (size_t)(eq - spec) >= nlen)
        return -1;
    memcpy(name, spec, (size_t)(eq - spec));
    name[eq - spec] = '\0';
    sh->name = name;
    sh->ndim = 0;
    for (const char *p = eq + 1; *p && sh->ndim < MODEL_MAX_DIMS;) {
        sh->dims[sh->ndim++] = strtoll(p, (char **)&p, 10);
        if (*p == ',')
            p++;
    }
    return 0;
}

/* raw: the input as it is, not put on its grid first (a caller of the C API
 * may give any floats): the layers that read it requantize it either way. */
static void model_case(const char *file, const char *shape, float lo, float hi, int nthreads,
                       int raw)
{
    char path[512], err[512] = "", name[128];
    snprintf(path, sizeof path, "tests/data/models/%s", file);
    input_shape_t sh;
    CHECK(parse_shape(shape, &sh, name, sizeof name) == 0, "%s: shape %s", file, shape);
    graph_t *gf = NULL, *gq = NULL;
    exec_t *xf = NULL, *xq = NULL;
    quant_graph *q = NULL;
    qparam_t *act = NULL, *actq = NULL;
    uint8_t *has = NULL, *hasq = NULL;
    float *in = NULL, **ref = NULL;
    int n_samples = 0, rc = model_load_file(path, &gf, err, sizeof err);
    rc = rc ? rc : passes_prepare(gf, &sh, 1, err, sizeof err);
    exec_opts eo = {.nthreads = nthreads, .exact_threads = 1};
    rc = rc ? rc : exec_create(gf, &eo, &xf, err, sizeof err);
    CHECK(rc == 0, "%s: %s", file, err);
    if (rc)
        goto out;
    int64_t n = tensor_numel(&gf->t[gf->inputs[0]]);
    in = xmalloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        in[i] = frand(lo, hi);
    const void *inputs[1] = {in};
    rc = quant_calibrate(gf, xf, QA_NORMAL, NULL, inputs, 0, &act, &has, &n_samples, err,
                         sizeof err);
    rc = rc ? rc : model_load_file(path, &gq, err, sizeof err);
    rc = rc ? rc : quant_graph_new(gq, QT_I8, QM_CHANNEL, &q, err, sizeof err);
    rc = rc ? rc : passes_prepare(gq, &sh, 1, err, sizeof err);
    CHECK(rc == 0, "%s: %s", file, err);
    if (rc)
        goto out;
    /* same file, same passes: tensors by name */
    actq = xcalloc((size_t)gq->n_t, sizeof(*actq));
    hasq = xcalloc((size_t)gq->n_t, 1);
    for (int t = 0; t < gq->n_t; t++) {
        int ft = graph_find_tensor(gf, gq->t[t].name);
        if (ft >= 0 && has[ft])
            actq[t] = act[ft], hasq[t] = QP_HAS_CALIB;
    }
    rc = quant_graph_finish(q, actq, hasq, err, sizeof err);
    rc = rc ? rc : exec_create(gq, &eo, &xq, err, sizeof err);
    if (!raw)
        quant_graph_output(q, gq->inputs[0], in);
    rc = rc ? rc : exec_set_input(xq, 0, in, sizeof(float) * (size_t)n, err, sizeof err);
    if (!rc)
        ref = xcalloc((size_t)gq->n_t, sizeof(*ref));
    capture cap = {.g = gq, .q = q, .ref = ref};
    rc = rc ? rc : exec_run(xq, capture_hook, &cap, err, sizeof err);
    CHECK(rc == 0, "%s: %s", file, err);
    if (rc)
        goto out;
    rc = exec_run(xq, NULL, NULL, err, sizeof err);
    CHECK(rc == 0, "%s: %s", file, err);
    int written = 0, bad_out = 0, bad_bytes = 0, only = 0;
    for (int t = 0; !rc && t < gq->n_t; t++) {
        const quant_bytes *b = q->bytes ? q->bytes[t] : NULL;
        if (b && b->valid) {
            written++;
            only += b->only_bytes;
            /* the bytes are the node-by-node floats' q on their grid */
            for (int64_t i = 0; ref[t] && i < b->n; i++)
                bad_bytes += b->q[i] != (uint8_t)(quant_q8(ref[t][i], &b->grid) + 128) ||
                             quant_dq8((int8_t)(b->q[i] - 128), &b->grid) != ref[t][i];
        }
        if (gq->t[t].is_output && ref[t])
            for (int64_t i = 0; i < tensor_numel(&gq->t[t]); i++)
                bad_out += memcmp(&((const float *)gq->t[t].data)[i], &ref[t][i], 4) != 0;
    }
    /* a byte Concat of Slices (YOLOX's Focus) writes its bytes, made from
     * the Slices' source (the Slices do not run) or from its inputs' bytes;
     * they were compared with the node-by-node floats above */
    int cats = 0, stale = 0, placed = 0, placed_valid = 0;
    for (int i = 0; !rc && q->bytes && i < gq->n_nodes; i++) {
        const node_t *c = &gq->nodes[i];
        if (c->folded || strcmp(c->op, "Concat") || c->n_out != 1 || c->out[0] < 0 ||
            !q->bytes[c->out[0]])
            continue;
        int slices = c->n_in > 0;
        const quant_bytes *ob = q->bytes[c->out[0]];
        for (int k = 0; k < c->n_in; k++) {
            int t = c->in[k], p = t >= 0 ? gq->t[t].producer : -1;
            slices &= p >= 0 && !strcmp(gq->nodes[p].op, "Slice");
            /* an input whose bytes lie in the output's (bytes_place) */
            const quant_bytes *b = t >= 0 ? q->bytes[t] : NULL;
            if (b && b->q >= ob->q && b->q < ob->q + ob->n) {
                placed++;
                placed_valid += b->valid;
            }
        }
        cats += slices;
        stale += slices && (!q->bytes[c->out[0]]->valid || !ref[c->out[0]]);
    }
    CHECK(stale == 0, "%s (%d threads%s): %d Concats of Slices without their bytes", file,
          nthreads, raw ? ", raw input" : "", stale);
    total_slice_cats += cats;
    total_placed += placed;
    CHECK(bad_out == 0, "%s (%d threads%s): %d output values differ from the node-by-node run",
          file, nthreads, raw ? ", raw input" : "", bad_out);
    CHECK(bad_bytes == 0, "%s (%d threads%s): %d bytes are not their floats' q + 128", file,
          nthreads, raw ? ", raw input" : "", bad_bytes);
    total_written += written;
    printf("%s (%d threads%s): %d tensors as bytes (%d without floats), %d Concat inputs in "
           "their output's bytes (%d still on their own grid), outputs bit for bit\n",
           file, nthreads, raw ? ", raw input" : "", written, only, placed, placed_valid);
out:
    for (int t = 0; ref && gq && t < gq->n_t; t++)
        free(ref[t]);
    free(ref);
    free(in);
    free(actq);
    free(hasq);
    free(act);
    free(has);
    exec_free(xq);
    quant_graph_free(q);
    graph_free(gq);
    exec_free(xf);
    graph_free(gf);
}

int main(void)
{
    FILE *f = fopen("tests/e2e/models.txt", "r");
    CHECK(f != NULL, "tests/e2e/models.txt");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        char file[256], shape[256], range[64];
        float lo, hi;
        if (line[0] == '#' || sscanf(line, "%255s %255s %63s", file, shape, range) != 3 ||
            sscanf(range, "%f,%f", &lo, &hi) != 2)
            continue;
        model_case(file, shape, lo, hi, 2, 0);
        model_case(file, shape, lo, hi, 1, 0);
        /* YOLOX's Focus reads the input: off its grid, its bytes are made by
         * the Slices' own steps instead of the source's table */
        if (!strcmp(file, "yolox_nano.onnx"))
            model_case(file, shape, lo, hi, 2, 1);
    }
    if (f)
        fclose(f);
    CHECK(total_written > 0, "no int8 activation of any model was handed on as bytes");
    CHECK(total_slice_cats > 0, "no model has a byte Concat of Slices (YOLOX's Focus)");
    /* YOLOX's CSP Concats, UltraFace's and PP-OCR det's */
    CHECK(total_placed > 0, "no byte Concat's input lies in its output's bytes");
    TEST_END();
}
