/* tracer/tracer.h — what touches a board's text: parsers of the vendor
 * runtime's logs. Every parser strips the logger's line prefixes, maps columns
 * from the header rather than from fixed positions, and never crashes on
 * malformed input (fuzzed: tests/fuzz/fuzz_perflog.c, fuzz_sramlog.c). */
#ifndef RT_TRACER_H
#define RT_TRACER_H

#include <stddef.h>
#include <stdint.h>

/* Skips "X RKNN: [hh:mm:ss.mmm] " (timestamp optional) and a user's "---> "
 * glued to a ruler; returns the rest of the line. */
char *tracer_strip_prefix(char *line);
/* After a logger's tag ("RKNN" of "E RKNN    : ", "E/RKNN (123): "): blanks, then with
 * pid an optional "(pid)", then ':'. Returns what follows the ':', NULL otherwise. */
const char *tracer_after_tag(const char *k, int pid);

/* A vendor logger's prefix at s: a level letter, then the runtime's " RKNN", the
 * toolkit 1.x API's " RKNNAPI" or RKLLM's " rkllm", then ':' or a full-width '：'
 * (*fullwidth 1; a machine translation's). Its length with the colon, 0 none. */
size_t tracer_vendor_prefix_at(const char *s, int *fullwidth);
/* In a line of len bytes (NUL-terminated), the full-width colons of the vendor
 * prefixes and of the timestamp right after them written as ASCII ("I RKNN：[01：19：
 * 04.510]" is "I RKNN: [01:19:04.510]"); the rest of the line is left as printed.
 * Returns the new length (never longer). */
size_t tracer_fullwidth_prefixes(char *s, size_t len);

/* The length of a system log's prefix at s (n bytes): journalctl's and syslog's
 * "Dec  7 10:00:00[.123456] HOST IDENT[PID]: ", journalctl -o short-iso's
 * "2026-12-07T10:00:00[.123][+0000] HOST IDENT[PID]: "; moreutils' ts(1)'s
 * "Dec 07 10:00:00 " alone; 0 when s has none. */
size_t tracer_syslog_prefix(const char *s, size_t n);

/* In a line of len bytes (NUL-terminated), the terminal's escape sequences
 * removed: CSI ("\033[0;32m", `adb logcat -v color`, a session saved with
 * script(1)) and two-byte ESC sequences. Returns the new length. */
size_t tracer_strip_ansi(char *s, size_t len);

/* A line of the rknpu kernel driver as dmesg prints it: an optional stamp ("[
 * 11.688653] ", dmesg -T's "[Wed Apr  1 10:09:24 2026] "), then the driver's tag
 * ("RKNPU: ", "RKNPU fdab0000.npu: " and its own "RKNPU: " after it), or the DRM
 * core's "[drm] Initialized rknpu ..." line. The message after them (blanks and a
 * tab skipped), NULL for any other line. */
const char *tracer_kernel_body(const char *s);

/* A frame of gdb's backtrace: "#8  0x0000007fb1e45fe4 in rkllm_init () from
 * ./lib/librkllmrt.so", "#0  main () at demo.c:12". The text after the frame's
 * number (its address skipped) in *fn, when it is one. */
int tracer_gdb_frame(const char *t, size_t n, const char **fn);

/* A comment line of a log ('#', after blanks): not one whose '#' is a root shell's
 * prompt before a command ("# ./rknn_yolov5_demo model/RV1106/...", "# /usr/bin/x"),
 * which is the board's own output to read, nor a frame of gdb's backtrace. */
static inline int tracer_is_comment(const char *t, size_t n)
{
    return n && t[0] == '#' &&
           !(n > 3 && t[1] == ' ' && ((t[2] == '.' && t[3] == '/') || t[2] == '/')) &&
           !tracer_gdb_frame(t, n, NULL);
}

/* Parser of the vendor runtime's per-layer performance table
 * (RKNN_LOG_LEVEL=4, RKNN_QUERY_PERF_DETAIL, rknn.eval_perf()), every generation
 * in shared/research/log-formats.md §3: 2.x compact (Cycles(DDR/NPU/Total)),
 * 1.6 (DDRCycles/NPUCycles/MaxCycles), 1.3-1.5 wide (DDR Cycles / NPU Cycles /
 * Total Cycles, Task Number, Task Size, Regcmd Size or Lut Number), plus the
 * totals lines and the operator ranking table. Line prefixes ("I RKNN: [ts] ",
 * "D RKNN: ", a user's "---> ") are stripped. Columns are mapped from the header,
 * values read as whitespace-separated tokens (values may overflow a column). */
