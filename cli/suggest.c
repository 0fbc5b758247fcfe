/* cli/suggest.c — "did you mean": the closest of a few known names to a
 * mistyped one, by edit distance (insertions, deletions, substitutions and
 * swaps of neighbours, each costing 1). */
#include "cli/cli.h"

#include <string.h>

#define SUGGEST_MAX_LEN 64

/* Optimal string alignment distance; -1 when a name is too long to matter. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];

    if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
        return -1;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *cli_suggest(const char *typed, const char *const *names, int n)
{
    const char *best = NULL;
    int best_d = 0;
    /* a third of the word may be wrong, at least one letter, at most three */
    int len = (int)strlen(typed), limit = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3;

    for (int i = 0; i < n; i++) {
        int d = names[i] ? edit_distance(typed, names[i]) : -1;
        if (d >= 0 && d <= limit && (!best || d < best_d)) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}
