/* tests/tools/conformance.c — runs the ONNX backend conformance data (Debian's
 * libonnx-testdata) through the importer, passes and executor.
 *
 *   conformance [-v] [-j THREADS] [--no-fork] [--known FILE] [--filter TEXT] [ROOT]
 *
 * ROOT (default /usr/share/libonnx-testdata/data) holds the suites node,
 * pytorch-converted and pytorch-operator; each case dir has model.onnx and
 * test_data_set_N/{input,output}_M.pb. Outputs are compared with the ONNX backend
 * tolerance |a-b| <= atol + rtol*|b| (rtol 1e-3, atol 1e-7; NaN equals NaN;
 * integers and bools exactly). Each case runs in a child process so that a
 * crashing kernel is reported as that case's failure and the run goes on.
 *
 * Known failures (tests/conformance/known_failures.txt, `case_name  reason` per
 * line, case_name either `test_x` or `suite/test_x`) are printed as "known" and
 * not counted; a known failure that passes is an error, so the list stays honest.
 * Exit status 1 on any unexpected failure. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "runtime/exec/exec.h"
#include "util/util.h"

#define RTOL 1e-3
#define ATOL 1e-7
#define CASE_TIMEOUT_S 120

enum { R_PASS, R_FAIL, R_UNSUP };

/* What a child reports about one case. */
typedef struct result {
    int status;            /* R_* */
    int shape_consts;      /* passed with shape inputs turned into constants */
    char msg[600];         /* first mismatch / failure / unsupported reason */
    char ops[2048];        /* distinct op types of the model, space separated */
    char unsup_ops[1024];  /* the unsupported ones among them */
} result_t;

typedef struct opstat {
    char *op;
    int pass, fail, unsup, known;
} opstat_t;

typedef struct known {
    char *name;
    char *reason;
    int seen;
} known_t;

static int verbose;
static int nthreads = 2;

/* ---- small helpers -------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of dir starting with prefix ("" for all). */
static char **list_dir(const char *dir, const char *prefix, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    int cnt = 0, cap = 0;

    *n = 0;
    if (!d)
        return NULL;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            v = xrealloc(v, sizeof(*v) * (size_t)cap);
        }
        v[cnt++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (cnt)
        qsort(v, (size_t)cnt, sizeof(*v), cmp_str);
    *n = cnt;
    return v;
}

