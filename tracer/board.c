/* tracer/board.c — what a board says about its NPU, read under a root folder:
 * the rknpu driver's debugfs/procfs nodes (or the simulator's published ones),
 * devfreq, the DRM class in sysfs, the processes holding the NPU, kernel and
 * device tree. Sources: shared/research/npu-hw.md §4.5, log-formats.md §7. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime/npu/npu.h"
#include "tracer/board.h"
#include "util/util.h"

#define NODE_CAP 8192

/* snprintf for paths: a path cut to fit names nothing, and reads as absent. */
static int pathf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len)
        buf[0] = '\0';
    return n >= 0 && (size_t)n < len;
}

/* Copies src into dst[len], cut to fit. */
static void set_str(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int errno_state(int e)
{
    if (e == ENOENT || e == ENOTDIR)
        return BOARD_ABSENT;
    if (e == EACCES || e == EPERM)
        return BOARD_DENIED;
    return BOARD_UNREADABLE;
}

/* Reads a node (debugfs nodes have no size: read to EOF) into buf, NUL-terminated;
 * returns its state and the byte count in *len. Text with NUL bytes is BAD unless
 * binary is set (device tree strings). */
static int read_node(const char *path, char *buf, size_t cap, size_t *len, int binary)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), state = BOARD_OK;
    size_t n = 0;

    buf[0] = '\0';
    if (len)
        *len = 0;
    if (fd < 0)
        return errno_state(errno);
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            state = errno == EISDIR ? BOARD_UNREADABLE : errno_state(errno);
            if (state == BOARD_ABSENT)
                state = BOARD_UNREADABLE;
            break;
        }
        if (r == 0 || (n += (size_t)r) == cap - 1)
            break;
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    if (state == BOARD_OK && !binary && strlen(buf) != n)
        state = BOARD_BAD;
    return state;
}

static void join(char *out, size_t len, const char *root, const char *rel)
{
    size_t r = strlen(root);

    while (r > 1 && root[r - 1] == '/')
        r--;
    if (r == 1 && root[0] == '/')
        r = 0;
    snprintf(out, len, "%.*s/%s", (int)r, root, rel[0] == '/' ? rel + 1 : rel);
}

/* State of a directory: ok, absent, needs root. */
static int dir_state(const char *path)
{
    struct stat st;
    DIR *d;

    if (stat(path, &st))
        return errno_state(errno);
    if (!S_ISDIR(st.st_mode))
        return BOARD_ABSENT;
    if (!(d = opendir(path)))
        return errno_state(errno);
    closedir(d);
    return BOARD_OK;
}

/* Reads <dir>/<name> and runs parse on it when read; the state of the value. */
static int node_at(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[1024];

    pathf(path, sizeof path, "%s/%s", dir, name);
    return read_node(path, buf, cap, NULL, 0);
}

void board_snapshot_load(board_snapshot_t *s)
{
    char buf[NODE_CAP], err[128];
    int pct[NPU_MAX_CORES];

    s->t_us = rt_now_us();
    s->load_state = s->npu_dir[0] ? node_at(s->npu_dir, "load", buf, sizeof buf) : BOARD_ABSENT;
    if (s->load_state != BOARD_OK)
        return;
    int n = npu_load_parse(buf, pct, err, sizeof err);
    if (n < 1) {
        s->load_state = BOARD_BAD;
        s->cores = 0;
        return;
    }
    s->cores = n > BOARD_MAX_CORES ? BOARD_MAX_CORES : n;
    /* the simulator's load lasts as long as the process that published it */
    if (s->sim && node_at(s->npu_dir, "owner", buf, sizeof buf) == BOARD_OK &&
        npu_load_owner_alive(buf) == 0)
        memset(pct, 0, sizeof pct);
    for (int c = 0; c < s->cores; c++)
        s->load_pct[c] = c < NPU_MAX_CORES ? pct[c] : 0;
}

/* Chooses where the driver's nodes are: debugfs, else procfs (RV1106), else the
 * simulator's folder when allowed. */
