/* runtime/exec/exec.h — the executor: operator table, memory plan, threads,
 * and the layer event emitted once per executed node.
 *
 * The layer event is a contract between the runtime and its sinks (log printer,
 * dump writer, store): keep it small and only ever add fields at the end. */
#ifndef RT_EXEC_H
#define RT_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/model/model.h"

/* ---- operators --------------------------------------------------------- */

typedef struct op_ctx op_ctx;
typedef void (*range_fn)(void *arg, int64_t begin, int64_t end);

struct op_ctx {
    int nthreads;
    struct threadpool *pool;
    char *err;
    size_t errlen;
    /* 1 during a run whose hook, if any, only times it (no hook reads or
     * changes a tensor between layers): a kernel may then hand its output to
     * the next layer in its own form beside the tensor, or instead of it when
     * no other reader needs it (int8 bytes, runtime/quant) */
    int private_run;
};

/* Splits [0, n) into chunks run on the pool; returns when all are done.
 * Runs inline when n is small or there is one thread. */
void op_parallel_for(op_ctx *c, int64_t n, range_fn fn, void *arg);

/* op_def, an operator's entry in the table (infer, prepare, run, release), is
 * declared with the node that points to it (runtime/model/model.h). */

/* node_t.chain, for a kernel that stands in for a stock one (quantization's)
 * and runs the executor's fused forms itself:
 *  - a Conv's: run runs node n, then the elementwise nodes chain[] that follow
 *    it (the fusion plan's activation chain) on its output block by block,
 *    writing tensor out (the last node's output) and none of the chain's other
 *    outputs; ok says whether it can, before a run skips those nodes;
 *  - a Slice's: slice_run runs Slice n on the input of Slice inner, whose
 *    output n reads, as slice_run_composed does, with what each kernel adds
 *    to the values; slice_ok says whether it can (NULL: never). */
typedef struct op_chain {
    int (*ok)(graph_t *g, const node_t *n, const node_t *const *chain, int n_chain);
    int (*run)(op_ctx *c, graph_t *g, node_t *n, const node_t *const *chain, int n_chain,
               int out);
    int (*slice_ok)(graph_t *g, const node_t *n, const node_t *inner);
    int (*slice_run)(op_ctx *c, graph_t *g, node_t *n, const node_t *inner);
} op_chain;

/* NULL if the op is not supported. An empty or "ai.onnx" domain both mean ONNX. An op
 * type starting with "cst" (in any domain) is a custom op: it resolves to
 * exec_op_custom, whose implementation an application supplies at run time. */
const op_def *exec_find_op(const char *domain, const char *name);

/* Custom ops (ops_custom.c). Output shapes: as the model declares them, else those of
 * input 0. Running one calls the hook its node's priv points to (set by the caller
 * that owns the implementation, never freed by the executor); without one the run
 * fails with a message saying how to register it. Custom nodes are never folded. */
typedef struct exec_custom_hook {
    int (*run)(struct exec_custom_hook *h, graph_t *g, node_t *n, char *err, size_t errlen);
} exec_custom_hook;
extern const op_def exec_op_custom;
int exec_op_is_custom(const op_def *d);
/* The hook of every custom node that has none of its own (NULL: none), for the whole
 * process: `rknn-trace build --custom-op` runs the graphs its calibration loads through
 * a plugin library this way. Set it before the runs; not owned. */
void exec_custom_set_default(exec_custom_hook *h);
/* NULL-terminated list of every supported op name (for `rknn-trace info`). */
const char *const *exec_op_names(void);

/* ---- layer events ------------------------------------------------------ */

typedef struct layer_event {
    int index;             /* executed-layer index in this run, 0-based */
    int node;              /* node index in the graph */
    const char *name;      /* node name */
    const char *op;        /* op type */
    int n_in, n_out;
    const tensor_t *const *in;  /* NULL entries for omitted optional inputs */
    const tensor_t *const *out; /* output tensors with their data for this run */
    double host_us;        /* wall time of the kernel on this host */
} layer_event_t;

