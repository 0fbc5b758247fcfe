/* analyze/golden.c — match a run's dump folder with a golden folder by tensor
 * name (ours, a board's level-5 dumps, or files named after tensors) and
 * compute the error of every common tensor. */
#include "analyze/analyze.h"
#include "dump/dump.h"
#include "runtime/model/model.h"
#include "util/util.h"

#include <ctype.h>
#include <jansson.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void golden_files_free(golden_file *f, int n)
{
    for (int i = 0; f && i < n; i++) {
        free(f[i].name);
        free(f[i].op);
        free(f[i].path);
    }
    free(f);
}

static char *join(const char *dir, const char *file)
{
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", dir, file);
    return p;
}

static int dtype_from_token(const char *t)
{
    if (!strcmp(t, "float") || !strcmp(t, "float32"))
        return DT_FLOAT;
    if (!strcmp(t, "float16"))
        return DT_FLOAT16;
    int d = npy_dtype_from_name(t);
    return d > 0 ? d : 0;
}

int golden_parse_dump_name(const char *file, int *index, char **op, char **tensor, int *dtype)
{
    size_t len = strlen(file);
    if (len < 4 || strcmp(file + len - 4, ".npy"))
        return -1;
    if (len < 5 || !isdigit((unsigned char)file[0]))
        return -1;
    const char *p = file;
    int idx = 0, nd = 0;
    while (isdigit((unsigned char)*p) && nd < 6)
        idx = idx * 10 + (*p++ - '0'), nd++;
    if (nd < 3 || *p != '_')
        return -1;
    const char *op0 = ++p;
    while (*p && *p != '_')
        p++;
    if (*p != '_' || p == op0)
        return -1;
    const char *t0 = p + 1;
    /* the last "_shape_" ends the tensor name (which may hold '_') */
    const char *sh = NULL;
    for (const char *q = t0; (q = strstr(q, "_shape_")) != NULL; q++)
        sh = q;
    if (!sh || sh == t0)
        return -1;
    /* dims: digits joined by '_', then '_' + dtype before ".npy" */
    const char *d = sh + 7, *end = file + len - 4;
    const char *last = NULL;
    for (const char *q = d; q < end; q++)
        if (*q == '_')
            last = q;
    for (const char *q = d; q < (last ? last : d); q++)
        if (!isdigit((unsigned char)*q) && *q != '_')
            return -1;
    char tok[32] = "";
    const char *ts = last ? last + 1 : d;
    if (end - ts <= 0 || end - ts >= (long)sizeof(tok))
        return -1;
    memcpy(tok, ts, (size_t)(end - ts));
    tok[end - ts] = 0;
    *index = idx;
    *op = xstrdup(op0);
    (*op)[t0 - 1 - op0] = 0;
    *tensor = xstrdup(t0);
    (*tensor)[sh - t0] = 0;
    *dtype = dtype_from_token(tok);
    return 0;
}

static int is_float(int dt)
{
    return dt == DT_FLOAT || dt == DT_FLOAT16 || dt == DT_DOUBLE || dt == DT_BFLOAT16;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when dir has an index.json of ours (rknn-trace dumps write a JSON list);
 * an index.json of another tool (an onnxruntime or Polygraphy dump writes an
 * object) does not make the folder ours: its .npy files are read by name. An
 * index.json that does not parse counts as ours, so that its error shows. */
static int has_our_index(const char *dir)
{
    char *ip = join(dir, "index.json");
    struct stat sb;
    int ours = 0;
    if (stat(ip, &sb) == 0) {
        json_t *j = json_load_file(ip, 0, NULL);
        ours = !j || json_is_array(j);
        json_decref(j);
    }
    free(ip);
    return ours;
}

/* ---- another tool's index.json ---------------------------------------------- */

static int ends_npy(const char *f)
{
    size_t l = strlen(f);
    return l > 4 && !strcmp(f + l - 4, ".npy");
}

/* A relative file name that stays inside the folder. */
static int safe_rel(const char *f)
{
    return f[0] && f[0] != '/' && !strstr(f, "..");
}

static void map_add(golden_name_map *m, const char *name, const char *file)
{
    if (!name || !file || !name[0] || !ends_npy(file) || !safe_rel(file))
        return;
    m->name = xrealloc(m->name, sizeof(*m->name) * (size_t)(m->n + 1));
    m->file = xrealloc(m->file, sizeof(*m->file) * (size_t)(m->n + 1));
    m->name[m->n] = xstrdup(name);
    m->file[m->n++] = xstrdup(file);
}

int golden_parse_index_map(const char *text, size_t len, golden_name_map *m)
{
    memset(m, 0, sizeof(*m));
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        return -1;
    }
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) {
        if (json_is_string(v)) {
            map_add(m, k, json_string_value(v));         /* {"tensor": "file.npy"} */
        } else if (json_is_array(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)                    /* {"...": [{"name", "file"}]} */
                map_add(m, json_string_value(json_object_get(e, "name")),
                        json_string_value(json_object_get(e, "file")));
        }
    }
    json_decref(j);
    return 0;
}

