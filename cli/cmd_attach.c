/* cli/cmd_attach.c — `rknn-trace attach [options] -- APP ARGS...`: runs an
 * unmodified application with librknntrace.so preloaded (tracer/interpose.c),
 * samples the NPU load while it runs, then stores one run per RKNN context of
 * the interposer's journal (its rows: record/source_attach.c). The
 * application's exit status is attach's. */
#include "cli/cli.h"
#include "cli/opt.h"
#include "record/load_sampler.h"
#include "record/rows.h"
#include "record/source_attach.h"
#include "record/store_run.h"
#include "record/timing.h"
#include "analyze/store.h"
#include "tracer/board.h"
#include "tracer/journal.h"
#include "util/escape.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOG_CAP (64u << 20)

typedef struct attach_opts {
    const char *db, *label, *root;
    long long perf;
    int no_db;
} attach_opts;

/* --perf N: N from 1 */
static int parse_perf(const char *opt, const char *v, void *target)
{
    long long n = cli_parse_count(v);
    if (n < 1 || n > 1000000) {
        cli_error("attach: --perf wants a count from 1, not '%s'", v);
        return -1;
    }
    *(long long *)target = n;
    return 0;
}

#define CLI_OPTS_T attach_opts
static const cli_opt attach_options[] = {
    CLI_OPT_CALL("--perf", 0, "N", perf, parse_perf,
                 "set RKNN_FLAG_COLLECT_PERF_MASK at rknn_init and read the per-layer\n"
                 "table (RKNN_QUERY_PERF_DETAIL) after every Nth run: layer rows\n"
                 "(perf collection slows the NPU; results are unchanged)"),
    CLI_OPT_STR("--label", 0, "TEXT", label, "the run's label (TEXT-2, TEXT-3 ... for further contexts)"),
    CLI_OPT_STR("--root", 0, "DIR", root, "read the board's /sys and /proc under DIR (default /)"),
    CLI_OPT_STR("--db", 0, "PATH", db,
                "database (default $RKNN_TRACE_DB, else ./rknn-trace.db); --no-db: none"),
    CLI_OPT_FLAG("--no-db", 0, no_db, NULL), /* named on --db's line */
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_attach = {
    "attach",
    "usage: rknn-trace attach [--db PATH] [--perf N] [--label TEXT] [--root DIR] [--no-db] -- APP [ARGS...]\n"
    "Runs APP unchanged with librknntrace.so preloaded: every rknn_* call goes to the\n"
    "runtime APP loads (the vendor's librknnrt.so, or this project's) and is timed. One\n"
    "run is stored per RKNN context: init facts (model SHA-256, flags), query results,\n"
    "the times of rknn_inputs_set, rknn_run and rknn_outputs_get, API misuse warnings,\n"
    "and the NPU load sampled meanwhile. With RKNN_LOG_LEVEL set, the runtime's log\n"
    "lines are captured too (APP's output still reaches the terminal).\n",
    attach_options,
    "Exit status: APP's (128+N when a signal N ended it); 4 when recording failed.\n"};

/* Where APP starts: after "--", else at the first word that is neither an
 * option nor an option's value (argc when there is none). */
static int app_index(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            return i;
        if (a[0] != '-')
            return i;
        for (const cli_opt *o = attach_options; o->name; o++)
            if (!strcmp(a, o->name) && o->kind != CLI_FLAG) /* "--db PATH": skip PATH */
                i++;
    }
    return argc;
}

/* The options before APP into o: APP's argv (NULL-ended), or NULL with *ex
 * the exit status (EXIT_OK after --help). */
static char **parse_attach(int argc, char **argv, attach_opts *o, int *ex)
{
    int at = app_index(argc, argv);
    char **app = at < argc ? &argv[at + !strcmp(argv[at], "--")] : NULL;

    memset(o, 0, sizeof(*o));
    o->root = "/";
    int n = cli_parse(&cli_spec_attach, at, argv, o);
    *ex = EXIT_USAGE;
    if (n == CLI_PARSE_HELP)
        *ex = EXIT_OK;
    if (n < 0)
        return NULL;
    if (n > 0) { /* "-" alone: not an application */
        *ex = cli_unknown_option("attach", argv[1]);
        return NULL;
    }
    if (!app || !app[0]) {
        cli_help(&cli_spec_attach, stderr);
        return NULL;
    }
    return app;
}

/* Removes the private folder and the files in it. */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[PATH_MAX + 300];

    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p)
            unlink(p);
    if (d)
        closedir(d);
    rmdir(dir);
}

/* ---- the application ---- */

/* librknntrace.so next to this program (build layout) or in ../lib/rknn-trace. */
static int find_preload(char *out, size_t len)
{
    const char *env = getenv("RKNN_TRACE_PRELOAD");
    char self[PATH_MAX];
    ssize_t n;

    if (env && *env) {
        snprintf(out, len, "%s", env);
        return access(out, R_OK) == 0;
    }
    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        return 0;
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    if (snprintf(out, len, "%s/librknntrace.so", self) < (int)len && access(out, R_OK) == 0)
        return 1;
    return snprintf(out, len, "%s/../lib/rknn-trace/librknntrace.so", self) < (int)len &&
           access(out, R_OK) == 0;
}

