/* tracer/interpose.c — librknntrace.so, the LD_PRELOAD interposer over whatever
 * librknnrt.so an application loads (the vendor's or ours). Every rknn_* call of
 * include/rknn_api.h is forwarded unchanged through dlsym(RTLD_NEXT) and timed;
 * what it learns goes to a journal file ($RKNN_TRACE_JOURNAL) that
 * `rknn-trace attach` turns into runs. It never changes a result: arguments and
 * return values pass through untouched; with $RKNN_TRACE_PERF=N it adds
 * RKNN_FLAG_COLLECT_PERF_MASK at rknn_init and reads PERF_DETAIL/PERF_RUN after
 * every Nth run (slower runs, same outputs). Its own failures disable it with one
 * warning on stderr; the application goes on.
 *
 * Journal lines (tab-separated, one event each; text fields have tabs and
 * newlines replaced by spaces):
 *   I ctx flags size ret ns sha256 kind path     rknn_init (kind: rknn, onnx, sim, ?)
 *   N ctx n_input n_output                       RKNN_QUERY_IN_OUT_NUM
 *   A ctx in|out index type fmt n_elems size name dims(1x3x224x224)
 *   V ctx api_version drv_version                RKNN_QUERY_SDK_VERSION
 *   M ctx weight_bytes internal_bytes            RKNN_QUERY_MEM_SIZE
 *   S ctx ns ret                                 rknn_inputs_set
 *   R ctx seq ns ret t_ns                        rknn_run (t_ns: CLOCK_MONOTONIC when it ended)
 *   G ctx seq ns ret                             rknn_outputs_get
 * Times are integer nanoseconds: the hot lines are written without printf.
 *   P ctx seq run_duration_us nbytes             then nbytes of PERF_DETAIL text and "\n"
 *   W ctx text                                   an API misuse, once per kind and context
 *   U ctx from                                   rknn_dup_context: ctx shares from's model
 *   D ctx                                        rknn_destroy
 *   C 0 name calls ns                            every rknn_* function's calls and time so
 *                                                far (the last line of a name counts)
 *   L 0 simlib|vendor version                    the runtime forwarded to, once: simlib is
 *                                                this project's librknnrt.so (it exports
 *                                                rknn_trace_simulated_runtime), vendor any other
 * The journal is flushed every 0.5 s, at rknn_init/rknn_destroy, at exit and on
 * a crash signal the application does not handle itself; a process killed
 * outright (SIGKILL) leaves what it ran until the last periodic flush. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "rknn_api.h"
#include "rknn_custom_op.h"
#include "rknn_matmul_api.h"
#include "util/util.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_CTX 64
#define BUF_CAP (256 * 1024)
#define FLUSH_NS 500000000LL

enum { W_UNKNOWN_CTX, W_RUN_NO_INPUT, W_GET_NO_RUN, W_GET_HELD, W_N_INPUTS, W_N_OUTPUTS,
       W_INPUT_SIZE, W_KINDS };
#define MAX_IN 16

typedef struct tctx {
    rknn_context id;
    int live;
    int64_t n_in, n_out;        /* -1 until queried */
    int inputs_seen, run_seen, held;
    uint32_t in_elems[MAX_IN];  /* n_elems of each input as queried, 0 unknown */
    long long seq;
    unsigned warned;            /* W_* bits */
} tctx_t;

static struct {
    pthread_mutex_t mu;
    int ready, disabled, fd, perf_every;
    char *buf;
    size_t len;
    long long last_flush_ns;
    tctx_t ctx[MAX_CTX];
    tctx_t unknown;             /* warnings about contexts we never saw */
} T = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* Calls and time per function, for every rknn_* call the application makes
 * (lock-free counters; each links itself into the list on first use). Written
 * as C lines with each periodic flush and at exit: C 0 name calls ns. */
typedef struct fn_stat {
    const char *name;
    uint64_t calls, ns;
    struct fn_stat *next;
    int linked;
} fn_stat;
static fn_stat *stats_head;
static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;