void golden_name_map_free(golden_name_map *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->name[i]);
        free(m->file[i]);
    }
    free(m->name);
    free(m->file);
    memset(m, 0, sizeof(*m));
}

/* The name another tool's index.json gives file rel (relative to the folder
 * scanned), or NULL. */
static const char *map_name(const golden_name_map *m, const char *rel)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->file[i], rel))
            return m->name[i];
    return NULL;
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Every .npy under dir (subfolders to depth 8, in sorted order), as paths
 * relative to root; other files are skipped. */
static void list_npy(const char *root, const char *rel, int depth, char ***names, int *nn, int *cap)
{
    char *dir = rel[0] ? join(root, rel) : xstrdup(root);
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char *r = rel[0] ? join(rel, de->d_name) : xstrdup(de->d_name);
        char *full = join(root, r);
        if (ends_npy(de->d_name) && !is_dir(full)) {
            if (*nn == *cap) {
                *cap = *cap ? *cap * 2 : 64;
                *names = xrealloc(*names, sizeof(**names) * (size_t)*cap);
            }
            (*names)[(*nn)++] = r;
            r = NULL;
        } else if (depth < 8 && is_dir(full)) {
            list_npy(root, r, depth + 1, names, nn, cap);
        }
        free(full);
        free(r);
    }
    closedir(d);
    free(dir);
}

/* A Toolkit2 accuracy_analysis snapshot folder: golden/ (the float model's
 * tensors) beside simulator/ (the quantized ones) or error_analysis.txt. The
 * folder to read as the golden (golden/npy when there is one), malloc'd, or
 * NULL. */
static char *snapshot_golden(const char *dir)
{
    char *g = join(dir, "golden"), *sim = join(dir, "simulator"), *ea = join(dir, "error_analysis.txt");
    struct stat sb;
    int snap = is_dir(g) && (is_dir(sim) || stat(ea, &sb) == 0);
    free(sim);
    free(ea);
    if (!snap) {
        free(g);
        return NULL;
    }
    char *npy = join(g, "npy");
    if (is_dir(npy)) {
        free(g);
        return npy;
    }
    free(npy);
    return g;
}

int golden_scan(const char *dir, golden_file **files, int *n, char *err, size_t errlen)
{
    return golden_scan_layout(dir, files, n, NULL, err, errlen);
}

