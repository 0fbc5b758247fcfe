/* analyze/compare_doc.h — the one comparison document of N stored runs that
 * `compare`, every `report` format and the TUI compare view render.
 *
 * Contract:
 *  - A run is loaded once, by cmp_run_load: its rows (layers, outputs,
 *    accuracy, NPU load) and its summary (summary_compute). Every surface that
 *    shows a stored run with its summary uses this loader.
 *  - Alignment (cmp_doc_build), one rule for every surface: a row is a tensor
 *    name; each run contributes its distinct names in execution order (graph
 *    inputs first), a run's layer row and accuracy row of the same name share
 *    the row (the first layer row of a name wins). The document lists the
 *    union: the baseline's names in its order, then the names only run 1 has
 *    (in run 1's order), then those only run 2 has, and so on. A row records
 *    which runs have it (cmp_row.runs, bit k = run k). Fallback: a layer row
 *    with no tensor name (a board table row without an output name) is named
 *    "<op>#<n>", the n-th unnamed row of that op type in its run, so unnamed
 *    rows of the same op pair in order across runs and are never dropped.
 *  - Speed (cmp_doc_build): each run against the baseline compares figures of
 *    the same kind, and says which (enum cmp_speed_kind):
 *      --by host:                  host medians (this PC);
 *      board run vs board run:     the boards' level-4 table totals (as
 *                                  `show` prints them);
 *      board run vs prediction:    the board's level-4 table total vs the
 *                                  prediction's level-4 (perf_debug) table
 *                                  total — never the plain-run frame;
 *      prediction vs prediction:   the predicted plain-run NPU frames.
 *    A figure that side lacks is NaN and the verdict says so.
 *  - Gates (cmp_gates_eval): --fail-if-cos-below on each run's worst graph
 *    output (vs its fp32 golden, else vs the baseline's dumped output; a
 *    collapsed output always fails); --fail-if-slower on the speed pair above.
 *  - Factor (cmp_factor): a column that is off by a near-constant factor over
 *    paired rows is reported with the factor (and what it points at: clocks,
 *    core count) instead of as N unrelated errors. */
#ifndef RT_COMPARE_DOC_H
#define RT_COMPARE_DOC_H

#include <stddef.h>
#include <stdint.h>
#include "analyze/analyze.h"
#include "util/util.h"

#define CMP_MAX_RUNS 16

/* One run as the store gives it, and its summary. */
typedef struct cmp_run {
    store_run run;
    int have_run;
    store_layer *layers;
    int n_layers;
    store_output *outs;
    int n_outs;
    store_accuracy *acc;
    int n_acc;
    store_load_sample *load;   /* sampled NPU load, may be empty */
    int n_load;
    store_npu_row *npu;        /* level-4 rows no layer row carries (a prediction's
                                  Input/OutputOperator, exDataConvert, split layers) */
    int n_npu;
    run_summary sum;
    int have_sum;
} cmp_run;

/* Reads run ref (id or label) with its rows and computes its summary;
 * RT_ENOTFOUND names an unknown run. cmp_run_free is safe on a partly loaded
 * (or zeroed) run. */
int cmp_run_load(store *st, const char *ref, double cos_threshold, cmp_run *r, char *err,
                 size_t errlen);
/* The summary of rows the caller already set in r (tests, a run just
 * computed); the arrays are freed by cmp_run_free. */
void cmp_run_summarize(cmp_run *r, double cos_threshold);
void cmp_run_free(cmp_run *r);
/* 1: the run's rows are a board's measurement (backend "board"). */
int cmp_run_is_board(const cmp_run *r);

typedef struct cmp_row {
    const char *name, *op;          /* borrowed (name: the run's, or the doc's "<op>#<n>") */
    int layer[CMP_MAX_RUNS];        /* layer row in run k, -1 none */
    int acc[CMP_MAX_RUNS];          /* accuracy row in run k, -1 none */
    int npu[CMP_MAX_RUNS];          /* npu row in run k (no layer row then), -1 none */
    unsigned runs;                  /* bit k: run k has the row */
    int unnamed;                    /* aligned by the "<op>#<n>" fallback */
} cmp_row;