static void stat_add(fn_stat *f, long long ns)
{
    if (!__atomic_load_n(&f->linked, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&stats_mu);
        if (!f->linked) {
            f->next = stats_head;
            __atomic_store_n(&stats_head, f, __ATOMIC_RELEASE);
            __atomic_store_n(&f->linked, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&stats_mu);
    }
    __atomic_fetch_add(&f->calls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&f->ns, (uint64_t)(ns > 0 ? ns : 0), __ATOMIC_RELAXED);
}

static long long now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Disables tracing with one warning (mu held). */
static void disable(const char *why)
{
    if (T.disabled)
        return;
    T.disabled = 1;
    fprintf(stderr, "rknn-trace: tracing disabled, the application goes on untraced: %s\n", why);
}

static void flush_locked(void)
{
    size_t off = 0;

    while (off < T.len && !T.disabled) {
        ssize_t w = write(T.fd, T.buf + off, T.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            disable(strerror(errno));
            break;
        }
        off += (size_t)w;
    }
    T.len = 0;
    T.last_flush_ns = now_ns();
}

static void emit_stats(void);

static void at_exit_flush(void)
{
    pthread_mutex_lock(&T.mu);
    if (T.ready && !T.disabled) {
        emit_stats();
        flush_locked();
    }
    pthread_mutex_unlock(&T.mu);
}

/* A crash (SIGSEGV, abort, ...) of an application that left these signals at
 * their default: what the buffer holds is written, then the signal does what it
 * would have. Skipped when the crash is inside our own locked section. */
static const int crash_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};

static void on_crash(int sig)
{
    if (pthread_mutex_trylock(&T.mu) == 0) {
        size_t off = 0;
        while (!T.disabled && off < T.len) {
            ssize_t w = write(T.fd, T.buf + off, T.len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        T.len = 0;
        pthread_mutex_unlock(&T.mu);
    }
    raise(sig); /* SA_RESETHAND: the default action now */
}

static void catch_crashes(void)
{
    for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; i++) {
        struct sigaction old, sa;
        if (sigaction(crash_signals[i], NULL, &old) || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_crash;
        sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER);
        sigemptyset(&sa.sa_mask);
        sigaction(crash_signals[i], &sa, NULL);
    }
}

/* A forked child: the parent's unwritten lines are the parent's to write. */
static void after_fork_child(void)
{
    pthread_mutex_init(&T.mu, NULL);
    T.len = 0;
}

/* First use (mu held): the journal from the environment; none means tracing is
 * off (forwarding only), which is not an error. */
static void setup_locked(void)
{
    const char *path = getenv("RKNN_TRACE_JOURNAL"), *perf = getenv("RKNN_TRACE_PERF");

    T.ready = 1;
    if (!path || !*path) {
        T.disabled = 1;
        return;
    }
    T.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (T.fd < 0) {
        char why[600];
        snprintf(why, sizeof why, "cannot open the journal %s: %s", path, strerror(errno));
        disable(why);
        return;
    }
    if (!(T.buf = malloc(BUF_CAP))) {
        disable("out of memory");
        return;
    }
    T.perf_every = perf ? atoi(perf) : 0;
    T.last_flush_ns = now_ns();
    atexit(at_exit_flush);
    pthread_atfork(NULL, NULL, after_fork_child);
    catch_crashes();
}

/* Appends one formatted line (mu held). */
static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    va_list ap;
    int n;

    if (T.disabled)
        return;
    if (T.len > BUF_CAP - 4096)
        flush_locked();
    va_start(ap, fmt);
    n = vsnprintf(T.buf + T.len, BUF_CAP - T.len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < BUF_CAP - T.len)
        T.len += (size_t)n;
}

