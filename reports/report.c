/* reports/report.c — loading runs, aligning them, cells and files shared by
 * every format, and the dispatch of report_write. */
#include "reports/reports.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const format_names[REPORT_NFORMATS] = {
    "md", "html", "csv", "json", "trace", "gnuplot", "png",
};

int report_format_parse(const char *name)
{
    for (int i = 0; name && i < REPORT_NFORMATS; i++)
        if (!strcmp(name, format_names[i]))
            return i;
    return -1;
}

const char *report_format_names(void)
{
    return REPORT_FORMAT_NAMES;
}

int report_format_is_folder(int format)
{
    return format == REPORT_GNUPLOT || format == REPORT_PNG;
}

int report_run_load(store *st, const char *ref, double cos_threshold, report_run *r, char *err,
                    size_t errlen)
{
    return cmp_run_load(st, ref, cos_threshold, r, err, errlen);
}

void report_run_free(report_run *r)
{
    cmp_run_free(r);
}

/* ---- alignment ----------------------------------------------------------------- */

/* Names sorted for lookups, so that aligning 2,000-layer runs stays fast. */
typedef struct name_ix {
    const char *name;
    int row;
} name_ix;

static int cmp_name_ix(const void *a, const void *b)
{
    return strcmp(((const name_ix *)a)->name, ((const name_ix *)b)->name);
}

static int cmp_name_ix_row(const void *a, const void *b)
{
    const name_ix *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->row - y->row;
}

int rep_doc_build(const report_run *runs, int n, rep_doc *d)
{
    memset(d, 0, sizeof(*d));
    d->runs = runs;
    d->n = n;
    if (n == 1) {
        /* every layer row in order (also those without a name), with the
         * accuracy row of the same tensor name; then the tensors only the
         * accuracy rows have (graph inputs), in their order */
        const report_run *r = &runs[0];
        name_ix *ix = xcalloc((size_t)r->n_layers + 1, sizeof(*ix));
        int n_ix = 0;
        d->rows = xcalloc((size_t)(r->n_layers + r->n_acc + 1), sizeof(*d->rows));
        for (int i = 0; i < r->n_layers; i++) {
            rep_row *row = &d->rows[d->n_rows++];
            row->name = r->layers[i].name;
            row->op = r->layers[i].op;
            row->layer[0] = i;
            row->acc[0] = row->npu[0] = -1;
            row->runs = 1;
            if (row->name)
                ix[n_ix++] = (name_ix){ row->name, i };
        }
        /* stable: the first layer of a name wins, as compare_align does */
        qsort(ix, (size_t)n_ix, sizeof(*ix), cmp_name_ix_row);
        for (int a = 0; a < r->n_acc; a++) {
            const char *nm = r->acc[a].name;
            name_ix key = { nm, -1 }, *hit = nm && n_ix ? bsearch(&key, ix, (size_t)n_ix, sizeof(*ix), cmp_name_ix) : NULL;
            while (hit && hit > ix && !strcmp(hit[-1].name, nm))
                hit--;
            if (!nm)
                continue;
            if (hit) {
                if (d->rows[hit->row].acc[0] < 0)
                    d->rows[hit->row].acc[0] = a;
                continue;
            }
            int dup = 0;
            for (int j = r->n_layers; j < d->n_rows && !dup; j++)
                dup = !strcmp(d->rows[j].name, nm);
            if (dup)
                continue;
            rep_row *row = &d->rows[d->n_rows++];
            row->name = nm;
            row->op = r->acc[a].op;
            row->layer[0] = row->npu[0] = -1;
            row->acc[0] = a;
            row->runs = 1;
        }
        free(ix);
        return RT_OK;
    }
    /* as `compare` builds it, so that `-f json` is its document */
    char err[128];
    return cmp_doc_build(runs, n, 0, CMP_OUTPUT_FILES, d, err, sizeof(err));
}

void rep_doc_free(rep_doc *d)
{
    cmp_doc_free(d);
}

/* ---- cells ----------------------------------------------------------------------- */

const char *rep_num(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        snprintf(buf, len, "%s", REP_MISSING);
    else
        snprintf(buf, len, fmt, v);
    return buf;
}

