/* runtime/emu/emu_pool.c — the PPU task of a Toolkit2 file (emu_internal.h): a
 * max pooling tile, or rk3576's average pooling one, from the register words the
 * sample files write. */
#include "runtime/emu/emu_internal.h"

#include <string.h>

#define R(a) reg_or0(s->rs, s->grp, (a))

/* the PPU's reciprocal of a window extent: 1/n in Q16, truncated (rk3576's
 * RECIP_KERNEL_WIDTH / HEIGHT, 0x8000 for 2 and 0x5555 for 3 in the vendor's files) */
static int64_t recip16(int n) { return 0x10000 / n; }

/* v / 2^32 rounded to the nearest, a tie to even */
static int64_t round_even32(int64_t v)
{
    int64_t q = v >> 32, r = v - q * ((int64_t)1 << 32);
    return q + (r > ((int64_t)1 << 31) || (r == ((int64_t)1 << 31) && (q & 1)));
}

/* rk3576's average pool (method 0; docs/rknn-format.md "Average pooling on f2"):
 * 1 when its words are one of the two forms the vendor's files write: OPERATION_MODE
 * 0x18 (the pad cells left out of the count) with pad words 0, or 0x10 (the kernel's
 * cells counted) without pads, its pad words the input zero point times 1..4; the
 * reciprocals 1/kw, 1/kh in Q16 */
static int avg_words_ok(const emu_step *s, const emu_task *t, uint32_t op, int zp)
{
    int pads = t->pool_pad[0] | t->pool_pad[1] | t->pool_pad[2] | t->pool_pad[3];
    if (t->map != EMU_MAP_F2 || t->pool_method != 0 || (op != 0x10 && op != 0x18) ||
        t->pool_kw < 1 || t->pool_kh < 1 ||
        R(0x6038) != recip16(t->pool_kw) || R(0x603c) != recip16(t->pool_kh))
        return 0;
    for (int n = 1; n <= 4; n++) {
        uint32_t want = op == 0x18 ? 0 : (uint32_t)(zp * n) & 0x7ffffu;
        if (R(0x6040 + 4 * (uint32_t)n) != want)
            return 0;
    }
    return op == 0x18 || !pads;
}

/* A PPU task of a MaxPool node (yolov8n's SPPF: 5 x 5, stride 1, pad 2, each
 * node as two column tiles of 10 outputs; yolov5n-seg's 3 x 3, pad 1, one tile):
 * the window's largest input byte among the cells inside the tile's columns and
 * the tensor's rows; of an AveragePool node on rk3576, the window's sum times the
 * reciprocals of the cells it counts, rounded. Source and destination are offsets into the node's input
 * and output tensors (rows and columns in whole C2 pixels); the destination's
 * row is the tile's width plus OPERATION_MODE_CFG's notch (pixels to the end of
 * the line) in C2 bytes. The input and output must share their quantization
 * (pooling does not requantize). Only the register words those files write
 * are taken. */
