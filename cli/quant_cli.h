/* cli/quant_cli.h — private to cli/: quantization options of `run` and the
 * accuracy analysis after a quantized run (cli/quant_cli.c).
 *
 * Integration in a command's option loop and after its run:
 *   quant_cli qc; quant_cli_init(&qc);
 *   ... else if ((k = quant_cli_option(argc, argv, &i, &qc)) != 0) { if (k < 0) return EXIT_USAGE; }
 *   if ((rc = quant_cli_check(&quant, &qc))) return rc;
 *   ... before the run: quant_cli_analyse(&qc, quant, model, g, bufs, json, &acc), then
 *   run acc->qgraph; the run's summary then prints the stored per-layer error.
 */
#ifndef RT_QUANT_CLI_H
#define RT_QUANT_CLI_H

#include "analyze/analyze.h"
#include "runtime/model/model.h"

typedef struct quant_cli {
    const char *algo, *method, *dataset, *dump_golden, *dump_quant, *mean, *std;
    const char *hybrid, *write_cfg;
    const char *eval;    /* --eval FILE: the error over every sample of that list */
    double cos_threshold;
    int no_progress;
    int threads;         /* run's --threads (0: all cores) */
    size_t max_memory;   /* run's memory limit, for the analysis' executors too */
    int given_inputs, image_inputs; /* run's -i files, and how many are images */
    int resize_static;   /* build's shape set resizes static inputs (accuracy_opts) */
    const char *target; /* run's platform (set by quant_cli_container), else NULL */
    /* settings read from a `rknn-trace build` container (quant_cli_container) */
    char c_quant[16], c_algo[32], c_method[16], c_target[32], c_name[300];
    char *c_cfg;         /* the container's QCFG section (malloc'd), or NULL */
    size_t c_cfg_len;
} quant_cli;

void quant_cli_init(quant_cli *q);
/* 1: argv[*i] was a quantization option (consumed, *i advanced); 0: not one;
 * -1: a usage error (already printed). Options: --quant-algo, --quant-method,
 * --dataset, --mean, --std, --hybrid FILE, --write-quant-cfg FILE, --cos-threshold,
 * --dump-golden DIR, --dump-quant DIR, --no-progress, --eval FILE. */
int quant_cli_option(int argc, char **argv, int *i, quant_cli *q);
/* EXIT_OK or EXIT_USAGE (message printed) for the -q value and the options;
 * *quant becomes the canonical name (fp32, fp16, i8) of an accepted alias. */
int quant_cli_check(const char **quant, const quant_cli *q);
/* run's -i files (before quant_cli_check: --mean/--std also apply to images). */
void quant_cli_inputs(quant_cli *q, const char *const *files, int n);
/* Calibrates and runs the analysis for the prepared fp32 graph g (its input
 * shapes) on inputs (one buffer per graph input). *out receives the report
 * (accuracy_report_free) holding the quantized graph (qgraph, qg) that the run
 * then executes. Returns an exit code (message printed). */
int quant_cli_analyse(const quant_cli *q, const char *quant, const char *model,
                      const graph_t *g, const void *const *inputs, int json,
                      accuracy_report **out);

/* When model is a `rknn-trace build` container: its quantization (unless -q
 * was given), algo/method, target (unless -t was given) and its parameters
 * (the QCFG section, used as the hybrid file). Returns an exit code; free
 * qc->c_cfg after the run. */
int quant_cli_container(const char *model, const char **quant, int quant_given,
                        const char **target, int target_given, quant_cli *qc);

/* `analyze RUN --eval FILE` (cli/analyze_eval.c): qc holds --eval, --dataset,
 * --hybrid, --mean, --std. Returns an exit code. */
int analyze_eval(const char *ref, const char *db, quant_cli *qc, int json);

#endif
