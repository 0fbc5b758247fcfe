/* tui/table.c — the table every list view shows: a header that sorts when
 * clicked, a cursor, search, sideways scrolling past the frozen columns. Only
 * the visible rows are drawn, so a 10,000-row table costs what a screen does. */
#define RT_TUI_INTERNAL
#include "tui/tui.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const tui_key tui_table_keys[] = {
    {"Up/Down j/k", "move the cursor (mouse: click a row, wheel scrolls)"},
    {"PgUp/PgDn Home/End g/G", "page, first, last row"},
    {"Left/Right", "scroll the columns sideways"},
    {"s / S", "sort by the next column / reverse the order (mouse: click a header)"},
    {"/", "search: keep the rows whose text contains the words (empty: all)"},
};
const int tui_table_n_keys = (int)(sizeof(tui_table_keys) / sizeof(tui_table_keys[0]));

typedef struct sort_key {
    int row;
    double num;
    char *text;
} sort_key;

static int cmp_key(const void *x, const void *y, void *ctx)
{
    const sort_key *a = x, *b = y;
    const tui_table *tb = ctx;
    int c = 0;
    if (tb->cols[tb->sort_col].kind == TCOL_TEXT) {
        int ea = !a->text[0] || !strcmp(a->text, "-"), eb = !b->text[0] || !strcmp(b->text, "-");
        if (ea != eb)
            return ea - eb;   /* empty cells last in either direction */
        c = strcmp(a->text, b->text);
    } else {
        if (isnan(a->num) || isnan(b->num)) {
            if (isnan(a->num) != isnan(b->num))
                return isnan(a->num) - isnan(b->num);
        } else {
            c = a->num < b->num ? -1 : a->num > b->num;
        }
    }
    if (tb->sort_desc)
        c = -c;
    return c ? c : a->row - b->row;
}

void tui_table_init(tui_table *tb, const tui_col *cols, int n_cols, int frozen, int n_rows,
                    void *ctx)
{
    memset(tb, 0, sizeof(*tb));
    tb->cols = cols;
    tb->n_cols = n_cols < 64 ? n_cols : 64;
    tb->frozen = frozen;
    tb->n_rows = n_rows;
    tb->order = xcalloc((size_t)(n_rows ? n_rows : 1), sizeof(int));
    tb->sort_col = -1;
    tb->hscroll = frozen;
    tb->ctx = ctx;
}

void tui_table_free(tui_table *tb)
{
    free(tb->order);
    tb->order = NULL;
}

int tui_table_current(const tui_table *tb)
{
    return tb->cur >= 0 && tb->cur < tb->n_shown ? tb->order[tb->cur] : -1;
}

void tui_table_goto_row(tui_table *tb, int row)
{
    for (int i = 0; i < tb->n_shown; i++)
        if (tb->order[i] == row) {
            tb->cur = i;
            return;
        }
}

static int row_matches(tui_table *tb, int row)
{
    char buf[512];
    int color;
    double frac;
    if (!tb->search[0])
        return 1;
    for (int c = 0; c < tb->n_cols; c++) {
        if (tb->cols[c].kind != TCOL_TEXT)
            continue;
        buf[0] = '\0';
        tb->cell(tb->ctx, row, c, buf, sizeof(buf), &color, &frac);
        if (tui_contains(buf, tb->search))
            return 1;
    }
    return 0;
}

void tui_table_refresh(tui_table *tb)
{
    int keep_row = tui_table_current(tb);
    tb->n_shown = 0;
    for (int r = 0; r < tb->n_rows; r++)
        if ((!tb->keep || tb->keep(tb->ctx, r)) && row_matches(tb, r))
            tb->order[tb->n_shown++] = r;
    if (tb->sort_col >= 0 && tb->n_shown > 1) {
        if (tb->before_sort)
            tb->before_sort(tb->ctx, tb->sort_col);
        sort_key *k = xcalloc((size_t)tb->n_shown, sizeof(*k));
        int text = tb->cols[tb->sort_col].kind == TCOL_TEXT;
        for (int i = 0; i < tb->n_shown; i++) {
            char buf[256] = "";
            int color;
            double frac;
            k[i].row = tb->order[i];
            if (text) {
                tb->cell(tb->ctx, k[i].row, tb->sort_col, buf, sizeof(buf), &color, &frac);
                k[i].text = xstrdup(buf);
            } else {
                k[i].num = tb->num ? tb->num(tb->ctx, k[i].row, tb->sort_col) : NAN;
            }
        }
        qsort_r(k, (size_t)tb->n_shown, sizeof(*k), cmp_key, tb);
        for (int i = 0; i < tb->n_shown; i++) {
            tb->order[i] = k[i].row;
            free(k[i].text);
        }
        free(k);
    }
    tb->cur = 0;
    if (keep_row >= 0)
        tui_table_goto_row(tb, keep_row);
    if (tb->top > tb->cur)
        tb->top = tb->cur;
}

