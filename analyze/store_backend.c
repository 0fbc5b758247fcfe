/* analyze/store_backend.c — a run's backend: the strings the store holds
 * (docs/store.md, runs.backend) and their enum, in one place. */
#include "analyze/store.h"

#include <string.h>

static const char *const names[] = {
    [BACKEND_SIM] = "sim", [BACKEND_BOARD] = "board", [BACKEND_PREDICT] = "predict",
    [BACKEND_TOOLKIT] = "toolkit", [BACKEND_SIMLIB] = "simlib", [BACKEND_EMULATE] = "emulate",
};

int store_backend_of(const char *s)
{
    if (!s)
        return BACKEND_NONE;
    for (int b = BACKEND_SIM; b < BACKEND_UNKNOWN; b++)
        if (!strcmp(s, names[b]))
            return b;
    return BACKEND_UNKNOWN;
}

const char *store_backend_name(int b)
{
    return b >= BACKEND_SIM && b < BACKEND_UNKNOWN ? names[b] : NULL;
}
