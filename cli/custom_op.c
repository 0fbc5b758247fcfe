/* cli/custom_op.c — `--custom-op LIB.so` of build and run: the application's custom
 * ops from plugin libraries. A plugin library as the SDK's rknn_server loads one for connected-board accuracy
 * analysis: it exports `rknn_custom_op *get_rknn_custom_op(void)` (rknn_custom_op.h's
 * get_custom_op_func) returning one CPU op. Its callbacks run every cst* node of that
 * type in the graphs the calibration and the analysis load (exec_custom_set_default)
 * and in a vendor file's frame under run --emulate (custom_op_run),
 * with the tensors librknnrt hands them (runtime/api/api_custom_view.h); their
 * rknn_custom_op_get_op_attr calls resolve to the librknnrt.so next to this program,
 * loaded first with its symbols global. */
#include "cli/custom_op.h"
#include "runtime/api/api_custom_view.h"
#include "runtime/exec/exec.h"
#include "util/util.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct plugin_inst {
    const graph_t *g;
    int node;
    const rknn_custom_op *op;
    rknn_custom_op_context octx;
    api_custom_ref ref;          /* octx.internal_ctx */
    struct plugin_inst *next;
} plugin_inst;

static struct {
    exec_custom_hook hook;       /* first: what the executor calls */
    const rknn_custom_op *ops[CUSTOM_OP_MAX];
    int n_ops;
    plugin_inst *insts;
} plugins;

static int plugin_call(plugin_inst *pi, graph_t *g, node_t *n, api_custom_cb fn)
{
    return api_custom_call(&pi->octx, &pi->ref, g, n, fn);
}

/* A node's instance: init and prepare at its first run in a graph, compute each run. */
static int plugin_run(exec_custom_hook *h, graph_t *g, node_t *n, char *err, size_t errlen)
{
    int ni = (int)(n - g->nodes), r;
    const rknn_custom_op *op = NULL;
    plugin_inst *pi;

    (void)h;
    for (pi = plugins.insts; pi; pi = pi->next)
        if (pi->g == g && pi->node == ni && !strcmp(pi->op->op_type, n->op))
            break;
    if (!pi) {
        for (int i = 0; i < plugins.n_ops && !op; i++)
            if (!strcmp(plugins.ops[i]->op_type, n->op))
                op = plugins.ops[i];
        if (!op)
            return rt_err(err, errlen, RT_EUNSUPPORTED, "custom op %s (node '%s'): no "
                          "--custom-op library gives op type \"%s\"", n->op, n->name, n->op);
        pi = xcalloc(1, sizeof(*pi));
        pi->g = g;
        pi->node = ni;
        pi->op = op;
        pi->octx.target = RKNN_TARGET_TYPE_CPU;
        pi->octx.internal_ctx = (rknn_custom_op_interal_context)(uintptr_t)&pi->ref;
        pi->next = plugins.insts;
        plugins.insts = pi;
        if ((op->init && (r = plugin_call(pi, g, n, op->init)) != 0) ||
            (op->prepare && (r = plugin_call(pi, g, n, op->prepare)) != 0))
            return rt_err(err, errlen, RT_EINVAL, "custom op %s (node '%s'): the plugin's "
                          "init or prepare returned %d", n->op, n->name, r);
    }
    if ((r = plugin_call(pi, g, n, pi->op->compute)) != 0)
        return rt_err(err, errlen, RT_EINVAL, "custom op %s (node '%s'): the plugin's compute "
                      "returned %d", n->op, n->name, r);
    return 0;
}

void custom_op_free(void)
{
    exec_custom_set_default(NULL);
    while (plugins.insts) {
        plugin_inst *pi = plugins.insts;
        plugins.insts = pi->next;
        if (pi->op->destroy)
            pi->op->destroy(&pi->octx);
        free(pi);
    }
    plugins.n_ops = 0; /* the libraries stay loaded: their code may still be referenced */
}

/* librknnrt.so next to this program (build layout) or in ../lib/rknn-trace, loaded
 * with global symbols, for the plugins' rknn_custom_op_get_op_attr. */
static int load_librknnrt(char *err, size_t errlen)
{
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    if (n <= 0)
        return rt_err(err, errlen, RT_EIO, "--custom-op: cannot find this program's directory");
    self[n] = 0;
    if ((slash = strrchr(self, '/')))
        *slash = 0;
    snprintf(path, sizeof(path), "%s/librknnrt.so", self);
    if (access(path, R_OK) != 0)
        snprintf(path, sizeof(path), "%s/../lib/rknn-trace/librknnrt.so", self);
    if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL))
        return rt_err(err, errlen, RT_EIO, "--custom-op needs the project's librknnrt.so next "
                      "to rknn-trace (for rknn_custom_op_get_op_attr): %s", dlerror());
    return 0;
}

int custom_op_load(const char *lib, char *err, size_t errlen)
{
    typedef rknn_custom_op *(*entry_fn)(void);
    void *h;
    entry_fn entry;
    const rknn_custom_op *op;

    if (plugins.n_ops == CUSTOM_OP_MAX)
        return rt_err(err, errlen, RT_EINVAL, "at most %d --custom-op libraries", CUSTOM_OP_MAX);
    if (!plugins.n_ops && load_librknnrt(err, errlen))
        return RT_EIO;
    /* a path without '/' would make dlopen search the library path: name the file */
    char path[4200];
    snprintf(path, sizeof(path), "%s%s", strchr(lib, '/') ? "" : "./", lib);
    if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return rt_err(err, errlen, RT_EIO, "--custom-op %s: %s", lib, dlerror());
    *(void **)&entry = dlsym(h, "get_rknn_custom_op");
    if (!entry)
        return rt_err(err, errlen, RT_EINVAL, "--custom-op %s exports no get_rknn_custom_op: a "
                      "plugin library defines rknn_custom_op *get_rknn_custom_op(void), as "
                      "rknn_server's plugins do", lib);
    op = entry();
    if (!op || !memchr(op->op_type, 0, sizeof(op->op_type)) || strncmp(op->op_type, "cst", 3))
        return rt_err(err, errlen, RT_EINVAL, "--custom-op %s: get_rknn_custom_op returned %s",
                      lib, op ? "an op_type not starting with \"cst\"" : "NULL");
    if (op->target != RKNN_TARGET_TYPE_CPU || !op->compute)
        return rt_err(err, errlen, RT_EINVAL, "--custom-op %s: op %s %s", lib, op->op_type,
                      !op->compute ? "has no compute callback"
                                   : "is not a CPU op (GPU/OpenCL ops run on a board only)");
    for (int i = 0; i < plugins.n_ops; i++)
        if (!strcmp(plugins.ops[i]->op_type, op->op_type))
            return rt_err(err, errlen, RT_EINVAL, "--custom-op %s: op type %s is given twice",
                          lib, op->op_type);
    plugins.ops[plugins.n_ops++] = op;
    plugins.hook.run = plugin_run;
    exec_custom_set_default(&plugins.hook);
    return 0;
}

/* The first custom node no plugin gives, or -1. */
int custom_op_unprovided(const graph_t *g)
{
    for (int i = 0; i < g->n_nodes; i++) {
        int found = 0;
        if (!exec_op_is_custom(g->nodes[i].def))
            continue;
        for (int k = 0; k < plugins.n_ops && !found; k++)
            found = !strcmp(plugins.ops[k]->op_type, g->nodes[i].op);
        if (!found)
            return i;
    }
    return -1;
}

int custom_op_run(graph_t *g, node_t *n, char *err, size_t errlen)
{
    return plugin_run(&plugins.hook, g, n, err, errlen);
}