static void find_npu_dir(board_snapshot_t *s, int sim)
{
    char dbg[600], proc[600], simdir[1100], base[1024];
    int ds, ps;

    npu_sysfs_dir(base, sizeof base);
    pathf(simdir, sizeof simdir, "%s/rknpu", base);
    if (sim == 1) {
        set_str(s->npu_dir, sizeof s->npu_dir, simdir);
        s->sim = 1;
        return;
    }
    join(dbg, sizeof dbg, s->root, "sys/kernel/debug/rknpu");
    join(proc, sizeof proc, s->root, "proc/rknpu");
    ds = dir_state(dbg);
    ps = dir_state(proc);
    if (ds == BOARD_OK || ds == BOARD_DENIED || ps != BOARD_OK) {
        /* debugfs itself is root-only (0700): then its nodes read as DENIED */
        char dbgroot[600];
        join(dbgroot, sizeof dbgroot, s->root, "sys/kernel/debug");
        if (ds == BOARD_ABSENT && ps == BOARD_ABSENT && dir_state(dbgroot) == BOARD_DENIED)
            ds = BOARD_DENIED;
        set_str(s->npu_dir, sizeof s->npu_dir, dbg);
    } else {
        set_str(s->npu_dir, sizeof s->npu_dir, proc);
    }
    /* no driver on this machine: the simulator's folder, published or not yet */
    if (sim == -1 && ds == BOARD_ABSENT && ps == BOARD_ABSENT && !strcmp(s->root, "/")) {
        set_str(s->npu_dir, sizeof s->npu_dir, simdir);
        s->sim = 1;
    }
}

static void read_driver_nodes(board_snapshot_t *s)
{
    char buf[NODE_CAP], err[128];

    if ((s->version_state = node_at(s->npu_dir, "version", buf, sizeof buf)) == BOARD_OK &&
        board_parse_version(buf, s->driver_version, sizeof s->driver_version, err, sizeof err))
        s->version_state = BOARD_BAD;
    if ((s->freq_state = node_at(s->npu_dir, "freq", buf, sizeof buf)) == BOARD_OK &&
        board_parse_u64(buf, &s->freq_hz, err, sizeof err))
        s->freq_state = BOARD_BAD;
    if ((s->volt_state = node_at(s->npu_dir, "volt", buf, sizeof buf)) == BOARD_OK &&
        board_parse_u64(buf, &s->volt_uv, err, sizeof err))
        s->volt_state = BOARD_BAD;
    if ((s->power_state = node_at(s->npu_dir, "power", buf, sizeof buf)) == BOARD_OK &&
        (board_parse_word(buf, s->power, sizeof s->power, err, sizeof err) ||
         (strcmp(s->power, "on") && strcmp(s->power, "off"))))
        s->power_state = BOARD_BAD;
    if ((s->mm_state = node_at(s->npu_dir, "mm", buf, sizeof buf)) == BOARD_OK &&
        sramlog_parse_mm(buf, strlen(buf), &s->mm, err, sizeof err) < 0)
        s->mm_state = BOARD_BAD;
}

/* The NPU's devfreq folder: a name ending in ".npu" (fdab0000.npu), else one
 * containing "npu". */
static void read_devfreq(board_snapshot_t *s)
{
    char dir[600], sub[1200], buf[NODE_CAP], err[128];
    DIR *d;
    struct dirent *e;

    s->gov_state = s->cur_state = s->avail_state = BOARD_ABSENT;
    join(dir, sizeof dir, s->root, "sys/class/devfreq");
    if (!(d = opendir(dir))) {
        s->gov_state = s->cur_state = s->avail_state = errno_state(errno);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        int suffix = n > 4 && !strcmp(e->d_name + n - 4, ".npu");
        if (e->d_name[0] == '.' || !(suffix || strstr(e->d_name, "npu")))
            continue;
        if (!s->devfreq_dir[0] || suffix)
            set_str(s->devfreq_dir, sizeof s->devfreq_dir, e->d_name);
        if (suffix)
            break;
    }
    closedir(d);
    if (!s->devfreq_dir[0])
        return;
    pathf(sub, sizeof sub, "%s/%s", dir, s->devfreq_dir);
    if ((s->gov_state = node_at(sub, "governor", buf, sizeof buf)) == BOARD_OK &&
        board_parse_word(buf, s->governor, sizeof s->governor, err, sizeof err))
        s->gov_state = BOARD_BAD;
    if ((s->cur_state = node_at(sub, "cur_freq", buf, sizeof buf)) == BOARD_OK &&
        board_parse_u64(buf, &s->cur_freq_hz, err, sizeof err))
        s->cur_state = BOARD_BAD;
    if ((s->avail_state = node_at(sub, "available_frequencies", buf, sizeof buf)) == BOARD_OK) {
        int n = board_parse_freqs(buf, s->freqs_hz, BOARD_MAX_FREQS, err, sizeof err);
        if (n < 0)
            s->avail_state = BOARD_BAD;
        else
            s->n_freqs = n;
    }
}

