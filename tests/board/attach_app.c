/* tests/board/attach_app.c — small applications of the RKNN C API for the attach
 * tests, built against rknn_api.h and -lrknnrt like any application:
 *   attach_app crash MODEL    4 runs (the 4th after 0.6 s, past a journal flush), then abort()
 *   attach_app kill MODEL     the same, then SIGKILL to itself (no handler can run)
 *   attach_app misuse MODEL   rknn_run before inputs_set, outputs_get twice without
 *                             release, rknn_run on a context never made; exits 0
 *   attach_app two MODEL      a second context from rknn_dup_context: 2 runs on the
 *                             first, 3 on the second
 *   attach_app bench MODEL N  N rknn_run calls, prints the mean µs per call
 *   attach_app print MODEL    2 runs, prints their first outputs (same bytes every
 *                             time; the last line has no newline) */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "rknn_api.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_input_output_num io;
    rknn_input in = {0};
    rknn_output out[4];
    rknn_tensor_attr a = {0};

    if (argc < 3)
        return 2;
    if (rknn_init(&ctx, argv[2], 0, 0, NULL) != RKNN_SUCC)
        return 3;
    rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io);
    rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a);
    float *buf = calloc(a.n_elems, sizeof(float));
    in.index = 0;
    in.buf = buf;
    in.size = a.n_elems * sizeof(float);
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = a.fmt;
    memset(out, 0, sizeof out);
    for (uint32_t i = 0; i < io.n_output && i < 4; i++)
        out[i].want_float = 1, out[i].index = i;
    if (!strcmp(argv[1], "crash") || !strcmp(argv[1], "kill")) {
        for (int k = 0; k < 4; k++) {
            if (k == 3)
                nanosleep(&(struct timespec){0, 600000000L}, NULL);
            rknn_inputs_set(ctx, 1, &in);
            rknn_run(ctx, NULL);
            rknn_outputs_get(ctx, io.n_output, out, NULL);
            rknn_outputs_release(ctx, io.n_output, out);
        }
        if (!strcmp(argv[1], "kill"))
            raise(SIGKILL);
        abort();
    }
    if (!strcmp(argv[1], "misuse")) {
        rknn_run(ctx, NULL);
        rknn_inputs_set(ctx, 1, &in);
        in.size += 4; /* one float too many: the runtime may take it, a warning says so */
        rknn_inputs_set(ctx, 1, &in);
        rknn_outputs_get(ctx, io.n_output, out, NULL);
        rknn_outputs_get(ctx, io.n_output, out, NULL);
        rknn_outputs_release(ctx, io.n_output, out);
        rknn_run((rknn_context)0xdead, NULL);
        rknn_destroy(ctx);
        free(buf);
        return 0;
    }
    if (!strcmp(argv[1], "two")) {
        rknn_context b = 0;
        if (rknn_dup_context(&ctx, &b) != RKNN_SUCC)
            return 4;
        for (int k = 0; k < 5; k++) {
            rknn_context c = k < 2 ? ctx : b;
            rknn_inputs_set(c, 1, &in);
            rknn_run(c, NULL);
            rknn_outputs_get(c, io.n_output, out, NULL);
            rknn_outputs_release(c, io.n_output, out);
        }
        rknn_destroy(b);
        rknn_destroy(ctx);
        free(buf);
        return 0;
    }
    if (!strcmp(argv[1], "print")) {
        buf[0] = 1.0f;
        for (int k = 0; k < 2; k++) {
            rknn_inputs_set(ctx, 1, &in);
            rknn_run(ctx, NULL);
            rknn_outputs_get(ctx, io.n_output, out, NULL);
            printf("run %d:", k);
            for (uint32_t e = 0; e < out[0].size / sizeof(float) && e < 10; e++)
                printf(" %.6f", ((const float *)out[0].buf)[e]);
            putchar('\n');
            rknn_outputs_release(ctx, io.n_output, out);
        }
        printf("done, no newline");
        rknn_destroy(ctx);
        free(buf);
        return 0;
    }
    if (!strcmp(argv[1], "bench") && argc > 3) {
        int n = atoi(argv[3]);
        rknn_inputs_set(ctx, 1, &in);
        rknn_run(ctx, NULL);
        double t0 = now_us();
        for (int k = 0; k < n; k++)
            rknn_run(ctx, NULL);
        printf("%.3f\n", (now_us() - t0) / n);
        rknn_destroy(ctx);
        free(buf);
        return 0;
    }
    return 2;
}
