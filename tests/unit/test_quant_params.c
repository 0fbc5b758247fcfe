/* int8 parameters and fp16 rounding against hand-computed values (the first
 * pair comes from a real RKNN file: range [-612.12, 444.18] -> scale 4.1424,
 * zp 20, docs/research rknn-format.md), and the histogram range search. */
#include "runtime/quant/quant.h"
#include "tests/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* quant_grid_bytes_exact: on every grid it accepts, each dequantized value
 * (q - zp) * scale quantizes back to q by every quantizer (quant_q8, the
 * vector quant_q8_bytes, quant_q8_quads, quant_q8_centered), so that an int8
 * layer may read its input's bytes instead of its floats. Scales spread
 * log-uniformly over the accepted [2^-100, 2^100] and its edges, with float
 * mantissas of every kind, over every zp. */
static void bytes_round_trip(void)
{
    uint64_t r = 0x9E3779B97F4A7C15ULL;
    float x[256], cen[256];
    uint8_t b[256];
    uint32_t quad[256];
    int grids = 0, bad = 0;
    for (int k = 0; k < 4000; k++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        qparam_t p = {.zp = (int32_t)(r % 256) - 128};
        double e = -100.0 + 200.0 * (double)((r >> 11) & 0xfffff) / 0xfffff;
        p.scale = k == 0 ? 0x1p-100f : k == 1 ? 0x1p100f : k == 2 ? 1.0f
                : (float)ldexp(1.0 + (double)(r >> 44) / (1 << 20), (int)floor(e));
        if (!quant_grid_bytes_exact(&p))
            continue;
        grids++;
        for (int q = -128; q < 128; q++)
            x[q + 128] = quant_dq8((int8_t)q, &p);
        quant_q8_bytes(x, 1, 256, 256, &p, b, 256);
        const float *rows[4] = {x, x, x, x};
        quant_q8_quads(rows, 4, 256, &p, quad);
        quant_q8_centered(x, cen, 256, &p);
        for (int q = -128; q < 128; q++) {
            int i = q + 128;
            bad += quant_q8(x[i], &p) != q || b[i] != i || quad[i] != (uint32_t)i * 0x01010101u ||
                   cen[i] != (float)(q - p.zp);
        }
    }
    CHECK(grids > 3000 && bad == 0, "%d values of %d grids do not quantize back to their q", bad,
          grids);
    qparam_t tiny = {.scale = 0x1p-101f}, huge = {.scale = 0x1p101f}, off = {.scale = 1, .zp = 128};
    CHECK(!quant_grid_bytes_exact(&tiny) && !quant_grid_bytes_exact(&huge) &&
          !quant_grid_bytes_exact(&off), "grids outside the bound accepted");
    /* quant_bytes_map: every index, a partial last vector, dst past n kept */
    uint8_t tab[256], src[1000], dst[1001];
    for (int i = 0; i < 256; i++)
        tab[i] = (uint8_t)(i * 37 + 11);
    for (int i = 0; i < 1000; i++)
        src[i] = (uint8_t)(i * 7919 >> 3);
    memset(dst, 0xA5, sizeof dst);
    quant_bytes_map(tab, src, dst, 999);
    int badm = dst[999] != 0xA5;
    for (int i = 0; i < 999; i++)
        badm += dst[i] != tab[src[i]];
    CHECK(badm == 0, "quant_bytes_map: %d bytes wrong", badm);
}

/* The vector quantizers (quant_q8_bytes, quant_q8_quads) against quant_q8
 * on any float, not only grid values: halves of the grid and their float
 * neighbours (where a one-FMA rounding could differ), values far past
 * either bound, NaN, infinities, signed zeros and subnormals, on grids
 * inside and outside quant_grid_bytes_exact's bound, over lengths that end
 * in a partial vector. */
static void vector_quantizers(void)
{
    uint64_t r = 0xD1B54A32D192ED03ULL;
    enum { N = 301 };
    float x[N], x1[N], x2[N], x3[N];
    uint8_t b[N];
    uint32_t quad[N];
    int bad = 0, cases = 0;
    for (int k = 0; k < 600; k++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        qparam_t p = {.zp = (int32_t)(r % 256) - 128};
        double e = -110.0 + 220.0 * (double)((r >> 11) & 0xfffff) / 0xfffff;
        p.scale = (float)ldexp(1.0 + (double)(r >> 44) / (1 << 20), (int)floor(e));
        for (int i = 0; i < N; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            int q = (int)(r % 700) - 350; /* past both bounds too */
            float h = (float)(((double)q + 0.5) * p.scale);
            switch (r >> 60) {
            case 0: x[i] = h; break;
            case 1: x[i] = nextafterf(h, INFINITY); break;
            case 2: x[i] = nextafterf(h, -INFINITY); break;
            case 3: x[i] = (float)q * p.scale; break;
            case 4: x[i] = (r >> 40 & 3) == 0 ? NAN : (r >> 40 & 3) == 1 ? INFINITY : -INFINITY; break;
            case 5: x[i] = (r >> 40 & 1) ? -0.0f : 0x1p-140f; break;
            case 6: x[i] = (float)ldexp((double)(r >> 20 & 0xffff) - 32768.0, (int)(r >> 36 & 63) - 32); break;
            default: x[i] = (float)(((double)(r >> 12 & 0xfffff) / 0xfffff - 0.5) * 600.0 * p.scale);
            }
            x1[i] = -x[i], x2[i] = x[i] * 0.5f, x3[i] = x[(i * 7) % N];
        }
        const int n = N - k % 17;
        quant_q8_bytes(x, 1, n, n, &p, b, n);
        const float *rows[4] = {x, x1, x2, x3};
        quant_q8_quads(rows, 1 + k % 4, n, &p, quad);
        for (int i = 0; i < n; i++) {
            uint32_t want = (uint32_t)(quant_q8(x[i], &p) + 128);
            const float *v[4] = {x, x1, x2, x3};
            uint32_t wq = 0;
            for (int c = 0; c < 4; c++)
                wq |= (c < 1 + k % 4 ? (uint32_t)(quant_q8(v[c][i], &p) + 128)
                                     : (uint32_t)(p.zp + 128)) << (8 * c);
            bad += b[i] != want || quad[i] != wq;
            cases++;
        }
    }
    CHECK(bad == 0, "vector quantizers: %d of %d values differ from quant_q8", bad, cases);
}

