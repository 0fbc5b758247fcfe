/* util/outfile.c — new file beside the target, renamed over it once whole
 * (contract in outfile.h). */
#include "util/outfile.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct outfile {
    FILE *f;
    int fd;
    int werr;   /* errno of the first failed write, 0 none */
    int nosync;
    int dfd;    /* path is relative to it (AT_FDCWD: a plain path) */
    char *path;
    char *tmp;  /* NULL: written straight (a device, a stream) */
};

const char *outfile_strerror(int e)
{
    switch (e) {
    case ENOSPC: return "no space left on device";
#ifdef EDQUOT
    case EDQUOT: return "no space left on device (disk quota exceeded)";
#endif
    case EFBIG: return "file size limit exceeded";
    }
    return strerror(e);
}

/* The stream's writes, so that the first failure's errno is kept (stdio
 * forgets it by the time the file is closed) and nothing is written after it. */
static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
    outfile *o = c;
    size_t done = 0;
    if (o->werr)
        return 0;
    while (done < n) {
        ssize_t w = write(o->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->werr = w < 0 ? errno : ENOSPC;
            errno = o->werr;
            return 0;  /* fopencookie: 0 is the error return */
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int cookie_seek(void *c, off64_t *pos, int whence)
{
    outfile *o = c;
    off64_t r = lseek(o->fd, *pos, whence);
    if (r < 0)
        return -1;
    *pos = r;
    return 0;
}

static int cookie_close(void *c)
{
    (void)c;  /* the descriptor is closed by the owner, after fsync */
    return 0;
}

static const char *refused_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISBLK(m))
        return "a block device";
    return NULL;
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: links naming a stream
 * that is already open (not /dev/shm or other folders where files live). */
static int is_stream_link(const char *path)
{
    static const char *const names[] = { "/dev/stdout", "/dev/stderr" };
    static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(path, names[i]))
            return 1;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (!strncmp(path, dirs[i], strlen(dirs[i])) && !strchr(path + strlen(dirs[i]), '/'))
            return 1;
    return 0;
}

static void outfile_free(outfile *o)
{
    free(o->path);
    free(o->tmp);
    free(o);
}

/* O_EXCL over candidate names; a taken name (of any kind) is skipped. */
static int create_tmp(outfile *o, mode_t keep, int have_keep)
{
    const char *path = o->path, *slash = strrchr(path, '/');
    size_t cap = strlen(path) + 64;
    int longname = 0;

    o->tmp = xmalloc(cap);
    for (int k = 0; k < 1000; k++) {
        if (!longname)
            snprintf(o->tmp, cap, "%s.%ld-%d.tmp", path, (long)getpid(), k);
        else
            snprintf(o->tmp, cap, "%.*s.rknn-trace-%ld-%d.tmp", slash ? (int)(slash - path + 1) : 0,
                     path, (long)getpid(), k);
        o->fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (o->fd >= 0)
            break;
        if (errno == ENAMETOOLONG && !longname) {
            longname = 1, k = -1;
            continue;
        }
        if (errno != EEXIST)
            return -1;
    }
    if (o->fd < 0)
        return -1;
    if (have_keep)
        (void)fchmod(o->fd, keep & 0777);  /* best effort: the umask's mode else */
    return 0;
}

int outfile_open(const char *path, outfile **out, FILE **f, char *err, size_t errlen)
{
    return outfile_open_at(AT_FDCWD, path, 0, out, f, err, errlen);
}

