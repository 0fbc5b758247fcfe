/* dump/dump_dir.c — per-layer dump folders: one .npy per layer output plus
 * DIR/index.json (DESIGN.md, "--dump DIR"), and a reader for that index. */
#include <jansson.h>
#include "dump/dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dtype.h"
#include "util/outfile.h"
#include "util/util.h"

#define NAME_PART_MAX 96 /* keeps file names well under NAME_MAX */

struct dump_dir {
    char *dir;
    dump_entry *e;
    int n, cap;
};

/* mkdir -p */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
    char *p = xstrdup(dir);
    struct stat sb;
    int rc = 0;

    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != 0)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            rc = rt_err(err, errlen, RT_EIO, "%s: cannot create directory: %s", p,
                        strerror(errno));
            goto out;
        }
        *s = c;
        if (!c)
            break;
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        rc = rt_err(err, errlen, RT_EIO, "%s: not a directory", dir);
out:
    free(p);
    return rc;
}

int dump_dir_open(const char *dir, dump_dir **out, char *err, size_t errlen)
{
    int rc;

    *out = NULL;
    if (!dir || !*dir)
        return rt_err(err, errlen, RT_EINVAL, "no dump directory given");
    if ((rc = make_dirs(dir, err, errlen)))
        return rc;
    dump_dir *d = xcalloc(1, sizeof *d);
    d->dir = xstrdup(dir);
    *out = d;
    return 0;
}

/* Appends s to buf with everything but [A-Za-z0-9._-] replaced by '_'. */
static void append_safe(char *buf, size_t *n, const char *s)
{
    size_t k = 0;
    for (; s && *s && k < NAME_PART_MAX; s++, k++) {
        unsigned char c = (unsigned char)*s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '-' || c == '_';
        buf[(*n)++] = ok ? (char)c : '_';
    }
    if (k == 0)
        buf[(*n)++] = 'x';
    buf[*n] = 0;
}

static int file_taken(const dump_dir *d, const char *f)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->e[i].file, f) == 0)
            return 1;
    return 0;
}

static char *make_file_name(const dump_dir *d, int layer, const char *op, const char *name)
{
    char base[2 * NAME_PART_MAX + 32], file[sizeof base + 24];
    size_t n;

    if (layer < 0) {
        n = (size_t)snprintf(base, sizeof base, "input_");
    } else {
        n = (size_t)snprintf(base, sizeof base, "%04d_", layer);
        append_safe(base, &n, op);
        base[n++] = '_';
    }
    append_safe(base, &n, name);
    snprintf(file, sizeof file, "%s.npy", base);
    for (int k = 2; file_taken(d, file); k++)
        snprintf(file, sizeof file, "%s_%d.npy", base, k);
    return xstrdup(file);
}

static uint32_t bf16_to_f32_bits(uint16_t v)
{
    return (uint32_t)v << 16;
}

int dump_dir_add(dump_dir *d, int layer, const char *node_name, const char *op,
                 const char *tensor_name, int dtype, int ndim, const int64_t *dims,
                 const void *data, char *err, size_t errlen)
{
    const void *src = data;
    void *conv = NULL;
    char *file = NULL, *path = NULL;
    int rc = 0;

    if (!d)
        return rt_err(err, errlen, RT_EINVAL, "dump: no dump folder");
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return rt_err(err, errlen, RT_EINVAL, "dump: tensor '%s' has an unknown or bad rank %d",
                      tensor_name ? tensor_name : "?", ndim);
    if (dtype == DT_BFLOAT16) {
        size_t count = 1;
        for (int i = 0; i < ndim; i++) {
            if (dims[i] < 0)
                return rt_err(err, errlen, RT_EINVAL, "dump: tensor '%s' has an unknown shape",
                              tensor_name ? tensor_name : "?");
            count *= (size_t)dims[i];
        }
        uint32_t *f = xmalloc(count * 4 + 4);
        for (size_t i = 0; i < count; i++)
            f[i] = bf16_to_f32_bits(((const uint16_t *)data)[i]);
        src = conv = f;
        dtype = DT_FLOAT;
    }
    if (!npy_descr(dtype))
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "dump: tensor '%s': dtype %d cannot be saved as .npy",
                      tensor_name ? tensor_name : "?", dtype);

    file = make_file_name(d, layer, op, tensor_name);
    size_t plen = strlen(d->dir) + strlen(file) + 2;
    path = xmalloc(plen);
    snprintf(path, plen, "%s/%s", d->dir, file);
    if ((rc = npy_write(path, dtype, ndim, dims, src, err, errlen)))
        goto out;

    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->e = xrealloc(d->e, sizeof *d->e * (size_t)d->cap);
    }
    dump_entry *e = &d->e[d->n++];
    memset(e, 0, sizeof *e);
    e->layer = layer;
    e->node = node_name ? xstrdup(node_name) : NULL;
    e->op = op ? xstrdup(op) : NULL;
    e->name = xstrdup(tensor_name ? tensor_name : "");
    e->file = file;
    file = NULL;
    e->ndim = ndim;
    memcpy(e->dims, dims, sizeof(int64_t) * (size_t)ndim);
    e->dtype = dtype;
