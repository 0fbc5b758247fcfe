/* cli/cmd_info.c — `rknn-trace info`: what this build supports and where the
 * runtime library is. */
#include "cli/cli.h"
#include "record/board_facts.h"
#include "record/version.h"
#include "cli/opt.h"
#include "runtime/emu/emu.h"
#include "runtime/exec/exec.h"
#include "runtime/npu/npu.h"
#include "tracer/board.h"
#include "util/util.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Which librknnrt.so the dynamic loader gives a process started from this
 * environment: asked of the loader itself (LD_LIBRARY_PATH, the ld.so cache,
 * the default directories), not guessed. */
static void print_loaded_runtime(const char *ours)
{
    void *h = dlopen("librknnrt.so", RTLD_LAZY | RTLD_LOCAL);
    struct link_map *lm = NULL;

    if (!h) {
        printf("a process  would find no librknnrt.so (%s)\n", dlerror());
        return;
    }
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) {
        char *real = realpath(lm->l_name, NULL);
        const char *path = real ? real : lm->l_name;
        int is_ours = ours && !strcmp(path, ours);
        char ver[160];
        printf("a process  would load %s (%s)\n", path,
               is_ours ? "this simulated runtime"
               : dlsym(h, "rknn_init") ? "another runtime, e.g. the vendor's"
                                         : "not an RKNN runtime");
        if (board_runtime_version(path, ver, sizeof ver))
            printf("           librknnrt version: %s\n", ver);
        free(real);
    }
    dlclose(h);
}

/* The NPU of this machine as libdrm and the driver's nodes show it. */
static void print_board(void)
{
    board_snapshot_t *s = xcalloc(1, sizeof(*s));

    board_snapshot(s, "/", 0, BOARD_SNAP_DRM);
    if (s->drm_state == BOARD_OK)
        printf("npu        %s: DRM driver %s %s (%s)\n", s->drm_node, s->drm_name,
               s->drm_version[0] ? s->drm_version : "", s->drm_date);
    else if (s->drm_state == BOARD_DENIED)
        printf("npu        %s may be the NPU: no permission to open it (group video)\n", s->drm_node);
    else
        printf("npu        none (libdrm: %d DRM device%s, none of driver rknpu)\n", s->n_drm_devices,
               s->n_drm_devices == 1 ? "" : "s");
    printf("driver     %s%s%s\n", s->version_state == BOARD_OK ? s->driver_version
                                   : board_state_name(s->version_state),
           s->npu_dir[0] && !s->sim ? "  from " : "", s->npu_dir[0] && !s->sim ? s->npu_dir : "");
    free(s);
}

/* The platform table as the NPU model uses it: one line per chip, then for
 * the chips whose numbers are partly assumed, what each value rests on. */
static void print_platforms(void)
{
    const npu_platform_t *p;
    char dts[64];

    printf("platforms  (NPU model; peak = cores x MACs/cycle x 2 x clock)\n");
    for (int i = 0; (p = npu_platform_at(i)); i++) {
        int dt = npu_peak_macs(p, NPU_INT8) ? NPU_INT8 : NPU_FP16;
        printf("  %-8s %d core%s %4d MHz, %s %4d MACs/cycle, peak %.2f TOPS %s; %s; %s\n",
               p->name, p->cores, p->cores > 1 ? "s" : " ", p->npu_mhz, npu_dtype_key(dt),
               npu_peak_macs(p, dt), p->cores * npu_peak_macs(p, dt) * 2.0 * p->npu_mhz / 1e6,
               npu_dtype_key(dt), npu_platform_dtypes(p, dts, sizeof dts),
               p->sram_bytes ? "SRAM" : p->nbuf_bytes ? "nbuf" : "no on-chip buffer");
        const npu_fact_t *f;
        int n = npu_platform_facts(p->name, &f);
        for (int k = 0; k < n; k++)
            printf("             %-16s %-24s %-9s %s\n", f[k].what, f[k].value, f[k].status,
                   f[k].source);
    }
}

static void print_ops(void)
{
    int col = 11;

    printf("ops        ");
    for (const char *const *op = exec_op_names(); *op; op++) {
        int w = (int)strlen(*op) + 1;
        if (col + w > 100) {
            printf("\n           ");
            col = 11;
        }
        printf("%s ", *op);
        col += w;
    }
    putchar('\n');
    /* vendor .rknn tasks (runtime/emu): decoded per register layout, none executed */
    int n_chips;
    const emu_chip_info *chips = emu_chip_table(&n_chips);
    for (int i = 0; i < n_chips; i++)
        printf("%-10s %s: %s\n", i ? "" : "npu tasks", chips[i].chips, chips[i].status);
}

/* This build's librknnrt.so, realpath'd (free it), or NULL. Installed layout:
 * PREFIX/bin/rknn-trace and PREFIX/lib/rknn-trace/librknnrt.so; build layout:
 * build/rknn-trace and build/librknnrt.so. */
static char *our_runtime(void)
{
    char self[PATH_MAX], lib[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(lib, sizeof(lib), "%s/../lib/rknn-trace/librknnrt.so", self);
    if (access(lib, R_OK) != 0)
        snprintf(lib, sizeof(lib), "%s/librknnrt.so", self);
    return access(lib, R_OK) == 0 ? realpath(lib, NULL) : NULL;
}

static void print_our_runtime(const char *ours)
{
    char ver[160];

    printf("runtime    %s (simulated NPU; kept off the default library path)\n", ours);
    if (board_runtime_version(ours, ver, sizeof ver))
        printf("           librknnrt version: %s\n", ver);
    char *dir = xstrdup(ours);
    *strrchr(dir, '/') = '\0';
    printf("           select it with: export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n",
           dir);
    free(dir);
}

static void print_vendor_runtime(void)
{
    const char *vendor = board_runtime_find(NULL);
    char vv[160];

    if (vendor)
        printf("board run  %s%s%s (--backend board, attach)\n", vendor,
               board_runtime_version(vendor, vv, sizeof vv) ? ", version " : "", vv);
    else
        printf("board run  no vendor librknnrt.so found ($RKNN_TRACE_RUNTIME, /usr/lib, ...)\n");
}

typedef struct info_opts {
    int unused;
} info_opts;

#define CLI_OPTS_T info_opts
static const cli_opt info_options[] = {CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_info = {
    "info",
    "usage: rknn-trace info\nPrints the version, the supported ops and platforms and where the "
    "simulated librknnrt.so is,\nthe NPU device libdrm finds (driver rknpu) and the driver version.\n",
    info_options, NULL};

int cmd_info(int argc, char **argv)
{
    info_opts o = {0};
    int n = cli_parse(&cli_spec_info, argc, argv, &o);

    if (n < 0)
        return n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (n > 0) {
        cli_error("info takes no arguments, got '%s'", argv[1]);
        return EXIT_USAGE;
    }
    printf("version    rknn-trace %s\n", RKNN_TRACE_VERSION);
    print_platforms();
    printf("backends   sim (this host)\n");
    print_ops();
    char *ours = our_runtime();
    if (ours)
        print_our_runtime(ours);
    print_loaded_runtime(ours);
    print_board();
    print_vendor_runtime();
    free(ours);
    return EXIT_OK;
}