typedef struct perflog_row {
    int id;
    char optype[48], datatype[16], target[8];
    char inshape[256], outshape[128];  /* as printed ("\" when none) */
    int64_t ddr, npu, total;           /* cycles, -1 if the table has none */
    int64_t time_us;                   /* -1 if absent */
    int n_mac;                         /* 0: blank or "\" */
    double mac[3];
    int n_wl;                          /* 0: absent */
    double wl[3];
    double up;                         /* "- Up:x%" of old tables, -1 if absent */
    int64_t task_number;               /* -1 if absent */
    double rw_kb;                      /* -1 if absent */
    char fullname[256];
} perflog_row_t;

typedef struct perflog_op {
    char optype[48];
    int calls;                         /* -1 on the Total row */
    int64_t cpu_us, gpu_us, npu_us, total_us;  /* cpu/gpu -1 when the table has no such column */
    double ratio;                      /* %, -1 on the Total row */
} perflog_op_t;

typedef struct perflog_table {
    char generation;                   /* 'A' 2.x, 'B' 1.6, 'C' 1.2-1.5, 0 ranking only */
    int has_tasknumber;
    perflog_row_t *rows;
    int n_rows;
    int n_bad_rows;                    /* row-like lines that could not be read */
    int n_joined;                      /* continuation lines joined into wrapped rows */
    int n_interleaved;                 /* other text between its rows (not a row's end) */
    int cores;                         /* most values a row's MacUsage or WorkLoad printed
                                          (one per NPU core), 0 none */
    int64_t total_time_us;             /* "Total Operator Elapsed [Per Frame ]Time(us)", -1 */
    double total_rw_kb;                /* "...Per Frame Size(KB)", -1 */
    double total_rw_mb;                /* "Total Memory RW Amount(MB)", -1 */
    perflog_op_t *ops;
    int n_ops;
    int has_total_op;                  /* the ranking table has a Total row (last in ops) */
    int first_bad_line;                /* 1-based line of the text: the first row (layer or
                                          ranking) that could not be read, 0 none */
} perflog_table_t;

/* Lines after its first that a row wrapped by a narrow terminal or a web page
 * may take (shapes, cycles and FullName cut apart); perflog_parse joins
 * them, the whole-log scanner counts them as the row's. */
#define PERFLOG_JOIN_MAX 6

/* Parses every table in text. Returns 0 with *n >= 1, RT_EFORMAT when no table
 * header was found (message says so), never crashes on malformed input. */
int perflog_parse(const char *text, size_t len, perflog_table_t **tables, int *n, char *err,
                  size_t errlen);
void perflog_free(perflog_table_t *tables, int n);
/* A line (prefix stripped) is a per-layer table header / a ranking table header. */
int perflog_is_header(const char *line);
int perflog_is_ranking_header(const char *line);
/* A line of a ranking table's body: "Op N ... 12.3%", a Total row, or one whose
 * second cell is a call count (a row cut short reads as one, to be refused). */
int perflog_is_op_rowlike(const char *line);
/* Lines around and inside a table that are never a row nor a wrapped row's tail
 * (leading blanks allowed): a ruler ("-----", "=====", "+----"), a title or
 * "Performance", an elision mark ("...", "[..."), a totals line. */
int perflog_is_ruler(const char *line);
int perflog_is_title(const char *line);
int perflog_is_elided(const char *line);
int perflog_is_total(const char *line);

/* Parser of the vendor runtime's SRAM / internal-memory
 * table (RKNN_LOG_LEVEL=3 on RK3588, shared/research/log-formats.md §4) and of
 * the driver's debugfs `mm` SRAM bitmap (§7).
 *
 * Table variants: runtime 1.4-1.5 (`Total allocated Internal SRAM Size: N,
 * Addr: [a, b)` box, columns ID User Tensor DataType OrigShape NativeShape |
 * [Start End) Size | SramHit, the `Predict ... RW Amount` footer), and the 2.x
 * toolkit/runtime build table (a DataFormat column, no SramHit). Columns are
 * mapped from the header; line prefixes ("D RKNN: [ts] ") are stripped. */
