/* tracer/benchlog_parse.c — rknn_benchmark / rknn_common_test output
 * (log-formats.md §10). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"
#include "util/util.h"

void benchlog_init(benchlog_t *b)
{
    memset(b, 0, sizeof(*b));
    b->weight_size = b->internal_size = b->dma_size = -1;
    b->n_inputs = b->n_outputs = -1;
    b->avg_ms = b->avg_fps = -1;
}

void benchlog_free(benchlog_t *b)
{
    free(b->perf_ms);
    free(b->perf_fps);
    b->perf_ms = b->perf_fps = NULL;
    b->n_perf = 0;
}

/* "key=value" in an attribute line, up to ", " (dims: up to ']'). */
static int attr(const char *s, const char *key, char *dst, size_t n)
{
    size_t kl = strlen(key);
    const char *p = s;

    while ((p = strstr(p, key)) != NULL) {
        if ((p == s || p[-1] == ' ') && p[kl] == '=')
            break;
        p += kl;
    }
    if (!p)
        return 0;
    p += kl + 1;
    if (*p == '[') {
        const char *e = strchr(p, ']');
        if (!e)
            return 0;
        rt_copy(dst, n, p + 1, (size_t)(e - p - 1));
    } else {
        rt_copy(dst, n, p, strcspn(p, ","));
    }
    return 1;
}

static int tensor_line(benchlog_t *b, const char *s)
{
    benchlog_tensor_t t = {0};
    char v[256], *p, *e;
    int n_dims = 8;

    if (!attr(s, "index", v, sizeof v))
        return 0;
    t.index = atoi(v);
    t.is_output = b->section == 2;
    if (!attr(s, "name", t.name, sizeof t.name) || !attr(s, "dims", v, sizeof v) ||
        !attr(s, "type", t.type, sizeof t.type))
        return 0;
    attr(s, "fmt", t.fmt, sizeof t.fmt);
    /* dims is a fixed array of the runtime: "n_dims=2, dims=[1, 1001, 0, 0]"
     * prints padding after the n_dims that count */
    {
        char nd[16];
        if (attr(s, "n_dims", nd, sizeof nd) && atoi(nd) >= 0 && atoi(nd) < 8)
            n_dims = atoi(nd);
    }
    for (p = v; *p && t.n_dims < n_dims;) {
        long long d = strtoll(p, &e, 10);
        if (e == p)
            return 0;
        t.dims[t.n_dims++] = d;
        p = e;
        while (*p == ',' || *p == ' ')
            p++;
    }
    if (b->n_tensors < BENCHLOG_MAX_TENSORS)
        b->tensors[b->n_tensors++] = t;
    return 1;
}

static int iteration(benchlog_t *b, const char *s)
{
    int it;
    double ms, fps;
    char tail;

    if (sscanf(s, "%d: Elapse Time = %lfms, FPS = %lf%c", &it, &ms, &fps, &tail) != 3 || it < 0 ||
        !(ms >= 0))
        return 0;
    if (b->section == 4) {
        if (!(b->n_perf & (b->n_perf + 1)) || !b->perf_ms) {
            b->perf_ms = xrealloc(b->perf_ms, (size_t)(b->n_perf + 1) * 2 * sizeof(double));
            b->perf_fps = xrealloc(b->perf_fps, (size_t)(b->n_perf + 1) * 2 * sizeof(double));
        }
        b->perf_fps[b->n_perf] = fps;
        b->perf_ms[b->n_perf++] = ms;
    } else {
        if (b->n_warmup < BENCHLOG_MAX_WARMUP) {
            b->warmup_ms[b->n_warmup] = ms;
            b->warmup_fps[b->n_warmup] = fps;
        }
        b->n_warmup++;
    }
    return 1;
}

