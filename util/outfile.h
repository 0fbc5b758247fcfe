/* util/outfile.h — every file rknn-trace writes (exports, reports, dumps,
 * containers, quantization configs) is written through this one door, so
 * that a failed or concurrent write never leaves a broken file behind.
 *
 * Replacing: outfile_open creates a new temporary file beside the target,
 * named PATH.<pid>-<k>.tmp (or .rknn-trace-<pid>-<k>.tmp in the same folder
 * when that name is too long), with O_CREAT|O_EXCL|O_NOFOLLOW: a name that
 * exists in any form (a file, a planted symlink) is skipped, never followed,
 * never touched. Its mode is that of a normal create (0666 less the umask),
 * or the permission bits of the regular file it replaces (a private file
 * stays private). The caller writes through the FILE *; outfile_commit then
 * flushes, checks every write, fsyncs, closes and renames the temporary over
 * the target. outfile_abort closes and removes the temporary. On any error
 * the previous file is intact, byte for byte, and the temporary is gone.
 *
 * What may be replaced: a regular file, nothing (a new file), or a symlink —
 * the link itself is replaced by the rename, its target never written (a
 * link to a folder, FIFO, socket or block device is refused). A folder, a
 * FIFO, a socket and a block device are refused with a one-line message
 * (RT_EIO) before anything is created. A character device (/dev/null, a
 * terminal) is written straight and stays a device; so is a standard-stream
 * link (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), which names a
 * stream that is already open, whatever it is (a pipe, a file).
 *
 * Concurrent writers of one target each write their own temporary; the last
 * rename wins and the target is always one complete file.
 *
 * Errors: the first failed write's errno is kept (the stream stops writing
 * after it) and reported by the commit: ENOSPC and EDQUOT as "no space left
 * on device", EFBIG as "file size limit exceeded"; never "out of memory".
 * A read-only existing file is refused as fopen would (EACCES), not replaced.
 *
 * One outfile is used by one thread; distinct outfiles are independent. */
#ifndef RT_UTIL_OUTFILE_H
#define RT_UTIL_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct outfile outfile;

/* OUTFILE_NOSYNC skips the fsync, for the hundreds of files of a dump folder
 * (it doubled the time of `run --dump`) and nodes rewritten every frame: a
 * reader still never sees a partial file, but after a system crash a file
 * may be empty, to be rewritten by running again. */
enum { OUTFILE_NOSYNC = 1 };

/* Opens path for writing: *o (free with commit, abort or close) and the
 * stream *f to write to. On failure *o and *f are NULL and nothing exists
 * that did not exist before. */
int outfile_open(const char *path, outfile **o, FILE **f, char *err, size_t errlen);

/* As outfile_open, with path relative to the open folder dfd (a folder
 * checked once, walked without following links; AT_FDCWD: a plain path) and
 * flags (OUTFILE_NOSYNC above). */
int outfile_open_at(int dfd, const char *path, int flags, outfile **o, FILE **f, char *err,
                    size_t errlen);

/* Makes the written file the target (see above) and frees o. Returns RT_EIO
 * naming the path and the cause when any write, the flush, fsync, close or
 * rename failed; the previous file is then intact. o NULL: 0. */
int outfile_commit(outfile *o, char *err, size_t errlen);

/* Drops what was written (the temporary is removed) and frees o. o NULL: no-op. */
void outfile_abort(outfile *o);

/* Commit when status is 0, else abort; returns the final status. When the
 * stream saw a failed write, its cause (say "no space left on device")
 * replaces err, since a writer that stopped on it only knows it failed. */
int outfile_close(outfile *o, int status, char *err, size_t errlen);

/* The temporary's path (NULL when the target is written straight). */
const char *outfile_tmp_path(const outfile *o);

/* A whole buffer into path, as open + fwrite + commit. */
int outfile_write(const char *path, const void *data, size_t len, int flags, char *err,
                  size_t errlen);

/* errno as this module words it: "no space left on device" for ENOSPC and
 * EDQUOT, "file size limit exceeded" for EFBIG, else strerror. */
const char *outfile_strerror(int e);

#endif