static void free_list(char **v, int n)
{
    int i;

    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int file_exists(const char *p)
{
    struct stat st;

    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void add_word(char *buf, size_t len, const char *w)
{
    size_t off = strlen(buf), wl = strlen(w);
    const char *p = buf;

    /* already there? */
    while ((p = strstr(p, w))) {
        if ((p == buf || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == 0))
            return;
        p += wl;
    }
    if (off + wl + 2 < len)
        snprintf(buf + off, len - off, "%s%s", off ? " " : "", w);
}

static float half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    float f;

    if (e == 0) {
        f = ldexpf((float)m, -24); /* zero and subnormals */
        return s ? -f : f;
    }
    if (e == 31)
        bits = s | 0x7f800000u | (m << 13);
    else
        bits = s | ((e + 112) << 23) | (m << 13);
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static int is_float_type(int dt)
{
    return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_FLOAT16 || dt == DT_BFLOAT16;
}

static double elem_f64(const tensor_t *t, int64_t i)
{
    uint32_t bits;
    float f;

    switch (t->dtype) {
    case DT_FLOAT: return ((const float *)t->data)[i];
    case DT_DOUBLE: return ((const double *)t->data)[i];
    case DT_FLOAT16: return half_to_float(((const uint16_t *)t->data)[i]);
    case DT_BFLOAT16:
        bits = (uint32_t)((const uint16_t *)t->data)[i] << 16;
        memcpy(&f, &bits, sizeof(f));
        return f;
    default: return 0;
    }
}

/* Integers compared as bit patterns widened to 64 bits. */
static uint64_t elem_bits(const tensor_t *t, int64_t i)
{
    switch (dtype_size(t->dtype)) {
    case 1: return ((const uint8_t *)t->data)[i];
    case 2: return ((const uint16_t *)t->data)[i];
    case 4: return ((const uint32_t *)t->data)[i];
    default: return ((const uint64_t *)t->data)[i];
    }
}

/* For messages: the value as a signed integer where the type is signed. */
static int64_t elem_i64(const tensor_t *t, int64_t i)
{
    switch (t->dtype) {
    case DT_INT8: return ((const int8_t *)t->data)[i];
    case DT_INT16: return ((const int16_t *)t->data)[i];
    case DT_INT32: return ((const int32_t *)t->data)[i];
    case DT_INT64: return ((const int64_t *)t->data)[i];
    default: return (int64_t)elem_bits(t, i);
    }
}

static void clear_tensor(tensor_t *t)
{
    free(t->name);
    t->name = NULL;
    tensor_free_data(t);
}

/* ---- one case ------------------------------------------------------------- */

static int compare(const tensor_t *got, const tensor_t *want, int k, char *msg, size_t len)
{
    char a[128], b[128];
    int64_t n, i;
    int d;

    if (got->dtype != want->dtype) {
        snprintf(msg, len, "output %d '%s': dtype %s, expected %s", k, want->name,
                 dtype_name(got->dtype), dtype_name(want->dtype));
        return -1;
    }
    if (got->ndim != want->ndim) {
        snprintf(msg, len, "output %d '%s': shape %s, expected %s", k, want->name,
                 tensor_shape_str(got, a, sizeof(a)), tensor_shape_str(want, b, sizeof(b)));
        return -1;
    }
    for (d = 0; d < got->ndim; d++)
        if (got->dims[d] != want->dims[d]) {
            snprintf(msg, len, "output %d '%s': shape %s, expected %s", k, want->name,
                     tensor_shape_str(got, a, sizeof(a)), tensor_shape_str(want, b, sizeof(b)));
            return -1;
        }
    n = tensor_numel(want);
    if (n > 0 && !got->data) {
        snprintf(msg, len, "output %d '%s': no data", k, want->name);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (is_float_type(want->dtype)) {
            double x = elem_f64(got, i), y = elem_f64(want, i);

            if (x == y || (isnan(x) && isnan(y)))
                continue;
            if (fabs(x - y) <= ATOL + RTOL * fabs(y))
                continue;
            snprintf(msg, len, "output %d '%s' [%s]: element %lld is %.9g, expected %.9g", k,
                     want->name, tensor_shape_str(want, b, sizeof(b)), (long long)i, x, y);
            return -1;
        }
        if (elem_bits(got, i) != elem_bits(want, i)) {
            snprintf(msg, len, "output %d '%s' [%s]: element %lld is %lld, expected %lld", k,
                     want->name, tensor_shape_str(want, b, sizeof(b)), (long long)i,
                     (long long)elem_i64(got, i), (long long)elem_i64(want, i));
            return -1;
        }
    }
    return 0;
}

/* Loads dir/<prefix>N.pb for N = 0, 1, ... into *out. */
static int load_pbs(const char *dir, const char *prefix, tensor_t **out, int *n, result_t *r)
{
    char path[4096], err[512];
    tensor_t *v = NULL;
    int cnt = 0, ret = 0;

    for (;;) {
        void *buf = NULL;
        size_t len = 0;

        snprintf(path, sizeof(path), "%s/%s%d.pb", dir, prefix, cnt);
        if (!file_exists(path))
            break;
        ret = rt_read_file(path, &buf, &len, err, sizeof(err));
        if (ret == 0) {
            v = xrealloc(v, sizeof(*v) * (size_t)(cnt + 1));
            ret = model_load_tensor_pb(buf, len, &v[cnt], err, sizeof(err));
            free(buf);
        }
        if (ret) {
            r->status = ret == RT_EUNSUPPORTED ? R_UNSUP : R_FAIL;
            snprintf(r->msg, sizeof(r->msg), "%s%d.pb: %s", prefix, cnt, err);
            break;
        }
        cnt++;
    }
    *out = v;
    *n = cnt;
    return ret;
}

static void set_result(result_t *r, int ret, const char *what, const char *err)
{
    r->status = ret == RT_EUNSUPPORTED ? R_UNSUP : R_FAIL;
    snprintf(r->msg, sizeof(r->msg), "%.40s: %.550s", what, err);
}

/* Graph inputs that only feed shape-like operands (input >= 1 of a node, or
 * any input of ConstantOfShape and Range): the ONNX node tests feed Reshape's shape, Slice's
 * starts, Resize's scales, ... as inputs, while this runtime needs them constant
 * at prepare time, as they are in deployed models. */
static int is_shape_input(const graph_t *g, int t)
{
    int i, j, used = 0;

    for (i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];

        for (j = 0; j < n->n_in; j++) {
            if (n->in[j] != t)
                continue;
            if (j == 0 && strcmp(n->op, "ConstantOfShape") != 0 && strcmp(n->op, "Range") != 0)
                return 0;
            used = 1;
        }
    }
    return used;
}

/* Turns graph input k into a constant holding data (the graph's inputs list
 * shrinks by one). */
static void input_to_const(graph_t *g, int k, const tensor_t *data)
{
    tensor_t *t = &g->t[g->inputs[k]];
    size_t nb = tensor_nbytes(data);

    t->kind = TK_CONST;
    t->ndim = data->ndim;
    memcpy(t->dims, data->dims, sizeof(t->dims));
    t->data = xaligned_alloc(nb ? nb : 64);
    if (nb)
        memcpy(t->data, data->data, nb);
    memmove(&g->inputs[k], &g->inputs[k + 1], sizeof(int) * (size_t)(g->n_inputs - k - 1));
    g->n_inputs--;
}

/* Runs one test_data_set; fills r on failure and returns non-zero. With
 * shape_consts, inputs that only feed shape operands become constants. */
static int run_dataset(const char *model, const char *dsdir, int shape_consts, result_t *r)
{
    tensor_t *ins = NULL, *outs = NULL;
    int n_in = 0, n_out = 0, i, k, ret, by_name = 1, n_shapes = 0;
    input_shape_t *shapes = NULL;
    int *map = NULL, *feed = NULL;
    graph_t *g = NULL;
    exec_t *x = NULL;
    exec_opts o;
    char err[1024];

    ret = load_pbs(dsdir, "input_", &ins, &n_in, r);
    if (!ret)
        ret = load_pbs(dsdir, "output_", &outs, &n_out, r);
    if (ret)
        goto out;
    ret = model_load_file(model, &g, err, sizeof(err));
    if (ret) {
        set_result(r, ret, "load", err);
        goto out;
    }
    if (n_in != g->n_inputs || n_out != g->n_outputs) {
        ret = -1;
        r->status = R_FAIL;
        snprintf(r->msg, sizeof(r->msg), "model has %d inputs/%d outputs, data set %d/%d",
                 g->n_inputs, g->n_outputs, n_in, n_out);
        goto out;
    }
    /* map[i]: the tensor of .pb input i; by name when every .pb names a graph
     * input, else by position */
    map = xcalloc((size_t)n_in + 1, sizeof(int));
    for (i = 0; i < n_in; i++) {
        int t = ins[i].name && *ins[i].name ? graph_find_tensor(g, ins[i].name) : -1;

        map[i] = -1;
        for (k = 0; t >= 0 && k < g->n_inputs; k++)
            if (g->inputs[k] == t)
                map[i] = t;
        if (map[i] < 0)
            by_name = 0;
    }
    for (i = 0; i < n_in; i++) {
        tensor_t *gt;

        if (!by_name)
            map[i] = g->inputs[i];
        gt = &g->t[map[i]];
        /* the ONNX test data stores bfloat16 tensors as uint16 bit patterns */
        if (gt->dtype == DT_BFLOAT16 && ins[i].dtype == DT_UINT16)
            ins[i].dtype = DT_BFLOAT16;
        if (gt->dtype != ins[i].dtype) {
            ret = -1;
            r->status = R_FAIL;
            snprintf(r->msg, sizeof(r->msg), "input '%s' is %s in the model, %s in the data",
                     gt->name, dtype_name(gt->dtype), dtype_name(ins[i].dtype));
            goto out;
        }
    }
    if (shape_consts) {
        for (i = 0; i < n_in; i++) {
            if (!is_shape_input(g, map[i]))
                continue;
            for (k = 0; k < g->n_inputs; k++)
                if (g->inputs[k] == map[i])
                    input_to_const(g, k, &ins[i]);
            map[i] = -1;
        }
    }
    shapes = xcalloc((size_t)n_in + 1, sizeof(*shapes));
    feed = xcalloc((size_t)n_in + 1, sizeof(int));
    for (i = 0; i < n_in; i++) {
        feed[i] = -1;
        if (map[i] < 0)
            continue;
        for (k = 0; k < g->n_inputs; k++)
            if (g->inputs[k] == map[i])
                feed[i] = k;
        shapes[n_shapes].name = g->t[map[i]].name;
        shapes[n_shapes].ndim = ins[i].ndim;
        memcpy(shapes[n_shapes].dims, ins[i].dims, sizeof(shapes[n_shapes].dims));
        n_shapes++;
    }
    ret = passes_prepare(g, shapes, n_shapes, err, sizeof(err));
    if (ret) {
        set_result(r, ret, "prepare", err);
        goto out;
    }
    memset(&o, 0, sizeof(o));
    o.nthreads = nthreads;
    o.exact_threads = 1; /* the threaded kernels on these small graphs too */
    ret = exec_create(g, &o, &x, err, sizeof(err));
    if (ret) {
        set_result(r, ret, "exec_create", err);
        goto out;
    }
    for (i = 0; i < n_in; i++) {
        if (feed[i] < 0)
            continue;
        ret = exec_set_input(x, feed[i], ins[i].data, tensor_nbytes(&ins[i]), err, sizeof(err));
        if (ret) {
            set_result(r, ret, "set_input", err);
            goto out;
        }
    }
    ret = exec_run(x, NULL, NULL, err, sizeof(err));
    if (ret) {
        set_result(r, ret, "run", err);
        goto out;
    }
    for (i = 0; i < n_out; i++) {
        const tensor_t *got = exec_output(x, i);

        if (!got) {
            ret = -1;
            r->status = R_FAIL;
            snprintf(r->msg, sizeof(r->msg), "output %d missing", i);
            goto out;
        }
        if (got->dtype == DT_BFLOAT16 && outs[i].dtype == DT_UINT16)
            outs[i].dtype = DT_BFLOAT16;
        if (compare(got, &outs[i], i, r->msg, sizeof(r->msg))) {
            ret = -1;
            r->status = R_FAIL;
            goto out;
        }
    }
out:
    exec_free(x);
    graph_free(g);
    for (i = 0; i < n_in; i++)
        clear_tensor(&ins[i]);
    for (i = 0; i < n_out; i++)
        clear_tensor(&outs[i]);
    free(ins);
    free(outs);
    free(shapes);
    free(map);
    free(feed);
    return ret;
}

static void run_case(const char *casedir, result_t *r)
{
    char model[4096], err[1024], ds[4096];
    graph_t *g = NULL;
    char **sets = NULL;
    int n_sets = 0, i, ret;

    memset(r, 0, sizeof(*r));
    snprintf(model, sizeof(model), "%s/model.onnx", casedir);
    ret = model_load_file(model, &g, err, sizeof(err));
    if (ret) {
        set_result(r, ret, "load", err);
        return;
    }
    for (i = 0; i < g->n_nodes; i++) {
        const node_t *n = &g->nodes[i];

        add_word(r->ops, sizeof(r->ops), n->op);
        if (!exec_find_op(n->domain, n->op))
            add_word(r->unsup_ops, sizeof(r->unsup_ops), n->op);
    }
    graph_free(g);
    if (r->unsup_ops[0]) {
        r->status = R_UNSUP;
        snprintf(r->msg, sizeof(r->msg), "unsupported op(s): %.560s", r->unsup_ops);
        return;
    }
    sets = list_dir(casedir, "test_data_set_", &n_sets);
    if (!n_sets) {
        r->status = R_UNSUP;
        snprintf(r->msg, sizeof(r->msg), "no test data sets");
    }
    for (i = 0; i < n_sets; i++) {
        snprintf(ds, sizeof(ds), "%s/%s", casedir, sets[i]);
        ret = run_dataset(model, ds, 0, r);
        if (ret && r->status == R_UNSUP && strstr(r->msg, "constant")) {
            /* retry with shape operands as constants (see is_shape_input) */
            memset(r->msg, 0, sizeof(r->msg));
            r->status = R_PASS;
            ret = run_dataset(model, ds, 1, r);
            if (!ret)
                r->shape_consts = 1;
        }
        if (ret) {
            char tmp[sizeof(r->msg)];

            snprintf(tmp, sizeof(tmp), "%.40s: %.550s", sets[i], r->msg);
            memcpy(r->msg, tmp, sizeof(r->msg));
            break;
        }
    }
    free_list(sets, n_sets);
}

/* Runs a case in a child process: a crash or a sanitizer report is a failure. */
static void run_case_forked(const char *casedir, result_t *r)
{
    int fd[2], st = 0;
    size_t got = 0;
    pid_t pid;

    memset(r, 0, sizeof(*r));
    if (pipe(fd) != 0) {
        r->status = R_FAIL;
        snprintf(r->msg, sizeof(r->msg), "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        r->status = R_FAIL;
        snprintf(r->msg, sizeof(r->msg), "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        result_t cr;
        const char *p = (const char *)&cr;
        size_t left = sizeof(cr);

        close(fd[0]);
        alarm(CASE_TIMEOUT_S);
        run_case(casedir, &cr);
        while (left > 0) {
            ssize_t w = write(fd[1], p, left);

            if (w <= 0)
                break;
            p += w;
            left -= (size_t)w;
        }
        close(fd[1]);
        exit(0); /* not _exit: let LeakSanitizer check the case */
    }
    close(fd[1]);
    while (got < sizeof(*r)) {
        ssize_t n = read(fd[0], (char *)r + got, sizeof(*r) - got);

        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (size_t)n;
    }
    close(fd[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (got < sizeof(*r)) {
        memset(r, 0, sizeof(*r));
        r->status = R_FAIL;
        if (WIFSIGNALED(st))
            snprintf(r->msg, sizeof(r->msg), "crashed (signal %d%s)", WTERMSIG(st),
                     WTERMSIG(st) == SIGALRM ? ": timeout" : "");
        else
            snprintf(r->msg, sizeof(r->msg), "child exited with status %d before reporting",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        r->status = R_FAIL;
        snprintf(r->msg, sizeof(r->msg), "exit status %d after the case (sanitizer report?)",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
    }
}

/* ---- bookkeeping ------------------------------------------------------------ */

static opstat_t *ops;
static int n_ops;

static opstat_t *op_get(const char *op)
{
    int i;

    for (i = 0; i < n_ops; i++)
        if (strcmp(ops[i].op, op) == 0)
            return &ops[i];
    ops = xrealloc(ops, sizeof(*ops) * (size_t)(n_ops + 1));
    memset(&ops[n_ops], 0, sizeof(*ops));
    ops[n_ops].op = xstrdup(op);
    return &ops[n_ops++];
}

static int cmp_op(const void *a, const void *b)
{
    return strcmp(((const opstat_t *)a)->op, ((const opstat_t *)b)->op);
}

/* Adds 1 to the given column of every op in the space-separated list. */
static void op_count(const char *list, int col)
{
    char buf[2048], *save = NULL, *w;

    snprintf(buf, sizeof(buf), "%s", list);
    for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        opstat_t *s = op_get(w);

        if (col == 0) s->pass++;
        else if (col == 1) s->fail++;
        else if (col == 2) s->unsup++;
        else s->known++;
    }
}

static known_t *knowns;
static int n_knowns;

static int load_known(const char *path, int required)
{
    FILE *f = fopen(path, "r");
    char line[1024];

    if (!f) {
        if (required) {
            fprintf(stderr, "conformance: %s: %s\n", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    while (fgets(line, sizeof(line), f)) {
        char *p = line, *name, *reason;

        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || !*p)
            continue;
        name = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
        if (*p)
            *p++ = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        reason = p;
        p[strcspn(p, "\n")] = 0;
        knowns = xrealloc(knowns, sizeof(*knowns) * (size_t)(n_knowns + 1));
        knowns[n_knowns].name = xstrdup(name);
        knowns[n_knowns].reason = xstrdup(*reason ? reason : "(no reason given)");
        knowns[n_knowns].seen = 0;
        n_knowns++;
    }
    fclose(f);
    return 0;
}

static known_t *find_known(const char *suite, const char *name)
{
    char full[1024];
    int i;

    snprintf(full, sizeof(full), "%s/%s", suite, name);
    for (i = 0; i < n_knowns; i++)
        if (strcmp(knowns[i].name, name) == 0 || strcmp(knowns[i].name, full) == 0)
            return &knowns[i];
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: conformance [-v] [-j THREADS] [--no-fork] [--known FILE] "
                    "[--filter TEXT] [ROOT]\n");
}

int main(int argc, char **argv)
{
    static const char *const suites[] = {"node", "pytorch-converted", "pytorch-operator"};
    const char *root = "/usr/share/libonnx-testdata/data";
    const char *known_path = "tests/conformance/known_failures.txt", *filter = NULL;
    int known_required = 0, use_fork = 1, i, s;
    int n_shape_consts = 0, n_pass = 0, n_fail = 0, n_unsup = 0, n_known = 0, n_stale = 0;
    int n_cases = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--no-fork") == 0) {
            use_fork = 0;
        } else if (strcmp(argv[i], "--known") == 0 && i + 1 < argc) {
            known_path = argv[++i];
            known_required = 1;
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
        } else if (argv[i][0] == '-') {
            usage();
            return 1;
        } else {
            root = argv[i];
        }
    }
    if (load_known(known_path, known_required))
        return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (s = 0; s < (int)(sizeof(suites) / sizeof(suites[0])); s++) {
        char dir[4096];
        char **cases;
        int n_cases_suite = 0, c;

        snprintf(dir, sizeof(dir), "%s/%s", root, suites[s]);
        cases = list_dir(dir, "", &n_cases_suite);
        if (!cases) {
            fprintf(stderr, "conformance: %s: cannot read\n", dir);
            continue;
        }
        for (c = 0; c < n_cases_suite; c++) {
            char casedir[8200];
            known_t *k;
            result_t r;

            if (filter && !strstr(cases[c], filter))
                continue;
            snprintf(casedir, sizeof(casedir), "%s/%s", dir, cases[c]);
            {
                char m[8300];

                snprintf(m, sizeof(m), "%s/model.onnx", casedir);
                if (!file_exists(m))
                    continue;
            }
            n_cases++;
            if (use_fork)
                run_case_forked(casedir, &r);
            else
                run_case(casedir, &r);
            k = find_known(suites[s], cases[c]);
            if (k)
                k->seen = 1;
            switch (r.status) {
            case R_PASS:
                op_count(r.ops, 0);
                if (k) {
                    n_stale++;
                    printf("ERROR %s/%s: listed as a known failure (%s) but passes; remove it "
                           "from %s\n", suites[s], cases[c], k->reason, known_path);
                } else {
                    n_pass++;
                    n_shape_consts += r.shape_consts;
                    if (verbose)
                        printf("pass  %s/%s%s\n", suites[s], cases[c],
                               r.shape_consts ? " (shape inputs as constants)" : "");
                }
                break;
            case R_FAIL:
                if (k) {
                    n_known++;
                    op_count(r.ops, 3);
                    printf("known %s/%s: %s [%s]\n", suites[s], cases[c], r.msg, k->reason);
                } else {
                    n_fail++;
                    op_count(r.ops, 1);
                    printf("FAIL  %s/%s: %s\n", suites[s], cases[c], r.msg);
                }
                break;
            default:
                n_unsup++;
                op_count(r.unsup_ops[0] ? r.unsup_ops : r.ops, 2);
                if (verbose)
                    printf("unsup %s/%s: %s\n", suites[s], cases[c], r.msg);
                break;
            }
        }
        free_list(cases, n_cases_suite);
    }

    qsort(ops, (size_t)n_ops, sizeof(*ops), cmp_op);
    printf("\n%-28s %5s %5s %5s %5s\n", "op", "pass", "fail", "known", "unsup");
    for (i = 0; i < n_ops; i++)
        printf("%-28s %5d %5d %5d %5d\n", ops[i].op, ops[i].pass, ops[i].fail, ops[i].known,
               ops[i].unsup);
    for (i = 0; i < n_knowns; i++)
        if (!knowns[i].seen && !filter)
            printf("note: known failure '%s' matches no case\n", knowns[i].name);
    printf("\ncases %d: passed %d, failed %d, known failures %d, unsupported %d, "
           "stale known-failure entries %d\n", n_cases, n_pass, n_fail, n_known, n_unsup,
           n_stale);
    printf("(%d of the passed cases fed shape operands as constants)\n", n_shape_consts);
    printf("%d passed, %d failed\n", n_pass, n_fail + n_stale);

    for (i = 0; i < n_ops; i++)
        free(ops[i].op);
    free(ops);
    for (i = 0; i < n_knowns; i++) {
        free(knowns[i].name);
        free(knowns[i].reason);
    }
    free(knowns);
    return n_fail + n_stale ? 1 : 0;
}
