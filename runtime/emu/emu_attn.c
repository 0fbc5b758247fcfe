/* runtime/emu/emu_attn.c — a Toolkit2 exSDPAttention node (yolov10n's PSA block: the
 * compiler's fused scaled dot-product attention, 28 tasks a head of float16 matmuls,
 * transposes and an exp LUT whose words are not decoded) computed from its meaning in
 * float64 instead of its tasks, when RKNN_TRACE_EMU_ATTN=float asks for it. */
#include "runtime/emu/emu_internal.h"

#include <stdlib.h>
#include <string.h>

int emu_attn_float_on(void)
{
    const char *v = getenv("RKNN_TRACE_EMU_ATTN");
    return v && !strcmp(v, "float");
}

/* Inputs q [N,dk,1,L], k [N,dk,1,L], v [N,dv,1,L] (images n = the heads, as the
 * compiler's Reshape of the qkv conv makes them), output [N,dv,1,L]:
 *   out[n][c][i] = sum_j v[n][c][j] softmax_j(sum_d q[n][d][i] k[n][d][j] / sqrt(dk))
 * (ultralytics' Attention: (q^T k) * key_dim^-0.5, softmax over the keys, v attn^T;
 * yolov10n's q-k task 150 writes BN multiplier 23170 / 2^17 = 0.17677 = 32^-0.5),
 * from the dequantized inputs, the output quantized with its tensor's scale and zero
 * point (act_store). */
int emu_run_attn_float(const rknn_model *m, emu_mem *mem, int node, char *err, size_t errlen)
{
    const rknn_node *nd = &m->nodes[node];
    act q, k, v, o;
    if (nd->n_in < 3 || nd->n_out != 1 || act_of(&m->tensors[nd->in[0]], mem, nd->in[0], &q) ||
        act_of(&m->tensors[nd->in[1]], mem, nd->in[1], &k) ||
        act_of(&m->tensors[nd->in[2]], mem, nd->in[2], &v) ||
        act_of(&m->tensors[nd->out[0]], mem, nd->out[0], &o))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): not three 4-D activation "
                      "inputs and one output", node + 1, nd->type, nd->name);
    const rknn_tensor *tq = &m->tensors[nd->in[0]], *tk = &m->tensors[nd->in[1]],
                      *tv = &m->tensors[nd->in[2]], *to = &m->tensors[nd->out[0]];
    int n = act_batch(tq), dk = q.c / n, dv = v.c / n, len = q.h * q.w;
    if (act_batch(tk) != n || act_batch(tv) != n || act_batch(to) != n || k.c / n != dk ||
        o.c / n != dv || k.h * k.w != len || v.h * v.w != len || o.h * o.w != len || len <= 0 ||
        dk <= 0 || !readable_act(tq, &q) || !readable_act(tk, &k) || !readable_act(tv, &v) ||
        !readable_act(to, &o))
        return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): q, k, v and output are "
                      "not [N,dk,L], [N,dk,L], [N,dv,L], [N,dv,L]", node + 1, nd->type, nd->name);
    for (int i = 0; i < 3; i++)
        if (!mem->written[nd->in[i]])
            return rt_err(err, errlen, RT_EUNSUPPORTED, "node %d (%s %s): input %s was not "
                          "computed before it", node + 1, nd->type, nd->name,
                          m->tensors[nd->in[i]].name);
    double *fq = malloc(sizeof(double) * (size_t)dk * len), *fk = malloc(sizeof(double) * (size_t)dk * len);
    double *fv = malloc(sizeof(double) * (size_t)dv * len), *p = malloc(sizeof(double) * (size_t)len);
    int rc = RT_OK;
    if (!fq || !fk || !fv || !p) {
        rc = rt_err(err, errlen, RT_ENOMEM, "emulate: out of memory");
        goto out;
    }
    double scale = 1.0 / sqrt((double)dk);
    for (int b = 0; b < n; b++) {
        for (int c = 0; c < dk; c++)
            for (int j = 0; j < len; j++) {
                fq[(int64_t)c * len + j] = act_value(tq, &q, act_off(&q, b * dk + c, j / q.w, j % q.w));
                fk[(int64_t)c * len + j] = act_value(tk, &k, act_off(&k, b * dk + c, j / k.w, j % k.w));
            }
        for (int c = 0; c < dv; c++)
            for (int j = 0; j < len; j++)
                fv[(int64_t)c * len + j] = act_value(tv, &v, act_off(&v, b * dv + c, j / v.w, j % v.w));
        for (int i = 0; i < len; i++) {
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j < len; j++) {
                double s = 0;
                for (int c = 0; c < dk; c++)
                    s += fq[(int64_t)c * len + i] * fk[(int64_t)c * len + j];
                p[j] = s * scale;
                mx = p[j] > mx ? p[j] : mx;
            }
            for (int j = 0; j < len; j++)
                sum += (p[j] = exp(p[j] - mx));
            for (int c = 0; c < dv; c++) {
                double y = 0;
                for (int j = 0; j < len; j++)
                    y += fv[(int64_t)c * len + j] * p[j];
                act_store(to, &o, act_off(&o, b * dv + c, i / o.w, i % o.w), y / sum);
            }
        }
    }
    mem->written[nd->out[0]] = 1;
out:
    free(fq);
    free(fk);
    free(fv);
    free(p);
    return rc;
}
