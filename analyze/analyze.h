/* analyze/analyze.h — error metrics, run comparison, external goldens, the
 * quantization accuracy analysis and the run summary. The run store they read
 * and write is analyze/store.h. */
#ifndef RT_ANALYZE_H
#define RT_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include "analyze/store.h"

/* ---- Error metrics (analyze/metrics.c): metrics_t and METRIC_* are in store.h ---- */

void metrics_compute(const float *ref, const float *x, int64_t n, metrics_t *m);
/* Same for any numeric dtype pair (enum dtype): values are converted to double.
 * Returns RT_EUNSUPPORTED for a dtype without numbers (string). */
int metrics_compute_typed(int ref_dtype, const void *ref, int x_dtype, const void *x, int64_t n,
                          metrics_t *m, char *err, size_t errlen);
/* "0.99973" style cell as Toolkit2 prints (cos 5 decimals, euc 5 significant
 * digits), "nan" for NaN. */
const char *metrics_fmt_cos(double v, char *buf, size_t len);
const char *metrics_fmt_euc(double v, char *buf, size_t len);

/* Element-wise tolerance (numpy isclose / Polygraphy --atol --rtol): element i
 * passes when |x[i] - ref[i]| <= atol + rtol * |ref[i]|; a NaN on either side
 * fails. worst: the element with the largest |x - ref| (a non-finite
 * difference ranks above any finite one; the first on ties), -1 when n == 0. */
typedef struct tol_t {
    int64_t fail;               /* failing elements */
    int64_t worst;              /* flat (C-order) index */
    double x, ref;              /* values at worst */
} tol_t;

int metrics_tolerance(int ref_dtype, const void *ref, int x_dtype, const void *x, int64_t n,
                      double atol, double rtol, tol_t *t, char *err, size_t errlen);
/* How the accuracy table colours a cosine against threshold thr: METRIC_GRADE_OK
 * (>= thr, green), _NEAR (within 0.04 below, yellow), _BAD (red), _NAN (magenta). */
enum { METRIC_GRADE_OK = 0, METRIC_GRADE_NEAR, METRIC_GRADE_BAD, METRIC_GRADE_NAN };
int metrics_cos_grade(double cos, double thr);


/* ---- Run comparison (analyze/compare.c) ----
 * One side of a two-run comparison: a stored run and its rows (the alignment of
 * N runs by source tensor name is the comparison document, analyze/compare_doc.h). */
typedef struct compare_side {
    const store_run *run;
    const store_layer *layers;
    int n_layers;
    const store_accuracy *acc;  /* may be empty (an fp32 run) */
    int n_acc;
    int n_io_rows;              /* Input/OutputOperator kept outside the layer rows
                                   (a prediction's npu_rows) */
} compare_side;

/* The compiled graphs of two runs, layer against layer: a layer is what the
 * NPU (or the CPU) executes as one step, i.e. the rows it covers (a fused
 * Conv+Add: the Conv's row and the Add's) up to the row that carries its
 * figures. Meant for a vendor .rknn's predicted run (backend "predict": the
 * compiler's own fusion, placement, dtypes and shapes) against the run of its
 * source ONNX on the same target (our lowering). Input/OutputOperator layers
 * (only predicted .rknn runs store them) are counted, not aligned. Layers are
 * paired by the tensor they output when at least half of them share names,
 * else (a file compiled from another export of the network) by op type and
 * output shape, then by output shape alone, each in execution order. */
enum compare_graph_diff {
    CMP_G_OP = 1,       /* op types differ (a different fusion: Conv vs ConvAdd) */
    CMP_G_FUSION = 2,   /* same op, but it covers other source nodes */
    CMP_G_TARGET = 4,   /* CPU vs NPU */
    CMP_G_DTYPE = 8,    /* INT8 vs FP16 ... (UINT8 and INT8 count as equal) */
    CMP_G_SHAPE = 16,   /* output or data-input shapes */
};

typedef struct compare_glayer {
    int row, first;             /* side's rows: the one with the figures, the first covered */
    const char *op;             /* the layer's op type (npu_op, else op) */
    char full[160];             /* FullName: "Conv:Conv_0" */
    const char *target, *dtype, *out_shape; /* borrowed from the side's rows */
    char in_shape[96];          /* its first input's shape */
    char out_key[160], in_key[112]; /* the shapes in the compiler's 4-D view (compare_shapes_4d) */
    int io;                     /* Input/OutputOperator */
} compare_glayer;

typedef struct compare_gpair {
    int l[2];                   /* index into side k's glayers, -1: only the other side has it */
    int diff;                   /* enum compare_graph_diff bits */
    char note[200];             /* unpaired: where the other side computes it, if found */
} compare_gpair;

