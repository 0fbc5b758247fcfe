/* cli/run_npu.c — the NPU part of the run summary: predicted frame time, the
 * share of time per bottleneck, CPU-fallback layers and the top layers, all
 * in the frame model of a plain run (npu_frame_us); the level-4 table's
 * perf_debug total is printed beside it. */
#include "cli/run_record.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

#define TOP_NPU 10

static int is_fallback(const npu_layer_t *l)
{
    return l->target == NPU_TGT_CPU && l->kind != NPU_K_IO;
}

void run_npu_shares(const npu_graph_t *ng, double share[3])
{
    double sum = 0;
    share[0] = share[1] = share[2] = 0;
    for (int i = 0; i < ng->n; i++) {
        if (ng->l[i].bound >= 0 && ng->l[i].bound < 3)
            share[ng->l[i].bound] += ng->l[i].frame_us;
        sum += ng->l[i].frame_us;
    }
    for (int b = 0; b < 3; b++)
        share[b] = sum > 0 ? 100.0 * share[b] / sum : 0;
}

static int by_time(const void *a, const void *b, void *ctx)
{
    const npu_graph_t *ng = ctx;
    double x = ng->l[*(const int *)a].frame_us, y = ng->l[*(const int *)b].frame_us;
    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

void run_npu_print_text(const run_record *r, FILE *f)
{
    const npu_graph_t *ng = r->ng;
    double share[3], fb_us = 0, frame;
    int n_fb = 0;
    char load[128];

    if (!ng)
        return;
    frame = npu_frame_us(ng);
    run_npu_shares(ng, share);
    fprintf(f, "\nNPU model %s, %s, cores 0x%x: predicted %.3f ms per frame, %.1f KB read/written\n"
            "  (level-4 table, layer by layer as perf_debug runs: %.3f ms)\n",
            ng->plat->name, npu_dtype_name(ng->dtype), ng->cores, frame / 1e3,
            ng->total_rw_kb, ng->total_us / 1e3);
    fprintf(f, "  time by bottleneck: compute %.1f%%, DDR %.1f%%, CPU %.1f%%\n", share[0], share[1],
            share[2]);
    if (ng->mem && ng->sram_used)
        fprintf(f, "  SRAM: %u KB used, saves %.1f KB of DDR traffic per frame\n",
                ng->sram_used / 1024, (double)ng->mem->rw_sram_hit / 1024.0);
    npu_load_format(&r->load, load, sizeof(load));
    load[strcspn(load, "\n")] = '\0';
    fprintf(f, "  %s\n", load);
    for (int i = 0; i < ng->n; i++)
        if (is_fallback(&ng->l[i]))
            n_fb++, fb_us += ng->l[i].frame_us;
    if (n_fb) {
        fprintf(f, "  CPU fallback: %d layer%s, %.1f%% of the frame\n", n_fb, n_fb > 1 ? "s" : "",
                frame > 0 ? 100.0 * fb_us / frame : 0.0);
        for (int i = 0; i < ng->n; i++) {
            const npu_layer_t *l = &ng->l[i];
            if (is_fallback(l))
                fprintf(f, "    #%-4d %-16s %9.1f us  %s  (%s)\n", l->id, l->optype, l->frame_us,
                        l->fullname ? l->fullname : "", l->reason ? l->reason : "");
        }
    } else {
        fprintf(f, "  CPU fallback: none\n");
    }
    int *idx = xmalloc(sizeof(int) * (size_t)(ng->n ? ng->n : 1));
    for (int i = 0; i < ng->n; i++)
        idx[i] = i;
    qsort_r(idx, (size_t)ng->n, sizeof(int), by_time, (void *)ng);
    int top = ng->n < TOP_NPU ? ng->n : TOP_NPU;
    fprintf(f, "  slowest predicted layers\n    %5s %-16s %-7s %10s %6s %7s %9s  %s\n", "id",
            "OpType", "bound", "time us", "share", "MAC%", "RW KB", "FullName");
    for (int k = 0; k < top; k++) {
        const npu_layer_t *l = &ng->l[idx[k]];
        fprintf(f, "    %5d %-16s %-7s %10.1f %5.1f%% %7.2f %9.1f  %s\n", l->id, l->optype,
                npu_bound_name(l->bound), l->frame_us,
                frame > 0 ? 100.0 * l->frame_us / frame : 0.0, l->mac_usage[0],
                l->rw_kb, l->fullname ? l->fullname : "");
    }
    free(idx);
}

void run_npu_print_json(const run_record *r, json_writer *w)
{
    const npu_graph_t *ng = r->ng;
    double share[3];
    int pct[NPU_MAX_CORES];

    json_key(w, "npu");
    if (!ng) {
        json_write_null(w);
        return;
    }
    run_npu_shares(ng, share);
    json_obj_open(w);
    json_key(w, "platform");
    json_str(w, ng->plat->name);
    json_key(w, "dtype");
    json_str(w, npu_dtype_name(ng->dtype));
    json_key(w, "core_mask");
    json_int(w, ng->cores);
    json_key(w, "predicted_us");
    json_num(w, npu_frame_us(ng));
    json_key(w, "perf_table_us");
    json_num(w, ng->total_us);
    json_key(w, "rw_kb");
    json_num(w, ng->total_rw_kb);
    json_key(w, "sram_used");
    json_int(w, ng->sram_used);
    json_key(w, "sram_saved_kb");
    json_num(w, ng->mem ? (double)ng->mem->rw_sram_hit / 1024.0 : 0.0);
    json_key(w, "share");
    json_obj_open(w);
    for (int b = 0; b < 3; b++) {
        json_key(w, npu_bound_name(b));
        json_num(w, share[b]);
    }
    json_obj_close(w);
    json_key(w, "load");
    json_arr_open(w);
    npu_load_percent(&r->load, pct);
    for (int c = 0; c < r->load.cores; c++)
        json_int(w, pct[c]);
    json_arr_close(w);
    json_key(w, "layers");
    json_arr_open(w);
    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        json_obj_open(w);
        json_key(w, "id");
        json_int(w, l->id);
        json_key(w, "op_type");
        json_str(w, l->optype);
        json_key(w, "target");
        json_str(w, l->target == NPU_TGT_CPU ? "CPU" : "NPU");
        json_key(w, "bound");
        json_str(w, npu_bound_name(l->bound));
        json_key(w, "reason");
        json_str(w, l->reason);
        json_key(w, "npu_cycles");
        json_int(w, (int64_t)l->npu_cycles);
        json_key(w, "ddr_cycles");
        json_int(w, (int64_t)l->ddr_cycles);
        json_key(w, "time_us");
        json_num(w, l->time_us);
        json_key(w, "frame_us");
        json_num(w, l->frame_us);
        json_key(w, "mac_usage");
        json_num(w, l->mac_usage[0]);
        json_key(w, "rw_kb");
        json_num(w, l->rw_kb);
        json_key(w, "full_name");
        json_str(w, l->fullname);
        json_key(w, "tensors");
        json_arr_open(w);
        for (int k = 0; k < l->n_src_tensors; k++)
            json_str(w, l->src_tensors[k]);
        json_arr_close(w);
        json_obj_close(w);
    }
    json_arr_close(w);
    json_obj_close(w);
}
