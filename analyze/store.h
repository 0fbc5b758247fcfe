/* analyze/store.h — the run store (SQLite): the one door through which the CLI,
 * the tracer, the reports and the TUI read and write runs.
 *
 * The store is the one place that knows SQL. A database is ours when its
 * PRAGMA application_id is STORE_APPLICATION_ID (tables, views or indexes a user
 * adds to it do not change that); PRAGMA user_version is its schema version,
 * upgraded in place by ordered migration steps when an older file is opened (a
 * reader that may not write the file upgrades a private copy, see below; the
 * schema is described in docs/store.md). A database from a newer rknn-trace, a non-empty SQLite file of some
 * other application and a file that is not SQLite at all are refused with a
 * one-line error (RT_EFORMAT, or RT_EUNSUPPORTED for a newer schema).
 *
 * Writing a run: store_run_begin opens ONE transaction; store_layer_add and
 * store_output_add add rows to it; store_run_commit makes the run visible,
 * store_run_abort (or store_close, or a crash) leaves nothing of it.
 *
 * Reading after a crash: a writer killed inside its transaction leaves a hot
 * journal (PATH-journal) that must be rolled back before the file can be read.
 * store_open_readonly never creates a file or writes data, but when this
 * process may write the file and its folder it opens the file read-write so
 * that SQLite rolls the journal back at the first read, as the next writer
 * would (the handle still refuses every write). When it may not (read-only
 * mount, another user's database), it reads a private copy of database and
 * journal, rolled back in a fresh folder under $TMPDIR (else /tmp) that
 * store_close removes; the original stays as it is. If no copy can be made the
 * error names the journal and asks to open the database once with write access.
 * Either way a reader sees exactly the committed runs.
 *
 * Unknown runs: store_get_run returns RT_ENOTFOUND ("no run 'X'"), naming a
 * stored label that is close ("did you mean 'baseline'?").
 *
 * Missing is not zero: numeric fields equal to STORE_NULL_INT (integers) or NaN
 * (reals) and NULL strings are stored as SQL NULL and read back the same way. Use
 * store_run_init / store_layer_init to start from an all-missing row.
 *
 * A handle is used by one thread at a time (SQLite's own per-call locking is
 * off); threads that record at once open a handle each.
 *
 * Strings in rows passed to the store are borrowed (copied by SQLite); rows
 * returned by the store own their strings (free with the matching *_free). */
#ifndef RT_ANALYZE_STORE_H
#define RT_ANALYZE_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define STORE_APPLICATION_ID 0x524b5452 /* "RKTR" */
#define STORE_SCHEMA_VERSION 6
#define STORE_NULL_INT INT64_MIN
#define STORE_MAX_CORES 8   /* NPU cores a run's load is kept for */
#define STORE_NPU_ROW_CORES 3 /* NPU cores a layer's per-core figures are kept for */

typedef struct store store;

