/* cli/cmd_info.c — `rknn-trace info`: what this build supports and where the
 * runtime library is. */
#include "cli/cli.h"
#include "runtime/exec/exec.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_info(int argc, char **argv)
{
    char self[PATH_MAX], lib[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        puts("usage: rknn-trace info\nPrints the supported ops and platforms and where the "
             "simulated librknnrt.so is.");
        return EXIT_OK;
    }
    printf("platforms  rk3588 rk3576 rk3566 rk3568 rk3562 rv1106 rv1103\n");
    printf("backends   sim (this host)\n");
    printf("ops        ");
    int col = 11;
    for (const char *const *op = exec_op_names(); *op; op++) {
        int w = (int)strlen(*op) + 1;
        if (col + w > 100) {
            printf("\n           ");
            col = 11;
        }
        printf("%s ", *op);
        col += w;
    }
    putchar('\n');
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        /* Installed layout: PREFIX/bin/rknn-trace and PREFIX/lib/rknn-trace/librknnrt.so;
         * build layout: build/rknn-trace and build/librknnrt.so. */
        snprintf(lib, sizeof(lib), "%s/../lib/rknn-trace/librknnrt.so", self);
        if (access(lib, R_OK) != 0)
            snprintf(lib, sizeof(lib), "%s/librknnrt.so", self);
        if (access(lib, R_OK) == 0) {
            char *real = realpath(lib, NULL);
            printf("runtime    %s (simulated NPU; not on the default library path)\n",
                   real ? real : lib);
            if (real) {
                char *s = strrchr(real, '/');
                *s = '\0';
                printf("           select it with: export LD_LIBRARY_PATH=%s:$LD_LIBRARY_PATH\n",
                       real);
                free(real);
            }
        }
    }
    return EXIT_OK;
}
