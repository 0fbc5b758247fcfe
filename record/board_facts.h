/* record/board_facts.h — what a board run records besides its rows: the
 * runtime, the model's target and toolkit, the board's environment; and
 * where the runtime and the NPU are (record/board_facts.c). */
#ifndef RT_RECORD_BOARD_FACTS_H
#define RT_RECORD_BOARD_FACTS_H

#include <stddef.h>

/* The runtime (path, SDK_VERSION's api/driver strings) and, for a vendor .rknn,
 * its target chip, toolkit and compiler (board_model_facts). NULL or "":
 * unknown, left out. */
typedef struct board_facts {
    const char *runtime, *api_version, *drv_version;
    char model_target[32], toolkit[64], compiler[96];
} board_facts;
void board_model_facts(board_facts *f, const void *model, size_t len);
/* The board's environment (board_env_json) with those facts, malloc'd. */
char *run_env_json(const char *root, const board_facts *bf);
/* The run's platform: given (-t), else the .rknn's target, else the SoC of the
 * board's device tree (in buf), else NULL. */
const char *board_platform(const char *given, const board_facts *bf, const char *root, char *buf,
                           size_t len);
/* The version string a runtime library carries ("librknnrt version: 1.5.2 (hash@date)",
 * the same text RKNN_QUERY_SDK_VERSION answers), read from the file itself; 1 when found. */
int board_runtime_version(const char *path, char *out, size_t len);

/* The vendor runtime to load: given, else $RKNN_TRACE_RUNTIME, else the first
 * of the standard paths that exists; NULL when none. */
const char *board_runtime_find(const char *given);
/* An rknpu device under root: a DRM device of driver rknpu, or /dev/rknpu. */
int board_npu_present(const char *root);

#endif