typedef struct store_run {
    int64_t id;                /* set by the store */
    const char *label;         /* unique, not all digits; NULL: none */
    const char *time;          /* ISO 8601 UTC; NULL on write: now */
    const char *model_path;
    const char *model_sha256;
    const char *model_format;  /* "onnx", "rknn-sim", "rknn", ... */
    const char *platform;      /* "rk3588", ... */
    const char *backend;       /* "sim", "board", "predict", "toolkit" (or NULL): store_backend_of */
    const char *quant;         /* "fp32", "fp16", "i8", ... */
    const char *quant_algo;    /* "normal", "kl_divergence", "mmse" */
    const char *quant_method;  /* "channel", "layer" */
    int64_t threads, iterations, seed;
    const char *inputs_json;   /* JSON text describing the inputs used */
    double total_us;           /* set by store_run_commit (and by store_run_begin: a run
                                  whose total_us and n_layers are given there and hold
                                  at the commit needs no closing update) */
    const char *status;        /* NULL on write: "ok" */
    const char *tool_version;
    const char *extra_json;    /* what a source found that no column holds, as a JSON
                                  object (an imported log's tables, attach's call journal:
                                  docs/store.md); NULL when there is nothing */
    int64_t n_layers;          /* number of layer rows, counted by the store */
    /* Schema v2 */
    double npu_us;             /* predicted frame time of a plain rknn_run (NPU model) */
    double host_min_us, host_p90_us, host_stddev_us; /* this PC's frame times over the
                                  timed iterations (total_us is their median) */
    int64_t warmup;            /* untimed iterations before them */
    const char *dump_dir;      /* absolute --dump folder, or NULL */
    const char *dump_sha256;   /* hash over the dump folder's files (dump/dump.h) */
    int64_t weight_bytes, internal_bytes; /* what RKNN_QUERY_MEM_SIZE answers */
    const char *env_json;      /* the environment as a JSON object (docs/store.md) */
    /* Schema v3 */
    const char *tags;          /* read only: the run's tags, sorted, comma-separated;
                                  NULL: none (store_tag_add) */
    /* Schema v5: the facts older schemas kept in extra_json and env_json, typed
     * (docs/store.md). Missing: NaN / STORE_NULL_INT / NULL / n_load 0. */
    double perf_table_us;      /* the level-4 table's Total line (sum of whole µs) */
    int64_t npu_clock_mhz, ddr_clock_mhz; /* the clocks a prediction used */
    int64_t npu_table_layers;  /* rows of the level-4 table `run --npu-table` printed; set
                                  when the rows no layer row gives back are stored (npu_rows) */
    int64_t calib_samples, int8_layers, fp16_layers, cfg_params; /* a quantized run's */
    const char *import_kind;   /* made by `import`: "board log", "accuracy_analysis simulator" */
    double log_total_us;       /* an imported log's total operator time (perf table) */
    int64_t perf_run_us;       /* RKNN_QUERY_PERF_RUN on a board (run --backend board, attach) */
    double share_pct[3];       /* schema-1 runs only: compute, DDR, CPU share of the frame */
    int64_t cost_model_version; /* NPU_COST_MODEL_VERSION the prediction was made with */
    const char *cost_model_fingerprint;
    int n_load;                /* NPU load per core over the run (table npu_load) */
    int load_pct[STORE_MAX_CORES]; /* 0..100 */
} store_run;

/* store_run.backend, what made the run, as an enum: the strings live only in
 * analyze/store_backend.c. BACKEND_NONE for NULL, BACKEND_UNKNOWN for another. */
enum store_backend {
    BACKEND_NONE = 0, BACKEND_SIM, BACKEND_BOARD, BACKEND_PREDICT, BACKEND_TOOLKIT,
    BACKEND_SIMLIB, BACKEND_EMULATE, BACKEND_UNKNOWN
};
int store_backend_of(const char *backend);
const char *store_backend_name(int backend); /* "sim", ...; NULL for none/unknown */

typedef struct store_layer {
    int64_t idx;               /* execution order, unique within a run */
    const char *node, *op;
    const char *name;          /* source model's tensor name of the (first) output */
    const char *in_shapes;     /* JSON list of shapes, e.g. "[[1,3,224,224],[64,3,7,7]]" */
    const char *out_shapes;
    const char *dtype;         /* numpy name of the output dtype */
    double host_us;            /* CPU time of the simulator/runtime */
    /* From the NPU model or the board; missing = NULL. */
    int64_t npu_cycles, ddr_cycles, total_cycles;
    double time_us;
    double mac_usage;          /* percent */
    const char *target;        /* "NPU" or "CPU" */
    const char *cpu_reason;    /* why a layer falls back to the CPU */
    double sram_hit;           /* bytes of the layer output placed in on-chip SRAM */
    double rw_kb;
    const char *bound;         /* "compute", "DDR" or "CPU" */
    const char *workload;      /* per-core split as the vendor prints it */
    int n_workload;            /* v5: that split as numbers, % per core (workload_pct);
                                  0 on write: the store reads them from workload */
    double workload_pct[STORE_NPU_ROW_CORES];
    int64_t tasks;             /* NPU task count */
    const char *npu_op;        /* vendor OpType of the NPU layer this node belongs to
                                  (ConvRelu, ConvExSwish, ...); its figures are on the
                                  node that produces that layer's output */
    double frame_us;           /* v2: the layer's share of a plain run's predicted frame
                                  (time_us is the perf_debug table's time) */
    const char *npu_dtype;     /* v2: the dtype the layer computes in: "INT8", "FP16", ... */
    /* v3: the (first) output tensor's quantization as the runtime holds it, and
     * statistics over the values of that output in the run (the float output of
     * the quantized run, dequantized); missing = NAN / STORE_NULL_INT / NULL. */
    double out_scale;
    int64_t out_zp;
    const char *out_qtype;     /* "asymmetric_quantized-8", "float16", ... */
    double out_min, out_max, out_mean, out_std;  /* std: population (divides by n) */
    /* Not stored: the ID this row's layer has in the level-4 table the run prints
     * (`run --npu-table`, `show --npu-table`), or in the table a log printed; the
     * ID every surface lists the layer under. Set by store_get_layers and the
     * sources (store_layers_number); STORE_NULL_INT on a row without figures of
     * our model's. */
    int64_t table_id;
} store_layer;

