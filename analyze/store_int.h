/* analyze/store_int.h — private to analyze/store*.c: the handle and the SQL
 * helpers the store's files share. Nothing outside the store includes this. */
#ifndef RT_ANALYZE_STORE_INT_H
#define RT_ANALYZE_STORE_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/store.h"

/* Statements run once per row (layer, output and error-row inserts) or once
 * per run (its insert, label check, closing update, savepoint and
 * transaction control) are prepared once per handle: parsing their SQL cost
 * more than the insert itself when an import writes thousands of runs. */
enum row_stmt {
    ROW_LAYER,
    ROW_OUTPUT,
    ROW_ACC,
    ROW_LOAD,
    RUN_INSERT,
    RUN_LABEL_USED,
    RUN_FINISH,
    TX_SAVEPOINT,
    TX_RELEASE,
    TX_BEGIN,
    TX_COMMIT,
    N_ROW_STMT
};

enum batch_kind {
    BATCH_ANY = 1, /* store_batch_begin */
    BATCH_ADDING,  /* store_batch_begin_adding: foreign keys not checked */
};

struct store {
    sqlite3 *db;
    char *path;
    char *copy_dir; /* a private copy read instead of path (open_private_copy), or NULL */
    int readonly;
    int64_t open_run; /* run whose transaction is open, 0 if none */
    int64_t open_layers; /* layer rows the open run has (only store_layer_add adds them) */
    int64_t open_n_layers; /* its n_layers and total_us as store_run_begin wrote them */
    double open_total_us;
    int batch;        /* a batch transaction is open (enum batch_kind): runs are savepoints in it */
    int batch_lost;   /* undoing a run failed and rolled the whole batch back */
    int batch_fd;     /* the file, for batch_writeback (-1: not open) */
    int64_t batch_rows; /* rows the batch added since its last writeback */
    sqlite3_stmt *row_stmt[N_ROW_STMT]; /* statements prepared once (enum row_stmt) */
};

/* The runs columns read_run reads, in its order; the tags last. */
#define RUN_COLS_NO_TAGS                                                                   \
    "id, label, time, model_path, model_sha256, model_format, platform, backend, quant, " \
    "quant_algo, quant_method, threads, iterations, seed, inputs_json, total_us, status, " \
    "tool_version, extra_json, n_layers, "                                                \
    "npu_us, host_min_us, host_p90_us, host_stddev_us, warmup, dump_dir, dump_sha256, "   \
    "weight_bytes, internal_bytes, env_json, " RUN_COLS_FACTS
/* Schema v5's typed facts (store_facts.c), read by read_run from column 30 on;
 * the NPU load per core as "61,50,50" (an internal form, split by read_run) */
#define RUN_COLS_FACTS                                                                     \
    "perf_table_us, npu_clock_mhz, ddr_clock_mhz, npu_table_layers, calib_samples, "      \
    "int8_layers, fp16_layers, cfg_params, import_kind, log_total_us, perf_run_us, "      \
    "share_compute_pct, share_ddr_pct, share_cpu_pct, cost_model_version, "               \
    "cost_model_fingerprint, (SELECT group_concat(load_pct, ',') FROM (SELECT load_pct "   \
    "FROM npu_load WHERE run_id = runs.id ORDER BY core))"
#define RUN_COL_FACTS 30
#define RUN_COL_TAGS 47
#define RUN_COLS                                                                           \
    RUN_COLS_NO_TAGS ", (SELECT group_concat(tag, ',') FROM (SELECT tag FROM tags "          \
    "WHERE run_id = runs.id ORDER BY tag))"

#define LAYER_COLS                                                                         \
    "idx, node, op, name, in_shapes, out_shapes, dtype, host_us, npu_cycles, ddr_cycles, " \
    "total_cycles, time_us, mac_usage, target, cpu_reason, sram_hit, rw_kb, bound, "      \
    "workload, tasks, npu_op, frame_us, npu_dtype, out_scale, out_zp, out_qtype, "         \
    "out_min, out_max, out_mean, out_std, workload_cores, workload0, workload1, workload2"

/* A layer row's key: the run's id times LAYER_KEY_SPAN plus the layer's index,
 * so that a run's layers are one range of the table's own b-tree (schema 4). */
#define LAYER_KEY_SPAN 1048576
#define LAYER_KEY_RANGE "key BETWEEN ?1 * 1048576 AND ?1 * 1048576 + 1048575"

#define ACC_COLS                                                                          \
    "idx, layer, name, op, node, fused, is_output, entire_cos, entire_euc, "             \
    "entire_max_abs, entire_mean_abs, entire_sqnr_db, entire_flags, single_cos, "         \
    "single_euc, single_max_abs, single_mean_abs, single_sqnr_db, single_flags, source"

