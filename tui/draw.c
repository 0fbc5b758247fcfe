/* tui/draw.c — cells, bars and sparklines, in UTF-8 blocks or plain ASCII. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "util/escape.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bytes of s that fill at most w columns: UTF-8 continuation bytes take none. */
static int fit_bytes(const char *s, int w, int *cols)
{
    int i = 0, c = 0;
    while (s[i]) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (c == w)
                break;
            c++;
        }
        i++;
    }
    *cols = c;
    return i;
}

void tui_text(int y, int x, int w, const char *s, attr_t a, int right, int pad)
{
    int cols, n;
    if (w <= 0)
        return;
    /* curses would act on a newline or tab in a name: shown as \x0a (util/escape.h) */
    s = esc_tmp(ESC_TERM, s ? s : "");
    n = fit_bytes(s, w, &cols);
    attron(a);
    move(y, x);
    for (int i = cols; right && i < w; i++)
        addch(' ');
    addnstr(s, n);
    for (int i = cols; !right && pad && i < w; i++)
        addch(' ');
    attroff(a);
}

void tui_bar(const tui *t, int y, int x, int w, double frac, attr_t a)
{
    static const char *const eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
    if (w <= 0)
        return;
    if (isnan(frac) || frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    int units = (int)lround(frac * w * 8), full = units / 8, part = units % 8;
    move(y, x);
    attron(a);
    for (int i = 0; i < full; i++)
        addstr(t->utf8 ? "█" : "#");
    int used = full;
    if (part && used < w) {
        addstr(t->utf8 ? eighths[part] : part >= 4 ? "+" : ".");
        used++;
    }
    attroff(a);
    for (; used < w; used++)
        addch(' ');
}

void tui_sparkline(const tui *t, int y, int x, int w, const double *vals, int n, double lo,
                   double hi, int mark, attr_t a, attr_t mark_attr)
{
    static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
    static const char ascii[] = "_.-:=+*#";
    if (w <= 0 || n <= 0)
        return;
    /* one cell per value when they fit, else each cell shows its bucket's minimum */
    int cells = n < w ? n : w;
    for (int c = 0; c < cells; c++) {
        int b0 = (int)((long long)c * n / cells), b1 = (int)((long long)(c + 1) * n / cells);
        double v = NAN;
        int marked = 0;
        for (int i = b0; i < b1; i++) {
            if (!isnan(vals[i]) && (isnan(v) || vals[i] < v))
                v = vals[i];
            marked |= i == mark;
        }
        move(y, x + c);
        attr_t at = marked ? mark_attr : a;
        attron(at);
        if (isnan(v)) {
            addch(marked ? '^' : ' ');
        } else {
            double f = hi > lo ? (v - lo) / (hi - lo) : 1.0;
            int k = (int)lround(f * 7);
            k = k < 0 ? 0 : k > 7 ? 7 : k;
            if (t->utf8)
                addstr(blocks[k]);
            else
                addch((chtype)(unsigned char)ascii[k]);
        }
        attroff(at);
    }
}

int tui_cos_color(double c, double thr)
{
    static const int by_grade[] = { TC_GOOD, TC_WARN, TC_BAD, TC_NAN };
    return by_grade[metrics_cos_grade(c, thr)];
}

const char *tui_num(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, v);
    return buf;
}

const char *tui_int(char *buf, size_t len, int64_t v)
{
    if (v == STORE_NULL_INT)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

int tui_contains(const char *hay, const char *needle)
{
    if (!needle || !*needle)
        return 1;
    if (!hay)
        return 0;
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}