typedef struct compare_graph {
    compare_glayer *gl[2];
    int n[2];                   /* layers, I/O operators included */
    int io[2];                  /* Input/OutputOperator layers */
    int io_rows[2];             /* and those outside the layer rows (compare_side) */
    compare_gpair *pairs;       /* side 0's layers in order, then side 1's unpaired */
    int n_pairs;
    int by_name;                /* aligned by tensor names, else by op type and shape */
    int n_equal, n_differ, n_only[2];
    int n_diff[5];              /* per enum bit, in bit order */
} compare_graph;

void compare_graph_build(const compare_side *a, const compare_side *b, compare_graph *g);
void compare_graph_free(compare_graph *g);
/* "op", "fusion", "target", "dtype", "shape" of one bit */
const char *compare_graph_diff_name(int bit);
/* The shapes of a JSON list ("[[1,128],[1,3]]") as the compiler's 4-D layers
 * hold them, into buf: (a) as (1,a,1,1), (a,b) as (a,b,1,1), (a,b,c) as
 * (a,b,1,c) (the vendor's tables: an MLP's Linear "(1,225,1,1)", a BERT's
 * "(1,32,1,32)", Odin-CV's "(1,25,1,3549)"), other ranks as they are; text
 * that is no such list (or too long for buf), as it is. Returns buf. */
const char *compare_shapes_4d(const char *list, char *buf, size_t len);

/* A run's speed against the baseline: percent slower (negative: faster), NaN
 * when either time is unknown. compare_verdict writes the line `compare`
 * prints for run `tag` ("B vs A: predicted NPU frame +12.3%"); by_host: the
 * figures are this PC's host medians. */
double compare_slower_pct(double base_us, double us);
const char *compare_verdict(char *buf, size_t len, const char *tag, double slower_pct, int by_host);
/* Two runs' stored output tensors (.npy files, e.g. store_output.dump_file):
 * metrics of b against a (a is the reference); a constant or non-finite
 * tensor shows in m->flags (METRIC_*). RT_ESHAPE when the sizes differ. */
int compare_output_files(const char *a, const char *b, metrics_t *m, char *err, size_t errlen);

/* ---- Run filters (analyze/run_filter.c): what `ls` and the TUI select runs by ----
 * model: the model's path or file name, or a glob (fnmatch) of either (a run
 * without a model: the log it was imported from, summary_log_file);
 * quant: "TYPE[/ALGO[/METHOD]]", case-insensitive ("i8", "i8/mmse/layer");
 * tag: one of the run's tags (store_run.tags), exactly. 1: the run matches. */
int run_filter_model(const store_run *r, const char *pattern);
int run_filter_quant(const store_run *r, const char *spec);
int run_filter_tag(const store_run *r, const char *tag);

/* ---- External golden (analyze/golden.c) ----
 * A folder of .npy tensors, one per tensor name, in any of three layouts:
 *  - ours: DIR/index.json, a JSON list (rknn-trace run --dump, --dump-golden,
 *    --dump-quant); another tool's index.json (an onnxruntime or Polygraphy
 *    dump's object) is ignored and the folder read by name, as below;
 *  - a board's RKNN_LOG_LEVEL=5 dumps:
 *      NNN_<OpType>_<tensor>_shape_<d0>_<d1>..._<dtype>.npy
 *    (NNN the op index; when a tensor appears twice — an op's input dumped
 *    again — the float file wins, then the lower index);
 *  - anything else, e.g. onnxruntime dumps: <tensor>.npy, the tensor name with
 *    every character outside [A-Za-z0-9._-] replaced by '_' (as our dumps do);
 *    .npy files in subfolders too, named by their path under DIR (a tensor
 *    "/conv1/Conv_output_0" written as conv1/Conv_output_0.npy); an index.json
 *    object of another tool that names its files ({"tensor": "file.npy"} or
 *    {"...": [{"name", "file"}]}) gives their tensor names; files that are not
 *    .npy are ignored;
 *  - a Toolkit2 accuracy_analysis snapshot folder (golden/ beside simulator/
 *    or error_analysis.txt): its golden/ (golden/npy/ when present) tensors,
 *    by name as above; simulator/ holds the quantized values, not a golden.
 * golden_analyze compares, for every tensor of the run folder (in its index
 * order), the file of the same name in the golden folder: metrics of the run's
 * values against the golden (reference) values. Element counts that differ, a
 * dtype without numbers, or no tensor in common: one-line error (RT_ESHAPE,
 * RT_EUNSUPPORTED, RT_EINVAL). */
typedef struct golden_file {
    char *name, *op, *path;
    int index;                  /* layer / op index, -1 for inputs or unknown */
    int dtype;                  /* from the name (board dumps) or index; 0 unknown */
} golden_file;

int golden_scan(const char *dir, golden_file **files, int *n, char *err, size_t errlen);
/* golden_scan that also says how DIR was read when it is not ours: "by-name"
 * or "toolkit2-snapshot" (layout may be NULL). */
int golden_scan_layout(const char *dir, golden_file **files, int *n, const char **layout,
                       char *err, size_t errlen);
