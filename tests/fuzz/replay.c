/* tests/fuzz/replay.c — a main() for fuzz targets without libFuzzer: feeds every
 * file named on the command line (directories: every file in them) to
 * LLVMFuzzerTestOneInput. Built with ASan/UBSan by `make test`, a corpus replay
 * that does not crash passes. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path, int *n)
{
    char err[512];
    void *buf = NULL;
    size_t len = 0;

    if (rt_read_file(path, &buf, &len, err, sizeof(err)) != 0) {
        fprintf(stderr, "replay: %s\n", err);
        return -1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    (*n)++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t cnt = 0, cap = 0, i;
    int bad = 0;

    if (!d) {
        fprintf(stderr, "replay: cannot open %s\n", dir);
        return -1;
    }
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            names = xrealloc(names, cap * sizeof(*names));
        }
        names[cnt++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (cnt)
        qsort(names, cnt, sizeof(*names), cmp_str);
    for (i = 0; i < cnt; i++) {
        char path[4096];
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && run_file(path, n) != 0)
            bad++;
        free(names[i]);
    }
    free(names);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    int i, n = 0, bad = 0;
    struct stat st;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 1;
    }
    for (i = 1; i < argc; i++) {
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: not found\n", argv[i]);
            bad++;
        } else if (S_ISDIR(st.st_mode)) {
            bad += run_dir(argv[i], &n) != 0;
        } else {
            bad += run_file(argv[i], &n) != 0;
        }
    }
    /* reaching this line means nothing crashed */
    printf("%d passed, %d failed\n", n, bad);
    return bad ? 1 : 0;
}
