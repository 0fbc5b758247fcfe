/* tests/unit/test_rt_copy.c — rt_copy writes what snprintf(dst, cap, "%.*s",
 * n, s) writes (the oracle), for 100,000 seeded random strings, caps and
 * lengths, strings shorter and longer than both; bytes after dst's NUL are left
 * alone. Run under ASan, it also shows rt_copy reads no byte past s's NUL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test.h"
#include "util/util.h"

int main(void)
{
    int bad = 0;

    srand(11);
    for (int i = 0; i < 100000; i++) {
        size_t len = (size_t)(rand() % 40), cap = 1 + (size_t)(rand() % 40);
        size_t n = rand() % 4 ? (size_t)(rand() % 50) : SIZE_MAX;
        char *s = malloc(len + 1), want[48], got[48];
        for (size_t k = 0; k < len; k++)
            s[k] = (char)('a' + rand() % 26);
        s[len] = 0;
        memset(want, '#', sizeof want);
        memset(got, '#', sizeof got);
        snprintf(want, cap, "%.*s", n > 1000 ? 1000 : (int)n, s);
        rt_copy(got, cap, s, n);
        bad += memcmp(want, got, sizeof want) != 0;
        free(s);
    }
    CHECK(bad == 0, "%d of 100000 copies differ from snprintf", bad);
    char one[1];
    CHECK(*rt_copy(one, 1, "abc", 3) == 0, "cap 1: the empty string");
    TEST_END();
}
