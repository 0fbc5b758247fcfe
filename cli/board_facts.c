/* cli/board_facts.c — what a board run records besides its rows: the board's
 * environment with the runtime's versions and a vendor .rknn's own facts, and
 * the platform to file the run under. Shared by run --backend board and attach. */
#include "cli/cli.h"
#include "runtime/model/rknn_file.h"
#include "tracer/tracer.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void board_model_facts(board_facts *f, const void *model, size_t len)
{
    rknn_model *m = NULL;
    char err[256];

    if (!model || !rknn_file_is(model, len) || rknn_model_parse(model, len, "model", &m, err, sizeof err))
        return;
    if (m->target)
        snprintf(f->model_target, sizeof f->model_target, "%s", m->target);
    if (m->toolkit)
        snprintf(f->toolkit, sizeof f->toolkit, "%s", m->toolkit);
    if (m->compiler)
        snprintf(f->compiler, sizeof f->compiler, "%s", m->compiler);
    rknn_model_free(m);
}

/* The board's environment (board_env_json) with the runtime's and the model's
 * facts added, as one JSON object (env_json). */
char *run_env_json(const char *root, const board_facts *bf)
{
    char *base = board_env_json(root), *text = NULL;
    size_t len = 0, bl = base ? strlen(base) : 0;
    FILE *f;
    json_writer w;

    if (!base || bl < 2 || !(f = open_memstream(&text, &len))) {
        free(base);
        return NULL;
    }
    base[bl - 1] = '\0'; /* drop the closing brace, add ours */
    fputs(base, f);
    json_begin(&w, f);
    w.depth = 1;
    w.need_comma[1] = 1;
    const struct { const char *key, *v; } kv[] = {
        {"runtime_path", bf->runtime}, {"runtime_version", bf->api_version},
        {"runtime_driver_version", bf->drv_version}, {"model_target", bf->model_target},
        {"toolkit_version", bf->toolkit}, {"compiler_version", bf->compiler},
    };
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        if (kv[i].v && kv[i].v[0]) {
            json_key(&w, kv[i].key);
            json_str(&w, kv[i].v);
        }
    fputc('}', f);
    fclose(f);
    free(base);
    return text;
}

const char *board_platform(const char *given, const board_facts *bf, const char *root, char *buf,
                           size_t len)
{
    board_snapshot_t *s;

    if (given)
        return given;
    if (bf->model_target[0])
        return bf->model_target;
    s = xcalloc(1, sizeof(*s));
    board_snapshot(s, root, 0, BOARD_SNAP_ENV);
    snprintf(buf, len, "%s", s->soc_state == BOARD_OK ? s->soc : "");
    free(s);
    return buf[0] ? buf : NULL;
}