/* Another tool's index.json: tensor name -> file (relative .npy paths inside
 * the folder only). -1 when text is not a JSON object; entries of another
 * form are skipped. Free with golden_name_map_free. */
typedef struct golden_name_map {
    char **name, **file;
    int n;
} golden_name_map;
int golden_parse_index_map(const char *text, size_t len, golden_name_map *m);
void golden_name_map_free(golden_name_map *m);
/* A board's level-5 dump name NNN_<OpType>_<tensor>_shape_<d0>_..._<dtype>.npy:
 * 0 and its parts (op and tensor malloc'd; dtype 0 when the token is unknown),
 * -1 when file is not such a name. */
int golden_parse_dump_name(const char *file, int *index, char **op, char **tensor, int *dtype);
void golden_files_free(golden_file *f, int n);

typedef struct golden_row {
    char *name, *op;
    int layer;                  /* the run's layer index, -1 input */
    int matched;                /* a golden file of that name exists */
    int64_t count;
    int dtype, ref_dtype;
    metrics_t m;                /* run values vs golden */
    tol_t tol;                  /* against the report's atol / rtol */
    int ndim;                   /* the run tensor's shape */
    int64_t dims[32];
    int is_output;              /* set by the caller: a graph output */
} golden_row;

typedef struct golden_report {
    int n_rows, n_matched;
    golden_row *rows;
    const char *layout;         /* golden folder layout: "rknn-trace", "rknpu-level5", "by-name",
                                   "toolkit2-snapshot" */
    double atol, rtol;
} golden_report;

/* Defaults of Polygraphy's --atol / --rtol. */
#define GOLDEN_ATOL 1e-5
#define GOLDEN_RTOL 1e-5

int golden_analyze(const char *run_dir, const char *golden_dir, golden_report **out, char *err,
                   size_t errlen);
/* golden_analyze with the element tolerances of every row's tol. */
int golden_analyze_tol(const char *run_dir, const char *golden_dir, double atol, double rtol,
                       golden_report **out, char *err, size_t errlen);
void golden_report_free(golden_report *r);

#include <stdio.h>

struct input_shape; /* runtime/passes/passes.h */
struct graph;       /* runtime/model/model.h */

/* ---- Quantization accuracy analysis (analyze/accuracy.c) ----
 *
 * Toolkit2's accuracy_analysis, simulator side: the fp32 graph is the golden;
 * the quantized graph (runtime/quant: int8 or fp16) runs on the same input.
 * For every float layer output, mapped by source tensor name:
 *   entire = quantized graph end to end vs golden (errors accumulate);
 *   single = the layer quantized, fed with the (quantized) golden inputs, vs
 *            golden — run as one pass where each layer's output is replaced by
 *            its quantized golden value before the next layer reads it.
 * Graph inputs get a row of op "Input" (the input's own quantization). */
typedef struct accuracy_opts {
    int type;                /* enum quant_type (runtime/quant/quant.h) */
    int algo;                /* enum quant_algo */
    int method;              /* enum quant_method */
    const char *dataset;     /* dataset.txt; NULL: calibrate on the analysed input */
    int nthreads;            /* 0: all cores */
    size_t max_memory;       /* per executor, as exec_opts.max_memory; 0: physical memory */
    int progress;            /* calibration progress bar on stderr */
    const char *dump_golden; /* optional dump folder of the fp32 layer outputs */
    const char *dump_quant;  /* optional dump folder of the quantized (entire) outputs */
    int keep_graph;          /* hand the quantized graph over in the report */
    int resize_static;       /* shapes may resize fully static inputs (a build's
                                shape set: graph_free_static_inputs) */
    const struct quant_preproc *preproc; /* mean/std of dataset images, or NULL */
    const char *hybrid;      /* *.quantization.cfg: fp16 layers, fixed parameters */
    const char *hybrid_text; /* ... or its text (hybrid then only names it) */
    size_t hybrid_len;
    const char *write_cfg;   /* write the parameters used in that layout */
    const char *eval;        /* evaluation list (dataset.txt layout): every row's error
                                over each of its samples too (accuracy_eval_*) */
} accuracy_opts;

/* One metric over the samples of an evaluation list: NaN values (a constant
 * tensor) are left out of min, mean and max; worst: the sample (0-based) of
 * the worst value (lowest cos and SQNR, largest Euclidean), -1 when none. */
typedef struct eval_stat {
    double min, mean, max, sum;
    int n, worst;
} eval_stat;

typedef struct accuracy_eval_row {
    eval_stat cos, euc, sqnr;   /* entire, vs the fp32 golden of the same sample */
    eval_stat single_cos;       /* single */
} accuracy_eval_row;

void eval_stat_init(eval_stat *s);
/* lower_worse: the lowest value is the worst (cos, SQNR), else the highest. */
void eval_stat_add(eval_stat *s, double v, int sample, int lower_worse);

typedef struct accuracy_row {
    int layer;               /* executed-layer index (-1: graph input) */
    char *node, *op, *name;  /* name: source tensor name */
    int fused;               /* left unquantized (fused into the following activation) */
    metrics_t entire, single;
} accuracy_row;

