/* cli/import_read.c — what `import` reads, bounded. A log must be text from
 * its first bytes (a gzip file is inflated first, with zlib; UTF-16 with its
 * byte-order mark is converted to UTF-8),
 * its lines at most IMPORT_MAX_LINE bytes, and one import
 * holds at most IMPORT_MAX_BYTES: the text of its logs and what the scanner
 * makes of them (tracer/vlog_scan_bounded charges its runs and rows to the same
 * budget). A regular file is checked by its size before it is mapped; a pipe,
 * a FIFO or a device is read chunk by chunk and stopped at the first bound it
 * passes, so /dev/zero, /dev/urandom or a writer that never stops end with one
 * error, and never with an allocation that fails. */
#include "cli/cli.h"
#include "tracer/tracer.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { CHUNK = 1 << 16 };

/* Bytes of the head that are no UTF-8 text (a byte of a broken sequence, DEL). */
static size_t non_text_bytes(const unsigned char *p, size_t n)
{
    size_t bad = 0;

    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
        size_t j = 1;
        if (c == 0x7f || k == 9) {
            bad++, i++;
            continue;
        }
        while (j <= k && i + j < n && (p[i + j] & 0xc0) == 0x80)
            j++;
        if (j <= k && i + j < n) /* cut short by a byte that continues nothing */
            bad += j;
        i += j;
    }
    return bad;
}

/* The first IMPORT_TEXT_HEAD bytes: no control byte a log does not hold, and
 * mostly UTF-8 (a Latin-1 accent here and there passes). */
static int check_head(const char *path, const char *p, size_t n, char *err, size_t errlen)
{
    size_t at, bad;

    if (n > IMPORT_TEXT_HEAD)
        n = IMPORT_TEXT_HEAD;
    if (vlog_binary_at(p, n, &at))
        return rt_err(err, errlen, RT_EFORMAT, "%s: not a text log: binary byte 0x%02x at "
                      "offset %zu", path, (unsigned char)p[at], at);
    bad = non_text_bytes((const unsigned char *)p, n);
    if (bad * 4 > n)
        return rt_err(err, errlen, RT_EFORMAT, "%s: not a text log: %zu of its first %zu bytes "
                      "are not UTF-8 text", path, bad, n);
    return 0;
}

/* Lines of p[0..n) (continuing one of *cur bytes, line number *line): none
 * longer than IMPORT_MAX_LINE. Block by block: a line between two newlines of
 * one block is shorter than the block, so only the first and the last of each
 * are measured (a log of 2-byte lines is checked at memory speed). */
static int check_lines(const char *path, const char *p, size_t n, size_t *cur, int64_t *line,
                       char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i += IMPORT_MAX_LINE) {
        size_t b = n - i < IMPORT_MAX_LINE ? n - i : IMPORT_MAX_LINE;
        const char *q = p + i, *first = memchr(q, '\n', b);
        if (*cur + (size_t)(first ? first - q : (ptrdiff_t)b) > IMPORT_MAX_LINE)
            return rt_err(err, errlen, RT_EFORMAT, "%s:%lld: a line longer than %d KiB (the "
                          "runtime's lines are under 1 KiB): not a log, or a line to cut out "
                          "before importing", path, (long long)*line, IMPORT_MAX_LINE >> 10);
        if (!first) {
            *cur += b;
            continue;
        }
        int64_t nl = 0;
        for (size_t k = (size_t)(first - q); k < b; k++)
            nl += q[k] == '\n';
        *line += nl;
        *cur = b - 1 - (size_t)((const char *)memrchr(q, '\n', b) - q);
    }
    return 0;
}

/* A UTF-16 text by its byte-order mark (what Windows PowerShell's `>` writes):
 * "UTF-16LE" or "UTF-16BE", NULL for anything else. */
static const char *utf16_bom(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    if (n >= 2 && u[0] == 0xff && u[1] == 0xfe)
        return "UTF-16LE";
    if (n >= 2 && u[0] == 0xfe && u[1] == 0xff)
        return "UTF-16BE";
    return NULL;
}

/* p[0..n), UTF-16 after its mark, as a malloc'd NUL-terminated UTF-8 text
 * (at most 3 bytes per 2: a BMP code unit; a surrogate pair's 4 make 4). */
static int from_utf16(const char *path, const char *enc, const char *p, size_t n, char **out,
                      size_t *outlen, char *err, size_t errlen)
{
    iconv_t cd = iconv_open("UTF-8", enc);
    if (cd == (iconv_t)-1)
        return rt_err(err, errlen, RT_EFORMAT, "%s: a %s text, and no converter from %s: "
                      "convert it (iconv -f UTF-16 -t UTF-8)", path, enc, enc);
    size_t cap = (n - 2) / 2 * 3 + 1, left = cap - 1, in = n - 2;
    char *buf = xmalloc(cap), *o = buf, *i = (char *)p + 2;
    size_t r = iconv(cd, &i, &in, &o, &left);
    iconv_close(cd);
    if (r == (size_t)-1) {
        size_t at = (size_t)(i - p);
        free(buf);
        return rt_err(err, errlen, RT_EFORMAT, "%s: not a text log: a %s text (its byte-order "
                      "mark) with an invalid sequence at offset %zu", path, enc, at);
    }
    *o = 0;
    *out = buf, *outlen = (size_t)(o - buf);
    return 0;
}