/* quant_ew_qdq_in writing bytes alone, or bytes and floats, against
 * quant_q8 of the op on the operands' dequantized values: both operands from bytes, and a
 * per-row factor; output grids from coarse to so fine that most results lie
 * far past the bounds (up to infinity: a division by zero), where the
 * vector path saturates without clamping first, and grids on which many
 * results fall exactly on halves. */
static void ew_bytes_alone(void)
{
    enum { N = 1000, ROW = 40 };
    uint8_t a[N], b[N], yb[N];
    float y[N], rowf[N / ROW + 1];
    uint64_t r = 0xA0761D6478BD642FULL;
    int bad = 0, cases = 0;
    for (int k = 0; k < 64; k++) {
        for (int i = 0; i < N; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            a[i] = (uint8_t)r, b[i] = (uint8_t)(r >> 8);
        }
        for (int i = 0; i <= N / ROW; i++)
            rowf[i] = (float)((double)(i % 7) - 2.5) * 0.37f;
        qparam_t ga = {.scale = 0.0371928f * (float)(1 + k % 3), .zp = (int32_t)(k % 11) - 5};
        qparam_t gb = {.scale = 0.0213377f, .zp = 7};
        qparam_t go = {.scale = (float)ldexp(0.0501234, -(k % 8)), .zp = (int32_t)(k % 5) - 2};
        if (k % 4 == 0) /* results exactly on halves of the grid: the exact path */
            ga.scale = 0.25f, gb.scale = 0.5f, go.scale = (float)ldexp(1.0, k % 3);
        for (int op = QEW_ADD; op <= QEW_DIV; op++)
            for (int row = 0; row < 4; row++) { /* row & 1: a per-row factor; row & 2: floats too */
                quant_ew_in in = {.ab = a, .bb = row & 1 ? NULL : b, .ag = &ga, .bg = &gb,
                                  .brow = row & 1 ? ROW : 0, .bfirst = row & 1 ? 3 : 0};
                const int n = N - k % 13, fl = row >> 1;
                if (!quant_ew_qdq_in(op, NULL, 1, row & 1 ? rowf : NULL, !(row & 1), &in, 0, 0, y,
                                     yb, n, &go, fl))
                    return; /* no vector path on this CPU: nothing to compare */
                for (int i = 0; i < n; i++) {
                    float x = quant_dq8((int8_t)(a[i] - 128), &ga);
                    float w = row & 1 ? rowf[(3 + i) / ROW] : quant_dq8((int8_t)(b[i] - 128), &gb);
                    float v = op == QEW_ADD ? x + w : op == QEW_SUB ? x - w
                            : op == QEW_MUL ? x * w : x / w;
                    int8_t q = quant_q8(v, &go);
                    bad += yb[i] != (uint8_t)(q + 128) || (fl && y[i] != quant_dq8(q, &go));
                    cases++;
                }
            }
    }
    CHECK(bad == 0, "elementwise outputs: %d of %d differ from quant_q8", bad, cases);
}

