/* tracer/snapshot_map.c — a line of map_name_to_file.txt in the snapshot
 * folder Toolkit2's accuracy_analysis writes (log-formats.md §8). */
#include <ctype.h>
#include <string.h>
#include "tracer/tracer.h"

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n > k && !strncmp(s + n - k, suffix, k);
}

int snapmap_line(const char *s, char *name, size_t nlen, char *file, size_t flen)
{
    const char *end, *f, *e;
    size_t n;

    while (*s == ' ' || *s == '\t')
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    /* the file: the last token */
    for (f = end; f > s && !isspace((unsigned char)f[-1]) && f[-1] != ',' && f[-1] != '>';)
        f--;
    n = (size_t)(end - f);
    if (f == s || !n || n >= flen || !(ends_with(f, n, ".npy") || ends_with(f, n, ".txt")))
        return 0;
    /* the name: what comes before, without the separator ("->", ':', ',', blanks) */
    e = f;
    while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == ',' || e[-1] == ':'))
        e--;
    if (e - s >= 2 && e[-1] == '>' && e[-2] == '-') {
        e -= 2;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
    }
    if (e == s || (size_t)(e - s) >= nlen)
        return 0;
    memcpy(name, s, (size_t)(e - s));
    name[e - s] = 0;
    memcpy(file, f, n);
    file[n] = 0;
    return 1;
}
