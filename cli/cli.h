/* cli/cli.h — private to cli/: one function per command, and argument helpers.
 * Commands return the process exit code (DESIGN.md): 0 ok, 1 usage error,
 * 2 bad input, 3 a gate failed, 4 internal error, 5 computed but not recorded
 * (the results were printed; the database did not take the run). */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "analyze/store.h"            /* store_run and the other rows */
#include "record/version.h"
#include "runtime/npu/npu_platform.h"  /* npu_platform_t */
#include "tracer/tracer.h"             /* vlog_t, vlog_run_t */
#include "util/util.h"

struct input_shape;  /* runtime/passes/passes.h */
struct run_record;   /* record/record.h */
struct run_summary;  /* analyze/analyze.h */

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_GATE = 3, EXIT_INTERNAL = 4,
       EXIT_NOT_RECORDED = 5 };

int cmd_run(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
/* inspect --tasks (cli/inspect_tasks.c): a vendor file's NPU tasks decoded */
struct rknn_model;
struct emu_program;
struct json_writer;
int inspect_tasks_load(const char *path, const struct rknn_model *m, struct emu_program *p,
                       char *err, size_t errlen);
void inspect_tasks_text(FILE *f, const struct rknn_model *m, const struct emu_program *p);
void inspect_tasks_json(struct json_writer *w, const struct rknn_model *m,
                        const struct emu_program *p);
/* The file starts like a vendor container: `run` predicts its profile
 * (cli/run_rknn.c, cmd_run_rknn in cli/run_cli.h). */
int run_rknn_is(const char *path);
int cmd_import(int argc, char **argv);
/* The run summary of stored rows (text with the per-layer error table, or the
 * docs/json.md document): what `run` prints and `show` prints again (cli/run_store.c). */
void run_rows_print(const store_run *run, const store_layer *layers, int nl,
                    const store_npu_row *npu, int n_npu, const store_output *outs, int no,
                    const store_accuracy *acc, int na, int json, double cos_threshold, FILE *f);
/* A computed summary, printed as run_rows_print does (show: cmp_run_load's). */
void run_summary_render(const struct run_summary *sum, const store_output *outs, int no, int json,
                        FILE *f);
/* After a sim run: builds the rows (record/), records them unless record is 0
 * (--no-db), prints the summary (also when recording failed, saying so).
 * Returns an exit code. */
int run_record_finish(struct run_record *r, int record, const char *db, int json,
                      double cos_threshold);
/* Managing runs (cli/cmd_manage.c). */
int cmd_rm(int argc, char **argv);
int cmd_tag(int argc, char **argv);
int cmd_untag(int argc, char **argv);
int cmd_label(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
/* `import FILE.json` of runs written by `export`: cli_is_export_file tells it
 * from a log by its first bytes; cli_import_export takes it (n_paths: the
 * paths given; log_options: a log-only option was given, refused). */
int cli_is_export_file(const char *path);
int cli_import_export(const char *path, int n_paths, const char *db, int log_options);
/* Whether a run's tags (store_run.tags: comma-separated, or NULL) hold tag. */
int cli_tags_have(const char *tags, const char *tag);
int cmd_report(int argc, char **argv);
int cmd_tui(int argc, char **argv);
/* `compare BOARD_RUN SIM_RUN` (either order): predicted vs measured per layer
 * (cli/compare_perf.c). Returns 1 with the exit code in *exit_code when it
 * compared them; 0 when the caller compares them as usual: the runs are not
 * one board and one predicted run, a side has no per-layer figures, `gates`
 * (options of the usual compare's gates) is set, or the store says no. */
int compare_perf_try(const char *db, const char *ref_a, const char *ref_b, int json, int gates,
                     int *exit_code);
int cmd_top(int argc, char **argv);

/* Exit code for a runtime status (RT_E*). */
int cli_exit_code(int status);
/* Prints "rknn-trace: <msg>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A run computed (its results printed) that the database did not take: says
 * "the run was NOT recorded: why" on stderr, returns EXIT_NOT_RECORDED. */
int cli_not_recorded(const char *why);

/* A --shape value "NAME=D0,D1,..." appended to shapes[*n] (at most max): name
 * points into arg ('=' replaced by NUL). -1 after printing a usage error. */
int cli_add_shape(char *arg, struct input_shape *shapes, int *n, int max);
/* argv element arg is option `name`, alone or as "--name=VALUE". */
int cli_opt_is(const char *arg, const char *name);
/* Value of an option that takes an argument: "--opt VALUE" or "--opt=VALUE".
 * Advances *i; returns NULL (after printing a usage error) if missing. */
const char *cli_opt_value(int argc, char **argv, int *i);
/* An argument no option of command cmd took: the model path when it is the
 * first such; else (an unknown option, a second model) a usage error. */
int cli_model_arg(const char *cmd, const char *a, const char **model);
/* A real number in [lo, hi] for option opt; else prints a usage error and sets *bad. */
double cli_parse_real(const char *opt, const char *v, double lo, double hi, int *bad);
/* A --core-mask value (RKNN_NPU_CORE_* bits, decimal or 0x...); -1 after printing
 * a usage error. */
long long cli_parse_core_mask(const char *v);
/* A --npu-mhz/--ddr-mhz value: an integer clock in MHz within [10, 10000]; -1
 * after printing a usage error. */
int cli_parse_mhz(const char *opt, const char *v);
/* *copy = *p with the clocks npu_mhz/ddr_mhz (0: the table's) replaced; the
 * shared platform table is never written. Returns copy, or p when neither is given. */
const npu_platform_t *cli_platform_clocks(npu_platform_t *copy, const npu_platform_t *p,
                                          int npu_mhz, int ddr_mhz);
/* Parses a non-negative integer; -1 on error. */
long long cli_parse_count(const char *s);

/* What `import` reads (cli/import_read.c), bounded. The first IMPORT_TEXT_HEAD
 * bytes of a log must be text (no NUL or control byte other than tab, CR, form
 * feed and the ESC of colour codes; at most a quarter of them not UTF-8); no
 * line may pass IMPORT_MAX_LINE bytes (the real logs' longest is 465); one
 * import holds at most IMPORT_MAX_BYTES: its logs' text, and the line index,
 * runs and rows made of them (vlog_scan_bounded). An export file may be at
 * most IMPORT_MAX_EXPORT bytes (its JSON takes about 8 times its size). */
#define IMPORT_TEXT_HEAD ((size_t)64 << 10)
#define IMPORT_MAX_LINE (64 << 10)
#define IMPORT_MAX_BYTES ((size_t)1 << 30)
#define IMPORT_MAX_EXPORT ((size_t)128 << 20)
/* A log's bytes: a regular file mapped (*mapped: release with rt_unmap_file),
 * anything else read in chunks into a malloc'd, NUL-terminated buffer; *budget
 * is lowered by len. RT_EFORMAT for binary data or an over-long line,
 * RT_ENOMEM past *budget (naming IMPORT_MAX_BYTES), RT_EIO when unreadable;
 * every message names the file. */
int import_read_log(const char *path, size_t *budget, const char **text, size_t *len,
                    int *mapped, char *err, size_t errlen);

/* `run --backend board` (cli/run_board.c). */
typedef struct run_board_opts {
    const char *model, *runtime, *root, *target, *label, *db;
    long long iters, warmup, seed;   /* iters 0: 10; warmup -1: 2 */
    int json, no_db;
    const char *const *in_name, *const *in_file; /* -i NAME=FILE.npy */
    int n_in;
    const char *dump;                /* --dump DIR: the runtime's level-5 dumps, or NULL */
} run_board_opts;
int run_board(const run_board_opts *o);
int cmd_attach(int argc, char **argv);

/* The name among names[0..n) closest to typed (edit distance of at most a
 * third of its length), NULL when none is close (cli/suggest.c). */
const char *cli_suggest(const char *typed, const char *const *names, int n);
/* The option table of command cmd (cli/opt.h), NULL for an unknown command
 * (cli/main.c). */
struct cli_spec;
const struct cli_spec *cli_command_spec(const char *cmd);
extern const struct cli_spec cli_spec_run, cli_spec_tune, cli_spec_ls, cli_spec_show, cli_spec_build,
    cli_spec_analyze, cli_spec_compare, cli_spec_import, cli_spec_rm, cli_spec_tag,
    cli_spec_untag, cli_spec_label, cli_spec_export, cli_spec_merge, cli_spec_tui,
    cli_spec_inspect, cli_spec_report, cli_spec_attach, cli_spec_top, cli_spec_info;
/* Prints "CMD: unknown option 'A'" with the closest option of CMD's table, if
 * any; returns EXIT_USAGE. */
int cli_unknown_option(const char *cmd, const char *a);
/* Colour on stream f: a terminal, and NO_COLOR unset or empty
 * (https://no-color.org), and TERM not "dumb". */
int cli_use_color(FILE *f);

#endif
