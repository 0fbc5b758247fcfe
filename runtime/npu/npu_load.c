/* runtime/npu/npu_load.c — busy-time accounting and the driver's `load` text.
 *
 * Format (DRV rknpu_debugger.c, log-formats.md §7): "NPU load: ", then per core
 * " Core%d: " + "%2d%%," when the chip has several cores, or "%2d%%" for one
 * core, then "\n" -> "NPU load:  Core0: 61%, Core1: 50%, Core2: 50%,".
 * Load = min(100, busy_ns / (interval / 100)) over the last 1 s window (§4.6). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime/npu/npu.h"
#include "util/util.h"

void npu_load_init(npu_load_t *ld, const npu_platform_t *p)
{
    memset(ld, 0, sizeof(*ld));
    ld->cores = p->cores > NPU_MAX_CORES ? NPU_MAX_CORES : p->cores;
    ld->window_us = 1e6; /* RKNPU_LOAD_INTERVAL = 1 s */
}

void npu_load_add_run(npu_load_t *ld, const npu_graph_t *ng)
{
    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        if (l->target != NPU_TGT_NPU)
            continue;
        for (int c = 0; c < ld->cores; c++)
            ld->busy_us[c] += l->time_us * l->workload[c] / 100.0;
    }
}

void npu_load_percent(const npu_load_t *ld, int pct[NPU_MAX_CORES])
{
    for (int c = 0; c < NPU_MAX_CORES; c++) {
        double v = c < ld->cores && ld->window_us > 0 ? ld->busy_us[c] * 100.0 / ld->window_us : 0;
        pct[c] = v >= 100 ? 100 : (int)v;
    }
}

int npu_load_format(const npu_load_t *ld, char *buf, size_t len)
{
    int pct[NPU_MAX_CORES];
    size_t u;

    npu_load_percent(ld, pct);
    u = (size_t)snprintf(buf, len, "NPU load: ");
    for (int c = 0; c < ld->cores && u < len; c++) {
        if (ld->cores > 1)
            u += (size_t)snprintf(buf + u, len - u, " Core%d: %2d%%,", c, pct[c]);
        else
            u += (size_t)snprintf(buf + u, len - u, "%2d%%", pct[c]);
    }
    if (u < len)
        u += (size_t)snprintf(buf + u, len - u, "\n");
    return u < len ? 0 : RT_EINVAL;
}

int npu_load_parse(const char *text, int pct[NPU_MAX_CORES], char *err, size_t errlen)
{
    const char *p = strstr(text, "NPU load:");
    int n = 0;

    memset(pct, 0, sizeof(int) * NPU_MAX_CORES);
    if (!p)
        return rt_err(err, errlen, RT_EFORMAT, "no 'NPU load:' in the text");
    p += 9;
    if (!strstr(p, "Core")) { /* single core: "NPU load: 37%" */
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p || *e != '%' || v < 0 || v > 1000)
            return rt_err(err, errlen, RT_EFORMAT, "bad single-core load value");
        pct[0] = (int)v;
        return 1;
    }
    while ((p = strstr(p, "Core")) != NULL) {
        char *e;
        long core = strtol(p + 4, &e, 10), v;
        if (e == p + 4 || *e != ':')
            return rt_err(err, errlen, RT_EFORMAT, "bad core field in load text");
        p = e + 1;
        v = strtol(p, &e, 10);
        if (e == p || *e != '%' || v < 0 || v > 1000)
            return rt_err(err, errlen, RT_EFORMAT, "bad load value for core %ld", core);
        if (core < 0 || core >= NPU_MAX_CORES)
            return rt_err(err, errlen, RT_EFORMAT, "core index %ld out of range", core);
        pct[core] = (int)v;
        if (core + 1 > n)
            n = (int)core + 1;
        p = e;
    }
    return n;
}

const char *npu_sysfs_dir(char *buf, size_t len)
{
    const char *s = getenv("RKNN_TRACE_SYSFS"), *x = getenv("XDG_RUNTIME_DIR");

    if (s && *s)
        snprintf(buf, len, "%s", s);
    else if (x && *x)
        snprintf(buf, len, "%s/rknn-trace", x);
    else
        snprintf(buf, len, "/tmp/rknn-trace-%u", (unsigned)getuid());
    return buf;
}

static int mkdir_p(const char *dir)
{
    char tmp[1200];

    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0700) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0700) && errno != EEXIST ? -1 : 0;
}

/* <sysfs dir>/rknpu/<node> := text, through a rename so that readers never
 * see a half-written file. */
static int publish_node(const char *node, const char *text, char *err, size_t errlen)
{
    char dir[1024], path[1100], tmp[1110];
    FILE *f;

    npu_sysfs_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/rknpu", dir);
    if (mkdir_p(path))
        return rt_err(err, errlen, RT_EIO, "cannot create %s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/rknpu/%s", dir, node);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f)
        return rt_err(err, errlen, RT_EIO, "cannot write %s: %s", tmp, strerror(errno));
    fputs(text, f);
    if (fclose(f) || rename(tmp, path))
        return rt_err(err, errlen, RT_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int npu_load_publish(const npu_load_t *ld, char *err, size_t errlen)
{
    char text[128];

    npu_load_format(ld, text, sizeof text);
    return publish_node("load", text, err, errlen);
}

int npu_sram_pool_publish(const npu_sram_pool_t *sp, char *err, size_t errlen)
{
    char text[4096];

    if (npu_sram_pool_format(sp, text, sizeof text) < 0)
        return rt_err(err, errlen, RT_EINTERNAL, "mm text does not fit");
    return publish_node("mm", text, err, errlen);
}
