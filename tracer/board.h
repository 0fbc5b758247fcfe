/* tracer/board.h — the board probe: the rknpu driver's debugfs/procfs nodes,
 * devfreq, the DRM devices, the processes holding the NPU and the runtime a
 * board run would load (tracer/board.c, board_drm.c, board_parse.c). */
#ifndef RT_TRACER_BOARD_H
#define RT_TRACER_BOARD_H

#include <stddef.h>
#include <stdint.h>
#include "tracer/tracer.h" /* sramlog_mm_t */

/* Everything is read under a root directory ("/" on a board, a fixture tree in
 * tests), so that the same code reads a board, a copy of one, and the
 * simulator's published `load`/`mm` (DESIGN.md "Load"). A node that is absent,
 * needs root, cannot be read or holds unexpected text is reported as such,
 * never as 0 (tracer/board.c; parsers fuzzed by fuzz_debugfs.c, fuzz_procfs.c). */
enum board_state {
    BOARD_OK,          /* read and understood */
    BOARD_ABSENT,      /* no such node (driver built without it, not a board) */
    BOARD_DENIED,      /* exists, needs root (EACCES/EPERM) */
    BOARD_UNREADABLE,  /* exists, read failed otherwise */
    BOARD_BAD          /* read, but not the text the driver prints */
};
/* "ok", "absent", "needs root", "unreadable", "unexpected text". */
const char *board_state_name(int state);

#define BOARD_MAX_CORES 8
#define BOARD_MAX_FREQS 24
#define BOARD_MAX_PROCS 64

/* Node parsers (pure; return 0, or RT_EFORMAT with err). */
/* `version`: "RKNPU driver: v0.9.8" -> "0.9.8". */
int board_parse_version(const char *text, char *ver, size_t len, char *err, size_t errlen);
/* One unsigned decimal ("1000000000\n"), as `freq`, `volt`, devfreq cur_freq. */
int board_parse_u64(const char *text, uint64_t *v, char *err, size_t errlen);
/* devfreq available_frequencies: blank-separated decimals, at most max; returns count. */
int board_parse_freqs(const char *text, uint64_t *f, int max, char *err, size_t errlen);
/* A one-word node (governor, `power` on/off): trailing blanks cut; printable only. */
int board_parse_word(const char *text, char *w, size_t len, char *err, size_t errlen);
/* The `key=value` lines of a sysfs uevent file: value of key, or "" (returns 1 found). */
int board_uevent_get(const char *text, const char *key, char *val, size_t len);
/* /proc/PID/fdinfo/N of a DRM file: the "drm-driver:" value (kernel DRM fdinfo),
 * returns 1 when present. */
int board_fdinfo_driver(const char *text, char *drv, size_t len);
/* A device tree `compatible` (NUL-separated list, len bytes): the Rockchip SoC
 * ("rk3588" from "rockchip,rk3588"), returns 1 when found. */
int board_dt_soc(const char *data, size_t len, char *soc, size_t soclen);

typedef struct board_proc {
    int pid;
    char comm[32];
    char node[64];                 /* device node it holds ("/dev/dri/renderD129") */
} board_proc_t;

typedef struct board_snapshot {
    char root[512];
    char npu_dir[600];             /* where `load` etc. were looked for ("" none) */
    int sim;                       /* npu_dir is the simulator's published folder */
    int load_state, cores;
    int load_pct[BOARD_MAX_CORES];
    int version_state;   char driver_version[32];
    int freq_state;      uint64_t freq_hz;        /* debugfs `freq` */
    int volt_state;      uint64_t volt_uv;
    int power_state;     char power[8];
    int mm_state;        sramlog_mm_t mm;
    /* devfreq of the NPU (<root>/sys/class/devfreq/<base>.npu) */
    char devfreq_dir[64];
    int gov_state;       char governor[32];
    int cur_state;       uint64_t cur_freq_hz;
    int avail_state;     int n_freqs; uint64_t freqs_hz[BOARD_MAX_FREQS];
    /* DRM: a device whose driver is rknpu (libdrm on "/", sysfs under a fixture root) */
    int drm_state;       /* ABSENT: no rknpu DRM device; DENIED: node not openable */
    char drm_node[64], drm_name[32], drm_version[32], drm_date[16], drm_compatible[64];
    int n_drm_devices;             /* DRM devices of any driver seen */
    /* processes holding an NPU device node */
    int procs_state;     int n_procs, n_procs_denied;
    board_proc_t procs[BOARD_MAX_PROCS];
    /* environment */
    int kernel_state;    char kernel[96];
    int soc_state;       char soc[32], dt_model[96];
    double t_us;                   /* when it was taken (rt_now_us) */
    /* the runtime a board run would load, filled by the caller ("" unknown) */
    char runtime_path[256], runtime_version[160];
} board_snapshot_t;

enum { BOARD_SNAP_LOAD = 1, BOARD_SNAP_PROCS = 2, BOARD_SNAP_DRM = 4, BOARD_SNAP_ENV = 8,
       BOARD_SNAP_ALL = 15 };
/* Reads what `parts` asks under root (NULL: "/"). sim: read the simulator's
 * published folder (npu_sysfs_dir) instead of debugfs/procfs; -1: only when the
 * root is "/" and neither debugfs nor procfs has an rknpu folder (a PC). Never
 * fails: every part carries its state. */
void board_snapshot(board_snapshot_t *s, const char *root, int sim, int parts);
/* Reads the driver's nodes and devfreq again, and the parts asked for, keeping
 * the others as they were read (top: /proc every 2 s, DRM and env once). */
void board_snapshot_update(board_snapshot_t *s, int parts);
/* Reads `load` again into an existing snapshot (the 10 Hz path). */
void board_snapshot_load(board_snapshot_t *s);
/* The DRM probe: libdrm's device list and drmGetVersion on "/", the sysfs class
 * under another root (tracer/board_drm.c). */
void board_drm_probe(board_snapshot_t *s);
/* The snapshot as one JSON object on w (docs/json.md "top"). */
struct json_writer;
void board_snapshot_json(const board_snapshot_t *s, struct json_writer *w);
/* The environment of a run (kernel, SoC, clocks, governors, driver) as a JSON
 * object, malloc'd: for store_run.env_json. */
char *board_env_json(const char *root);
/* The same keys into an object w holds open: the one writer of a board's
 * environment, which a run's env_json extends with its own keys. */
void board_env_write(struct json_writer *w, const char *root);

#endif