int golden_scan_layout(const char *dir, golden_file **files, int *n, const char **layout,
                       char *err, size_t errlen)
{
    golden_file *v = NULL;
    int cnt = 0, cap = 0, rc = RT_OK;
    struct stat sb;
    char *ip = join(dir, "index.json");

    *files = NULL;
    *n = 0;
    if (stat(dir, &sb) != 0) {
        int e = errno;
        free(ip);
        return rt_err(err, errlen, RT_EIO, "%s: %s", dir, strerror(e));
    }
    if (!S_ISDIR(sb.st_mode)) {
        free(ip);
        return rt_err(err, errlen, RT_EIO, "%s: not a folder", dir);
    }
    if (has_our_index(dir)) {
        dump_entry *e = NULL;
        int ne = 0;
        free(ip);
        rc = dump_dir_load_index(dir, &e, &ne, err, errlen);
        if (rc)
            return rc;
        v = xcalloc((size_t)(ne ? ne : 1), sizeof(*v));
        for (int i = 0; i < ne; i++) {
            v[i].name = xstrdup(e[i].name ? e[i].name : "");
            v[i].op = e[i].op ? xstrdup(e[i].op) : NULL;
            v[i].path = join(dir, e[i].file);
            v[i].index = e[i].layer;
            v[i].dtype = e[i].dtype;
        }
        dump_entries_free(e, ne);
        *files = v;
        *n = ne;
        return RT_OK;
    }
    free(ip);

    /* a Toolkit2 snapshot: its golden/ folder, never the quantized simulator/ */
    char *snap = snapshot_golden(dir);
    if (snap)
        dir = snap;
    if (layout)
        *layout = snap ? "toolkit2-snapshot" : "by-name";
    /* another tool's index.json naming its files */
    golden_name_map map = {0};
    char *ip2 = join(dir, "index.json");
    size_t ilen = 0;
    void *itext = NULL;
    char ierr[64];
    struct stat isb;
    if (stat(ip2, &isb) == 0 && S_ISREG(isb.st_mode) &&
        !rt_read_file(ip2, &itext, &ilen, ierr, sizeof(ierr)))
        golden_parse_index_map(itext, ilen, &map);
    free(itext);
    free(ip2);
    char **names = NULL;
    int nn = 0, ncap = 0;
    list_npy(dir, "", 0, &names, &nn, &ncap);
    /* readdir order is arbitrary: sort, so that NNN_ prefixes come in order */
    if (nn)
        qsort(names, (size_t)nn, sizeof(*names), cmp_name);
    for (int i = 0; i < nn; i++) {
        int idx = -1, dt = 0, dup = -1;
        char *op = NULL, *tensor = NULL;
        const char *mapped = map_name(&map, names[i]);
        if (mapped) {
            tensor = xstrdup(mapped);
        } else if (golden_parse_dump_name(names[i], &idx, &op, &tensor, &dt) != 0) {
            /* by name: the path under the folder ("conv1/Conv_output_0" for a
             * tensor "/conv1/Conv_output_0" written as nested folders) */
            tensor = xstrdup(names[i]);
            tensor[strlen(tensor) - 4] = 0;
            idx = -1;
        }
        for (int k = 0; k < cnt; k++)
            if (!strcmp(v[k].name, tensor))
                dup = k;
        if (dup >= 0) {
            /* an op's input dumped again: keep the float one, else the first */
            if (!is_float(v[dup].dtype) && is_float(dt)) {
                free(v[dup].op);
                free(v[dup].path);
                v[dup].op = op;
                v[dup].path = join(dir, names[i]);
                v[dup].index = idx;
                v[dup].dtype = dt;
            } else {
                free(op);
            }
            free(tensor);
            continue;
        }
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            v = xrealloc(v, sizeof(*v) * (size_t)cap);
        }
        v[cnt++] = (golden_file){ tensor, op, join(dir, names[i]), idx, dt };
    }
    for (int i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    golden_name_map_free(&map);
    free(snap);
    *files = v;
    *n = cnt;
    return rc;
}

/* The name as our dumps and onnxruntime-style folders spell it in a file name. */
static void safe_name(const char *s, char *buf, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++) {
        unsigned char c = (unsigned char)*s;
        buf[k++] = isalnum(c) || c == '.' || c == '-' || c == '_' ? (char)c : '_';
    }
    buf[k] = 0;
}

static int find_golden(const golden_file *g, int n, const char *name)
{
    char safe[1024];
    for (int i = 0; i < n; i++)
        if (!strcmp(g[i].name, name))
            return i;
    safe_name(name, safe, sizeof(safe));
    for (int i = 0; i < n; i++)
        if (!strcmp(g[i].name, safe))
            return i;
    /* a tensor path written as folders: "/conv1/Conv_output_0" as conv1/Conv_output_0.npy */
    while (*name == '/')
        name++;
    for (int i = 0; name[0] && i < n; i++)
        if (strchr(g[i].name, '/') && !strcmp(g[i].name, name))
            return i;
    return -1;
}

void golden_report_free(golden_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_rows; i++) {
        free(r->rows[i].name);
        free(r->rows[i].op);
    }
    free(r->rows);
    free(r);
}

/* Rows are independent (two files, one metrics pass each): workers take them
 * in turn; the first failing row, in row order, names the error. */
typedef struct gwork {
    const golden_file *x, *g;
    int nx, ng;
    golden_report *r;
    int *gidx;              /* golden file per row, -1 */
    int *rcs;               /* status per row */
    char (*errs)[512];
    int next;
    pthread_mutex_t mu;
} gwork;

static void row_run(gwork *w, int i)
{
    npy_array a = {0}, b = {0};
    golden_row *row = &w->r->rows[i];
    int k = w->gidx[i], rc;
    char *err = w->errs[i];
    size_t errlen = sizeof(w->errs[i]);

    if ((rc = npy_map(w->x[i].path, &a, err, errlen)) ||
        (rc = npy_map(w->g[k].path, &b, err, errlen)))
        goto out;
    if (a.count != b.count) {
        char sa[256], sb2[256];
        rc = rt_err(err, errlen, RT_ESHAPE, "tensor '%s': %zu values in %s %s, %zu in golden %s %s",
                    w->x[i].name, a.count, w->x[i].path,
                    store_format_shape(sa, sizeof(sa), a.ndim, a.dims), b.count, w->g[k].path,
                    store_format_shape(sb2, sizeof(sb2), b.ndim, b.dims));
        goto out;
    }
    rc = metrics_compute_typed(b.dtype, b.data, a.dtype, a.data, (int64_t)a.count, &row->m, err,
                               errlen);
    if (rc) {
        char msg[256];
        snprintf(msg, sizeof(msg), "%s", err);
        rc = rt_err(err, errlen, rc, "tensor '%s': %s", w->x[i].name, msg);
        goto out;
    }
    rc = metrics_tolerance(b.dtype, b.data, a.dtype, a.data, (int64_t)a.count, w->r->atol,
                           w->r->rtol, &row->tol, err, errlen);
    if (rc) {
        char msg[256];
        snprintf(msg, sizeof(msg), "%s", err);
        rc = rt_err(err, errlen, rc, "tensor '%s': %s", w->x[i].name, msg);
        goto out;
    }
    row->ndim = a.ndim < 32 ? a.ndim : 32;
    memcpy(row->dims, a.dims, sizeof(int64_t) * (size_t)row->ndim);
    row->matched = 1;
    row->count = (int64_t)a.count;
    row->dtype = a.dtype;
    row->ref_dtype = b.dtype;
out:
    w->rcs[i] = rc;
    npy_free(&a);
    npy_free(&b);
}