/* The device nodes of the NPU: /dev/rknpu (DMA-heap build) and the DRM nodes
 * whose sysfs uevent names the RKNPU driver. */
#define MAX_NPU_NODES 4
typedef struct npu_nodes {
    char name[MAX_NPU_NODES][64];
    int n;
} npu_nodes_t;

static void drm_class_nodes(board_snapshot_t *s, npu_nodes_t *nodes)
{
    char dir[600], path[1200], buf[NODE_CAP], drv[32];
    DIR *d;
    struct dirent *e;

    join(dir, sizeof dir, s->root, "sys/class/drm");
    if (!(d = opendir(dir)))
        return;
    while ((e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        if ((strncmp(nm, "card", 4) && strncmp(nm, "renderD", 7)) || strchr(nm, '-'))
            continue;
        if (!strncmp(nm, "card", 4))
            s->n_drm_devices++;
        pathf(path, sizeof path, "%s/%s/device/uevent", dir, nm);
        if (read_node(path, buf, sizeof buf, NULL, 0) != BOARD_OK ||
            !board_uevent_get(buf, "DRIVER", drv, sizeof drv) || strcasecmp(drv, "rknpu"))
            continue;
        if (nodes->n < MAX_NPU_NODES)
            snprintf(nodes->name[nodes->n++], sizeof nodes->name[0], "/dev/dri/%.40s", nm);
        if (!s->drm_node[0] || !strncmp(nm, "renderD", 7)) {
            snprintf(s->drm_node, sizeof s->drm_node, "/dev/dri/%.40s", nm);
            board_uevent_get(buf, "OF_COMPATIBLE_0", s->drm_compatible, sizeof s->drm_compatible);
        }
    }
    closedir(d);
}

/* Does fd target (a readlink of /proc/PID/fd/N) name the NPU? DRM nodes not
 * known from sysfs are asked through their fdinfo. */
static int holds_npu(const char *target, const npu_nodes_t *nodes, const char *fdinfo_path)
{
    char buf[2048], drv[32];

    if (!strcmp(target, "/dev/rknpu"))
        return 1;
    for (int i = 0; i < nodes->n; i++)
        if (!strcmp(target, nodes->name[i]))
            return 1;
    if (strncmp(target, "/dev/dri/", 9) || nodes->n)
        return 0;
    return read_node(fdinfo_path, buf, sizeof buf, NULL, 0) == BOARD_OK &&
           board_fdinfo_driver(buf, drv, sizeof drv) && !strcasecmp(drv, "rknpu");
}

static void read_procs(board_snapshot_t *s, const npu_nodes_t *nodes)
{
    char proc[600], fddir[700], link[1400], target[256], fdinfo[1400], buf[64];
    DIR *d, *fdd;
    struct dirent *e, *f;

    join(proc, sizeof proc, s->root, "proc");
    if (!(d = opendir(proc))) {
        s->procs_state = errno_state(errno);
        return;
    }
    s->procs_state = BOARD_OK;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        pathf(fddir, sizeof fddir, "%s/%ld/fd", proc, pid);
        if (!(fdd = opendir(fddir))) {
            if (errno == EACCES || errno == EPERM)
                s->n_procs_denied++;
            continue;
        }
        while ((f = readdir(fdd)) != NULL) {
            if (f->d_name[0] == '.')
                continue;
            pathf(link, sizeof link, "%s/%s", fddir, f->d_name);
            ssize_t n = readlink(link, target, sizeof target - 1);
            if (n <= 0)
                continue;
            target[n] = '\0';
            pathf(fdinfo, sizeof fdinfo, "%s/%ld/fdinfo/%s", proc, pid, f->d_name);
            if (!holds_npu(target, nodes, fdinfo))
                continue;
            if (s->n_procs < BOARD_MAX_PROCS) {
                board_proc_t *p = &s->procs[s->n_procs++];
                p->pid = (int)pid;
                set_str(p->node, sizeof p->node, target);
                pathf(link, sizeof link, "%s/%ld/comm", proc, pid);
                if (read_node(link, buf, sizeof buf, NULL, 0) == BOARD_OK)
                    buf[strcspn(buf, "\n")] = '\0';
                else
                    snprintf(buf, sizeof buf, "?");
                set_str(p->comm, sizeof p->comm, buf);
            }
            break; /* one row per process */
        }
        closedir(fdd);
    }
    closedir(d);
}

