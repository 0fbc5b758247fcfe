/* tests/unit/test_api_npu.c — the simulated NPU as librknnrt shows it: RKNN_LOG_LEVEL
 * 0..5 (line format, init lines, SRAM table, per-layer table, .npy dumps), SRAM
 * (RKNN_FLAG_ENABLE_SRAM, RKNN_INTERNAL_MEM_TYPE, RKNN_QUERY_MEM_SIZE, release at
 * destroy, the rk3566 fallback), the published NPU load, and core masks.
 *
 * Oracles: the vendor formats are read back with the project's parsers of real logs
 * (tracer/tracer.h: the level-4 and level-3 parsers, and npu_load_parse); the numbers are compared with
 * the NPU model built here on its own from the same model file (model, passes, npu);
 * the chip's SRAM size 0xef000 and the dump names of mnist are written out by hand
 * (npu-hw.md §3.5, log-formats.md §5); the dumped .npy files are loaded by numpy
 * (/usr/bin/python3) and compared with what rknn_outputs_get returned.
 * Run from the repository root. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rknn_api.h"
#include "runtime/model/model.h"
#include "runtime/npu/npu.h"
#include "runtime/passes/passes.h"
#include "tests/test.h"
#include "tracer/tracer.h"
#include "util/util.h"

#define MNIST "tests/data/models/mnist.onnx"
#define UFACE "tests/data/models/ultraface_version-RFB-320.onnx"
#define RK3588_SRAM 0xef000u /* 956 KB assignable to the NPU (npu-hw.md §3.5, G:L7332) */

static char tmp_root[256];

/* ---- stderr capture ------------------------------------------------------------- */

static int saved_fd = -1;
static char cap_file[300];

static void cap_begin(void)
{
    int fd;

    snprintf(cap_file, sizeof cap_file, "%s/stderr.txt", tmp_root);
    fflush(stderr);
    saved_fd = dup(2);
    fd = open(cap_file, O_RDWR | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
}

/* Returns what was written to stderr since cap_begin (malloc'd, NUL-terminated). */
static char *cap_end(size_t *len)
{
    void *buf = NULL;
    size_t n = 0;
    char err[256];

    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    if (rt_read_file(cap_file, &buf, &n, err, sizeof err)) {
        buf = xstrdup("");
        n = 0;
    }
    buf = xrealloc(buf, n + 1);
    ((char *)buf)[n] = 0;
    if (len)
        *len = n;
    return buf;
}

/* Every line is "<L> RKNN: [HH:MM:SS.mmm] ..." with L in allowed; returns the line count,
 * -1 on a line that is not. */
static int lines_ok(const char *text, const char *allowed)
{
    int n = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len < 24 || !strchr(allowed, p[0]) || strncmp(p + 1, " RKNN: [", 8) ||
            p[11] != ':' || p[14] != ':' || p[17] != '.' || p[21] != ']' || p[22] != ' ')
            return -1;
        n++;
        p += len + (e ? 1 : 0);
    }
    return n;
}

static int count_lines(const char *text, char level)
{
    int n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        n += p[0] == level && !strncmp(p + 1, " RKNN: ", 7);
    return n;
}

/* ---- the NPU model built here, from the model file ------------------------------- */

typedef struct own {
    graph_t *g;
    npu_graph_t *ng;
    npu_sram_pool_t pool;
} own_t;

static int own_build(own_t *o, const char *path, const char *chip, unsigned mask, int sram,
                     uint32_t want)
{
    char err[512];
    input_shape_t sh[8];
    const npu_platform_t *p = npu_platform_find(chip);

    memset(o, 0, sizeof(*o));
    if (model_load_file(path, &o->g, err, sizeof err)) {
        CHECK(0, "load %s: %s", path, err);
        return -1;
    }
    for (int i = 0; i < o->g->n_inputs && i < 8; i++) {
        const tensor_t *t = &o->g->t[o->g->inputs[i]];
        sh[i].name = t->name;
        sh[i].ndim = t->ndim;
        for (int d = 0; d < t->ndim; d++)
            sh[i].dims[d] = t->dims[d] < 0 ? 1 : t->dims[d];
    }
    if (passes_prepare(o->g, sh, o->g->n_inputs, err, sizeof err) ||
        npu_lower(o->g, p, DT_FLOAT, &o->ng, err, sizeof err) ||
        npu_set_core_mask(o->ng, mask, err, sizeof err) ||
        (sram && npu_sram_pool_init(&o->pool, p, err, sizeof err)) ||
        npu_mem_plan(o->ng, o->g, sram ? &o->pool : NULL, want, err, sizeof err)) {
        CHECK(0, "own NPU model of %s: %s", path, err);
        return -1;
    }
    npu_cost(o->ng);
    return 0;
}

static void own_free(own_t *o)
{
    npu_graph_free(o->ng);
    graph_free(o->g);
    memset(o, 0, sizeof(*o));
}

/* ---- helpers ------------------------------------------------------------------------ */