/* 1 when row l carries an NPU layer's figures (cycles or a frame share): a layer
 * fused from several nodes has them on its last node's row only. */
int store_layer_has_figures(const store_layer *l);
/* 1 when row l has cycles (total, NPU or DDR) or a time of its own: a layer of a
 * table, even of one that prints no total cycles. */
int store_layer_has_cycles_or_time(const store_layer *l);
/* The vendor's FullName of the layer whose figures are on row i: "<op>:<node>" of
 * the first node it covers (a fused Conv+Relu is named by its Conv), i.e. the row
 * after the previous row with figures or with no OpType (a node no layer covers),
 * past the Transposes, Reshapes, Flattens and scales it
 * took in as operands (an attention's head split: named by its Q K^T MatMul); a
 * vendor .rknn's rows already hold it. "" for a log's row that printed none
 * (JSON null). */
const char *store_layer_fullname(const store_layer *rows, int i, char *buf, size_t len);

typedef struct store_output {
    int64_t idx;               /* graph output index */
    const char *name;
    const char *shape;         /* JSON list, e.g. "[1,1000]" */
    const char *dtype;         /* numpy name */
    const char *dump_file;     /* .npy path, or NULL */
} store_output;

/* --db value, else $RKNN_TRACE_DB (if non-empty), else "./rknn-trace.db". */
const char *store_default_path(const char *cli_db);

/* Opens (creating file and schema if new, migrating if older). */
int store_open(const char *path, store **out, char *err, size_t errlen);
/* Opens an existing database for reading only: never creates or migrates. */
int store_open_readonly(const char *path, store **out, char *err, size_t errlen);
/* Opens an existing database to change its runs (rm, tag, label): migrating as
 * store_open does, but a missing file is an error, not a new database. */
int store_open_existing(const char *path, store **out, char *err, size_t errlen);
/* Before a long computation whose run will be recorded: opens (creating and
 * migrating as store_open does), checks that a write transaction can start and
 * change the file (lock, journal), and that label (NULL: none) is valid and free;
 * closes. RT_EEXIST names the run that has the label. */
int store_preflight(const char *path, const char *label, char *err, size_t errlen);
/* Rolls back a run still open. NULL is fine. */
void store_close(store *st);

void store_run_init(store_run *r);
void store_layer_init(store_layer *l);
void store_output_init(store_output *o);

/* Writing one run (see above). Only one run may be open per store handle. */
int store_run_begin(store *st, const store_run *info, int64_t *run_id, char *err,
                    size_t errlen);
int store_layer_add(store *st, int64_t run_id, const store_layer *row, char *err,
                    size_t errlen);
int store_output_add(store *st, int64_t run_id, const store_output *row, char *err,
                     size_t errlen);
int store_run_commit(store *st, int64_t run_id, double total_us, char *err, size_t errlen);
void store_run_abort(store *st, int64_t run_id);
/* Several runs as ONE transaction (an import): between store_batch_begin and
 * store_batch_commit each run's begin/commit/abort is a savepoint inside it, so
 * an aborted run leaves nothing and the others stay; nothing is visible or
 * durable before store_batch_commit, and store_batch_abort, store_close or a
 * crash leave none of the batch's runs. One sync for the whole batch. */
int store_batch_begin(store *st, char *err, size_t errlen);
/* A batch that only adds runs (an import): the same, without SQLite's check
 * of every row's run reference (each row goes to the run the batch has open)
 * and without a savepoint per run (an aborted run's rows are deleted; its id
 * is not given again); store_delete_run inside it is refused. */