typedef struct sramlog_row {
    int id;
    char user[48], tensor[128], datatype[16], dataformat[16];
    char origshape[64], nativeshape[64];
    uint64_t start, end, size;
    int star;            /* a '*' stood between Start and End */
    int64_t hit;         /* SramHit bytes; -1 printed "\" (not in the buffer); -2 no column */
} sramlog_row_t;

typedef struct sramlog_table {
    char alloc_kind[16];            /* "Internal" / "Weight" of the box, "" when absent */
    int64_t alloc_size;             /* its Size, -1 when absent */
    uint64_t alloc_start, alloc_end;
    int has_hit, has_dataformat;
    sramlog_row_t *rows;
    int n_rows;
    int n_bad_rows;                 /* row-like lines that could not be read */
    /* footer, -1 when absent */
    int64_t total_weight, total_internal, rw_internal, rw_weight, rw_sram_hit;
} sramlog_table_t;

/* Lines after its first that a row wrapped by a narrow terminal or a web page
 * may take (shapes, cycles and FullName cut apart); perflog_parse joins
 * them, the whole-log scanner counts them as the row's. */
#define PERFLOG_JOIN_MAX 6

/* Parses every table in text. Returns 0 with *n >= 1, RT_EFORMAT when no table
 * header was found; never crashes on malformed input. */
int sramlog_parse(const char *text, size_t len, sramlog_table_t **tables, int *n, char *err,
                  size_t errlen);
void sramlog_free(sramlog_table_t *tables, int n);

/* The debugfs `mm` text: the page bitmap ('*' used, '.' free, in page order,
 * NUL-terminated, at most cap-1 marks) and the totals line. Returns the page
 * count, or RT_EFORMAT (no totals line, bad row, or totals that disagree
 * with the bitmap). */
typedef struct sramlog_mm {
    int64_t total, used, free;
    int pages;
    char map[1025];
} sramlog_mm_t;
int sramlog_parse_mm(const char *text, size_t len, sramlog_mm_t *mm, char *err, size_t errlen);

/* ---- Line parsers of the other vendor outputs (log-formats.md §2, §8-§10) ----
 * Each takes one line with its logger prefix already stripped and trailing
 * blanks cut, returns 1 when the line was read into the record, 0 when it is
 * not of that kind; none crashes on malformed input (fuzzed: fuzz_rtinfo.c,
 * fuzz_memlog.c, fuzz_benchlog.c, fuzz_acclog.c). Strings absent are "". */

/* Init / information lines of the runtime (`RKNN Runtime|Driver|Model
 * Information`, 1.3 colon and 2.x comma wording), RKLLM's (`rkllm-runtime
 * version: X, rknpu driver version: Y, platform: Z`, its driver warning,
 * `rkllm-toolkit version:`, `RKNN LLM Runtime Information`), the level-5 `Get NPU|DDR
 * frequency: N MHz` lines, and eval_perf's `CPU|NPU|DDR Current Frequency
 * List:` blocks (the `- N` lines after them; "Unknown" is kept as -1). */
#define RTINFO_MAX_FREQ 8
typedef struct rtinfo {
    char runtime_version[32], runtime_build[64], driver_version[32];
    char toolkit_version[48], compiler_version[32], compiler_build[64];
    char model_version[16], npu_target[32], soc[32], framework[32], layout[16];
    char inference_type[32], api_version[32], server_version[32];
    /* RKLLM: its runtime, the rkllm-toolkit that converted the model, the rknn llm lib
     * inside it, and the driver its warning asks for ("please upgrade to 0.9.7") */
    char rkllm_version[32], rkllm_toolkit_version[32], llm_lib_version[32], driver_required[32];
    int64_t npu_mhz, ddr_mhz;                /* -1 when absent */
    int n_cpu_khz, n_npu_hz, n_ddr_hz;       /* freq lists as printed */
    int64_t cpu_khz[RTINFO_MAX_FREQ], npu_hz[RTINFO_MAX_FREQ], ddr_hz[RTINFO_MAX_FREQ];
    int list;                                /* parser state: list being read */
    int toolkit_of_model;                    /* toolkit_version came from a Model Information line */
    int soc_of_board;                        /* soc came from the board ("Get hardware info"): the user's target does not replace it */
} rtinfo_t;
void rtinfo_init(rtinfo_t *i);
int rtinfo_line(rtinfo_t *i, const char *s);
/* Does the line start a new runtime context (librknnrt's or RKLLM's version
 * line, or RKLLM's driver warning printed just before its version)? RKLLM 1.0.1
 * prints the warning after its version line instead: there, with i holding that
 * version and no warning yet, it continues the context. */
