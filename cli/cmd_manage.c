/* cli/cmd_manage.c — managing recorded runs: `rm`, `tag`, `untag`, `label`,
 * `export`, `merge`, and `import FILE.json` of an export (routed here by
 * cmd_import). Every change says what it did on stdout; nothing is silent. */
#include "analyze/store.h"
#include "cli/cli.h"
#include "cli/opt.h"
#include "util/escape.h"
#include "util/outfile.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The options of the commands here; each command's table names its own. */
typedef struct manage_opts {
    const char *db, *output;
    int yes, none, all;
    cli_list tags;
} manage_opts;

/* The operand count (in argv[1..n]), or -1 with *ex the exit code (help or
 * a usage error). */
static int manage_parse(const cli_spec *spec, int argc, char **argv, manage_opts *o, int *ex)
{
    memset(o, 0, sizeof *o);
    int n = cli_parse(spec, argc, argv, o);
    if (n < 0)
        *ex = n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    return n < 0 ? -1 : n;
}

#define CLI_OPTS_T manage_opts

/* A stored text on a terminal line (util/escape.h). */
static const char *tt(const char *s)
{
    return esc_tmp(ESC_TERM, s);
}

static void run_name(const store_run *r, char *buf, size_t len)
{
    if (r->label)
        snprintf(buf, len, "%lld '%s'", (long long)r->id, tt(r->label));
    else
        snprintf(buf, len, "%lld", (long long)r->id);
}

/* Resolves every ref before anything changes: one unknown run and nothing
 * happens. runs[] receives the runs, in the order given, without repeats. */
static int resolve_runs(store *st, char **refs, int n, store_run *runs, int *nr)
{
    char err[512];
    *nr = 0;
    for (int i = 0; i < n; i++) {
        store_run r;
        int rc = store_get_run(st, refs[i], &r, err, sizeof err);
        int dup = 0;
        if (rc) {
            cli_error("%s", err);
            return cli_exit_code(rc);
        }
        for (int k = 0; k < *nr; k++)
            dup |= runs[k].id == r.id;
        if (dup)
            store_run_clear(&r);
        else
            runs[(*nr)++] = r;
    }
    return EXIT_OK;
}

/* ---- rm ------------------------------------------------------------------- */

static const cli_opt rm_options[] = {
    CLI_OPT_FLAG("--yes", 'y', yes, "do not ask"),
    CLI_OPT_DB(db),
    CLI_OPT_END};

const cli_spec cli_spec_rm = {
    "rm",
    "usage: rknn-trace rm RUN... [-y] [--db PATH]\n"
    "Deletes runs (RUN: an id or a label) with their layers, outputs, errors, tags and\n"
    "load samples, all or none. Asks first on a terminal; elsewhere (a script, a pipe)\n"
    "it deletes only with -y. Each deleted run is named on stdout.\n",
    rm_options, NULL};

/* Asks on the terminal whether to delete runs[0..nr): 1 for yes. */
static int rm_confirm(const store_run *runs, int nr, const char *db)
{
    char nm[160], answer[16] = "";

    fprintf(stderr, "delete %d run%s from %s:", nr, nr == 1 ? "" : "s", store_default_path(db));
    for (int k = 0; k < nr; k++) {
        run_name(&runs[k], nm, sizeof nm);
        fprintf(stderr, "%s %s", k ? "," : "", nm);
    }
    fprintf(stderr, "? [y/N] ");
    return fgets(answer, sizeof answer, stdin) && (answer[0] == 'y' || answer[0] == 'Y');
}

int cmd_rm(int argc, char **argv)
{
    manage_opts o;
    char err[512], nm[160];
    store_run *runs = xcalloc((size_t)argc, sizeof *runs);
    int nref, nr = 0, ex = EXIT_OK, rc = 0;
    store *st = NULL;
    const char *db;

    if ((nref = manage_parse(&cli_spec_rm, argc, argv, &o, &ex)) < 0)
        goto out;
    db = o.db;
    if (!nref) {
        cli_error("rm: which runs? (rknn-trace rm RUN...; rknn-trace ls lists them)");
        ex = EXIT_USAGE;
        goto out;
    }
    if ((rc = store_open_existing(store_default_path(db), &st, err, sizeof err))) {
        cli_error("%s", err);
        ex = cli_exit_code(rc);
        goto out;
    }
    if ((ex = resolve_runs(st, argv + 1, nref, runs, &nr)))
        goto out;
    if (!o.yes) {
        if (!isatty(STDIN_FILENO)) {
            cli_error("rm: not deleting %d run%s without a confirmation: stdin is not a terminal "
                      "(add -y)", nr, nr == 1 ? "" : "s");
            ex = EXIT_USAGE;
            goto out;
        }
        if (!rm_confirm(runs, nr, db)) {
            printf("nothing deleted\n");
            goto out;
        }
    }
    if ((rc = store_batch_begin(st, err, sizeof err)))
        goto fail;
    for (int k = 0; k < nr && !rc; k++)
        rc = store_delete_run(st, runs[k].id, err, sizeof err);
    if (rc) {
        store_batch_abort(st);
        goto fail;
    }
    if ((rc = store_batch_commit(st, err, sizeof err)))
        goto fail;
    for (int k = 0; k < nr; k++) {
        run_name(&runs[k], nm, sizeof nm);
        printf("deleted run %s\n", nm);
    }
    goto out;
fail:
    cli_error("rm: %s (nothing deleted)", err);
    ex = cli_exit_code(rc);
out:
    for (int k = 0; k < nr; k++)
        store_run_clear(&runs[k]);
    free(runs);
    store_close(st);
    return ex;
}