typedef struct accuracy_report {
    char *model;
    int type, algo, method, n_samples, n_int8_nodes;
    int n_fp16_nodes;        /* layers kept in fp16 by the hybrid file */
    int n_cfg_params;        /* activation parameters taken from the hybrid file */
    int n_rows;
    accuracy_row *rows;
    int n_outputs;
    int *output_rows;        /* row of each graph output, -1 if none */
    double calib_us, golden_us, quant_us;
    /* With opts.keep_graph: the quantized graph, prepared (passes done, int8
     * kernels installed), for the caller to execute with its own executor; each
     * float layer output then goes through quant_graph_output(qg, ...). Owned by
     * the report unless the caller takes them (set the fields to NULL). */
    struct graph *qgraph;
    struct quant_graph *qg;
    /* With opts.eval: per row, its error over every sample of the list */
    int n_eval;
    char *eval_path;
    char **eval_files;       /* each sample's first file */
    accuracy_eval_row *eval;
    double *eval_sample_cos; /* per sample: its lowest output cosine (NaN: none) */
    int eval_worst;          /* the sample with the lowest output cosine, -1 */
} accuracy_report;

void accuracy_opts_init(accuracy_opts *o);
/* inputs: one float32 buffer per graph input (graph-input order), sized for
 * the shapes that `shapes` fixes. */
int accuracy_run(const char *model_path, const struct input_shape *shapes, int n_shapes,
                 const void *const *inputs, const accuracy_opts *o, accuracy_report **out,
                 char *err, size_t errlen);
void accuracy_report_free(accuracy_report *r);
/* inputs may be NULL with opts.eval: the list's first sample is then the
 * analysed input (its shapes those of the model). */
/* The evaluation of a report (n_eval > 0) as the JSON object docs/store.md
 * describes (extra_json "eval"), malloc'd; every surface shows it from the
 * stored run (summary_eval). */
char *accuracy_eval_json(const accuracy_report *r);
/* First row (in execution order) whose entire cosine is below threshold, and
 * the row with the lowest single cosine; -1 when none (NaN rows are skipped). */
int accuracy_first_below(const accuracy_report *r, double threshold);
int accuracy_worst_single(const accuracy_report *r);
struct json_writer;
/* The report's rows as the store keeps them (borrowing the report's strings;
 * free() the array): what `run` stores and summarises. */
store_accuracy *accuracy_store_rows(const accuracy_report *r);
/* The stored rows of a run: the Toolkit2-style table (cos | euc entire and
 * single, max abs, SQNR; threshold for the colours and the findings) / the
 * "layers" list of docs/json.md / its "outputs" list (graph outputs, entire). */
void accuracy_print_stored(const store_accuracy *rows, int n, FILE *f, double threshold,
                           int color, int board);  /* board: an imported runtime_error half */
void accuracy_json_stored(const store_accuracy *rows, int n, struct json_writer *w);
void accuracy_json_outputs(const store_accuracy *rows, int n, struct json_writer *w);


/* ---- Run summary (analyze/summary.c) ----
 *
 * One function computes what `run`, `show`, `ls`, `compare`, the TUI and the
 * reports say about a run, from its stored rows only (so a run that was not
 * recorded says exactly what `show` will say once it is). Missing is not zero:
 * a figure nobody measured is NaN (reals), -1 (counts, indices) or NULL, and
 * renders as "n/a" in text and null in JSON.
 *
 * Predicted figures are the NPU model's plain-run frame (store_run.npu_us,
 * store_layer.frame_us); host figures are this PC's CPU and are only ever
 * labelled as such. Runs of schema v1 (predicted frame, shares and load in
 * extra_json) are read too. The JSON document is `docs/json.md` version
 * SUMMARY_SCHEMA_VERSION. */
#define SUMMARY_SCHEMA_VERSION 1
#define SUMMARY_TOP 10

/* The fidelity of the frame model, measured by `make bench` (bench/npu_models.sh):
 * each model of the zoo's board table predicted by the fit made without it. */
#define SUMMARY_BAND_SOURCE "bench/npu_models.sh: left-out errors vs the model zoo's board table"
#define SUMMARY_BAND_MEAN_PCT 5.8
#define SUMMARY_BAND_WITHIN 66
#define SUMMARY_BAND_PAIRS 68
#define SUMMARY_BAND_LIMIT_PCT 20.0

enum summary_output_state {
    SUM_OUT_UNKNOWN = 0,   /* no accuracy row for this output */
    SUM_OUT_OK,
    SUM_OUT_CONSTANT,      /* the run's output is constant (all-zero included): collapsed */
    SUM_OUT_NONFINITE,     /* NaN or inf in it */
    SUM_OUT_REF_CONSTANT,  /* the golden itself is constant: cos says nothing */
};

