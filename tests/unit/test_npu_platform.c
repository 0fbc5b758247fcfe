/* tests/unit/test_npu_platform.c — the platform table against the numbers in
 * npu-hw.md, hand-checked (peak TOPS, DDR bytes per cycle, masks). */
#include <string.h>
#include "runtime/npu/npu.h"
#include "tests/test.h"
#include "util/util.h"

int main(void)
{
    const char *names[] = {"rk3588", "rk3576", "rk3566", "rk3568", "rk3562", "rv1106", "rv1103"};
    char err[256];
    const npu_platform_t *p;
    unsigned cores;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        p = npu_platform_find(names[i]);
        CHECK(p != NULL, "%s missing", names[i]);
        if (p)
            CHECK(strcmp(p->name, names[i]) == 0, "%s", p->name);
    }
    CHECK(npu_platform_find("RK3588") == npu_platform_find("rk3588"), "case");
    CHECK(npu_platform_get("rk9999", &p, err, sizeof err) == RT_EINVAL, "unknown");
    CHECK(strstr(err, "rk9999") && strstr(err, "rv1103"), "message lists names: %s", err);

    /* Peak: 3 cores x 1024 MAC x 2 ops x 1 GHz = 6.14 TOPS int8 (npu-hw.md §1.2). */
    p = npu_platform_find("rk3588");
    CHECK_NEAR(p->cores * npu_peak_macs(p, NPU_INT8) * 2.0 * p->npu_mhz * 1e6, 6.144e12, 1e9,
               "rk3588 int8 TOPS");
    CHECK(npu_peak_macs(p, NPU_FP16) == 512, "rk3588 fp16 512");
    /* 23.654 B/cycle: the constant that reproduces LOG-Y8 DDR cycles. */
    CHECK_NEAR(npu_ddr_bytes_per_cycle(p), 23.6544, 1e-4, "rk3588 ddr B/cycle");
    CHECK(p->sram_bytes == 978944, "sram 0xef000");
    /* RK3562 512 x 2 x 1 GHz = 1.02 TOPS; RV1106 512 x 2 x 0.5 GHz = 0.51 TOPS */
    p = npu_platform_find("rk3562");
    CHECK_NEAR(npu_peak_macs(p, NPU_INT8) * 2.0 * p->npu_mhz * 1e6, 1.024e12, 1e9, "rk3562");
    p = npu_platform_find("rv1106");
    CHECK_NEAR(npu_peak_macs(p, NPU_INT8) * 2.0 * p->npu_mhz * 1e6, 0.512e12, 1e9, "rv1106");
    CHECK(npu_peak_macs(p, NPU_FP16) == 0, "rv1106 has no fp16");
    p = npu_platform_find("rk3566");
    CHECK(p->c2[NPU_INT8] == 8 && p->c2[NPU_FP16] == 4, "rk356x C2");

    /* core masks */
    p = npu_platform_find("rk3588");
    CHECK(npu_core_mask_check(p, 7, &cores, err, sizeof err) == 0 && cores == 7, "0_1_2");
    CHECK(npu_core_mask_check(p, 0, &cores, err, sizeof err) == 0 && cores == 1, "auto");
    CHECK(npu_core_mask_check(p, 0xffff, &cores, err, sizeof err) == 0 && cores == 7, "all");
    p = npu_platform_find("rk3576");
    CHECK(npu_core_mask_check(p, 4, &cores, err, sizeof err) == RT_EINVAL, "core2 on rk3576");
    CHECK(strstr(err, "rk3576") != NULL, "%s", err);
    TEST_END();
}