/* ---- tag, untag, label ------------------------------------------------------ */

#define TAG_USAGE \
    "usage: rknn-trace tag RUN TAG... [--db PATH]\n" \
    "       rknn-trace untag RUN TAG... [--db PATH]\n" \
    "Puts tags on a run (or takes them off). A tag is a short word: letters, digits and\n" \
    ". _ - + : / @ =. `ls --tag TAG` lists the runs that have it.\n"

static const cli_opt db_options[] = {CLI_OPT_DB(db), CLI_OPT_END};
const cli_spec cli_spec_tag = {"tag", TAG_USAGE, db_options, NULL};
const cli_spec cli_spec_untag = {"untag", TAG_USAGE, db_options, NULL};

static int tag_cmd(int argc, char **argv, int add)
{
    const char *name = add ? "tag" : "untag";
    manage_opts o;
    char err[512], nm[160];
    int n, nt, ex = EXIT_OK, rc = 0, have = 0;
    store *st = NULL;
    store_run run;

    if ((n = manage_parse(add ? &cli_spec_tag : &cli_spec_untag, argc, argv, &o, &ex)) < 0)
        return ex;
    const char *db = o.db, *ref = n ? argv[1] : NULL;
    char **tags = argv + 2;
    nt = n - 1;
    if (!ref || nt < 1) {
        cli_error("%s: give a run and at least one tag (rknn-trace %s RUN TAG...)", name, name);
        return EXIT_USAGE;
    }
    if ((rc = store_open_existing(store_default_path(db), &st, err, sizeof err)) ||
        (rc = store_get_run(st, ref, &run, err, sizeof err)))
        goto fail;
    have = 1;
    /* all tags or none */
    if ((rc = store_batch_begin(st, err, sizeof err)))
        goto fail;
    for (int k = 0; k < nt && !rc; k++)
        rc = add ? store_tag_add(st, run.id, tags[k], err, sizeof err)
                 : store_tag_remove(st, run.id, tags[k], err, sizeof err);
    if (rc) {
        store_batch_abort(st);
        goto fail;
    }
    if ((rc = store_batch_commit(st, err, sizeof err)))
        goto fail;
    store_run_clear(&run);
    if ((rc = store_get_run(st, ref, &run, err, sizeof err))) {
        have = 0;
        goto fail;
    }
    run_name(&run, nm, sizeof nm);
    printf("run %s: tags %s\n", nm, run.tags ? tt(run.tags) : "(none)");
    goto out;
fail:
    cli_error("%s: %s", name, err);
    ex = cli_exit_code(rc);
out:
    if (have)
        store_run_clear(&run);
    store_close(st);
    return ex;
}

int cmd_tag(int argc, char **argv) { return tag_cmd(argc, argv, 1); }
int cmd_untag(int argc, char **argv) { return tag_cmd(argc, argv, 0); }

static const cli_opt label_options[] = {
    CLI_OPT_FLAG("--none", 0, none, "no label"),
    CLI_OPT_DB(db),
    CLI_OPT_END};

const cli_spec cli_spec_label = {
    "label",
    "usage: rknn-trace label RUN NAME [--db PATH]\n"
    "       rknn-trace label RUN --none [--db PATH]\n"
    "Gives a run a new label (unique, not a number), or takes its label away.\n",
    label_options, NULL};