static int over_budget(const char *path, size_t budget, char *err, size_t errlen)
{
    return rt_err(err, errlen, RT_ENOMEM, "%s: more than the %zu MiB left of what one import "
                  "may hold (%d MiB: its logs' text and what is read from them); split the log",
                  path, budget >> 20, (int)(IMPORT_MAX_BYTES >> 20));
}

/* gzip's magic bytes (`adb logcat | gzip`, a rotated log.1.gz) */
static int is_gzip(const char *p, size_t n)
{
    return n >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b;
}

/* p[0..n), gzip data, inflated (every member of a concatenation, as gunzip
 * does) into a malloc'd NUL-terminated text of at most budget bytes: a small
 * file that would inflate past it ends with the budget's error. */
static int from_gzip(const char *path, const char *p, size_t n, size_t budget, char **out,
                     size_t *outlen, char *err, size_t errlen)
{
    z_stream z;
    size_t cap = n < budget / 4 ? 4 * n + CHUNK : budget + 1, used = 0;
    size_t member_at = (size_t)-1; /* where the text was when a next member began */
    char *buf;
    int r = Z_OK, rc = 0, head_checked = 0;

    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return rt_err(err, errlen, RT_ENOMEM, "%s: zlib cannot start", path);
    buf = xmalloc(cap + 1);
    z.next_in = (Bytef *)p;
    for (size_t fed = 0;;) {
        if (z.avail_in == 0 && fed < n) { /* zlib counts in uInt: at most 1 GiB a step */
            z.avail_in = (uInt)(n - fed < ((size_t)1 << 30) ? n - fed : (size_t)1 << 30);
            fed += z.avail_in;
        }
        if (used == cap) {
            if (cap > budget) {
                rc = over_budget(path, budget, err, errlen);
                break;
            }
            cap = cap > budget / 2 ? budget + 1 : 2 * cap;
            buf = xrealloc(buf, cap + 1);
        }
        size_t room = cap - used < ((size_t)1 << 30) ? cap - used : (size_t)1 << 30;
        z.next_out = (Bytef *)buf + used;
        z.avail_out = (uInt)room;
        r = inflate(&z, Z_NO_FLUSH);
        used += room - z.avail_out;
        /* a compressed binary (a gzip bomb of zeros) ends at its head, not at
         * the budget; a UTF-16 text is checked once converted */
        if (!head_checked && (used >= IMPORT_TEXT_HEAD || r == Z_STREAM_END)) {
            head_checked = 1;
            if (!utf16_bom(buf, used) && (rc = check_head(path, buf, used, err, errlen)))
                break;
        }
        if (r == Z_STREAM_END) {
            if (z.avail_in == 0 && fed == n)
                break;
            inflateReset(&z); /* the next member */
            member_at = used;
            continue;
        }
        if (r == Z_DATA_ERROR && member_at == used && z.total_in <= 2)
            break; /* no member after the last one: trailing bytes, which gunzip ignores too */
        if (r == Z_BUF_ERROR && z.avail_in == 0 && fed == n) {
            rc = rt_err(err, errlen, RT_EFORMAT, "%s: a gzip file cut short (its data ends "
                        "after %zu bytes of text)", path, used);
            break;
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            rc = rt_err(err, errlen, RT_EFORMAT, "%s: a gzip file with corrupt data (zlib: %s, "
                        "at compressed byte %zu)", path, z.msg ? z.msg : "error",
                        (size_t)((const char *)z.next_in - p));
            break;
        }
    }
    inflateEnd(&z);
    if (!rc && used > budget)
        rc = over_budget(path, budget, err, errlen);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[used] = 0;
    *out = buf, *outlen = used;
    return 0;
}

/* A gzip or UTF-16 log p[0..n) as its UTF-8 text in *buf (malloc'd,
 * NUL-terminated, *len bytes): 1; 0 when p is neither (nothing done); < 0 an
 * error. A compressed UTF-16 text is inflated, then converted. */
static int decode(const char *path, const char *p, size_t n, size_t budget, char **buf,
                  size_t *len, char *err, size_t errlen)
{
    char *z = NULL;
    const char *enc;
    int rc;

    if (is_gzip(p, n)) {
        if ((rc = from_gzip(path, p, n, budget, &z, &n, err, errlen)))
            return rc;
        p = z;
    }
    if ((enc = utf16_bom(p, n))) {
        rc = from_utf16(path, enc, p, n, buf, len, err, errlen);
        free(z);
        return rc ? rc : 1;
    }
    if (!z)
        return 0;
    *buf = z, *len = n;
    return 1;
}

/* The text and the line index the scan will make of it (VLOG_LINE_BYTES a
 * line) within the budget: a log of short lines stops early. */
