/* dump/dump_dir.c — per-layer dump folders: one .npy per layer output plus
 * DIR/index.json (DESIGN.md, "--dump DIR"), and a reader for that index. */
#include "dump/dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/model/model.h"
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

int dump_dir_close(dump_dir *d, char *err, size_t errlen)
{
    char *path = NULL, *tmp = NULL;
    FILE *f = NULL;
    json_writer w;
    int rc = 0;

    if (!d)
        return 0;
    size_t plen = strlen(d->dir) + 32;
    path = xmalloc(plen);
    tmp = xmalloc(plen);
    snprintf(path, plen, "%s/index.json", d->dir);
    snprintf(tmp, plen, "%s/index.json.tmp", d->dir);
    /* written beside and renamed, so that a reader never sees half an index */
    f = fopen(tmp, "w");
    if (!f) {
        rc = rt_err(err, errlen, RT_EIO, "%s: %s", tmp, strerror(errno));
        goto out;
    }
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
    if (ferror(f)) {
        rc = rt_err(err, errlen, RT_EIO, "%s: write error", tmp);
        goto out;
    }
    int cr = fclose(f);
    f = NULL;
    if (cr != 0) {
        rc = rt_err(err, errlen, RT_EIO, "%s: write error: %s", tmp, strerror(errno));
        goto out;
    }
    if (rename(tmp, path) != 0)
        rc = rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
out:
    if (f)
        fclose(f);
    if (rc)
        remove(tmp);
    free(path);
    free(tmp);
    dump_dir_discard(d);
    return rc;
}

/* ------------------------------------------------------------ index reader
 * A small JSON parser for index.json: a list of objects whose members are
 * integers, strings, null or lists of integers; unknown members of any JSON type
 * are skipped (newer writers may add some). */

struct jp {
    const char *p, *end;
    const char *path;
    char *err;
    size_t errlen;
    int depth;
};

static int jp_fail(struct jp *j, const char *msg)
{
    return rt_err(j->err, j->errlen, RT_EFORMAT, "%s: malformed index: %s", j->path, msg);
}

static void jp_ws(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int jp_peek(struct jp *j)
{
    jp_ws(j);
    return j->p < j->end ? (unsigned char)*j->p : -1;
}

static int jp_lit(struct jp *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) >= n && memcmp(j->p, w, n) == 0) {
        j->p += n;
        return 1;
    }
    return 0;
}