static rknn_context init_model(const char *path, uint32_t flag)
{
    rknn_context ctx = 0;
    int r = rknn_init(&ctx, (void *)path, 0, flag, NULL);
    CHECK(r == RKNN_SUCC, "rknn_init %s flag 0x%x: %d", path, flag, r);
    return ctx;
}

/* Sets every input to a formula (float32 NCHW as the model declares), runs once. */
static int run_once(rknn_context ctx, float **in_copy, size_t *in_count)
{
    rknn_input_output_num io;
    rknn_tensor_attr a;
    rknn_input in;
    float *buf;
    size_t n = 1;
    int r;

    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io))
        return -1;
    memset(&a, 0, sizeof a);
    if (rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a))
        return -1;
    n = a.n_elems;
    buf = xmalloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)((i * 7919) % 255) / 255.0f;
    memset(&in, 0, sizeof in);
    in.index = 0;
    in.buf = buf;
    in.size = (uint32_t)(n * sizeof(float));
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    r = rknn_inputs_set(ctx, 1, &in);
    if (!r)
        r = rknn_run(ctx, NULL);
    if (in_copy) {
        *in_copy = buf;
        *in_count = n;
    } else {
        free(buf);
    }
    return r;
}

static char *perf_detail(rknn_context ctx)
{
    rknn_perf_detail pd;
    memset(&pd, 0, sizeof pd);
    if (rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) || !pd.perf_data)
        return NULL;
    return xstrdup(pd.perf_data);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- levels 0, 1, 2 ------------------------------------------------------------------ */

static void test_levels_012(void)
{
    rknn_context ctx;
    rknn_perf_detail pd;
    char *out;
    int n;

    /* level 0: a full init + run prints nothing; a misuse prints its E line only */
    setenv("RKNN_LOG_LEVEL", "0", 1);
    cap_begin();
    ctx = init_model(MNIST, 0);
    CHECK(rknn_run(ctx, NULL) == 0, "run without inputs"); /* a W at level >= 1 */
    /* without RKNN_FLAG_COLLECT_PERF_MASK: success, empty detail, a W line (level 1) */
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == 0 && pd.data_len == 0,
          "perf without flag");
    CHECK(rknn_query(ctx, RKNN_QUERY_CMD_MAX, &pd, sizeof pd) == RKNN_ERR_PARAM_INVALID,
          "a bad command");
    rknn_destroy(ctx);
    out = cap_end(NULL);
    n = lines_ok(out, "E");
    CHECK(n == 1, "level 0: one E line, got %d lines:\n%s", n, out);
    CHECK(strstr(out, "cmd = 18") != NULL, "the E line says why: %s", out);
    free(out);

    /* level 1: + the W line of the unset input */
    setenv("RKNN_LOG_LEVEL", "1", 1);
    cap_begin();
    ctx = init_model(MNIST, 0);
    CHECK(rknn_run(ctx, NULL) == 0, "run");
    rknn_destroy(ctx);
    out = cap_end(NULL);
    CHECK(lines_ok(out, "W") == 1 && strstr(out, "never set"), "level 1: one W line:\n%s", out);
    free(out);
    cap_begin();
    ctx = init_model(MNIST, 0);
    CHECK(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) == 0, "perf without flag");
    rknn_destroy(ctx);
    out = cap_end(NULL);
    CHECK(lines_ok(out, "W") == 1 && strstr(out, "RKNN_FLAG_COLLECT_PERF_MASK"),
          "level 1: PERF_DETAIL without the flag gives one W line naming it:\n%s", out);
    free(out);

    /* level 2: + the three init lines, as the vendor's 2.x runtime prints them */
    setenv("RKNN_LOG_LEVEL", "2", 1);
    cap_begin();
    ctx = init_model(MNIST, 0);
    CHECK(run_once(ctx, NULL, NULL) == 0, "run");
    rknn_destroy(ctx);
    out = cap_end(NULL);
    CHECK(lines_ok(out, "I") == 3, "level 2: three I lines:\n%s", out);
    {
        const char *a = strstr(out, "] RKNN Runtime Information, librknnrt version: ");
        const char *b = strstr(out, "] RKNN Driver Information, version: ");
        const char *c = strstr(out, "] RKNN Model Information, version: ");
        CHECK(a && b && c && a < b && b < c, "order of the init lines:\n%s", out);
        CHECK(a && strstr(a, "rknn-trace simulator") != NULL, "the runtime names the simulator");
        CHECK(b && strstr(b, "no rknpu driver") != NULL, "no driver on the simulator");
        CHECK(c && strstr(c, "target platform: rk3588, framework name: ONNX, framework layout: "
                             "NCHW, model inference type: static_shape, model name: mnist.onnx"),
              "model line fields: %s", c ? c : "");
        CHECK(c && strstr(c, "toolkit version: none") && strstr(c, "version: none"),
              "no made-up model/toolkit version");
    }
    free(out);

    /* an unknown level: the vendor's E line, then as 0 */
    setenv("RKNN_LOG_LEVEL", "abc", 1);
    cap_begin();
    ctx = init_model(MNIST, 0);
    rknn_destroy(ctx);
    out = cap_end(NULL);
    CHECK(lines_ok(out, "E") == 1 && strstr(out, "Unsupported log level: abc"), "bad level:\n%s",
          out);
    free(out);
    unsetenv("RKNN_LOG_LEVEL");
}