static void read_env(board_snapshot_t *s)
{
    char path[700], buf[NODE_CAP];
    size_t len;

    join(path, sizeof path, s->root, "proc/sys/kernel/osrelease");
    if ((s->kernel_state = read_node(path, buf, sizeof buf, NULL, 0)) == BOARD_OK) {
        buf[strcspn(buf, "\n")] = '\0';
        if (!buf[0])
            s->kernel_state = BOARD_BAD;
        set_str(s->kernel, sizeof s->kernel, buf);
    }
    /* /proc/device-tree links to /sys/firmware/devicetree/base */
    const char *dt[] = {"proc/device-tree", "sys/firmware/devicetree/base"};
    s->soc_state = BOARD_ABSENT;
    for (int i = 0; i < 2 && s->soc_state == BOARD_ABSENT; i++) {
        char file[800];
        join(path, sizeof path, s->root, dt[i]);
        pathf(file, sizeof file, "%s/compatible", path);
        if ((s->soc_state = read_node(file, buf, sizeof buf, &len, 1)) == BOARD_OK &&
            !board_dt_soc(buf, len, s->soc, sizeof s->soc))
            s->soc_state = BOARD_BAD;
        pathf(file, sizeof file, "%s/model", path);
        if (read_node(file, buf, sizeof buf, &len, 1) == BOARD_OK) {
            for (size_t k = 0; buf[k]; k++)
                if (!isprint((unsigned char)buf[k]))
                    buf[k] = '?';
            set_str(s->dt_model, sizeof s->dt_model, buf);
        }
    }
}

void board_snapshot_update(board_snapshot_t *s, int parts)
{
    npu_nodes_t nodes = {0};

    /* the cheap nodes every time; each part asked for is read afresh */
    board_snapshot_load(s);
    s->freq_hz = s->volt_uv = 0;
    s->power[0] = s->driver_version[0] = '\0';
    memset(&s->mm, 0, sizeof s->mm);
    read_driver_nodes(s);
    s->devfreq_dir[0] = s->governor[0] = '\0';
    s->n_freqs = 0;
    s->cur_freq_hz = 0;
    read_devfreq(s);
    if (parts & BOARD_SNAP_DRM) {
        s->drm_state = BOARD_ABSENT;
        s->drm_node[0] = s->drm_name[0] = s->drm_version[0] = s->drm_date[0] = '\0';
        s->drm_compatible[0] = '\0';
        s->n_drm_devices = 0;
    }
    if (parts & (BOARD_SNAP_DRM | BOARD_SNAP_PROCS)) {
        /* the NPU's device nodes, from the sysfs class (the DRM part is kept as read) */
        board_snapshot_t tmp;
        memcpy(tmp.root, s->root, sizeof tmp.root);
        tmp.n_drm_devices = 0;
        tmp.drm_node[0] = tmp.drm_compatible[0] = '\0';
        drm_class_nodes(&tmp, &nodes);
        if (parts & BOARD_SNAP_DRM) {
            s->n_drm_devices = tmp.n_drm_devices;
            memcpy(s->drm_node, tmp.drm_node, sizeof s->drm_node);
            memcpy(s->drm_compatible, tmp.drm_compatible, sizeof s->drm_compatible);
        }
    }
    if (parts & BOARD_SNAP_DRM)
        board_drm_probe(s);
    if (parts & BOARD_SNAP_PROCS) {
        s->n_procs = s->n_procs_denied = 0;
        s->procs_state = BOARD_ABSENT;
        read_procs(s, &nodes);
    }
    if (parts & BOARD_SNAP_ENV) {
        s->kernel[0] = s->soc[0] = s->dt_model[0] = '\0';
        read_env(s);
    }
}

void board_snapshot(board_snapshot_t *s, const char *root, int sim, int parts)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->root, sizeof s->root, "%s", root && *root ? root : "/");
    s->drm_state = s->procs_state = s->kernel_state = s->soc_state = BOARD_ABSENT;
    find_npu_dir(s, sim);
    board_snapshot_update(s, parts);
}

/* ---- JSON ---- */

static void j_state(json_writer *w, int state)
{
    json_key(w, "state");
    json_str(w, board_state_name(state));
}

static void j_u64_item(json_writer *w, const char *key, int state, const char *vkey, uint64_t v)
{
    json_key(w, key);
    json_obj_open(w);
    j_state(w, state);
    json_key(w, vkey);
    if (state == BOARD_OK)
        json_int(w, (int64_t)v);
    else
        json_write_null(w);
    json_obj_close(w);
}