int rtinfo_is_runtime_line(const rtinfo_t *i, const char *s);
/* Does the line start a new toolkit session (the toolkit's version line at level
 * I, W or D: "W rknn-toolkit version: 1.7.5", "I rknn-toolkit2 version: 2.3.0";
 * the E form repeats it in an error block)? */
int rtinfo_is_session_line(const char *s);
/* An information line as a browser's Chinese translation writes it ("RKNN 运行时信息：
 * librknnrt 版本：1.4.0"): its fixed words in English into out (n bytes), the values
 * as printed. 1 when the line was one, 0 otherwise (out untouched or partial). */
int rtinfo_translated(const char *s, char *out, size_t n);
/* Has a runtime context begun (a runtime version read)? */
int rtinfo_has_runtime(const rtinfo_t *i);
/* A new runtime context: what the previous runtime, its driver and its model
 * printed is cleared (versions belong to the run that printed them); the
 * session's own facts (chip, toolkit package, API and rknn_server, clocks) stay. */
void rtinfo_new_context(rtinfo_t *i);
/* The board's chip an error line names ("This rknn model is for RK3588, but
 * current platform is RK3576"): into soc, lower case. 1 when read. */
int rtinfo_error_line(rtinfo_t *i, const char *s);

/* eval_memory's "Memory Profile Info Dump" (1.x "Total Weight Memory" and 2.x
 * "Weight / Internal Tensor / Other Memory" wording); sizes in bytes as printed
 * in MiB/KiB (2 decimals), -1 when absent. */
typedef struct memlog {
    int active;                              /* inside the dump box */
    int n_lines;                             /* lines read */
    double weight, internal, other, total, model_size;
    /* the same as printed, unit and all ("3.53 MiB"); "" when absent */
#define MEMLOG_TEXT 24
    char text[5][MEMLOG_TEXT];               /* weight, internal, other, total, model */
} memlog_t;
void memlog_init(memlog_t *m);
int memlog_line(memlog_t *m, const char *s);

/* rknn_benchmark / rknn_common_test output: the version line, sizes, tensor
 * attributes, Warmup/Begin perf iteration lines, the Avg line, Top5. */
#define BENCHLOG_MAX_TENSORS 16
#define BENCHLOG_MAX_WARMUP 16
typedef struct benchlog_tensor {
    int index, is_output, n_dims;
    int64_t dims[8];
    char name[128], fmt[16], type[16];
} benchlog_tensor_t;
typedef struct benchlog {
    int n_lines;                             /* lines read */
    char runtime_version[32], runtime_build[64], driver_version[32];
    int64_t weight_size, internal_size, dma_size;   /* -1 absent */
    int n_inputs, n_outputs;                 /* -1 absent */
    benchlog_tensor_t tensors[BENCHLOG_MAX_TENSORS];
    int n_tensors;
    int section;                             /* 0 none, 1 input, 2 output tensors, 3 warmup, 4 perf */
    double *perf_ms;                         /* timed iterations (after "Begin perf") */
    double *perf_fps;                        /* their FPS as printed (same count) */
    int n_perf, n_warmup;
    int has_warmup;                          /* a "Warmup ..." section was printed */
    double warmup_ms[BENCHLOG_MAX_WARMUP], warmup_fps[BENCHLOG_MAX_WARMUP]; /* first ones */
    double avg_ms, avg_fps;                  /* the Avg line, -1 absent */
} benchlog_t;
void benchlog_init(benchlog_t *b);
int benchlog_line(benchlog_t *b, const char *s);
void benchlog_free(benchlog_t *b);

/* Toolkit2 accuracy_analysis tables: "layer_name simulator_error [runtime_error]"
 * header (or runtime_error alone), cos-only (6 decimals) or "cos | euc" cells;
 * rows "[OpType] tensor" with 0, 2 or 4 cells. Missing values are NaN. */
typedef struct acclog_row {
    char op[48], name[256];
    int n_cells;                             /* cells printed */
    double cos[4], euc[4];                   /* sim entire, sim single, rt entire, rt single_sim */
} acclog_row_t;
typedef struct acclog {
    int has_sim, has_rt, has_euc;            /* halves in the header; euc cells seen */
    int in_table;                            /* header read, rows follow */
    acclog_row_t *rows;
    int n_rows, n_bad_rows;
} acclog_t;
void acclog_init(acclog_t *a);
int acclog_line(acclog_t *a, const char *s);   /* -1: a row that could not be read */
int acclog_is_header(const char *s);
void acclog_free(acclog_t *a);

