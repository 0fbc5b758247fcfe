/* tests/fuzz/fuzz_vlog.c — the whole-log import scanner (tracer/vlog_scan.c)
 * on arbitrary bytes: returns 0 or RT_EFORMAT, never crashes or leaks, and
 * accounts for every line. Scanned a second time handing each complete run
 * away as an import does (vlog_scan_each + vlog_run_move): the same result,
 * every run handed over once, in order. Scanned again under bounds
 * (vlog_scan_bounded): a budget of all it needs gives the same result, and
 * lowers the budget by what the runs hold; a budget of a quarter of that
 * either gives the same result or stops with RT_ENOMEM, the budget unchanged. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"
#include "util/util.h"

typedef struct taker {
    int taken, calls_out_of_order;
} taker;

static void take(void *ctx, vlog_t *v, int n_final)
{
    taker *t = ctx;
    if (n_final < t->taken || n_final > v->n_runs)
        t->calls_out_of_order++;
    for (; t->taken < n_final; t->taken++) {
        vlog_run_t r;
        vlog_run_move(&r, &v->runs[t->taken]);
        vlog_run_free(&r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vlog_t v, w;
    taker t = {0, 0};
    char err[256];
    int rc = vlog_scan((const char *)data, size, VLOG_F_ALL, &v, err, sizeof err);
    int rc2 = vlog_scan_each((const char *)data, size, VLOG_F_ALL, take, &t, &w, err, sizeof err);

    if (rc != rc2)
        abort();
    if (rc == 0) {
        int64_t sum = 0;
        for (int k = 0; k < VLOG_NKINDS; k++)
            sum += v.kinds[k];
        if (sum != v.n_lines)
            abort();
        if (w.n_runs != v.n_runs || t.taken != v.n_runs || t.calls_out_of_order ||
            memcmp(w.kinds, v.kinds, sizeof v.kinds))
            abort();
        vlog_free(&w);
    }
    /* bounded: enough, then a quarter of what the unbounded scan held */
    size_t need = (size_t)-1, left = need;
    vlog_t b;
    int rc3 = vlog_scan_bounded((const char *)data, size, VLOG_F_ALL, &left, NULL, NULL, &b, err,
                                sizeof err);
    if (rc3 != rc || (rc3 == 0 && (b.n_runs != v.n_runs || memcmp(b.kinds, v.kinds, sizeof v.kinds))))
        abort();
    if (rc3 == 0) {
        size_t held = need - left, quarter = held / 4;
        vlog_free(&b);
        left = quarter;
        rc3 = vlog_scan_bounded((const char *)data, size, VLOG_F_ALL, &left, NULL, NULL, &b, err,
                                sizeof err);
        if (rc3 == 0) {
            if (b.n_runs != v.n_runs || memcmp(b.kinds, v.kinds, sizeof v.kinds) || left > quarter)
                abort();
            vlog_free(&b);
        } else if (rc3 != RT_ENOMEM || left != quarter || b.n_runs) {
            abort();
        }
        vlog_free(&v);
    }
    return 0;
}
