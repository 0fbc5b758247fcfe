/* cli/cmd_tune.c — `rknn-trace tune MODEL`: options, Ctrl-C, and each kept
 * configuration stored as a run (through `run --hybrid`); the search itself
 * is tune/ (tune.h). */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "cli/opt.h"
#include "runtime/npu/npu.h"
#include "runtime/quant/quant.h"
#include "tune/tune.h"
#include "util/escape.h"
#include "util/util.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What the search aims at: one of --target-cos, --target-sqnr, --atol. */
typedef struct tune_goal {
    int metric, n;
    double x;
} tune_goal;

typedef struct tune_cli {
    const char *dataset, *eval, *target, *out, *png, *db, *mean, *std;
    tune_goal goal;
    long long threads, cands;
    int no_db, no_progress;
} tune_cli;

/* --target-cos X, --target-sqnr DB, --atol X: the metric is the option's */
static int parse_goal(const char *opt, const char *v, void *target)
{
    tune_goal *g = target;
    char *end;
    double x = strtod(v, &end);
    if (*end || end == v || !isfinite(x)) {
        cli_error("%s takes a number, got '%s'", opt, v);
        return -1;
    }
    g->metric = !strcmp(opt, "--atol") ? TUNE_ATOL : !strcmp(opt, "--target-cos") ? TUNE_COS
                                                                                    : TUNE_SQNR;
    g->x = x;
    g->n++;
    if (g->metric == TUNE_COS && !(x > -1 && x <= 1)) {
        cli_error("--target-cos takes a number in (-1, 1], got '%s'", v);
        return -1;
    }
    if (g->metric == TUNE_ATOL && !(x >= 0)) {
        cli_error("--atol takes a number >= 0, got '%s'", v);
        return -1;
    }
    return 0;
}

/* --threads N, --candidates N: up to 100000 */
static int parse_n(const char *opt, const char *v, void *target)
{
    long long n = cli_parse_count(v);
    if (n < 0 || n > 100000) {
        cli_error("%s: bad number '%s'", opt, v);
        return -1;
    }
    *(long long *)target = n;
    return 0;
}

#define CLI_OPTS_T tune_cli
static const cli_opt tune_cli_options[] = {
    CLI_OPT_STR("--dataset", 0, "FILE", dataset,
                "calibration list (one line per sample, as run --dataset)"),
    CLI_OPT_STR("--eval", 0, "FILE", eval, "evaluation list (same layout; default: the dataset)"),
    CLI_OPT_CALL("--target-cos", 0, "X", goal, parse_goal,
                 "cos of every output on every sample >= X (default 0.99)"),
    CLI_OPT_CALL("--target-sqnr", 0, "DB", goal, parse_goal, "or SQNR >= DB"),
    CLI_OPT_CALL("--atol", 0, "X", goal, parse_goal, "or every element within X of the fp32 golden"),
    CLI_OPT_STR("--target", 't', "PLATFORM", target,
                "chip whose NPU time is predicted (default rk3588); one\n"
                "without float16 (rv1106, rv1103) cannot take fp16 layers"),
    CLI_OPT_STR("--output", 'o', "FILE", out, "the quantization.cfg to write (required)"),
    CLI_OPT_STR("--png", 0, "FILE", png, "the accuracy-vs-time front (default: OUT's name, .png)"),
    CLI_OPT_CALL("--candidates", 0, "N", cands, parse_n,
                 "layers measured for sensitivity: the N with the lowest\n"
                 "single-layer cos (default 12; 0: every layer)"),
    CLI_OPT_STR("--mean", 0, "M", mean, "preprocessing of .png/.jpg samples (as run)"),
    CLI_OPT_STR("--std", 0, "S", std, "preprocessing of .png/.jpg samples (as run)"),
    CLI_OPT_CALL("--threads", 0, "N", threads, parse_n, "CPU threads (default: one per physical core allowed)"),
    CLI_OPT_DB(db),
    CLI_OPT_FLAG("--no-db", 0, no_db, "store no runs"),
    CLI_OPT_FLAG("--no-progress", 0, no_progress,
                 "no progress line (else on a terminal: evaluations, time left)"),
    CLI_OPT_END};