int store_batch_begin_adding(store *st, char *err, size_t errlen);
int store_batch_commit(store *st, char *err, size_t errlen);
void store_batch_abort(store *st);

/* Removes a committed run with its layers and outputs. */
int store_delete_run(store *st, int64_t run_id, char *err, size_t errlen);

/* Reading. Returned rows own their strings. */
int store_list_runs(store *st, store_run **runs, int *n, char *err, size_t errlen);
/* The same list for a listing: inputs_json NULL, env_json only for an imported
 * run (the log's file: summary_log_file), extra_json only where npu_us is NULL
 * (a v1 run's predicted time is in it). */
int store_list_runs_brief(store *st, store_run **runs, int *n, char *err, size_t errlen);
void store_runs_free(store_run *runs, int n);
/* ref: a run id or a unique label. Unknown -> RT_EINVAL "no run 'x'". */
int store_get_run(store *st, const char *ref, store_run *out, char *err, size_t errlen);
void store_run_clear(store_run *r);
int store_get_layers(store *st, int64_t run_id, store_layer **rows, int *n, char *err,
                     size_t errlen);
void store_layers_free(store_layer *rows, int n);
int store_get_outputs(store *st, int64_t run_id, store_output **rows, int *n, char *err,
                      size_t errlen);
void store_outputs_free(store_output *rows, int n);

/* ---- Managing runs (schema v3) ----
 * Tags are short words (letters, digits, . _ - + : / @ =); adding a tag a run
 * has, or removing one it lacks, is not an error. store_set_label gives a run a
 * new unique label (NULL: none); RT_EEXIST names the run that has it. Unknown
 * run ids are RT_ENOTFOUND. Each is one statement, outside any open run. */
int store_tag_add(store *st, int64_t run_id, const char *tag, char *err, size_t errlen);
int store_tag_remove(store *st, int64_t run_id, const char *tag, char *err, size_t errlen);
int store_set_label(store *st, int64_t run_id, const char *label, char *err, size_t errlen);
/* Sets the run's extra_json key "eval" (`analyze RUN --eval`: the error over
 * every sample of an evaluation list, docs/store.md) to the JSON object json,
 * replacing an earlier one; the other keys are kept. One statement. */
int store_run_set_eval(store *st, int64_t run_id, const char *json, char *err, size_t errlen);

/* NPU load sampled while a run ran (a board's debugfs `load`, the simulator's
 * published load file): one row per core and moment, in the order added,
 * written inside the run's transaction. Missing values are NaN / STORE_NULL_INT. */
typedef struct store_load_sample {
    double t_us;               /* since the run started, µs */
    int64_t core;              /* NPU core index */
    double load_pct;           /* percent busy */
} store_load_sample;

int store_load_add(store *st, int64_t run_id, const store_load_sample *s, char *err,
                   size_t errlen);
/* A run that has no samples but an NPU load per core (a prediction: its
 * load is computed, not sampled) reads that load as one sample per core at
 * t_us 0: the load is stored once, in the run (store_run.load_pct). */
int store_get_load(store *st, int64_t run_id, store_load_sample **rows, int *n, char *err,
                   size_t errlen);   /* free(*rows) */

/* ---- The level-4 rows no layer row gives back (table npu_rows, schema 5) ----
 * Input/OutputOperator, exDataConvert, the layers of a node lowered to several,
 * a fused layer whose shapes or name differ from its nodes': each kept whole,
 * written by record/rows_npu.c inside the run's transaction, read back by it
 * (the rebuilt table) and by compare's document (analyze/compare_doc.c).
 * Missing values are NaN / STORE_NULL_INT / NULL. */