/* The hot path: "T\tctx\tv0\tv1...\n" of integers, no printf (mu held). */
static char *put_u(char *p, unsigned long long v)
{
    char tmp[24];
    int n = 0;

    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static void emit_ints(char tag, rknn_context ctx, int n, const long long *v)
{
    if (T.disabled)
        return;
    if (T.len > BUF_CAP - 4096)
        flush_locked();
    char *p = T.buf + T.len;
    *p++ = tag;
    *p++ = '\t';
    p = put_u(p, (unsigned long long)ctx);
    for (int i = 0; i < n; i++) {
        *p++ = '\t';
        if (v[i] < 0) {
            *p++ = '-';
            p = put_u(p, 0ULL - (unsigned long long)v[i]);
        } else {
            p = put_u(p, (unsigned long long)v[i]);
        }
    }
    *p++ = '\n';
    T.len = (size_t)(p - T.buf);
}

/* Raw bytes (a perf table), tabs and all. */
static void emit_raw(const char *p, size_t n)
{
    if (T.disabled)
        return;
    if (T.len + n + 1 > BUF_CAP)
        flush_locked();
    if (n + 1 > BUF_CAP) {
        /* larger than the buffer: straight to the file */
        T.len = 0;
        if (write(T.fd, p, n) != (ssize_t)n)
            disable("cannot write the journal");
        emit("\n");
        return;
    }
    memcpy(T.buf + T.len, p, n);
    T.len += n;
    T.buf[T.len++] = '\n';
}

static void emit_stats(void)
{
    for (fn_stat *f = __atomic_load_n(&stats_head, __ATOMIC_ACQUIRE); f; f = f->next)
        emit("C\t0\t%s\t%llu\t%llu\n", f->name,
             (unsigned long long)__atomic_load_n(&f->calls, __ATOMIC_RELAXED),
             (unsigned long long)__atomic_load_n(&f->ns, __ATOMIC_RELAXED));
}

static void maybe_flush(long long t)
{
    if (!T.disabled && t - T.last_flush_ns >= FLUSH_NS) {
        emit_stats();
        flush_locked();
    }
}

/* Copies text for one journal field: no tab, no newline, at most len-1 bytes. */
static const char *field(char *dst, size_t len, const char *src)
{
    size_t i = 0;

    for (; src && src[i] && i + 1 < len; i++)
        dst[i] = src[i] == '\t' || src[i] == '\n' || src[i] == '\r' ? ' ' : src[i];
    dst[i] = '\0';
    return i ? dst : "-";
}

static tctx_t *find(rknn_context id)
{
    for (int i = 0; i < MAX_CTX; i++)
        if (T.ctx[i].live && T.ctx[i].id == id)
            return &T.ctx[i];
    return NULL;
}

static void warn(tctx_t *c, rknn_context id, int kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void warn(tctx_t *c, rknn_context id, int kind, const char *fmt, ...)
{
    char text[512], clean[512];
    va_list ap;

    if (!c)
        c = &T.unknown;
    if (c->warned & (1u << kind))
        return;
    c->warned |= 1u << kind;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    emit("W\t%llu\t%s\n", (unsigned long long)id, field(clean, sizeof clean, text));
}

/* Takes the lock and makes sure the journal is set up; 0 when tracing is off. */
static int enter(void)
{
    pthread_mutex_lock(&T.mu);
    if (!T.ready)
        setup_locked();
    if (T.disabled) {
        pthread_mutex_unlock(&T.mu);
        return 0;
    }
    return 1;
}

static void leave(void)
{
    pthread_mutex_unlock(&T.mu);
}

/* The next librknnrt.so's function; warns once when it has none. */
static void *next_sym(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (!f)
        fprintf(stderr, "rknn-trace: the runtime has no %s (an older version?): the call fails\n", name);
    return f;
}

/* the next library's function, resolved once */
#define REAL_ONLY(ret_t, name, params)                                 \
    static ret_t(*real_##name) params;                                 \
    if (!real_##name)                                                  \
        *(void **)&real_##name = next_sym(#name);
/* and its counter */
#define REAL(ret_t, name, params)                                      \
    static fn_stat stat_##name = {#name, 0, 0, NULL, 0};               \
    REAL_ONLY(ret_t, name, params)

static const char *model_kind(const void *data, size_t n)
{
    const unsigned char *p = data;

    if (n >= 4 && !memcmp(p, "RKNN", 4))
        return "rknn";
    if (n >= 8 && !memcmp(p, "RKTRSIM", 7))
        return "sim";
    if (n >= 2 && p[0] == 0x08)
        return "onnx";
    return "?";
}

/* A vendor .rknn given as bytes: a copy for attach to read its facts from
 * ($RKNN_TRACE_MODEL_DIR/<sha256>.rknn, once). */
static void save_model(const void *data, size_t n, const char *sha, const char *kind)
{
    const char *dir = getenv("RKNN_TRACE_MODEL_DIR");
    char path[1024];
    int fd;

    if (!dir || !*dir || strcmp(kind, "rknn") ||
        snprintf(path, sizeof path, "%s/%s.rknn", dir, sha) >= (int)sizeof path)
        return;
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
        return;
    if (write(fd, data, n) != (ssize_t)n)
        unlink(path);
    close(fd);
}

EXPORT int rknn_init(rknn_context *context, void *model, uint32_t size, uint32_t flag,
                     rknn_init_extend *extend)
{
    REAL(int, rknn_init, (rknn_context *, void *, uint32_t, uint32_t, rknn_init_extend *))
    if (!real_rknn_init)
        return RKNN_ERR_FAIL;
    int tracing = enter();
    uint32_t f = flag;
    if (tracing && T.perf_every > 0)
        f |= RKNN_FLAG_COLLECT_PERF_MASK;
    if (tracing)
        leave();
    long long t0 = now_ns();
    int ret = real_rknn_init(context, model, size, f, extend);
    long long t1 = now_ns();
    stat_add(&stat_rknn_init, t1 - t0);
    if (!enter())
        return ret;
    char sha[65] = "-", path[512] = "-";
    const char *kind = "?";
    if (model && size > 0) {
        rt_sha256_hex(model, size, sha);
        kind = model_kind(model, size);
        save_model(model, size, sha, kind);
    } else if (model) {
        /* size 0: model is a path (vendor API) */
        void *data = NULL;
        size_t n = 0;
        char err[64];
        field(path, sizeof path, model);
        if (rt_read_file(model, &data, &n, err, sizeof err) == 0) {
            rt_sha256_hex(data, n, sha);
            kind = model_kind(data, n);
            free(data);
        }
    }
    rknn_context id = ret == RKNN_SUCC && context ? *context : 0;
    static int told;
    if (!told) {
        /* a data symbol looked up, never called: the runtime is left untouched */
        const char *sim = dlsym(RTLD_NEXT, "rknn_trace_simulated_runtime");
        char v[128];
        told = 1;
        emit("L\t0\t%s\t%s\n", sim ? "simlib" : "vendor", field(v, sizeof v, sim));
    }
    emit("I\t%llu\t%u\t%u\t%d\t%lld\t%s\t%s\t%s\n", (unsigned long long)id, flag, size, ret,
         t1 - t0, sha, kind, path);
    if (ret == RKNN_SUCC && context) {
        tctx_t *c = NULL;
        for (int i = 0; i < MAX_CTX && !c; i++)
            if (!T.ctx[i].live)
                c = &T.ctx[i];
        if (c)
            *c = (tctx_t){.id = id, .live = 1, .n_in = -1, .n_out = -1};
    }
    flush_locked();
    leave();
    return ret;
}

EXPORT int rknn_dup_context(rknn_context *context_in, rknn_context *context_out)
{
    REAL(int, rknn_dup_context, (rknn_context *, rknn_context *))
    if (!real_rknn_dup_context)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_dup_context(context_in, context_out);
    stat_add(&stat_rknn_dup_context, now_ns() - t0);
    if (ret == RKNN_SUCC && context_out && enter()) {
        tctx_t *src = context_in ? find(*context_in) : NULL, *c = NULL;
        for (int i = 0; i < MAX_CTX && !c; i++)
            if (!T.ctx[i].live)
                c = &T.ctx[i];
        if (c) {
            *c = (tctx_t){.id = *context_out, .live = 1, .n_in = src ? src->n_in : -1,
                          .n_out = src ? src->n_out : -1};
            emit("U\t%llu\t%llu\n", (unsigned long long)*context_out,
                 (unsigned long long)(context_in ? *context_in : 0));
        }
        leave();
    }
    return ret;
}

EXPORT int rknn_destroy(rknn_context context)
{
    REAL(int, rknn_destroy, (rknn_context))
    if (!real_rknn_destroy)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_destroy(context);
    stat_add(&stat_rknn_destroy, now_ns() - t0);
    if (enter()) {
        tctx_t *c = find(context);
        if (!c)
            warn(NULL, context, W_UNKNOWN_CTX, "rknn_destroy of a context rknn_init did not return "
                 "(or one destroyed already)");
        else
            c->live = 0;
        emit("D\t%llu\n", (unsigned long long)context);
        flush_locked();
        leave();
    }
    return ret;
}

static void dims_text(char *out, size_t len, const rknn_tensor_attr *a)
{
    size_t u = 0;

    out[0] = '\0';
    for (uint32_t d = 0; d < a->n_dims && d < RKNN_MAX_DIMS && u < len; d++)
        u += (size_t)snprintf(out + u, len - u, "%s%u", d ? "x" : "", a->dims[d]);
    if (!out[0])
        snprintf(out, len, "-");
}

EXPORT int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size)
{
    REAL(int, rknn_query, (rknn_context, rknn_query_cmd, void *, uint32_t))
    if (!real_rknn_query)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_query(context, cmd, info, size);
    stat_add(&stat_rknn_query, now_ns() - t0);
    if (ret != RKNN_SUCC || !info || !enter())
        return ret;
    tctx_t *c = find(context);
    unsigned long long id = (unsigned long long)context;
    char a1[256], a2[256], dims[128];
    if (cmd == RKNN_QUERY_IN_OUT_NUM && size >= sizeof(rknn_input_output_num)) {
        const rknn_input_output_num *n = info;
        emit("N\t%llu\t%u\t%u\n", id, n->n_input, n->n_output);
        if (c) {
            c->n_in = n->n_input;
            c->n_out = n->n_output;
        }
    } else if ((cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_OUTPUT_ATTR) &&
               size >= sizeof(rknn_tensor_attr)) {
        const rknn_tensor_attr *a = info;
        char name[RKNN_MAX_NAME_LEN + 1];
        memcpy(name, a->name, RKNN_MAX_NAME_LEN);
        name[RKNN_MAX_NAME_LEN] = '\0';
        dims_text(dims, sizeof dims, a);
        if (c && cmd == RKNN_QUERY_INPUT_ATTR && a->index < MAX_IN)
            c->in_elems[a->index] = a->n_elems;
        emit("A\t%llu\t%s\t%u\t%d\t%d\t%u\t%u\t%s\t%s\n", id, cmd == RKNN_QUERY_INPUT_ATTR ? "in" : "out",
             a->index, (int)a->type, (int)a->fmt, a->n_elems, a->size, field(a1, sizeof a1, name), dims);
    } else if (cmd == RKNN_QUERY_SDK_VERSION && size >= sizeof(rknn_sdk_version)) {
        const rknn_sdk_version *v = info;
        char api[257], drv[257];
        memcpy(api, v->api_version, 256);
        memcpy(drv, v->drv_version, 256);
        api[256] = drv[256] = '\0';
        emit("V\t%llu\t%s\t%s\n", id, field(a1, sizeof a1, api), field(a2, sizeof a2, drv));
    } else if (cmd == RKNN_QUERY_MEM_SIZE && size >= sizeof(rknn_mem_size)) {
        const rknn_mem_size *m = info;
        emit("M\t%llu\t%u\t%u\n", id, m->total_weight_size, m->total_internal_size);
    }
    leave();
    return ret;
}

EXPORT int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[])
{
    REAL(int, rknn_inputs_set, (rknn_context, uint32_t, rknn_input *))
    if (!real_rknn_inputs_set)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_inputs_set(context, n_inputs, inputs);
    long long t1 = now_ns();
    stat_add(&stat_rknn_inputs_set, t1 - t0);
    if (!enter())
        return ret;
    tctx_t *c = find(context);
    if (!c)
        warn(NULL, context, W_UNKNOWN_CTX, "rknn_inputs_set on a context rknn_init did not return");
    else {
        c->inputs_seen = 1;
        if (c->n_in >= 0 && n_inputs != c->n_in)
            warn(c, context, W_N_INPUTS, "rknn_inputs_set with %u inputs, the model has %lld",
                 n_inputs, (long long)c->n_in);
        /* a converted input's size is its element count times its type's size; the
         * array is read only after the runtime took it */
        for (uint32_t k = 0; ret == RKNN_SUCC && inputs && k < n_inputs && k < MAX_IN; k++) {
            const rknn_input *in = &inputs[k];
            static const uint8_t tsize[] = {4, 2, 1, 1, 2, 2, 4, 4, 8, 1, 0, 2};
            if (in->pass_through || in->index >= MAX_IN || !c->in_elems[in->index] ||
                (unsigned)in->type >= sizeof tsize || !tsize[in->type])
                continue;
            uint64_t want = (uint64_t)c->in_elems[in->index] * tsize[in->type];
            if (in->size != want)
                warn(c, context, W_INPUT_SIZE, "rknn_inputs_set: input %u has size %u, its %u "
                     "elements of type %d take %llu bytes", in->index, in->size,
                     c->in_elems[in->index], (int)in->type, (unsigned long long)want);
        }
    }
    emit_ints('S', context, 2, (long long[]){t1 - t0, ret});
    maybe_flush(t1);
    leave();
    return ret;
}

/* After every Nth run: the runtime's own per-layer table and run time. */
static void fetch_perf(rknn_context context, long long seq)
{
    REAL_ONLY(int, rknn_query, (rknn_context, rknn_query_cmd, void *, uint32_t))
    rknn_perf_detail pd = {0};
    rknn_perf_run pr = {0};

    if (!real_rknn_query)
        return;
    if (real_rknn_query(context, RKNN_QUERY_PERF_RUN, &pr, sizeof pr) != RKNN_SUCC)
        pr.run_duration = -1;
    if (real_rknn_query(context, RKNN_QUERY_PERF_DETAIL, &pd, sizeof pd) != RKNN_SUCC || !pd.perf_data)
        return;
    size_t n = strnlen(pd.perf_data, pd.data_len ? (size_t)pd.data_len : (size_t)64 << 20);
    emit("P\t%llu\t%lld\t%lld\t%zu\n", (unsigned long long)context, seq, (long long)pr.run_duration, n);
    emit_raw(pd.perf_data, n);
}

EXPORT int rknn_run(rknn_context context, rknn_run_extend *extend)
{
    REAL(int, rknn_run, (rknn_context, rknn_run_extend *))
    if (!real_rknn_run)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_run(context, extend);
    long long t1 = now_ns();
    stat_add(&stat_rknn_run, t1 - t0);
    if (!enter())
        return ret;
    tctx_t *c = find(context);
    long long seq = 0;
    if (!c)
        warn(NULL, context, W_UNKNOWN_CTX, "rknn_run on a context rknn_init did not return");
    else {
        if (!c->inputs_seen)
            warn(c, context, W_RUN_NO_INPUT, "rknn_run before any rknn_inputs_set or rknn_set_io_mem");
        c->run_seen = 1;
        seq = ++c->seq;
    }
    emit_ints('R', context, 4, (long long[]){seq, t1 - t0, ret, t1});
    if (c && ret == RKNN_SUCC && T.perf_every > 0 && seq % T.perf_every == 0)
        fetch_perf(context, seq);
    maybe_flush(t1);
    leave();
    return ret;
}

EXPORT int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
                            rknn_output_extend *extend)
{
    REAL(int, rknn_outputs_get, (rknn_context, uint32_t, rknn_output *, rknn_output_extend *))
    if (!real_rknn_outputs_get)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_outputs_get(context, n_outputs, outputs, extend);
    long long t1 = now_ns();
    stat_add(&stat_rknn_outputs_get, t1 - t0);
    if (!enter())
        return ret;
    tctx_t *c = find(context);
    if (!c)
        warn(NULL, context, W_UNKNOWN_CTX, "rknn_outputs_get on a context rknn_init did not return");
    else {
        if (!c->run_seen)
            warn(c, context, W_GET_NO_RUN, "rknn_outputs_get before any rknn_run");
        if (c->held)
            warn(c, context, W_GET_HELD, "rknn_outputs_get again before rknn_outputs_release of the "
                 "last outputs (their buffers leak)");
        if (c->n_out >= 0 && n_outputs != c->n_out)
            warn(c, context, W_N_OUTPUTS, "rknn_outputs_get of %u outputs, the model has %lld",
                 n_outputs, (long long)c->n_out);
        if (ret == RKNN_SUCC)
            c->held = 1;
    }
    emit_ints('G', context, 3, (long long[]){c ? c->seq : 0, t1 - t0, ret});
    maybe_flush(t1);
    leave();
    return ret;
}

EXPORT int rknn_outputs_release(rknn_context context, uint32_t n_ouputs, rknn_output outputs[])
{
    REAL(int, rknn_outputs_release, (rknn_context, uint32_t, rknn_output *))
    if (!real_rknn_outputs_release)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_outputs_release(context, n_ouputs, outputs);
    stat_add(&stat_rknn_outputs_release, now_ns() - t0);
    if (enter()) {
        tctx_t *c = find(context);
        if (c)
            c->held = 0;
        leave();
    }
    return ret;
}

EXPORT int rknn_set_io_mem(rknn_context ctx, rknn_tensor_mem *mem, rknn_tensor_attr *attr)
{
    REAL(int, rknn_set_io_mem, (rknn_context, rknn_tensor_mem *, rknn_tensor_attr *))
    if (!real_rknn_set_io_mem)
        return RKNN_ERR_FAIL;
    long long t0 = now_ns();
    int ret = real_rknn_set_io_mem(ctx, mem, attr);
    stat_add(&stat_rknn_set_io_mem, now_ns() - t0);
    if (enter()) {
        tctx_t *c = find(ctx);
        if (c)
            c->inputs_seen = 1; /* zero-copy: inputs bound once */
        leave();
    }
    return ret;
}

/* ---- forwarded unchanged (zero-copy memory, core and shape settings) ---- */
#define FORWARD(ret_t, fail, name, params, args)                        \
    EXPORT ret_t name params                                            \
    {                                                                   \
        REAL(ret_t, name, params)                                       \
        if (!real_##name)                                               \
            return fail;                                                \
        long long t0 = now_ns();                                        \
        ret_t ret = real_##name args;                                   \
        stat_add(&stat_##name, now_ns() - t0);                          \
        return ret;                                                     \
    }

FORWARD(int, RKNN_ERR_FAIL, rknn_set_batch_core_num, (rknn_context context, int core_num),
        (context, core_num))
FORWARD(int, RKNN_ERR_FAIL, rknn_set_core_mask, (rknn_context context, rknn_core_mask core_mask),
        (context, core_mask))
FORWARD(int, RKNN_ERR_FAIL, rknn_wait, (rknn_context context, rknn_run_extend *extend),
        (context, extend))
FORWARD(rknn_tensor_mem *, NULL, rknn_create_mem_from_phys,
        (rknn_context ctx, uint64_t phys_addr, void *virt_addr, uint32_t size),
        (ctx, phys_addr, virt_addr, size))
FORWARD(rknn_tensor_mem *, NULL, rknn_create_mem_from_fd,
        (rknn_context ctx, int32_t fd, void *virt_addr, uint32_t size, int32_t offset),
        (ctx, fd, virt_addr, size, offset))
FORWARD(rknn_tensor_mem *, NULL, rknn_create_mem_from_mb_blk,
        (rknn_context ctx, void *mb_blk, int32_t offset), (ctx, mb_blk, offset))
FORWARD(rknn_tensor_mem *, NULL, rknn_create_mem, (rknn_context ctx, uint32_t size), (ctx, size))
FORWARD(rknn_tensor_mem *, NULL, rknn_create_mem2,
        (rknn_context ctx, uint64_t size, uint64_t alloc_flags), (ctx, size, alloc_flags))
FORWARD(int, RKNN_ERR_FAIL, rknn_destroy_mem, (rknn_context ctx, rknn_tensor_mem *mem), (ctx, mem))
FORWARD(int, RKNN_ERR_FAIL, rknn_set_weight_mem, (rknn_context ctx, rknn_tensor_mem *mem), (ctx, mem))
FORWARD(int, RKNN_ERR_FAIL, rknn_set_internal_mem, (rknn_context ctx, rknn_tensor_mem *mem), (ctx, mem))
FORWARD(int, RKNN_ERR_FAIL, rknn_set_input_shape, (rknn_context ctx, rknn_tensor_attr *attr), (ctx, attr))
FORWARD(int, RKNN_ERR_FAIL, rknn_set_input_shapes,
        (rknn_context ctx, uint32_t n_inputs, rknn_tensor_attr attr[]), (ctx, n_inputs, attr))
FORWARD(int, RKNN_ERR_FAIL, rknn_mem_sync,
        (rknn_context context, rknn_tensor_mem *mem, rknn_mem_sync_mode mode), (context, mem, mode))

/* ---- the matmul and custom-op APIs (rknn_matmul_api.h, rknn_custom_op.h):
 * forwarded and counted; a runtime without them answers RKNN_ERR_FAIL ---- */
/* A matmul context opens the journal as rknn_init does, so that an app of the
 * matmul API alone still leaves its call counts (written at exit). */
static void journal_ready(void)
{
    if (enter())
        leave();
}

#define FORWARD_OPENING(ret_t, fail, name, params, args)                \
    EXPORT ret_t name params                                            \
    {                                                                   \
        journal_ready();                                                \
        REAL(ret_t, name, params)                                       \
        if (!real_##name)                                               \
            return fail;                                                \
        long long t0 = now_ns();                                        \
        ret_t ret = real_##name args;                                   \
        stat_add(&stat_##name, now_ns() - t0);                          \
        return ret;                                                     \
    }

FORWARD_OPENING(int, RKNN_ERR_FAIL, rknn_matmul_create,
                (rknn_matmul_ctx *ctx, rknn_matmul_info *info, rknn_matmul_io_attr *io_attr),
                (ctx, info, io_attr))
FORWARD_OPENING(int, RKNN_ERR_FAIL, rknn_matmul_create_dynamic_shape,
                (rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                 rknn_matmul_shape dynamic_shapes[], rknn_matmul_io_attr io_attrs[]),
                (ctx, info, shape_num, dynamic_shapes, io_attrs))
FORWARD(int, RKNN_ERR_FAIL, rknn_matmul_set_io_mem,
        (rknn_matmul_ctx ctx, rknn_tensor_mem *mem, rknn_matmul_tensor_attr *attr), (ctx, mem, attr))
FORWARD(int, RKNN_ERR_FAIL, rknn_matmul_set_core_mask,
        (rknn_matmul_ctx context, rknn_core_mask core_mask), (context, core_mask))
FORWARD(int, RKNN_ERR_FAIL, rknn_matmul_set_quant_params,
        (rknn_matmul_ctx context, rknn_quant_params *params), (context, params))
FORWARD(int, RKNN_ERR_FAIL, rknn_matmul_get_quant_params,
        (rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale), (ctx, params, scale))
FORWARD(int, RKNN_ERR_FAIL, rknn_matmul_set_dynamic_shape,
        (rknn_matmul_ctx ctx, rknn_matmul_shape *shape), (ctx, shape))
FORWARD(int, RKNN_ERR_FAIL, rknn_matmul_run, (rknn_matmul_ctx ctx), (ctx))
FORWARD(int, RKNN_ERR_FAIL, rknn_matmul_destroy, (rknn_matmul_ctx ctx), (ctx))
FORWARD(int, RKNN_ERR_FAIL, rknn_B_normal_layout_to_native_layout,
        (void *B_input, void *B_output, int K, int N, rknn_matmul_info *info),
        (B_input, B_output, K, N, info))
FORWARD(int, RKNN_ERR_FAIL, rknn_register_custom_ops,
        (rknn_context ctx, rknn_custom_op *op, uint32_t custom_op_num), (ctx, op, custom_op_num))

EXPORT void rknn_custom_op_get_op_attr(rknn_custom_op_context *op_ctx, const char *attr_name,
                                       rknn_custom_op_attr *op_attr)
{
    REAL_ONLY(void, rknn_custom_op_get_op_attr,
              (rknn_custom_op_context *, const char *, rknn_custom_op_attr *))
    if (real_rknn_custom_op_get_op_attr)
        real_rknn_custom_op_get_op_attr(op_ctx, attr_name, op_attr);
}