const char *rep_int(char *buf, size_t len, int64_t v)
{
    if (v == STORE_NULL_INT)
        snprintf(buf, len, "%s", REP_MISSING);
    else
        snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

const char *rep_str(const char *s)
{
    return s ? s : REP_MISSING;
}

char *rep_log_text(const run_summary *s)
{
    char *text = NULL;
    size_t len = 0;
    if (!s->log.present)
        return NULL;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    summary_log_print(&s->log, s->run->status, f);
    fclose(f);
    size_t skip = strspn(text, "\n");
    memmove(text, text + skip, len - skip + 1);
    return text;
}

int rep_width(const char *s)
{
    int w = 0;
    for (; s && *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* Byte offset of code point i of s. */
static size_t cp_offset(const char *s, int i)
{
    size_t b = 0;
    while (s[b] && i > 0) {
        b++;
        while (((unsigned char)s[b] & 0xc0) == 0x80)
            b++;
        i--;
    }
    return b;
}

const char *rep_short(char *buf, size_t len, const char *name, int width)
{
    if (!name) {
        snprintf(buf, len, "%s", REP_MISSING);
        return buf;
    }
    int w = rep_width(name);
    if (w <= width || width < 5) {
        snprintf(buf, len, "%s", name);
        return buf;
    }
    /* the tail tells layers apart ("…/conv2/Conv_output_0"): keep two thirds of it */
    int head = (width - 1) / 3, tail = width - 1 - head;
    size_t hb = cp_offset(name, head), tb = cp_offset(name, w - tail);
    snprintf(buf, len, "%.*s\xe2\x80\xa6%s", (int)hb, name, name + tb);
    return buf;
}

int rep_is_board(const report_run *r)
{
    return cmp_run_is_board(r);
}

double rep_layer_us(const report_run *r, const store_layer *l)
{
    return cmp_run_layer_us(r, l);
}

const char *rep_run_name(const report_run *r, char *buf, size_t len)
{
    return cmp_run_name(r, buf, len);
}

const char *rep_tag(int k)
{
    return cmp_tag(k);
}

int rep_row_runs(const rep_doc *d, const rep_row *row, char *buf, size_t len)
{
    return cmp_row_runs(d, row, buf, len);
}

double rep_row_cos(const rep_doc *d, const rep_row *row, int k, int single)
{
    int a = row->acc[k];
    if (a < 0)
        return NAN;
    return single ? d->runs[k].acc[a].single.cos : d->runs[k].acc[a].entire.cos;
}

double rep_row_us(const rep_doc *d, const rep_row *row, int k)
{
    return cmp_row_us(d, row, k);
}

const char *rep_layer_us_words(const rep_doc *d, char *buf, size_t len)
{
    return cmp_layer_us_words(d, buf, len);
}

void rep_verdict(const rep_doc *d, int k, char *buf, size_t len)
{
    cmp_verdict(d, k, buf, len);
}

uint32_t rep_bound_rgb(const char *bound)
{
    if (!bound)
        return 0x9e9e9e;
    if (!strcmp(bound, "compute"))
        return 0x3b78c4;
    if (!strcmp(bound, "DDR"))
        return 0xe8912d;
    if (!strcmp(bound, "CPU"))
        return 0xc8382e;
    return 0x9e9e9e;
}

/* ---- files -------------------------------------------------------------------- */

int rep_mkdir(const char *dir, char *err, size_t errlen)
{
    char *p = xstrdup(dir);
    int rc = RT_OK;
    for (char *s = p + 1; ; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) && errno != EEXIST) {
            rc = rt_err(err, errlen, RT_EIO, "cannot create folder '%s': %s", p, strerror(errno));
            goto out;
        }
        *s = c;
        if (!c)
            break;
    }
    struct stat sb;
    if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
        rc = rt_err(err, errlen, RT_EIO, "'%s' exists and is not a folder", dir);
out:
    free(p);
    return rc;
}

int rep_fopen(const char *dir, const char *name, outfile **o, FILE **f, char *err,
              size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    return outfile_open(path, o, f, err, errlen);
}

int rep_fclose(outfile *o, FILE *f, const char *path, char *err, size_t errlen)
{
    if (o)
        return outfile_commit(o, err, errlen);
    if (ferror(f) || fflush(f) != 0)
        return rt_err(err, errlen, RT_EIO, "writing '%s' failed: %s", path ? path : "stdout",
                      strerror(errno ? errno : EIO));
    return RT_OK;
}

int report_write(const report_run *runs, int n, int format, const char *out, FILE *verdicts,
                 char *err, size_t errlen)
{
    rep_doc d;
    FILE *f = NULL;
    outfile *o = NULL;
    int rc = RT_OK;

    if (n < 1 || n > REPORT_MAX_RUNS || format < 0 || format >= REPORT_NFORMATS)
        return rt_err(err, errlen, RT_EINVAL, "report: 1 to %d runs and a known format",
                      REPORT_MAX_RUNS);
    if (report_format_is_folder(format) && !out)
        return rt_err(err, errlen, RT_EINVAL, "-f %s writes a folder: name it with -o DIR",
                      format_names[format]);
    if (n > 1 && format == REPORT_TRACE)
        return rt_err(err, errlen, RT_EUNSUPPORTED,
                      "-f trace shows one run's timeline; give one run (compare in md, html, csv, "
                      "json, gnuplot or png)");
    rep_doc_build(runs, n, &d);
    if (report_format_is_folder(format)) {
        if (!(rc = rep_mkdir(out, err, errlen)))
            rc = format == REPORT_GNUPLOT ? report_gnuplot(&d, out, err, errlen)
                                          : report_png(&d, out, err, errlen);
        goto out;
    }
    if (out && (rc = rep_fopen(NULL, out, &o, &f, err, errlen)))
        goto out;
    if (!out)
        f = stdout;
    errno = 0;
    switch (format) {
    case REPORT_MD: rc = report_md(&d, f); break;
    case REPORT_HTML: rc = report_html(&d, f); break;
    case REPORT_CSV: rc = report_csv(&d, f); break;
    case REPORT_JSON: rc = report_json(&d, f); break;
    case REPORT_TRACE: rc = report_trace(&d, f); break;
    }
    if (rc)
        rc = outfile_close(o, rc, err, errlen);
    else
        rc = rep_fclose(o, f, out, err, errlen);
out:
    for (int k = 1; k < n && !rc && verdicts; k++) {
        char v[1024];
        rep_verdict(&d, k, v, sizeof(v));
        fprintf(verdicts, "%s\n", esc_tmp(ESC_TERM, v));
    }
    rep_doc_free(&d);
    return rc;
}