/* ---- level 3: debug lines and the SRAM table ---------------------------------------- */

static void check_sram_table(const char *text, const own_t *o, const char *what)
{
    sramlog_table_t *t = NULL;
    const npu_mem_plan_t *mp = o->ng->mem;
    char err[256];
    int n = 0, bad = 0;

    CHECK(sramlog_parse(text, strlen(text), &t, &n, err, sizeof err) == 0 && n == 1,
          "%s: parse the SRAM table: %s (%d tables)", what, err, n);
    if (n != 1)
        goto out;
    CHECK(!strcmp(t->alloc_kind, "Internal") && t->alloc_size == (int64_t)mp->sram_size &&
              t->alloc_start == mp->iova_internal &&
              t->alloc_end == mp->iova_internal + mp->sram_size,
          "%s: SRAM box %lld vs %u", what, (long long)t->alloc_size, mp->sram_size);
    CHECK(t->n_rows == mp->n && t->n_bad_rows == 0 && t->has_hit, "%s: rows %d/%d", what,
          t->n_rows, mp->n);
    CHECK(t->total_weight == (int64_t)mp->weight_size &&
              t->total_internal == (int64_t)mp->internal_size &&
              t->rw_internal == (int64_t)mp->rw_internal &&
              t->rw_weight == (int64_t)mp->rw_weight &&
              t->rw_sram_hit == (int64_t)mp->rw_sram_hit,
          "%s: footer", what);
    for (int i = 0; i < t->n_rows && i < mp->n; i++) {
        const sramlog_row_t *r = &t->rows[i];
        const npu_mem_tensor_t *e = &mp->t[i];
        bad += !(r->id == i + 1 && !strcmp(r->tensor, e->name) && !strcmp(r->user, e->user) &&
                 !strcmp(r->datatype, e->datatype) && r->start == e->addr &&
                 r->size == e->bytes && r->end == e->addr + e->bytes &&
                 r->hit == (e->internal ? (int64_t)e->hit : -1));
    }
    CHECK(bad == 0, "%s: %d rows differ from the plan", what, bad);
out:
    sramlog_free(t, n);
}

/* used bytes in the published debugfs `mm` node (sramlog_parse_mm), -1 if unreadable */
static int64_t mm_used(void)
{
    char path[400], err[256];
    void *buf = NULL;
    size_t len = 0;
    sramlog_mm_t mm;
    int64_t used = -1;

    snprintf(path, sizeof path, "%s/rknpu/mm", getenv("RKNN_TRACE_SYSFS"));
    if (rt_read_file(path, &buf, &len, err, sizeof err) == 0 &&
        sramlog_parse_mm(buf, len, &mm, err, sizeof err) == 256 - 17 && mm.total == RK3588_SRAM)
        used = mm.used;
    free(buf);
    return used;
}

static void mem_size(rknn_context ctx, rknn_mem_size *m)
{
    memset(m, 0xff, sizeof *m);
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, m, sizeof *m) == 0, "MEM_SIZE");
}

