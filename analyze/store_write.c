/* analyze/store_write.c — writing runs: one transaction per run, savepoints
 * inside a batch, or plain rows inside a batch that only adds; deleting a run. */
#include "analyze/store_int.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* The rows of the open run, deleted one table at a time (a batch that only
 * adds has no cascade); on failure the whole batch is rolled back. */
static void delete_open_run(store *st)
{
    /* the layers go with the run (the runs_delete_layers trigger) */
    static const char *const tables[] = {"outputs", "accuracy", "tags", "load_samples", "npu_load",
                                         "npu_rows", "runs"};
    char sql[96];

    if (!st->open_run)
        return; /* store_run_begin failed before its insert: nothing to undo */
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s = %lld", tables[i],
                 i + 1 < sizeof tables / sizeof tables[0] ? "run_id" : "id",
                 (long long)st->open_run);
        if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            st->batch_lost = 1;
            return;
        }
    }
}

/* Undoes the open run: its savepoint inside a batch (its rows inside a batch
 * that only adds), else its transaction. */
static void run_rollback(store *st)
{
    if (st->batch == BATCH_ADDING)
        delete_open_run(st);
    else if (st->batch)
        sqlite3_exec(st->db, "ROLLBACK TO run; RELEASE run", NULL, NULL, NULL);
    else
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_run_begin(store *st, const store_run *r, int64_t *run_id, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    char now[32];
    int rc;

    *run_id = 0;
    if ((rc = sq_check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is still open", (long long)st->open_run);
    if (r->label && (!*r->label || sq_all_digits(r->label)))
        return rt_err(err, errlen, RT_EINVAL,
                      "bad label '%s': a label must not be empty or a number", r->label);
    if (store_backend_of(r->backend) == BACKEND_UNKNOWN)
        return rt_err(err, errlen, RT_EINVAL,
                      "bad backend '%s' (sim, board, simlib, predict, toolkit or emulate)",
                      r->backend);
    if (st->batch_lost)
        return rt_err(err, errlen, RT_EIO, "%s: the batch was rolled back", st->path);
    /* a batch that only adds takes no savepoint per run: each would copy every
     * page the run touches to a sub-journal (a page write per page) */
    if (st->batch != BATCH_ADDING &&
        (rc = st->batch ? sq_row_exec(st, TX_SAVEPOINT, "SAVEPOINT run", err, errlen)
                        : sq_row_exec(st, TX_BEGIN, "BEGIN IMMEDIATE", err, errlen)))
        return rc;

    if (r->label) {
        if ((rc = sq_row_prepare(st, RUN_LABEL_USED, "SELECT id FROM runs WHERE label = ?", &s,
                                 err, errlen)))
            goto fail;
        sq_bind_text(s, 1, r->label);
        if (sqlite3_step(s) == SQLITE_ROW) {
            rc = rt_err(err, errlen, RT_EINVAL, "label '%s' is already used by run %lld",
                        r->label, (long long)sqlite3_column_int64(s, 0));
            goto fail;
        }
        sq_row_done(s);
        s = NULL;
    }
    if ((rc = sq_row_prepare(st, RUN_INSERT,
                         "INSERT INTO runs (label, time, model_path, model_sha256, "
                         "model_format, platform, backend, quant, quant_algo, quant_method, "
                         "threads, iterations, seed, inputs_json, total_us, status, "
                         "tool_version, extra_json, npu_us, host_min_us, host_p90_us, "
                         "host_stddev_us, warmup, dump_dir, dump_sha256, weight_bytes, "
                         "internal_bytes, env_json, n_layers, " RUN_FACT_COLS_SET ") "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                         "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &s, err, errlen)))
        goto fail;
    if (!r->time)
        rt_iso_time(now, sizeof now);
    sq_bind_text(s, 1, r->label);
    sq_bind_text(s, 2, r->time ? r->time : now);
    sq_bind_text(s, 3, r->model_path);
    sq_bind_text(s, 4, r->model_sha256);
    sq_bind_text(s, 5, r->model_format);
    sq_bind_text(s, 6, r->platform);
    sq_bind_text(s, 7, r->backend);
    sq_bind_text(s, 8, r->quant);
    sq_bind_text(s, 9, r->quant_algo);
    sq_bind_text(s, 10, r->quant_method);
    sq_bind_i64(s, 11, r->threads);
    sq_bind_i64(s, 12, r->iterations);
    sq_bind_i64(s, 13, r->seed);
    sq_bind_text(s, 14, r->inputs_json);
    sq_bind_dbl(s, 15, r->total_us);
    sq_bind_text(s, 16, r->status ? r->status : "ok");
    sq_bind_text(s, 17, r->tool_version);
    sq_bind_text(s, 18, r->extra_json);
    sq_bind_dbl(s, 19, r->npu_us);
    sq_bind_dbl(s, 20, r->host_min_us);
    sq_bind_dbl(s, 21, r->host_p90_us);
    sq_bind_dbl(s, 22, r->host_stddev_us);
    sq_bind_i64(s, 23, r->warmup);
    sq_bind_text(s, 24, r->dump_dir);
    sq_bind_text(s, 25, r->dump_sha256);
    sq_bind_i64(s, 26, r->weight_bytes);
    sq_bind_i64(s, 27, r->internal_bytes);
    sq_bind_text(s, 28, r->env_json);
    sqlite3_bind_int64(s, 29, r->n_layers);
    sq_bind_facts(s, 30, r);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = sq_db_fail(st, err, errlen, "cannot add the run");
        goto fail;
    }
    sq_row_done(s);
    *run_id = sqlite3_last_insert_rowid(st->db);
    st->open_run = *run_id; /* so that a failure below undoes the run's row */
    if ((rc = sq_write_load(st, *run_id, r, err, errlen)))
        goto fail;
    st->open_layers = 0;
    st->open_total_us = r->total_us;
    st->open_n_layers = r->n_layers;
    return 0;
fail:
    if (s)
        sq_row_done(s);
    run_rollback(st);
    st->open_run = 0;
    *run_id = 0;
    return rc;
}

int store_layer_add(store *st, int64_t run_id, const store_layer *l, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_check_open(st, run_id, err, errlen)))
        return rc;
    if (l->target && strcmp(l->target, "NPU") != 0 && strcmp(l->target, "CPU") != 0)
        return rt_err(err, errlen, RT_EINVAL, "layer %lld: bad target '%s' (NPU or CPU)",
                      (long long)l->idx, l->target);
    if (l->idx < 0 || l->idx >= LAYER_KEY_SPAN)
        return rt_err(err, errlen, RT_EINVAL, "layer index %lld out of range (0 to %d)",
                      (long long)l->idx, LAYER_KEY_SPAN - 1);
    if ((rc = sq_row_prepare(st, ROW_LAYER,
                         "INSERT INTO layers (run_id, " LAYER_COLS ", key) VALUES "
                         "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 36, run_id * LAYER_KEY_SPAN + l->idx);
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, l->idx);
    sq_bind_text(s, 3, l->node);
    sq_bind_text(s, 4, l->op);
    sq_bind_text(s, 5, l->name);
    sq_bind_text(s, 6, l->in_shapes);
    sq_bind_text(s, 7, l->out_shapes);
    sq_bind_text(s, 8, l->dtype);
    sq_bind_dbl(s, 9, l->host_us);
    sq_bind_i64(s, 10, l->npu_cycles);
    sq_bind_i64(s, 11, l->ddr_cycles);
    sq_bind_i64(s, 12, l->total_cycles);
    sq_bind_dbl(s, 13, l->time_us);
    sq_bind_dbl(s, 14, l->mac_usage);
    sq_bind_text(s, 15, l->target);
    sq_bind_text(s, 16, l->cpu_reason);
    sq_bind_dbl(s, 17, l->sram_hit);
    sq_bind_dbl(s, 18, l->rw_kb);
    sq_bind_text(s, 19, l->bound);
    sq_bind_text(s, 20, l->workload);
    sq_bind_i64(s, 21, l->tasks);
    sq_bind_text(s, 22, l->npu_op);
    sq_bind_dbl(s, 23, l->frame_us);
    sq_bind_text(s, 24, l->npu_dtype);
    sq_bind_dbl(s, 25, l->out_scale);
    sq_bind_i64(s, 26, l->out_zp);
    sq_bind_text(s, 27, l->out_qtype);
    sq_bind_dbl(s, 28, l->out_min);
    sq_bind_dbl(s, 29, l->out_max);
    sq_bind_dbl(s, 30, l->out_mean);
    sq_bind_dbl(s, 31, l->out_std);
    /* the split as numbers: the writer's, else read once from the printed text */
    double pct[STORE_NPU_ROW_CORES];
    int nw = l->n_workload > 0 && l->n_workload <= STORE_NPU_ROW_CORES ? l->n_workload : 0;
    if (nw)
        memcpy(pct, l->workload_pct, sizeof pct);
    else
        nw = store_workload_parse(l->workload, pct, STORE_NPU_ROW_CORES);
    if (nw)
        sqlite3_bind_int(s, 32, nw);
    for (int c = 0; c < nw; c++)
        sq_bind_dbl(s, 33 + c, pct[c]);
    if (sqlite3_step(s) != SQLITE_DONE) {
        if ((sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_CONSTRAINT)
            rc = rt_err(err, errlen, RT_EINVAL, "layer %lld added twice", (long long)l->idx);
        else
            rc = sq_db_fail(st, err, errlen, "cannot add a layer");
    } else {
        st->open_layers++;
    }
    sq_row_done(s);
    return rc;
}

int store_output_add(store *st, int64_t run_id, const store_output *o, char *err,
                     size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_check_open(st, run_id, err, errlen)))
        return rc;
    if (!o->name)
        return rt_err(err, errlen, RT_EINVAL, "output %lld has no name", (long long)o->idx);
    if ((rc = sq_row_prepare(st, ROW_OUTPUT,
                         "INSERT INTO outputs (run_id, idx, name, shape, dtype, dump_file) "
                         "VALUES (?,?,?,?,?,?)",
                         &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, o->idx);
    sq_bind_text(s, 3, o->name);
    sq_bind_text(s, 4, o->shape);
    sq_bind_text(s, 5, o->dtype);
    sq_bind_text(s, 6, o->dump_file);
    if (sqlite3_step(s) != SQLITE_DONE) {
        if ((sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_CONSTRAINT)
            rc = rt_err(err, errlen, RT_EINVAL, "output %lld added twice", (long long)o->idx);
        else
            rc = sq_db_fail(st, err, errlen, "cannot add an output");
    }
    sq_row_done(s);
    return rc;
}

/* A long batch has the kernel start writing what SQLite has already handed it
 * (the pages it spills while the transaction grows), every BATCH_WRITEBACK_ROWS
 * rows: else the COMMIT's sync writes the whole file at the end, a fifteenth
 * of a 100 MB import. Only a hint: the COMMIT still syncs. */
enum { BATCH_WRITEBACK_ROWS = 16384 };

static void batch_writeback(store *st)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (st->batch_fd < 0)
        st->batch_fd = open(st->path, O_RDONLY | O_CLOEXEC);
    if (st->batch_fd >= 0)
        sync_file_range(st->batch_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    st->batch_rows = 0;
}

int store_run_commit(store *st, int64_t run_id, double total_us, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_check_open(st, run_id, err, errlen)))
        return rc;
    /* the figures the row got at store_run_begin are still right: no update */
    if (st->open_layers == st->open_n_layers &&
        (total_us == st->open_total_us || (isnan(total_us) && isnan(st->open_total_us))))
        goto done;
    if ((rc = sq_row_prepare(st, RUN_FINISH,
                         "UPDATE runs SET total_us = ?, n_layers = ? WHERE id = ?",
                         &s, err, errlen)))
        goto fail;
    sq_bind_dbl(s, 1, total_us);
    sqlite3_bind_int64(s, 2, st->open_layers);
    sqlite3_bind_int64(s, 3, run_id);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = sq_db_fail(st, err, errlen, "cannot finish the run");
        goto fail;
    }
    sq_row_done(s);
    s = NULL;
done:
    if (st->batch != BATCH_ADDING &&
        (rc = st->batch ? sq_row_exec(st, TX_RELEASE, "RELEASE run", err, errlen)
                        : sq_row_exec(st, TX_COMMIT, "COMMIT", err, errlen)))
        goto fail;
    st->open_run = 0;
    if (st->batch && (st->batch_rows += st->open_layers + 1) >= BATCH_WRITEBACK_ROWS)
        batch_writeback(st);
    return 0;
fail:
    if (s)
        sq_row_done(s);
    store_run_abort(st, run_id);
    return rc;
}

void store_run_abort(store *st, int64_t run_id)
{
    if (!st || !st->open_run || st->open_run != run_id)
        return;
    run_rollback(st);
    st->open_run = 0;
}

static int batch_begin(store *st, int kind, char *err, size_t errlen)
{
    int rc = sq_check_writable(st, err, errlen);
    if (rc)
        return rc;
    if (st->open_run || st->batch)
        return rt_err(err, errlen, RT_EINVAL, "a run or batch is still open");
    /* (the pragma is a no-op inside a transaction: set before BEGIN) */
    if (kind == BATCH_ADDING && (rc = sq_db_exec(st, "PRAGMA foreign_keys = OFF", err, errlen)))
        return rc;
    if ((rc = sq_db_exec(st, "BEGIN IMMEDIATE", err, errlen))) {
        if (kind == BATCH_ADDING)
            sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
        return rc;
    }
    st->batch = kind;
    st->batch_fd = -1;
    st->batch_rows = 0;
    return 0;
}

int store_batch_begin(store *st, char *err, size_t errlen)
{
    return batch_begin(st, BATCH_ANY, err, errlen);
}

/* Every row such a batch writes goes to the run it has open (sq_check_open),
 * which it inserted itself: the references hold by construction, and
 * SQLite's check of each row against runs was a twentieth of an import. Its
 * runs are not savepoints: an aborted run's rows are deleted instead. */
int store_batch_begin_adding(store *st, char *err, size_t errlen)
{
    return batch_begin(st, BATCH_ADDING, err, errlen);
}

static void batch_end(store *st)
{
    if (st->batch_fd >= 0)
        close(st->batch_fd);
    st->batch_fd = -1;
    if (st->batch == BATCH_ADDING)
        sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    st->batch = 0;
    st->batch_lost = 0;
}

int store_batch_commit(store *st, char *err, size_t errlen)
{
    int rc;
    if (!st || !st->batch || st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "no batch to commit, or a run is still open");
    if (st->batch_lost) {
        batch_end(st);
        return rt_err(err, errlen, RT_EIO, "%s: the batch was rolled back", st->path);
    }
    if ((rc = sq_db_exec(st, "COMMIT", err, errlen))) {
        store_batch_abort(st);
        return rc;
    }
    batch_end(st);
    return 0;
}

void store_batch_abort(store *st)
{
    if (!st || !st->batch)
        return;
    if (!st->batch_lost)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    batch_end(st);
    st->open_run = 0;
}

int store_delete_run(store *st, int64_t run_id, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = sq_check_writable(st, err, errlen)))
        return rc;
    if (st->open_run)
        return rt_err(err, errlen, RT_EINVAL, "run %lld is still open", (long long)st->open_run);
    if (st->batch == BATCH_ADDING) /* its rows would stay: no ON DELETE CASCADE */
        return rt_err(err, errlen, RT_EINVAL, "a batch that adds runs cannot delete one");
    /* the other tables' rows go by ON DELETE CASCADE, the layers by the
     * runs_delete_layers trigger (schema 4) */
    if ((rc = sq_db_prepare(st, "DELETE FROM runs WHERE id = ?", &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = sq_db_fail(st, err, errlen, "cannot delete the run");
    else if (sqlite3_changes(st->db) == 0)
        rc = rt_err(err, errlen, RT_EINVAL, "no run with id %lld", (long long)run_id);
    sqlite3_finalize(s);
    return rc;
}

