/* tune/tune.h — automatic quantization repair (`rknn-trace tune`): which
 * layers to keep in fp16, and with which calibration, so that an int8 model
 * meets an accuracy target on every output over an evaluation set at the
 * least predicted NPU time.
 *
 * A session holds the model's fp32 golden outputs for every evaluation
 * sample and the calibrated activation ranges per algorithm (one calibration
 * each, over --dataset). tune_eval builds the quantized graph of one
 * configuration (algorithm, weight method, the candidates kept in fp16: each
 * a layer whose output the int8 graph quantizes; naming it moves the whole
 * conv + bias + activation chain the NPU runs as one layer, runtime/quant),
 * runs it on every sample (in parallel: one graph and one-thread executor per
 * core, --threads) and scores the outputs, and costs it with the NPU model on
 * the session's chip.
 *
 * Scores: the target's metric (cos, SQNR in dB, or the largest absolute
 * error) of each output on each sample; a sample's score is that of its worst
 * output; a configuration's `worst` is the worst sample's, `mean` the mean
 * over samples. A constant or non-finite output scores as a failure. */
#ifndef RT_TUNE_H
#define RT_TUNE_H

#include <signal.h>
#include <stddef.h>
#include "runtime/npu/npu.h"

enum tune_metric { TUNE_COS = 0, TUNE_SQNR, TUNE_ATOL };

typedef struct tune_opts {
    const char *model, *dataset, *eval;
    const char *mean, *std;      /* images of either list (quant_preproc_parse) */
    const npu_platform_t *plat;
    int metric;                  /* enum tune_metric */
    double target;               /* cos or dB to reach, or the atol not to pass */
    int threads;                 /* 0: all cores */
    volatile sig_atomic_t *stop; /* set (SIGINT): the current evaluation stops */
} tune_opts;

/* A candidate: a conv (Gemm, MatMul) with the elementwise activation chain
 * the NPU runs with it (Relu, Clip, Sigmoid, the Mul of a SiLU, ...: nodes
 * fed only by that layer), or any other layer whose output int8 quantizes. */
typedef struct tune_cand {
    char *name, *op;             /* the layer's last output, its ops ("Conv+Sigmoid+Mul") */
    char **names;                /* every output of the layer: all go to fp16 together */
    int n_names;
    double single_cos;           /* mean single-layer cos over the samples */
    double alone_fp16;           /* score worst with only this layer in fp16 (NaN: not measured) */
    double alone_i8;             /* score worst with only this layer in int8 */
} tune_cand;

typedef struct tune_point {
    int algo, method;            /* enum quant_algo, quant_method */
    int n_fp16;                  /* candidates in fp16 (n_cand: all of them) */
    int *fp16;                   /* their indices (malloc'd) */
    double worst, mean;          /* the score (see above) */
    int worst_sample;            /* 0-based */
    double npu_us;               /* predicted frame */
    int meets;
} tune_point;

typedef struct tune_session tune_session;

/* Loads the model, both lists (samples of another shape than the model's
 * inputs: RT_ESHAPE naming them), the golden outputs of every sample, and the
 * candidates. QDQ models and chips without fp16 or int8 are refused. */
int tune_open(const tune_opts *o, tune_session **out, char *err, size_t errlen);
void tune_close(tune_session *s);
int tune_n_samples(const tune_session *s);
const tune_opts *tune_options(const tune_session *s);
int tune_n_cands(const tune_session *s);
tune_cand *tune_cands(tune_session *s);
/* 1 when a is better than b (meets first, then the higher worst score, then
 * the higher mean). */
int tune_better(const tune_session *s, const tune_point *a, const tune_point *b);
/* Evaluates a configuration: fp16[0..n) candidate indices; all_but >= 0 puts
 * every candidate but that one in fp16 instead. write_cfg: also write its
 * quantization.cfg (runtime/quant's layout, every parameter). Returns RT_OK,
 * RT_EINVAL when stopped (opts.stop), or an error (then p holds nothing to free). */
int tune_eval(tune_session *s, int algo, int method, const int *fp16, int n, int all_but,
              const char *write_cfg, tune_point *out, char *err, size_t errlen);
/* Each candidate's mean single-layer cos over the samples (as accuracy_run's
 * "single": the layer fed with the quantized golden values of its inputs),
 * for plain int8 with algo/method. */
int tune_single(tune_session *s, int algo, int method, char *err, size_t errlen);
void tune_point_free(tune_point *p);
/* " --shape NAME=D0,D1,..." for each dynamic input the first evaluation
 * sample fixed ("" when none), for the build command line printed. */
const char *tune_shape_args(const tune_session *s, char *buf, size_t len);
/* Writes p's quantization.cfg (its fp16 layers and every parameter) to path. */
int tune_write_cfg(tune_session *s, const tune_point *p, const char *path, char *err,
                   size_t errlen);
void tune_point_copy(tune_point *dst, const tune_point *src);

/* The accuracy-vs-time front as a PNG (libpng, reports' canvas): every point
 * evaluated (grey), the kept ones (blue, joined by time), the target (red). */
int tune_front_png(const char *path, const tune_point *pts, int n, const int *kept, int n_kept,
                   int metric, double target, const char *title, char *err, size_t errlen);

#endif

/* ---- the search (tune/search.c) ----
 * 1. plain int8 with each algorithm (normal, mmse, kl_divergence) and weight
 *    method (channel, layer): the best is the base; done if it meets the target;
 * 2. every candidate in fp16: if even that misses, the target is unreachable;
 * 3. sensitivity of the `candidates` layers with the lowest single-layer cos
 *    (all with 0): the score with only that layer in fp16, and with only that
 *    layer in int8 (every other candidate fp16);
 * 4. candidates ordered by the first (then the rest by single cos): the
 *    shortest prefix that meets the target (doubling, then bisection), then
 *    what it does not need dropped again: the prefix past its first layer as
 *    one block, a block that cannot go split in halves, down to single
 *    layers, the later (less sensitive) half first; the first layer last;
 * 5. that set with the other algorithms and methods: the best is the answer.
 * Every evaluation is a row of the table on `out`; keep() is called for the
 * base, each point that improves on the last kept one, and the answer. */
typedef struct tune_search_opts {
    int candidates;              /* layers measured for sensitivity (0: all) */
    FILE *out;                   /* the table */
    int progress;                /* evaluations done and time left on stderr */
    int (*keep)(void *user, tune_session *s, const tune_point *p, const char *what,
                char *err, size_t errlen);
    void *user;
} tune_search_opts;

typedef struct tune_result {
    tune_point *pts;             /* every configuration evaluated, in order */
    char (*what)[64];            /* its row's description */
    int n;
    int *kept, n_kept;           /* indices into pts */
    int best;                    /* the answer: the fastest that meets, else the best; -1 none */
    int base;                    /* the plain int8 base */
    int reached, interrupted;
} tune_result;

int tune_search(tune_session *s, const tune_search_opts *so, tune_result *r, char *err,
                size_t errlen);
void tune_result_free(tune_result *r);
/* "cos", "SQNR dB" or "max abs" */
const char *tune_metric_name(int metric);
/* v as the tables print the metric: cos with 5 decimals, or one more than a
 * target past 0.99999 has; dB with 2; max abs with 4 digits */
const char *tune_fmt_score(int metric, double target, double v, char *buf, size_t len);
