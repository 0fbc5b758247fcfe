/* tests/unit/test_npu_load.c — the driver's load text: real board samples
 * (shared/data/logs/npuload-*.txt, copied here verbatim), our formatter against
 * the kernel's "%2d%%" layout, and publishing under $RKNN_TRACE_SYSFS: planted
 * symbolic links and directories of others are refused or replaced, never written
 * through (oracle: lstat and the victim file's bytes), and two processes publishing
 * at once always leave a complete file. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "runtime/npu/npu.h"
#include "tracer/board.h"
#include "tests/test.h"
#include "util/util.h"

static char root[] = "/tmp/test_npu_load.XXXXXX";

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", path);
}

/* Publishes a 1-core load into RKNN_TRACE_SYSFS=<root>/<sub>. */
static int publish_in(const char *sub, char *err, size_t errlen)
{
    char dir[300];
    npu_load_t ld;

    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    setenv("RKNN_TRACE_SYSFS", dir, 1);
    npu_load_init(&ld, npu_platform_find("rk3568"));
    ld.busy_us[0] = 420000;
    return npu_load_publish(&ld, err, errlen);
}

static int file_is(const char *path, const char *text)
{
    char buf[256];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;

    if (f)
        fclose(f);
    buf[n] = 0;
    return f && !strcmp(buf, text);
}

/* <root>/<sub>, in one of two buffers used in turn (two paths per statement) */
static const char *at(const char *sub)
{
    static char buf[2][400];
    static int k;

    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s/%s", root, sub);
    return buf[k];
}

static void mk(const char *sub, mode_t mode)
{
    CHECK(mkdir(at(sub), 0700) == 0 && chmod(at(sub), mode) == 0, "mkdir %s", sub);
}