#undef CLI_OPTS_T

const cli_spec cli_spec_tune = {
    "tune",
    "usage: rknn-trace tune MODEL --dataset FILE -o OUT.quantization.cfg [options]\n"
    "Finds the fewest layers to keep in fp16 (and the calibration) for MODEL in int8 to\n"
    "meet an accuracy target on every output over every evaluation sample, at the\n"
    "least predicted NPU time; writes them as a Toolkit2 *.quantization.cfg that\n"
    "`build --hybrid` and `run --hybrid` take. Each step is a row of a table; each kept\n"
    "configuration is stored as a run tagged 'tune' and the session's tag.\n"
    "\n",
    tune_cli_options,
    "Ctrl-C stops the search: the best configuration so far is written, the runs\n"
    "stored so far stay. Exit 3 when the target is not reached (the best found is\n"
    "written and named).\n"};

static volatile sig_atomic_t stop_flag;
static void on_sigint(int sig)
{
    (void)sig;
    stop_flag = 1;
}

typedef struct keep_ctx {
    const char *model, *target, *eval, *db, *mean, *std;
    char session[64];
    int no_db, k;
} keep_ctx;

/* Runs `run MODEL -q i8 --hybrid CFG ...` with its summary kept off stdout
 * and its notes off stderr (shown when it fails). */
static int run_quiet(int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    FILE *log = tmpfile();
    int saved = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0)
        dup2(null, STDOUT_FILENO);
    if (saved_err >= 0 && log)
        dup2(fileno(log), STDERR_FILENO);
    int rc = cmd_run(argc, argv);
    fflush(stdout);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    if (saved_err >= 0) {
        dup2(saved_err, STDERR_FILENO);
        close(saved_err);
    }
    if (null >= 0)
        close(null);
    if (log) {
        char line[1024];
        rewind(log);
        while (rc && fgets(line, sizeof line, log))
            fputs(line, stderr);
        fclose(log);
    }
    return rc;
}

static int keep_run(void *user, tune_session *s, const tune_point *p, const char *what,
                    char *err, size_t errlen)
{
    keep_ctx *c = user;
    char label[128], tags[2][64];
    if (c->no_db)
        return RT_OK;
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/rknn-trace-tune-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return rt_err(err, errlen, RT_EIO, "cannot make a temporary file in %s",
                      tmp && *tmp ? tmp : "/tmp");
    close(fd);
    int rc = tune_write_cfg(s, p, path, err, errlen);
    if (rc) {
        unlink(path);
        return rc;
    }
    snprintf(label, sizeof label, "%s-%d", c->session, ++c->k);
    char *av[40];
    int ac = 0;
    av[ac++] = "run";
    av[ac++] = (char *)c->model;
    av[ac++] = "-q", av[ac++] = "i8";
    av[ac++] = "--hybrid", av[ac++] = path;
    av[ac++] = "--quant-algo", av[ac++] = (char *)quant_algo_name(p->algo);
    av[ac++] = "--quant-method", av[ac++] = (char *)quant_method_name(p->method);
    av[ac++] = "--eval", av[ac++] = (char *)c->eval;
    av[ac++] = "-t", av[ac++] = (char *)c->target;
    av[ac++] = "--label", av[ac++] = label;
    av[ac++] = "-n", av[ac++] = "1";
    av[ac++] = "--warmup", av[ac++] = "1";
    av[ac++] = "--no-progress";
    if (c->db)
        av[ac++] = "--db", av[ac++] = (char *)c->db;
    if (c->mean)
        av[ac++] = "--mean", av[ac++] = (char *)c->mean;
    if (c->std)
        av[ac++] = "--std", av[ac++] = (char *)c->std;
    av[ac] = NULL;
    rc = run_quiet(ac, av);
    unlink(path);
    if (rc)
        return rt_err(err, errlen, RT_EIO, "storing '%s' as a run failed (exit %d)",
                      esc_tmp(ESC_TERM, what), rc);
    store *st = NULL;
    store_run run;
    snprintf(tags[0], sizeof tags[0], "tune");
    snprintf(tags[1], sizeof tags[1], "%s", c->session);
    if ((rc = store_open(store_default_path(c->db), &st, err, errlen)))
        return rc;
    if (!(rc = store_get_run(st, label, &run, err, errlen))) {
        for (int t = 0; t < 2 && !rc; t++)
            rc = store_tag_add(st, run.id, tags[t], err, errlen);
        if (!rc)
            printf("      stored as run %lld (%s), tags tune, %s\n", (long long)run.id, label,
                   c->session);
        store_run_clear(&run);
    }
    store_close(st);
    fflush(stdout);
    return rc;
}

