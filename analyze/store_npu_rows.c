/* analyze/store_npu_rows.c — the level-4 rows no layer row gives back (table
 * npu_rows, schema 5; frame_us since schema 6), written inside the run's
 * transaction. */
#include "analyze/store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define NPU_ROW_COLS                                                                      \
    "at, skip, id, op, datatype, dtype, target, n_in, n_out, in_shapes, out_shapes, "    \
    "ddr_cycles, npu_cycles, total_cycles, time_us, rw_kb, macs, n_cores, mac_usage0, "  \
    "mac_usage1, mac_usage2, workload0, workload1, workload2, tasks, fullname, note"

static int add_row(store *st, sqlite3_stmt *s, int64_t run_id, const store_npu_row *r,
                   int frame, char *err, size_t errlen)
{
    if (r->at < 0 || r->at >= (int64_t)1 << 31 || r->n_cores < 0 ||
        r->n_cores > STORE_NPU_ROW_CORES)
        return rt_err(err, errlen, RT_EINVAL, "level-4 row at %lld with %d cores: out of range",
                      (long long)r->at, r->n_cores);
    if (r->target && strcmp(r->target, "NPU") && strcmp(r->target, "CPU"))
        return rt_err(err, errlen, RT_EINVAL, "level-4 row %lld: bad target '%s' (NPU or CPU)",
                      (long long)r->at, r->target);
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, r->at);
    sqlite3_bind_int(s, 3, r->skip != 0);
    sq_bind_i64(s, 4, r->id);
    sq_bind_text(s, 5, r->op);
    sq_bind_text(s, 6, r->datatype);
    sq_bind_i64(s, 7, r->dtype);
    sq_bind_text(s, 8, r->target);
    sq_bind_i64(s, 9, r->n_in);
    sq_bind_i64(s, 10, r->n_out);
    sq_bind_text(s, 11, r->in_shapes);
    sq_bind_text(s, 12, r->out_shapes);
    sq_bind_i64(s, 13, r->ddr_cycles);
    sq_bind_i64(s, 14, r->npu_cycles);
    sq_bind_i64(s, 15, r->total_cycles);
    sq_bind_dbl(s, 16, r->time_us);
    sq_bind_dbl(s, 17, r->rw_kb);
    sqlite3_bind_int(s, 18, r->macs != 0);
    sqlite3_bind_int(s, 19, r->n_cores);
    for (int c = 0; c < STORE_NPU_ROW_CORES; c++) {
        sq_bind_dbl(s, 20 + c, c < r->n_cores ? r->mac_usage[c] : NAN);
        sq_bind_dbl(s, 23 + c, c < r->n_cores ? r->workload[c] : NAN);
    }
    sq_bind_i64(s, 26, r->tasks);
    sq_bind_text(s, 27, r->fullname);
    sq_bind_text(s, 28, r->note);
    if (frame)
        sq_bind_dbl(s, 29, r->frame_us);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : sq_db_fail(st, err, errlen, "cannot add the level-4 row");
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc;
}

/* frame: with the v6 column frame_us (the v4 -> v5 step writes without it) */
static int prepare_insert(store *st, int frame, sqlite3_stmt **s, char *err, size_t errlen)
{
    return sq_db_prepare(st, frame ? "INSERT INTO npu_rows (run_id, " NPU_ROW_COLS ", frame_us) "
                                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                                   : "INSERT INTO npu_rows (run_id, " NPU_ROW_COLS ") VALUES "
                                     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         s, err, errlen);
}

int sq_add_npu_rows(store *st, int64_t run_id, const store_npu_row *rows, int n, int frame,
                    char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;
    if (!n)
        return 0;
    if ((rc = prepare_insert(st, frame, &s, err, errlen)))
        return rc;
    for (int i = 0; i < n && !rc; i++)
        rc = add_row(st, s, run_id, &rows[i], frame, err, errlen);
    sqlite3_finalize(s);
    return rc;
}

int store_npu_row_add(store *st, int64_t run_id, const store_npu_row *row, char *err,
                      size_t errlen)
{
    int rc = sq_check_open(st, run_id, err, errlen);
    return rc ? rc : sq_add_npu_rows(st, run_id, row, 1, 1, err, errlen);
}

