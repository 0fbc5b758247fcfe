/* runtime/npu/npu_print.c — the level-4 per-layer table in the runtime 2.3 layout
 * (log-formats.md §3.1 and §3.5, measured on triority-05/-06): ruler 222,
 * title at column 74, columns ID 5, OpType 19, DataType 9, Target 7,
 * InputShape 41, OutputShape 23, Cycles 25, Time 13, MacUsage 21, WorkLoad 21,
 * RW(KB) 13, FullName padded to 16; then the totals and the ranking table
 * (ruler 99, columns 19/13/13/13/13/15/14, Total row). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include "runtime/npu/npu.h"
#include "util/escape.h"
#include "util/util.h"

typedef struct lbuf {
    char s[1024];
    size_t n;
} lbuf;

static void put_n(lbuf *b, const char *s, size_t l)
{
    if (b->n + l >= sizeof(b->s))
        l = sizeof(b->s) - 1 - b->n;
    memcpy(b->s + b->n, s, l);
    b->n += l;
    b->s[b->n] = 0;
}

static void put(lbuf *b, const char *s)
{
    put_n(b, s, strlen(s));
}

/* value, then spaces up to width; at least one space so that an overflowing
 * value still splits from the next (the vendor's own overflow behaviour). */
static void col(lbuf *b, const char *s, int width)
{
    size_t start = b->n, pad;

    put(b, s);
    pad = (int)(b->n - start) < width ? (size_t)width - (b->n - start) : 1;
    if (b->n + pad >= sizeof(b->s))
        pad = sizeof(b->s) - 1 - b->n;
    memset(b->s + b->n, ' ', pad);
    b->n += pad;
    b->s[b->n] = 0;
}

/* Output of one table: lines gathered in memory behind one prefix (the
 * timestamp read once: a table is printed at one instant) and written with
 * one fwrite, so that a level-4 run pays little for its table. */
typedef struct pout {
    FILE *f;
    char pfx[48];
    size_t pfx_n;
    char *buf;
    size_t n, cap;
} pout;

/* "I RKNN: [HH:MM:SS.mmm] "; the broken-down time is kept per second, as
 * localtime_r is the dearest part of a small table's print. */
static size_t log_prefix(char *pfx, size_t len, int flags)
{
    static _Thread_local time_t sec = -1;
    static _Thread_local struct tm tm;
    struct timeval tv;

    gettimeofday(&tv, NULL);
    if (tv.tv_sec != sec) {
        localtime_r(&tv.tv_sec, &tm);
        sec = tv.tv_sec;
    }
    /* by hand: snprintf was a fifth of a cached table's print */
    char t[] = "I RKNN: [00:00:00.000] ";
    int v[4] = {tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000)};
    t[0] = flags & NPU_PRINT_DEBUG ? 'D' : 'I';
    for (int k = 0; k < 3; k++) {
        t[9 + 3 * k] = (char)('0' + v[k] / 10 % 10);
        t[10 + 3 * k] = (char)('0' + v[k] % 10);
    }
    t[18] = (char)('0' + v[3] / 100);
    t[19] = (char)('0' + v[3] / 10 % 10);
    t[20] = (char)('0' + v[3] % 10);
    size_t n = sizeof t - 1 < len ? sizeof t - 1 : len - 1;
    memcpy(pfx, t, n);
    pfx[n] = 0;
    return n;
}

static void pout_init(pout *o, FILE *f, int flags)
{
    memset(o, 0, sizeof(*o));
    o->f = f;
    if (flags & NPU_PRINT_PREFIX)
        o->pfx_n = log_prefix(o->pfx, sizeof o->pfx, flags);
}

static void pout_raw(pout *o, const char *s, size_t l)
{
    if (!l)
        return;
    if (o->n + l > o->cap) {
        o->cap = (o->n + l) * 2 + 4096;
        o->buf = xrealloc(o->buf, o->cap);
    }
    memcpy(o->buf + o->n, s, l);
    o->n += l;
}

static void line_n(pout *o, const char *s, size_t l)
{
    pout_raw(o, o->pfx, o->pfx_n);
    pout_raw(o, s, l);
    pout_raw(o, "\n", 1);
}

static void line_out(pout *o, const char *s)
{
    line_n(o, s, strlen(s));
}

static void pout_flush(pout *o)
{
    if (o->n)
        fwrite(o->buf, 1, o->n, o->f);
    free(o->buf);
    o->buf = NULL;
    o->n = o->cap = 0;
}