typedef struct summary_output {
    const char *name, *shape, *dtype;   /* borrowed from the rows */
    int acc;                            /* accuracy row, -1 none */
    double cos, sqnr_db, max_abs;       /* entire, vs the fp32 golden; NaN unknown */
    int state;                          /* enum summary_output_state */
} summary_output;

/* Where a figure of a run came from. Every surface that prints a time or a
 * frame says it in the words of provenance_words(), derived by provenance_of()
 * from the run's backend (and, for an attached application, from the runtime it
 * ran on: backend "simlib" is this project's own librknnrt.so). */
enum provenance {
    PROV_NONE = 0,      /* no such figure */
    PROV_PREDICTED,     /* the NPU model (sim, predict; the simulated library's tables) */
    PROV_BOARD,         /* measured on a board: its runtime (board, attach, an imported log) */
    PROV_HOST,          /* this PC's CPU running the CPU runtime (sim) */
    PROV_SIMLIB,        /* rknn_run of this project's librknnrt.so on this PC (attach, board) */
    PROV_TOOLKIT,       /* Toolkit2's simulator on a PC (imported accuracy_analysis) */
    PROV_BUILD,         /* Toolkit2's compiler while building on a PC: a layer table
                           with no timing (imported build log, import_kind "toolkit build") */
};

/* The provenance of each figure of a run. */
typedef struct run_provenance {
    int frame;          /* the frame figure (npu.predicted_us) */
    int layer_frame;    /* the layers' frame shares (frame_us), kept when the run has no frame */
    int table;          /* the level-4 table: its total and the layers' times */
    int timing;         /* the timed runs: median/p90/min of rknn_run or the host runtime */
    int imported;       /* 1: read from a log a board or Toolkit2 printed */
} run_provenance;

void provenance_of(const store_run *run, run_provenance *p);
/* "predicted by the NPU model", "measured on the board", ... ("n/a" for PROV_NONE). */
const char *provenance_words(int prov);
/* One word for columns and JSON: "predicted", "board", "host", "simlib",
 * "toolkit", NULL for PROV_NONE. */
const char *provenance_tag(int prov);
/* "frame: WORDS; table: WORDS; timing: WORDS", the figures a run has. */
const char *provenance_line(const run_provenance *p, char *buf, size_t len);

/* The evaluation a quantized run stored (extra_json "eval": `run --eval`,
 * `analyze RUN --eval`), as every surface shows it: the samples, the worst one
 * (the lowest output cosine), each output's cos and SQNR over the samples.
 * Samples are 0-based here and in JSON, 1-based in text. */
typedef struct summary_eval_output {
    char *name;
    double cos_min, cos_mean;           /* NaN: no sample with a defined cos */
    int cos_worst;                      /* the sample of cos_min, -1 none */
    double sqnr_min_db, sqnr_mean_db;   /* +inf: identical tensors */
    double euc_max;
} summary_eval_output;

typedef struct summary_eval {
    int n_samples;                      /* 0: the run has no evaluation */
    char *file;                         /* the evaluation list */
    int worst;                          /* the sample with the lowest output cos, -1 none */
    char *worst_file;                   /* its first file */
    double worst_cos;                   /* its lowest output cos, NaN */
    summary_eval_output *outputs;
    int n_outputs;
} summary_eval;

/* Reads extra_json's "eval" (NULL or without one: n_samples 0); a malformed
 * object is no evaluation. Free with summary_eval_free. */
void summary_eval_read(const char *extra_json, summary_eval *e);
void summary_eval_free(summary_eval *e);
/* The run document's "eval" value (docs/json.md): null without one. */
void summary_eval_json(const summary_eval *e, struct json_writer *w);

/* The ranking table of an imported log (summary_ops.c): its op types, its Total row. */
typedef struct summary_op {
    char *op;
    double calls, cpu_us, gpu_us, npu_us, total_us, ratio_pct;   /* NaN: not printed */
} summary_op;
typedef struct summary_ops {
    summary_op *ops;
    int n;
    double total_us;                    /* the Total row, NaN none */
    int cpu_is_rest;                    /* the log left its CPU column out: cpu_us is
                                         * total - NPU (- GPU when printed) */
} summary_ops;
void summary_ops_read(const char *extra_json, summary_ops *o);
void summary_ops_free(summary_ops *o);
int summary_op_is_io(const char *op);   /* Input/OutputOperator: the runtime's, not a fallback */
int summary_op_is_fallback(const summary_op *p); /* CPU time, and not an I/O operator */
const char *summary_ops_title(const summary_ops *o); /* the table's heading, every surface's */
void summary_ops_print(const summary_ops *o, FILE *f);
void summary_ops_json(const summary_ops *o, struct json_writer *w);

/* What an imported log printed that no column holds (summary_log.c): its
 * versions, error lines and diagnosis, known warnings, benchmark figures, perf
 * totals. */