static void read_row(sqlite3_stmt *s, void *p)
{
    store_npu_row *r = p;
    store_npu_row_init(r);
    r->at = sqlite3_column_int64(s, 0);
    r->skip = sqlite3_column_int(s, 1);
    r->id = sq_col_i64(s, 2);
    r->op = sq_col_text(s, 3);
    r->datatype = sq_col_text(s, 4);
    r->dtype = sq_col_i64(s, 5);
    r->target = sq_col_text(s, 6);
    r->n_in = sq_col_i64(s, 7);
    r->n_out = sq_col_i64(s, 8);
    r->in_shapes = sq_col_text(s, 9);
    r->out_shapes = sq_col_text(s, 10);
    r->ddr_cycles = sq_col_i64(s, 11);
    r->npu_cycles = sq_col_i64(s, 12);
    r->total_cycles = sq_col_i64(s, 13);
    r->time_us = sq_col_dbl(s, 14);
    r->rw_kb = sq_col_dbl(s, 15);
    r->macs = sqlite3_column_int(s, 16);
    r->n_cores = sqlite3_column_int(s, 17);
    if (r->n_cores < 0 || r->n_cores > STORE_NPU_ROW_CORES) /* a row edited by hand */
        r->n_cores = 0;
    for (int c = 0; c < r->n_cores; c++) {
        r->mac_usage[c] = sq_col_dbl(s, 18 + c);
        r->workload[c] = sq_col_dbl(s, 21 + c);
    }
    r->tasks = sq_col_i64(s, 24);
    r->fullname = sq_col_text(s, 25);
    r->note = sq_col_text(s, 26);
    r->frame_us = sq_col_dbl(s, 27);
}

void store_npu_rows_free(store_npu_row *rows, int n)
{
    for (int i = 0; rows && i < n; i++) {
        const char *str[7] = {rows[i].op, rows[i].datatype, rows[i].target, rows[i].in_shapes,
                              rows[i].out_shapes, rows[i].fullname, rows[i].note};
        for (int k = 0; k < 7; k++)
            free((void *)str[k]);
    }
    free(rows);
}

static void free_rows(void *rows, int n) { store_npu_rows_free(rows, n); }

int store_get_npu_rows(store *st, int64_t run_id, store_npu_row **rows, int *n, char *err,
                       size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc;

    *rows = NULL;
    *n = 0;
    if ((rc = sq_db_prepare(st, "SELECT " NPU_ROW_COLS ", frame_us FROM npu_rows WHERE run_id = ? ORDER BY at",
                            &s, err, errlen)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    return sq_query_rows(st, s, sizeof(store_npu_row), read_row, free_rows,
                         "cannot read the level-4 rows", (void **)rows, n, err, errlen);
}

/* The kept row that is carrier row i's layer, each claimed once, or NULL: a
 * carrier the rebuild could not place (its layer ran out of its rows' order,
 * as YOLOX's class convs fused with a Sigmoid far below them) was printed
 * whole. Of its OpType, by FullName; else by output shapes, as the name of a
 * row whose fused nodes are not next to it is not its layer's. */
static const store_npu_row *kept_row_of(const store_layer *rows, int i, const store_npu_row *extra,
                                        int n_extra, char *claimed)
{
    char nm[512];
    const store_layer *l = &rows[i];
    store_layer_fullname(rows, i, nm, sizeof nm);
    for (int pass = 0; pass < 2; pass++)
        for (int e = 0; e < n_extra; e++) {
            const store_npu_row *x = &extra[e];
            if (claimed[e] || x->skip == 1 || !x->op || !l->npu_op || strcmp(x->op, l->npu_op))
                continue;
            if (pass ? x->out_shapes && l->out_shapes && !strcmp(x->out_shapes, l->out_shapes)
                     : x->fullname && !strcmp(x->fullname, nm)) {
                claimed[e] = 1;
                return x;
            }
        }
    return NULL;
}

void store_layers_number(store_layer *rows, int n, const store_npu_row *extra, int n_extra,
                         int64_t n_table, int own)
{
    int e = 0, pos = 0;
    char *claimed = NULL;

    for (int i = 0; i < n; i++) {
        store_layer *l = &rows[i];
        /* a printed table's row keeps the ID it printed (an excerpt's too, and
         * a build log's row without figures) */
        l->table_id = own ? l->idx : STORE_NULL_INT;
        if (own || l->total_cycles == STORE_NULL_INT)
            continue;
        /* the kept rows at the positions before it, then this row's own */
        for (;; pos++) {
            const store_npu_row *x = e < n_extra && extra[e].at == pos ? &extra[e] : NULL;
            if (!x) {
                l->table_id = pos + 1;
                break;
            }
            e++;
            if (x->skip == 1) { /* printed whole under its own ID */
                l->table_id = x->id;
                break;
            }
        }
        if (n_table != STORE_NULL_INT && pos >= n_table) { /* no room left in the table */
            if (!claimed)
                claimed = xcalloc((size_t)(n_extra ? n_extra : 1), 1);
            const store_npu_row *x = kept_row_of(rows, i, extra, n_extra, claimed);
            l->table_id = x ? x->id : STORE_NULL_INT;
        }
        pos++;
    }
    free(claimed);
}
