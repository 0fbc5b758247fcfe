/* tracer/journal.c — the journal librknntrace.so writes (tracer/interpose.c),
 * read back into contexts: what `attach` stores. The file may end anywhere (a
 * killed application): a cut line or table is left out, what came before stays.
 * Never crashes on any bytes (fuzzed: tests/fuzz/fuzz_journal.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/journal.h"
#include "util/util.h"

/* Room for one more of n items of size sz in *v (capacity doubling); 0 when the
 * limit is reached (the item is left out). */
static int grow(void **v, int n, int *cap, size_t sz, int limit)
{
    if (n >= limit)
        return 0;
    if (n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *v = xrealloc(*v, (size_t)*cap * sz);
    }
    return 1;
}

#define MAX_CONTEXTS 4096
#define MAX_FUNCTIONS 256
#define MAX_WARNINGS 1024

static trace_ctx *ctx_get(trace_journal *j, unsigned long long id)
{
    for (int i = j->n - 1; i >= 0; i--)
        if (j->c[i].id == id && !j->c[i].destroyed)
            return &j->c[i];
    if (!grow((void **)&j->c, j->n, &j->cap, sizeof(*j->c), MAX_CONTEXTS))
        return NULL;
    trace_ctx *c = &j->c[j->n++];
    memset(c, 0, sizeof(*c));
    c->id = id;
    c->n_in = c->n_out = c->weight = c->internal = -1;
    c->perf_run_us = -1;
    return c;
}

static void push(double **v, int *n, int *cap, double x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *v = xrealloc(*v, (size_t)*cap * sizeof(double));
    }
    (*v)[(*n)++] = x;
}

/* Splits a line into tab-separated fields in place; returns the count. */
static int split(char *line, char **f, int max)
{
    int n = 0;

    while (n < max) {
        f[n++] = line;
        char *t = strchr(line, '\t');
        if (!t)
            break;
        *t = '\0';
        line = t + 1;
    }
    return n;
}

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%.*s", (int)(len - 1), strcmp(src, "-") ? src : "");
}

static void add_attr(trace_ctx *c, char **f)
{
    /* A ctx in|out index type fmt n_elems size name dims */
    FILE *m;
    char *text = NULL;
    size_t len = 0;
    json_writer w;

    if (c->n_attrs >= 64 || !(m = open_memstream(&text, &len)))
        return; /* models have a few inputs and outputs: more is not a journal of ours */
    c->n_attrs++;
    json_begin(&w, m);
    json_obj_open(&w);
    json_key(&w, "io"); json_str(&w, f[2]);
    json_key(&w, "index"); json_int(&w, atoll(f[3]));
    json_key(&w, "type"); json_int(&w, atoll(f[4]));
    json_key(&w, "fmt"); json_int(&w, atoll(f[5]));
    json_key(&w, "n_elems"); json_int(&w, atoll(f[6]));
    json_key(&w, "size"); json_int(&w, atoll(f[7]));
    json_key(&w, "name"); json_str(&w, f[8]);
    json_key(&w, "dims"); json_str(&w, f[9]);
    json_obj_close(&w);
    fclose(m);
    c->attrs = xrealloc(c->attrs, c->attrs_len + len + 2);
    if (c->attrs_len)
        c->attrs[c->attrs_len++] = ',';
    memcpy(c->attrs + c->attrs_len, text, len);
    c->attrs_len += len;
    c->attrs[c->attrs_len] = '\0';
    free(text);
}

/* Reads the journal in buf (modified in place). A line cut short by a crash is
 * skipped; what came before it stays. */
