/* tests/unit/test_npu_load.c — the driver's load text: real board samples
 * (shared/data/logs/npuload-*.txt, copied here verbatim), our formatter against
 * the kernel's "%2d%%" layout, and publishing under $RKNN_TRACE_SYSFS. */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include "runtime/npu/npu.h"
#include "tests/test.h"
#include "util/util.h"

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
        snprintf(path, sizeof path, "%s/rknpu", dir);
        rmdir(path);
        rmdir(dir);
    }
    TEST_END();
}