#define SUMMARY_LOG_NVERSIONS 9
typedef struct summary_log {
    int present;                        /* the run is an imported log */
    const char *kind;                   /* its import_kind, borrowed */
    char *file;                         /* the file it was imported from, NULL: not kept */
    char *versions[SUMMARY_LOG_NVERSIONS]; /* runtime, rkllm, rknn llm lib, driver, rknn_server,
                                           API, toolkit, rkllm-toolkit, compiler; NULL none */
    char *driver_required;              /* RKLLM's "driver too low": the version it asks for */
    int64_t n_errors;                   /* error lines in the log, -1: no error block */
    char **error_lines;                 /* the first ones, as stored */
    int n_error_lines;
    char *diagnosis;
    int64_t n_warnings;                 /* the runtime's known warning lines, -1: none */
    char **warning_lines;               /* the first ones, as stored */
    int n_warning_lines;
    char **notes;                       /* what each kind among them means */
    int n_notes;
    int has_benchmark;                  /* rknn_benchmark's own figures, NaN: not printed */
    double bench_avg_ms, bench_avg_fps, bench_warmup, bench_fps_min, bench_fps_max;
    int bench_iterations;
    int has_totals;                     /* the perf table's totals, NaN: not printed */
    double operator_us, rw_kb;
} summary_log;
void summary_log_read(const store_run *run, summary_log *l);
void summary_log_free(summary_log *l);
/* The file an imported run was read from (env_json "source"; malloc'd), NULL
 * for a run not imported or one that kept no path (a dump folder's). */
char *summary_log_file(const store_run *run);
/* The text block `show` prints after the summary (status: the run's). */
void summary_log_print(const summary_log *l, const char *status, FILE *f);
/* The run document's "log" value (docs/json.md): null for a run not imported. */
void summary_log_json(const summary_log *l, struct json_writer *w);

typedef struct run_summary {
    run_provenance prov;                /* where each figure came from */
    const store_run *run;               /* borrowed, as are all rows below */
    const store_layer *layers;
    int n_layers;
    const store_accuracy *acc;
    int n_acc;
    /* predicted (NPU model) */
    double frame_us, fps;               /* plain-run frame; NaN: no prediction */
    double perf_table_us;               /* level-4 (perf_debug) table total, NaN none */
    int table_is_sum;                   /* 1: an imported log printed no total; perf_table_us is
                                           the sum of the rows it kept (an excerpt may lack some) */
    double share_pct[3];                /* by enum npu_bound: compute, DDR, CPU (of the layer rows) */
    double share_uncounted_pct;         /* a measured table's rows with no cycle counts (0/0/0),
                                         * of the same total; NaN none */
    double io_us;                       /* frame time outside the layer rows: Input/OutputOperator,
                                           exDataConvert (no graph node, no row); a measured
                                           table's: its Input/OutputOperator rows' time; NaN unknown */
    int io_rest;                        /* io_us is the frame's rest outside the rows (a
                                           prediction), not only I/O operator rows */
    int npu_mhz;                        /* NPU clock the model assumes, -1 unknown chip */
    int n_cores;                        /* the chip's NPU cores, -1 unknown */
    int load_pct[3], n_load;            /* NPU load per core over the run, n_load 0: none */
    int n_fallback;                     /* CPU-fallback layers (rows with target CPU) */
    int n_fallback_ops;                 /* without layer rows: op types of the ranking table
                                           with CPU time (ops), their time in fallback_us */
    summary_ops ops;                    /* an imported ranking table (its total and CPU time
                                           are the run's when it has no layer rows); n 0 none */
    int *fallback;                      /* their layer rows, in order */
    double fallback_us, fallback_pct;   /* their predicted time and share of the frame */
    int top[SUMMARY_TOP], n_top;        /* rows by predicted time, largest first: read them
                                           with summary_top_row */
    store_layer *npu_layers;            /* a prediction's own level-4 rows (npu_rows:
                                           Input/OutputOperator, exDataConvert, ...) as rows
                                           of the ranking; owned */
    int n_npu_layers;
    int top_by_table;                   /* 1: ranked by table time_us (no frame_us: a v1 run,
                                           a board's or an imported log's measured table) */
    int top_prov;                       /* enum provenance of the layers' times */
    double sram_saved_kb;               /* DDR traffic SRAM saved per frame, NaN none (or a
                                           chip without SRAM) */
    double nbuf_saved_kb;               /* the same through the nbuf of rk3576/rk3562, NaN none */
    int64_t weight_bytes, internal_bytes; /* RKNN_QUERY_MEM_SIZE; -1 unknown */
    /* host: this PC */
    double host_median_us, host_p90_us, host_min_us, host_stddev_us;
    int64_t iterations, warmup, threads;  /* -1 unknown */
    const char *dump_dir;               /* borrowed (v1: from extra_json, owned here) */
    /* accuracy (quantized runs) */
    double cos_threshold;
    summary_output *outputs;
    int n_outputs;
    int worst_output;                   /* outputs[] index, -1 none */
    double out_cos, out_sqnr_db;        /* that output's; NaN when collapsed/unknown */
    int first_below;                    /* acc row: first entire cos < threshold or collapsed, -1 */
    int worst_single;                   /* acc row with the lowest single cos, -1 */
    int n_collapsed;                    /* outputs in a collapsed state */
    /* the quantization itself (extra JSON "quant": not in the rows), -1 unknown */
    int64_t calib_samples, int8_layers, fp16_layers, cfg_params;
    summary_eval eval;                  /* the stored evaluation (extra JSON "eval") */
    summary_log log;                    /* an imported log's own facts */
    /* an emulated vendor .rknn (extra JSON "emulation"): the NPU tasks computed and
     * those of nodes computed from their meaning in float64 instead; -1 absent */
    int emu_tasks, emu_float64;
    char *owned;                        /* internal */
} run_summary;