static void ruler(pout *o, int n)
{
    char s[512];
    if (n >= (int)sizeof(s))
        n = (int)sizeof(s) - 1;
    memset(s, '-', (size_t)n);
    line_n(o, s, (size_t)n);
}

static void shape_str(const npu_shape_t *s, char *buf, size_t len)
{
    size_t u = 0;
    u += (size_t)snprintf(buf + u, len - u, "(");
    for (int i = 0; i < s->nd && u < len; i++)
        u += (size_t)snprintf(buf + u, len - u, "%s%lld", i ? "," : "", (long long)s->d[i]);
    if (u < len)
        snprintf(buf + u, len - u, ")");
}

/* Shapes joined with ',' while they fit in width-1 characters, else the
 * ones that fit followed by ",..." (LOG-Y8 rows 5, 9; triority-05 row 63). */
static void shapes_str(const npu_shape_t *s, int n, int n_total, int width, char *buf, size_t len)
{
    char one[128], full[1024] = "";
    size_t u = 0;
    int limit = width - 1, i;

    if (n_total == 0) {
        snprintf(buf, len, "\\");
        return;
    }
    for (i = 0; i < n; i++) {
        shape_str(&s[i], one, sizeof(one));
        u += (size_t)snprintf(full + u, sizeof(full) - u, "%s%s", i ? "," : "", one);
        if (u >= sizeof(full))
            break;
    }
    if (n == n_total && (int)strlen(full) <= limit) {
        snprintf(buf, len, "%s", full);
        return;
    }
    u = 0;
    buf[0] = 0;
    for (i = 0; i < n; i++) {
        shape_str(&s[i], one, sizeof(one));
        if (i > 0 && (int)(u + 1 + strlen(one) + 4) > limit)
            break;
        u += (size_t)snprintf(buf + u, len - u, "%s%s", i ? "," : "", one);
        if (u >= len)
            break;
    }
    snprintf(buf + u, len - u, ",...");
}

static void cores_header(char *buf, size_t len, const char *what, int cores)
{
    size_t u = (size_t)snprintf(buf, len, "%s(", what);
    for (int i = 0; i < cores && u < len; i++)
        u += (size_t)snprintf(buf + u, len - u, "%s%d", i ? "/" : "", i);
    if (u < len)
        snprintf(buf + u, len - u, ")");
}

/* The numbers a row shows (the rest of it is fixed at lowering). */
_Static_assert(NPU_MAX_CORES == 3, "row_key fills key[5..10] with three cores");

static inline void row_key(const npu_layer_t *l, int task, uint64_t key[12])
{
    key[0] = l->ddr_cycles;
    key[1] = l->npu_cycles;
    key[2] = l->total_cycles;
    memcpy(&key[3], &l->time_us, sizeof(double));
    memcpy(&key[4], &l->rw_kb, sizeof(double));
    for (int c = 0; c < NPU_MAX_CORES; c++) {
        memcpy(&key[5 + c], &l->mac_usage[c], sizeof(double));
        memcpy(&key[8 + c], &l->workload[c], sizeof(double));
    }
    key[11] = ((uint64_t)(task ? l->task_number : 0) << 8) | (uint64_t)(task ? 2 : 0) |
              (uint64_t)l->target;
}

/* Whether a row still prints as its cached text: at level 4 every run of a
 * small model asks this of each row, so no memcmp call per row. */
static inline int row_same(const npu_layer_t *l, int task, const uint64_t have[12])
{
    uint64_t key[12], diff = 0;
    row_key(l, task, key);
    for (int k = 0; k < 12; k++)
        diff |= key[k] ^ have[k];
    return !diff;
}

