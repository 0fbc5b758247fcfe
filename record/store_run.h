/* record/store_run.h — a run's rows (record/rows.h) written to the store in ONE
 * transaction: nothing of the run is left on failure. */
#ifndef RT_RECORD_STORE_RUN_H
#define RT_RECORD_STORE_RUN_H

#include "record/rows.h"

/* One transaction; sets rows->run.id. A run without env_json gets this host's
 * environment (the tool, CPU, OS; the cost model's version for a prediction). */
int run_rows_store(run_rows *rows, const char *db, char *err, size_t errlen);

#endif