static void test_level3_sram(void)
{
    rknn_context c1, c2, c3;
    rknn_mem_size m;
    own_t o;
    char *out, line[160];
    int64_t a1 = 0;

    setenv("RKNN_LOG_LEVEL", "3", 1);
    unsetenv("RKNN_TARGET");
    /* without the flag: debug lines, no SRAM table, all SRAM free */
    cap_begin();
    c1 = init_model(UFACE, 0);
    out = cap_end(NULL);
    CHECK(lines_ok(out, "ID") > 3 && count_lines(out, 'D') >= 2, "level 3 D lines:\n%s", out);
    CHECK(!strstr(out, "SramHit"), "no SRAM table without RKNN_FLAG_ENABLE_SRAM");
    mem_size(c1, &m);
    CHECK(m.total_sram_size == RK3588_SRAM && m.free_sram_size == RK3588_SRAM,
          "no SRAM used: %u/%u", m.total_sram_size, m.free_sram_size);
    free(out);
    rknn_destroy(c1);

    /* with it: the table equals the plan of the NPU model built here */
    if (own_build(&o, UFACE, "rk3588", 0, 1, 0))
        return;
    cap_begin();
    c1 = init_model(UFACE, RKNN_FLAG_ENABLE_SRAM);
    out = cap_end(NULL);
    CHECK(lines_ok(out, "ID") > 10, "every line prefixed (I/D):\n%.2000s", out);
    CHECK(o.ng->mem->sram_size > 0, "ultraface gets SRAM");
    check_sram_table(out, &o, "ENABLE_SRAM");
    snprintf(line, sizeof line, "allocated internal size: %llu with sram size: %u, total sram "
             "size: %u, free sram size: %u", (unsigned long long)o.ng->mem->internal_size,
             o.ng->mem->sram_size, RK3588_SRAM, RK3588_SRAM - o.ng->mem->sram_size);
    CHECK(strstr(out, line) != NULL, "D line '%s' in:\n%.600s", line, out);
    {
        sramlog_table_t *t = NULL;
        int n = 0;
        char err[128];
        if (sramlog_parse(out, strlen(out), &t, &n, err, sizeof err) == 0 && n == 1)
            a1 = t->alloc_size;
        sramlog_free(t, n);
    }
    free(out);
    mem_size(c1, &m);
    CHECK(m.total_sram_size == RK3588_SRAM && (int64_t)m.free_sram_size == RK3588_SRAM - a1,
          "MEM_SIZE sram %u/%u, table %lld", m.total_sram_size, m.free_sram_size,
          (long long)a1);
    CHECK(mm_used() == a1, "debugfs mm: %lld used, table %lld", (long long)mm_used(),
          (long long)a1);
    own_free(&o);

    /* a second context gets what is left (first fit after the first one); SHARE_SRAM is
     * not implemented (by the vendor either): W line */
    setenv("RKNN_LOG_LEVEL", "1", 1);
    cap_begin();
    c2 = init_model(UFACE, RKNN_FLAG_ENABLE_SRAM | RKNN_FLAG_SHARE_SRAM);
    out = cap_end(NULL);
    CHECK(strstr(out, "W RKNN: [") && strstr(out, "RKNN_FLAG_SHARE_SRAM is not implemented"),
          "SHARE_SRAM warning:\n%s", out);
    free(out);
    mem_size(c2, &m);
    {
        uint64_t want = RK3588_SRAM - (uint64_t)a1, buf = 0;
        own_t o2;
        if (own_build(&o2, UFACE, "rk3588", 0, 0, 0) == 0) {
            buf = (o2.ng->mem->internal_size + 4095) / 4096 * 4096;
            own_free(&o2);
        }
        uint64_t got = buf < want ? buf : want;
        CHECK(m.free_sram_size == RK3588_SRAM - a1 - got, "second context: free %u, want %llu",
              m.free_sram_size, (unsigned long long)(RK3588_SRAM - a1 - got));
    }
    /* destroying gives SRAM back */
    rknn_destroy(c1);
    rknn_destroy(c2);
    CHECK(mm_used() == 0, "debugfs mm after rknn_destroy: %lld used", (long long)mm_used());
    setenv("RKNN_LOG_LEVEL", "0", 1);
    c3 = init_model(MNIST, 0);
    mem_size(c3, &m);
    CHECK(m.free_sram_size == RK3588_SRAM, "all SRAM free after rknn_destroy: %u",
          m.free_sram_size);
    rknn_destroy(c3);
    setenv("RKNN_LOG_LEVEL", "3", 1);

    /* RKNN_INTERNAL_MEM_TYPE=sram#256: 256 KiB of SRAM without the flag */
    setenv("RKNN_INTERNAL_MEM_TYPE", "sram#256", 1);
    if (own_build(&o, UFACE, "rk3588", 0, 1, 256 * 1024) == 0) {
        cap_begin();
        c1 = init_model(UFACE, 0);
        out = cap_end(NULL);
        CHECK(o.ng->mem->sram_size == 256 * 1024, "own plan takes 256 KiB: %u",
              o.ng->mem->sram_size);
        check_sram_table(out, &o, "RKNN_INTERNAL_MEM_TYPE=sram#256");
        free(out);
        mem_size(c1, &m);
        CHECK(m.free_sram_size == RK3588_SRAM - 256 * 1024, "free %u", m.free_sram_size);
        rknn_destroy(c1);
        own_free(&o);
    }
    unsetenv("RKNN_INTERNAL_MEM_TYPE");

    /* rk3566 has no NPU SRAM: W line naming the chip, runs from DDR */
    setenv("RKNN_TARGET", "rk3566", 1);
    setenv("RKNN_LOG_LEVEL", "1", 1);
    cap_begin();
    c1 = init_model(MNIST, RKNN_FLAG_ENABLE_SRAM);
    CHECK(run_once(c1, NULL, NULL) == 0, "rk3566 runs with the flag");
    out = cap_end(NULL);
    CHECK(lines_ok(out, "W") == 1 && strstr(out, "RKNN_FLAG_ENABLE_SRAM: rk3566 has no NPU SRAM") &&
              strstr(out, "DDR"),
          "rk3566 fallback warning:\n%s", out);
    free(out);
    mem_size(c1, &m);
    CHECK(m.total_sram_size == 0 && m.free_sram_size == 0, "rk3566 MEM_SIZE sram %u/%u",
          m.total_sram_size, m.free_sram_size);
    rknn_destroy(c1);
    setenv("RKNN_LOG_LEVEL", "3", 1);
    cap_begin();
    c1 = init_model(MNIST, RKNN_FLAG_ENABLE_SRAM);
    out = cap_end(NULL);
    CHECK(!strstr(out, "SramHit") && !strstr(out, "Total allocated Internal SRAM"),
          "no SRAM table on rk3566");
    free(out);
    rknn_destroy(c1);
    unsetenv("RKNN_TARGET");
    unsetenv("RKNN_LOG_LEVEL");
}

/* ---- level 4: the per-layer table after each run ------------------------------------- */