int emu_run_pool(const emu_step *s, const emu_task *t)
{
    int rc = 0;
    act in, out;
    uint32_t mode = R(0x6024);
    int notch = (int)(mode >> 16 & 0x1fff);
    emu_chip_words cw = emu_chip_words_of(t);
    int avg = !strcmp(s->nd->type, "AveragePool");
    if ((!avg && strcmp(s->nd->type, "MaxPool")) || s->nd->n_in != 1 ||
        in_out_acts(s, &in, &out) || in.c2 != out.c2)
        STOP("task %d (node %s): a PPU task whose node is not a MaxPool or AveragePool of one "
             "4-D activation", s->ti, s->nn);
    /* The pad value words: -128 in all four (rk3566's yolov8n), 0 in the two
     * written (rk3588's yolov5n-seg, whose input zero point is -116, so a pad
     * of 0 would win over real values up to +2.67). Padded cells are taken as
     * never winning, as the ONNX MaxPool the node compiles and a hardware
     * sweep of the RK3588/RK3576 PPU say (gregordinary/rocket-userspace
     * e0677862, include/rocket_pool.h: "out-of-range reads do not contribute
     * to max"); UNVERIFIED on a board for the 0 words, so only these two
     * forms are taken. */
    uint32_t pad1 = R(0x6044);
    int pad_ok = 1;
    for (uint32_t a = 0x6044; a <= 0x6050; a += 4)
        pad_ok &= R(a) == 0x7ff80 || R(a) == 0;
    const rknn_tensor *ti_ = &s->m->tensors[s->nd->in[0]], *to = &s->m->tensors[s->nd->out[0]];
    uint32_t op = mode & 0xe000ffffu;
    /* method 1 (max), flying mode 1 (PPU_RDMA source), no index output, int8;
     * PPU_RDMA 0x7018 and DATA_FORMAT as each chip's files write them */
    int words_ok = avg ? avg_words_ok(s, t, op, ti_->zero_point)
                       : op == 0x11 && t->pool_method == 1 && pad_ok && !R(0x6038) && !R(0x603c);
    if (!words_ok || R(0x7018) != cw.ppu_rdma_7018 || R(0x7030) != cw.ppu_rdma_fmt ||
        (R(0x6084) & 0xf) || R(0x60dc) != cw.ppu_misc || R(0x6054) || R(0x6058) || R(0x605c))
        STOP("task %d (node %s): PPU task (OPERATION_MODE 0x%x, reciprocals 0x%x 0x%x, pad "
             "values 0x%x 0x%x 0x%x 0x%x, pads 0x%x, DATA_FORMAT 0x%x, MISC 0x%x, PPU_RDMA 0x7018 "
             "0x%x / DATA_FORMAT 0x%x): not a %s pooling as emulated", s->ti, s->nn, mode,
             R(0x6038), R(0x603c), pad1, R(0x6048), R(0x604c), R(0x6050), R(0x6040), R(0x6084),
             R(0x60dc), R(0x7018), R(0x7030), avg ? "rk3576 average" : "max");
    int64_t line = (int64_t)in.w * in.c2, surf = line * in.h;
    int64_t oline = (int64_t)out.w * out.c2, osurf = oline * out.h;
    /* rk3576 lays most surfaces out in whole groups of 4 pixels (rocket-userspace's
     * captures: 15 x 15 x 16 bytes in 3648, 9 pixels in 192; mkdw.py's notes say the
     * same of the DPU's destination), a one-pixel one not (16): either is taken, the
     * values do not move */
    if (t->map == EMU_MAP_F2) {
        int64_t s4 = ((int64_t)in.w * in.h + 3) / 4 * 4 * in.c2;
        int64_t o4 = ((int64_t)out.w * out.h + 3) / 4 * 4 * out.c2;
        surf = R(0x7028) == s4 ? s4 : surf;
        osurf = R(0x607c) == o4 ? o4 : osurf;
    }
    if (R(0x7024) != line || R(0x7028) != surf || R(0x607c) != osurf || R(0x6084) != osurf ||
        (t->pool_out_w + notch) * (int64_t)out.c2 != oline)
        STOP("task %d (node %s): strides (source line %u surface %u, destination surface %u, "
             "notch %d) are not the tensors' (%lld, %lld, %lld)", s->ti, s->nn, R(0x7024),
             R(0x7028), R(0x607c), notch, (long long)line, (long long)surf, (long long)osurf);
    if (!ti_->has_quant || !to->has_quant || ti_->scale != to->scale ||
        ti_->zero_point != to->zero_point)
        STOP("task %d (node %s): input and output quantization differ: a requantizing pool is "
             "not emulated", s->ti, s->nn);
    /* rk3576 gives the PPU whole 16-lane atoms: an 8-channel tensor (its surfaces 16 bytes
     * a pixel, rocket-userspace's pool/max_c8_k2s2_16: 0x7024 = 16 pixels x 16) is pooled
     * as 16 channels, the 8 lanes past it padding; only the real channels are computed */
    int cin = t->pool_in_c, cout = t->pool_out_c;
    if (t->map == EMU_MAP_F2 && cin == cout && cin == (in.c + 15) / 16 * 16 &&
        cin == (in.c + in.c2 - 1) / in.c2 * in.c2 && cin == (out.c + out.c2 - 1) / out.c2 * out.c2)
        cin = cout = in.c;
    int64_t src = t->pool_src_addr, dst = t->pool_dst_addr;
    int x0 = (int)(src % line / in.c2), y0 = (int)(src / line);
    int ox0 = (int)(dst % oline / out.c2), oy0 = (int)(dst / oline);
    int kw = t->pool_kw, kh = t->pool_kh, sx = t->pool_sx, sy = t->pool_sy;
    int pt = t->pool_pad[0], pb = t->pool_pad[1], pl = t->pool_pad[2], pr = t->pool_pad[3];
    if (kw < 1 || kh < 1 || sx < 1 || sy < 1 || pt < 0 || pb < 0 || pl < 0 || pr < 0 ||
        in.c != out.c || src < 0 || dst < 0 || src % in.c2 || dst % out.c2 || src >= surf ||
        dst >= osurf ||
        cin != in.c || cout != out.c || x0 + t->pool_in_w > in.w ||
        y0 + t->pool_in_h > in.h || ox0 + t->pool_out_w > out.w || oy0 + t->pool_out_h > out.h ||
        (t->pool_in_w + pl + pr - kw) / sx + 1 != t->pool_out_w ||
        (t->pool_in_h + pt + pb - kh) / sy + 1 != t->pool_out_h ||
        (avg && (pl >= kw || pr >= kw || pt >= kh || pb >= kh)))
        STOP("task %d (node %s): pooling tile (source 0x%llx %dx%dx%d, destination 0x%llx "
             "%dx%dx%d, kernel %dx%d, pads %d %d %d %d) does not fit the tensors", s->ti, s->nn,
             (long long)src, t->pool_in_w, t->pool_in_h, t->pool_in_c, (long long)dst,
             t->pool_out_w, t->pool_out_h, t->pool_out_c, kw, kh, pt, pb, pl, pr);
    if (!s->mem->written[s->nd->in[0]])
        STOP("task %d (node %s): its input was not computed", s->ti, s->nn);
    if (avg) {
        /* the window's sum of the stored bytes (pad cells add 0: mode 0x18 writes pad
         * words 0, mode 0x10 has no pad cells) times the reciprocals of the cells it
         * counts, per axis: those inside the tile (0x18) or the kernel (0x10) */
        for (int c = 0; c < out.c; c++)
            for (int oy = 0; oy < t->pool_out_h; oy++)
                for (int ox = 0; ox < t->pool_out_w; ox++) {
                    int ya = oy * sy - pt, xa = ox * sx - pl;
                    int y1 = ya + kh < t->pool_in_h ? ya + kh : t->pool_in_h;
                    int x1 = xa + kw < t->pool_in_w ? xa + kw : t->pool_in_w;
                    ya = ya < 0 ? 0 : ya;
                    xa = xa < 0 ? 0 : xa;
                    int64_t sum = 0;
                    for (int iy = ya; iy < y1; iy++)
                        for (int ix = xa; ix < x1; ix++)
                            sum += in.p[act_off(&in, c, y0 + iy, x0 + ix)];
                    int64_t rw = op == 0x18 ? recip16(x1 - xa) : R(0x6038);
                    int64_t rh = op == 0x18 ? recip16(y1 - ya) : R(0x603c);
                    out.p[act_off(&out, c, oy0 + oy, ox0 + ox)] = sat8(round_even32(sum * rw * rh));
                }
        wrote(s, s->nd->out[0], oy0, oy0 + t->pool_out_h);
        goto out;
    }
    for (int c = 0; c < out.c; c++)
        for (int oy = 0; oy < t->pool_out_h; oy++)
            for (int ox = 0; ox < t->pool_out_w; ox++) {
                int best = INT32_MIN;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++) {
                        int iy = oy * sy - pt + ky, ix = ox * sx - pl + kx;
                        if (iy < 0 || iy >= t->pool_in_h || ix < 0 || ix >= t->pool_in_w)
                            continue;
                        int v = in.p[act_off(&in, c, y0 + iy, x0 + ix)];
                        best = v > best ? v : best;
                    }
                out.p[act_off(&out, c, oy0 + oy, ox0 + ox)] = sat8(best);
            }
    wrote(s, s->nd->out[0], oy0, oy0 + t->pool_out_h);
out:
    return rc;
}