/* Computes the summary (cos_threshold: for first_below, e.g. 0.99). Never
 * fails; free with summary_free. Any row array may be empty; npu: the run's
 * npu_rows (store_get_npu_rows), ranked beside its layers. */
void summary_compute(const store_run *run, const store_layer *layers, int n_layers,
                     const store_npu_row *npu, int n_npu, const store_output *outs, int n_outs,
                     const store_accuracy *acc, int n_acc, double cos_threshold, run_summary *s);
void summary_free(run_summary *s);
/* The layer rows and npu_layers in the level-4 table's order (an npu row
 * before the first layer row of a higher table ID): a frame's timeline.
 * Returns *n pointers (free the array, not the rows). */
const store_layer **summary_timeline(const run_summary *s, int *n);
/* 1: layer row l (NULL: 0) is a CPU fallback as the summary counts them: on
 * the CPU, not an Input/OutputOperator (which the vendor's runtime runs on the
 * CPU by design) */
int summary_is_fallback(const run_summary *s, const store_layer *l);
/* The k-th slowest row (k < n_top): a layer row or one of npu_layers; its
 * FullName as the level-4 table prints it. */
const store_layer *summary_top_row(const run_summary *s, int k);
const char *summary_top_fullname(const run_summary *s, int k, char *buf, size_t len);
/* 1: the layers' times were measured on a board (top_by_table, PROV_BOARD). */
int summary_layers_measured(const run_summary *s);
/* The reports' labels, in the provenance's words: "predicted frame" (or
 * "frame" for a measured table), what a missing frame says, the timed runs'
 * row ("host (this PC, not the board)", "rknn_run (measured on the board)",
 * ...), the slowest layers' heading. */
const char *summary_frame_label(const run_summary *s);
/* ", the sum of the rows the log kept: ..." after the table total's words (table_is_sum), or "" */
const char *summary_table_note(const run_summary *s);
/* What io_us holds, in every surface's words: "I/O operators", or for a
 * prediction the rest of its frame outside the rows (I/O operators, data
 * conversions, layers a rewrite adds: split convs, pool chains) */
const char *summary_io_label(const run_summary *s);
const char *summary_uncounted_note(const run_summary *s, char *buf, size_t n);
const char *summary_frame_missing(const run_summary *s);
const char *summary_timing_label(const run_summary *s);
const char *summary_top_title(const run_summary *s, char *buf, size_t len);
/* Why a run has no timed runs, NULL when it has them (or is a sim run): "none:
 * the log printed no timed runs ...", "not executed: a vendor .rknn ...", with
 * *what the row's name ("timing", "host"): show's line and the reports' row. */
const char *summary_timing_missing(const run_summary *s, const char **what, char *buf, size_t len);
/* "2 layers, 3.1 % of the frame (0.120 ms, predicted by the NPU model)" ("of
 * the level-4 table total" for a table's times): the CPU-fallback headline of
 * every surface, its cost in its provenance's words (missing: what a surface
 * prints for an unknown figure, "n/a" or "—"). */
const char *summary_fallback_head(const run_summary *s, const char *missing, char *buf, size_t len);
/* The time of a layer row the summary ranks: its table time or its frame share. */
double summary_layer_us(const run_summary *s, const store_layer *l);
/* "output 'scores' is constant (collapsed)"-style text of an output state,
 * NULL for SUM_OUT_OK / SUM_OUT_UNKNOWN. */
const char *summary_output_problem(const summary_output *o, char *buf, size_t len);
/* v printed with fmt, or "n/a" when it is NaN (missing). */
const char *summary_fmt(char *buf, size_t len, double v, const char *fmt);
/* "SRAM saves 12.0 KB of DDR traffic per frame", "nbuf saves ...", or "no SRAM or
 * nbuf on rk3566": the on-chip buffer the run's chip has, for every surface. */
const char *summary_onchip(const run_summary *s, char *buf, size_t len);
/* The text `run` and `show` print, NPU first. color: ANSI colours. */
void summary_print(const run_summary *s, FILE *f, int color);
/* "# quantization: i8 (asymmetric_quantized-8), algo ..., N calibration samples, ..."
 * then the Toolkit2-style per-layer error table; nothing without accuracy rows. */