/* Copies the child's output through and keeps the runtime's log lines. */
static void pump(int out_fd, int err_fd, char **log, size_t *log_len)
{
    struct pollfd p[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    char buf[65536];
    int open_n = 2;

    while (open_n > 0) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(p[i].fd, buf, sizeof buf);
            if (r <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                open_n--;
                continue;
            }
            FILE *to = i ? stderr : stdout;
            fwrite(buf, 1, (size_t)r, to);
            fflush(to);
            if (*log_len + (size_t)r <= LOG_CAP) {
                *log = xrealloc(*log, *log_len + (size_t)r + 1);
                memcpy(*log + *log_len, buf, (size_t)r);
                *log_len += (size_t)r;
                (*log)[*log_len] = '\0';
            }
        }
    }
}

/* A private folder for the journal and the .rknn files the interposer copies:
 * 0, or EXIT_INTERNAL after saying why. */
static int make_journal(char *jdir, size_t dlen, char *jpath, size_t plen, int *jfd)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(jdir, dlen, "%s/rknn-trace-attach-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(jdir)) {
        cli_error("attach: cannot create a folder in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return EXIT_INTERNAL;
    }
    snprintf(jpath, plen, "%s/journal", jdir);
    if ((*jfd = open(jpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        cli_error("attach: cannot create %s: %s", jpath, strerror(errno));
        rmdir(jdir);
        return EXIT_INTERNAL;
    }
    return 0;
}

/* One attached application: what it is given, and what it left. */
typedef struct attach_app {
    char **argv;
    const char *preload, *jpath, *jdir;
    long long perf;
    int jfd, capture;          /* capture: keep its output (RKNN_LOG_LEVEL set) */
    char *log;                 /* its output, when captured */
    size_t log_len;
    int status, sig;           /* its exit status, or the signal that ended it */
} attach_app;

/* In the child: the environment the interposer reads, then APP. */
static void exec_app(const attach_app *a, const struct sigaction *old_int,
                     const struct sigaction *old_quit, const int po[2], const int pe[2])
{
    char pre[PATH_MAX * 2], perf_s[32];
    const char *old = getenv("LD_PRELOAD");

    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGQUIT, old_quit, NULL);
    snprintf(pre, sizeof pre, "%s%s%s", a->preload, old && *old ? ":" : "", old && *old ? old : "");
    snprintf(perf_s, sizeof perf_s, "%lld", a->perf);
    setenv("LD_PRELOAD", pre, 1);
    setenv("RKNN_TRACE_JOURNAL", a->jpath, 1);
    setenv("RKNN_TRACE_MODEL_DIR", a->jdir, 1);
    if (a->perf)
        setenv("RKNN_TRACE_PERF", perf_s, 1);
    else
        unsetenv("RKNN_TRACE_PERF");
    if (a->capture) {
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
    }
    close(a->jfd);
    execvp(a->argv[0], a->argv);
    fprintf(stderr, "rknn-trace: attach: cannot run %s: %s\n", a->argv[0], strerror(errno));
    _exit(127);
}

/* Runs APP to its end while smp samples the NPU load under root: 0, or -1
 * after saying why it could not be started. */
static int run_app(attach_app *a, load_sampler *smp, const char *root)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1};

    if (a->capture && (pipe(po) || pipe(pe))) {
        cli_error("attach: pipe: %s", strerror(errno));
        return -1;
    }
    load_sampler_start(smp, root);
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int); /* ^C is the application's; we still record */
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0)
        exec_app(a, &old_int, &old_quit, po, pe);
    if (pid < 0) {
        cli_error("attach: fork: %s", strerror(errno));
        load_sampler_stop(smp);
        return -1;
    }
    if (a->capture) {
        close(po[1]);
        close(pe[1]);
        pump(po[0], pe[0], &a->log, &a->log_len);
    }
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    load_sampler_stop(smp);
    if (WIFSIGNALED(wst))
        a->sig = WTERMSIG(wst);
    else
        a->status = WEXITSTATUS(wst);
    return 0;
}

/* A journal without an rknn_init context: its rknn_* calls (matmul and
 * custom-op calls are counted, not runs), or that there were none. */
static void print_no_context(const trace_journal *j, const char *app)
{
    long long calls = 0;

    for (int i = 0; i < j->n_fn; i++)
        calls += j->fn[i].calls;
    if (calls) {
        fprintf(stderr, "rknn-trace: attach: %s made no rknn_init call, so no run is "
                "recorded; its rknn_* calls:\n", app);
        for (int i = 0; i < j->n_fn; i++)
            fprintf(stderr, "  %-40s %6lld calls %12.1f us\n", j->fn[i].name, j->fn[i].calls,
                    j->fn[i].ns / 1e3);
    } else {
        fprintf(stderr, "rknn-trace: attach: %s made no rknn_* call: nothing recorded\n", app);
    }
}

