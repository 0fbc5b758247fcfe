/* tests/samples/sample_matmul.c — a matmul application in the SDK guide's flow:
 * rknn_matmul_create (or _create_dynamic_shape), quantization parameters, memory from
 * rknn_create_mem sized by the io attributes, A in the layout asked for (the app
 * blocks a native A itself, as the guide describes it), B through
 * rknn_B_normal_layout_to_native_layout or transposed, rknn_matmul_set_io_mem,
 * rknn_matmul_run, C read back (a native C unblocked by the app).
 *
 *   sample_matmul TYPE M K N B_LAYOUT AC_LAYOUT B_QUANT GROUP DIR [M2 ...]
 *
 * DIR holds A.bin (M x K, row-major: int8 values one a byte for int8 and int4 A,
 * fp16 bits for fp16 A; with several M, the largest), B.bin (K x N the same way), and
 * optionally q.txt ("sa zpa sc zpc"), sb.f32 and zb.i32 (B's scales / zero points).
 * Writes DIR/C.bin (or C_<M>.bin per shape: M x N row-major in C's type) and
 * DIR/B_bound.bin (B as bound). Exit 0 only when every call succeeded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rknn_api.h"
#include "rknn_matmul_api.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static size_t elem_bits(rknn_tensor_type t)
{
    switch (t) {
    case RKNN_TENSOR_INT4: return 4;
    case RKNN_TENSOR_INT8: return 8;
    case RKNN_TENSOR_INT32:
    case RKNN_TENSOR_FLOAT32: return 32;
    default: return 16;
    }
}

/* copies element si of src to element di of dst (int4: low nibble first) */
static void put(void *dst, size_t di, const void *src, size_t si, rknn_tensor_type t, int src_unpacked)
{
    size_t b = elem_bits(t);
    if (b == 4) {
        int v = src_unpacked ? ((const int8_t *)src)[si] & 0xf
                             : (((const uint8_t *)src)[si / 2] >> (si % 2 ? 4 : 0)) & 0xf;
        uint8_t *p = (uint8_t *)dst + di / 2;
        *p = di % 2 ? (uint8_t)((*p & 0x0f) | (v << 4)) : (uint8_t)((*p & 0xf0) | v);
    } else {
        memcpy((char *)dst + di * b / 8, (const char *)src + si * b / 8, b / 8);
    }
}

static int write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f);
}