/* store_sql.c */
int sq_db_status(int code);
int sq_db_fail(store *st, char *err, size_t errlen, const char *what);
int sq_db_exec(store *st, const char *sql, char *err, size_t errlen);
int sq_db_prepare(store *st, const char *sql, sqlite3_stmt **s, char *err, size_t errlen);
/* The first column of the first row of sql. */
int sq_sql_int(store *st, const char *sql, int64_t *v, char *err, size_t errlen);
int sq_pragma_int(store *st, const char *name, int64_t *v, char *err, size_t errlen);
int sq_row_prepare(store *st, int which, const char *sql, sqlite3_stmt **s, char *err,
                   size_t errlen);
void sq_row_done(sqlite3_stmt *s);
/* Runs sql, a statement without parameters nor rows (transaction control),
 * prepared once per handle as `which`. */
int sq_row_exec(store *st, int which, const char *sql, char *err, size_t errlen);
/* NULL for NULL strings, STORE_NULL_INT and non-finite reals, by leaving the
 * parameter unbound: only on a fresh statement or one cleared by sq_row_done.
 * Text is bound without a copy: step before the string goes, then finalize
 * or sq_row_done. */
void sq_bind_text(sqlite3_stmt *s, int i, const char *v);
void sq_bind_i64(sqlite3_stmt *s, int i, int64_t v);
void sq_bind_dbl(sqlite3_stmt *s, int i, double v);
const char *sq_col_text(sqlite3_stmt *s, int i);  /* malloc'd copy, or NULL */
int64_t sq_col_i64(sqlite3_stmt *s, int i);
double sq_col_dbl(sqlite3_stmt *s, int i);
int sq_all_digits(const char *s);
int sq_check_writable(store *st, char *err, size_t errlen);
int sq_check_open(store *st, int64_t run_id, char *err, size_t errlen);
/* Runs a prepared SELECT and collects its rows: read() fills one row of
 * `size` bytes; on a failed step the rows read so far go to release(). */
int sq_query_rows(store *st, sqlite3_stmt *s, size_t size, void (*read)(sqlite3_stmt *, void *),
                  void (*release)(void *, int), const char *what, void **rows, int *n,
                  char *err, size_t errlen);

/* store_facts.c */
/* Reads RUN_COLS_FACTS starting at column c into r. */
void sq_read_facts(sqlite3_stmt *s, int c, store_run *r);
/* Binds r's facts to parameters first.. of an INSERT or UPDATE in
 * RUN_COLS_FACTS order (without the load, written by sq_write_load). */
void sq_bind_facts(sqlite3_stmt *s, int first, const store_run *r);
#define RUN_FACT_COLS_SET                                                                  \
    "perf_table_us, npu_clock_mhz, ddr_clock_mhz, npu_table_layers, calib_samples, "      \
    "int8_layers, fp16_layers, cfg_params, import_kind, log_total_us, perf_run_us, "      \
    "share_compute_pct, share_ddr_pct, share_cpu_pct, cost_model_version, "               \
    "cost_model_fingerprint"
#define RUN_N_FACT_COLS 16
/* Writes r's NPU load per core as rows of npu_load for run run_id. */
int sq_write_load(store *st, int64_t run_id, const store_run *r, char *err, size_t errlen);
/* The facts schema <= 4 kept in extra_json / env_json (and a schema-1 run's
 * predicted time, shares and dump folder) moved into r's typed fields, where
 * r does not have them yet; r's extra_json and env_json then point to what
 * stays (own->extra, own->env; NULL when nothing does). A text that is not a JSON object stays as it is. Used
 * by the migration to schema 5 and by importing a version-1 export. */
typedef struct sq_legacy {
    char *extra, *env;          /* what stays of the texts (NULL: nothing) */
    int extra_changed, env_changed;
    char *fingerprint, *import_kind, *dump_dir; /* strings r now points to */
    store_npu_row *npu_rows;    /* the level-4 rows of "npu_table" (their strings owned) */
    int n_npu_rows;
} sq_legacy;
void sq_facts_from_legacy(store_run *r, sq_legacy *own);
void sq_legacy_free(sq_legacy *own);
/* Samples that only repeat the run's load per core (one per core at t_us 0,
 * how a prediction kept its load before schema 5): 1 if rows[0..n) are those. */
int sq_samples_repeat_load(const store_run *r, const store_load_sample *rows, int n);
/* The v4 -> v5 step's data move, inside the migration's transaction. */
int sq_migrate_facts(store *st, char *err, size_t errlen);
/* Adds rows to run run_id; frame 0: into the schema-5 table, without its
 * schema-6 frame_us (the v4 -> v5 step of a migration). */
int sq_add_npu_rows(store *st, int64_t run_id, const store_npu_row *rows, int n, int frame,
                    char *err, size_t errlen);
/* Every sample of a run as stored (store_get_load adds a prediction's load). */
int sq_get_samples(store *st, int64_t run_id, store_load_sample **rows, int *n, char *err,
                   size_t errlen);

/* store_accuracy.c: one error row whose ACC_COLS start at column c. */
void sq_read_accuracy(sqlite3_stmt *s, int c, store_accuracy *a);

#endif
