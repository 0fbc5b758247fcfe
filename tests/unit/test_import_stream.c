/* tests/unit/test_import_stream.c — a log imported while it is read
 * (record/import_stream.c) hands the writer the same runs, in the same order and
 * with the same rows, as scanning the whole log first (vlog_scan, the oracle);
 * prepare runs on the scanning thread and write on another; a failed write
 * stops the writing and is returned; a scan error writes nothing. The log is
 * every real sample of ../shared/data/logs that import reads, concatenated
 * several times so that the queue between the threads fills. Also run under
 * ThreadSanitizer (make tsan). */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/import_stream.h"
#include "tests/test.h"
#include "util/util.h"

/* what a run is, in a few numbers: parts, row counts, cycles and names */
typedef struct digest {
    int toolkit, first_line, has_perf, n_rows, has_sram, n_sram, n_acc, n_dumps, n_perf_ms;
    long long cycles;
    unsigned long long names;
} digest;

static unsigned long long hash_str(unsigned long long h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static digest digest_of(const vlog_run_t *r)
{
    digest d;
    memset(&d, 0, sizeof d); /* compared with memcmp: no stray padding bytes */
    d.toolkit = r->toolkit, d.first_line = r->first_line, d.has_perf = r->has_perf;
    d.n_rows = r->has_perf ? r->perf.n_rows : 0;
    d.has_sram = r->has_sram, d.n_sram = r->has_sram ? r->sram.n_rows : 0;
    d.n_acc = r->n_acc, d.n_dumps = r->n_dumps, d.n_perf_ms = r->bench.n_perf;
    d.names = 1469598103934665603ull;
    for (int k = 0; r->has_perf && k < r->perf.n_rows; k++) {
        d.cycles += r->perf.rows[k].total + r->perf.rows[k].npu;
        d.names = hash_str(d.names, r->perf.rows[k].fullname);
    }
    for (int k = 0; k < r->n_acc; k++)
        d.names = hash_str(d.names, r->acc[k].name);
    return d;
}

typedef struct sink {
    pthread_t scanner;
    digest *got;
    int n, fail_at;
    int prepared_elsewhere, written_on_scanner, prep_mismatch;
} sink;

static void prepare(void *ctx, const vlog_run_t *r, void **prep)
{
    sink *s = ctx;
    digest *d = malloc(sizeof(*d));
    if (!pthread_equal(pthread_self(), s->scanner))
        s->prepared_elsewhere++;
    *d = digest_of(r);
    *prep = d;
}

static int write_run(void *ctx, const vlog_run_t *r, void *prep, char *err, size_t errlen)
{
    sink *s = ctx;
    digest d = digest_of(r);
    if (pthread_equal(pthread_self(), s->scanner))
        s->written_on_scanner++;
    if (memcmp(&d, prep, sizeof d))
        s->prep_mismatch++;
    if (s->n == s->fail_at)
        return rt_err(err, errlen, RT_EIO, "disk full at run %d", s->n);
    s->got = realloc(s->got, (size_t)(s->n + 1) * sizeof(*s->got));
    s->got[s->n++] = d;
    return 0;
}

static void discard(void *prep) { free(prep); }

static int wanted(const struct dirent *e)
{
    static const char *const kinds[] = {"perf-", "sram-", "memory-", "benchmark-", "accuracy-",
                                        "rtlog-init-", "evalperf-freqlist-"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strncmp(e->d_name, kinds[i], strlen(kinds[i])))
            return 1;
    return 0;
}

/* the samples, concatenated `copies` times */
static char *real_logs(int copies, size_t *len)
{
    const char *shared = getenv("RT_SHARED") ? getenv("RT_SHARED") : "../shared";
    char dir[512], path[1024], err[256];
    struct dirent **names = NULL;
    char *one = NULL, *all;
    size_t n1 = 0;
    int n;

    snprintf(dir, sizeof dir, "%s/data/logs", shared);
    n = scandir(dir, &names, wanted, alphasort);
    for (int i = 0; i < n; i++) {
        void *data = NULL;
        size_t l = 0;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (!rt_read_file(path, &data, &l, err, sizeof err)) {
            one = realloc(one, n1 + l + 1);
            memcpy(one + n1, data, l);
            n1 += l;
            if (l && one[n1 - 1] != '\n')
                one[n1++] = '\n';
            free(data);
        }
        free(names[i]);
    }
    free(names);
    all = malloc(n1 * (size_t)copies + 1);
    for (int c = 0; c < copies; c++)
        memcpy(all + n1 * (size_t)c, one, n1);
    free(one);
    *len = n1 * (size_t)copies;
    return all;
}

int main(void)
{
    size_t len = 0;
    char *text = real_logs(12, &len), err[512];
    vlog_t whole, streamed;
    sink s = {.scanner = pthread_self(), .fail_at = -1};
    import_stage stage = {prepare, write_run, discard, &s, NULL};

    CHECK(len > 100000, "samples read: %zu bytes", len);
    CHECK(vlog_scan(text, len, VLOG_F_ALL, &whole, err, sizeof err) == 0, "oracle scan: %s", err);
    CHECK(whole.n_runs > 200, "runs in the log: %d", whole.n_runs);

    CHECK(import_stream(text, len, VLOG_F_ALL, &streamed, &stage, err, sizeof err) == 0,
          "streamed: %s", err);
    CHECK(s.n == whole.n_runs, "every run written: %d of %d", s.n, whole.n_runs);
    int same = 0;
    for (int i = 0; i < s.n && i < whole.n_runs; i++) {
        digest d = digest_of(&whole.runs[i]);
        same += !memcmp(&d, &s.got[i], sizeof d);
    }
    CHECK(same == whole.n_runs, "runs equal the whole-log scan's, in order: %d of %d", same,
          whole.n_runs);
    CHECK(!s.prepared_elsewhere && !s.written_on_scanner, "prepare on the scanner (%d off), "
          "write on the writer (%d on the scanner)", s.prepared_elsewhere, s.written_on_scanner);
    CHECK(!s.prep_mismatch, "each write gets its own run's prepare (%d mismatches)", s.prep_mismatch);
    CHECK(streamed.n_runs == whole.n_runs && streamed.n_lines == whole.n_lines &&
              !memcmp(streamed.kinds, whole.kinds, sizeof whole.kinds),
          "line counts kept for the caller");
    int counts = 0;
    for (int i = 0; i < streamed.n_runs; i++)
        counts += streamed.runs[i].has_perf == whole.runs[i].has_perf &&
                  (!whole.runs[i].has_perf || streamed.runs[i].perf.n_rows == whole.runs[i].perf.n_rows) &&
                  streamed.runs[i].n_acc == whole.runs[i].n_acc &&
                  !strcmp(streamed.runs[i].info.soc, whole.runs[i].info.soc);
    CHECK(counts == whole.n_runs, "flags, counts and versions stay on the caller's runs: %d", counts);
    vlog_free(&streamed);

    /* a write that fails half-way: its error, nothing written after it */
    free(s.got);
    s.got = NULL;
    s.n = 0;
    s.fail_at = whole.n_runs / 2;
    int rc = import_stream(text, len, VLOG_F_ALL, &streamed, &stage, err, sizeof err);
    CHECK(rc == RT_EIO && strstr(err, "disk full at run"), "write error returned: %d %s", rc, err);
    CHECK(s.n == whole.n_runs / 2, "nothing written after the failure: %d", s.n);
    vlog_free(&streamed);

    /* a scan error: no run reaches the writer */
    free(s.got);
    s.got = NULL;
    s.n = 0;
    s.fail_at = -1;
    text[len / 3] = 0;
    rc = import_stream(text, len, VLOG_F_ALL, &streamed, &stage, err, sizeof err);
    CHECK(rc == RT_EFORMAT && strstr(err, "binary byte"), "scan error returned: %d %s", rc, err);
    CHECK(s.n == 0, "nothing written from a log that fails its scan: %d", s.n);

    vlog_free(&whole);
    free(s.got);
    free(text);
    TEST_END();
}
