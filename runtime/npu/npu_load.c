/* runtime/npu/npu_load.c — busy-time accounting and the driver's `load` text.
 *
 * Format (DRV rknpu_debugger.c, log-formats.md §7): "NPU load: ", then per core
 * " Core%d: " + "%2d%%," when the chip has several cores, or "%2d%%" for one
 * core, then "\n" -> "NPU load:  Core0: 61%, Core1: 50%, Core2: 50%,".
 * Load = min(100, busy_ns / (interval / 100)) over the last 1 s window (§4.6). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "runtime/npu/npu.h"
#include "util/outfile.h"
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

/* The base directory, and whether its last component is one we add (and so must
 * be ours) rather than one the user named. */
static const char *sysfs_base(char *buf, size_t len, int *ours)
{
    const char *s = getenv("RKNN_TRACE_SYSFS"), *x = getenv("XDG_RUNTIME_DIR");

    *ours = !(s && *s);
    if (s && *s)
        snprintf(buf, len, "%s", s);
    else if (x && *x)
        snprintf(buf, len, "%s/rknn-trace", x);
    else
        snprintf(buf, len, "/tmp/rknn-trace-%u", (unsigned)getuid());
    return buf;
}

const char *npu_sysfs_dir(char *buf, size_t len)
{
    int ours;

    return sysfs_base(buf, len, &ours);
}

/* A directory nobody but us (or root) can plant entries in: its children may be
 * symbolic links or belong to someone else, that was our choice or root's. */
static int dir_trusted(int fd)
{
    struct stat st;

    return fstat(fd, &st) == 0 && (st.st_uid == getuid() || st.st_uid == 0) &&
           !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Opens directory `name` inside dirfd, creating it (0700) when missing. strict:
 * it must be a real directory (no symbolic link) owned by us that nobody else can
 * write; used for every component we create or add, and for every component
 * under a directory others can write (/tmp). Returns the fd or -1 with err set;
 * `shown` is the path for messages. */
static int open_dir_at(int dirfd, const char *name, int strict, const char *shown,
                       char *err, size_t errlen)
{
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC, fd;
    struct stat st;
    const char *why = NULL;

    if (!dir_trusted(dirfd))
        strict = 1;
    fd = openat(dirfd, name, flags | (strict ? O_NOFOLLOW : 0));
    if (fd < 0 && errno == ENOENT) {
        if (mkdirat(dirfd, name, 0700) && errno != EEXIST) {
            rt_err(err, errlen, RT_EIO, "cannot create %s: %s", shown, strerror(errno));
            goto out;
        }
        strict = 1; /* ours now, or someone else's who won the race */
        fd = openat(dirfd, name, flags | O_NOFOLLOW);
    }
    if (fd < 0) {
        int e = errno;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            rt_err(err, errlen, RT_EIO, "%s is a symbolic link where a directory of our "
                   "own is needed: refusing to follow it (remove it)", shown);
        else
            rt_err(err, errlen, RT_EIO, "cannot open directory %s: %s", shown, strerror(e));
        goto out;
    }
    if (!strict)
        goto out;
    if (fstat(fd, &st))
        why = strerror(errno);
    else if (st.st_uid != getuid())
        rt_err(err, errlen, RT_EIO, "%s belongs to uid %u, not to us (uid %u): refusing to "
               "write there", shown, (unsigned)st.st_uid, (unsigned)getuid());
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        rt_err(err, errlen, RT_EIO, "%s is writable by group or others (mode %03o): refusing "
               "to write there (chmod 700 it)", shown, (unsigned)(st.st_mode & 0777));
    else
        goto out;
    if (why)
        rt_err(err, errlen, RT_EIO, "cannot stat %s: %s", shown, why);
    close(fd);
    fd = -1;
out:
    return fd;
}

/* Opens <base>/rknpu component by component, never following a link that someone
 * else could have planted. Returns the fd of rknpu or -1 with err set. */
static int open_node_dir(char *err, size_t errlen)
{
    char base[1024], shown[1100], *save = NULL, *comp;
    int ours, fd, n = 0, total = 0;

    sysfs_base(base, sizeof base, &ours);
    fd = open(base[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        rt_err(err, errlen, RT_EIO, "cannot open %s: %s", base[0] == '/' ? "/" : ".",
               strerror(errno));
        goto out;
    }
    snprintf(shown, sizeof shown, "%s", base);
    for (char *p = strtok_r(shown, "/", &save); p; p = strtok_r(NULL, "/", &save))
        total++;
    snprintf(shown, sizeof shown, "%s", base[0] == '/' ? "" : ".");
    save = NULL;
    /* the last component is one we add (rknn-trace*) when no RKNN_TRACE_SYSFS */
    for (comp = strtok_r(base, "/", &save); comp && fd >= 0; comp = strtok_r(NULL, "/", &save)) {
        int parent = fd;
        n++;
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "/%s", comp);
        fd = open_dir_at(parent, comp, ours && n == total, shown, err, errlen);
        close(parent);
    }
    if (fd >= 0) {
        int parent = fd;
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "/rknpu");
        fd = open_dir_at(parent, "rknpu", 1, shown, err, errlen);
        close(parent);
    }
out:
    return fd;
}