static void j_str_item(json_writer *w, const char *key, int state, const char *v)
{
    json_key(w, key);
    json_obj_open(w);
    j_state(w, state);
    json_key(w, "value");
    json_str(w, state == BOARD_OK ? v : NULL);
    json_obj_close(w);
}

void board_snapshot_json(const board_snapshot_t *s, json_writer *w)
{
    json_obj_open(w);
    json_key(w, "schema_version"); json_int(w, 1);
    json_key(w, "kind"); json_str(w, "top");
    json_key(w, "root"); json_str(w, s->root);
    json_key(w, "source"); json_str(w, s->npu_dir[0] ? s->npu_dir : NULL);
    json_key(w, "simulated"); json_bool(w, s->sim);
    json_key(w, "load");
    json_obj_open(w);
    j_state(w, s->load_state);
    json_key(w, "cores");
    if (s->load_state == BOARD_OK)
        json_int(w, s->cores);
    else
        json_write_null(w);
    json_key(w, "pct");
    if (s->load_state == BOARD_OK) {
        json_arr_open(w);
        for (int c = 0; c < s->cores; c++)
            json_int(w, s->load_pct[c]);
        json_arr_close(w);
    } else {
        json_write_null(w);
    }
    json_obj_close(w);
    j_str_item(w, "driver_version", s->version_state, s->driver_version);
    j_u64_item(w, "freq", s->freq_state, "hz", s->freq_hz);
    j_u64_item(w, "volt", s->volt_state, "uv", s->volt_uv);
    j_str_item(w, "power", s->power_state, s->power);
    json_key(w, "devfreq");
    json_obj_open(w);
    json_key(w, "name"); json_str(w, s->devfreq_dir[0] ? s->devfreq_dir : NULL);
    j_str_item(w, "governor", s->gov_state, s->governor);
    j_u64_item(w, "cur_freq", s->cur_state, "hz", s->cur_freq_hz);
    json_key(w, "available");
    json_obj_open(w);
    j_state(w, s->avail_state);
    json_key(w, "hz");
    if (s->avail_state == BOARD_OK) {
        json_arr_open(w);
        for (int i = 0; i < s->n_freqs; i++)
            json_int(w, (int64_t)s->freqs_hz[i]);
        json_arr_close(w);
    } else {
        json_write_null(w);
    }
    json_obj_close(w);
    json_obj_close(w);
    json_key(w, "sram");
    json_obj_open(w);
    j_state(w, s->mm_state);
    int ok = s->mm_state == BOARD_OK;
    json_key(w, "total_bytes"); ok ? json_int(w, s->mm.total) : json_write_null(w);
    json_key(w, "used_bytes"); ok ? json_int(w, s->mm.used) : json_write_null(w);
    json_key(w, "free_bytes"); ok ? json_int(w, s->mm.free) : json_write_null(w);
    json_key(w, "pages"); ok ? json_int(w, s->mm.pages) : json_write_null(w);
    json_key(w, "map"); json_str(w, ok ? s->mm.map : NULL);
    json_obj_close(w);
    json_key(w, "drm");
    json_obj_open(w);
    j_state(w, s->drm_state);
    json_key(w, "devices"); json_int(w, s->n_drm_devices);
    ok = s->drm_state == BOARD_OK || s->drm_state == BOARD_DENIED;
    json_key(w, "node"); json_str(w, ok && s->drm_node[0] ? s->drm_node : NULL);
    json_key(w, "name"); json_str(w, ok && s->drm_name[0] ? s->drm_name : NULL);
    json_key(w, "version"); json_str(w, ok && s->drm_version[0] ? s->drm_version : NULL);
    json_key(w, "date"); json_str(w, ok && s->drm_date[0] ? s->drm_date : NULL);
    json_key(w, "compatible"); json_str(w, ok && s->drm_compatible[0] ? s->drm_compatible : NULL);
    json_obj_close(w);
    json_key(w, "processes");
    json_obj_open(w);
    j_state(w, s->procs_state);
    json_key(w, "not_readable"); json_int(w, s->n_procs_denied);
    json_key(w, "list");
    json_arr_open(w);
    for (int i = 0; i < s->n_procs; i++) {
        json_obj_open(w);
        json_key(w, "pid"); json_int(w, s->procs[i].pid);
        json_key(w, "comm"); json_str(w, s->procs[i].comm);
        json_key(w, "node"); json_str(w, s->procs[i].node);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_obj_close(w);
    j_str_item(w, "kernel", s->kernel_state, s->kernel);
    j_str_item(w, "soc", s->soc_state, s->soc);
    json_key(w, "dt_model"); json_str(w, s->dt_model[0] ? s->dt_model : NULL);
    json_key(w, "runtime");
    json_obj_open(w);
    json_key(w, "path"); json_str(w, s->runtime_path[0] ? s->runtime_path : NULL);
    json_key(w, "version"); json_str(w, s->runtime_version[0] ? s->runtime_version : NULL);
    json_obj_close(w);
    json_obj_close(w);
}

/* ---- A run's environment ---- */

static void env_devfreq(json_writer *w, const char *root, const char *name, const char *key)
{
    char dir[800], buf[256], err[64], v[48];
    uint64_t hz;

    join(dir, sizeof dir, root, "sys/class/devfreq");
    pathf(dir + strlen(dir), sizeof dir - strlen(dir), "/%s", name);
    char k[64];
    if (node_at(dir, "cur_freq", buf, sizeof buf) == BOARD_OK && !board_parse_u64(buf, &hz, err, sizeof err)) {
        snprintf(k, sizeof k, "%s_freq_hz", key);
        json_key(w, k);
        json_int(w, (int64_t)hz);
    }
    if (node_at(dir, "governor", buf, sizeof buf) == BOARD_OK && !board_parse_word(buf, v, sizeof v, err, sizeof err)) {
        snprintf(k, sizeof k, "%s_governor", key);
        json_key(w, k);
        json_str(w, v);
    }
}

char *board_env_json(const char *root)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    json_writer w;

    if (!f)
        return NULL;
    json_begin(&w, f);
    json_obj_open(&w);
    board_env_write(&w, root);
    json_obj_close(&w);
    fclose(f);
    return text;
}

