/* cli/cmd_attach.c — `rknn-trace attach [options] -- APP ARGS...`: runs an
 * unmodified application with librknntrace.so preloaded (tracer/interpose.c),
 * samples the NPU load while it runs, then stores one run per RKNN context of
 * the interposer's journal (its rows: record/source_attach.c). The
 * application's exit status is attach's. */
#include "cli/cli.h"
#include "record/record.h"
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
    if (st) /* each run is stored in its own transaction (run_rows_store) */
        store_close(st), st = NULL;
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
        if (!no_db && c->n_run && !not_stored) {
            attach_run ar = {c, &j, app, status, sig, (int)perf, label, k++, root, jdir, log,
                             j.n == 1, &smp};
            run_rows rows;
            if (run_rows_attach(&ar, &rows, err, sizeof err) == 0 &&
                run_rows_store(&rows, store_default_path(db), err, sizeof err) == 0) {
                size_t u = strlen(line);
                snprintf(line + u, sizeof line - u, ", run %lld", (long long)rows.run.id);
            } else {
                not_stored = 1; /* this context's run and those after it */
            }
            run_rows_free(&rows);
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
