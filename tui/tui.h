/* tui/tui.h — `rknn-trace tui`: an ncurses browser of the run store.
 *
 * Views, one file each, on a stack (Enter goes in, q/Esc back out):
 *   runs     (view_runs.c)    every run, newest first: sort, search, filters,
 *                             marks, delete and relabel (with a confirmation)
 *   layers   (view_layers.c)  one run's layers: time, share, cycles and bound,
 *                             CPU fallbacks with their reason, errors vs golden
 *   detail   (view_detail.c)  every stored field of one layer, its error curve
 *   summary  (view_text.c)    the run summary exactly as `show` prints it
 *   compare  (view_compare.c) two or more runs aligned by tensor name, deltas,
 *                             the verdict lines as `compare` prints them
 *   load     (view_load.c)    per-core NPU load over the run
 * and `rknn-trace top`'s live view of a board's NPU (top.c).
 * tui.c holds the loop, the terminal (colours, UTF-8, mouse, resize), the
 * status line, prompts and the help overlay; table.c the sortable table the
 * list views share; draw.c cells, bars and sparklines.
 *
 * The store is read through analyze/store.h only, opened read-only; a delete
 * or a new label opens a writable handle for that one statement.
 *
 * RKNN_TRACE_TUI_KEYLOG=FILE appends one line per handled key (and one for the
 * first screen) with the time spent handling it and drawing the screen:
 *   open <ms> list <ms> cpu <ms>   database opened and first screen drawn (wall
 *                                  time); of which opening and listing the runs;
 *                                  the process's CPU time for all of it
 *   key <name> <view> <ms> out <ms> cpu <ms>
 *                                  one key or mouse event, handled and drawn (wall
 *                                  time); of which sending the screen to the
 *                                  terminal; the process's CPU time for it */
#ifndef RT_TUI_H
#define RT_TUI_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/analyze.h"

typedef struct tui_opts {
    const char *db;             /* database path (resolved by the caller) */
    const char *run;            /* a run id or label to open first; NULL: the runs list */
    double cos_threshold;       /* colours and "first layer below" (0.99) */
    const char *keylog;         /* RKNN_TRACE_TUI_KEYLOG, NULL: none */
} tui_opts;

/* Browses until the user quits. Refuses (RT_EINVAL, one line in err, the
 * terminal untouched) when stdin or stdout is not a terminal; a missing or
 * foreign database is the store's one-line error. */
int tui_main(const tui_opts *o, char *err, size_t errlen);

/* ---- `rknn-trace top` (top.c), from the board probe (tracer/board*.c) ---- */
struct board_snapshot;
/* One reading as plain text on stdout (`top --snapshot`). */
void tui_top_print(const struct board_snapshot *s);
/* The live view until q (or count refreshes, 0: no limit), refreshing the load
 * every interval_ms; runtime and its version (NULL: none found) are shown as the
 * runtime a board run would load. RT_EINVAL when the terminal cannot start. */
int tui_top_live(const char *root, int sim, const char *runtime, const char *runtime_version,
                 int interval_ms, long long count, char *err, size_t errlen);

/* ---- Inside tui/ -------------------------------------------------------------- */
#ifdef RT_TUI_INTERNAL
/* The graph's attribute type (runtime/model) is also named attr_t: inside tui/,
 * which never touches graphs, the name is curses' text attribute. */
#define attr_t tui_curses_attr_t
#include <curses.h>

enum tui_color {
    TC_NORMAL = 0, TC_TITLE, TC_HEADER, TC_STATUS, TC_ERROR,
    TC_CPU, TC_DDR, TC_COMPUTE, TC_GOOD, TC_WARN, TC_BAD, TC_NAN, TC_MARK, TC_BAR, TC_DIM,
    TC_CORE0, TC_CORE1, TC_CORE2,
    TC_COUNT
};

enum { TUI_UNHANDLED = 0, TUI_HANDLED, TUI_BACK };

typedef struct tui tui;
typedef struct tui_view tui_view;

typedef struct tui_key {
    const char *keys, *what;    /* "Enter", "open the run's layers" */
} tui_key;

struct tui_view {
    const char *name;           /* "runs", "layers", ... (keylog, help title) */
    void (*draw)(tui *t, tui_view *v, int y0, int h);      /* rows y0 .. y0+h-1 */
    int (*key)(tui *t, tui_view *v, int ch);               /* TUI_* */
    void (*mouse)(tui *t, tui_view *v, const MEVENT *ev);
    void (*destroy)(tui_view *v);
    const tui_key *keys;        /* this view's keys, for the help overlay */
    int n_keys;
    int table;                  /* a tui_table view: its keys are listed too */
    tui_view *below;
};

struct tui {
    store *st;
    const char *db_path;
    double thr;
    int utf8;                   /* box and block characters allowed */
    int colors;                 /* 0: monochrome (NO_COLOR, no colour), 8, or 256 */
    tui_view *top;
    char status[512];
    int status_error;
    int quit, help;
    FILE *keylog;
};