out:
    free(conv);
    free(file);
    free(path);
    return rc;
}

void dump_entries_free(dump_entry *e, int n)
{
    for (int i = 0; e && i < n; i++) {
        free(e[i].node);
        free(e[i].op);
        free(e[i].name);
        free(e[i].file);
    }
    free(e);
}

void dump_dir_discard(dump_dir *d)
{
    if (!d)
        return;
    dump_entries_free(d->e, d->n);
    free(d->dir);
    free(d);
}

static char *join_path(const char *dir, const char *file)
{
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", dir, file);
    return p;
}

int dump_dir_close(dump_dir *d, char *err, size_t errlen)
{
    char *path = NULL;
    FILE *f = NULL;
    outfile *o = NULL;
    json_writer w;
    int rc = 0;

    if (!d)
        return 0;
    path = join_path(d->dir, "index.json");
    /* util/outfile.h: a reader never sees half an index */
    if ((rc = outfile_open(path, &o, &f, err, errlen)))
        goto out;
    json_begin(&w, f);
    json_arr_open(&w);
    for (int i = 0; i < d->n; i++) {
        const dump_entry *e = &d->e[i];
        json_obj_open(&w);
        json_key(&w, "layer");
        json_int(&w, e->layer);
        json_key(&w, "node");
        json_str(&w, e->node);
        json_key(&w, "op");
        json_str(&w, e->op);
        json_key(&w, "name");
        json_str(&w, e->name);
        json_key(&w, "file");
        json_str(&w, e->file);
        json_key(&w, "shape");
        json_arr_open(&w);
        for (int k = 0; k < e->ndim; k++)
            json_int(&w, e->dims[k]);
        json_arr_close(&w);
        json_key(&w, "dtype");
        json_str(&w, npy_dtype_name(e->dtype));
        json_obj_close(&w);
    }
    json_arr_close(&w);
    json_end(&w);
    rc = outfile_commit(o, err, errlen);
out:
    free(path);
    dump_dir_discard(d);
    return rc;
}

/* ------------------------------------------------------------ index reader
 * index.json read with jansson: a list of objects whose members are integers,
 * strings, null or lists of integers; unknown members of any JSON type are
 * skipped (newer writers may add some); a member given twice is refused. */

static int index_fail(const char *what, char *err, size_t errlen, const char *msg)
{
    return rt_err(err, errlen, RT_EFORMAT, "%s: malformed index: %s", what, msg);
}

/* Does path have a ".." component? */
static int dotdot_component(const char *path)
{
    for (const char *c = path; *c;) {
        size_t len = strcspn(c, "/");
        if (len == 2 && c[0] == '.' && c[1] == '.')
            return 1;
        c += len;
        if (*c == '/')
            c++;
    }
    return 0;
}

/* A string member (absent or null: *out stays NULL), copied. */
static int opt_string(json_t *o, const char *key, char **out)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    *out = xstrdup(json_string_value(v));
    return 0;
}

