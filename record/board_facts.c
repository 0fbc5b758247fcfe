/* record/board_facts.c — what a board run records besides its rows: the board's
 * environment with the runtime's versions and a vendor .rknn's own facts, and
 * the platform to file the run under. Shared by run --backend board and attach. */
#include "record/board_facts.h"
#include "runtime/model/rknn_file.h"
#include "tracer/board.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    json_writer w;

    if (!(f = open_memstream(&text, &len)))
        return NULL;
    json_begin(&w, f);
    json_obj_open(&w);
    board_env_write(&w, root);
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
    json_obj_close(&w);
    fclose(f);
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


/* A version-like string: "1.5.2 (c6b7b351a@2023-08-23T15:28:22)", "2.3.2b3 (...@...)". */
static int version_like(const char *s, size_t n)
{
    size_t i = 0;
    int dots = 0;

    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || (i && s[i] == 'b'))) {
        dots += s[i] == '.';
        i++;
    }
    return dots >= 2 && i + 3 < n && s[i] == ' ' && s[i + 1] == '(' && s[n - 1] == ')' &&
           memchr(s + i, '@', n - i) != NULL;
}

int board_runtime_version(const char *path, char *out, size_t len)
{
    static const char tag[] = "librknnrt version: ";
    void *data = NULL;
    size_t n = 0;
    char err[128];
    int found = 0;

    out[0] = '\0';
    if (rt_read_file(path, &data, &n, err, sizeof err))
        return 0;
    const char *b = data, *end = b + n;
    /* the vendor's literal first (its own guide greps for it), else a bare version string */
    for (const char *p = b; !found && (p = memmem(p, (size_t)(end - p), tag, sizeof tag - 1)) != NULL;
         p += sizeof tag - 1) {
        const char *v = p + sizeof tag - 1;
        size_t l = strnlen(v, (size_t)(end - v));
        if (l && version_like(v, l))
            found = snprintf(out, len, "%.*s", (int)l, v) > 0;
    }
    for (const char *p = b; !found && p < end;) {
        size_t l = strnlen(p, (size_t)(end - p));
        if (l >= 9 && l < 128 && version_like(p, l))
            found = snprintf(out, len, "%.*s", (int)l, p) > 0;
        p += l + 1;
    }
    free(data);
    return found;
}

/* Where a vendor runtime usually is: Debian/Ubuntu board images, Rockchip's
 * rootfs (/usr/lib), Android (/vendor/lib64). */
static const char *const standard_paths[] = {
    "/usr/lib/librknnrt.so", "/usr/lib64/librknnrt.so", "/usr/lib/aarch64-linux-gnu/librknnrt.so",
    "/usr/local/lib/librknnrt.so", "/vendor/lib64/librknnrt.so", "/system/lib64/librknnrt.so",
};

const char *board_runtime_find(const char *given)
{
    const char *env = getenv("RKNN_TRACE_RUNTIME");

    if (given && *given)
        return given;
    if (env && *env)
        return env;
    for (size_t i = 0; i < sizeof standard_paths / sizeof *standard_paths; i++)
        if (access(standard_paths[i], R_OK) == 0)
            return standard_paths[i];
    return NULL;
}

int board_npu_present(const char *root)
{
    board_snapshot_t *s = xcalloc(1, sizeof(*s));
    char dev[600];
    int yes;

    board_snapshot(s, root, 0, BOARD_SNAP_DRM);
    snprintf(dev, sizeof dev, "%s/dev/rknpu", strcmp(root, "/") ? root : "");
    yes = s->drm_state == BOARD_OK || access(dev, F_OK) == 0;
    free(s);
    return yes;
}
