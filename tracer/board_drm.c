/* tracer/board_drm.c — the DRM probe. On the real root, libdrm lists the
 * devices and drmGetVersion names each one's driver, as librknnrt does to find
 * the NPU (npu-hw.md §4: the driver registers as DRM driver "rknpu", typically
 * card1/renderD129, version 0.9.x, date "20240828"). Under a fixture root there
 * is no device to open: the sysfs class (read by board.c) is all there is. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include "tracer/board.h"

#define MAX_DRM_DEVICES 16

/* Version of the driver behind an open DRM node; 1 when it is rknpu. */
static int probe_fd(board_snapshot_t *s, int fd, const char *node)
{
    drmVersionPtr v = drmGetVersion(fd);
    int is_npu = 0;

    if (!v)
        return 0;
    if (v->name && !strcmp(v->name, "rknpu")) {
        is_npu = 1;
        snprintf(s->drm_node, sizeof s->drm_node, "%s", node);
        snprintf(s->drm_name, sizeof s->drm_name, "%s", v->name);
        snprintf(s->drm_version, sizeof s->drm_version, "%d.%d.%d", v->version_major,
                 v->version_minor, v->version_patchlevel);
        snprintf(s->drm_date, sizeof s->drm_date, "%.*s", v->date_len > 0 ? v->date_len : 0,
                 v->date ? v->date : "");
    }
    drmFreeVersion(v);
    return is_npu;
}

static void probe_libdrm(board_snapshot_t *s)
{
    drmDevicePtr devs[MAX_DRM_DEVICES];
    int n = drmGetDevices2(0, devs, MAX_DRM_DEVICES), denied = 0, found = 0;
    char denied_node[64] = "";

    if (n <= 0) {
        s->n_drm_devices = 0;
        s->drm_state = BOARD_ABSENT;
        return;
    }
    s->n_drm_devices = n;
    for (int i = 0; i < n && !found; i++) {
        /* the render node needs no DRM master and is what applications open */
        const int order[] = {DRM_NODE_RENDER, DRM_NODE_PRIMARY};
        for (int k = 0; k < 2 && !found; k++) {
            if (!(devs[i]->available_nodes & (1 << order[k])))
                continue;
            const char *node = devs[i]->nodes[order[k]];
            int fd = open(node, O_RDWR | O_CLOEXEC);
            if (fd < 0) {
                if (errno == EACCES || errno == EPERM) {
                    denied = 1;
                    snprintf(denied_node, sizeof denied_node, "%s", node);
                }
                continue;
            }
            found = probe_fd(s, fd, node);
            close(fd);
        }
    }
    drmFreeDevices(devs, n);
    if (found)
        s->drm_state = BOARD_OK;
    else if (denied && !s->drm_node[0]) {
        /* a node we may not open: it may be the NPU (group `video`) */
        s->drm_state = BOARD_DENIED;
        snprintf(s->drm_node, sizeof s->drm_node, "%s", denied_node);
    } else
        s->drm_state = s->drm_node[0] ? BOARD_DENIED : BOARD_ABSENT;
}

void board_drm_probe(board_snapshot_t *s)
{
    if (!strcmp(s->root, "/")) {
        probe_libdrm(s);
        return;
    }
    /* fixture: the sysfs class said which node is rknpu (board.c) */
    s->drm_state = s->drm_node[0] ? BOARD_OK : BOARD_ABSENT;
    if (s->drm_node[0])
        snprintf(s->drm_name, sizeof s->drm_name, "rknpu");
}