/* Return non-zero to stop the run (that value is returned by exec_run). */
typedef int (*layer_hook)(const layer_event_t *ev, void *user);

/* ---- executor ---------------------------------------------------------- */

typedef struct exec_opts {
    int nthreads;          /* 0: exec_default_threads(); the runs of a model of
                              under 32M multiply-adds stay on the calling thread
                              (exec_parallel_for still has them all) */
    int exact_threads;     /* nthreads threads whatever the model's size (tests
                              of the threaded kernels on small graphs) */
    size_t max_memory;     /* bytes the activation arena plus held_bytes may use;
                              0: exec_default_memory_limit() */
    size_t held_bytes;     /* memory the caller already holds for this run (its
                              copies of the inputs), counted against max_memory */
} exec_opts;

/* Physical memory, or the process's address-space/data limit when lower. */
size_t exec_default_memory_limit(void);
/* "16.0 GiB", "512.0 MiB", "12.0 KiB", "100 B" into buf. */
const char *exec_format_bytes(char *buf, size_t len, size_t bytes);

typedef struct exec exec_t;

/* The graph must have gone through passes_prepare() (shapes known, ops resolved).
 * The executor does not own the graph. A memory plan over the limit is refused
 * with RT_EUNSUPPORTED and the figures; a failed allocation is RT_ENOMEM. */
int exec_create(graph_t *g, const exec_opts *o, exec_t **out, char *err, size_t errlen);
void exec_free(exec_t *x);
/* The threads its runs use: the pool's size (1 for a small model, see exec_opts). */
int exec_threads(const exec_t *x);

/* Copies nbytes into graph input i; nbytes must equal the tensor's size. */
int exec_set_input(exec_t *x, int i, const void *data, size_t nbytes, char *err, size_t errlen);
/* Runs every non-folded node in order, calling hook (may be NULL) after each.
 * Without a hook the run is private (op_ctx.private_run): an inner tensor
 * whose readers all take its values in another form (an int8 layer's bytes,
 * runtime/quant) may be left without its float values; graph outputs always
 * have them. With a hook every layer's outputs are written. */
int exec_run(exec_t *x, layer_hook hook, void *user, char *err, size_t errlen);
/* The same for a hook that only wants host times (per-layer profiling): the
 * conv+activation fusion of hook-less runs stays on, so a fused conv's event
 * covers its whole chain (ev->out[0] is the chain's output) and the nodes it
 * absorbed get no event; the run is private, so the hook must not read the
 * tensors either. */
int exec_run_timed(exec_t *x, layer_hook hook, void *user, char *err, size_t errlen);
/* Graph output i after a run (data valid until the next run or exec_free). */
const tensor_t *exec_output(const exec_t *x, int i);

/* The default host thread count: one per physical core the process may run on (its
 * CPU affinity mask, hyperthread siblings once), as onnxruntime chooses its default
 * intra-op threads; at least 1. */
int exec_default_threads(void);
/* The same count for a given mask, read from the topology under sysfs_cpu
 * (/sys/devices/system/cpu on Linux; a test gives a tree of its own). A CPU whose
 * thread_siblings_list cannot be read counts as a core of its own. */
int exec_count_cores(const unsigned char *mask, int ncpu, const char *sysfs_cpu);

/* op_parallel_for on the executor's threads, between runs (work that is not a
 * node's, e.g. calibration's per-tensor range search). */
void exec_parallel_for(exec_t *x, int64_t n, range_fn fn, void *arg);
/* Wakes the executor's threads that sleep, ahead of work (none when its runs
 * use one thread): the C API calls it as a frame's input arrives, so that
 * they share its conversion and first layers instead of joining after a
 * wake-up (YOLOX's 2 MB input at two threads: 0.13 -> 0.10 ms, medians of six
 * alternating runs). */
void exec_wake(exec_t *x);

/* Peak bytes of the activation arena (memory plan). */
size_t exec_arena_bytes(const exec_t *x);

#endif