int cmd_tune(int argc, char **argv)
{
    tune_cli cl = {.target = "rk3588", .goal = {TUNE_COS, 0, 0.99}, .cands = 12};
    char err[1024] = "";

    int n = cli_parse(&cli_spec_tune, argc, argv, &cl);
    if (n == CLI_PARSE_HELP)
        return EXIT_OK;
    if (n < 0)
        return EXIT_USAGE;
    if (n > 1) {
        cli_error("tune: more than one model given ('%s', '%s')", argv[1], argv[2]);
        return EXIT_USAGE;
    }
    const char *model = n ? argv[1] : NULL, *target = cl.target, *out = cl.out, *png = cl.png;
    const char *dataset = cl.dataset, *eval = cl.eval, *db = cl.db, *mean = cl.mean, *std = cl.std;
    int metric = cl.goal.metric, no_db = cl.no_db, no_progress = cl.no_progress;
    long long threads = cl.threads, cands = cl.cands;
    double goal = cl.goal.x;
    if (!model || !dataset || !out) {
        if (model)
            cli_error("tune needs %s", !dataset ? "--dataset FILE (calibration samples)"
                                                : "-o OUT.quantization.cfg");
        else
            cli_help(&cli_spec_tune, stderr);
        return EXIT_USAGE;
    }
    if (cl.goal.n > 1) {
        cli_error("give one target: --target-cos, --target-sqnr or --atol");
        return EXIT_USAGE;
    }
    if (no_db && db) {
        cli_error("--db and --no-db together");
        return EXIT_USAGE;
    }
    const npu_platform_t *plat;
    if (npu_platform_get(target, &plat, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    if (!no_db && store_preflight(store_default_path(db), NULL, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_INPUT;
    }
    char png_buf[4096];
    if (!png) {
        size_t n = strlen(out), sfx = strlen(".quantization.cfg");
        if (n > sfx && !strcmp(out + n - sfx, ".quantization.cfg"))
            snprintf(png_buf, sizeof png_buf, "%.*s.front.png", (int)(n - sfx), out);
        else
            snprintf(png_buf, sizeof png_buf, "%s.png", out);
        png = png_buf;
    }

    struct sigaction sa = {0}, old;
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    stop_flag = 0;

    tune_opts o = {.model = model, .dataset = dataset, .eval = eval, .mean = mean, .std = std,
                   .plat = plat, .metric = metric, .target = goal, .threads = (int)threads,
                   .stop = &stop_flag};
    tune_session *s = NULL;
    tune_result r = {0};
    int ret = EXIT_INTERNAL, rc;
    double t0 = rt_now_us();
    if ((rc = tune_open(&o, &s, err, sizeof err))) {
        cli_error("%s", err);
        ret = stop_flag ? EXIT_GATE : cli_exit_code(rc);
        goto out;
    }
    keep_ctx kc = {.model = model, .target = plat->name, .eval = eval ? eval : dataset, .db = db,
                   .mean = mean, .std = std, .no_db = no_db};
    {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        snprintf(kc.session, sizeof kc.session, "tune-%04d%02d%02dT%02d%02d%02d-%d",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                 tm.tm_sec, (int)getpid());
    }
    /* the target as given: 0.9999999 is not 1 */
    char goal_text[64];
    snprintf(goal_text, sizeof goal_text, "%s %s %.10g", tune_metric_name(metric),
             metric == TUNE_ATOL ? "<=" : ">=", goal);
    printf("tune %s on %s: %d evaluation samples, %d candidate layers; target: %s on "
           "every output of every sample\n\n", esc_tmp(ESC_TERM, model), plat->name,
           tune_n_samples(s), tune_n_cands(s), goal_text);
    tune_search_opts so = {.candidates = (int)cands, .out = stdout,
                           .progress = !no_progress && isatty(STDERR_FILENO),
                           .keep = keep_run, .user = &kc};
    rc = tune_search(s, &so, &r, err, sizeof err);
    if (rc) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    /* what is left runs to its end: a second Ctrl-C stops the process */
    sigaction(SIGINT, &old, NULL);
    int was_stopped = r.interrupted;
    stop_flag = 0;
    if (r.best < 0) {
        cli_error("interrupted before any configuration was evaluated: nothing written");
        ret = EXIT_GATE;
        goto out;
    }
    const tune_point *b = &r.pts[r.best], *base = &r.pts[r.base >= 0 ? r.base : r.best];
    if ((rc = tune_write_cfg(s, b, out, err, sizeof err)) ||
        (rc = tune_front_png(png, r.pts, r.n, r.kept, r.n_kept, metric, goal, model, err,
                             sizeof err))) {
        cli_error("%s", err);
        ret = cli_exit_code(rc);
        goto out;
    }
    char w[32], m[32];
    tune_fmt_score(metric, goal, b->worst, w, sizeof w);
    tune_fmt_score(metric, goal, b->mean, m, sizeof m);
    if (was_stopped)
        printf("\ninterrupted: the best configuration so far is written\n");
    printf("\n%s: %d layer%s in fp16, %s/%s: %s worst %s (sample %d), mean %s; predicted NPU "
           "%.3f ms (%+.1f%% vs plain int8 %.3f ms)\n",
           r.reached ? "answer" : "target NOT reached, best found", b->n_fp16,
           b->n_fp16 == 1 ? "" : "s", quant_algo_name(b->algo), quant_method_name(b->method),
           tune_metric_name(metric), w, b->worst_sample + 1, m, b->npu_us / 1000,
           (b->npu_us - base->npu_us) / base->npu_us * 100, base->npu_us / 1000);
    tune_cand *c = tune_cands(s);
    for (int i = 0; i < b->n_fp16 && i < 40; i++)
        printf("  fp16: [%s] %s\n", esc_tmp(ESC_TERM, c[b->fp16[i]].op),
               esc_tmp(ESC_TERM, c[b->fp16[i]].name));
    printf("wrote %s and %s (%d configurations evaluated in %.1f s)\n", esc_tmp(ESC_TERM, out),
           esc_tmp(ESC_TERM, png), r.n, (rt_now_us() - t0) / 1e6);
    char shapes[512];
    printf("build: rknn-trace build %s -t %s -q i8 --quant-method %s --hybrid %s%s -o "
           "MODEL.rknn\n", esc_tmp(ESC_TERM, model), plat->name, quant_method_name(b->method),
           esc_tmp(ESC_TERM, out), esc_tmp(ESC_TERM, tune_shape_args(s, shapes, sizeof shapes)));
    if (!no_db)
        printf("runs: rknn-trace ls --tag %s\n", kc.session);
    if (!r.reached)
        fprintf(stderr, "rknn-trace: the target %s is not reached on every output: the "
                "best found (%s %s) is written\n", goal_text, tune_metric_name(metric), w);
    ret = r.reached ? EXIT_OK : EXIT_GATE;
out:
    sigaction(SIGINT, &old, NULL);
    tune_result_free(&r);
    tune_close(s);
    return ret;
}