static int index_entry(json_t *o, dump_entry *e, const char *what, char *err, size_t errlen)
{
    json_t *layer = json_object_get(o, "layer"), *shape = json_object_get(o, "shape"), *d;
    const char *dtype = NULL;
    size_t k;
    int rc = 0;

    memset(e, 0, sizeof *e);
    if (!json_is_object(o))
        return index_fail(what, err, errlen, "expected an object");
    if (json_object_size(o) == 0)
        return index_fail(what, err, errlen, "empty entry");
    if (opt_string(o, "node", &e->node) || opt_string(o, "op", &e->op) ||
        opt_string(o, "name", &e->name) || opt_string(o, "file", &e->file)) {
        rc = index_fail(what, err, errlen, "node, op, name and file are strings");
        goto out;
    }
    d = json_object_get(o, "dtype");
    if (d && !json_is_null(d) && !(dtype = json_string_value(d))) {
        rc = index_fail(what, err, errlen, "'dtype' is not a string");
        goto out;
    }
    if (!layer || !shape || !e->name || !e->file || !dtype) {
        rc = index_fail(what, err, errlen, "an entry lacks layer, name, file, shape or dtype");
        goto out;
    }
    if (!json_is_integer(layer) || json_integer_value(layer) < INT32_MIN ||
        json_integer_value(layer) > INT32_MAX) {
        rc = index_fail(what, err, errlen, "bad layer number");
        goto out;
    }
    e->layer = (int)json_integer_value(layer);
    if (!json_is_array(shape)) {
        rc = index_fail(what, err, errlen, "'shape' is not a list");
        goto out;
    }
    if (json_array_size(shape) > NPY_MAX_DIMS) {
        rc = index_fail(what, err, errlen, "too many dimensions");
        goto out;
    }
    json_array_foreach(shape, k, d) {
        if (!json_is_integer(d) || json_integer_value(d) < 0) {
            rc = index_fail(what, err, errlen, "a dimension is not a non-negative integer");
            goto out;
        }
        e->dims[e->ndim++] = json_integer_value(d);
    }
    e->dtype = npy_dtype_from_name(dtype);
    if (!e->dtype) {
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: unknown dtype '%s'", what, dtype);
        goto out;
    }
    /* the file must stay inside the folder */
    if (e->file[0] == '/' || !*e->file || dotdot_component(e->file))
        rc = rt_err(err, errlen, RT_EFORMAT, "%s: file '%s' is outside the folder", what,
                    e->file);
out:
    if (rc) {
        free(e->node);
        free(e->op);
        free(e->name);
        free(e->file);
        memset(e, 0, sizeof *e);
    }
    return rc;
}

int dump_index_parse(const void *buf, size_t len, const char *what, dump_entry **entries,
                     int *n, char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc, *o;
    dump_entry *v = NULL;
    size_t i;
    int cnt = 0, rc = 0;

    *entries = NULL;
    *n = 0;
    doc = json_loadb(buf ? buf : "", buf ? len : 0, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s (line %d)", je.text, je.line);
        return index_fail(what, err, errlen, msg);
    }
    if (!json_is_array(doc)) {
        rc = index_fail(what, err, errlen, "not a JSON list");
        goto out;
    }
    v = xcalloc(json_array_size(doc) + 1, sizeof *v);
    json_array_foreach(doc, i, o) {
        if ((rc = index_entry(o, &v[cnt], what, err, errlen)))
            goto out;
        cnt++;
    }
out:
    json_decref(doc);
    if (rc || !cnt) { /* an empty index is no array, as before */
        dump_entries_free(v, cnt);
    } else {
        *entries = v;
        *n = cnt;
    }
    return rc;
}

int dump_dir_load_index(const char *dir, dump_entry **entries, int *n, char *err,
                        size_t errlen)
{
    size_t len = 0, plen = strlen(dir) + 16;
    char *path = xmalloc(plen);
    void *buf = NULL;
    int rc;

    *entries = NULL;
    *n = 0;
    snprintf(path, plen, "%s/index.json", dir);
    rc = rt_read_file(path, &buf, &len, err, errlen);
    if (!rc)
        rc = dump_index_parse(buf, len, path, entries, n, err, errlen);
    free(buf);
    free(path);
    return rc;
}