/* <sysfs dir>/rknpu/<node> := text, through util/outfile.h relative to the
 * checked folder: readers never see a half-written file, a link planted at
 * the node or at a temporary's name is replaced or skipped, never followed.
 * No fsync: the node is rewritten every frame. */
static int publish_node(const char *node, const char *text, char *err, size_t errlen)
{
    outfile *o;
    FILE *f;
    int dfd, rc;

    dfd = open_node_dir(err, errlen);
    if (dfd < 0)
        return RT_EIO;
    if (!(rc = outfile_open_at(dfd, node, OUTFILE_NOSYNC, &o, &f, err, errlen))) {
        fputs(text, f);
        rc = outfile_commit(o, err, errlen);
    }
    close(dfd);
    return rc ? RT_EIO : 0;
}

/* Field 22 of /proc/PID/stat (start time in clock ticks since boot): a pid and
 * its start time name one process, whatever pid reuse happens later. 0: gone. */
static unsigned long long proc_start(long pid)
{
    char path[64], buf[1024], *p;
    unsigned long long start = 0;
    FILE *f;
    size_t n;

    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* the command name may hold spaces and parentheses: count from the last ')' */
    if (!(p = strrchr(buf, ')')))
        return 0;
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (p)
        start = strtoull(p + 1, NULL, 10);
    return start;
}

/* 1 when <dir>/rknpu/owner holds exactly text. */
static int owner_is(const char *text)
{
    char base[1024], path[1100], buf[64];
    int ours, same = 0;
    FILE *f;

    snprintf(path, sizeof path, "%s/rknpu/owner", sysfs_base(base, sizeof base, &ours));
    if ((f = fopen(path, "r"))) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        same = !strcmp(buf, text);
        fclose(f);
    }
    return same;
}

int npu_load_publish(const npu_load_t *ld, char *err, size_t errlen)
{
    char text[128], owner[64];
    int rc;

    snprintf(owner, sizeof owner, "%ld %llu\n", (long)getpid(), proc_start((long)getpid()));
    /* a rename costs ~1.5 ms on a disk file system: rewritten only when another
     * process (or none yet) is named there */
    if (!owner_is(owner) && (rc = publish_node("owner", owner, err, errlen)))
        return rc;
    npu_load_format(ld, text, sizeof text);
    return publish_node("load", text, err, errlen);
}

int npu_load_owner_alive(const char *owner)
{
    long pid;
    unsigned long long start;

    if (sscanf(owner, "%ld %llu", &pid, &start) != 2 || pid <= 0)
        return -1;
    return proc_start(pid) == start && start != 0;
}

int npu_sram_pool_publish(const npu_sram_pool_t *sp, char *err, size_t errlen)
{
    char text[4096];

    if (npu_sram_pool_format(sp, text, sizeof text) < 0)
        return rt_err(err, errlen, RT_EINTERNAL, "mm text does not fit");
    return publish_node("mm", text, err, errlen);
}