static void test_planted(void)
{
    char err[512];
    struct stat st;

    /* <dir>/rknpu is a link to elsewhere: refused, nothing written there */
    mk("s1", 0700);
    mk("elsewhere", 0700);
    CHECK(symlink(at("elsewhere"), at("s1/rknpu")) == 0, "plant rknpu link");
    CHECK(publish_in("s1", err, sizeof err) == RT_EIO && strstr(err, "s1/rknpu is a symbolic link"),
          "rknpu link refused: %s", err);
    CHECK(access(at("elsewhere/load"), F_OK) != 0, "nothing written through the rknpu link");

    /* <dir>/rknpu/load is a link to a victim file: the link is replaced, the victim kept */
    mk("s2", 0700);
    mk("s2/rknpu", 0700);
    put(at("victim"), "precious\n");
    CHECK(symlink(at("victim"), at("s2/rknpu/load")) == 0, "plant load link");
    CHECK(publish_in("s2", err, sizeof err) == 0, "publish over a load link: %s", err);
    CHECK(file_is(at("victim"), "precious\n"), "victim unchanged");
    CHECK(lstat(at("s2/rknpu/load"), &st) == 0 && S_ISREG(st.st_mode) &&
              file_is(at("s2/rknpu/load"), "NPU load: 42%\n"),
          "load is now our own file");

    /* under a world-writable sticky directory (as /tmp) */
    mk("w", 01777);
    CHECK(publish_in("w/fresh", err, sizeof err) == 0, "fresh directory: %s", err);
    CHECK(lstat(at("w/fresh"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 077) == 0,
          "created 0700: %o", (unsigned)st.st_mode);
    CHECK(lstat(at("w/fresh/rknpu"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 077) == 0,
          "rknpu created 0700: %o", (unsigned)st.st_mode);
    CHECK(symlink(at("elsewhere"), at("w/linked")) == 0, "plant a link in the shared directory");
    CHECK(publish_in("w/linked", err, sizeof err) == RT_EIO && strstr(err, "symbolic link"),
          "link under a world-writable parent refused: %s", err);
    CHECK(access(at("elsewhere/rknpu"), F_OK) != 0, "nothing created through the link");
    mk("w/open", 0777);
    CHECK(publish_in("w/open", err, sizeof err) == RT_EIO && strstr(err, "writable by group or others"),
          "a directory others can write refused: %s", err);

    /* a directory of another user */
    if (geteuid() != 0) {
        printf("skipped: directories owned by another uid need root to create (chown)\n");
        return;
    }
    mk("w/foreign", 0700);
    CHECK(chown(at("w/foreign"), 12345, 12345) == 0, "chown %s", strerror(errno));
    CHECK(publish_in("w/foreign", err, sizeof err) == RT_EIO && strstr(err, "belongs to uid 12345"),
          "foreign directory under a world-writable parent refused: %s", err);
    CHECK(access(at("w/foreign/rknpu"), F_OK) != 0, "nothing created in it");
    mk("s3", 0700);
    mk("s3/rknpu", 0700);
    CHECK(chown(at("s3/rknpu"), 12345, 12345) == 0, "chown rknpu");
    CHECK(publish_in("s3", err, sizeof err) == RT_EIO && strstr(err, "belongs to uid 12345"),
          "foreign rknpu refused: %s", err);
}

/* Two processes publish 200 times each while this one reads: every read is one of
 * the two complete texts, no publish fails, no temporary file is left behind. */
static void test_concurrent(void)
{
    const char *texts[2] = {"NPU load:  Core0: 11%, Core1: 22%, Core2: 33%,\n",
                            "NPU load:  Core0: 44%, Core1: 55%, Core2: 66%,\n"};
    char dir[300], path[400], buf[256];
    pid_t kid[2];
    int reads = 0, torn = 0, status, fails = 0, others = 0;

    snprintf(dir, sizeof dir, "%s/conc", root);
    setenv("RKNN_TRACE_SYSFS", dir, 1);
    snprintf(path, sizeof path, "%s/rknpu/load", dir);
    for (int k = 0; k < 2; k++) {
        kid[k] = fork();
        if (kid[k] == 0) {
            npu_load_t ld;
            char err[512];
            int bad = 0;
            npu_load_init(&ld, npu_platform_find("rk3588"));
            for (int c = 0; c < 3; c++)
                ld.busy_us[c] = (k * 3 + c + 1) * 110000.0;
            for (int i = 0; i < 200; i++)
                if (npu_load_publish(&ld, err, sizeof err)) {
                    fprintf(stderr, "publish %d: %s\n", i, err);
                    bad++;
                }
            _exit(bad > 100 ? 100 : bad);
        }
    }
    for (int alive = 2; alive > 0;) {
        FILE *f = fopen(path, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = 0;
            fclose(f);
            reads++;
            torn += strcmp(buf, texts[0]) && strcmp(buf, texts[1]);
        }
        alive = 0;
        for (int k = 0; k < 2; k++)
            if (kid[k] > 0 && waitpid(kid[k], &status, WNOHANG) == 0)
                alive++;
            else if (kid[k] > 0) {
                fails += !WIFEXITED(status) || WEXITSTATUS(status);
                kid[k] = 0;
            }
    }
    CHECK(fails == 0, "%d publishing processes failed", fails);
    CHECK(torn == 0 && reads > 0, "%d of %d reads saw an incomplete file", torn, reads);
    snprintf(path, sizeof path, "%s/rknpu", dir);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));)
        others += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "load") &&
                  strcmp(e->d_name, "owner");
    if (d)
        closedir(d);
    CHECK(d && others == 0, "%d temporary files left in %s", others, path);
    printf("concurrent publishing: 2 x 200 writes, %d reads, all complete\n", reads);
}

/* The simulator's load lasts as long as its publisher: a process that published
 * and exited reads as idle (0 %), a live one as what it published; the owner line
 * names a process by pid and start time (oracle: the kernel's /proc). */
static void test_expiry(void)
{
    char dir[300], owner[64];
    board_snapshot_t s;
    pid_t kid;
    int status;

    snprintf(dir, sizeof dir, "%s/expiry", root);
    setenv("RKNN_TRACE_SYSFS", dir, 1);
    kid = fork();
    if (kid == 0) {
        char err[512];
        npu_load_t ld;
        npu_load_init(&ld, npu_platform_find("rk3588"));
        ld.busy_us[0] = 910000;
        _exit(npu_load_publish(&ld, err, sizeof err) ? 1 : 0);
    }
    CHECK(kid > 0 && waitpid(kid, &status, 0) == kid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0, "child published");
    board_snapshot(&s, NULL, 1, BOARD_SNAP_LOAD);
    CHECK(s.load_state == BOARD_OK && s.cores == 3 && s.load_pct[0] == 0,
          "exited publisher: state %d, core0 %d%% (want 0)", s.load_state, s.load_pct[0]);
    {
        char err[512];
        npu_load_t ld;
        npu_load_init(&ld, npu_platform_find("rk3588"));
        ld.busy_us[0] = 910000;
        CHECK(npu_load_publish(&ld, err, sizeof err) == 0, "%s", err);
    }
    board_snapshot(&s, NULL, 1, BOARD_SNAP_LOAD);
    CHECK(s.load_state == BOARD_OK && s.load_pct[0] == 91, "live publisher: core0 %d%%",
          s.load_pct[0]);
    snprintf(owner, sizeof owner, "%ld 1", (long)getpid());
    CHECK(npu_load_owner_alive(owner) == 0, "a reused pid (other start time) is not the owner");
    CHECK(npu_load_owner_alive("nonsense") == -1, "text that is not an owner line");
}