static void format_row(const npu_layer_t *l, int cores, int task, lbuf *b)
{
    char tmp[512];
    int npu = l->target == NPU_TGT_NPU;
    int64_t t_us = (int64_t)l->time_us;

    b->n = 0;
    b->s[0] = 0;
    snprintf(tmp, sizeof(tmp), "%d", l->id);
    col(b, tmp, 5);
    /* names come from the model: no control byte reaches the terminal (a
     * buffer, not esc_tmp: tables may print from several threads) */
    esc_buf(ESC_TERM, l->optype, tmp, sizeof(tmp));
    col(b, tmp, 19);
    col(b, l->datatype, 9);
    col(b, npu ? "NPU" : "CPU", 7);
    shapes_str(l->in, l->n_in < NPU_MAX_IO ? l->n_in : NPU_MAX_IO, l->n_in, 41, tmp,
               sizeof(tmp));
    col(b, tmp, 41);
    shapes_str(l->out, l->n_out < NPU_MAX_IO ? l->n_out : NPU_MAX_IO, l->n_out, 23, tmp,
               sizeof(tmp));
    col(b, tmp, 23);
    snprintf(tmp, sizeof(tmp), "%llu/%llu/%llu", (unsigned long long)l->ddr_cycles,
             (unsigned long long)l->npu_cycles, (unsigned long long)l->total_cycles);
    col(b, tmp, 25);
    snprintf(tmp, sizeof(tmp), "%lld", (long long)t_us);
    col(b, tmp, 13);
    tmp[0] = 0;
    if (npu && l->macs) {
        size_t u = 0;
        for (int c = 0; c < cores; c++)
            u += (size_t)snprintf(tmp + u, sizeof(tmp) - u, "%s%.2f", c ? "/" : "",
                                  l->mac_usage[c]);
    }
    col(b, tmp, 21);
    {
        size_t u = 0;
        for (int c = 0; c < cores; c++)
            u += (size_t)snprintf(tmp + u, sizeof(tmp) - u, "%s%.1f%%", c ? "/" : "",
                                  npu ? l->workload[c] : 0.0);
    }
    col(b, tmp, 21);
    if (task) {
        snprintf(tmp, sizeof(tmp), "%d", npu ? l->task_number : 0);
        col(b, tmp, 13);
    }
    snprintf(tmp, sizeof(tmp), "%lld", (long long)l->rw_kb);
    col(b, tmp, 13);
    /* FullName padded to 16 (e.g. "Concat:/Concat  ") */
    char name[512];
    esc_buf(ESC_TERM, l->fullname, name, sizeof(name));
    snprintf(tmp, sizeof(tmp), "%-16s", name);
    put(b, tmp);
}

