/* cli/quant_cli.h — private to cli/: quantization options of `run` and the
 * accuracy analysis after a quantized run (cli/quant_cli.c).
 *
 * Integration in a command's option loop and after its run:
 *   quant_cli qc; quant_cli_init(&qc);
 *   ... else if ((k = quant_cli_option(argc, argv, &i, &qc)) != 0) { if (k < 0) return EXIT_USAGE; }
 *   if ((rc = quant_cli_check(quant, &qc))) return rc;
 *   ... after the fp32 run: if (strcmp(quant, "fp32")) ret = quant_cli_run(&qc, quant, model, g, bufs, json, NULL);
 */
#ifndef RT_QUANT_CLI_H
#define RT_QUANT_CLI_H

#include "analyze/analyze.h"
#include "runtime/model/model.h"

typedef struct quant_cli {
    const char *algo, *method, *dataset, *dump_golden, *dump_quant;
    double cos_threshold;
    int no_progress;
} quant_cli;

void quant_cli_init(quant_cli *q);
/* 1: argv[*i] was a quantization option (consumed, *i advanced); 0: not one;
 * -1: a usage error (already printed). Options: --quant-algo, --quant-method,
 * --dataset, --cos-threshold, --dump-golden DIR, --dump-quant DIR, --no-progress. */
int quant_cli_option(int argc, char **argv, int *i, quant_cli *q);
/* EXIT_OK or EXIT_USAGE (message printed) for the -q value and the options. */
int quant_cli_check(const char *quant, const quant_cli *q);
/* Runs the analysis for the prepared fp32 graph g (its input shapes) on inputs
 * (one buffer per graph input) and prints the table (or JSON). Returns an exit
 * code; *out (optional) receives the report (accuracy_report_free). */
int quant_cli_run(const quant_cli *q, const char *quant, const char *model, const graph_t *g,
                  const void *const *inputs, int json, accuracy_report **out);

/* After a run of cmd_run (rec filled, stored): prints the run (text or JSON)
 * followed by the accuracy analysis (text table, or an "accuracy" member of the
 * same JSON document). Returns an exit code. */
struct run_record;
int quant_cli_report(const quant_cli *q, const char *quant, struct run_record *rec,
                     const void *const *inputs, int json);

#endif
