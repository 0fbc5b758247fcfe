/* tracer/memlog_parse.c — rknn.eval_memory()'s "Memory Profile Info Dump" box
 * (log-formats.md §9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

void memlog_init(memlog_t *m)
{
    memset(m, 0, sizeof(*m));
    m->weight = m->internal = m->other = m->total = m->model_size = -1;
}

/* "3.53 MiB" / "377.19 KiB" / "12 B" into bytes; -1 when not a size. */
static double size_bytes(const char *s)
{
    char *e;
    double v;

    while (*s == ' ')
        s++;
    v = strtod(s, &e);
    if (e == s || !(v >= 0 && v < 1e18))
        return -1;
    while (*e == ' ')
        e++;
    if (!strcmp(e, "MiB") || !strcmp(e, "MB"))
        return v * 1048576.0;
    if (!strcmp(e, "KiB") || !strcmp(e, "KB"))
        return v * 1024.0;
    if (!strcmp(e, "GiB") || !strcmp(e, "GB"))
        return v * 1073741824.0;
    if (!strcmp(e, "B") || !*e)
        return v;
    return -1;
}

static int value(const char *s, const char *key, double *dst, char *text)
{
    size_t n = strlen(key);
    double v;

    if (strncmp(s, key, n))
        return 0;
    v = size_bytes(s + n);
    if (v < 0)
        return 0;
    *dst = v;
    for (s += n; *s == ' ';)
        s++;
    snprintf(text, MEMLOG_TEXT, "%.*s", MEMLOG_TEXT - 1, s);
    return 1;
}

int memlog_line(memlog_t *m, const char *s)
{
    int used = 0;

    while (*s == ' ')
        s++;
    if (!strcmp(s, "Memory Profile Info Dump")) {
        memlog_init(m);
        m->active = 1;
        used = 1;
    } else if (!m->active) {
        return 0;
    } else if (!strcmp(s, "NPU model memory detail(bytes):") ||
               !strcmp(s, "INFO: When evaluating memory usage, we need consider")) {
        used = 1;
    } else {
        used = value(s, "Total Weight Memory:", &m->weight, m->text[0]) ||
               value(s, "Weight Memory:", &m->weight, m->text[0]) ||
               value(s, "Total Internal Tensor Memory:", &m->internal, m->text[1]) ||
               value(s, "Internal Tensor Memory:", &m->internal, m->text[1]) ||
               value(s, "Other Memory:", &m->other, m->text[2]) ||
               value(s, "Total Memory:", &m->total, m->text[3]) ||
               value(s, "the size of model, current model size is:", &m->model_size, m->text[4]);
    }
    if (used)
        m->n_lines++;
    return used;
}