static void build_perf_table(FILE *f, const npu_graph_t *ng, int flags, pout *out)
{
    const npu_platform_t *p = ng->plat;
    int cores = p->cores > NPU_MAX_CORES ? NPU_MAX_CORES : p->cores;
    int task = flags & NPU_PRINT_TASKNUMBER;
    int rule = 222 + (task ? 13 : 0);
    char tmp[512], wl[64];
    lbuf b;
    int64_t total_us = 0;
    double total_kb = 0;
    pout po;

    pout_init(&po, f, 0);
    ruler(&po, rule);
    b.n = 0;
    b.s[0] = 0;
    col(&b, "", 74);
    put(&b, "Network Layer Information Table");
    col(&b, "", 80);
    line_out(&po, b.s);
    ruler(&po, rule);

    b.n = 0;
    col(&b, "ID", 5);
    col(&b, "OpType", 19);
    col(&b, "DataType", 9);
    col(&b, "Target", 7);
    col(&b, "InputShape", 41);
    col(&b, "OutputShape", 23);
    col(&b, "Cycles(DDR/NPU/Total)", 25);
    col(&b, "Time(us)", 13);
    col(&b, "MacUsage(%)", 21);
    cores_header(wl, sizeof(wl), "WorkLoad", cores);
    col(&b, wl, 21);
    if (task)
        col(&b, "TaskNumber", 13);
    col(&b, "RW(KB)", 13);
    col(&b, "FullName", 16);
    line_out(&po, b.s);
    ruler(&po, rule);

    for (int i = 0; i < ng->n; i++) {
        const npu_layer_t *l = &ng->l[i];
        npu_row_cache_t *rc = ng->row_cache ? &ng->row_cache[i] : NULL;
        if (rc && rc->text && row_same(l, task, rc->key)) {
            line_n(&po, rc->text, rc->len);
        } else {
            format_row(l, cores, task, &b);
            line_n(&po, b.s, b.n);
            if (rc) {
                free(rc->text);
                rc->text = xmalloc(b.n + 1);
                memcpy(rc->text, b.s, b.n + 1);
                rc->len = b.n;
                row_key(l, task, rc->key);
            }
        }
        total_us += (int64_t)l->time_us;
        total_kb += l->rw_kb;
    }
    ruler(&po, rule);
    /* a log's own totals when the rows are its (an excerpt's rows add up to
     * less; its RW summed from unrounded values) */
    snprintf(tmp, sizeof(tmp), "Total Operator Elapsed Per Frame Time(us): %lld",
             ng->log_total_us > 0 ? (long long)ng->log_total_us : (long long)total_us);
    line_out(&po, tmp);
    snprintf(tmp, sizeof(tmp), "Total Memory Read/Write Per Frame Size(KB): %.2f",
             ng->log_rw_kb > 0 ? ng->log_rw_kb : total_kb);
    line_out(&po, tmp);
    ruler(&po, rule);

    /* per-OpType ranking */
    {
        struct agg { const char *op; int calls; int64_t cpu, npu; } *a;
        int na = 0;
        int64_t tc = 0, tn = 0;

        a = xcalloc((size_t)(ng->n > 0 ? ng->n : 1), sizeof(*a));
        for (int i = 0; i < ng->n; i++) {
            const npu_layer_t *l = &ng->l[i];
            int k;
            for (k = 0; k < na; k++)
                if (!strcmp(a[k].op, l->optype))
                    break;
            if (k == na)
                a[na++].op = l->optype;
            a[k].calls++;
            if (l->target == NPU_TGT_NPU)
                a[k].npu += (int64_t)l->time_us;
            else
                a[k].cpu += (int64_t)l->time_us;
        }
        /* stable sort by total time, descending (insertion sort keeps ties in order) */
        for (int i = 1; i < na; i++) {
            struct agg x = a[i];
            int j = i - 1;
            while (j >= 0 && a[j].cpu + a[j].npu < x.cpu + x.npu) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = x;
        }
        ruler(&po, 99);
        b.n = 0;
        col(&b, "", 33);
        put(&b, "Operator Time Consuming Ranking Table");
        col(&b, "", 12);
        line_out(&po, b.s);
        ruler(&po, 99);
        b.n = 0;
        col(&b, "OpType", 19);
        col(&b, "CallNumber", 13);
        col(&b, "CPUTime(us)", 13);
        col(&b, "GPUTime(us)", 13);
        col(&b, "NPUTime(us)", 13);
        col(&b, "TotalTime(us)", 15);
        col(&b, "TimeRatio(%)", 14);
        line_out(&po, b.s);
        ruler(&po, 99);
        for (int i = 0; i < na; i++) {
            int64_t tot = a[i].cpu + a[i].npu;
            b.n = 0;
            esc_buf(ESC_TERM, a[i].op, tmp, sizeof(tmp));
            col(&b, tmp, 19);
            snprintf(tmp, sizeof(tmp), "%d", a[i].calls);
            col(&b, tmp, 13);
            snprintf(tmp, sizeof(tmp), "%lld", (long long)a[i].cpu);
            col(&b, tmp, 13);
            col(&b, "0", 13);
            snprintf(tmp, sizeof(tmp), "%lld", (long long)a[i].npu);
            col(&b, tmp, 13);
            snprintf(tmp, sizeof(tmp), "%lld", (long long)tot);
            col(&b, tmp, 15);
            snprintf(tmp, sizeof(tmp), "%.2f%%", total_us > 0 ? 100.0 * (double)tot / (double)total_us : 0.0);
            col(&b, tmp, 14);
            line_out(&po, b.s);
            tc += a[i].cpu;
            tn += a[i].npu;
        }
        ruler(&po, 99);
        b.n = 0;
        col(&b, "Total", 32);
        snprintf(tmp, sizeof(tmp), "%lld", (long long)tc);
        col(&b, tmp, 13);
        col(&b, "0", 13);
        snprintf(tmp, sizeof(tmp), "%lld", (long long)tn);
        col(&b, tmp, 13);
        snprintf(tmp, sizeof(tmp), "%lld", (long long)(tc + tn));
        col(&b, tmp, 15);
        line_out(&po, b.s);
        ruler(&po, 99);
        free(a);
    }
    /* not in the vendor's table: why a layer of a hybrid model is float16 */
    for (int i = 0; i < ng->n; i++)
        if (ng->l[i].dtype_note) {
            char op[160];
            esc_buf(ESC_TERM, ng->l[i].optype, op, sizeof(op));
            snprintf(tmp, sizeof(tmp), "hybrid: layer %d %s runs in %s (%s)", ng->l[i].id, op,
                     npu_dtype_name(ng->l[i].dtype), ng->l[i].dtype_note);
            line_out(&po, tmp);
        }
    /* not in the vendor's table either: the frame model (npu_platform.c) is
     * fitted on int8 whole-model timings only */
    for (int i = 0; i < ng->n; i++)
        if (ng->l[i].target == NPU_TGT_NPU && ng->l[i].dtype != NPU_INT8) {
            snprintf(tmp, sizeof(tmp), "note: frame time of %s NPU layers is an estimate "
                     "(frame constants fitted on int8 timings only)",
                     npu_dtype_name(ng->l[i].dtype));
            line_out(&po, tmp);
            break;
        }
    *out = po;
}

