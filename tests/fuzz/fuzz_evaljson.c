/* tests/fuzz/fuzz_evaljson.c — fuzz target: bytes -> a run's stored extra JSON
 * -> the run summary's evaluation (summary_eval_read), printed and written
 * as the run document's "eval". Any input is fine; a crash, a sanitizer
 * report or a leak is a bug, and so is an invalid JSON value or a sample
 * index outside the list. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    store_run run;
    memset(&run, 0, sizeof(run));
    run.extra_json = text;
    run_summary s;
    summary_compute(&run, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0.99, &s);
    const summary_eval *e = &s.eval;
    if (e->worst >= e->n_samples || (e->n_samples && e->worst < -1))
        abort();
    for (int k = 0; k < e->n_outputs; k++)
        if (e->outputs[k].cos_worst >= e->n_samples || e->outputs[k].cos_worst < -1)
            abort();
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        summary_print_eval(&s, null);
        fclose(null);
    }
    char *doc = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&doc, &len);
    if (mem) {
        json_writer w;
        json_begin(&w, mem);
        summary_eval_json(e, &w);
        fclose(mem);
        if (!json_valid(doc))
            abort();
    }
    free(doc);
    summary_free(&s);
    free(text);
    return 0;
}
