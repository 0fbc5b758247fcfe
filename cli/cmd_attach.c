/* cli/cmd_attach.c — `rknn-trace attach [options] -- APP ARGS...`: runs an
 * unmodified application with librknntrace.so preloaded (tracer/interpose.c),
 * samples the NPU load while it runs, then turns the interposer's journal into
 * one stored run per RKNN context. The application's exit status is attach's. */
#include "cli/cli.h"
#include "analyze/store.h"
#include "tracer/tracer.h"
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

static void usage(FILE *f)
{
    fputs("usage: rknn-trace attach [--db PATH] [--perf N] [--label TEXT] [--root DIR] [--no-db] -- APP [ARGS...]\n"
          "Runs APP unchanged with librknntrace.so preloaded: every rknn_* call goes to the\n"
          "runtime APP loads (the vendor's librknnrt.so, or this project's) and is timed. One\n"
          "run is stored per RKNN context: init facts (model SHA-256, flags), query results,\n"
          "the times of rknn_inputs_set, rknn_run and rknn_outputs_get, API misuse warnings,\n"
          "and the NPU load sampled meanwhile. With RKNN_LOG_LEVEL set, the runtime's log\n"
          "lines are captured too (APP's output still reaches the terminal).\n"
          "  --perf N      set RKNN_FLAG_COLLECT_PERF_MASK at rknn_init and read the per-layer\n"
          "                table (RKNN_QUERY_PERF_DETAIL) after every Nth run: layer rows\n"
          "                (perf collection slows the NPU; results are unchanged)\n"
          "  --label TEXT  the run's label (TEXT-2, TEXT-3 ... for further contexts)\n"
          "  --root DIR    read the board's /sys and /proc under DIR (default /)\n"
          "  --db PATH     database (default $RKNN_TRACE_DB, else ./rknn-trace.db); --no-db: none\n"
          "Exit status: APP's (128+N when a signal N ended it); 4 when recording failed.\n", f);
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

static int count_log_lines(const char *log)
{
    int n = 0;

    for (const char *l = log; l && *l;) {
        const char *e = strchr(l, '\n');
        if (strstr(l, " RKNN: ") && (!e || strstr(l, " RKNN: ") < e))
            n++;
        l = e ? e + 1 : NULL;
    }
    return n;
}

static char *extra_json(const trace_ctx *c, char **app, int status, int sig, int perf_every,
                        const trace_journal *j, int log_lines)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    json_writer w;
    if (!m)
        return NULL;
    json_begin(&w, m);
    json_obj_open(&w);
    json_key(&w, "source"); json_str(&w, "attach");
    json_key(&w, "app");
    json_arr_open(&w);
    for (int i = 0; app[i]; i++)
        json_str(&w, app[i]);
    json_arr_close(&w);
    json_key(&w, "exit_status"); sig ? json_write_null(&w) : json_int(&w, status);
    json_key(&w, "signal"); sig ? json_int(&w, sig) : json_write_null(&w);
    json_key(&w, "init_flags"); json_int(&w, c->flags);
    json_key(&w, "model_bytes"); json_int(&w, (int64_t)c->size);
    json_key(&w, "n_inputs"); c->n_in >= 0 ? json_int(&w, c->n_in) : json_write_null(&w);
    json_key(&w, "n_outputs"); c->n_out >= 0 ? json_int(&w, c->n_out) : json_write_null(&w);
    json_key(&w, "inputs_set_median_us"); json_num(&w, board_time_stats(c->set_us, c->n_set).median);
    json_key(&w, "outputs_get_median_us"); json_num(&w, board_time_stats(c->get_us, c->n_get).median);
    json_key(&w, "perf_every"); perf_every ? json_int(&w, perf_every) : json_write_null(&w);
    json_key(&w, "perf_tables"); json_int(&w, c->n_perf);
    json_key(&w, "tensors");
    if (c->attrs) {
        char *list = xmalloc(c->attrs_len + 3);
        snprintf(list, c->attrs_len + 3, "[%s]", c->attrs);
        json_raw(&w, list);
        free(list);
    } else {
        json_write_null(&w);
    }
    json_key(&w, "warnings");
    json_arr_open(&w);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "context %llu: ", c->id);
    for (int i = 0; i < j->n_warn; i++)
        if (!strncmp(j->warn[i], prefix, strlen(prefix)))
            json_str(&w, j->warn[i] + strlen(prefix));
    json_arr_close(&w);
    json_key(&w, "log_lines"); json_int(&w, log_lines);
    /* every iteration's times, in order (the first 10000) */
    const struct { const char *key; const double *v; int n; } lists[] = {
        {"run_us", c->run_us, c->n_run}, {"inputs_set_us", c->set_us, c->n_set},
        {"outputs_get_us", c->get_us, c->n_get}};
    for (int l = 0; l < 3; l++) {
        json_key(&w, lists[l].key);
        json_arr_open(&w);
        for (int i = 0; i < lists[l].n && i < 10000; i++)
            json_num(&w, round(lists[l].v[i] * 1000) / 1000);
        json_arr_close(&w);
    }
    /* the process's calls of every rknn_* function (all contexts together) */
    json_key(&w, "process_calls");
    json_obj_open(&w);
    for (int i = 0; i < j->n_fn; i++) {
        json_key(&w, j->fn[i].name);
        json_obj_open(&w);
        json_key(&w, "calls"); json_int(&w, j->fn[i].calls);
        json_key(&w, "total_us"); json_num(&w, j->fn[i].ns / 1e3);
        json_obj_close(&w);
    }
    json_obj_close(&w);
    json_obj_close(&w);
    fclose(m);
    return text;
}

