/* reports/png.c — `report -f png -o DIR`: charts drawn here (libpng, no
 * gnuplot): layers.png (time per layer, bars coloured by bound), error.png
 * (entire and single cos vs the fp32 golden, runs with errors), sram.png (one
 * row per layer, one cell per 4 KiB of the chip's SRAM, the layer's SRAM hit
 * coloured, as the driver's `mm` bitmap but over the whole frame), and for a
 * comparison compare.png (time delta per aligned layer) with layers_X.png and
 * sram_X.png per run. */
#include "reports/reports.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BG 0xffffff
#define INK 0x202020
#define GRID 0xdddddd
#define CELL_BYTES 4096

static const uint32_t palette[6] = { 0x3b78c4, 0xe8912d, 0x2e9e4a, 0xc8382e, 0x8a5cc2, 0x6b6b6b };

static int write_png(const rep_canvas *c, const char *dir, const char *name, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return rep_canvas_write(c, path, err, errlen);
}

/* A legend entry at (x, y): a colour square and its text; returns the next x. */
static int legend(rep_canvas *c, int x, int y, uint32_t rgb, const char *text, int scale)
{
    rep_fill(c, x, y, 12, 12, rgb);
    return x + 18 + rep_text(c, x + 18, y + (scale == 1 ? 2 : 0), text, scale, INK) + 12;
}

/* Frame, title and the y-axis labels of a plot area [x0, x0+w) x [y0, y0+h). */
static void axes(rep_canvas *c, int x0, int y0, int w, int h, const char *title, const char *ytop,
                 const char *ybottom, const char *xleft, const char *xright)
{
    rep_text(c, x0, 10, title, 2, INK);
    for (int k = 1; k < 4; k++)
        rep_line(c, x0, y0 + h * k / 4, x0 + w, y0 + h * k / 4, GRID);
    rep_line(c, x0, y0 + h, x0 + w, y0 + h, INK);
    rep_line(c, x0, y0, x0, y0 + h, INK);
    rep_text(c, 4, y0, ytop, 1, INK);
    rep_text(c, 4, y0 + h - 7, ybottom, 1, INK);
    rep_text(c, x0, y0 + h + 6, xleft, 1, INK);
    rep_text(c, x0 + w - 6 * (int)strlen(xright), y0 + h + 6, xright, 1, INK);
}

static int layers_png(const report_run *r, const char *dir, const char *name, char *err, size_t errlen)
{
    const int W = 1100, H = 300, L = 80, T = 40;
    rep_canvas c;
    char title[256], nm[160], a[32], b[32];
    double max = 0;
    int rc;

    for (int i = 0; i < r->n_layers; i++) {
        double t = rep_layer_us(r, &r->layers[i]);
        if (!isnan(t) && t > max)
            max = t;
    }
    rep_canvas_init(&c, L + W + 20, T + H + 60, BG);
    snprintf(title, sizeof(title), "run %s: time per layer (us, %s)", rep_run_name(r, nm, sizeof(nm)),
             rep_is_board(r) ? "measured" : "predicted");
    snprintf(a, sizeof(a), "%.1f us", max);
    snprintf(b, sizeof(b), "layer %d", r->n_layers ? r->n_layers - 1 : 0);
    axes(&c, L, T, W, H, title, a, "0", "layer 0", b);
    for (int i = 0; i < r->n_layers && max > 0; i++) {
        const store_layer *l = &r->layers[i];
        double t = rep_layer_us(r, l);
        if (isnan(t) || t <= 0)
            continue;
        int x = L + 1 + (int)((double)i * (W - 1) / r->n_layers);
        int x1 = L + 1 + (int)((double)(i + 1) * (W - 1) / r->n_layers);
        int h = (int)ceil(t / max * H);
        rep_fill(&c, x, T + H - h, x1 - x > 2 ? x1 - x - 1 : 1, h, rep_bound_rgb(l->bound));
    }
    static const char *const bounds[4] = { "compute", "DDR", "CPU", NULL };
    int x = L;
    for (int k = 0; k < 4; k++) {
        x = legend(&c, x, T + H + 26, rep_bound_rgb(bounds[k]), bounds[k] ? bounds[k] : "unknown", 2);
    }
    rc = write_png(&c, dir, name, err, errlen);
    rep_canvas_free(&c);
    return rc;
}