static void put_utf8(char *out, size_t *n, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xc0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xe0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*n)++] = (char)(0xf0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static int jp_hex4(struct jp *j, uint32_t *v)
{
    *v = 0;
    if (j->end - j->p < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        char c = *j->p++;
        int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* A JSON string into a malloc'd C string (out may be NULL to skip it). */
static int jp_string(struct jp *j, char **out)
{
    if (jp_peek(j) != '"')
        return jp_fail(j, "expected a string");
    j->p++;
    /* decoded text is never longer than the escaped text */
    const char *q = j->p;
    while (q < j->end && *q != '"')
        q += (*q == '\\' && q + 1 < j->end) ? 2 : 1;
    size_t cap = (size_t)(q - j->p) + 1;
    char *s = xmalloc(cap + 4);
    size_t n = 0;
    int rc = 0;
    for (;;) {
        if (j->p >= j->end) {
            rc = jp_fail(j, "unterminated string");
            goto out;
        }
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"')
            break;
        if (c < 0x20) {
            rc = jp_fail(j, "control character in a string");
            goto out;
        }
        if (c != '\\') {
            s[n++] = (char)c;
            continue;
        }
        if (j->p >= j->end) {
            rc = jp_fail(j, "unterminated string");
            goto out;
        }
        c = (unsigned char)*j->p++;
        switch (c) {
        case '"': case '\\': case '/': s[n++] = (char)c; break;
        case 'b': s[n++] = '\b'; break;
        case 'f': s[n++] = '\f'; break;
        case 'n': s[n++] = '\n'; break;
        case 'r': s[n++] = '\r'; break;
        case 't': s[n++] = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (jp_hex4(j, &cp)) {
                rc = jp_fail(j, "bad \\u escape");
                goto out;
            }
            if (cp >= 0xd800 && cp < 0xdc00) {
                if (!jp_lit(j, "\\u") || jp_hex4(j, &lo) || lo < 0xdc00 || lo >= 0xe000) {
                    rc = jp_fail(j, "bad surrogate pair");
                    goto out;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                rc = jp_fail(j, "bad surrogate pair");
                goto out;
            }
            if (cp == 0) {
                rc = jp_fail(j, "NUL in a string");
                goto out;
            }
            put_utf8(s, &n, cp);
            break;
        }
        default:
            rc = jp_fail(j, "bad escape");
            goto out;
        }
    }
out:
    if (rc || !out) {
        free(s);
        return rc;
    }
    s[n] = 0;
    *out = s;
    return 0;
}

static int jp_int(struct jp *j, int64_t *v)
{
    int neg = 0;
    int64_t x = 0;

    jp_ws(j);
    if (j->p < j->end && *j->p == '-') {
        neg = 1;
        j->p++;
    }
    if (j->p >= j->end || *j->p < '0' || *j->p > '9')
        return jp_fail(j, "expected an integer");
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        int d = *j->p++ - '0';
        if (x > (INT64_MAX - d) / 10)
            return jp_fail(j, "integer too large");
        x = x * 10 + d;
    }
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
        return jp_fail(j, "expected an integer");
    *v = neg ? -x : x;
    return 0;
}

static int jp_skip(struct jp *j)
{
    int c = jp_peek(j), rc;

    if (++j->depth > 64)
        return jp_fail(j, "nested too deeply");
    if (c == '"') {
        rc = jp_string(j, NULL);
    } else if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        rc = 0;
        if (jp_peek(j) == close) {
            j->p++;
        } else {
            for (;;) {
                if (c == '{') {
                    if ((rc = jp_string(j, NULL)))
                        break;
                    if (jp_peek(j) != ':') {
                        rc = jp_fail(j, "expected ':'");
                        break;
                    }
                    j->p++;
                }
                if ((rc = jp_skip(j)))
                    break;
                int n = jp_peek(j);
                j->p++;
                if (n == close)
                    break;
                if (n != ',') {
                    rc = jp_fail(j, "expected ',' or a closing bracket");
                    break;
                }
            }
        }
    } else if (jp_lit(j, "true") || jp_lit(j, "false") || jp_lit(j, "null")) {
        rc = 0;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        j->p++;
        while (j->p < j->end && strchr("0123456789.eE+-", *j->p))
            j->p++;
        rc = 0;
    } else {
        rc = jp_fail(j, "unexpected character");
    }
    j->depth--;
    return rc;
}

/* string or null */
static int jp_opt_string(struct jp *j, char **out)
{
    jp_ws(j);
    if (jp_lit(j, "null")) {
        *out = NULL;
        return 0;
    }
    return jp_string(j, out);
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

static int jp_entry(struct jp *j, dump_entry *e)
{
    int have_layer = 0, have_shape = 0, rc;
    char *key = NULL, *dtype = NULL;

    memset(e, 0, sizeof *e);
    if (jp_peek(j) != '{')
        return jp_fail(j, "expected an object");
    j->p++;
    if (jp_peek(j) == '}') {
        j->p++;
        rc = jp_fail(j, "empty entry");
        goto out;
    }
    for (;;) {
        char **dst = NULL;
        if ((rc = jp_string(j, &key)))
            goto out;
        if (jp_peek(j) != ':') {
            rc = jp_fail(j, "expected ':'");
            goto out;
        }
        j->p++;
        if (strcmp(key, "layer") == 0) {
            int64_t v;
            if ((rc = jp_int(j, &v)))
                goto out;
            if (v < INT32_MIN || v > INT32_MAX) {
                rc = jp_fail(j, "bad layer number");
                goto out;
            }
            e->layer = (int)v;
            have_layer = 1;
        } else if (strcmp(key, "shape") == 0) {
            if (jp_peek(j) != '[') {
                rc = jp_fail(j, "'shape' is not a list");
                goto out;
            }
            j->p++;
            e->ndim = 0;
            if (jp_peek(j) == ']') {
                j->p++;
            } else {
                for (;;) {
                    int64_t v;
                    if (e->ndim >= NPY_MAX_DIMS) {
                        rc = jp_fail(j, "too many dimensions");
                        goto out;
                    }
                    if ((rc = jp_int(j, &v)))
                        goto out;
                    if (v < 0) {
                        rc = jp_fail(j, "negative dimension");
                        goto out;
                    }
                    e->dims[e->ndim++] = v;
                    int c = jp_peek(j);
                    j->p++;
                    if (c == ']')
                        break;
                    if (c != ',') {
                        rc = jp_fail(j, "bad 'shape' list");
                        goto out;
                    }
                }
            }
            have_shape = 1;
        } else if (strcmp(key, "node") == 0) {
            dst = &e->node;
        } else if (strcmp(key, "op") == 0) {
            dst = &e->op;
        } else if (strcmp(key, "name") == 0) {
            dst = &e->name;
        } else if (strcmp(key, "file") == 0) {
            dst = &e->file;
        } else if (strcmp(key, "dtype") == 0) {
            dst = &dtype;
        } else if ((rc = jp_skip(j))) {
            goto out;
        }
        if (dst) {
            if (*dst) {
                rc = jp_fail(j, "repeated member");
                goto out;
            }
            if ((rc = jp_opt_string(j, dst)))
                goto out;
        }
        free(key);
        key = NULL;
        int c = jp_peek(j);
        j->p++;
        if (c == '}')
            break;
        if (c != ',') {
            rc = jp_fail(j, "expected ',' or '}'");
            goto out;
        }
    }
    if (!have_layer || !have_shape || !e->name || !e->file || !dtype) {
        rc = jp_fail(j, "an entry lacks layer, name, file, shape or dtype");
        goto out;
    }
    e->dtype = npy_dtype_from_name(dtype);
    if (!e->dtype) {
        rc = rt_err(j->err, j->errlen, RT_EFORMAT, "%s: unknown dtype '%s'", j->path, dtype);
        goto out;
    }
    /* the file must stay inside the folder */
    if (e->file[0] == '/' || !*e->file || dotdot_component(e->file)) {
        rc = rt_err(j->err, j->errlen, RT_EFORMAT, "%s: file '%s' is outside the folder",
                    j->path, e->file);
        goto out;
    }
out:
    free(key);
    free(dtype);
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
    struct jp j = { .p = buf, .end = (const char *)buf + len, .path = what, .err = err,
                    .errlen = errlen };
    dump_entry *v = NULL;
    int cnt = 0, cap = 0, rc = 0;

    *entries = NULL;
    *n = 0;
    if (!buf)
        j.p = j.end = "";
    if (jp_peek(&j) != '[') {
        rc = jp_fail(&j, "not a JSON list");
        goto out;
    }
    j.p++;
    if (jp_peek(&j) == ']') {
        j.p++;
    } else {
        for (;;) {
            if (cnt == cap) {
                cap = cap ? cap * 2 : 64;
                v = xrealloc(v, sizeof *v * (size_t)cap);
            }
            if ((rc = jp_entry(&j, &v[cnt])))
                goto out;
            cnt++;
            int c = jp_peek(&j);
            j.p++;
            if (c == ']')
                break;
            if (c != ',') {
                rc = jp_fail(&j, "expected ',' or ']'");
                goto out;
            }
        }
    }
    if (jp_peek(&j) != -1)
        rc = jp_fail(&j, "trailing characters");
out:
    if (rc) {
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

static char *join_path(const char *dir, const char *file)
{
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", dir, file);
    return p;
}

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