int main(void)
{
    qparam_t p;

    bytes_round_trip();
    vector_quantizers();
    ew_bytes_alone();

    quant_param_from_range(-612.12f, 444.18f, &p);
    CHECK_NEAR(p.scale, 4.142352941176471, 1e-5, "scale");
    CHECK(p.zp == 20, "zp %d", p.zp);

    quant_param_from_range(0, 255, &p); /* image input: scale 1, zp -128 */
    CHECK_NEAR(p.scale, 1.0, 1e-7, "scale 0..255");
    CHECK(p.zp == -128, "zp %d", p.zp);
    CHECK(quant_q8(1.0f, &p) == -127, "q(1)");
    CHECK(quant_q8(255.0f, &p) == 127, "q(255)");
    CHECK(quant_q8(300.0f, &p) == 127 && quant_q8(-5.0f, &p) == -128, "clamp");
    CHECK(quant_q8(NAN, &p) == -128, "nan clamps");

    /* Range not containing 0 is widened: [0.5, 2] -> [0, 2]. */
    quant_param_from_range(0.5f, 2.0f, &p);
    CHECK(p.min == 0 && p.zp == -128, "widen min %g zp %d", p.min, p.zp);
    CHECK(quant_q8(2.0f, &p) == 127, "q(2)");
    CHECK_NEAR(quant_dq8(0, &p), 128 * 2.0 / 255, 1e-6, "dq(0)");
    /* Round half away from zero (half-even would give 2 for 2.5). */
    quant_param_from_range(0, 255, &p);
    CHECK(quant_q8(0.5f, &p) == -127 && quant_q8(1.5f, &p) == -126 && quant_q8(2.5f, &p) == -125,
          "half away");
    quant_param_from_range(-255, 0, &p);
    CHECK(p.zp == 127 && quant_q8(-2.5f, &p) == 124, "half away negative: zp %d q %d", p.zp,
          quant_q8(-2.5f, &p));

    /* Symmetric range (weights): zp 0, 0 exact. */
    quant_param_symmetric(-1.27f, &p);
    CHECK_NEAR(p.scale, 2.54 / 255, 1e-9, "symmetric scale");
    CHECK(p.zp == 0, "symmetric zp %d", p.zp);
    CHECK(quant_dq8(quant_q8(0.0f, &p), &p) == 0.0f, "zero exact");
    float v[3] = {0.01f, -1.3f, 0.5f};
    quant_qdq(v, 3, &p);
    CHECK_NEAR(v[0], 2.54 / 255, 1e-7, "qdq 0.01 -> 1 step (0.01/0.00996 = 1.004)");
    CHECK_NEAR(v[1], -128 * 2.54 / 255, 1e-6, "qdq -1.3 clamps to -128");
    CHECK_NEAR(v[2], 50 * 2.54 / 255, 1e-6, "qdq 0.5 -> 50 (50.197)");

    /* The vectorised quant_qdq equals quant_dq8(quant_q8()) value for value:
     * exact halves both ways, values beyond the range, inf, NaN, for zero
     * points at both ends. */
    {
        enum { NV = 4096 };
        static float in[NV], out[NV];
        const float odd[] = {0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 127.5f, -128.5f, 0.49999997f,
                             -0.49999997f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, 0.0f, -0.0f};
        const qparam_t ps[] = {{0, 0, 1.0f, 0}, {0, 0, 1.0f, -128}, {0, 0, 1.0f, 127},
                               {0, 0, 0.0137f, 5}, {0, 0, 3.0f, -3}};
        int bad = 0;
        for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
            uint32_t s = 12345;
            for (int i = 0; i < NV; i++) {
                s = s * 1664525u + 1013904223u;
                in[i] = i < (int)(sizeof(odd) / sizeof(odd[0]))
                            ? odd[i] * (k == 3 ? 0.0137f : k == 4 ? 3.0f : 1.0f)
                            : ((float)(s >> 8) / (1 << 24) - 0.5f) * 700.0f * ps[k].scale;
                out[i] = in[i];
            }
            /* a third of the values within a few ulp of a half-step: where
             * x * (1/scale) and x / scale round differently */
            for (int i = NV / 3; i < 2 * NV / 3; i++) {
                s = s * 1664525u + 1013904223u;
                float h = ((float)((int)(s >> 20) - 2048) + 0.5f) * ps[k].scale;
                int32_t bits;
                memcpy(&bits, &h, sizeof(bits));
                bits += (int32_t)(s & 7) - 3;
                memcpy(&in[i], &bits, sizeof(bits));
                out[i] = in[i];
            }
            quant_qdq(out, NV, &ps[k]);
            for (int i = 0; i < NV; i++) {
                float want = quant_dq8(quant_q8(in[i], &ps[k]), &ps[k]);
                if (memcmp(&want, &out[i], sizeof(float)))
                    bad++;
            }
            /* quant_q8_centered: q - zp of the same values */
            quant_q8_centered(in, out, NV, &ps[k]);
            for (int i = 0; i < NV; i++) {
                float want = (float)(quant_q8(in[i], &ps[k]) - ps[k].zp);
                if (memcmp(&want, &out[i], sizeof(float)))
                    bad++;
            }
        }
        CHECK(bad == 0, "%d values where quant_qdq / quant_q8_centered differ from q8/dq8", bad);
    }

    /* The same near halves of 400 scales of any mantissa and exponents
     * 2^-40 .. 2^40: each value within 8 ulp of (k + 1/2) scale, where the
     * vector path leaves its product for the specified quotient. */
    {
        enum { NV = 2048 };
        static float in[NV], out[NV];
        uint32_t r = 99991;
        int bad = 0, tested = 0;
        for (int sc = 0; sc < 400; sc++) {
            r = r * 1664525u + 1013904223u;
            float mant = 1.0f + (float)(r >> 9) / (float)(1 << 23);
            qparam_t p = {0, 0, ldexpf(mant, (int)(r % 81) - 40), (int)(r >> 4) % 256 - 128};
            for (int i = 0; i < NV; i++) {
                r = r * 1664525u + 1013904223u;
                float h = ((float)((int)(r >> 23) - 256) + 0.5f) * p.scale;
                int32_t bits;
                memcpy(&bits, &h, sizeof(bits));
                bits += (int32_t)(r & 15) - 8;
                memcpy(&in[i], &bits, sizeof(bits));
                out[i] = in[i];
            }
            quant_qdq(out, NV, &p);
            for (int i = 0; i < NV; i++, tested++) {
                float want = quant_dq8(quant_q8(in[i], &p), &p);
                bad += memcmp(&want, &out[i], sizeof(float)) != 0;
            }
        }
        CHECK(bad == 0, "%d of %d values near halves where quant_qdq differs from q8/dq8", bad,
              tested);
    }

    /* quant_epilogue_row (the int8 layer epilogue) equals the scalar double
     * formula followed by q8/dq8, bit for bit: integer sums up to 2^24 and odd
     * values (inf, NaN, -0), with and without the output grid, lengths that
     * leave a scalar tail. */
    {
        enum { NV = 1003 };
        static float acc[NV], out[NV];
        const double scales[] = {0.0137 * 0.002, 1.0 / 3, 7.5e-6};
        const int32_t biases[] = {0, -12345, 987654321};
        const qparam_t po = {0, 0, 0.0421f, -7};
        int bad = 0;
        uint32_t s = 777;
        for (int i = 0; i < NV; i++) {
            s = s * 1664525u + 1013904223u;
            acc[i] = (float)((int32_t)(s >> 7) - (1 << 24));
        }
        acc[0] = INFINITY, acc[1] = -INFINITY, acc[2] = NAN, acc[3] = -0.0f, acc[4] = 0.0f;
        for (int si = 0; si < 3; si++)
            for (int bi = 0; bi < 3; bi++)
                for (int grid = 0; grid < 2; grid++) {
                    memcpy(out, acc, sizeof(acc));
                    quant_epilogue_row(out, out, NV, biases[bi], scales[si], grid ? &po : NULL,
                                       NULL, NULL, -128, 127);
                    for (int i = 0; i < NV; i++) {
                        float want = (float)(((double)acc[i] + biases[bi]) * scales[si]);
                        if (grid)
                            want = quant_dq8(quant_q8(want, &po), &po);
                        if (memcmp(&want, &out[i], sizeof(float)) &&
                            !(want != want && out[i] != out[i]))
                            bad++;
                    }
                }
        CHECK(bad == 0, "%d values where quant_epilogue_row differs from the scalar epilogue", bad);
    }

    /* quant_ew_qdq (the op and the requantization in one pass) equals the
     * scalar expression followed by q8/dq8, for inf, NaN, -0, exact halves and
     * a length with a partial vector; b a full operand or one value; on a
     * grid whose 1 / scale is exact and on one whose is not (results near
     * halves: the product by 1 / scale and the quotient may round apart). */
    {
        enum { NV = 531 };
        static float a[NV], b[NV], out[NV];
        static uint8_t ob[NV], ob2[NV];
        static float scratch[NV];
        const float odd[] = {0.5f, -0.5f, 2.5f, -2.5f, INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 1e30f};
        const qparam_t grids[2] = {{0, 0, 0.25f, 3}, {0, 0, 0.1f / 3.0f, -7}};
        int bad = 0, badb = 0, ran = 1;
        uint32_t s = 99;
        for (int i = 0; i < NV; i++) {
            s = s * 1664525u + 1013904223u;
            a[i] = i < 10 ? odd[i] : ((float)(s >> 8) / (1 << 24) - 0.5f) * 90.0f;
            b[i] = i >= 10 && i < 20 ? odd[i - 10] : (float)((int)(s % 64) - 32) * 0.125f;
        }
        for (int gi = 0; gi < 2; gi++)
        for (int op = QEW_ADD; op <= QEW_CLIP && ran; op++)
            for (int sb = 0; sb < 2 && ran; sb++) {
                const qparam_t po = grids[gi];
                /* the bytes variant on odd lengths: a partial last vector */
                int nb = sb ? NV : NV - 7;
                ran = quant_ew_qdq_bytes(op, a, 1, op <= QEW_DIV ? b : NULL, sb, -3.0f, 7.5f, out,
                                         ob, nb, &po, 1);
                for (int i = 0; ran && i < nb; i++)
                    badb += ob[i] != (uint8_t)(quant_q8(out[i], &po) + 128);
                /* bytes alone (floats 0): the same bytes */
                ran = ran && quant_ew_qdq_bytes(op, a, 1, op <= QEW_DIV ? b : NULL, sb, -3.0f,
                                                7.5f, scratch, ob2, nb, &po, 0);
                badb += ran && memcmp(ob, ob2, (size_t)nb) != 0;
                ran = ran && quant_ew_qdq(op, a, 1, op <= QEW_DIV ? b : NULL, sb, -3.0f, 7.5f,
                                          out, NV, &po);
                for (int i = 0; ran && i < NV; i++) {
                    float x = a[i], z = sb ? b[i] : b[0], v;
                    switch (op) {
                    case QEW_ADD: v = x + z; break;
                    case QEW_SUB: v = x - z; break;
                    case QEW_MUL: v = x * z; break;
                    case QEW_DIV: v = x / z; break;
                    case QEW_RELU: v = x > 0 ? x : 0; break;
                    default: v = x < -3.0f ? -3.0f : (x > 7.5f ? 7.5f : x); break;
                    }
                    float want = quant_dq8(quant_q8(v, &po), &po);
                    if (memcmp(&want, &out[i], sizeof(float)))
                        bad++;
                }
            }
        CHECK(bad == 0, "%d values where quant_ew_qdq differs from op + q8/dq8", bad);
        CHECK(badb == 0, "%d bytes of quant_ew_qdq_bytes are not its floats' q + 128", badb);
    }

    /* The same, with sums that land inside the output grid (where the float
     * shortcut of the grid epilogue is taken) and half of them on the sums
     * nearest to a half-step of the output: (acc + bias) * s / s_out = k + 0.5
     * give or take a few sums, at many scales, biases and zero points. */
    {
        enum { NV = 4099 };
        static float acc[NV], out[NV], outl[NV], outc[NV], lut[256];
        int bad = 0, badl = 0, badc = 0, cases = 0;
        uint32_t s = 4242;
        for (int k = 0; k < 256; k++)
            lut[k] = (float)k - 0.25f;
        for (int trial = 0; trial < 200; trial++) {
            s = s * 1664525u + 1013904223u;
            double sc = ldexp(1.0 + (s >> 8) / 16777216.0, -(int)(s % 24) - 4);
            s = s * 1664525u + 1013904223u;
            /* s_out from 2 to 4000 sums per step */
            qparam_t po = {0, 0, (float)(sc * (2 + (s >> 8) % 4000) * (1 + (s & 255) / 256.0)),
                           (int32_t)(s % 256) - 128};
            s = s * 1664525u + 1013904223u;
            int32_t bias = trial % 5 == 0 ? 0 : (int32_t)(s >> 9) - (1 << 22);
            double per = po.scale / sc; /* sums per output step */
            for (int i = 0; i < NV; i++) {
                s = s * 1664525u + 1013904223u;
                double k = (double)((int)(s >> 24) - 128) + (i % 2 ? 0.5 : (s >> 8 & 0xffff) / 65536.0);
                double a = floor(k * per - bias) + (double)((int)((s >> 4) & 7) - 3);
                acc[i] = (float)(fabs(a) < 16777216.0 ? a : 0.0);
            }
            memcpy(out, acc, sizeof(acc));
            quant_epilogue_row(out, out, NV, bias, sc, &po, NULL, NULL, -128, 127);
            /* with a table: the entry of the same q (lut[k] = k - 0.25, each
             * entry its own value), for half the trials a partial vector */
            int nl = trial % 2 ? NV : NV - 13;
            memcpy(outl, acc, sizeof(acc));
            quant_epilogue_row(outl, outl, nl, bias, sc, &po, lut, NULL, -128, 127);
            /* with a clamp (a Relu's or a Clip's bounds as q) */
            int qlo = (int)(s % 97) - 128, qhi = qlo + (int)(s >> 9) % (128 - qlo);
            memcpy(outc, acc, sizeof(acc));
            quant_epilogue_row(acc, outc, nl, bias, sc, &po, NULL, NULL, qlo, qhi);
            for (int i = 0; i < NV; i++, cases++) {
                float want = (float)(((double)acc[i] + bias) * sc);
                int8_t qw = quant_q8(want, &po);
                want = quant_dq8(qw, &po);
                if (memcmp(&want, &out[i], sizeof(float)))
                    bad++;
                float wl = i < nl ? lut[qw + 128] : acc[i];
                if (memcmp(&wl, &outl[i], sizeof(float)))
                    badl++;
                float wc = i >= nl ? acc[i] : quant_dq8(qw < qlo ? qlo : qw > qhi ? qhi : qw, &po);
                if (memcmp(&wc, &outc[i], sizeof(float)))
                    badc++;
            }
        }
        CHECK(badc == 0, "%d of %d values where quant_epilogue_row is not the clamped q of "
              "the epilogue", badc, cases);
        CHECK(bad == 0, "%d of %d in-grid values where quant_epilogue_row differs from the scalar "
              "epilogue", bad, cases);
        CHECK(badl == 0, "%d of %d values where quant_epilogue_row's table entry is not the one "
              "for the epilogue's q", badl, cases);
        /* a bias a float cannot hold (2^24 + 1): the double path */
        const qparam_t pb = {0, 0, 0.75f, -7};
        const int32_t bb = 16777217;
        const double sb = 0.75 * 0.37;
        badl = 0;
        for (int i = 0; i < NV; i++)
            acc[i] = outl[i] = out[i] = (float)(-16777216 + 2 * (i % 600) - 300);
        quant_epilogue_row(out, out, NV - 5, bb, sb, &pb, NULL, NULL, -128, 127);
        quant_epilogue_row(outl, outl, NV - 5, bb, sb, &pb, lut, NULL, -128, 127);
        memcpy(outc, acc, sizeof(acc));
        quant_epilogue_row(acc, outc, NV - 5, bb, sb, &pb, NULL, NULL, -7, 40);
        for (int i = 0; i < NV - 5; i++) {
            int8_t qw = quant_q8((float)(((double)acc[i] + bb) * sb), &pb);
            float w = quant_dq8(qw, &pb), wl = lut[qw + 128];
            float wc = quant_dq8(qw < -7 ? -7 : qw > 40 ? 40 : qw, &pb);
            badl += memcmp(&w, &out[i], sizeof(float)) != 0;
            badl += memcmp(&wl, &outl[i], sizeof(float)) != 0;
            badl += memcmp(&wc, &outc[i], sizeof(float)) != 0;
        }
        CHECK(badl == 0, "%d values wrong with a bias of 2^24 + 1", badl);
    }

    /* A table whose values lie on one grid (a chain ending requantized) as
     * bytes (quant_lut8): the same entries as the float table, bit for bit,
     * on the in-grid sums above and at every q of the head's grid; a table
     * off its grid is not taken. */
    {
        enum { NV = 4099 };
        static float acc[NV], outf[NV], outb[NV], lut[256];
        quant_lut8 t8;
        int bad = 0, cases = 0;
        uint32_t s = 777;
        for (int trial = 0; trial < 100; trial++) {
            s = s * 1664525u + 1013904223u;
            qparam_t pg = {0, 0, ldexpf(1.0f + (float)(s >> 9) / 8388608.0f, -(int)(s % 12) - 2),
                           (int32_t)(s % 256) - 128};
            for (int k = 0; k < 256; k++) {
                s = s * 1664525u + 1013904223u;
                lut[k] = quant_dq8((int8_t)(int)((s >> 24) - 128), &pg);
            }
            CHECK(quant_lut8_make(lut, &pg, &t8), "trial %d: a table on its grid refused", trial);
            qparam_t po = {0, 0, 0.5f + (float)(trial % 7) / 3.0f, (int32_t)(trial * 37 % 256) - 128};
            double sc = 0.01 * (1 + trial % 5);
            int32_t bias = trial % 3 ? 0 : -17;
            for (int i = 0; i < NV; i++) {
                s = s * 1664525u + 1013904223u;
                /* sums over the whole output grid and past both ends */
                acc[i] = (float)((int)(s >> 16) % 70000 - 35000);
            }
            int nl = trial % 2 ? NV : NV - 11;
            memcpy(outf, acc, sizeof(acc));
            memcpy(outb, acc, sizeof(acc));
            quant_epilogue_row(outf, outf, nl, bias, sc, &po, lut, NULL, -128, 127);
            quant_epilogue_row(outb, outb, nl, bias, sc, &po, lut, &t8, -128, 127);
            for (int i = 0; i < nl; i++, cases++) {
                float want = lut[quant_q8((float)(((double)acc[i] + bias) * sc), &po) + 128];
                bad += memcmp(&want, &outb[i], sizeof(float)) != 0;
                bad += memcmp(&outf[i], &outb[i], sizeof(float)) != 0;
            }
            /* one entry half a step off the grid (q - zp of at most 255
             * steps: the half step is not rounded away) */
            float shifted[256];
            memcpy(shifted, lut, sizeof(lut));
            shifted[trial] = lut[trial] + 0.5f * pg.scale;
            CHECK(!quant_lut8_make(shifted, &pg, &t8),
                  "trial %d: a table with a value off its grid taken as bytes", trial);
        }
        CHECK(bad == 0, "%d of %d values where the byte table differs from the float one", bad,
              cases);
    }

    /* quant_epilogue_rows (many rows, the grid's and the tables' constants
     * set once) equals quant_epilogue_row row by row, bit for bit: strided
     * rows of lengths with and without a tail, one bias per row (one a float
     * cannot hold: that row takes the double path), no table, a float
     * table, its bytes, a clamp, no output grid. */
    {
        enum { ROWS = 7, LDX = 53, LDY = 61 };
        static float x[ROWS * LDX], y[ROWS * LDY], want[ROWS * LDY], lut[256];
        const int32_t bias[ROWS] = {0, -12345, 777, 16777217, -3, 40000, 9};
        double sc[ROWS];
        quant_lut8 t8;
        const qparam_t po = {0, 0, 0.173f, -9}, pg = {0, 0, 0.02f, 5};
        int bad = 0;
        uint32_t s = 4321;
        for (int k = 0; k < 256; k++)
            lut[k] = quant_dq8((int8_t)((k * 37 + 11) % 256 - 128), &pg);
        CHECK(quant_lut8_make(lut, &pg, &t8), "the rows' table refused");
        for (int r = 0; r < ROWS; r++)
            sc[r] = 0.0011 * (r + 1);
        for (int i = 0; i < ROWS * LDX; i++) {
            s = s * 1664525u + 1013904223u;
            x[i] = (float)((int)(s >> 12) % 40000 - 20000);
        }
        for (int n = 1; n <= LDX; n += 13)
            for (int mode = 0; mode < 5; mode++) {
                const qparam_t *out = mode == 4 ? NULL : &po;
                const float *l = mode == 1 || mode == 2 ? lut : NULL;
                const quant_lut8 *l8 = mode == 2 ? &t8 : NULL;
                int qlo = mode == 3 ? -9 : -128, qhi = mode == 3 ? 60 : 127;
                memset(y, 0, sizeof(y));
                memset(want, 0, sizeof(want));
                quant_epilogue_rows(x, LDX, y, LDY, ROWS, n, bias, sc, out, l, l8, qlo, qhi);
                for (int r = 0; r < ROWS; r++)
                    quant_epilogue_row(x + r * LDX, want + r * LDY, n, bias[r], sc[r], out, l,
                                       l8, qlo, qhi);
                bad += memcmp(y, want, sizeof(y)) != 0;
            }
        CHECK(bad == 0, "%d cases where quant_epilogue_rows differs from row by row", bad);
    }

    /* Constant zero: scale 1, zp -128 + 0 */
    quant_param_from_range(0, 0, &p);
    CHECK(p.scale == 1.0f && quant_dq8(quant_q8(0, &p), &p) == 0, "zero range");

    /* fp16 */
    CHECK(quant_f32_to_f16(1.0f) == 0x3c00, "1.0");
    CHECK(quant_f32_to_f16(0.1f) == 11878, "0.1 (numpy: 11878)");
    CHECK(quant_f32_to_f16(65504.0f) == 0x7bff, "max");
    CHECK(quant_f32_to_f16(65520.0f) == 0x7c00, "65520 ties to inf (numpy 31744)");
    CHECK(quant_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00, "tie to even down");
    CHECK(quant_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02, "tie to even up");
    CHECK(quant_f32_to_f16(0x1p-24f) == 0x0001, "min subnormal");
    CHECK(quant_f32_to_f16(0x1p-25f) == 0x0000, "half min subnormal ties to 0");
    CHECK(quant_f32_to_f16(1.5f * 0x1p-25f) == 0x0001, "numpy: 1");
    CHECK(quant_f32_to_f16(-0.0f) == 0x8000, "-0");
    CHECK((quant_f32_to_f16(NAN) & 0x7c00) == 0x7c00 && (quant_f32_to_f16(NAN) & 0x3ff),
          "nan stays nan");
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue; /* NaN payloads */
        if (quant_f32_to_f16(quant_f16_to_f32((uint16_t)h)) != h)
            bad++;
    }
    CHECK(bad == 0, "%d half values do not round-trip", bad);
    CHECK(quant_f16_to_f32(0x0001) == 0x1p-24f && quant_f16_to_f32(0x3555) == 0.333251953125f,
          "decode");

    /* quant_round_f16 (vcvtps2ph where the CPU has it) against the scalar
     * conversion above, bit for bit: a spread of bit patterns over all of
     * float32, each half value and its ties and neighbours (the rounding's
     * edges), NaNs with payloads; lengths that leave every tail. */
    {
        enum { NR = 65536 * 5 + 70000 };
        uint32_t *u = malloc(sizeof(uint32_t) * NR);
        float *v = malloc(sizeof(float) * NR);
        int64_t n = 0;
        for (uint64_t b = 0; b < (1ull << 32); b += 65521)
            u[n++] = (uint32_t)b;
        for (uint32_t h = 0; h < 0x10000; h++) {
            float f = quant_f16_to_f32((uint16_t)h);
            uint32_t x;
            memcpy(&x, &f, 4);
            u[n++] = x, u[n++] = x + 1, u[n++] = x - 1;
            u[n++] = x + 0x1000, u[n++] = x - 0x1000; /* ties of normal halves */
        }
        u[n++] = 0x7fc00001u, u[n++] = 0xffa00000u, u[n++] = 0x7f800001u, u[n++] = 0x7fffffffu;
        int mism = 0;
        for (int64_t len = n; len > n - 17; len--) {
            memcpy(v, u, sizeof(float) * (size_t)len);
            quant_round_f16(v, len);
            for (int64_t i = 0; i < len; i++) {
                float f, r;
                memcpy(&f, &u[i], 4);
                r = quant_f16_to_f32(quant_f32_to_f16(f));
                mism += memcmp(&r, &v[i], 4) != 0;
            }
        }
        CHECK(mism == 0, "quant_round_f16: %d values differ from the scalar rounding", mism);
        free(u);
        free(v);
    }

    /* Range search: a bulk in [0,1] and one far outlier at 100. */
    enum { NB = 2048 };
    double *h = calloc(NB, sizeof(double));
    for (int b = 0; b < 40; b++)
        h[b] = 1000 * exp(-b / 5.0); /* a decaying bulk in [0, 2] */
    h[NB - 1] = 1;
    float lo, hi;
    quant_hist_range(h, NB, 0, 100, QA_NORMAL, &lo, &hi);
    CHECK(lo == 0 && hi == 100, "normal keeps min/max");
    quant_hist_range(h, NB, 0, 100, QA_MMSE, &lo, &hi);
    CHECK(hi < 100 && hi > 1, "mmse clips the outlier: hi %g", hi);
    quant_hist_range(h, NB, 0, 100, QA_KL, &lo, &hi);
    CHECK(hi < 100, "kl clips the outlier: hi %g", hi);
    /* Uniform data: nothing to gain from clipping. */
    for (int b = 0; b < NB; b++)
        h[b] = 10;
    quant_hist_range(h, NB, -1, 1, QA_MMSE, &lo, &hi);
    CHECK(lo == -1 && hi == 1, "uniform mmse keeps the range: %g %g", lo, hi);
    quant_hist_range(h, NB, -1, 1, QA_KL, &lo, &hi);
    CHECK(lo == -1 && hi == 1, "uniform kl keeps the range: %g %g", lo, hi);
    /* Per-side KL: over [-10, 90] (bin width 100/2048), a dense bulk with fine
     * structure (which merging bins into levels loses) on [-10, 10], no outlier
     * below and a sparse tail up to 90 above. The
     * lower edge must stay at -10 (clipping there only loses mass) while the
     * upper one comes down near the bulk's end; a range shrunk by one factor
     * on both sides cannot do that. */
    for (int b = 0; b < NB; b++) {
        double x = -10 + (b + 0.5) * 100.0 / NB;
        h[b] = x <= 10 ? 1000 * (1 + b % 3) * exp(-x * x / 50) : (b % 64 == 0 ? 1 : 0);
    }
    quant_hist_range(h, NB, -10, 90, QA_KL, &lo, &hi);
    CHECK(lo == -10, "kl keeps the dense lower side: lo %g", lo);
    CHECK(hi > 9 && hi < 20, "kl clips the sparse upper tail near the bulk: hi %g", hi);
    /* The mirror image: the tail below, the bulk above. */
    for (int b = 0; b < NB / 2; b++) {
        double t = h[b];
        h[b] = h[NB - 1 - b];
        h[NB - 1 - b] = t;
    }
    quant_hist_range(h, NB, -90, 10, QA_KL, &lo, &hi);
    CHECK(hi == 10, "kl keeps the dense upper side: hi %g", hi);
    CHECK(lo < -9 && lo > -20, "kl clips the sparse lower tail: lo %g", lo);
    free(h);

    /* What calibration collects, against a value-by-value reference: lengths
     * that are and are not whole vectors, NaN, infinities, signed zeros, the
     * range's edges and values just inside them. */
    {
        enum { N = 1003 };
        float *v = malloc(N * sizeof(float));
        double *got = calloc(QUANT_HIST_BINS, sizeof(double));
        double *want = calloc(QUANT_HIST_BINS, sizeof(double));
        const float lo = -3.25f, hi = 7.5f;
        int bad = 0;
        srand(7);
        for (int i = 0; i < N; i++) {
            float x = lo + (hi - lo) * (float)rand() / (float)RAND_MAX;
            switch (rand() % 12) {
            case 0: x = NAN; break;
            case 1: x = (rand() & 1) ? INFINITY : -INFINITY; break;
            case 2: x = (rand() & 1) ? 0.0f : -0.0f; break;
            case 3: x = (rand() & 1) ? lo : hi; break;
            case 4: x = nextafterf(hi, 0); break;
            default: break;
            }
            v[i] = x;
        }
        for (int n = 0; n <= N; n += n < 40 ? 1 : 97) {
            float mn = INFINITY, mx = -INFINITY, rmn = INFINITY, rmx = -INFINITY;
            memset(got, 0, QUANT_HIST_BINS * sizeof(double));
            memset(want, 0, QUANT_HIST_BINS * sizeof(double));
            quant_min_max(v, n, &mn, &mx);
            quant_hist_add(got, v, n, lo, hi);
            for (int i = 0; i < n; i++) {
                if (!isfinite(v[i]))
                    continue;
                rmn = v[i] < rmn ? v[i] : rmn;
                rmx = v[i] > rmx ? v[i] : rmx;
                if (v[i] == 0)
                    continue;
                double y = (v[i] - lo) * (QUANT_HIST_BINS / ((double)hi - lo));
                int b = (int)y;
                want[b < QUANT_HIST_BINS ? b : QUANT_HIST_BINS - 1] += 1;
            }
            bad += mn != rmn || mx != rmx;
            bad += memcmp(got, want, QUANT_HIST_BINS * sizeof(double)) != 0;
        }
        CHECK(bad == 0, "%d lengths where min/max or the histogram differ from the reference", bad);
        got[5] = 2;
        quant_hist_add(got, v, 0, lo, hi);
        CHECK(got[5] == 2, "the histogram adds to what it held");
        free(v);
        free(got);
        free(want);
    }

    CHECK(quant_type_parse("asymmetric_quantized-8") == QT_I8 && quant_type_parse("x") < 0, "parse");
    CHECK(quant_algo_parse("kl_divergence") == QA_KL && quant_method_parse("layer") == QM_LAYER,
          "parse");
    /* quant_lut_map: every value of a grid (quant_dq8 of each q, in a random
     * order) maps to lut[q + 128]; the count stops at the first value off the
     * grid (a neighbour ulp, -0, NaN, inf, beyond the range) and nothing at or
     * after it is written. Many scales and zero points, and a partial vector.
     * quant_grid_bytes the same with the bytes q + 128. */
    {
        enum { NV = 1000 };
        static float x[NV], y[NV], lut[256];
        static uint8_t yb[NV];
        int bad = 0, cnt = 0, badb = 0;
        uint32_t s = 777;
        for (int k = 0; k < 256; k++)
            lut[k] = k * 1.5f - 100.25f;
        for (int trial = 0; trial < 60; trial++) {
            s = s * 1664525u + 1013904223u;
            qparam_t pq = {0, 0, ldexpf(1.0f + (s >> 9) / 8388608.0f, (int)(s % 40) - 30),
                           (int32_t)(s >> 3) % 256 - 128};
            int8_t qv[NV];
            for (int i = 0; i < NV; i++) {
                s = s * 1664525u + 1013904223u;
                qv[i] = (int8_t)(s >> 24);
                x[i] = quant_dq8(qv[i], &pq);
            }
            s = s * 1664525u + 1013904223u;
            int n = NV - (int)(s % 23), stop = trial % 3 ? (int)(s >> 8) % n : n;
            if (stop < n) {
                const float odd[] = {nextafterf(x[stop], INFINITY), -0.0f, NAN, INFINITY,
                                     quant_dq8(-128, &pq) - pq.scale, x[stop] * 0.5f + pq.scale / 3};
                x[stop] = odd[trial % 6];
                if (trial % 6 == 1 && quant_dq8(quant_q8(-0.0f, &pq), &pq) != 0.0f)
                    x[stop] = NAN; /* -0 is off every grid only where 0 is on it */
                if (trial % 6 == 5 && quant_dq8(quant_q8(x[stop], &pq), &pq) == x[stop])
                    x[stop] = NAN;
            }
            for (int i = 0; i < NV; i++)
                y[i] = -1e9f;
            int64_t got = quant_lut_map(x, n, &pq, lut, y);
            bad += got != stop;
            for (int i = 0; i < NV; i++, cnt++) {
                float want = i < stop ? lut[qv[i] + 128] : -1e9f;
                bad += memcmp(&want, &y[i], sizeof(float)) != 0;
            }
            memset(yb, 0xA5, sizeof yb);
            badb += quant_grid_bytes(x, n, &pq, yb) != stop;
            for (int i = 0; i < NV; i++)
                badb += yb[i] != (i < stop ? (uint8_t)(qv[i] + 128) : 0xA5);
        }
        CHECK(bad == 0, "quant_lut_map: %d of %d values or counts wrong", bad, cnt);
        CHECK(badb == 0, "quant_grid_bytes: %d of %d bytes or counts wrong", badb, cnt);
    }

    TEST_END();
}
