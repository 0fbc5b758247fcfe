/* runtime/npu/npu_transpose.c — the NPU's Transpose limits, per permutation.
 *
 * RKNN Compiler Support Operator List 2.3.2 (rknn-toolkit2 doc/05_...pdf),
 * "Transpose" of §3.2 RK3588, §3.3 RK3562, §3.4 RV1103/RV1106, §3.5
 * RK3576/RV1126B, §3.6 RK2118, §3.7 RV1103B/RV1106B: input [n1,c1,h1,w1], one
 * set of conditions per perm, the same formulas on every chip but for
 * p = 8192, q = 2048 (RK3588, RV1103/RV1106) or p = 268435456, q = 65536 (the
 * others). T1 is int8, T2 int16/float16: T1's alignments and factors are 16
 * where T2's are 8 (a below). The list's RK356X section has other rules
 * (npu_lower.c). A Transpose that fails them runs on the CPU: a real build log
 * (shared/data/logs buildlog-debug-layertable-2x-transpose-cpu-fp16-01: perm
 * [0,1,3,2] of a float16 (1,2,3,4), h1 = 3 not a multiple of 8) shows it so. */
#include <stdio.h>
#include <string.h>
#include "runtime/npu/npu.h"

static int small_pq(const npu_platform_t *p)
{
    return !strcmp(p->family, "rk3588") || !strcmp(p->name, "rv1106") ||
           !strcmp(p->name, "rv1103");
}

const char *npu_transpose_limit(const npu_platform_t *plat, const int perm[4], const int64_t x[4],
                                int int8)
{
    const int64_t n1 = x[0], c1 = x[1], h1 = x[2], w1 = x[3];
    const int64_t p = small_pq(plat) ? 8192 : 268435456, q = small_pq(plat) ? 2048 : 65536;
    const int64_t a = int8 ? 16 : 8;
    const char *bad = NULL;
#define NEED(cond)                 \
    do {                           \
        if (!bad && !(cond))       \
            bad = #cond;           \
    } while (0)

    switch (perm[0] * 1000 + perm[1] * 100 + perm[2] * 10 + perm[3]) {
    case 123:
        break;
    case 132:
        NEED(h1 % a == 0); NEED(h1 * w1 < a * p); NEED(h1 * w1 < 2 * q);
        break;
    case 231:
        /* the list also asks h1 * w1 % 8 == 0, which the compiler does not
         * apply: toolkit 2.3.2's RetinaFace_mobile320 for RK3562 and RK3576
         * keeps the int8 (1,4,10,10) and (1,8,105,20) of this perm (100 and
         * 2100 pixels) on the NPU (docs/npu-model.md) */
        NEED(c1 < 8192); NEED(w1 * c1 < p * a);
        break;
    case 213:
        NEED(h1 % a == 0); NEED(h1 * w1 < a * p); NEED(h1 * w1 < 2 * q); NEED(c1 * w1 < p);
        break;
    case 312:
        NEED(h1 * w1 < p); NEED(w1 < 8192); NEED(h1 * c1 < p);
        break;
    case 321:
        NEED(h1 % a == 0); NEED(h1 * w1 < a * p); NEED(h1 * w1 < 2 * q); NEED(c1 < p * a);
        break;
    case 1023:
        NEED(h1 * w1 < a * p); NEED(n1 < 8192); NEED(h1 * w1 < p);
        break;
    case 1032:
        NEED(h1 % a == 0); NEED(c1 * h1 * w1 < a * p); NEED(h1 * w1 < 2 * q);
        break;
    case 1203:
        NEED(n1 * w1 < p * a); NEED(c1 * h1 * w1 < p); NEED(w1 % a == 0);
        break;
    case 1230:
        NEED(h1 * w1 < p); NEED(n1 < p * a); NEED(c1 * h1 * w1 < p * a); NEED(n1 * w1 < p * a);
        break;
    case 1302:
        NEED(c1 * w1 < 8192); NEED(n1 * h1 < p); NEED(w1 % a == 0);
        break;
    case 1320:
        NEED(c1 * h1 * w1 < p); NEED(n1 * h1 < p); NEED(w1 < 8192); NEED(w1 % a == 0);
        break;
    case 2103:
        NEED(c1 < 8192); NEED(c1 * h1 * w1 < p); NEED(n1 * w1 < p);
        break;
    case 2130:
        NEED(c1 * h1 * w1 < p); NEED(n1 * w1 < p * a); NEED(c1 < 8192); NEED(n1 * w1 % 4 == 0);
        break;
    case 2031:
        NEED(c1 < 8192); NEED(c1 * h1 * w1 < p);
        break;
    case 2013:
        NEED(n1 * c1 * h1 * w1 < p); NEED(h1 * w1 % a == 0);
        break;
    case 2310:
        NEED(c1 * h1 * w1 < p); NEED(n1 * c1 < p); NEED(h1 * w1 < 8192); NEED(h1 * w1 % a == 0);
        break;
    case 2301:
        NEED(h1 * w1 < 8192); NEED(n1 * c1 < p);
        break;
    case 3021:
        NEED(h1 * w1 < p); NEED(n1 * c1 < 8192); NEED(c1 * h1 < p); NEED(n1 * w1 < 8192);
        NEED(n1 * w1 % a == 0);
        break;
    case 3012:
        NEED(h1 * w1 < p); NEED(n1 * c1 < 8192); NEED(c1 * h1 < p); NEED(n1 * w1 < 8192);
        NEED(n1 * h1 * w1 % a == 0);
        break;
    case 3201:
        NEED(h1 * w1 < p); NEED(n1 * c1 < 8192); NEED(n1 * c1 * w1 < p);
        break;
    case 3210:
        NEED(c1 * h1 * w1 < p); NEED(h1 * w1 < 8192); NEED(2 * h1 * w1 < q); NEED(n1 * c1 < p * a);
        NEED(h1 % a == 0);
        break;
    case 3102:
        NEED(h1 * w1 < p); NEED(c1 * w1 < 8192); NEED(n1 * h1 < p);
        break;
    case 3120:
        NEED(h1 * w1 < p); NEED(n1 * c1 < 8192); NEED(n1 * h1 < p); NEED(n1 * c1 * w1 < p);
        break;
    default:
        bad = "a permutation of 0..3";
    }
#undef NEED
    return bad;
}