static int rows_equal(const perflog_row_t *a, const perflog_row_t *b)
{
    return a->id == b->id && !strcmp(a->optype, b->optype) && !strcmp(a->target, b->target) &&
           !strcmp(a->datatype, b->datatype) && !strcmp(a->inshape, b->inshape) &&
           !strcmp(a->outshape, b->outshape) && a->ddr == b->ddr && a->npu == b->npu &&
           a->total == b->total && a->time_us == b->time_us && a->rw_kb == b->rw_kb &&
           !strcmp(a->fullname, b->fullname);
}

static void test_level4(const char *model, unsigned mask)
{
    rknn_context ctx;
    perflog_table_t *t = NULL, *q = NULL;
    int nt = 0, nq = 0, bad = 0;
    char *out, *pd, err[256];
    own_t o;

    if (own_build(&o, model, "rk3588", mask, 1, 0))
        return;
    setenv("RKNN_LOG_LEVEL", "4", 1);
    cap_begin(); /* init (with its level-3 SRAM table) and one run */
    ctx = init_model(model, RKNN_FLAG_COLLECT_PERF_MASK | RKNN_FLAG_ENABLE_SRAM);
    if (mask)
        CHECK(rknn_set_core_mask(ctx, (rknn_core_mask)mask) == 0, "core mask %u", mask);
    CHECK(run_once(ctx, NULL, NULL) == 0, "run %s", model);
    out = cap_end(NULL);
    check_sram_table(out, &o, model);
    pd = perf_detail(ctx);
    CHECK(pd != NULL, "PERF_DETAIL");
    CHECK(lines_ok(out, "ID") > 10 && count_lines(out, 'I') > 10,
          "level-4 lines prefixed with I RKNN: [ts]");
    CHECK(perflog_parse(out, strlen(out), &t, &nt, err, sizeof err) == 0 && nt == 1,
          "%s: parse level-4 stderr: %s", model, err);
    CHECK(pd && perflog_parse(pd, strlen(pd), &q, &nq, err, sizeof err) == 0 && nq == 1,
          "%s: parse PERF_DETAIL: %s", model, err);
    if (nt != 1 || nq != 1)
        goto out;
    CHECK(t->generation == 'A' && t->n_bad_rows == 0, "2.x layout, no bad rows");
    /* the printed table is the PERF_DETAIL text of the same run */
    CHECK(t->n_rows == q->n_rows && t->total_time_us == q->total_time_us &&
              t->n_ops == q->n_ops && t->has_total_op,
          "stderr vs PERF_DETAIL: rows %d/%d total %lld/%lld", t->n_rows, q->n_rows,
          (long long)t->total_time_us, (long long)q->total_time_us);
    for (int i = 0; i < t->n_rows && i < q->n_rows; i++)
        bad += !rows_equal(&t->rows[i], &q->rows[i]);
    CHECK(bad == 0, "%d rows differ between stderr and PERF_DETAIL", bad);
    /* and the NPU model built here: same layers, same cycles on the NPU rows */
    CHECK(t->n_rows == o.ng->n, "%s: %d rows, NPU model %d layers", model, t->n_rows, o.ng->n);
    bad = 0;
    for (int i = 0; i < t->n_rows && i < o.ng->n; i++) {
        const perflog_row_t *r = &t->rows[i];
        const npu_layer_t *l = &o.ng->l[i];
        int ok = r->id == l->id && !strcmp(r->optype, l->optype) &&
                 !strcmp(r->target, l->target == NPU_TGT_NPU ? "NPU" : "CPU");
        if (ok && l->target == NPU_TGT_NPU)
            ok = r->ddr == (int64_t)l->ddr_cycles && r->npu == (int64_t)l->npu_cycles &&
                 r->total == (int64_t)l->total_cycles && r->time_us == (int64_t)l->time_us &&
                 r->rw_kb == (double)(int64_t)l->rw_kb; /* printed truncated */
        if (ok && l->target == NPU_TGT_NPU && mask == RKNN_NPU_CORE_0_1_2 &&
            l->workload[1] > 0)
            ok = r->n_wl == 3 && fabs(r->wl[1] - l->workload[1]) < 0.11;
        if (!ok && bad++ < 3)
            fprintf(stderr, "row %d: %s/%s %s ddr %lld/%llu npu %lld/%llu time %lld/%.0f rw "
                    "%.3f/%.3f wl %d %.1f/%.1f\n", r->id, r->optype, l->optype, r->target,
                    (long long)r->ddr, (unsigned long long)l->ddr_cycles, (long long)r->npu,
                    (unsigned long long)l->npu_cycles, (long long)r->time_us, l->time_us,
                    r->rw_kb, l->rw_kb, r->n_wl, r->wl[1], l->workload[1]);
    }
    CHECK(bad == 0, "%s: %d rows differ from the NPU model", model, bad);
out:
    perflog_free(t, nt);
    perflog_free(q, nq);
    free(out);
    free(pd);
    rknn_destroy(ctx);
    own_free(&o);
    unsetenv("RKNN_LOG_LEVEL");
}

