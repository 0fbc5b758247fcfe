/* cli/cli.h — private to cli/: one function per command, and argument helpers.
 * Commands return the process exit code (DESIGN.md): 0 ok, 1 usage error,
 * 2 bad input, 3 a gate failed, 4 internal error. */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_GATE = 3, EXIT_INTERNAL = 4 };

int cmd_run(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
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
/* `run` of a vendor .rknn on a PC: a predicted profile (cli/run_rknn.c). run_rknn_is:
 * the file starts like a vendor container. */
int run_rknn_is(const char *path);
int cmd_run_rknn(int argc, char **argv);
int cmd_import(int argc, char **argv);
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

/* A --shape value "NAME=D0,D1,..." appended to shapes[*n] (at most max): name
 * points into arg ('=' replaced by NUL). -1 after printing a usage error. */
int cli_add_shape(char *arg, input_shape_t *shapes, int *n, int max);
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
/* Parses a non-negative integer; -1 on error. */
long long cli_parse_count(const char *s);

/* The vendor's per-layer performance table as layer rows of run id (cli/perf_rows.c),
 * with each row's SRAM hit bytes from sram_hit[row] (NULL: none);
 * its dtype names in numpy's words; "(1,3,224,224),(64,3,7,7)" as a JSON list of
 * shapes (single: the first shape alone), NULL when nothing is readable. */
struct store;
struct perflog_table;
int perf_layers_store(struct store *st, int64_t id, const struct perflog_table *t,
                      const double *sram_hit, char *err, size_t errlen);
/* The same in two steps: the rows made (their strings point into t and into
 * text), then added; an import makes them while the previous run is written. */
struct store_layer;
typedef struct perf_layers {
    struct store_layer *rows;
    char *text;
    int n;
} perf_layers;
void perf_layers_make(perf_layers *pl, const struct perflog_table *t, const double *sram_hit);
int perf_layers_add(struct store *st, int64_t id, const perf_layers *pl, char *err,
                    size_t errlen);
void perf_layers_free(perf_layers *pl);
const char *perf_numpy_dtype(const char *vendor);
/* Level-5 dump files (vendor-named) as the run's output rows, in order. */
struct vlog_dump;
int dump_rows_store(struct store *st, int64_t id, const struct vlog_dump *d, int n, char *err,
                    size_t errlen);
char *perf_shapes_json(const char *s, int single);

/* NPU load sampled on a thread (cli/load_sampler.c): rows[0..n) once stopped,
 * t_us since t0 (rt_now_us at the start); free(rows). */
#include <pthread.h>
#include "tracer/tracer.h"
typedef struct load_sampler {
    pthread_t th;
    int running, stop;
    pthread_mutex_t mu;
    board_snapshot_t snap;
    double t0;
    struct store_load_sample *rows;
    int n, cap;
} load_sampler;
void load_sampler_start(load_sampler *s, const char *root);
void load_sampler_stop(load_sampler *s);
/* Mean load per core of the samples taken between t0 and t1 (rt_now_us); returns
 * the core count (0: none). */
int load_sampler_mean(const load_sampler *s, double t0, double t1, int pct[BOARD_MAX_CORES]);

/* A text log imported while it is read (cli/import_stream.c): vlog_scan on
 * this thread; each complete run goes through prepare (this thread) and then,
 * in log order, write and discard on a writer thread. The first scan or write
 * error is returned; runs after a failed write are not written. log keeps
 * every run's flags and counts, not its rows. */
typedef struct import_stage {
    void (*prepare)(void *ctx, const vlog_run_t *r, void **prep);
    int (*write)(void *ctx, const vlog_run_t *r, void *prep, char *err, size_t errlen);
    void (*discard)(void *prep);
    void *ctx;
} import_stage;
int import_stream(const char *text, size_t len, int formats, vlog_t *log,
                  const import_stage *stage, char *err, size_t errlen);

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
/* The vendor runtime to load: given, else $RKNN_TRACE_RUNTIME, else the first
 * of the standard paths that exists; NULL when none. */
const char *board_runtime_find(const char *given);
/* What a board run knows besides the board: the runtime (path, SDK_VERSION's
 * api/driver strings) and, for a vendor .rknn, its target chip, toolkit and
 * compiler (board_model_facts). NULL or "": unknown, left out. */
typedef struct board_facts {
    const char *runtime, *api_version, *drv_version;
    char model_target[32], toolkit[64], compiler[96];
} board_facts;
void board_model_facts(board_facts *f, const void *model, size_t len);
/* The board's environment (board_env_json) with those facts, malloc'd. */
char *run_env_json(const char *root, const board_facts *bf);
/* The run's platform: given (-t), else the .rknn's target, else the SoC of the
 * board's device tree (in buf), else NULL. */
const char *board_platform(const char *given, const board_facts *bf, const char *root, char *buf,
                           size_t len);
int cmd_attach(int argc, char **argv);
/* The version string a runtime library carries ("librknnrt version: 1.5.2 (hash@date)",
 * the same text RKNN_QUERY_SDK_VERSION answers), read from the file itself; 1 when found. */
int board_runtime_version(const char *path, char *out, size_t len);
/* Median, min, p90 and population stddev of n times (NaN each when n is 0). */
typedef struct time_stats { double median, min, p90, stddev; } time_stats;
time_stats board_time_stats(const double *v, int n);
/* An rknpu device under root: a DRM device of driver rknpu, or /dev/rknpu. */
int board_npu_present(const char *root);

#define RKNN_TRACE_VERSION "0.1.0"

/* The name among names[0..n) closest to typed (edit distance of at most a
 * third of its length), NULL when none is close (cli/suggest.c). */
const char *cli_suggest(const char *typed, const char *const *names, int n);
/* The options a command's --help lists ("-t", "--target", ...), malloc'd;
 * *n = 0 for an unknown command (cli/main.c). */
char **cli_command_options(const char *cmd, int *n);
void cli_strings_free(char **v, int n);
/* Prints "CMD: unknown option 'A'" with the closest option of CMD, if any;
 * returns EXIT_USAGE. */
int cli_unknown_option(const char *cmd, const char *a);
/* Colour on stream f: a terminal, and NO_COLOR unset or empty
 * (https://no-color.org), and TERM not "dumb". */
int cli_use_color(FILE *f);

#endif