int outfile_open_at(int dfd, const char *path, int flags, outfile **out, FILE **f, char *err,
                    size_t errlen)
{
    static const cookie_io_functions_t io = { NULL, cookie_write, cookie_seek, cookie_close };
    struct stat ls, sb;
    const char *why;
    outfile *o;
    int rc = RT_OK, straight = 0, keep_mode = 0;

    *out = NULL;
    *f = NULL;
    if (!path || !*path)
        return rt_err(err, errlen, RT_EINVAL, "no output file named");
    if (fstatat(dfd, path, &ls, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(ls.st_mode)) {
            /* a link is replaced, not followed; only a device or stream behind it is written */
            if (fstatat(dfd, path, &sb, 0) != 0)
                sb.st_mode = 0;  /* dangling: replaced */
            int stream = dfd == AT_FDCWD && is_stream_link(path) &&
                         (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode) || S_ISREG(sb.st_mode));
            if (S_ISCHR(sb.st_mode) || stream)
                straight = 1;
            else if ((why = refused_kind(sb.st_mode)))
                return rt_err(err, errlen, RT_EIO, "cannot write '%s': it is a link to %s", path,
                              why);
        } else if (S_ISCHR(ls.st_mode)) {
            straight = 1;
        } else if ((why = refused_kind(ls.st_mode))) {
            return rt_err(err, errlen, RT_EIO, "cannot write '%s': it is %s, not a file", path,
                          why);
        } else {
            /* a regular file: replaced only where fopen could have written it */
            if (faccessat(dfd, path, W_OK, 0) != 0)
                return rt_err(err, errlen, RT_EIO, "cannot write '%s': %s", path,
                              outfile_strerror(errno));
            keep_mode = 1;
        }
    } else if (errno != ENOENT) {
        return rt_err(err, errlen, RT_EIO, "cannot write '%s': %s", path, outfile_strerror(errno));
    }

    o = xcalloc(1, sizeof *o);
    o->fd = -1;
    o->dfd = dfd;
    o->nosync = (flags & OUTFILE_NOSYNC) != 0;
    o->path = xstrdup(path);
    if (straight) {
        struct stat fs;
        o->fd = openat(dfd, path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (o->fd < 0)
            goto fail_errno;
        /* a file behind /dev/stdout is rewritten, as fopen "w" would */
        if (fstat(o->fd, &fs) == 0 && S_ISREG(fs.st_mode) && ftruncate(o->fd, 0) != 0)
            goto fail_errno;
    } else if (create_tmp(o, ls.st_mode, keep_mode)) {
        goto fail_errno;
    }
    if (!(o->f = fopencookie(o, "w", io)))
        goto fail_errno;
    *out = o;
    *f = o->f;
    return RT_OK;
fail_errno:
    rc = rt_err(err, errlen, RT_EIO, "cannot write '%s': %s", path, outfile_strerror(errno));
    if (o->fd >= 0)
        close(o->fd);
    if (o->tmp && o->fd >= 0)
        unlinkat(o->dfd, o->tmp, 0);
    outfile_free(o);
    return rc;
}

const char *outfile_tmp_path(const outfile *o)
{
    return o ? o->tmp : NULL;
}

int outfile_commit(outfile *o, char *err, size_t errlen)
{
    int e = 0;

    if (!o)
        return RT_OK;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = o->werr ? o->werr : errno ? errno : EIO;
    /* fsync: the data is on disk before the new name points at it; a device
     * may not sync (EINVAL), which is not a failed write */
    if (!e && !o->nosync && fsync(o->fd) != 0 && !(o->tmp == NULL && (errno == EINVAL || errno == EROFS ||
                                                         errno == ENOTSUP)))
        e = errno;
    fclose(o->f);
    if (close(o->fd) != 0 && !e && errno != EINTR)
        e = errno;
    if (!e && o->tmp && renameat(o->dfd, o->tmp, o->dfd, o->path) != 0)
        e = errno;
    if (e && o->tmp)
        unlinkat(o->dfd, o->tmp, 0);
    int rc = e ? rt_err(err, errlen, RT_EIO, "writing '%s' failed: %s", o->path,
                        outfile_strerror(e))
               : RT_OK;
    outfile_free(o);
    return rc;
}

void outfile_abort(outfile *o)
{
    if (!o)
        return;
    fclose(o->f);
    close(o->fd);
    if (o->tmp)
        unlinkat(o->dfd, o->tmp, 0);
    outfile_free(o);
}

int outfile_close(outfile *o, int status, char *err, size_t errlen)
{
    if (!o)
        return status;
    if (!status)
        return outfile_commit(o, err, errlen);
    fflush(o->f);  /* a buffered tail may be what fails */
    if (o->werr)
        status = rt_err(err, errlen, RT_EIO, "writing '%s' failed: %s", o->path,
                        outfile_strerror(o->werr));
    outfile_abort(o);
    return status;
}

int outfile_write(const char *path, const void *data, size_t len, int flags, char *err,
                  size_t errlen)
{
    outfile *o;
    FILE *f;
    int rc = outfile_open_at(AT_FDCWD, path, flags, &o, &f, err, errlen);
    if (rc)
        return rc;
    if (len)
        fwrite(data, 1, len, f);  /* a short write is reported by the commit */
    return outfile_commit(o, err, errlen);
}
