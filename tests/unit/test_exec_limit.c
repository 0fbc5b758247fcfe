/* tests/unit/test_exec_limit.c — the executor's memory limit: a plan over
 * exec_opts.max_memory (arena plus the caller's held bytes) is refused before
 * anything is allocated, with the figures; exactly at the limit it runs. The
 * default limit is the machine's memory (/proc/meminfo MemTotal, read here) or a
 * lower RLIMIT_AS/RLIMIT_DATA; a plan of 32 GiB is refused by default on smaller
 * machines. exec_format_bytes against hand-written strings. */
#include "runtime/exec/exec.h"
#include "runtime/model/model.h"
#include "runtime/passes/passes.h"
#include "tests/test.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* x[n] -> Relu -> y[n] */
static graph_t *relu(int64_t n)
{
    graph_t *g = graph_new();
    int x = graph_add_tensor(g, "x"), y = graph_add_tensor(g, "y");
    g->t[x].kind = TK_INPUT;
    g->t[x].dtype = DT_FLOAT;
    g->t[x].ndim = 1;
    g->t[x].dims[0] = n;
    graph_add_node(g, "relu", "Relu", "", 1, &x, 1, &y);
    graph_set_io(g, 1, &x, 1, &y);
    char err[256];
    int rc = passes_prepare(g, NULL, 0, err, sizeof err);
    CHECK(rc == 0, "prepare: %s", err);
    return g;
}

static size_t mem_total(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (size_t)kb * 1024;
}

int main(void)
{
    char err[256], buf[32];
    exec_t *x = NULL;

    CHECK(!strcmp(exec_format_bytes(buf, sizeof buf, 100), "100 B"), "%s", buf);
    CHECK(!strcmp(exec_format_bytes(buf, sizeof buf, 1536), "1.5 KiB"), "%s", buf);
    CHECK(!strcmp(exec_format_bytes(buf, sizeof buf, (size_t)16 << 30), "16.0 GiB"), "%s", buf);
    CHECK(!strcmp(exec_format_bytes(buf, sizeof buf, (size_t)512 << 20), "512.0 MiB"), "%s", buf);

    /* 1000 floats in and out, each rounded up to 64 bytes: 2 * 4032 */
    graph_t *g = relu(1000);
    size_t arena = 2 * 4032;
    exec_opts o = {.nthreads = 1, .max_memory = arena};
    int rc = exec_create(g, &o, &x, err, sizeof err);
    CHECK(rc == 0 && x && exec_arena_bytes(x) == arena, "at the limit: %d %s", rc, err);
    exec_free(x);
    x = NULL;
    o.max_memory = arena - 1;
    rc = exec_create(g, &o, &x, err, sizeof err);
    CHECK(rc == RT_EUNSUPPORTED && !x && strstr(err, "needs 8064 B of activations, limit 8063 B"),
          "one byte over: %d %s", rc, err);
    o.max_memory = arena + 100;
    o.held_bytes = 101;
    rc = exec_create(g, &o, &x, err, sizeof err);
    CHECK(rc == RT_EUNSUPPORTED && !x && strstr(err, "plus 101 B of inputs"),
          "held bytes count: %d %s", rc, err);
    o.held_bytes = 100;
    rc = exec_create(g, &o, &x, err, sizeof err);
    CHECK(rc == 0 && x, "held bytes at the limit: %d %s", rc, err);
    exec_free(x);
    x = NULL;
    graph_free(g);

    /* the default: physical memory, or a lower process limit */
    size_t total = mem_total();
    struct rlimit as, data;
    getrlimit(RLIMIT_AS, &as);
    getrlimit(RLIMIT_DATA, &data);
    if (as.rlim_cur == RLIM_INFINITY && data.rlim_cur == RLIM_INFINITY)
        CHECK(exec_default_memory_limit() == total, "%zu vs MemTotal %zu",
              exec_default_memory_limit(), total);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {.rlim_cur = (rlim_t)3 << 30, .rlim_max = data.rlim_max};
        _exit(setrlimit(RLIMIT_DATA, &rl) == 0 && exec_default_memory_limit() == (size_t)3 << 30
                  ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "RLIMIT_DATA of 3 GiB is the default limit");

    /* 2^32 floats in and out: 32 GiB, refused without allocating */
    g = relu((int64_t)1 << 32);
    if (exec_default_memory_limit() < ((size_t)32 << 30)) {
        rc = exec_create(g, NULL, &x, err, sizeof err);
        CHECK(rc == RT_EUNSUPPORTED && !x && strstr(err, "needs 32.0 GiB of activations"),
              "32 GiB plan: %d %s", rc, err);
    }
    exec_free(x);
    graph_free(g);
    TEST_END();
}