static int error_png(const rep_doc *d, const char *dir, char *err, size_t errlen)
{
    const int W = 1100, H = 300, L = 80, T = 40;
    rep_canvas c;
    char a[32];
    double lo = 1;
    int n = 0, rc;

    for (int i = 0; i < d->n_rows; i++)
        for (int k = 0; k < d->n; k++)
            for (int s = 0; s < 2; s++) {
                double v = rep_row_cos(d, &d->rows[i], k, s);
                if (!isnan(v) && v < lo)
                    lo = v;
            }
    if (lo > 0.999)
        lo = 0.999;
    /* rows that have an error in some run, in order */
    int *row = xcalloc((size_t)d->n_rows + 1, sizeof(int));
    for (int i = 0; i < d->n_rows; i++)
        for (int k = 0; k < d->n; k++)
            if (d->rows[i].acc[k] >= 0) {
                row[n++] = i;
                break;
            }
    rep_canvas_init(&c, L + W + 20, T + H + 60, BG);
    snprintf(a, sizeof(a), "%.4f", lo);
    char right[32];
    snprintf(right, sizeof(right), "tensor %d", n ? n - 1 : 0);
    axes(&c, L, T, W, H, "cos vs the fp32 golden: entire (solid), single (light)", "1", a, "tensor 0", right);
    for (int k = 0; k < d->n; k++)
        for (int s = 1; s >= 0; s--) {
            uint32_t col = palette[k % 6];
            if (s) /* single: a lighter shade of the run's colour */
                col = ((((col >> 16) & 0xff) + 0x1ff) / 3) << 16 | ((((col >> 8) & 0xff) + 0x1ff) / 3) << 8 |
                      (((col & 0xff) + 0x1ff) / 3);
            int px = -1, py = -1;
            for (int j = 0; j < n; j++) {
                double v = rep_row_cos(d, &d->rows[row[j]], k, s);
                if (isnan(v)) {
                    px = -1;
                    continue;
                }
                int x = L + (n > 1 ? (int)((double)j * W / (n - 1)) : 0);
                int y = T + (int)((1 - v) / (1 - lo) * H);
                if (px >= 0) {
                    rep_line(&c, px, py, x, y, col);
                    rep_line(&c, px, py + 1, x, y + 1, col);
                } else {
                    rep_fill(&c, x - 1, y - 1, 3, 3, col);
                }
                px = x, py = y;
            }
        }
    int x = L;
    for (int k = 0; k < d->n && d->n > 1; k++) {
        x = legend(&c, x, T + H + 26, palette[k % 6], rep_tag(k), 2);
    }
    rc = write_png(&c, dir, "error.png", err, errlen);
    rep_canvas_free(&c);
    free(row);
    return rc;
}

static int sram_png(const report_run *r, const char *dir, const char *name, char *err, size_t errlen)
{
    const npu_platform_t *p = npu_platform_find(r->run.platform);
    int cells = p && p->sram_bytes ? (int)(p->sram_bytes / CELL_BYTES) : 0;
    int rc, hits = 0;
    rep_canvas c;
    char title[256], nm[160], a[128];

    for (int i = 0; i < r->n_layers; i++) {
        double h = r->layers[i].sram_hit;
        if (!isnan(h) && h > 0) {
            hits++;
            int need = (int)ceil(h / CELL_BYTES);
            if (need > cells)
                cells = need;
        }
    }
    int cw = cells ? (cells <= 300 ? 4 : cells <= 600 ? 2 : 1) : 4;
    int rh = r->n_layers <= 150 ? 6 : r->n_layers <= 600 ? 2 : 1;
    int L = 80, T = 50, W = (cells ? cells : 64) * cw, H = (r->n_layers ? r->n_layers : 1) * rh;
    rep_canvas_init(&c, L + (W > 560 ? W : 560) + 20, T + H + 50, BG);
    snprintf(title, sizeof(title), "run %s: SRAM", rep_run_name(r, nm, sizeof(nm)));
    rep_text(&c, L, 8, title, 2, INK);
    snprintf(a, sizeof(a), "%d cells of 4 KiB (%s), layers with hits: %d", cells,
             p ? p->name : "unknown chip", hits);
    rep_text(&c, L, 30, a, 1, INK);
    for (int i = 0; i < r->n_layers; i++) {
        double h = r->layers[i].sram_hit;
        int used = isnan(h) ? -1 : (int)ceil(h / CELL_BYTES);
        int y = T + i * rh;
        /* missing: mid grey; no hit: light grey; hit cells: green */
        rep_fill(&c, L, y, W, rh > 1 ? rh - (rh > 2) : 1, used < 0 ? 0xb0b0b0 : 0xeeeeee);
        if (used > 0)
            for (int k = 0; k < used; k++)
                rep_fill(&c, L + k * cw, y, cw > 1 ? cw - (cw > 2) : 1, rh > 1 ? rh - (rh > 2) : 1, 0x2e9e4a);
        if (rh >= 6 && i % 10 == 0) {
            snprintf(a, sizeof(a), "%d", i);
            rep_text(&c, 4, y, a, 1, INK);
        }
    }
    snprintf(a, sizeof(a), "layer 0 .. %d", r->n_layers ? r->n_layers - 1 : 0);
    rep_text(&c, L, T + H + 8, a, 1, INK);
    int x = legend(&c, L, T + H + 24, 0x2e9e4a, "hit", 1);
    x = legend(&c, x, T + H + 24, 0xeeeeee, "no hit", 1);
    legend(&c, x, T + H + 24, 0xb0b0b0, "not recorded", 1);
    rc = write_png(&c, dir, name, err, errlen);
    rep_canvas_free(&c);
    return rc;
}