/* Columns that fit in the terminal: the frozen ones, then from hscroll on. */
static void layout(tui_table *tb, int width)
{
    int x = tb->marked ? 1 : 0;
    tb->n_vis = 0;
    for (int c = 0; c < tb->n_cols && x < width; c++) {
        if (c >= tb->frozen && c < tb->hscroll)
            continue;
        int w = tb->cols[c].width;
        /* the last text column takes the rest of the line; a number stays
         * beside its neighbours, not pushed to the screen's edge */
        if ((c == tb->n_cols - 1 && !tb->cols[c].right) || x + w + 1 > width)
            w = width - x;
        if (w <= 0)
            break;
        tb->x_col[tb->n_vis] = x;
        tb->w_col[tb->n_vis] = w;
        tb->col_of[tb->n_vis] = c;   /* column index; its width follows from x */
        tb->n_vis++;
        x += w + 1;
    }
}

void tui_table_draw(tui *t, tui_table *tb, int y0, int h)
{
    char buf[512];
    int width = COLS;
    tb->y0 = y0;
    tb->h = h;
    if (h < 2)
        return;
    layout(tb, width);
    int rows = h - 1;
    if (tb->cur >= tb->n_shown)
        tb->cur = tb->n_shown - 1;
    if (tb->cur < 0)
        tb->cur = 0;
    if (tb->cur < tb->top)
        tb->top = tb->cur;
    if (tb->cur >= tb->top + rows)
        tb->top = tb->cur - rows + 1;
    if (tb->top > 0 && tb->top + rows > tb->n_shown)
        tb->top = tb->n_shown > rows ? tb->n_shown - rows : 0;

    /* header */
    attr_t ha = tui_attr(t, TC_HEADER);
    tui_text(y0, 0, width, "", ha, 0, 1);
    for (int v = 0; v < tb->n_vis; v++) {
        int c = tb->col_of[v];
        snprintf(buf, sizeof(buf), "%s%s", tb->cols[c].title,
                 c != tb->sort_col ? "" : t->utf8 ? (tb->sort_desc ? "▼" : "▲")
                                                  : (tb->sort_desc ? "v" : "^"));
        tui_text(y0, tb->x_col[v], tb->w_col[v], buf, ha, tb->cols[c].right, 0);
    }
    for (int i = 0; i < rows; i++) {
        int y = y0 + 1 + i, idx = tb->top + i;
        move(y, 0);
        clrtoeol();
        if (idx >= tb->n_shown)
            continue;
        int row = tb->order[idx], cur = idx == tb->cur;
        int rc = tb->row_color ? tb->row_color(tb->ctx, row) : TC_NORMAL;
        attr_t ra = tui_attr(t, rc) | (cur ? A_REVERSE : 0);
        tui_text(y, 0, width, "", ra, 0, 1);
        if (tb->marked)
            tui_text(y, 0, 1, tb->marked(tb->ctx, row) ? "*" : " ",
                     tui_attr(t, TC_MARK) | A_BOLD | (cur ? A_REVERSE : 0), 0, 1);
        for (int v = 0; v < tb->n_vis; v++) {
            int c = tb->col_of[v], color = TC_NORMAL, w = tb->w_col[v];
            double frac = 0;
            buf[0] = '\0';
            tb->cell(tb->ctx, row, c, buf, sizeof(buf), &color, &frac);
            attr_t a = (color != TC_NORMAL ? tui_attr(t, color) : tui_attr(t, rc)) | (cur ? A_REVERSE : 0);
            if (tb->cols[c].kind == TCOL_BAR)
                tui_bar(t, y, tb->x_col[v], w, frac, a);
            else
                tui_text(y, tb->x_col[v], w, buf, a, tb->cols[c].right, 0);
        }
    }
}

