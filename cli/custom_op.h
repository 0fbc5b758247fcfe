/* cli/custom_op.h — custom ops from plugin libraries (`--custom-op LIB.so` of build
 * and run): each exports `rknn_custom_op *get_rknn_custom_op(void)`, as rknn_server's
 * plugins do, and its callbacks run every node of its op type. */
#ifndef RT_CLI_CUSTOM_OP_H
#define RT_CLI_CUSTOM_OP_H

#include <stddef.h>

#include "runtime/model/model.h"

#define CUSTOM_OP_MAX 16 /* libraries */

/* Loads one library (librknnrt.so next to this program first, for the plugins'
 * rknn_custom_op_get_op_attr) and makes its op the executor's default for nodes
 * of its type. 0, or an RT_ error with a message. */
int custom_op_load(const char *lib, char *err, size_t errlen);
/* The first custom node of g no loaded library gives, or -1. */
int custom_op_unprovided(const graph_t *g);
/* Runs node n of g through its library (init and prepare at its first run). */
int custom_op_run(graph_t *g, node_t *n, char *err, size_t errlen);
/* Destroys every instance; the libraries stay loaded. */
void custom_op_free(void);

#endif