int benchlog_line(benchlog_t *b, const char *s)
{
    long long x, y;
    double a, f;
    char tail;
    int used = 0;

    while (*s == ' ')
        s++;
    if (!strncmp(s, "rknn_api/rknnrt version:", 24)) {
        const char *p = s + 24, *o, *c;
        while (*p == ' ')
            p++;
        snprintf(b->runtime_version, sizeof b->runtime_version, "%.*s", (int)strcspn(p, " ,"), p);
        if ((o = strchr(p, '(')) && (c = strchr(o, ')')))
            snprintf(b->runtime_build, sizeof b->runtime_build, "%.*s", (int)(c - o - 1), o + 1);
        if ((p = strstr(s, "driver version:"))) {
            for (p += 15; *p == ' ';)
                p++;
            snprintf(b->driver_version, sizeof b->driver_version, "%.*s", (int)strcspn(p, " ,"), p);
        }
        used = 1;
    } else if (sscanf(s, "total weight size: %lld, total internal size: %lld%c", &x, &y, &tail) == 2) {
        b->weight_size = x, b->internal_size = y, used = 1;
    } else if (sscanf(s, "total dma used size: %lld%c", &x, &tail) == 1) {
        b->dma_size = x, used = 1;
    } else if (sscanf(s, "model input num: %lld, output num: %lld%c", &x, &y, &tail) == 2) {
        b->n_inputs = (int)x, b->n_outputs = (int)y, used = 1;
    } else if (!strcmp(s, "input tensors:")) {
        b->section = 1, used = 1;
    } else if (!strcmp(s, "output tensors:")) {
        b->section = 2, used = 1;
    } else if (!strncmp(s, "index=", 6) && (b->section == 1 || b->section == 2)) {
        used = tensor_line(b, s);
    } else if (!strncmp(s, "custom string:", 14)) {
        used = 1;
    } else if (!strcmp(s, "Warmup ...")) {
        b->section = 3, b->has_warmup = 1, used = 1;
    } else if (!strcmp(s, "Begin perf ...")) {
        b->section = 4, used = 1;
    } else if (isdigit((unsigned char)*s) && strstr(s, ": Elapse Time = ")) {
        used = iteration(b, s);
    } else if (sscanf(s, "Avg Time %lfms, Avg FPS = %lf%c", &a, &f, &tail) == 2) {
        b->avg_ms = a, b->avg_fps = f, used = 1;
    } else if (sscanf(s, "Total Time(us): %lld", &x) == 1 && x >= 0) {
        /* eval_perf with perf_debug off: the board's whole-model time, then "FPS: f" */
        const char *p = strstr(s, "FPS:");
        b->avg_ms = (double)x / 1000.0, used = 1;
        if (p && sscanf(p, "FPS: %lf", &f) == 1 && f >= 0)
            b->avg_fps = f;
    } else if (sscanf(s, "Average inference Time(us): %lf%c", &a, &tail) == 1 && a >= 0) {
        /* RKNN-Toolkit 1.x's eval_perf summary: the same whole-model time, with decimals */
        b->avg_ms = a / 1000.0, used = 1;
    } else if (b->avg_ms >= 0 && b->avg_fps < 0 && sscanf(s, "FPS: %lf%c", &f, &tail) == 1 && f >= 0) {
        b->avg_fps = f, used = 1;
    } else if (sscanf(s, "once run use %lf ms%c", &a, &tail) == 1 && a >= 0) {
        /* the SDK's older demos (rknn_yolov5_demo): the first run, then the loop's mean */
        if (b->n_warmup < BENCHLOG_MAX_WARMUP) {
            b->warmup_ms[b->n_warmup] = a;
            b->warmup_fps[b->n_warmup] = -1; /* no FPS printed */
        }
        b->n_warmup++, b->has_warmup = 1, used = 1;
    } else if (sscanf(s, "loop count = %lld , average run %lf ms%c", &x, &a, &tail) == 2 && x > 0 &&
               a >= 0) {
        b->avg_ms = a, used = 1; /* no FPS printed */
    }
    if (used)
        b->n_lines++;
    return used;
}