/* One context as one stored run; returns 0 or an RT_E* status. */
static int store_ctx(store *st, trace_ctx *c, int k, const char *label, const char *root, char **app,
                     int status, int sig, int perf_every, const trace_journal *j, const char *log,
                     int single, const load_sampler *smp, const char *model_dir, int64_t *id,
                     char *err, size_t errlen)
{
    perflog_table_t *tables = NULL;
    int n_tables = 0, rc;
    char lab[256], *env, *extra;
    store_run run;
    time_stats ts = time_stats_of(c->run_us, c->n_run);

    /* layers: the last table read after a run, else a level-4 table in the log */
    if (c->perf)
        perflog_parse(c->perf, c->perf_len, &tables, &n_tables, err, errlen);
    else if (single && log)
        perflog_parse(log, strlen(log), &tables, &n_tables, err, errlen);
    board_facts bf = {.api_version = c->api, .drv_version = c->drv};
    char platbuf[32];
    if (!strcmp(c->kind, "rknn")) {
        /* the model: by its path, or the copy the interposer saved under its hash */
        void *data = NULL;
        size_t n = 0;
        char saved[PATH_MAX + 80], e2[128];
        snprintf(saved, sizeof saved, "%s/%s.rknn", model_dir, c->sha);
        if (!rt_read_file(c->path[0] ? c->path : saved, &data, &n, e2, sizeof e2))
            board_model_facts(&bf, data, n);
        free(data);
    }
    env = run_env_json(root, &bf);
    extra = extra_json(c, app, status, sig, perf_every, j, log ? count_log_lines(log) : 0);
    store_run_init(&run);
    if (label) {
        if (k)
            snprintf(lab, sizeof lab, "%s-%d", label, k + 1);
        else
            snprintf(lab, sizeof lab, "%s", label);
        run.label = lab;
    }
    /* an application on this project's simulated runtime ran nothing on a board */
    run.backend = !strcmp(j->runtime, "simlib") ? "simlib" : "board";
    run.model_path = c->path[0] ? c->path : NULL;
    run.model_sha256 = strcmp(c->sha, "") ? c->sha : NULL;
    run.model_format = !strcmp(c->kind, "rknn") ? "rknn" : !strcmp(c->kind, "onnx") ? "onnx"
                     : !strcmp(c->kind, "sim") ? "rknn-sim" : NULL;
    run.iterations = c->n_run;
    run.warmup = 0;
    run.host_min_us = ts.min;
    run.host_p90_us = ts.p90;
    run.host_stddev_us = ts.stddev;
    run.platform = board_platform(NULL, &bf, root, platbuf, sizeof platbuf);
    if (c->weight >= 0) {
        run.weight_bytes = c->weight;
        run.internal_bytes = c->internal;
    }
    run.env_json = env;
    run.extra_json = extra;
    run.tool_version = RKNN_TRACE_VERSION;
    /* RKNN_QUERY_PERF_RUN of the last profiled run: measured, not a prediction */
    if (c->perf_run_us >= 0)
        run.perf_run_us = c->perf_run_us;
    /* the summary's NPU load: mean per core while the context ran */
    int lp[BOARD_MAX_CORES], nl = load_sampler_mean(smp, c->first_t, c->last_t + 100e3, lp);
    for (int core = 0; core < nl && core < STORE_MAX_CORES; core++)
        run.load_pct[run.n_load++] = lp[core];
    rc = store_run_begin(st, &run, id, err, errlen);
    if (!rc && n_tables)
        rc = perf_layers_store(st, *id, &tables[n_tables - 1], NULL, err, errlen);
    /* the samples taken while this context ran, from its first run on */
    for (int i = 0; !rc && i < smp->n; i++) {
        store_load_sample s = smp->rows[i];
        double at = smp->t0 + s.t_us;
        if (c->n_run && (at < c->first_t - 100e3 || at > c->last_t + 100e3))
            continue;
        s.t_us = at - c->first_t;
        rc = store_load_add(st, *id, &s, err, errlen);
    }
    if (!rc)
        rc = store_run_commit(st, *id, ts.median, err, errlen);
    else
        store_run_abort(st, *id);
    if (tables)
        perflog_free(tables, n_tables);
    free(env);
    free(extra);
    return rc;
}