/* ---- level 5: dumps ------------------------------------------------------------------ */

/* Runs model at level 5 into a fresh dump folder; checks the files against the NPU model
 * built here (every layer's output under npu_dump_name, each announced by its D line),
 * hand-written names, and with numpy: each OutputOperator file equals what
 * rknn_outputs_get returned, the InputOperator file the input, every shape its name. */
static void test_level5(const char *model, const char *tag, const char *const *hand, int n_hand)
{
    char dir[300], path[700], *cmd, *out, ref_in[400], args[4096] = "", name[400];
    rknn_context ctx;
    rknn_input_output_num io;
    rknn_output o[8];
    float *in = NULL;
    size_t n_in = 0, nfiles = 0, u = 0;
    own_t own;
    FILE *f;
    DIR *d;
    struct dirent *de;
    int r, ndump = 0, missing = 0, n_outop = 0;

    snprintf(dir, sizeof dir, "%s/dumps-%s/sub", tmp_root, tag); /* created with parents */
    setenv("RKNN_DUMP_DIR", dir, 1);
    setenv("RKNN_LOG_LEVEL", "5", 1);
    cap_begin();
    ctx = init_model(model, 0);
    free(cap_end(NULL)); /* the init lines: tested above */
    cap_begin();
    r = run_once(ctx, &in, &n_in);
    out = cap_end(NULL);
    CHECK(r == 0, "%s: level-5 run", tag);
    memset(o, 0, sizeof o);
    CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) == 0 && io.n_output <= 8,
          "io num");
    for (uint32_t k = 0; k < io.n_output && k < 8; k++) {
        o[k].index = k;
        o[k].want_float = 1;
    }
    CHECK(rknn_outputs_get(ctx, io.n_output, o, NULL) == 0, "outputs_get");
    CHECK(lines_ok(out, "ID") > 0 && count_lines(out, 'E') == 0, "level 5: I/D lines only");
    CHECK(strstr(out, "Get NPU frequency: 1000MHz") != NULL, "frequency line");
    for (int i = 0; i < n_hand; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, hand[i]);
        CHECK(file_exists(path), "%s: dump %s", tag, hand[i]);
    }
    snprintf(ref_in, sizeof ref_in, "%s/in-%s.f32", tmp_root, tag);
    f = fopen(ref_in, "wb");
    if (f) {
        fwrite(in, sizeof(float), n_in, f);
        fclose(f);
    }
    if (own_build(&own, model, "rk3588", 0, 0, 0) == 0) {
        for (int i = 0; i < own.ng->n; i++) {
            const npu_layer_t *l = &own.ng->l[i];
            const tensor_t *t;
            npu_shape_t s = {0};
            char line[800];
            if (l->out_tensor < 0)
                continue;
            t = &own.g->t[l->out_tensor];
            s.nd = t->ndim;
            for (int k = 0; k < t->ndim; k++)
                s.d[k] = t->dims[k];
            npu_dump_name(name, sizeof name, l->id - 1, l->optype, t->name, &s, "float");
            snprintf(path, sizeof path, "%s/%s", dir, name);
            snprintf(line, sizeof line, "] dump npy tensor to: %s\n", path);
            missing += !file_exists(path) || !strstr(out, line);
            ndump++;
            if (!strcmp(l->optype, "InputOperator"))
                u += (size_t)snprintf(args + u, sizeof args - u, " '%s' '%s'", path, ref_in);
            for (uint32_t k = 0; k < io.n_output && !strcmp(l->optype, "OutputOperator"); k++) {
                rknn_tensor_attr a;
                char ref[400];
                memset(&a, 0, sizeof a);
                a.index = k;
                if (rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a) ||
                    strcmp(a.name, t->name))
                    continue;
                snprintf(ref, sizeof ref, "%s/out-%s-%u.f32", tmp_root, tag, k);
                f = fopen(ref, "wb");
                if (f) {
                    fwrite(o[k].buf, 1, o[k].size, f);
                    fclose(f);
                }
                u += (size_t)snprintf(args + u, sizeof args - u, " '%s' '%s'", path, ref);
                n_outop++;
            }
        }
        CHECK(ndump >= 8 && missing == 0, "%s: %d of %d layer dumps missing", tag, missing, ndump);
        CHECK(n_outop == (int)io.n_output, "%s: %d OutputOperator dumps for %u outputs", tag,
              n_outop, io.n_output);
        own_free(&own);
    }
    d = opendir(dir);
    while (d && (de = readdir(d)) != NULL)
        nfiles += de->d_name[0] != '.';
    if (d)
        closedir(d);
    CHECK((int)nfiles == count_lines(out, 'D') - 2, "%s: %zu files, %d dump lines", tag, nfiles,
          count_lines(out, 'D') - 2);
    /* numpy: pairs (dump, raw float32 reference), then every file's shape vs its name */
    cmd = xmalloc(8192);
    snprintf(cmd, 8192,
             "/usr/bin/python3 -c '\n"
             "import sys, os, glob, numpy as np\n"
             "d = sys.argv[1]; p = sys.argv[2:]\n"
             "for f, ref in zip(p[0::2], p[1::2]):\n"
             "    a = np.load(f)\n"
             "    r = np.fromfile(ref, dtype=np.float32)\n"
             "    assert a.dtype == np.float32 and a.size == r.size, (f, a.dtype, a.shape)\n"
             "    assert np.array_equal(a.reshape(-1), r), f\n"
             "n = 0\n"
             "for f in glob.glob(os.path.join(d, \"*.npy\")):\n"
             "    x = np.load(f)\n"
             "    dims = tuple(int(v) for v in f.rsplit(\"_shape_\", 1)[1].split(\"_\")[:-1])\n"
             "    assert x.shape == dims, (f, x.shape)\n"
             "    n += 1\n"
             "print(\"numpy ok\", len(p) // 2, n)' '%s'%s 2>&1",
             dir, args);
    {
        FILE *p = popen(cmd, "r");
        char res[2000] = "", want[64];
        size_t k = p ? fread(res, 1, sizeof res - 1, p) : 0;
        res[k] = 0;
        int st = p ? pclose(p) : -1;
        snprintf(want, sizeof want, "numpy ok %u %zu", io.n_output + 1, nfiles);
        CHECK(st == 0 && strstr(res, want), "%s: numpy check (want '%s'): %s", tag, want, res);
    }
    free(cmd);
    rknn_outputs_release(ctx, io.n_output, o);
    rknn_destroy(ctx);
    free(in);
    free(out);
    unsetenv("RKNN_DUMP_DIR");
    unsetenv("RKNN_LOG_LEVEL");
}