enum cmp_speed_kind {
    CMP_SPEED_NONE = 0,
    CMP_SPEED_PREDICTED_FRAME,      /* NPU model, plain-run frame (store_run.npu_us) */
    CMP_SPEED_PREDICTED_TABLE,      /* NPU model, level-4 table total (perf_table_us) */
    CMP_SPEED_BOARD_PROFILED,       /* board, its level-4 table total (perf_table_us) */
    CMP_SPEED_HOST,                 /* this PC's host median */
};

typedef struct cmp_speed {
    double base_us, us;             /* the baseline's figure and run k's, NaN unknown */
    int base_kind, kind;            /* enum cmp_speed_kind */
    double slower_pct;              /* (us / base_us - 1) * 100, NaN unknown */
} cmp_speed;

/* One graph output (the baseline's, then those only other runs have), per run. */
typedef struct cmp_out_cell {
    int out;                        /* summary output index in run k, -1 none */
    int row;                        /* store_output row in run k, -1 none */
    int vs_ok;                      /* vs-baseline metrics computed */
    metrics_t vs;                   /* run k's output against the baseline's (dumped files) */
    char problem[400];              /* named failure, "" none */
    char warn[400];                 /* why vs the baseline could not be computed, "" none */
} cmp_out_cell;

typedef struct cmp_doc {
    const cmp_run *runs;
    int n;
    int by_host;
    cmp_row *rows;
    int n_rows;
    int matched[CMP_MAX_RUNS];      /* rows run k shares with run 0 */
    int only_base[CMP_MAX_RUNS];    /* rows run 0 has and run k lacks */
    int only_run[CMP_MAX_RUNS];     /* rows run k has and run 0 lacks */
    int n_unnamed;                  /* rows aligned by the fallback */
    cmp_speed speed[CMP_MAX_RUNS];  /* [0]: the baseline against itself */
    const char **out_names;         /* graph outputs */
    int n_outs;
    cmp_out_cell *oc;               /* [output * n + run] */
    char *owned;                    /* internal */
} cmp_doc;

/* Flags of cmp_doc_build. */
enum { CMP_OUTPUT_FILES = 1 };      /* compare the runs' dumped outputs with the baseline's */

/* Builds the document of runs[0..n) (runs[0] the baseline, 1 <= n <=
 * CMP_MAX_RUNS). With n == 1 the rows are the run's own. Never fails but on
 * n out of range (RT_EINVAL). Free with cmp_doc_free. */
int cmp_doc_build(const cmp_run *runs, int n, int by_host, int flags, cmp_doc *d, char *err,
                  size_t errlen);
void cmp_doc_free(cmp_doc *d);

/* "predicted NPU frame", "predicted level-4 table total", "board level-4 table total",
 * "host median (this PC)", "none" */
const char *cmp_speed_kind_name(int kind);
/* The speed part of run k's verdict: "predicted NPU frame +3.1% (slower)";
 * figures of two kinds: "predicted level-4 table total 5.517 ms vs board level-4
 * table total 5.353 ms +3.1% (slower)"; none: "speed n/a (no predicted NPU frame
 * to compare)". */
const char *cmp_speed_text(const cmp_doc *d, int k, char *buf, size_t len);
/* The verdict line of run k (k >= 1), no newline: "verdict: B #3 uf8 vs A #2
 * uf32: predicted NPU frame +3.1% (slower), output cos 0.99912, layers 128 matched, 0 only
 * in A, 1 only in B". Every surface prints this line. */