static void move_cursor(tui_table *tb, int to)
{
    tb->cur = to < 0 ? 0 : to >= tb->n_shown ? tb->n_shown - 1 : to;
    if (tb->cur < 0)
        tb->cur = 0;
}

int tui_table_key(tui *t, tui_table *tb, int ch)
{
    int page = tb->h > 2 ? tb->h - 2 : 1;
    switch (ch) {
    case KEY_UP: case 'k': move_cursor(tb, tb->cur - 1); break;
    case KEY_DOWN: case 'j': move_cursor(tb, tb->cur + 1); break;
    case KEY_PPAGE: move_cursor(tb, tb->cur - page); tb->top -= page; if (tb->top < 0) tb->top = 0; break;
    case KEY_NPAGE: move_cursor(tb, tb->cur + page); tb->top += page; break;
    case KEY_HOME: case 'g': move_cursor(tb, 0); break;
    case KEY_END: case 'G': move_cursor(tb, tb->n_shown - 1); break;
    case KEY_LEFT:
        if (tb->hscroll > tb->frozen)
            tb->hscroll--;
        break;
    case KEY_RIGHT:
        if (tb->hscroll < tb->n_cols - 1)
            tb->hscroll++;
        break;
    case 's':
        tb->sort_col = tb->sort_col + 1 < tb->n_cols ? tb->sort_col + 1 : -1;
        tb->sort_desc = tb->sort_col >= 0 && tb->cols[tb->sort_col].kind != TCOL_TEXT;
        tui_table_refresh(tb);
        tui_status(t, 0, "sorted by %s", tb->sort_col >= 0 ? tb->cols[tb->sort_col].title : "natural order");
        break;
    case 'S':
        tb->sort_desc = !tb->sort_desc;
        tui_table_refresh(tb);
        break;
    case '/': {
        char q[sizeof(tb->search)];
        snprintf(q, sizeof(q), "%s", tb->search);
        if (tui_prompt(t, "search: ", q, sizeof(q))) {
            snprintf(tb->search, sizeof(tb->search), "%s", q);
            tui_table_refresh(tb);
            tui_status(t, 0, "%d of %d rows%s%s%s", tb->n_shown, tb->n_rows, q[0] ? " contain '" : "",
                       q, q[0] ? "'" : "");
        }
        break;
    }
    default:
        return TUI_UNHANDLED;
    }
    return TUI_HANDLED;
}

int tui_table_mouse(tui *t, tui_table *tb, const MEVENT *ev)
{
    if (ev->bstate & BUTTON4_PRESSED) {
        move_cursor(tb, tb->cur - 3);
        return 1;
    }
#ifdef BUTTON5_PRESSED
    if (ev->bstate & BUTTON5_PRESSED) {
        move_cursor(tb, tb->cur + 3);
        return 1;
    }
#endif
    if (!(ev->bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED)))
        return 0;
    if (ev->y == tb->y0) {
        for (int v = tb->n_vis - 1; v >= 0; v--)
            if (ev->x >= tb->x_col[v]) {
                int c = tb->col_of[v];
                if (tb->sort_col == c)
                    tb->sort_desc = !tb->sort_desc;
                else
                    tb->sort_col = c, tb->sort_desc = tb->cols[c].kind != TCOL_TEXT;
                tui_table_refresh(tb);
                tui_status(t, 0, "sorted by %s", tb->cols[c].title);
                break;
            }
        return 1;
    }
    int idx = tb->top + ev->y - tb->y0 - 1;
    if (ev->y > tb->y0 && ev->y < tb->y0 + tb->h && idx < tb->n_shown) {
        move_cursor(tb, idx);
        return ev->bstate & BUTTON1_DOUBLE_CLICKED ? 2 : 1;
    }
    return 0;
}
