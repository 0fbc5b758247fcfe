/* tests/capture.h — stderr captured around a call, for tests that check the runtime's
 * "E RKNN:" lines: cap_begin(), the call, then cap_end() returns what it printed. */
#ifndef RT_TEST_CAPTURE_H
#define RT_TEST_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static char cap[16384];
static FILE *cap_file;
static int cap_saved = -1;

static void cap_begin(void)
{
    fflush(stderr);
    cap_file = tmpfile();
    cap_saved = dup(2);
    dup2(fileno(cap_file), 2);
}

static const char *cap_end(void)
{
    size_t n;
    fflush(stderr);
    dup2(cap_saved, 2);
    close(cap_saved);
    rewind(cap_file);
    n = fread(cap, 1, sizeof(cap) - 1, cap_file);
    cap[n] = 0;
    fclose(cap_file);
    return cap;
}

#endif