/* tui.c */
attr_t tui_attr(const tui *t, int color);
void tui_status(tui *t, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tui_push(tui *t, tui_view *v);
/* Reads a line in the status row (Enter: 1, Esc: 0); buf holds the initial text. */
int tui_prompt(tui *t, const char *question, char *buf, size_t len);
/* Shows msg in the status row at once (before a long step). */
void tui_busy(tui *t, const char *msg);
/* y/n question in the status row: 1 only for 'y'. */
int tui_confirm(tui *t, const char *question);
/* Writable handle for one change (delete, label): opened and closed by the caller. */
int tui_store_writable(tui *t, store **out, char *err, size_t errlen);

/* draw.c: text clipped to w columns (padded when pad), right-aligned when right. */
void tui_text(int y, int x, int w, const char *s, attr_t a, int right, int pad);
/* A bar of w cells filled to frac (0..1); eighth blocks in UTF-8, '#' else. */
void tui_bar(const tui *t, int y, int x, int w, double frac, attr_t a);
/* vals[0..n) as one line of w cells, min..max scaled; NaN as a gap; the cell
 * holding index mark (-1: none) drawn with mark_attr. */
void tui_sparkline(const tui *t, int y, int x, int w, const double *vals, int n, double lo,
                   double hi, int mark, attr_t a, attr_t mark_attr);
/* Colour of a cosine the way the accuracy table colours it (metrics_cos_grade). */
int tui_cos_color(double cos, double thr);
/* "12.3" / "-" for NaN, integer cells "-" for STORE_NULL_INT. */
const char *tui_num(char *buf, size_t len, double v, const char *fmt);
const char *tui_int(char *buf, size_t len, int64_t v);
/* case-insensitive substring */
int tui_contains(const char *hay, const char *needle);

/* table.c: the sortable, filterable, scrollable table of the list views. */
enum { TCOL_TEXT = 0, TCOL_NUM, TCOL_BAR };

typedef struct tui_col {
    const char *title;
    int width;                  /* cells; the last column takes what is left */
    int kind;                   /* TCOL_*: text sorts as text, num/bar as numbers */
    int right;                  /* right-aligned */
} tui_col;

typedef struct tui_table {
    const tui_col *cols;
    int n_cols, frozen;         /* the first `frozen` columns never scroll sideways */
    int n_rows;
    int *order, n_shown;        /* rows kept by the filter, in display order */
    int cur, top, hscroll;
    int sort_col, sort_desc;    /* sort_col -1: natural order */
    char search[128];           /* `/`: rows whose text contains it */
    void *ctx;
    /* cell text and colour (TC_*); for TCOL_BAR *frac in 0..1 */
    void (*cell)(void *ctx, int row, int col, char *buf, size_t len, int *color, double *frac);
    double (*num)(void *ctx, int row, int col);     /* sort key of numeric columns */
    int (*keep)(void *ctx, int row);                /* view filters, NULL: all */
    int (*row_color)(void *ctx, int row);           /* whole-row colour, TC_NORMAL none */
    int (*marked)(void *ctx, int row);              /* row marked (shown with '*') */
    void (*before_sort)(void *ctx, int col);        /* about to read every row's sort key */
    int y0, h, x_col[64], w_col[64], col_of[64], n_vis; /* last layout, for the mouse */
} tui_table;

void tui_table_init(tui_table *tb, const tui_col *cols, int n_cols, int frozen, int n_rows,
                    void *ctx);
void tui_table_free(tui_table *tb);
/* Re-filters and re-sorts, keeping the cursor on the same row when it stays. */
void tui_table_refresh(tui_table *tb);
void tui_table_draw(tui *t, tui_table *tb, int y0, int h);
/* Moves, sorts (s/S, header click), scrolls sideways, searches (/): TUI_HANDLED
 * or TUI_UNHANDLED. */
int tui_table_key(tui *t, tui_table *tb, int ch);
int tui_table_mouse(tui *t, tui_table *tb, const MEVENT *ev); /* 2: a row was double-clicked */
int tui_table_current(const tui_table *tb);                   /* row, -1 none */
void tui_table_goto_row(tui_table *tb, int row);

extern const tui_key tui_table_keys[];
extern const int tui_table_n_keys;

/* One run with everything stored about it (view_layers.c). */
typedef struct tui_run {
    store_run run;
    store_layer *layers;
    store_output *outs;
    store_accuracy *acc;
    store_npu_row *npu;         /* level-4 rows no layer row carries */
    int nl, no, na, nnpu;
    int *layer_acc;             /* accuracy row of each layer, -1 none */
    run_summary sum;
} tui_run;

int tui_run_load(tui *t, int64_t id, tui_run **out, char *err, size_t errlen);
void tui_run_free(tui_run *r);

/* Views. */
int tui_runs_view(tui *t, tui_view **out, char *err, size_t errlen);
tui_view *tui_layers_view(tui *t, tui_run *r);      /* takes r */
tui_view *tui_detail_view(tui *t, const tui_run *r, int layer_row, int acc_row);
tui_view *tui_text_view(tui *t, const char *title, char *text); /* takes text */
tui_view *tui_summary_view(tui *t, const tui_run *r);
int tui_compare_view(tui *t, const int64_t *ids, int n, tui_view **out, char *err, size_t errlen);
int tui_load_view(tui *t, const tui_run *r, tui_view **out, char *err, size_t errlen);
#endif

#endif