/* Writes text (lines without prefix) with the prefix of flags before each
 * line, in one fwrite. With a cache entry the prefixed text is kept: the next
 * print of the same table only rewrites the timestamps, and only when they
 * changed. */
static void emit(FILE *f, int flags, const char *text, size_t len, npu_row_cache_t *tc)
{
    pout o;
    const char *s = text, *e = text + len;

    if (!(flags & NPU_PRINT_PREFIX)) {
        fwrite(text, 1, len, f);
        return;
    }
    if (tc && tc->ptext) {
        char pfx[sizeof tc->pfx];
        size_t n = log_prefix(pfx, sizeof pfx, flags);
        if (n == strlen(tc->pfx)) {
            if (memcmp(pfx, tc->pfx, n)) {
                for (char *l = tc->ptext, *end = tc->ptext + tc->plen; l && l < end;) {
                    memcpy(l, pfx, n);
                    l = memchr(l, '\n', (size_t)(end - l));
                    l = l ? l + 1 : NULL;
                }
                memcpy(tc->pfx, pfx, n + 1);
            }
            fwrite(tc->ptext, 1, tc->plen, f);
            return;
        }
    }
    pout_init(&o, f, flags);
    while (s < e) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        size_t l = nl ? (size_t)(nl - s) : (size_t)(e - s);
        line_n(&o, s, l);
        s += l + 1;
    }
    if (tc && o.n) {
        fwrite(o.buf, 1, o.n, f);
        free(tc->ptext);
        tc->ptext = o.buf;
        tc->plen = o.n;
        memcpy(tc->pfx, o.pfx, o.pfx_n + 1);
        return;
    }
    pout_flush(&o);
}

/* The whole table is kept (ng->row_cache[ng->n]) and printed again as it is
 * while no row's numbers changed: a level-4 run then pays one comparison per
 * layer and one write (bench/npu_overhead.sh). */
void npu_print_perf_table(FILE *f, const npu_graph_t *ng, int flags)
{
    npu_row_cache_t *tc = ng->row_cache ? &ng->row_cache[ng->n] : NULL;
    int task = flags & NPU_PRINT_TASKNUMBER;
    int valid = tc && tc->text && tc->key[0] == (uint64_t)task + 1;
    pout body;

    for (int i = 0; valid && i < ng->n; i++) {
        valid = ng->row_cache[i].text && row_same(&ng->l[i], task, ng->row_cache[i].key);
    }
    if (valid) {
        emit(f, flags, tc->text, tc->len, tc);
        return;
    }
    build_perf_table(f, ng, task, &body);
    if (tc) {
        free(tc->text);
        free(tc->ptext);
        tc->ptext = NULL;
        tc->text = body.buf;
        tc->len = body.n;
        tc->key[0] = (uint64_t)task + 1;
        emit(f, flags, tc->text, tc->len, tc);
    } else {
        emit(f, flags, body.buf, body.n, NULL);
        free(body.buf);
    }
}

/* ---- level-3 SRAM / Internal-memory table --------------------------------- */

/* Layout of sram-level3-mobilenetv1-rk3588-rkdoc-01 (log-formats.md §4): a box
 * ruled to the width of its one line; the left columns as wide as their
 * longest value or header plus one (ID at least 4: "ID  "), then
 * "| 0x%08x 0x%08x 0x%08x | " and SramHit as 0x%08x or "\" for tensors
 * outside the Internal buffer; a '*' replaces the space after Start on the row
 * whose End is the buffer's end (the one sample's only '*' sits there; the
 * vendor documents no meaning); footer ruled to 40. */