int main(void)
{
    int pct[NPU_MAX_CORES];
    char err[256], buf[128];
    npu_load_t ld;
    const npu_platform_t *p = npu_platform_find("rk3588");

    /* board samples (triority-02, goRknnlite-05) */
    CHECK(npu_load_parse("NPU load:  Core0: 61%, Core1: 50%, Core2: 50%,\n", pct, err, sizeof err) == 3,
          "3 cores");
    CHECK(pct[0] == 61 && pct[1] == 50 && pct[2] == 50, "values");
    CHECK(npu_load_parse("NPU load:  Core0:  0%, Core1:  0%, Core2:  0%,", pct, err, sizeof err) == 3 &&
          pct[0] == 0, "idle");
    CHECK(npu_load_parse("NPU load:  Core0:  21%, Core1:  11%", pct, err, sizeof err) == 2 &&
          pct[1] == 11, "3-wide");
    CHECK(npu_load_parse("NPU load: 37%\n", pct, err, sizeof err) == 1 && pct[0] == 37, "single");
    CHECK(npu_load_parse("NPU load:  Core0: x%", pct, err, sizeof err) == RT_EFORMAT, "bad");
    CHECK(npu_load_parse("nothing", pct, err, sizeof err) == RT_EFORMAT, "missing");

    npu_load_init(&ld, p);
    ld.busy_us[0] = 610000;
    ld.busy_us[1] = 505000;
    ld.busy_us[2] = 0;
    npu_load_format(&ld, buf, sizeof buf);
    CHECK(!strcmp(buf, "NPU load:  Core0: 61%, Core1: 50%, Core2:  0%,\n"), "'%s'", buf);
    ld.busy_us[0] = 2e6;
    npu_load_format(&ld, buf, sizeof buf);
    CHECK(strstr(buf, "Core0: 100%,") != NULL, "clamped: %s", buf);
    npu_load_init(&ld, npu_platform_find("rk3568"));
    ld.busy_us[0] = 50000;
    npu_load_format(&ld, buf, sizeof buf);
    CHECK(!strcmp(buf, "NPU load:  5%\n"), "'%s'", buf);
    CHECK(npu_load_parse(buf, pct, err, sizeof err) == 1 && pct[0] == 5, "round trip");

    {
        char dir[256], path[300];
        void *data;
        size_t len;
        snprintf(dir, sizeof dir, "/tmp/rknn-trace-test-load-%d", (int)getpid());
        setenv("RKNN_TRACE_SYSFS", dir, 1);
        CHECK(!strcmp(npu_sysfs_dir(path, sizeof path), dir), "env dir");
        CHECK(npu_load_publish(&ld, err, sizeof err) == 0, "%s", err);
        snprintf(path, sizeof path, "%s/rknpu/load", dir);
        CHECK(rt_read_file(path, &data, &len, err, sizeof err) == 0 &&
              npu_load_parse(data, pct, err, sizeof err) == 1 && pct[0] == 5, "published");
        free(data);
        unlink(path);
        snprintf(path, sizeof path, "%s/rknpu/owner", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/rknpu", dir);
        rmdir(path);
        rmdir(dir);
    }

    /* the default when nothing is set */
    {
        char path[300], want[64];
        unsetenv("RKNN_TRACE_SYSFS");
        unsetenv("XDG_RUNTIME_DIR");
        snprintf(want, sizeof want, "/tmp/rknn-trace-%u", (unsigned)getuid());
        CHECK(!strcmp(npu_sysfs_dir(path, sizeof path), want), "default %s", path);
    }
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_planted();
    test_concurrent();
    test_expiry();
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", root);
        CHECK(system(cmd) == 0, "clean up %s", root);
    }
    TEST_END();
}
