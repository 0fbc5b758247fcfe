/* tracer/log_prefix.c — the logger prefix every vendor log line may carry. */
#include "tracer/tracer.h"

#include <string.h>

char *tracer_strip_prefix(char *s)
{
    if (s[0] && strchr("EWIDT", s[0]) && !strncmp(s + 1, " RKNN: ", 7)) {
        s += 8;
        if (s[0] == '[') {
            char *e = strchr(s, ']');
            if (e && e - s <= 16) {
                s = e + 1;
                if (*s == ' ')
                    s++;
            }
        }
    }
    if (!strncmp(s, "---> ", 5))
        s += 5;
    return s;
}

const char *tracer_after_tag(const char *k, int pid)
{
    while (*k == ' ')
        k++;
    if (pid && *k == '(' && strchr(k, ')'))
        k = strchr(k, ')') + 1;
    return *k == ':' ? k + 1 : NULL;
}
