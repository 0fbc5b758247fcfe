/* tests/fuzz/fuzz_importread.c — fuzz target: bytes as a log file -> import's
 * reader (cli/import_read.c): a gzip file inflated (every member), a UTF-16
 * text converted, the text's head and line checks, the budget (16 MiB here,
 * so that a small input that inflates far ends at it). The file is a memfd
 * read by its /proc/self/fd path, as import reads a named file. Any status is
 * fine; a crash, a sanitizer report or a leak is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h> /* memfd_create */
#include <unistd.h>
#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("log", MFD_CLOEXEC);
    char path[64], err[512];
    size_t budget = (size_t)16 << 20, len = 0, off = 0;
    const char *text = NULL;
    int mapped = 0;

    if (fd < 0)
        return 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (import_read_log(path, &budget, &text, &len, &mapped, err, sizeof err) == 0) {
        volatile unsigned sum = 0; /* every byte read: a short text shows under ASan */
        for (size_t i = 0; i < len; i++)
            sum += (unsigned char)text[i];
        mapped ? rt_unmap_file(text, len) : free((void *)text);
    }
    close(fd);
    return 0;
}