/* A line of map_name_to_file.txt in the snapshot folder of Toolkit2's
 * accuracy_analysis (log-formats.md §8: "layer name -> tensor file"; the
 * separator is not documented, so "NAME FILE", "NAME: FILE", "NAME,FILE" and
 * "NAME -> FILE" are read; FILE is the last token and names a .npy or .txt
 * file). Returns 1 with both parts (NUL-terminated, within nlen/flen), 0 for
 * a line that is no such pair; never crashes (fuzzed: fuzz_snapmap.c). */
int snapmap_line(const char *s, char *name, size_t nlen, char *file, size_t flen);

/* ---- A whole vendor log, split into runs (tracer/vlog_scan.c) ----
 * Every line gets a kind; tables go through the parsers above and
 * perflog_parse / sramlog_parse. A new run starts when a part a run already
 * has comes again (a second per-layer table, a new runtime init, ...).
 * Accuracy tables: the simulator half is a run of its own (backend "toolkit"),
 * the runtime half belongs to the board run. */
enum vlog_kind {
    VLOG_USED,       /* read into a run */
    VLOG_LAYOUT,     /* blank, ruler, title, table header */
    VLOG_COMMENT,    /* '#' lines: legends, notes of whoever saved the log */
    VLOG_ELIDED,     /* "...", "[... gap ...]": rows left out by whoever copied it */
    VLOG_RUNTIME,    /* runtime messages without figures we keep (X RKNN: ...) */
    VLOG_TOOLKIT,    /* toolkit / tool messages (I/W/E/D lines, RKNNAPI, prompts of tools) */
    VLOG_APP,        /* an application's or a shell's own text */
    VLOG_BAD,        /* a table line that could not be read */
    VLOG_NKINDS
};
extern const char *const vlog_kind_names[VLOG_NKINDS];

enum { VLOG_F_PERF = 1, VLOG_F_SRAM = 2, VLOG_F_INFO = 4, VLOG_F_MEMORY = 8,
       VLOG_F_BENCH = 16, VLOG_F_ACC = 32, VLOG_F_DUMPS = 64, VLOG_F_ERRORS = 128,
       VLOG_F_ALL = 255 };

/* Error lines of the runtime, the driver and the toolkit (log-formats.md §6):
 * `E RKNN:` (any prefix, logcat's `E RKNN    :`), the kernel driver's job errors
 * (logcat's `E RKNPU`, dmesg's `RKNPU: failed to wait job`, `job timeout`, ...), the
 * toolkit's `E func:` lines, Python `...Error:` / `...Exception:` lines, a fatal signal. raw: the
 * line as printed, t: without its logger prefix. Returns 1 for an error line. */
int errlog_is_error(const char *raw, const char *t);
/* Where the runtime's message starts in a line that pastes it without its prefix,
 * after other words ("报错提示Not support core mask: 7, ..."): only messages whose
 * words are the runtime's alone. NULL when the line has none. */
const char *errlog_bare_message(const char *t);
/* The known error a line names (a small table in tracer/errlog_parse.c):
 * a short diagnosis, and whether it ends the run (*fatal; a dump file that
 * cannot be written does not). NULL: not a known error (fatal). */
const char *errlog_diagnosis(const char *line, int *fatal);
/* A line that says the process died, as the shell or the library printed it:
 * "Aborted", "Segmentation fault (core dumped)", "Bus error", "Illegal instruction",
 * a native library's fatal error (ggml's ":0: fatal error", "ggml_calloc: failed
 * to allocate ..."), or a gdb frame inside the runtime's or RKLLM's API
 * ("#8 ... in rkllm_init () from ./lib/librkllmrt.so"). t: without the logger prefix. */
int errlog_process_death(const char *t);
/* A warning line of the runtime (`W RKNN:`, any prefix) that the small table in
 * tracer/errlog_parse.c knows: what it means, NULL when it is not one of them. */
const char *errlog_warning(const char *raw);
#define VLOG_MAX_ERRORS 8

typedef struct vlog_dump {
    int index;
    char op[48], name[128], dtype[16], path[512];
    int n_dims;
    int64_t dims[8];
} vlog_dump_t;