static void *worker(void *arg)
{
    gwork *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        int i = w->next < w->nx ? w->next++ : -1;
        pthread_mutex_unlock(&w->mu);
        if (i < 0)
            return NULL;
        if (w->gidx[i] >= 0)
            row_run(w, i);
    }
}

int golden_analyze(const char *run_dir, const char *golden_dir, golden_report **out, char *err,
                   size_t errlen)
{
    return golden_analyze_tol(run_dir, golden_dir, GOLDEN_ATOL, GOLDEN_RTOL, out, err, errlen);
}

int golden_analyze_tol(const char *run_dir, const char *golden_dir, double atol, double rtol,
                       golden_report **out, char *err, size_t errlen)
{
    golden_file *x = NULL, *g = NULL;
    int nx = 0, ng = 0, rc;
    golden_report *r = xcalloc(1, sizeof(*r));
    gwork w = {0};
    char path[4096];

    *out = NULL;
    snprintf(path, sizeof(path), "%s/index.json", run_dir);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        rc = rt_err(err, errlen, RT_EIO, "%s: no index.json (not a dump folder of "
                    "rknn-trace run --dump)", run_dir);
        goto out;
    }
    const char *layout = "by-name";
    if ((rc = golden_scan(run_dir, &x, &nx, err, errlen)) ||
        (rc = golden_scan_layout(golden_dir, &g, &ng, &layout, err, errlen)))
        goto out;
    r->atol = atol;
    r->rtol = rtol;
    r->layout = has_our_index(golden_dir) ? "rknn-trace" : layout;
    for (int i = 0; i < ng && r->layout[0] == 'b'; i++)
        if (g[i].index >= 0)
            r->layout = "rknpu-level5";
    r->rows = xcalloc((size_t)(nx ? nx : 1), sizeof(*r->rows));
    w = (gwork){ .x = x, .g = g, .nx = nx, .ng = ng, .r = r };
    w.gidx = xmalloc(sizeof(int) * (size_t)(nx ? nx : 1));
    w.rcs = xcalloc((size_t)(nx ? nx : 1), sizeof(int));
    w.errs = xcalloc((size_t)(nx ? nx : 1), sizeof(*w.errs));
    for (int i = 0; i < nx; i++) {
        golden_row *row = &r->rows[r->n_rows++];
        row->name = xstrdup(x[i].name);
        row->op = x[i].op ? xstrdup(x[i].op) : NULL;
        row->layer = x[i].index;
        row->m.cos = row->m.euc = row->m.max_abs = row->m.mean_abs = row->m.sqnr_db = NAN;
        w.gidx[i] = find_golden(g, ng, x[i].name);
    }
    pthread_mutex_init(&w.mu, NULL);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (int)ncpu;
    pthread_t th[8];
    int started = 0;
    for (int t = 1; t < nt; t++)
        if (pthread_create(&th[started], NULL, worker, &w) == 0)
            started++;
    worker(&w);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&w.mu);
    for (int i = 0; i < nx; i++) {
        if (w.rcs[i]) {
            rc = rt_err(err, errlen, w.rcs[i], "%s", w.errs[i]);
            goto out;
        }
        r->n_matched += r->rows[i].matched;
    }
    if (!r->n_matched) {
        rc = rt_err(err, errlen, RT_EINVAL, "no tensor of %s has a file of the same name in %s "
                    "(%d and %d tensors)", run_dir, golden_dir, nx, ng);
        goto out;
    }
    *out = r;
    r = NULL;
out:
    free(w.gidx);
    free(w.rcs);
    free(w.errs);
    golden_files_free(x, nx);
    golden_files_free(g, ng);
    golden_report_free(r);
    return rc;
}
