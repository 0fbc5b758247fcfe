/* tests/tools/pylit_json.c — prints the Python literal in FILE as JSON (keys
 * sorted, compact), through pylit_parse, so that tests can compare it with
 * Python's own ast.literal_eval.
 *
 *   pylit_json FILE      exit 0 and the JSON, or exit 2 and the parse error */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include "runtime/model/rknn_file.h"

int main(int argc, char **argv)
{
    FILE *f;
    char *buf = NULL, err[256];
    size_t len = 0, cap = 0, n;
    void *v = NULL;

    if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: pylit_json FILE\n");
        return 1;
    }
    do {
        if (len == cap)
            buf = realloc(buf, cap = cap ? 2 * cap : 65536);
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n);
    fclose(f);
    if (pylit_parse(buf, len, &v, err, sizeof(err))) {
        fprintf(stderr, "pylit_json: %s: %s\n", argv[1], err);
        free(buf);
        return 2;
    }
    json_dumpf(v, stdout, JSON_COMPACT | JSON_SORT_KEYS);
    putchar('\n');
    json_decref(v);
    free(buf);
    return 0;
}