void cmp_verdict(const cmp_doc *d, int k, char *buf, size_t len);
/* The time a comparison shows for layer row l of run r: a board run's measured
 * table time, else the predicted frame share, else the table time; NaN none.
 * Every surface (compare, reports, the JSON document) draws this figure. */
double cmp_run_layer_us(const cmp_run *r, const store_layer *l);
/* Row row's time in run k as the document compares it: with by_host this PC's
 * host time, else cmp_run_layer_us; NaN when run k lacks the row. */
double cmp_row_us(const cmp_doc *d, const cmp_row *row, int k);
/* The provenance (PROV_*) of the per-layer times cmp_row_us gives for run k:
 * this PC's (by_host), a board's table, else the layers' frame shares, else
 * the table; and every run's in words for the heading of a layer table:
 * "predicted by the NPU model" when all runs agree, else "A measured on the
 * board, B predicted by the NPU model". */
int cmp_layer_us_prov(const cmp_doc *d, int k);
const char *cmp_layer_us_words(const cmp_doc *d, char *buf, size_t len);
/* "A", "B", ... and "#3 label" */
const char *cmp_tag(int k);
const char *cmp_run_name(const cmp_run *r, char *buf, size_t len);
/* The runs that have a row ("A, C") into buf; 1 when every run has it. */
int cmp_row_runs(const cmp_doc *d, const cmp_row *row, char *buf, size_t len);

/* ---- gates ---- */
typedef struct cmp_gates {
    double fail_cos;                /* NaN: no cos gate */
    double fail_slower;             /* percent, NaN: no speed gate */
    /* results */
    double cos_value[CMP_MAX_RUNS]; /* the run's worst output cos, NaN none */
    int cos_failed[CMP_MAX_RUNS];
    int slow_failed[CMP_MAX_RUNS];
    int failed;                     /* any gate failed */
} cmp_gates;

/* Evaluates the gates set in g over d. RT_EINVAL (message in err) when a gate
 * has no data to act on: no run with errors or dumped outputs (cos), a run
 * without the speed figure (slower). */
int cmp_gates_eval(const cmp_doc *d, cmp_gates *g, char *err, size_t errlen);

/* ---- near-constant factor ----
 * Over the pairs (a[i], b[i]) with both finite and > 0: the median ratio
 * b/a and the share of pairs within tol (e.g. 0.05: 5 %) of it. 1 when the
 * column is off by a factor: at least 4 pairs, >= 80 % of them within tol,
 * and the factor off 1 by more than tol. */
int cmp_factor(const double *a, const double *b, int n, double tol, double *factor,
               double *within_share);
/* What a factor on a column points at, given the two runs' clocks and core
 * counts (-1 unknown): "DDR clock (factor 0.51 ~ 1066/2112 MHz)" style; a
 * generic hint when no clock or core ratio explains it. column: "DDR cycles",
 * "NPU cycles", "time". */
const char *cmp_factor_hint(const char *column, double factor, int npu_mhz[2], int ddr_mhz[2],
                            int cores[2], char *buf, size_t len);

/* ---- the compiled graphs of A and B ----
 * Built (1) when force is set or when A or B is a vendor .rknn's predicted run
 * (backend "predict"); 0 leaves g zeroed. Free with compare_graph_free. */
int cmp_doc_graph(const cmp_doc *d, int force, compare_graph *g);

/* ---- the JSON document ----
 * The one JSON form of a comparison, kind "comparison" (docs/json.md): what
 * `compare --json` and `report RUN RUN... -f json` print, byte for byte the
 * same for the same runs and options. */
#define CMP_JSON_SCHEMA_VERSION SUMMARY_SCHEMA_VERSION

typedef struct cmp_json_opts {
    const cmp_gates *gates;         /* evaluated gates, NULL: none given */
    const compare_graph *graph;     /* NULL: the graphs were not compared */
} cmp_json_opts;

void cmp_doc_json(const cmp_doc *d, const cmp_json_opts *o, json_writer *w);

#endif