typedef struct vlog_run {
    int toolkit;                 /* the simulator half of an accuracy table */
    int build;                   /* a toolkit build's (rknn.build() on a PC): its lines ("I rknn
                                    building ...", "librknnc version:"), or a per-layer table whose
                                    every time, cycle count and workload is 0 (verbose) */
    int first_line;              /* 1-based line where the run starts */
    rtinfo_t info;
    int has_perf, has_sram, has_mem, has_bench;
    perflog_table_t perf;
    sramlog_table_t sram;
    memlog_t mem;
    benchlog_t bench;
    acclog_row_t *acc;           /* this run's side: cos[0..1]/euc[0..1] entire, single */
    int n_acc;
    vlog_dump_t *dumps;
    int n_dumps;
    /* error lines (VLOG_F_ERRORS): the first VLOG_MAX_ERRORS as printed (owned),
     * the count of all, and whether one of them ends the run */
    char *errors[VLOG_MAX_ERRORS];
    int n_errors, failed;
    /* the runtime's known warning lines (errlog_warning): the first VLOG_MAX_ERRORS
     * as printed (owned) and the count of all; they fail nothing */
    char *warnings[VLOG_MAX_ERRORS];
    int n_warnings;
    size_t errors_bytes;         /* what the kept error and warning lines hold (the scan's bound) */
} vlog_run_t;

typedef struct vlog {
    vlog_run_t *runs;
    int n_runs;
    int64_t n_lines, kinds[VLOG_NKINDS];
    int64_t first_bad;           /* line number of the first VLOG_BAD line, 0 none */
    char first_bad_text[96];
    int64_t first_app;           /* first line not read (VLOG_APP, _RUNTIME or _TOOLKIT) */
    /* tables that end early: a ranking table before its closing ruler or Total row
     * (every one the runtime prints has one: the log is cut), a per-layer table
     * without its "Total Operator Elapsed" line (excerpts of real logs lack it: it
     * may be cut). The line after the table's last, n_lines + 1 at the end of the log. */
    int64_t unclosed_ranking, untotalled_layers;
} vlog_t;

/* Whether text holds a byte no log holds (NUL, a control byte other than tab,
 * newline, CR, form feed and ESC of colour codes); *at: the first one. */
int vlog_binary_at(const char *text, size_t len, size_t *at);
/* formats: VLOG_F_* mask of the parts to read (others count as VLOG_APP).
 * RT_EFORMAT: binary data, or no vendor output at all. Bad lines are counted,
 * not an error here. */
int vlog_scan(const char *text, size_t len, int formats, vlog_t *out, char *err, size_t errlen);
/* The same, telling final(ctx, v, n) each time runs [0, n) are complete: parts
 * only go to the newest board run, so a new one completes all before it; the
 * last call comes when the scan succeeds. final may take a complete run's rows
 * with vlog_run_move while the scan goes on (an import writes runs as the log is
 * read); it runs on the scanning thread, before v->runs is reallocated. */
typedef void (*vlog_final_fn)(void *ctx, vlog_t *v, int n_final);
int vlog_scan_each(const char *text, size_t len, int formats, vlog_final_fn final, void *ctx,
                   vlog_t *out, char *err, size_t errlen);
/* The same, bounded: *budget (NULL: no bound) is what the scan may hold in
 * memory: its line index (VLOG_LINE_BYTES a line, as the array grows), the runs (sizeof(vlog_run_t) each,
 * as the array grows) and their rows (sizeof each row kept), less the rows final
 * took; room is kept for the next growth of what grows, and a table is checked
 * before it is parsed. Past it the scan stops: RT_ENOMEM naming the line, out
 * empty, *budget unchanged. On success *budget is lowered by what out holds. */
enum { VLOG_LINE_BYTES = 16 };
int vlog_scan_bounded(const char *text, size_t len, int formats, size_t *budget,
                      vlog_final_fn final, void *ctx, vlog_t *out, char *err, size_t errlen);
void vlog_free(vlog_t *v);
/* dst takes src's rows, tables and dumps; src keeps its flags, counts and
 * versions. vlog_run_free frees what a run holds. */
void vlog_run_move(vlog_run_t *dst, vlog_run_t *src);
void vlog_run_free(vlog_run_t *r);
/* "000_ConvClip_317_shape_1_32_112_112_float.npy" (any folder before it). */
int vlog_parse_dump_name(const char *path, vlog_dump_t *d);

#endif