/* ---- NPU load ------------------------------------------------------------------------ */

/* Runs ultraface `runs` times on cores 0_1_2 (with or without per-layer perf, which the
 * vendor runs layer by layer) after the 1 s window emptied; the published file must
 * say what the NPU model built here predicts: per core, the busy time of all runs in
 * 1 s. perf: npu_load_add_run (the level-4 layer times); else the layers' frame-model
 * times (one job, as npu_frame_us). */
static void load_case(const own_t *o, const char *path, int perf, int runs)
{
    char err[256], *text = NULL;
    size_t len;
    int pct[NPU_MAX_CORES], want[NPU_MAX_CORES], n = 0;
    rknn_context ctx;
    npu_load_t ld;
    double t0, el;

    ctx = init_model(UFACE, perf ? RKNN_FLAG_COLLECT_PERF_MASK : 0);
    CHECK(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0_1_2) == 0, "core mask 0_1_2");
    usleep(1100 * 1000); /* earlier runs leave the window */
    t0 = rt_now_us();
    for (int i = 0; i < runs; i++)
        n += run_once(ctx, NULL, NULL) != 0;
    el = rt_now_us() - t0;
    CHECK(n == 0, "%d of %d runs failed", n, runs);
    rknn_destroy(ctx); /* writes are throttled to 10/s; rknn_destroy writes the last */
    CHECK(rt_read_file(path, (void **)&text, &len, err, sizeof err) == 0, "%s", err);
    text = xrealloc(text, len + 1);
    text[len] = 0;
    n = npu_load_parse(text, pct, err, sizeof err);
    CHECK(n == 3, "3 cores in '%s' (%s)", text, err);
    CHECK(!strncmp(text, "NPU load:  Core0: ", 18) && text[len - 1] == '\n' &&
              text[len - 2] == ',', "driver format: '%s'", text);
    npu_load_init(&ld, o->ng->plat);
    for (int r = 0; r < runs; r++) {
        if (perf) {
            npu_load_add_run(&ld, o->ng);
            continue;
        }
        for (int i = 0; i < o->ng->n; i++) {
            const npu_layer_t *l = &o->ng->l[i];
            double t = l->frame_us;
            for (int c = 0; c < 3 && l->target == NPU_TGT_NPU && t > 0; c++)
                ld.busy_us[c] += t * l->workload[c] / 100.0;
        }
    }
    ld.window_us = 1e6;
    npu_load_percent(&ld, want);
    CHECK(want[0] > 0 && want[1] > 0, "ultraface keeps cores 0 and 1 busy: %d %d", want[0],
          want[1]);
    for (int c = 0; c < 3; c++) {
        if (el < 0.9e6) /* +-1: the same sum, added in another order, then truncated */
            CHECK(abs(pct[c] - want[c]) <= 1, "perf %d core %d: %d%%, predicted %d%%", perf, c,
                  pct[c], want[c]);
        else /* slow host (sanitizers): some runs left the window */
            CHECK(pct[c] <= want[c] + 1, "perf %d core %d: %d%% <= %d%%", perf, c, pct[c],
                  want[c]);
    }
    free(text);
}

