/* tune/front.c — the accuracy-vs-time front of a tune search as a PNG,
 * drawn on the reports' canvas (libpng): predicted NPU ms across, the
 * worst sample's score up; every evaluated point grey, the kept ones blue
 * and joined in order, the target a red line. */
#include "tune/tune.h"
#include "reports/reports.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 760
#define H 480
#define X0 70
#define Y0 50
#define PW (W - X0 - 30)
#define PH (H - Y0 - 60)
#define INK 0x202020
#define GRID 0xdddddd

static int finite_score(double v) { return isfinite(v); }

int tune_front_png(const char *path, const tune_point *pts, int n, const int *kept, int n_kept,
                   int metric, double target, const char *title, char *err, size_t errlen)
{
    rep_canvas c;
    double xmin = INFINITY, xmax = -INFINITY, ymin = target, ymax = target;
    char buf[96];

    for (int i = 0; i < n; i++) {
        if (!isfinite(pts[i].npu_us))
            continue;
        xmin = fmin(xmin, pts[i].npu_us / 1000);
        xmax = fmax(xmax, pts[i].npu_us / 1000);
        if (finite_score(pts[i].worst)) {
            ymin = fmin(ymin, pts[i].worst);
            ymax = fmax(ymax, pts[i].worst);
        }
    }
    if (!(xmax > xmin))
        xmin -= 0.5, xmax += 0.5;
    if (!(ymax > ymin))
        ymin -= 0.5, ymax += 0.5;
    double dx = (xmax - xmin) * 0.05, dy = (ymax - ymin) * 0.05;
    xmin -= dx, xmax += dx, ymin -= dy, ymax += dy;
    int rc = rep_canvas_init(&c, W, H, 0xffffff);
    if (rc)
        return rt_err(err, errlen, rc, "out of memory drawing %s", path);
#define PX(v) (X0 + (int)lround(((v) - xmin) / (xmax - xmin) * PW))
#define PY(v) (Y0 + PH - (int)lround(((v) - ymin) / (ymax - ymin) * PH))
    const char *base = strrchr(title, '/');
    rep_text(&c, X0, 12, base ? base + 1 : title, 2, INK);
    for (int k = 0; k <= 4; k++) {
        double yv = ymin + (ymax - ymin) * k / 4, xv = xmin + (xmax - xmin) * k / 4;
        rep_line(&c, X0, PY(yv), X0 + PW, PY(yv), GRID);
        rep_line(&c, PX(xv), Y0, PX(xv), Y0 + PH, GRID);
        snprintf(buf, sizeof buf, metric == TUNE_COS ? "%.4f" : "%.3g", yv);
        rep_text(&c, 4, PY(yv) - 4, buf, 1, INK);
        snprintf(buf, sizeof buf, "%.3f", xv);
        rep_text(&c, PX(xv) - 15, Y0 + PH + 8, buf, 1, INK);
    }
    rep_line(&c, X0, Y0, X0, Y0 + PH, INK);
    rep_line(&c, X0, Y0 + PH, X0 + PW, Y0 + PH, INK);
    snprintf(buf, sizeof buf, "predicted NPU frame (ms)  -  y: %s of the worst sample",
             tune_metric_name(metric));
    rep_text(&c, X0, H - 22, buf, 1, INK);
    rep_line(&c, X0, PY(target), X0 + PW, PY(target), 0xd03030);
    rep_text(&c, X0 + PW - 60, PY(target) - 12, "target", 1, 0xd03030);
    for (int i = 0; i < n; i++)
        if (isfinite(pts[i].npu_us) && finite_score(pts[i].worst))
            rep_fill(&c, PX(pts[i].npu_us / 1000) - 2, PY(pts[i].worst) - 2, 5, 5, 0xa0a0a0);
    /* the kept points joined by predicted time, not in the order found */
    int *by_t = xmalloc(sizeof(int) * (size_t)(n_kept + 1)), m = 0;
    for (int k = 0; k < n_kept; k++) {
        const tune_point *p = &pts[kept[k]];
        if (!isfinite(p->npu_us) || !finite_score(p->worst))
            continue;
        int j = m++;
        for (; j > 0 && pts[by_t[j - 1]].npu_us > p->npu_us; j--)
            by_t[j] = by_t[j - 1];
        by_t[j] = kept[k];
    }
    for (int k = 0; k < m; k++) {
        const tune_point *p = &pts[by_t[k]];
        if (k > 0)
            rep_line(&c, PX(pts[by_t[k - 1]].npu_us / 1000), PY(pts[by_t[k - 1]].worst),
                     PX(p->npu_us / 1000), PY(p->worst), 0x2060d0);
        rep_fill(&c, PX(p->npu_us / 1000) - 4, PY(p->worst) - 4, 9, 9, 0x2060d0);
    }
    free(by_t);
    rc = rep_canvas_write(&c, path, err, errlen);
    rep_canvas_free(&c);
    return rc;
}