static int compare_png(const rep_doc *d, const char *dir, char *err, size_t errlen)
{
    const int W = 1100, H = 300, L = 80, T = 40;
    rep_canvas c;
    char a[32], b[32], right[32];
    double max = 0;
    int rc;

    for (int i = 0; i < d->n_rows; i++)
        for (int k = 1; k < d->n; k++) {
            double x = rep_row_us(d, &d->rows[i], k) - rep_row_us(d, &d->rows[i], 0);
            if (!isnan(x) && fabs(x) > max)
                max = fabs(x);
        }
    rep_canvas_init(&c, L + W + 20, T + H + 60, BG);
    snprintf(a, sizeof(a), "+%.1f us", max);
    snprintf(b, sizeof(b), "-%.1f us", max);
    snprintf(right, sizeof(right), "layer %d", d->n_rows ? d->n_rows - 1 : 0);
    axes(&c, L, T, W, H, "time delta per aligned layer vs A (up: slower)", a, b, "aligned layer 0", right);
    rep_line(&c, L, T + H / 2, L + W, T + H / 2, INK);
    for (int i = 0; i < d->n_rows && max > 0; i++)
        for (int k = 1; k < d->n; k++) {
            double x = rep_row_us(d, &d->rows[i], k) - rep_row_us(d, &d->rows[i], 0);
            if (isnan(x) || x == 0)
                continue;
            int h = (int)ceil(fabs(x) / max * (H / 2));
            int slot = i * (d->n - 1) + k - 1, slots = d->n_rows * (d->n - 1);
            int px = L + 1 + (int)((double)slot * (W - 1) / slots);
            int px1 = L + 1 + (int)((double)(slot + 1) * (W - 1) / slots);
            rep_fill(&c, px, x > 0 ? T + H / 2 - h : T + H / 2, px1 - px > 2 ? px1 - px - 1 : 1, h,
                     palette[k % 6]);
        }
    int x = L;
    for (int k = 1; k < d->n; k++) {
        char t[16];
        snprintf(t, sizeof(t), "%s - A", rep_tag(k));
        x = legend(&c, x, T + H + 26, palette[k % 6], t, 2);
    }
    rc = write_png(&c, dir, "compare.png", err, errlen);
    rep_canvas_free(&c);
    return rc;
}

int report_png(const rep_doc *d, const char *dir, char *err, size_t errlen)
{
    int rc = RT_OK, any_acc = 0;
    for (int k = 0; k < d->n && !rc; k++) {
        char a[32], b[32];
        char suffix[8] = "";
        if (d->n > 1)
            snprintf(suffix, sizeof(suffix), "_%s", rep_tag(k));
        snprintf(a, sizeof(a), "layers%s.png", suffix);
        snprintf(b, sizeof(b), "sram%s.png", suffix);
        if (!(rc = layers_png(&d->runs[k], dir, a, err, errlen)))
            rc = sram_png(&d->runs[k], dir, b, err, errlen);
        any_acc |= d->runs[k].n_acc > 0;
    }
    if (!rc && any_acc)
        rc = error_png(d, dir, err, errlen);
    if (!rc && d->n > 1)
        rc = compare_png(d, dir, err, errlen);
    return rc;
}