/* One line about context c. */
static void context_line(const trace_ctx *c, char *line, size_t len)
{
    if (c->has_init && c->init_ret)
        snprintf(line, len, "context %llu: rknn_init failed (%d)", c->id, c->init_ret);
    else if (!c->has_init)
        snprintf(line, len, "context %llu: not made by rknn_init (calls on it are in "
                 "the warnings)", c->id);
    else if (!c->n_run)
        snprintf(line, len, "context %llu: %s%sno rknn_run", c->id, c->path,
                 c->path[0] ? ": " : "");
    else
        snprintf(line, len, "context %llu: %s%s%d runs, rknn_run median %.1f us, "
                 "inputs_set %.1f us, outputs_get %.1f us, %d perf tables", c->id,
                 c->path[0] ? c->path : "", c->path[0] ? ": " : "", c->n_run,
                 board_time_stats(c->run_us, c->n_run).median,
                 board_time_stats(c->set_us, c->n_set).median,
                 board_time_stats(c->get_us, c->n_get).median, c->n_perf);
}

/* One line per context on stderr (stdout is the application's own, byte for
 * byte), each context that ran stored as a run unless --no-db: 1 when a run
 * was not stored (err says why), else 0. */
static int store_contexts(const trace_journal *j, const attach_app *a, const attach_opts *o,
                          load_sampler *smp, char *err, size_t errlen)
{
    store *st = NULL;
    /* a database that cannot take the runs now (after the up-front check) keeps
     * the summary: printed, then "NOT recorded" */
    int not_stored = !o->no_db && store_open(store_default_path(o->db), &st, err, errlen) != 0;

    if (st) /* each run is stored in its own transaction (run_rows_store) */
        store_close(st);
    for (int i = 0, k = 0; i < j->n; i++) {
        trace_ctx *c = &j->c[i];
        char line[1024];
        context_line(c, line, sizeof line);
        if (!o->no_db && c->n_run && !not_stored) {
            attach_run ar = {c, j, a->argv, a->status, a->sig, (int)o->perf, o->label, k++,
                             o->root, a->jdir, a->log, j->n == 1, smp};
            run_rows rows;
            if (run_rows_attach(&ar, &rows, err, errlen) == 0 &&
                run_rows_store(&rows, store_default_path(o->db), err, errlen) == 0) {
                size_t u = strlen(line);
                snprintf(line + u, sizeof line - u, ", run %lld", (long long)rows.run.id);
            } else {
                not_stored = 1; /* this context's run and those after it */
            }
            run_rows_free(&rows);
        }
        cli_error("attach: %s", line);
    }
    return not_stored;
}

int cmd_attach(int argc, char **argv)
{
    attach_opts o;
    char preload[PATH_MAX], jdir[PATH_MAX], jpath[PATH_MAX + 16], err[1024] = "", *jbuf = NULL;
    int ret = EXIT_INTERNAL, jfd = -1, rc;
    size_t jlen = 0;
    trace_journal j = {0};
    load_sampler smp = {0};
    attach_app a = {0};

    if (!(a.argv = parse_attach(argc, argv, &o, &ret)))
        return ret;
    ret = EXIT_INTERNAL;
    if (!find_preload(preload, sizeof preload)) {
        cli_error("attach: librknntrace.so not found next to rknn-trace (or $RKNN_TRACE_PRELOAD)");
        return EXIT_INTERNAL;
    }
    if (!o.no_db && (rc = store_preflight(store_default_path(o.db), o.label, err, sizeof err))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    if ((rc = make_journal(jdir, sizeof jdir, jpath, sizeof jpath, &jfd)))
        return rc;
    a.preload = preload, a.jpath = jpath, a.jdir = jdir, a.jfd = jfd, a.perf = o.perf;
    a.capture = getenv("RKNN_LOG_LEVEL") && *getenv("RKNN_LOG_LEVEL");
    if (run_app(&a, &smp, o.root))
        goto out;

    void *data = NULL;
    if (rt_read_file(jpath, &data, &jlen, err, sizeof err)) {
        cli_error("attach: %s", err);
        goto out;
    }
    jbuf = data;
    trace_journal_parse(jbuf, jlen, &j);
    if (a.sig)
        fprintf(stderr, "rknn-trace: attach: %s was ended by signal %d (%s); keeping what it "
                "ran until then\n", a.argv[0], a.sig, strsignal(a.sig));
    if (!j.n) {
        print_no_context(&j, a.argv[0]);
        ret = a.sig ? 128 + a.sig : a.status;
        goto out;
    }
    for (int i = 0; i < j.n_warn; i++)
        fprintf(stderr, "rknn-trace: warning: %s\n", esc_tmp(ESC_TERM, j.warn[i]));
    if (store_contexts(&j, &a, &o, &smp, err, sizeof err)) {
        ret = cli_not_recorded(err); /* the application ran: computed, not recorded */
        goto out;
    }
    ret = a.sig ? 128 + a.sig : a.status;
out:
    trace_journal_free(&j);
    free(smp.rows);
    free(jbuf);
    free(a.log);
    if (jfd >= 0) {
        close(jfd);
        remove_folder(jdir);
    }
    return ret;
}
