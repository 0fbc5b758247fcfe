/* record/inputs.h — the inputs a run is fed: seeded random inputs
 * (record/seed_input.c; the same --seed is the same input on every backend)
 * and the JSON list recorded of them (inputs_json_of, record/source_sim.c). */
#ifndef RT_RECORD_INPUTS_H
#define RT_RECORD_INPUTS_H

#include "runtime/model/model.h"

#include <stddef.h>
#include <stdint.h>

/* n values of dtype (DT_*) into buf for input number `index` of a run seeded
 * with seed: splitmix64 from seed + index, uniform [0,1) for floats, [0,10)
 * for integers, {0,1} for bool. RT_EUNSUPPORTED for another dtype. The board
 * feeds the float32 values (the runtime converts), the simulator the model's
 * dtype: a float32 input is the same bytes on both. */
int seed_input_fill(int dtype, int64_t n, long long seed, int index, void *buf);
/* The same, integers in [0, below) when 0 < below < 10: an index into a table
 * of fewer rows (a BERT's token_type_ids into 2 embeddings). */
int seed_input_fill_below(int dtype, int64_t n, long long seed, int index, int64_t below,
                          void *buf);
/* The integers graph input tensor ti may hold without failing: a Gather of a
 * constant table indexed by it (an embedding lookup, a BERT's token_type_ids
 * into 2 rows) takes values below the table's size on its axis; the least such
 * size, or 0 for none. */
int64_t seed_input_bound(const graph_t *g, int ti);
/* The "source" recorded for such an input (docs/store.md, inputs_json);
 * ":below=N" ends it when the integers were bounded. */
void seed_input_source(char *buf, size_t len, long long seed, int index, int64_t below);

/* JSON list of the inputs fed: name, dtype, shape, and a file or the seeded
 * source, with the sha256 of the bytes of each (malloc'd). */
typedef struct run_input_fed {
    const char *name, *dtype, *file; /* file NULL: seeded */
    int ndim;
    const int64_t *dims;
    const void *data;
    size_t nbytes;
    int64_t below;                   /* seeded integers' bound (0: none) */
} run_input_fed;
char *inputs_json_of(const run_input_fed *in, int n, long long seed);

#endif