static void *load(const char *dir, const char *name, size_t *len)
{
    char path[512];
    FILE *f;
    char *buf = NULL;
    long n;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(f = fopen(path, "rb")))
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = calloc(1, (size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    rknn_matmul_ctx ctx = 0;
    rknn_matmul_info info;
    rknn_matmul_io_attr io[16];
    rknn_matmul_shape shapes[16];
    rknn_tensor_mem *A = NULL, *B = NULL, *C = NULL;
    void *a_src = NULL, *b_src = NULL, *b_packed = NULL, *c_out = NULL;
    size_t a_len = 0, b_len = 0;
    uint32_t max_a = 0, max_c = 0;
    int n_shapes = 1, ret = 1;
    const char *dir;

    if (argc < 10) {
        fprintf(stderr, "usage: %s TYPE M K N B_LAYOUT AC_LAYOUT B_QUANT GROUP DIR [M2 ...]\n", argv[0]);
        return 1;
    }
    memset(&info, 0, sizeof(info));
    info.type = (rknn_matmul_type)atoi(argv[1]);
    info.M = atoi(argv[2]);
    info.K = atoi(argv[3]);
    info.N = atoi(argv[4]);
    info.B_layout = (int16_t)atoi(argv[5]);
    info.AC_layout = (int16_t)atoi(argv[6]);
    info.B_quant_type = (int16_t)atoi(argv[7]);
    info.group_size = (int16_t)atoi(argv[8]);
    dir = argv[9];
    memset(io, 0, sizeof(io));
    if (argc > 10) { /* dynamic shapes: M, then the others */
        shapes[0] = (rknn_matmul_shape){info.M, info.K, info.N};
        for (int i = 10; i < argc && n_shapes < 16; i++)
            shapes[n_shapes++] = (rknn_matmul_shape){atoi(argv[i]), info.K, info.N};
        ret = rknn_matmul_create_dynamic_shape(&ctx, &info, n_shapes, shapes, io);
    } else {
        ret = rknn_matmul_create(&ctx, &info, &io[0]);
        shapes[0] = (rknn_matmul_shape){info.M, info.K, info.N};
    }
    if (ret < 0) {
        fprintf(stderr, "rknn_matmul_create fail! ret=%d\n", ret);
        return 1;
    }
    printf("%s M=%d K=%d N=%d B_layout=%d AC_layout=%d\n", get_matmul_type_string(info.type), info.M,
           info.K, info.N, info.B_layout, info.AC_layout);
    for (int s = 0; s < n_shapes; s++) {
        const rknn_matmul_tensor_attr *t[3] = {&io[s].A, &io[s].B, &io[s].C};
        for (int i = 0; i < 3; i++) {
            printf("  %s dims=[", t[i]->name);
            for (uint32_t d = 0; d < t[i]->n_dims; d++)
                printf("%s%u", d ? "," : "", t[i]->dims[d]);
            printf("] size=%u type=%s\n", t[i]->size, get_type_string(t[i]->type));
        }
        if (io[s].A.size > max_a)
            max_a = io[s].A.size;
        if (io[s].C.size > max_c)
            max_c = io[s].C.size;
    }

    /* quantization parameters, as the guide's int8 flow sets them */
    {
        size_t n = 0, nz = 0;
        float *sb = load(dir, "sb.f32", &n);
        int32_t *zb = load(dir, "zb.i32", &nz);
        float sa, sc;
        int zpa, zpc;
        char *q = load(dir, "q.txt", &a_len);
        rknn_quant_params p;
        if (sb) {
            memset(&p, 0, sizeof(p));
            memcpy(p.name, io[0].B.name, RKNN_MAX_NAME_LEN);
            p.scale = sb;
            p.scale_len = (int32_t)(n / sizeof(float));
            p.zp = zb;
            p.zp_len = zb ? (int32_t)(nz / sizeof(int32_t)) : 0;
            if ((ret = rknn_matmul_set_quant_params(ctx, &p)) < 0)
                fprintf(stderr, "rknn_matmul_set_quant_params(B) fail! ret=%d\n", ret);
        }
        if (q && sscanf(q, "%f %d %f %d", &sa, &zpa, &sc, &zpc) == 4) {
            memset(&p, 0, sizeof(p));
            memcpy(p.name, io[0].A.name, RKNN_MAX_NAME_LEN);
            p.scale = &sa;
            p.scale_len = 1;
            p.zp = &zpa;
            p.zp_len = 1;
            if ((ret = rknn_matmul_set_quant_params(ctx, &p)) < 0)
                fprintf(stderr, "rknn_matmul_set_quant_params(A) fail! ret=%d\n", ret);
            if (io[0].C.type == RKNN_TENSOR_INT8) {
                memcpy(p.name, io[0].C.name, RKNN_MAX_NAME_LEN);
                p.scale = &sc;
                p.zp = &zpc;
                if ((ret = rknn_matmul_set_quant_params(ctx, &p)) < 0)
                    fprintf(stderr, "rknn_matmul_set_quant_params(C) fail! ret=%d\n", ret);
            }
        }
        free(sb);
        free(zb);
        free(q);
        if (ret < 0)
            goto out;
    }

    a_src = load(dir, "A.bin", &a_len);
    b_src = load(dir, "B.bin", &b_len);
    if (!a_src || !b_src) {
        fprintf(stderr, "cannot read %s/A.bin and B.bin\n", dir);
        ret = 1;
        goto out;
    }
    A = rknn_create_mem(ctx, max_a);
    B = rknn_create_mem(ctx, io[0].B.size);
    C = rknn_create_mem(ctx, max_c);
    if (!A || !B || !C) {
        fprintf(stderr, "rknn_create_mem fail!\n");
        ret = 1;
        goto out;
    }

    /* B: normal as is (int4 packed two a byte), transposed, or native via the SDK call */
    {
        rknn_tensor_type bt = io[0].B.type;
        int K = info.K, N = info.N;
        memset(B->virt_addr, 0, io[0].B.size);
        b_packed = calloc(1, io[0].B.size);
        for (int k = 0; k < K; k++)
            for (int n = 0; n < N; n++)
                put(b_packed, (size_t)k * N + n, b_src, (size_t)k * N + n, bt, 1);
        if (info.B_layout == RKNN_MM_LAYOUT_NATIVE) {
            if ((ret = rknn_B_normal_layout_to_native_layout(b_packed, B->virt_addr, K, N, &info)) < 0) {
                fprintf(stderr, "rknn_B_normal_layout_to_native_layout fail! ret=%d\n", ret);
                goto out;
            }
        } else if (info.B_layout == RKNN_MM_LAYOUT_TP_NORM) {
            for (int k = 0; k < K; k++)
                for (int n = 0; n < N; n++)
                    put(B->virt_addr, (size_t)n * K + k, b_packed, (size_t)k * N + n, bt, 0);
        } else {
            memcpy(B->virt_addr, b_packed, io[0].B.size);
        }
        if (write_file(dir, "B_bound.bin", B->virt_addr, io[0].B.size) != 0)
            goto out;
    }
    if ((ret = rknn_matmul_set_io_mem(ctx, B, &io[0].B)) < 0) {
        fprintf(stderr, "rknn_matmul_set_io_mem(B) fail! ret=%d\n", ret);
        goto out;
    }

    c_out = malloc(max_c);
    for (int s = 0; s < n_shapes; s++) {
        rknn_tensor_type at = io[s].A.type, ct = io[s].C.type;
        int M = shapes[s].M, K = info.K, N = info.N;
        int ka = info.AC_layout == RKNN_MM_LAYOUT_NATIVE ? (int)io[s].A.dims[2] : K;
        int nc = info.AC_layout == RKNN_MM_LAYOUT_NATIVE ? (int)io[s].C.dims[2] : N;
        char name[64];

        if (n_shapes > 1 && (ret = rknn_matmul_set_dynamic_shape(ctx, &shapes[s])) < 0) {
            fprintf(stderr, "rknn_matmul_set_dynamic_shape fail! ret=%d\n", ret);
            goto out;
        }
        /* A: native is (K / ka, M, ka) */
        memset(A->virt_addr, 0, max_a);
        for (int m = 0; m < M; m++)
            for (int k = 0; k < K; k++) {
                size_t di = info.AC_layout == RKNN_MM_LAYOUT_NATIVE
                                ? ((size_t)(k / ka) * M + m) * ka + k % ka
                                : (size_t)m * K + k;
                put(A->virt_addr, di, a_src, (size_t)m * K + k, at, 1);
            }
        if ((ret = rknn_matmul_set_io_mem(ctx, A, &io[s].A)) < 0 ||
            (ret = rknn_matmul_set_io_mem(ctx, C, &io[s].C)) < 0) {
            fprintf(stderr, "rknn_matmul_set_io_mem fail! ret=%d\n", ret);
            goto out;
        }
        {
            double t0 = now_us();
            if ((ret = rknn_matmul_run(ctx)) < 0) {
                fprintf(stderr, "rknn_matmul_run fail! ret=%d\n", ret);
                goto out;
            }
            printf("M=%d run %.1f us (this PC)\n", M, now_us() - t0);
        }
        /* C: native is (N / nc, M, nc) */
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                size_t si = info.AC_layout == RKNN_MM_LAYOUT_NATIVE
                                ? ((size_t)(n / nc) * M + m) * nc + n % nc
                                : (size_t)m * N + n;
                put(c_out, (size_t)m * N + n, C->virt_addr, si, ct, 0);
            }
        if (n_shapes > 1)
            snprintf(name, sizeof(name), "C_%d.bin", M);
        else
            snprintf(name, sizeof(name), "C.bin");
        if (write_file(dir, name, c_out, (size_t)M * N * elem_bits(ct) / 8) != 0) {
            ret = 1;
            goto out;
        }
    }
    ret = 0;
out:
    if (A)
        rknn_destroy_mem(ctx, A);
    if (B)
        rknn_destroy_mem(ctx, B);
    if (C)
        rknn_destroy_mem(ctx, C);
    if (ctx)
        rknn_matmul_destroy(ctx);
    free(a_src);
    free(b_src);
    free(b_packed);
    free(c_out);
    return ret == 0 ? 0 : 1;
}