int cmd_attach(int argc, char **argv)
{
    const char *db = NULL, *label = NULL, *root = "/";
    char preload[PATH_MAX], jdir[PATH_MAX], jpath[PATH_MAX + 16], err[1024] = "", *jbuf = NULL;
    char *log = NULL;
    char **app = NULL;
    long long perf = 0;
    int no_db = 0, ret = EXIT_INTERNAL, jfd = -1, capture, status = 0, sig = 0, rc;
    size_t jlen = 0, log_len = 0;
    trace_journal j = {0};
    load_sampler smp = {0};
    store *st = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--")) {
            app = &argv[i + 1];
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (cli_opt_is(a, "--db") || cli_opt_is(a, "--label") || cli_opt_is(a, "--root") ||
                   cli_opt_is(a, "--perf")) {
            int is_db = cli_opt_is(a, "--db"), is_label = cli_opt_is(a, "--label");
            int is_root = cli_opt_is(a, "--root");
            if (!(v = cli_opt_value(argc, argv, &i)))
                return EXIT_USAGE;
            if (is_db)
                db = v;
            else if (is_label)
                label = v;
            else if (is_root)
                root = v;
            else if ((perf = cli_parse_count(v)) < 1 || perf > 1000000) {
                cli_error("attach: --perf wants a count from 1, not '%s'", v);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--no-db")) {
            no_db = 1;
        } else if (a[0] == '-') {
            return cli_unknown_option("attach", a);
        } else {
            app = &argv[i];
            break;
        }
    }
    if (!app || !app[0]) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!find_preload(preload, sizeof preload)) {
        cli_error("attach: librknntrace.so not found next to rknn-trace (or $RKNN_TRACE_PRELOAD)");
        return EXIT_INTERNAL;
    }
    if (!no_db && (rc = store_preflight(store_default_path(db), label, err, sizeof err))) {
        cli_error("%s", err);
        return cli_exit_code(rc);
    }
    const char *tmp = getenv("TMPDIR");
    /* a private folder: the journal, and the .rknn files the interposer copies */
    snprintf(jdir, sizeof jdir, "%s/rknn-trace-attach-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(jdir)) {
        cli_error("attach: cannot create a folder in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return EXIT_INTERNAL;
    }
    snprintf(jpath, sizeof jpath, "%s/journal", jdir);
    if ((jfd = open(jpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        cli_error("attach: cannot create %s: %s", jpath, strerror(errno));
        rmdir(jdir);
        return EXIT_INTERNAL;
    }
    capture = getenv("RKNN_LOG_LEVEL") && *getenv("RKNN_LOG_LEVEL");
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (capture && (pipe(po) || pipe(pe))) {
        cli_error("attach: pipe: %s", strerror(errno));
        goto out;
    }
    load_sampler_start(&smp, root);
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int); /* ^C is the application's; we still record */
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        char pre[PATH_MAX * 2], perf_s[32];
        const char *old = getenv("LD_PRELOAD");
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        snprintf(pre, sizeof pre, "%s%s%s", preload, old && *old ? ":" : "", old && *old ? old : "");
        snprintf(perf_s, sizeof perf_s, "%lld", perf);
        setenv("LD_PRELOAD", pre, 1);
        setenv("RKNN_TRACE_JOURNAL", jpath, 1);
        setenv("RKNN_TRACE_MODEL_DIR", jdir, 1);
        if (perf)
            setenv("RKNN_TRACE_PERF", perf_s, 1);
        else
            unsetenv("RKNN_TRACE_PERF");
        if (capture) {
            dup2(po[1], STDOUT_FILENO);
            dup2(pe[1], STDERR_FILENO);
            close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        }
        close(jfd);
        execvp(app[0], app);
        fprintf(stderr, "rknn-trace: attach: cannot run %s: %s\n", app[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        cli_error("attach: fork: %s", strerror(errno));
        load_sampler_stop(&smp);
        goto out;
    }
    if (capture) {
        close(po[1]);
        close(pe[1]);
        pump(po[0], pe[0], &log, &log_len);
    }
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    load_sampler_stop(&smp);
    if (WIFSIGNALED(wst))
        sig = WTERMSIG(wst);
    else
        status = WEXITSTATUS(wst);

    void *data = NULL;
    if (rt_read_file(jpath, &data, &jlen, err, sizeof err)) {
        cli_error("attach: %s", err);
        goto out;
    }
    jbuf = data;
    trace_journal_parse(jbuf, jlen, &j);
    if (sig)
        fprintf(stderr, "rknn-trace: attach: %s was ended by signal %d (%s); keeping what it "
                "ran until then\n", app[0], sig, strsignal(sig));
    int n_runs = 0;
    for (int i = 0; i < j.n; i++)
        n_runs += j.c[i].n_run > 0;
    if (!j.n) {
        /* matmul and custom-op calls (no rknn_init context) are counted, not runs */
        long long calls = 0;
        for (int i = 0; i < j.n_fn; i++)
            calls += j.fn[i].calls;
        if (calls) {
            fprintf(stderr, "rknn-trace: attach: %s made no rknn_init call, so no run is "
                    "recorded; its rknn_* calls:\n", app[0]);
            for (int i = 0; i < j.n_fn; i++)
                fprintf(stderr, "  %-40s %6lld calls %12.1f us\n", j.fn[i].name, j.fn[i].calls,
                        j.fn[i].ns / 1e3);
        } else {
            fprintf(stderr, "rknn-trace: attach: %s made no rknn_* call: nothing recorded\n", app[0]);
        }
        ret = sig ? 128 + sig : status;
        goto out;
    }
    for (int i = 0; i < j.n_warn; i++)
        fprintf(stderr, "rknn-trace: warning: %s\n", esc_tmp(ESC_TERM, j.warn[i]));
    /* a database that cannot take the runs now (after the up-front check) keeps
     * the summary: printed, then "NOT recorded" */
    int not_stored = !no_db && store_open(store_default_path(db), &st, err, sizeof err) != 0;
    /* the summary goes to stderr: stdout is the application's own, byte for byte */
    for (int i = 0, k = 0; i < j.n; i++) {
        trace_ctx *c = &j.c[i];
        char line[1024];
        if (c->has_init && c->init_ret)
            snprintf(line, sizeof line, "context %llu: rknn_init failed (%d)", c->id, c->init_ret);
        else if (!c->has_init)
            snprintf(line, sizeof line, "context %llu: not made by rknn_init (calls on it are in "
                     "the warnings)", c->id);
        else if (!c->n_run)
            snprintf(line, sizeof line, "context %llu: %s%sno rknn_run", c->id, c->path,
                     c->path[0] ? ": " : "");
        else
            snprintf(line, sizeof line, "context %llu: %s%s%d runs, rknn_run median %.1f us, "
                     "inputs_set %.1f us, outputs_get %.1f us, %d perf tables", c->id,
                     c->path[0] ? c->path : "", c->path[0] ? ": " : "", c->n_run,
                     board_time_stats(c->run_us, c->n_run).median,
                     board_time_stats(c->set_us, c->n_set).median,
                     board_time_stats(c->get_us, c->n_get).median, c->n_perf);
        if (st && c->n_run && !not_stored) {
            int64_t id = 0;
            if (store_ctx(st, c, k++, label, root, app, status, sig, (int)perf, &j, log, j.n == 1,
                          &smp, jdir, &id, err, sizeof err) == 0) {
                size_t u = strlen(line);
                snprintf(line + u, sizeof line - u, ", run %lld", (long long)id);
            } else {
                not_stored = 1; /* this context's run and those after it */
            }
        }
        cli_error("attach: %s", line);
    }
    if (not_stored) { /* the application ran: computed, not recorded */
        ret = cli_not_recorded(err);
        goto out;
    }
    ret = sig ? 128 + sig : status;
out:
    if (st)
        store_close(st);
    trace_journal_free(&j);
    free(smp.rows);
    free(jbuf);
    free(log);
    if (jfd >= 0) {
        close(jfd);
        remove_folder(jdir);
    }
    return ret;
}
