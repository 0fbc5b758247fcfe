/* util/util.c — status strings, allocation wrappers, timing, file reading. */
#include "util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

const char *rt_status_str(int status)
{
    switch (status) {
    case RT_OK: return "ok";
    case RT_EIO: return "I/O error";
    case RT_EFORMAT: return "malformed input";
    case RT_EUNSUPPORTED: return "unsupported";
    case RT_ESHAPE: return "shape mismatch";
    case RT_ENOMEM: return "out of memory";
    case RT_EINVAL: return "invalid argument";
    case RT_EINTERNAL: return "internal error";
    case RT_ENOTFOUND: return "not found";
    case RT_EEXIST: return "already exists";
    }
    return "unknown error";
}

int rt_err(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

static void oom(size_t n)
{
    fprintf(stderr, "rknn-trace: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

void *xaligned_alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0)
        oom(n);
    return p;
}

void *big_alloc(size_t n)
{
    size_t al = n >= (2u << 20) ? (2u << 20) : 64;
    void *p = NULL;
    if (posix_memalign(&p, al, n ? n : 64) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (al > 64)
        madvise(p, n, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    return p;
}

void rt_assert_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "rknn-trace: internal error: %s:%d: assertion '%s' failed\n", file, line, cond);
    abort();
}

double rt_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void rt_iso_time(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *rt_copy(char *dst, size_t cap, const char *s, size_t n)
{
    size_t k = strnlen(s, n < cap - 1 ? n : cap - 1);

    memcpy(dst, s, k);
    dst[k] = 0;
    return dst;
}

int rt_map_file(const char *path, int populate, const void **data, size_t *len, char *err,
                size_t errlen)
{
    struct stat sb;
    void *map;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    *data = NULL;
    *len = 0;
    if (fd < 0)
        return rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0) {
        close(fd);
        return rt_err(err, errlen, RT_EINVAL, "%s: not a non-empty regular file", path);
    }
    map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0),
               fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return rt_err(err, errlen, RT_EINVAL, "%s: cannot map: %s", path, strerror(errno));
    *data = map;
    *len = (size_t)sb.st_size;
    return 0;
}

void rt_unmap_file(const void *data, size_t len)
{
    if (data && len)
        munmap((void *)data, len);
}

int rt_read_file(const char *path, void **data, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    int rc = RT_OK;

    *data = NULL;
    *len = 0;
    if (!f)
        return rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
    /* a regular file's size is known: one buffer, no regrowing copies */
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        cap = (size_t)sb.st_size + 65536;
        buf = xmalloc(cap + 1);
    }
    for (;;) {
        if (cap - n < 65536) {
            cap = cap ? cap * 2 : 1 << 20;
            buf = xrealloc(buf, cap + 1);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = rt_err(err, errlen, RT_EIO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    if (!buf)
        buf = xmalloc(1);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return RT_OK;
}