static int fits(const char *path, size_t n, int64_t lines, size_t budget, char *err,
                size_t errlen)
{
    if (n > budget || (size_t)lines > (budget - n) / VLOG_LINE_BYTES)
        return over_budget(path, budget, err, errlen);
    return 0;
}

/* A whole text's checks: its head, its lines, the budget for it and its index. */
static int check_whole(const char *path, const char *p, size_t n, size_t budget, char *err,
                       size_t errlen)
{
    size_t cur = 0;
    int64_t line = 1;
    int rc;
    if ((rc = check_head(path, p, n, err, errlen)) ||
        (rc = check_lines(path, p, n, &cur, &line, err, errlen)))
        return rc;
    return fits(path, n, line, budget, err, errlen);
}

int import_read_log(const char *path, size_t *budget, const char **text, size_t *len,
                    int *mapped, char *err, size_t errlen)
{
    struct stat sb;
    char *buf = NULL;
    size_t n = 0, cap = 0, cur = 0;
    int64_t line = 1;
    int rc = 0, head_done = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
    int encoded = 0; /* a pipe's text is gzip or UTF-16: decoded at the end */

    *text = NULL, *len = 0, *mapped = 0;
    if (fd < 0)
        return rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        rc = rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        void *map;
        if ((uint64_t)sb.st_size > *budget) {
            rc = over_budget(path, *budget, err, errlen);
            goto out;
        }
        map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (map == MAP_FAILED) {
            rc = rt_err(err, errlen, RT_ENOMEM, "%s: cannot map %lld bytes: %s", path,
                        (long long)sb.st_size, strerror(errno));
            goto out;
        }
        n = (size_t)sb.st_size;
        /* compressed or UTF-16: read as its UTF-8 text, then checked as any log */
        rc = decode(path, map, n, *budget, &buf, &n, err, errlen);
        if (rc) {
            munmap(map, (size_t)sb.st_size);
            if (rc < 0)
                goto out;
            rc = 0;
            goto whole;
        }
        if ((rc = check_whole(path, map, n, *budget, err, errlen))) {
            munmap(map, n);
            goto out;
        }
        *text = map, *len = n, *mapped = 1;
        *budget -= n;
        goto out;
    }
    /* a pipe, a FIFO, a device: chunks, each checked as it comes */
    for (;;) {
        ssize_t got;
        if (cap - n < CHUNK) {
            size_t want = cap ? cap * 2 : 4 * CHUNK;
            char *p;
            if (want > *budget + CHUNK + 1) /* never more than the budget and one chunk */
                want = *budget + CHUNK + 1;
            if (want <= cap || !(p = realloc(buf, want))) {
                rc = over_budget(path, *budget, err, errlen);
                goto out;
            }
            buf = p, cap = want;
        }
        got = read(fd, buf + n, CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = rt_err(err, errlen, RT_EIO, "%s: read error: %s", path, strerror(errno));
            goto out;
        }
        if (got == 0)
            break;
        if (!encoded && n < 2 && n + (size_t)got >= 2) /* the mark, even split across reads */
            encoded = utf16_bom(buf, n + (size_t)got) || is_gzip(buf, n + (size_t)got);
        if (encoded) { /* checked once decoded, at the end; bounded meanwhile */
            n += (size_t)got;
            if ((rc = fits(path, n, 1, *budget, err, errlen)))
                goto out;
            continue;
        }
        size_t at;
        if (vlog_binary_at(buf + n, (size_t)got, &at)) {
            rc = rt_err(err, errlen, RT_EFORMAT, "%s: not a text log: binary byte 0x%02x at "
                        "offset %zu", path, (unsigned char)buf[n + at], n + at);
            goto out;
        }
        if ((rc = check_lines(path, buf + n, (size_t)got, &cur, &line, err, errlen)))
            goto out;
        n += (size_t)got;
        if (!head_done && n >= IMPORT_TEXT_HEAD) {
            head_done = 1;
            if ((rc = check_head(path, buf, n, err, errlen)))
                goto out;
        }
        if ((rc = fits(path, n, line, *budget, err, errlen)))
            goto out;
    }
    if (encoded) {
        char *u8 = NULL;
        if ((rc = decode(path, buf, n, *budget, &u8, &n, err, errlen)) < 0)
            goto out;
        rc = 0;
        free(buf);
        buf = u8;
        goto whole;
    }
    if (!head_done && n && (rc = check_head(path, buf, n, err, errlen)))
        goto out;
    if (!buf && !(buf = malloc(1))) {
        rc = over_budget(path, *budget, err, errlen);
        goto out;
    }
    buf[n] = 0; /* cap > n: room was kept for a chunk */
    *text = buf, *len = n;
    *budget -= n;
    buf = NULL;
    goto out;
whole: /* a converted text in buf, n bytes and a NUL: the checks of a file */
    if ((rc = check_whole(path, buf, n, *budget, err, errlen)))
        goto out;
    *text = buf, *len = n;
    *budget -= n;
    buf = NULL;
out:
    free(buf);
    close(fd);
    return rc;
}