void summary_print_accuracy(const run_summary *s, FILE *f, int color);
/* The evaluation's lines of that text ("eval      5 samples of FILE; worst
 * sample 3 (FILE): lowest output cos ..."), nothing without one: also what
 * `analyze RUN --eval` prints of the run it stored. */
void summary_print_eval(const run_summary *s, FILE *f);
/* That line's text, unescaped: "5 samples of FILE; worst sample 3 (FILE):
 * lowest output cos 0.99812" (the reports' sentence too). */
const char *summary_eval_head(const run_summary *s, char *buf, size_t len);
/* A cos or SQNR as text and JSON show it: "inf" for +inf, NaN as missing. */
const char *summary_fmt_inf(char *buf, size_t len, double v, const char *fmt);
/* The run document of docs/json.md (`run --json`, `show --json`, report -f json). */
void summary_json_doc(const run_summary *s, const store_output *outs, int n_outs,
                      struct json_writer *w);
/* ---- Predicted vs measured (analyze/compare_perf.c) ----
 * A board run (a board's or an imported per-layer table: backend "board") and
 * a predicted run of the same model (backend "sim": `run`; "predict": a vendor
 * .rknn's predicted profile), NPU layer by NPU layer. A layer is a row with figures
 * (cycles or time); a predicted run's layer is named by the first node it
 * covers ("<op>:<node>", the vendor's FullName), a board row by its FullName.
 * Layers are aligned by FullName; the layers left are paired by OpType and
 * first output shape in execution order (exported names that differ), and the
 * rest are listed as one side's only. Errors are the model's against the board:
 * (model - board) / board in percent, NaN when the board's figure is missing
 * or 0. */
enum { PERFCMP_TIME, PERFCMP_NPU, PERFCMP_DDR, PERFCMP_NFIG };
#define PERFCMP_TOP 10

typedef struct perfcmp_row {
    const char *fullname;        /* the board's (else the model's); borrowed, may be NULL */
    const char *op;              /* vendor OpType (board's, else the model's) */
    int layer[2];                /* [0] board, [1] model: index into that side's layer rows, -1 none */
    int64_t idx[2];              /* those rows' store_layer.idx */
    int by_shape;                /* paired by OpType and shape, the names differ */
    double fig[2][PERFCMP_NFIG]; /* time us, NPU cycles, DDR cycles; NaN missing */
    const char *bound[2];        /* "compute", "DDR", "CPU"; NULL missing */
    double err_pct[PERFCMP_NFIG];
    double err_us;               /* model time - board time */
} perfcmp_row;

typedef struct perfcmp_result {
    const store_run *run[2];     /* [0] board, [1] model (borrowed) */
    perfcmp_row *rows;           /* board layers in order, model-only layers after them */
    int n_rows;
    int n_board, n_model;        /* each side's layers */
    int n_by_name, n_by_shape;   /* pairs */
    int n_board_only, n_model_only;
    double median_abs_pct[PERFCMP_NFIG]; /* over paired layers with both figures, NaN none */
    int worst[PERFCMP_NFIG];     /* row with the largest |err_pct|, -1 none */
    int n_err[PERFCMP_NFIG];     /* paired layers with an error */
    double sum[2][PERFCMP_NFIG]; /* over paired layers with an error (both figures, the
                                    board's non-zero: a board prints 0 for what it does
                                    not count, e.g. a non-conv layer's DDR cycles) */
    double total_err_pct[PERFCMP_NFIG];  /* of those sums */
    int has_factor[PERFCMP_NFIG];        /* the model is off by a near-constant factor
                                            (cmp_factor, analyze/compare_doc.h) */
    double factor[PERFCMP_NFIG], factor_share[PERFCMP_NFIG]; /* model/board, share within 5 % */
    char factor_hint[PERFCMP_NFIG][256]; /* what it points at (clock, core count) */
    int bound_known, bound_agree;/* paired layers with both bounds / the same bound */
    int top[PERFCMP_TOP], n_top; /* rows the model gets most wrong: largest |err_us| */
} perfcmp_result;

/* 1 when the run's rows are a board's measurement (backend "board"), 0 a
 * prediction (backend "sim" or "predict"), -1 neither. */
int perfcmp_side(const store_run *run);
/* Aligns board against model (either may come first on the command line:
 * the caller orders them with perfcmp_side). RT_EINVAL when a side has no
 * layer with figures. Free with perfcmp_free. */
int perfcmp_compute(const store_run *board, const store_layer *bl, int nb,
                    const store_run *model, const store_layer *ml, int nm, perfcmp_result *out,
                    char *err, size_t errlen);
void perfcmp_free(perfcmp_result *r);
/* The table and summary `compare BOARD SIM` prints / its docs/json.md
 * document ("kind": "compare_perf"). */
void perfcmp_print(const perfcmp_result *r, FILE *f);
void perfcmp_json(const perfcmp_result *r, struct json_writer *w);


#endif