/* ------------------------------------------------------------ before a run */

/* Removes an earlier run's index and the files it lists. */
static int remove_old_dumps(const char *dir, char *err, size_t errlen)
{
    dump_entry *e = NULL;
    int n = 0, rc;
    char *index = join_path(dir, "index.json");

    /* an unreadable index still names a run's folder: remove the index alone */
    if (dump_dir_load_index(dir, &e, &n, err, errlen) == 0) {
        for (int i = 0; i < n; i++) {
            char *p = join_path(dir, e[i].file);
            if (unlink(p) != 0 && errno != ENOENT) {
                rc = rt_err(err, errlen, RT_EIO, "%s: cannot remove: %s", p, strerror(errno));
                free(p);
                goto out;
            }
            free(p);
        }
    }
    rc = 0;
    if (unlink(index) != 0 && errno != ENOENT)
        rc = rt_err(err, errlen, RT_EIO, "%s: cannot remove: %s", index, strerror(errno));
out:
    dump_entries_free(e, n);
    free(index);
    return rc;
}

int dump_dir_prepare(const char *dir, int overwrite, char *err, size_t errlen)
{
    char *index = NULL, *probe = NULL;
    struct stat sb;
    int rc, fd;

    if (!dir || !*dir)
        return rt_err(err, errlen, RT_EINVAL, "no dump directory given");
    if ((rc = make_dirs(dir, err, errlen)))
        return rc;
    index = join_path(dir, "index.json");
    if (lstat(index, &sb) == 0) {
        if (!overwrite) {
            rc = rt_err(err, errlen, RT_EEXIST,
                        "%s holds another run's dumps (%s exists): give a new folder, or "
                        "--dump-overwrite to replace them", dir, index);
            goto out;
        }
        if ((rc = remove_old_dumps(dir, err, errlen)))
            goto out;
    }
    /* can we create files there? (permissions, read-only file system) */
    probe = join_path(dir, ".rknn-trace-probe-XXXXXX");
    fd = mkstemp(probe);
    if (fd < 0) {
        rc = rt_err(err, errlen, RT_EIO, "%s: cannot write dumps there: %s", dir,
                    strerror(errno));
        goto out;
    }
    close(fd);
    unlink(probe);
out:
    free(index);
    free(probe);
    return rc;
}

int dump_dir_hash(const char *dir, char out[65], char *err, size_t errlen)
{
    dump_entry *e = NULL;
    void *buf = NULL;
    size_t len = 0;
    char *path = join_path(dir, "index.json"), *lines = NULL, hex[65];
    size_t ll = 0;
    FILE *f = NULL;
    int n = 0, rc;

    out[0] = '\0';
    if ((rc = rt_read_file(path, &buf, &len, err, errlen)))
        goto out;
    if ((rc = dump_index_parse(buf, len, path, &e, &n, err, errlen)))
        goto out;
    f = open_memstream(&lines, &ll);
    if (!f) {
        rc = rt_err(err, errlen, RT_ENOMEM, "out of memory");
        goto out;
    }
    rt_sha256_hex(buf, len, hex);
    fprintf(f, "index.json %s\n", hex);
    for (int i = 0; i < n; i++) {
        free(buf);
        buf = NULL;
        free(path);
        path = join_path(dir, e[i].file);
        if ((rc = rt_read_file(path, &buf, &len, err, errlen)))
            goto out;
        rt_sha256_hex(buf, len, hex);
        fprintf(f, "%s %s\n", e[i].file, hex);
    }
    if (fclose(f) != 0) {
        f = NULL;
        rc = rt_err(err, errlen, RT_ENOMEM, "out of memory");
        goto out;
    }
    f = NULL;
    rt_sha256_hex(lines, ll, out);
out:
    if (f)
        fclose(f);
    free(lines);
    free(buf);
    free(path);
    dump_entries_free(e, n);
    return rc;
}
