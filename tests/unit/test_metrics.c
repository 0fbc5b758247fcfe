/* Error metrics against hand-computed values (ref [1,2,3,4] vs [1,2,3,5]:
 * dot 34, |r|^2 30, |x|^2 39, error 1) and the NaN marker cases. */
#include "analyze/analyze.h"
#include "runtime/model/model.h"
#include "tests/test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int main(void)
{
    metrics_t m;
    char buf[32];

    float r[] = {1, 2, 3, 4}, x[] = {1, 2, 3, 5};
    metrics_compute(r, x, 4, &m);
    CHECK_NEAR(m.cos, 34.0 / sqrt(30.0 * 39.0), 1e-12, "cos");
    CHECK_NEAR(m.cos, 0.9939990885479665, 1e-12, "cos literal");
    CHECK_NEAR(m.euc, 1.0, 1e-12, "euc");
    CHECK_NEAR(m.max_abs, 1.0, 1e-12, "max_abs");
    CHECK_NEAR(m.mean_abs, 0.25, 1e-12, "mean_abs");
    CHECK_NEAR(m.sqnr_db, 14.771212547196624, 1e-9, "sqnr");
    CHECK(m.flags == 0 && m.n == 4, "flags %d n %lld", m.flags, (long long)m.n);

    /* Identical: cos 1, SQNR +inf, errors 0. */
    metrics_compute(r, r, 4, &m);
    CHECK(m.cos == 1.0 && isinf(m.sqnr_db) && m.sqnr_db > 0 && m.euc == 0, "identical");

    /* Opposite direction. */
    float neg[] = {-1, -2, -3, -4};
    metrics_compute(r, neg, 4, &m);
    CHECK_NEAR(m.cos, -1.0, 1e-12, "opposite cos");
    CHECK_NEAR(m.euc, sqrt(4 * 30.0), 1e-9, "opposite euc");

    /* Constant reference (all equal, not zero): cos and sqnr are nan, euc defined. */
    float c2[] = {2, 2, 2, 2};
    metrics_compute(c2, x, 4, &m);
    CHECK(isnan(m.cos) && isnan(m.sqnr_db) && (m.flags & METRIC_REF_CONST), "const ref");
    CHECK_NEAR(m.euc, sqrt(1 + 0 + 1 + 9.0), 1e-12, "const ref euc");
    CHECK_NEAR(m.max_abs, 3, 1e-12, "const ref max");

    /* All-zero output. */
    float z[] = {0, 0, 0, 0};
    metrics_compute(r, z, 4, &m);
    CHECK(isnan(m.cos) && (m.flags & METRIC_X_CONST), "zero x");
    CHECK_NEAR(m.euc, sqrt(30.0), 1e-12, "zero x euc");
    metrics_compute(z, z, 4, &m);
    CHECK(isnan(m.cos) && isnan(m.sqnr_db) && m.euc == 0, "both zero");

    /* Non-finite: everything nan. */
    float bad[] = {1, NAN, 3, 4}, inf[] = {1, 2, INFINITY, 4};
    metrics_compute(r, bad, 4, &m);
    CHECK(isnan(m.cos) && isnan(m.euc) && isnan(m.max_abs) && (m.flags & METRIC_NONFINITE),
          "nan input");
    metrics_compute(inf, r, 4, &m);
    CHECK(isnan(m.cos) && isnan(m.euc) && (m.flags & METRIC_NONFINITE), "inf input");

    /* Empty. */
    metrics_compute(r, x, 0, &m);
    CHECK(isnan(m.cos) && (m.flags & METRIC_EMPTY), "empty");

    /* Typed: int8 reference vs float16 (1.0=0x3c00, 2.0=0x4000, 3=0x4200, 5=0x4500). */
    int8_t ri[] = {1, 2, 3, 4};
    uint16_t xh[] = {0x3c00, 0x4000, 0x4200, 0x4500};
    CHECK(metrics_compute_typed(DT_INT8, ri, DT_FLOAT16, xh, 4, &m, NULL, 0) == 0, "typed rc");
    CHECK_NEAR(m.cos, 0.9939990885479665, 1e-12, "typed cos");
    CHECK_NEAR(m.euc, 1.0, 1e-12, "typed euc");
    CHECK(metrics_compute_typed(DT_STRING, ri, DT_FLOAT, x, 4, &m, buf, sizeof(buf)) < 0,
          "string refused");

    /* Toolkit2-style cells. */
    CHECK(!strcmp(metrics_fmt_cos(0.992016, buf, sizeof(buf)), "0.99202"), "%s", buf);
    CHECK(!strcmp(metrics_fmt_cos(NAN, buf, sizeof(buf)), "nan"), "%s", buf);
    CHECK(!strcmp(metrics_fmt_euc(2.05994, buf, sizeof(buf)), "2.0599"), "%s", buf);
    CHECK(!strcmp(metrics_fmt_euc(64.5481, buf, sizeof(buf)), "64.548"), "%s", buf);
    CHECK(!strcmp(metrics_fmt_euc(0.22904, buf, sizeof(buf)), "0.2290"), "%s", buf);
    CHECK(!strcmp(metrics_fmt_euc(0.0, buf, sizeof(buf)), "0.0"), "%s", buf);
    CHECK(!strcmp(metrics_fmt_euc(13.2351, buf, sizeof(buf)), "13.235"), "%s", buf);
    /* colour grades of the accuracy table (and the TUI): >= thr, within 0.04, below, NaN */
    CHECK(metrics_cos_grade(0.995, 0.99) == METRIC_GRADE_OK, "grade ok");
    CHECK(metrics_cos_grade(0.99, 0.99) == METRIC_GRADE_OK, "grade at thr");
    CHECK(metrics_cos_grade(0.96, 0.99) == METRIC_GRADE_NEAR, "grade near");
    CHECK(metrics_cos_grade(0.94, 0.99) == METRIC_GRADE_BAD, "grade bad");
    CHECK(metrics_cos_grade(NAN, 0.99) == METRIC_GRADE_NAN, "grade nan");
    /* Tolerance: |x - r| <= atol + rtol |r| per element; the worst element is
     * the first one with the largest difference (index 6 and 9 both differ
     * by 2), a NaN or inf ranks above all. */
    float tr[21], tx[21];
    for (int i = 0; i < 21; i++)
        tr[i] = (float)i, tx[i] = (float)i;
    tx[9] += 2, tx[6] -= 2, tx[20] += 0.5f, tx[5] += 1;
    tol_t t;
    CHECK(metrics_tolerance(DT_FLOAT, tr, DT_FLOAT, tx, 21, 0.6, 0, &t, NULL, 0) == 0, "tol rc");
    CHECK(t.fail == 3 && t.worst == 6 && t.x == 4 && t.ref == 6, "tol fail %lld worst %lld",
          (long long)t.fail, (long long)t.worst);
    /* rtol 0.1 at r = 20 allows 2.0 more: index 20 (0.5 off) passes at atol 0 too */
    CHECK(metrics_tolerance(DT_FLOAT, tr, DT_FLOAT, tx, 21, 0, 0.1, &t, NULL, 0) == 0 &&
          t.fail == 3, "tol rtol %lld", (long long)t.fail);
    tx[17] = NAN;
    CHECK(metrics_tolerance(DT_FLOAT, tr, DT_FLOAT, tx, 21, 0.6, 0, &t, NULL, 0) == 0 &&
          t.fail == 4 && t.worst == 17 && t.ref == 17, "tol nan %lld %lld",
          (long long)t.fail, (long long)t.worst);
    /* the generic path (doubles) agrees element for element */
    double dr[21], dx[21];
    for (int i = 0; i < 21; i++)
        dr[i] = tr[i], dx[i] = tx[i];
    tol_t u;
    CHECK(metrics_tolerance(DT_DOUBLE, dr, DT_DOUBLE, dx, 21, 0.6, 0, &u, NULL, 0) == 0 &&
          u.fail == t.fail && u.worst == t.worst, "tol generic %lld %lld", (long long)u.fail,
          (long long)u.worst);
    CHECK(metrics_tolerance(DT_FLOAT, tr, DT_FLOAT, tx, 0, 0.6, 0, &t, NULL, 0) == 0 &&
          t.fail == 0 && t.worst == -1, "tol empty");
    /* compare's speed verdict: 1100 us against 1000 us is 10 % slower */
    char v[128];
    CHECK_NEAR(compare_slower_pct(1000, 1100), 10.0, 1e-9, "slower pct");
    CHECK(isnan(compare_slower_pct(NAN, 1100)) && isnan(compare_slower_pct(1000, NAN)), "slower nan");
    CHECK(!strcmp(compare_verdict(v, sizeof v, "B", 10.0, 0), "B vs A: predicted NPU frame +10.0%"), "%s", v);
    CHECK(!strcmp(compare_verdict(v, sizeof v, "C", -2.5, 1), "C vs A: host median (this PC) -2.5%"), "%s", v);
    CHECK(!strcmp(compare_verdict(v, sizeof v, "B", NAN, 0),
                  "B vs A: predicted NPU frame - (no prediction; --by host)"), "%s", v);
    TEST_END();
}
