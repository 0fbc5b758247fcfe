/* runtime/emu/emu_internal.h — what the Toolkit2 executor's files share (emu_exec.c
 * the driver, emu_conv.c the conv task, emu_dpu.c the DPU-only tasks, emu_pool.c
 * the PPU's): the register state, the per-tensor buffers, the arithmetic helpers
 * and the task runners. Included only by the emu module's own .c files; emu.h
 * is its contract. */
#ifndef RUNTIME_EMU_EMU_INTERNAL_H
#define RUNTIME_EMU_EMU_INTERNAL_H

#include "runtime/emu/emu.h"
#include "runtime/model/rknn_file.h"
#include "util/util.h"

#include <stdint.h>

/* the register state of the two ping-pong groups (last write wins) */
typedef struct regstate {
    uint32_t val[2][0x10000 / 4];
    uint8_t set[2][0x10000 / 4];
} regstate;

/* The value register addr holds for group grp's task: its own write or what an
 * earlier task of the group left; 0 when none wrote it. */
static inline uint32_t reg_or0(const regstate *rs, int grp, uint32_t addr)
{
    return rs->set[grp][addr / 4] ? rs->val[grp][addr / 4] : 0;
}

typedef struct emu_mem {
    int8_t **buf;         /* per tensor, NULL none */
    int64_t *bytes;
    uint8_t *written;
    int64_t *ew_delta;    /* per node: EW address - destination address of its first task */
    int copy_out;         /* the tensor the last Split/Concat copy wrote */
    uint8_t *ew_seen;
} emu_mem;

/* a 4-D activation in NC1HWC2 (or NHWC [1,1,H,W,C]) */
typedef struct act {
    int c, h, w, c2;
    int8_t *p;
    int64_t bytes;
} act;

static inline int32_t rd_i32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }
static inline int16_t rd_i16(const uint8_t *p) { return (int16_t)(p[0] | p[1] << 8); }

static inline uint32_t rd_u32(const uint8_t *p) { return (uint32_t)rd_i32(p); }

static inline int64_t rshift_round(int64_t v, int n)
{
    return n <= 0 ? v : (v + ((int64_t)1 << (n - 1))) >> n;
}

static inline int8_t sat8(int64_t v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

static inline int act_of(const rknn_tensor *t, emu_mem *mem, int idx, act *a)
{
    if (t->nd != 4 || t->nnd != 5 || !t->shape || !t->native || !mem->buf[idx])
        return -1;
    a->c = (int)t->shape[1];
    a->h = (int)t->native[2];
    a->w = (int)t->native[3];
    a->c2 = (int)t->native[4];
    if (a->h != t->shape[2] || a->w != t->shape[3] || a->c2 <= 0 ||
        t->native[1] * a->c2 < a->c)
        return -1;
    a->p = mem->buf[idx];
    a->bytes = mem->bytes[idx];
    return 0;
}

static inline int64_t act_off(const act *a, int c, int y, int x)
{
    return (((int64_t)(c / a->c2) * a->h + y) * a->w + x) * a->c2 + c % a->c2;
}

static inline const char *node_name(const rknn_model *m, int node)
{
    return node >= 0 && node < m->n_nodes && m->nodes[node].name ? m->nodes[node].name : "?";
}

/* Where a task runs: task ti of graph node node (nd, named nn in messages),
 * with register group grp's state, over mem. The runner puts the output rows
 * it wrote in rows[] and a stop's reason in err. */
typedef struct emu_step {
    const rknn_model *m;
    int ti, node, grp;
    const regstate *rs;
    const rknn_node *nd;
    const char *nn;
    emu_mem *mem;
    int *rows;
    char *err;
    size_t errlen;
} emu_step;

/* the activation of graph tensor i */
static inline int tensor_act(const emu_step *s, int i, act *a)
{
    return act_of(&s->m->tensors[i], s->mem, i, a);
}

/* the activations of the node's first input and its one output: -1 when it
 * has no input, other than one output, or either is not a 4-D activation */
static inline int in_out_acts(const emu_step *s, act *in, act *out)
{
    const rknn_node *nd = s->nd;
    return nd->n_out != 1 || nd->n_in < 1 || tensor_act(s, nd->in[0], in) ||
                   tensor_act(s, nd->out[0], out)
               ? -1
               : 0;
}

/* tensor t computed; the task wrote its rows y0..y1 */
static inline void wrote(const emu_step *s, int t, int y0, int y1)
{
    s->mem->written[t] = 1;
    s->rows[0] = y0;
    s->rows[1] = y1;
}

/* in a runner of step s (with rc and a label out): stop the run with the reason */
#define STOP(...)                                                                 \
    do {                                                                          \
        rc = rt_err(s->err, s->errlen, RT_EUNSUPPORTED, __VA_ARGS__);             \
        goto out;                                                                 \
    } while (0)

/* The task runners: RT_OK, or an error that says what is not emulated. A conv
 * also reads the file's weights and the LUT tensor lut's table. */
int emu_run_conv(const emu_step *s, const emu_task *t, const uint8_t *file, size_t len, int lut);
int emu_run_copy(const emu_step *s, const emu_task *t);
int emu_run_add(const emu_step *s, const emu_task *t);
int emu_run_resize(const emu_step *s, const emu_task *t);
int emu_run_pool(const emu_step *s, const emu_task *t);

#endif