void trace_journal_parse(char *buf, size_t len, trace_journal *j)
{
    size_t pos = 0;

    while (pos < len) {
        char *line = buf + pos, *nl = memchr(line, '\n', len - pos), *f[12];
        if (!nl)
            break; /* cut short */
        *nl = '\0';
        pos = (size_t)(nl - buf) + 1;
        int n = split(line, f, 12);
        if (n < 2)
            continue;
        unsigned long long id = strtoull(f[1], NULL, 10);
        char k = f[0][0];
        if (k == 'C' && n >= 5) {
            int i = 0;
            while (i < j->n_fn && strcmp(j->fn[i].name, f[2]))
                i++;
            if (i == j->n_fn) {
                if (!grow((void **)&j->fn, j->n_fn, &j->cap_fn, sizeof(*j->fn), MAX_FUNCTIONS))
                    continue;
                snprintf(j->fn[j->n_fn++].name, sizeof j->fn[0].name, "%.47s", f[2]);
            }
            j->fn[i].calls = atoll(f[3]); /* running totals: the last line counts */
            j->fn[i].ns = atoll(f[4]);
            continue;
        }
        if (k == 'L' && n >= 3) {
            copy(j->runtime, sizeof j->runtime, f[2]);
            continue;
        }
        if (k == 'W') {
            if (!grow((void **)&j->warn, j->n_warn, &j->cap_warn, sizeof(char *), MAX_WARNINGS))
                continue;
            size_t m = strlen(f[2 < n ? 2 : 1]) + 32;
            j->warn[j->n_warn] = xmalloc(m);
            snprintf(j->warn[j->n_warn++], m, "context %llu: %s", id, n > 2 ? f[2] : "");
            continue;
        }
        trace_ctx *c = strchr("INAVMSRGPDU", k) && k ? ctx_get(j, id) : NULL;
        if (!c)
            continue; /* not a line of ours, or too many contexts */
        if (k == 'I' && n >= 9) {
            c->has_init = 1;
            c->flags = (unsigned)strtoul(f[2], NULL, 10);
            c->size = strtoull(f[3], NULL, 10);
            c->init_ret = atoi(f[4]);
            copy(c->sha, sizeof c->sha, f[6]);
            copy(c->kind, sizeof c->kind, f[7]);
            copy(c->path, sizeof c->path, f[8]);
        } else if (k == 'U' && n >= 3) {
            /* a duplicate: the model facts of its source (looked up after c was made) */
            unsigned long long from = strtoull(f[2], NULL, 10);
            int ci = (int)(c - j->c);
            for (int i = 0; i < j->n; i++)
                if (i != ci && j->c[i].id == from && !j->c[i].destroyed) {
                    trace_ctx *src = &j->c[i];
                    c = &j->c[ci];
                    c->has_init = 1;
                    c->flags = src->flags;
                    c->size = src->size;
                    memcpy(c->sha, src->sha, sizeof c->sha);
                    memcpy(c->kind, src->kind, sizeof c->kind);
                    memcpy(c->path, src->path, sizeof c->path);
                    c->n_in = src->n_in;
                    c->n_out = src->n_out;
                    break;
                }
        } else if (k == 'N' && n >= 4) {
            c->n_in = atoll(f[2]);
            c->n_out = atoll(f[3]);
        } else if (k == 'A' && n >= 10) {
            add_attr(c, f);
        } else if (k == 'V' && n >= 4) {
            copy(c->api, sizeof c->api, f[2]);
            copy(c->drv, sizeof c->drv, f[3]);
        } else if (k == 'M' && n >= 4) {
            c->weight = atoll(f[2]);
            c->internal = atoll(f[3]);
        } else if (k == 'S' && n >= 4 && atoi(f[3]) == 0) {
            push(&c->set_us, &c->n_set, &c->cap_set, atof(f[2]) / 1e3);
        } else if (k == 'R' && n >= 6 && atoi(f[4]) == 0) {
            push(&c->run_us, &c->n_run, &c->cap_run, atof(f[3]) / 1e3);
            c->last_t = atof(f[5]) / 1e3;
            if (c->n_run == 1)
                c->first_t = c->last_t - atof(f[3]) / 1e3;
        } else if (k == 'G' && n >= 5 && atoi(f[4]) == 0) {
            push(&c->get_us, &c->n_get, &c->cap_get, atof(f[3]) / 1e3);
        } else if (k == 'P' && n >= 5) {
            size_t bytes = strtoull(f[4], NULL, 10);
            if (bytes > len - pos)
                break; /* table cut short */
            c->perf = buf + pos;
            c->perf_len = bytes;
            c->perf_run_us = atoll(f[3]);
            c->n_perf++;
            pos += bytes + 1;
            buf[pos - 1] = '\0';
        } else if (k == 'D') {
            c->destroyed = 1;
        }
    }
}

void trace_journal_free(trace_journal *j)
{
    for (int i = 0; i < j->n; i++) {
        free(j->c[i].run_us);
        free(j->c[i].set_us);
        free(j->c[i].get_us);
        free(j->c[i].attrs);
    }
    for (int i = 0; i < j->n_warn; i++)
        free(j->warn[i]);
    free(j->c);
    free(j->warn);
    free(j->fn);
}