static void test_load(void)
{
    char sys[300], path[400], err[256], *text = NULL;
    size_t len;
    int pct[NPU_MAX_CORES];
    rknn_context ctx;
    own_t o;

    snprintf(sys, sizeof sys, "%s/sys", tmp_root);
    setenv("RKNN_TRACE_SYSFS", sys, 1);
    snprintf(path, sizeof path, "%s/rknpu/load", sys);
    if (own_build(&o, UFACE, "rk3588", RKNN_NPU_CORE_0_1_2, 0, 0))
        return;
    load_case(&o, path, 0, 200);
    load_case(&o, path, 1, 100);
    own_free(&o);

    /* single-core chip: "NPU load: N%" */
    setenv("RKNN_TARGET", "rk3566", 1);
    ctx = init_model(MNIST, 0);
    CHECK(run_once(ctx, NULL, NULL) == 0, "rk3566 run");
    rknn_destroy(ctx);
    text = NULL;
    CHECK(rt_read_file(path, (void **)&text, &len, err, sizeof err) == 0, "%s", err);
    text = xrealloc(text, len + 1);
    text[len] = 0;
    CHECK(npu_load_parse(text, pct, err, sizeof err) == 1 && !strncmp(text, "NPU load: ", 10) &&
              !strstr(text, "Core"),
          "single core: '%s'", text);
    free(text);
    unsetenv("RKNN_TARGET");
}

/* A load node that must not be written (rknpu is a planted link): rknn_run still
 * succeeds, one W line says why, nothing is written through the link. */
static void test_load_refused(void)
{
    char sys[300], link[400], away[300], path[400], *out;
    rknn_context ctx;
    int r1, r2;

    snprintf(sys, sizeof sys, "%s/sysbad", tmp_root);
    snprintf(away, sizeof away, "%s/away", tmp_root);
    mkdir(sys, 0700);
    mkdir(away, 0700);
    snprintf(link, sizeof link, "%s/rknpu", sys);
    CHECK(symlink(away, link) == 0, "plant %s", link);
    setenv("RKNN_TRACE_SYSFS", sys, 1);
    setenv("RKNN_LOG_LEVEL", "1", 1);
    ctx = init_model(MNIST, 0);
    cap_begin();
    r1 = run_once(ctx, NULL, NULL);
    usleep(120000); /* past the 100 ms between writes */
    r2 = run_once(ctx, NULL, NULL);
    rknn_destroy(ctx);
    out = cap_end(NULL);
    unsetenv("RKNN_LOG_LEVEL");
    CHECK(r1 == 0 && r2 == 0, "runs succeed without the load node: %d %d", r1, r2);
    CHECK(strstr(out, "W RKNN: ") && strstr(out, "NPU load not published") &&
              strstr(out, "symbolic link"), "W line: %s", out);
    {
        const char *first = strstr(out, "NPU load not published");
        CHECK(first && !strstr(first + 1, "NPU load not published"), "said once: %s", out);
    }
    snprintf(path, sizeof path, "%s/load", away);
    CHECK(access(path, F_OK) != 0, "nothing written through the link");
    free(out);
    snprintf(sys, sizeof sys, "%s/sys", tmp_root);
    setenv("RKNN_TRACE_SYSFS", sys, 1);
}

/* ---- core masks through the NPU model ------------------------------------------------ */

static void test_core_mask(void)
{
    rknn_context ctx;
    char *out;
    int r;

    setenv("RKNN_TARGET", "rk3576", 1);
    ctx = init_model(MNIST, 0);
    cap_begin();
    r = rknn_set_core_mask(ctx, RKNN_NPU_CORE_2);
    out = cap_end(NULL);
    CHECK(r == RKNN_ERR_PARAM_INVALID, "rk3576 core 2: %d", r);
    CHECK(lines_ok(out, "E") == 1 && strstr(out, "rk3576") && strstr(out, "2 cores"),
          "E line names the chip's cores: %s", out);
    free(out);
    CHECK(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0_1) == 0, "rk3576 cores 0_1");
    rknn_destroy(ctx);
    unsetenv("RKNN_TARGET");
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/test_api_npu.XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    unsetenv("RKNN_TARGET");
    unsetenv("RKNN_INTERNAL_MEM_TYPE");
    {
        char sys[300];
        snprintf(sys, sizeof sys, "%s/sys", tmp_root); /* load files of every run here */
        setenv("RKNN_TRACE_SYSFS", sys, 1);
    }
    test_levels_012();
    test_level3_sram();
    test_level4(MNIST, 0);
    test_level4(UFACE, 0);
    test_level4(UFACE, RKNN_NPU_CORE_0_1_2);
    {
        /* written out by hand from the vendor grammar (log-formats.md §5) */
        static const char *const mnist[] = {
            "000_InputOperator_Input3_shape_1_1_28_28_float.npy",
            "001_ConvRelu_Input3_shape_1_1_28_28_float.npy",
            "007_OutputOperator_Plus214_Output_0_shape_1_10_float.npy",
        };
        static const char *const uface[] = {
            "000_InputOperator_input_shape_1_3_240_320_float.npy",
            "001_ConvRelu_input_shape_1_3_240_320_float.npy",
            "001_ConvRelu_247_shape_1_16_120_160_float.npy",
        };
        test_level5(MNIST, "mnist", mnist, 3);
        test_level5(UFACE, "ultraface", uface, 3);
    }
    test_load();
    test_load_refused();
    test_core_mask();
    {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove %s\n", tmp_root);
    }
    TEST_END();
}