int cmd_label(int argc, char **argv)
{
    manage_opts o;
    int n, ex = EXIT_OK, rc = 0, have = 0;
    char err[512], *old = NULL;
    store *st = NULL;
    store_run run;

    if ((n = manage_parse(&cli_spec_label, argc, argv, &o, &ex)) < 0)
        return ex;
    if (n > 2) {
        cli_error("label: one run and one name, got a third argument '%s'", argv[3]);
        return EXIT_USAGE;
    }
    const char *db = o.db, *ref = n > 0 ? argv[1] : NULL, *label = n > 1 ? argv[2] : NULL;
    if (!ref || (!label) == !o.none) {
        cli_error("label: give a run and a name, or --none (rknn-trace label RUN NAME)");
        return EXIT_USAGE;
    }
    if ((rc = store_open_existing(store_default_path(db), &st, err, sizeof err)) ||
        (rc = store_get_run(st, ref, &run, err, sizeof err)))
        goto fail;
    have = 1;
    old = run.label ? xstrdup(run.label) : NULL;
    if ((rc = store_set_label(st, run.id, label, err, sizeof err)))
        goto fail;
    printf("run %lld: label %s%s%s -> %s%s%s\n", (long long)run.id, old ? "'" : "",
           old ? tt(old) : "(none)", old ? "'" : "", label ? "'" : "", label ? tt(label) : "(none)",
           label ? "'" : "");
    goto out;
fail:
    cli_error("label: %s", err);
    ex = cli_exit_code(rc);
out:
    if (have)
        store_run_clear(&run);
    free(old);
    store_close(st);
    return ex;
}

/* ---- export ----------------------------------------------------------------- */

static const cli_opt export_options[] = {
    CLI_OPT_STR("--output", 'o', "FILE", output, "the file to write ('-': stdout)"),
    CLI_OPT_LIST("--tag", 0, "TAG", tags, 0, "the runs that have TAG (repeatable: every one)"),
    CLI_OPT_FLAG("--all", 0, all, "every run"),
    CLI_OPT_DB(db),
    CLI_OPT_END};

const cli_spec cli_spec_export = {
    "export",
    "usage: rknn-trace export RUN... -o FILE.json [--db PATH]\n"
    "       rknn-trace export --tag TAG... | --all -o FILE.json\n"
    "Writes runs, whole (layers, outputs, per-layer errors, tags, load samples; missing\n"
    "values as null), to one JSON file that `rknn-trace import FILE.json` reads back\n"
    "into any database (docs/store.md, \"Export\").\n",
    export_options, NULL};