void npu_print_sram_table(FILE *f, const npu_graph_t *ng, int flags)
{
    const npu_mem_plan_t *mp = ng->mem;
    static const char *const hdr[] = {"ID", "User", "Tensor", "DataType", "OrigShape",
                                      "NativeShape"};
    int w[6], left = 0;
    char tmp[1024], cell[6][300];
    lbuf b;

    pout po;

    if (!mp)
        return;
    pout_init(&po, f, flags);
    if (mp->sram_size) {
        int n = snprintf(tmp, sizeof tmp, "Total allocated Internal SRAM Size: %u, Addr: [0x%08llx, 0x%08llx)",
                         mp->sram_size, (unsigned long long)mp->iova_internal,
                         (unsigned long long)(mp->iova_internal + mp->sram_size));
        ruler(&po, n);
        line_out(&po, tmp);
        ruler(&po, n);
    }
    for (int c = 0; c < 6; c++)
        w[c] = (int)strlen(hdr[c]) + 1;
    w[0] = 4;
    for (int i = 0; i < mp->n; i++) {
        const npu_mem_tensor_t *t = &mp->t[i];
        int len[6];
        len[0] = snprintf(cell[0], sizeof cell[0], "%d", i + 1);
        len[1] = snprintf(cell[1], sizeof cell[1], "%s", t->user);
        len[2] = snprintf(cell[2], sizeof cell[2], "%s", t->name);
        len[3] = snprintf(cell[3], sizeof cell[3], "%s", t->datatype);
        shape_str(&t->shape, cell[4], sizeof cell[4]);
        shape_str(&t->native, cell[5], sizeof cell[5]);
        len[4] = (int)strlen(cell[4]);
        len[5] = (int)strlen(cell[5]);
        for (int c = 0; c < 6; c++)
            if (len[c] + 1 > w[c])
                w[c] = len[c] + 1 > 120 ? 120 : len[c] + 1;
    }
    for (int c = 0; c < 6; c++)
        left += w[c];
    {
        char r[512];
        int n = left < 300 ? left : 300;
        memset(r, '-', (size_t)n);
        snprintf(r + n, sizeof r - (size_t)n, "+%.34s+%.11s",
                 "----------------------------------", "-----------");
        line_out(&po, r);
        b.n = 0;
        b.s[0] = 0;
        for (int c = 0; c < 6; c++)
            col(&b, hdr[c], w[c]);
        put(&b, "|     [Start       End)       Size |    SramHit");
        line_out(&po, b.s);
        line_out(&po, r);
        for (int i = 0; i < mp->n; i++) {
            const npu_mem_tensor_t *t = &mp->t[i];
            int star = t->internal && t->bytes && t->offset + t->bytes == mp->internal_size;
            b.n = 0;
            b.s[0] = 0;
            snprintf(tmp, sizeof tmp, "%d", i + 1);
            col(&b, tmp, w[0]);
            col(&b, t->user, w[1]);
            col(&b, t->name, w[2]);
            col(&b, t->datatype, w[3]);
            shape_str(&t->shape, tmp, sizeof tmp);
            col(&b, tmp, w[4]);
            shape_str(&t->native, tmp, sizeof tmp);
            col(&b, tmp, w[5]);
            snprintf(tmp, sizeof tmp, "| 0x%08llx%c0x%08llx 0x%08llx | ",
                     (unsigned long long)t->addr, star ? '*' : ' ',
                     (unsigned long long)(t->addr + t->bytes), (unsigned long long)t->bytes);
            put(&b, tmp);
            if (t->internal)
                snprintf(tmp, sizeof tmp, "0x%08llx", (unsigned long long)t->hit);
            else
                snprintf(tmp, sizeof tmp, "\\");
            put(&b, tmp);
            line_out(&po, b.s);
        }
        line_out(&po, r);
    }
    ruler(&po, 40);
    snprintf(tmp, sizeof tmp, "Total Weight Memory Size: %llu", (unsigned long long)mp->weight_size);
    line_out(&po, tmp);
    snprintf(tmp, sizeof tmp, "Total Internal Memory Size: %llu", (unsigned long long)mp->internal_size);
    line_out(&po, tmp);
    snprintf(tmp, sizeof tmp, "Predict Internal Memory RW Amount: %llu", (unsigned long long)mp->rw_internal);
    line_out(&po, tmp);
    snprintf(tmp, sizeof tmp, "Predict Weight Memory RW Amount: %llu", (unsigned long long)mp->rw_weight);
    line_out(&po, tmp);
    snprintf(tmp, sizeof tmp, "Predict SRAM Hit RW Amount: %llu", (unsigned long long)mp->rw_sram_hit);
    line_out(&po, tmp);
    ruler(&po, 40);
    pout_flush(&po);
}