typedef struct store_npu_row {
    int64_t at;                /* its position in the table (0-based) */
    int skip;                  /* 1: it stands for the next layer row with figures */
    int64_t id;                /* the table's ID */
    const char *op, *datatype; /* OpType, DataType as printed */
    int64_t dtype;             /* the NPU model's dtype (runtime/npu/npu.h enum) */
    const char *target;        /* "NPU" or "CPU" */
    int64_t n_in, n_out;       /* inputs and outputs the layer has */
    const char *in_shapes, *out_shapes; /* JSON lists of the first 8 shapes */
    int64_t ddr_cycles, npu_cycles, total_cycles;
    double time_us, rw_kb;
    double frame_us;           /* its share of the predicted frame (schema 6), NaN unknown */
    int macs;                  /* 1: the MacUsage column has figures */
    int n_cores;               /* per-core figures below (<= STORE_NPU_ROW_CORES) */
    double mac_usage[STORE_NPU_ROW_CORES], workload[STORE_NPU_ROW_CORES]; /* % per core */
    int64_t tasks;
    const char *fullname, *note;
} store_npu_row;

void store_npu_row_init(store_npu_row *r);
int store_npu_row_add(store *st, int64_t run_id, const store_npu_row *row, char *err,
                      size_t errlen);
int store_get_npu_rows(store *st, int64_t run_id, store_npu_row **rows, int *n, char *err,
                       size_t errlen);
void store_npu_rows_free(store_npu_row *rows, int n);
/* Sets each row's table_id as the level-4 table is rebuilt from them
 * (record/rows_npu.h): the rows with cycles, in order, take the positions the
 * run's npu_rows (extra, by at) leave free; a row an npu_row stands for
 * (skip) takes that row's ID; a row past the table's n_table rows (its layer
 * ran out of its rows' order, so the table kept it whole) takes the ID of the
 * kept row of its FullName. own: the rows are a printed table's own (a
 * board's, an imported log's: every backend but sim, predict and emulate,
 * whose rows our NPU model made), whose idx is its ID. */
void store_layers_number(store_layer *rows, int n, const store_npu_row *extra, int n_extra,
                         int64_t n_table, int own);

/* The per-core shares of a WorkLoad text ("30%/30%/40%", "100.0%/0.0%/0.0%"):
 * the numbers in order, at most max; 0 when the text holds none or is not one. */
int store_workload_parse(const char *text, double *pct, int max);

/* Helpers for callers building rows: "[1,3,224,224]" ("[]" for a scalar). */
const char *store_format_shape(char *buf, size_t len, int ndim, const int64_t *dims);

/* ---- Stored error metrics (computed by analyze/metrics.c, see analyze.h) ----
 *
 * One tensor x compared with its reference ref (the golden), both as n floats,
 * accumulated in double:
 *   cos      = <ref,x> / (|ref| |x|)                      (Toolkit2's "cos")
 *   euc      = |ref - x|                                   (Toolkit2's "euc")
 *   max_abs  = max |ref - x|,   mean_abs = mean |ref - x|
 *   sqnr_db  = 10 log10(|ref|^2 / |ref - x|^2)   (+inf when x == ref)
 * Toolkit2 prints 'nan' for tensors that are "all zeros or all equal": cos and
 * sqnr_db are NaN when ref or x is constant (all-zero included), since a
 * direction or a signal power is then meaningless; every metric is NaN when a
 * value is not finite. euc/max_abs/mean_abs stay defined for constant tensors.
 * flags tells why (METRIC_*). */
enum { METRIC_REF_CONST = 1, METRIC_X_CONST = 2, METRIC_NONFINITE = 4, METRIC_EMPTY = 8 };

typedef struct metrics {
    double cos, euc, max_abs, mean_abs, sqnr_db;
    int64_t n;
    int flags;
    int64_t ref_nonfinite, x_nonfinite; /* NaN/inf values of each side (METRIC_NONFINITE) */
} metrics_t;

/* ---- Stored per-layer error of a quantized run (table "accuracy", store_accuracy.c) ----
 * One row per compared tensor, in the order of the analysis; written inside the
 * run's transaction (store_run_begin .. store_run_commit). Metrics that are NaN
 * are stored as NULL and read back as NaN (with their METRIC_* flags); an SQNR of
 * +inf (identical tensors) stays +inf. Read rows have metrics_t.n = -1. */
typedef struct store_accuracy {
    int64_t idx;               /* row order within the run */
    int64_t layer;             /* executed-layer index, -1: graph input */
    const char *name;          /* source model's tensor name (required) */
    const char *op, *node;
    int fused;                 /* fused into the next activation, not quantized */
    int is_output;             /* a graph output */
    metrics_t entire, single;
    /* STORE_ACC_QUANT (NULL when adding): the quantized run against its fp32
     * golden; "golden:DIR": `analyze RUN --golden DIR` (entire only). */
    const char *source;
} store_accuracy;