void board_env_write(json_writer *w, const char *root)
{
    board_snapshot_t *s = xcalloc(1, sizeof(*s));
    char dir[700], buf[256], err[64], gov[48];
    board_snapshot(s, root, 0, BOARD_SNAP_DRM | BOARD_SNAP_ENV);
    json_key(w, "source"); json_str(w, "board");
    if (s->kernel_state == BOARD_OK) { json_key(w, "kernel"); json_str(w, s->kernel); }
    if (s->soc_state == BOARD_OK) { json_key(w, "soc"); json_str(w, s->soc); }
    if (s->dt_model[0]) { json_key(w, "board_model"); json_str(w, s->dt_model); }
    if (s->version_state == BOARD_OK) { json_key(w, "driver_version"); json_str(w, s->driver_version); }
    else if (s->drm_version[0]) { json_key(w, "driver_version"); json_str(w, s->drm_version); }
    if (s->drm_node[0]) { json_key(w, "npu_device"); json_str(w, s->drm_node); }
    if (s->freq_state == BOARD_OK) { json_key(w, "npu_freq_hz"); json_int(w, (int64_t)s->freq_hz); }
    else if (s->cur_state == BOARD_OK) { json_key(w, "npu_freq_hz"); json_int(w, (int64_t)s->cur_freq_hz); }
    if (s->gov_state == BOARD_OK) { json_key(w, "npu_governor"); json_str(w, s->governor); }
    env_devfreq(w, s->root, "dmc", "ddr");
    /* CPU clusters: one cpufreq policy each */
    json_key(w, "cpu");
    json_arr_open(w);
    for (int p = 0; p < 16; p++) {
        uint64_t khz;
        char name[64];
        snprintf(name, sizeof name, "sys/devices/system/cpu/cpufreq/policy%d", p);
        join(dir, sizeof dir, s->root, name);
        if (dir_state(dir) != BOARD_OK)
            continue;
        json_obj_open(w);
        json_key(w, "policy"); json_int(w, p);
        if (node_at(dir, "scaling_cur_freq", buf, sizeof buf) == BOARD_OK &&
            !board_parse_u64(buf, &khz, err, sizeof err)) {
            json_key(w, "cur_khz"); json_int(w, (int64_t)khz);
        }
        if (node_at(dir, "scaling_governor", buf, sizeof buf) == BOARD_OK &&
            !board_parse_word(buf, gov, sizeof gov, err, sizeof err)) {
            json_key(w, "governor"); json_str(w, gov);
        }
        json_obj_close(w);
    }
    json_arr_close(w);
    free(s);
}