int cli_tags_have(const char *tags, const char *tag)
{
    size_t n = strlen(tag);
    for (const char *p = tags; p && *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && !strncmp(p, tag, n))
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

/* The ids to export: runs[0..nr) as given, then (--tag, --all) every other
 * run that has every tag; malloc'd into *ids. */
static int export_ids(store *st, const manage_opts *o, const store_run *runs, int nr,
                      int64_t **ids, int *nids, char *err, size_t errlen)
{
    store_run *every = NULL;
    int n_all = 0, rc = 0;

    *ids = xcalloc((size_t)nr + 1, sizeof **ids);
    *nids = 0;
    for (int k = 0; k < nr; k++)
        (*ids)[(*nids)++] = runs[k].id;
    if (!o->tags.n && !o->all)
        return 0;
    if ((rc = store_list_runs(st, &every, &n_all, err, errlen)))
        return rc;
    *ids = xrealloc(*ids, sizeof **ids * (size_t)(*nids + n_all + 1));
    for (int k = 0; k < n_all; k++) {
        int keep = 1, dup = 0;
        for (int t = 0; t < o->tags.n; t++)
            keep &= cli_tags_have(every[k].tags, o->tags.v[t]);
        for (int j = 0; j < nr; j++)
            dup |= (*ids)[j] == every[k].id;
        if (keep && !dup)
            (*ids)[(*nids)++] = every[k].id;
    }
    store_runs_free(every, n_all);
    return 0;
}

int cmd_export(int argc, char **argv)
{
    manage_opts o;
    const char *db, *outpath;
    char err[512];
    int nref, ex = EXIT_OK, rc = 0, nr = 0;
    store_run *runs = xcalloc((size_t)argc, sizeof *runs);
    int64_t *ids = NULL;
    int nids = 0;
    store *st = NULL;
    FILE *f = NULL;
    outfile *of = NULL;

    if ((nref = manage_parse(&cli_spec_export, argc, argv, &o, &ex)) < 0)
        goto out;
    db = o.db;
    outpath = o.output;
    if (!outpath || (!nref && !o.tags.n && !o.all)) {
        cli_error("export: give runs (RUN..., --tag TAG or --all) and -o FILE.json");
        ex = EXIT_USAGE;
        goto out;
    }
    if ((rc = store_open_readonly(store_default_path(db), &st, err, sizeof err)))
        goto fail;
    if ((ex = resolve_runs(st, argv + 1, nref, runs, &nr)))
        goto out;
    if ((rc = export_ids(st, &o, runs, nr, &ids, &nids, err, sizeof err)))
        goto fail;
    if (!nids) {
        cli_error("export: no run has every tag given; nothing written");
        ex = EXIT_INPUT;
        goto out;
    }
    /* a file appears whole or not at all (util/outfile.h) */
    if (!strcmp(outpath, "-"))
        f = stdout;
    else if ((rc = outfile_open(outpath, &of, &f, err, sizeof err)))
        goto fail;
    rc = store_export(st, ids, nids, f, err, sizeof err);
    if (of)
        rc = outfile_close(of, rc, err, sizeof err);
    of = NULL;
    if (rc)
        goto fail;
    if (strcmp(outpath, "-"))
        printf("exported %d run%s to %s\n", nids, nids == 1 ? "" : "s", tt(outpath));
    goto out;
fail:
    cli_error("export: %s", err);
    ex = cli_exit_code(rc);
out:
    for (int k = 0; k < nr; k++)
        store_run_clear(&runs[k]);
    free(runs);
    free(ids);
    store_close(st);
    return ex;
}

/* ---- import FILE.json, merge -------------------------------------------------- */

/* The lines of a run not added as it came, printed once the change is made
 * (a failure rolls everything back, so they would not be true). */
typedef struct notes {
    char *text;
    size_t len;
    FILE *f;
} notes;

static void collect_note(void *ctx, const char *line)
{
    notes *n = ctx;
    fprintf(n->f, "  %s\n", tt(line));
}

static void notes_open(notes *n)
{
    memset(n, 0, sizeof *n);
    n->f = open_memstream(&n->text, &n->len);
}

static void notes_close(notes *n, int print)
{
    fclose(n->f);
    if (print && n->len)
        fputs(n->text, stdout);
    free(n->text);
}

static void report(const char *what, const char *from, const store_import_stats *s)
{
    printf("%s %s: %d run%s added", what, tt(from), s->added, s->added == 1 ? "" : "s");
    if (s->added == 1)
        printf(" (id %lld)", (long long)s->first_id);
    else if (s->added > 1)
        printf(" (ids %lld-%lld)", (long long)s->first_id, (long long)s->last_id);
    printf(", %d already here (skipped), %d relabelled\n", s->skipped, s->relabelled);
}

/* Opens the database and adds runs from `from` with add (an import of an
 * export file, a merge); prints the report, then the per-run notes. */
static int add_runs(const char *cmd, const char *db, const char *from,
                    int (*add)(store *, const char *, store_note_fn, void *,
                               store_import_stats *, char *, size_t))
{
    store_import_stats stats;
    store *st = NULL;
    char err[512];
    notes nt;
    int rc;

    notes_open(&nt);
    if ((rc = store_open(store_default_path(db), &st, err, sizeof err)) ||
        (rc = add(st, from, collect_note, &nt, &stats, err, sizeof err))) {
        notes_close(&nt, 0);
        cli_error("%s: %s", cmd, err);
        store_close(st);
        return cli_exit_code(rc);
    }
    store_close(st);
    report(!strcmp(cmd, "merge") ? "merged" : "imported", from, &stats);
    notes_close(&nt, 1);
    return EXIT_OK;
}

int cli_is_export_file(const char *path)
{
    char head[512];
    size_t n;
    struct stat sb;
    FILE *f;
    /* only a regular file is peeked at: reading a pipe's first bytes would
     * take them from the log behind them (`import /dev/stdin`) */
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || !(f = fopen(path, "rb")))
        return 0;
    n = fread(head, 1, sizeof head, f);
    fclose(f);
    return store_is_export(head, n);
}

int cli_import_export(const char *path, int n_paths, const char *db, int log_options)
{
    if (n_paths != 1 || log_options) {
        cli_error("import: %s is an export of runs: import it alone, without log options "
                  "(--label, --model, --format, --copy, --strict, --json)", path);
        return EXIT_USAGE;
    }
    return add_runs("import", db, path, store_import_export);
}

static const cli_opt merge_options[] = {CLI_OPT_DB(db), CLI_OPT_END};

const cli_spec cli_spec_merge = {
    "merge",
    "usage: rknn-trace merge OTHER.db [--db PATH]\n"
    "Adds the runs of another rknn-trace database (another machine's, say) to this one,\n"
    "in one transaction: each gets a new id; a run whose content is here already is\n"
    "skipped; a label taken here becomes LABEL-2 (-3, ...). One line per such run.\n",
    merge_options, NULL};

int cmd_merge(int argc, char **argv)
{
    manage_opts o;
    int n, ex = EXIT_OK;

    if ((n = manage_parse(&cli_spec_merge, argc, argv, &o, &ex)) < 0)
        return ex;
    if (n > 1) {
        cli_error("merge: one database at a time, got a second: '%s'", argv[2]);
        return EXIT_USAGE;
    }
    if (!n) {
        cli_error("merge: which database? (rknn-trace merge OTHER.db)");
        return EXIT_USAGE;
    }
    return add_runs("merge", o.db, argv[1], store_merge);
}
