/* analyze/run_filter.c — the tests `ls` and the TUI filter runs by. */
#include "analyze/analyze.h"
#include "runtime/quant/quant.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static int path_matches(const char *m, const char *pattern)
{
    return !strcmp(m, pattern) || !strcmp(base_name(m), pattern) || !fnmatch(pattern, m, 0) ||
           !fnmatch(pattern, base_name(m), 0);
}

int run_filter_model(const store_run *r, const char *pattern)
{
    if (r->model_path)
        return path_matches(r->model_path, pattern);
    /* an imported run without a model: the log it came from, as ls shows it */
    char *log = summary_log_file(r);
    int hit = path_matches(log ? log : "", pattern);
    free(log);
    return hit;
}

int run_filter_quant(const store_run *r, const char *spec)
{
    char want[3][64] = { "", "", "" };
    int k = 0;
    for (const char *p = spec; *p && k < 3;) {
        size_t n = strcspn(p, "/");
        snprintf(want[k++], sizeof(want[0]), "%.*s", (int)n, p);
        p += n + (p[n] == '/');
    }
    /* runs are stored under the canonical type (run -q takes its aliases) */
    int t = quant_type_parse(want[0]);
    if (t >= 0)
        snprintf(want[0], sizeof(want[0]), "%s", quant_type_name(t));
    const char *have[3] = { r->quant, r->quant_algo, r->quant_method };
    for (int i = 0; i < k; i++)
        if (!have[i] || strcasecmp(have[i], want[i]))
            return 0;
    return 1;
}

int run_filter_tag(const store_run *r, const char *tag)
{
    size_t n = strlen(tag);
    for (const char *p = r->tags; p && *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && !strncmp(p, tag, n))
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}
