/* tests/fuzz/fuzz_procfs.c — the parsers of procfs/sysfs text the board probe
 * reads (/proc/PID/fdinfo/N of a DRM file, a sysfs uevent, a device tree
 * `compatible` list with its NUL separators) on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), val[64], soc[16];

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    board_fdinfo_driver(text, val, sizeof val);
    board_uevent_get(text, "DRIVER", val, sizeof val);
    board_uevent_get(text, "OF_COMPATIBLE_0", val, 8);
    board_dt_soc(text, size, soc, sizeof soc); /* binary: NULs inside */
    free(text);
    return 0;
}