#define STORE_ACC_QUANT "quant"

void store_accuracy_init(store_accuracy *a);
int store_accuracy_add(store *st, int64_t run_id, const store_accuracy *row, char *err,
                       size_t errlen);
int store_get_accuracy(store *st, int64_t run_id, store_accuracy **rows, int *n, char *err,
                       size_t errlen);
void store_accuracy_free(store_accuracy *rows, int n);
/* Replaces the external-golden rows of committed run run_id by rows (their
 * source set to `source`, which must not be STORE_ACC_QUANT) in one
 * transaction. store_get_accuracy returns those rows when a run has them, else
 * its STORE_ACC_QUANT rows. */
int store_accuracy_replace_golden(store *st, int64_t run_id, const char *source,
                                  const store_accuracy *rows, int n, char *err, size_t errlen);

/* Listing many runs (ls) without a query per run: for every run that has
 * outputs or error rows, in run id order, its outputs and the error rows of its
 * graph outputs (is_output; of the source store_get_accuracy picks), and
 * whether it has error rows at all. Row strings are owned (free with
 * store_run_outputs_free). */
typedef struct store_run_outputs {
    int64_t run_id;
    store_output *outs;
    int n_outs;
    store_accuracy *acc;       /* graph-output rows only, with idx, name, source and
                                  the entire cos, sqnr_db, max_abs and flags (the
                                  rest missing) */
    int n_acc;
    int has_acc_rows;          /* store_get_accuracy would return rows */
} store_run_outputs;

int store_list_run_outputs(store *st, store_run_outputs **rows, int *n, char *err,
                           size_t errlen);
void store_run_outputs_free(store_run_outputs *rows, int n);

/* ---- Moving runs between databases (store_export.c, docs/store.md "Export") ----
 * A run's content is everything it holds but its id, label and tags: the run's
 * columns, layers, outputs, error rows of every source, load samples.
 * store_run_content_hash is the SHA-256 of that content as compact JSON with
 * sorted keys; two databases holding the same run give the same hash. */
#define STORE_EXPORT_FORMAT "rknn-trace-export"
#define STORE_EXPORT_VERSION 3

int store_run_content_hash(store *st, int64_t run_id, char hex[65], char *err, size_t errlen);
/* Writes runs ids[0..n) as one JSON document: {"format", "version",
 * "store_schema", "runs": [one object per line]}; every field is there, null
 * when missing (an infinite real is "inf" / "-inf"). */
int store_export(store *st, const int64_t *ids, int n, FILE *out, char *err, size_t errlen);
/* Whether the first bytes of a file look like such an export. */
int store_is_export(const void *head, size_t len);

typedef struct store_import_stats {
    int added, skipped, relabelled; /* skipped: same content already here */
    int64_t first_id, last_id;      /* ids of the runs added (0: none) */
} store_import_stats;
/* One line per run that was not added as it came (a duplicate, a new label). */
typedef void (*store_note_fn)(void *ctx, const char *line);

/* Adds the runs of an export file (store_import_export) or of another database
 * (store_merge) in ONE transaction, in their order, each with a new id. A run
 * whose content is here already is skipped; a label another run has here
 * becomes LABEL-2 (LABEL-3, ...: the first free one). A file that is not an
 * export (RT_EFORMAT), of a newer format (RT_EUNSUPPORTED), truncated or with a
 * bad field, or a database that is not ours or newer, leaves this database
 * unchanged, and so does any failure while writing. */
int store_import_export(store *st, const char *path, store_note_fn note, void *ctx,
                        store_import_stats *stats, char *err, size_t errlen);
int store_merge(store *st, const char *other_path, store_note_fn note, void *ctx,
                store_import_stats *stats, char *err, size_t errlen);

/* The NPU cost model version a run's prediction was made with, or -1 when
 * the run does not say. */
int store_run_cost_model(const store_run *r);
/* The commit of the rknn-trace build that made the run (env_json "build",
 * "<hash>[-dirty]") into buf; "" when the run does not say. */
const char *store_run_build(const store_run *r, char *buf, size_t len);

#endif
