/* tests/test.h — the smallest test harness: CHECK counts, TEST_END prints the
 * closing line "N passed, N failed" that tests/run.sh sums up. */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stdio.h>
#include <math.h>

static int t_passed, t_failed;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (cond) {                                                          \
            t_passed++;                                                      \
        } else {                                                             \
            t_failed++;                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol, what)                                          \
    CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s: %.9g vs %.9g", what, \
          (double)(a), (double)(b))

#define TEST_END()                                                           \
    do {                                                                     \
        printf("%d passed, %d failed\n", t_passed, t_failed);                \
        return t_failed ? 1 : 0;                                             \
    } while (0)

#endif
