/* dump/dump.h — .npy files and per-layer dump folders.
 *
 * .npy (numpy's NEP-1 format): versions 1.0, 2.0 and 3.0 are read, 1.0 is written
 * unless the header needs 2.0. Arrays in memory are always C order, little-endian
 * (the host order), with dtypes in ONNX numbering (enum dtype, runtime/model/model.h).
 * Files in Fortran order are transposed and big-endian files byte-swapped on read.
 * Supported dtypes: float16/32/64, int8/16/32/64, uint8/16/32/64, bool.
 *
 * The reader parses outside input: every length is bounds-checked, every size
 * product overflow-checked, and a broken file gets a one-line error (RT_EFORMAT,
 * RT_EUNSUPPORTED for valid files we do not handle, RT_EIO for I/O). */
#ifndef RT_DUMP_H
#define RT_DUMP_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 32 /* numpy's own limit (NPY_MAXDIMS in numpy 1.x) */

typedef struct npy_array {
    int dtype;                  /* enum dtype */
    int ndim;                   /* 0 for a scalar */
    int64_t dims[NPY_MAX_DIMS];
    size_t count;               /* number of elements (1 for a scalar) */
    size_t nbytes;              /* count * element size */
    void *data;                 /* malloc'd (64-byte aligned), C order, host order;
                                   with npy_map, possibly inside the file's mapping */
    int borrowed;               /* data points into a mapping, not a copy */
    void *map;                  /* npy_map: the mapping to release, else NULL */
    size_t map_len;
} npy_array;

/* Writes one array. dims[ndim] must be >= 0; data holds count * size bytes.
 * Through util/outfile.h (OUTFILE_NOSYNC): the file appears whole or not at
 * all, an existing one is intact when the write fails. */
int npy_write(const char *path, int dtype, int ndim, const int64_t *dims, const void *data,
              char *err, size_t errlen);

/* Encodes into a malloc'd buffer. version: 0 = automatic (1.0 unless the header
 * does not fit in 64 KiB), or 1, 2, 3 to force one. min_header pads the header
 * dictionary with spaces to at least that many bytes (0 for none; tests use it to
 * make files whose header needs version 2.0). */
int npy_encode(int dtype, int ndim, const int64_t *dims, const void *data, int version,
               size_t min_header, void **out, size_t *outlen, char *err, size_t errlen);

/* Reads a file / a buffer. On success *a is filled and owns its data (npy_free);
 * on failure *a is zeroed. Messages of npy_read start with the path. */
int npy_read(const char *path, npy_array *a, char *err, size_t errlen);
int npy_read_buffer(const void *buf, size_t len, npy_array *a, char *err, size_t errlen);
void npy_free(npy_array *a);
/* A float16 array as float32 (exact), in place; any other dtype is left as it
 * is: a float16 .npy feeds a float32 input (a float16 model is computed in
 * float32, runtime/passes/widen_fp16.c). */
void npy_widen_f16(npy_array *a);
/* Like npy_read, but maps the file read-only and, when its data needs no
 * conversion, uses it in place (no copy): for reading many large dumps. */
int npy_map(const char *path, npy_array *a, char *err, size_t errlen);

/* numpy's descr for a dtype ("<f4", "|u1", "|b1") and its name ("float32",
 * "bool"); NULL if the dtype has no .npy form. */
const char *npy_descr(int dtype);
const char *npy_dtype_name(int dtype);
/* dtype (enum dtype) from a numpy name as npy_dtype_name prints it; 0 if unknown. */
int npy_dtype_from_name(const char *name);

/* ---- Dump folders (CLI contract, DESIGN.md "--dump DIR") ----
 *
 * dump_dir_open creates DIR (and its parents). Each dump_dir_add writes one .npy
 * named "<layer, 4 digits>_<op>_<tensor name>.npy" (unsafe characters replaced by
 * '_', made unique; layer < 0 means a graph input: "input_<name>.npy").
 * dump_dir_close writes DIR/index.json — a list of
 *   {"layer", "node", "op", "name", "file", "shape", "dtype"}
 * (name: the source model's tensor name; file: relative to DIR; dtype: the numpy
 * name) — and frees d whether or not that worked. bfloat16 data is dumped as
 * float32 (numpy has no bfloat16). */
typedef struct dump_dir dump_dir;

int dump_dir_open(const char *dir, dump_dir **out, char *err, size_t errlen);
int dump_dir_add(dump_dir *d, int layer, const char *node_name, const char *op,
                 const char *tensor_name, int dtype, int ndim, const int64_t *dims,
                 const void *data, char *err, size_t errlen);
int dump_dir_close(dump_dir *d, char *err, size_t errlen);
/* Closes without writing the index (error paths). */
void dump_dir_discard(dump_dir *d);

/* One entry of index.json, as read back. */
typedef struct dump_entry {
    int layer;
    char *node, *op, *name, *file; /* node/op may be NULL (JSON null) */
    int ndim;
    int64_t dims[NPY_MAX_DIMS];
    int dtype;                     /* enum dtype */
} dump_entry;

/* Before a run that will dump into DIR: creates DIR (and its parents) and checks
 * that a file can be created in it. A folder that holds another run's dumps
 * (DIR/index.json exists) is refused (RT_EEXIST) unless overwrite is set; then
 * the old index and the files it lists are removed first, so that nothing of the
 * earlier run stays mixed with the new one. */
int dump_dir_prepare(const char *dir, int overwrite, char *err, size_t errlen);

/* Content hash of a closed dump folder: SHA-256 (64 hex digits) over the line
 * "index.json <sha256 of DIR/index.json>" followed by one line
 * "<file> <sha256 of the file>" per index entry, in index order, each line ending
 * in '\n'. Any change to the index or to a listed file changes it. */
int dump_dir_hash(const char *dir, char out[65], char *err, size_t errlen);

/* Reads DIR/index.json. *entries is a malloc'd array (dump_entries_free). */
int dump_dir_load_index(const char *dir, dump_entry **entries, int *n, char *err,
                        size_t errlen);
/* The same from a buffer (what names it in messages). */
int dump_index_parse(const void *buf, size_t len, const char *what, dump_entry **entries,
                     int *n, char *err, size_t errlen);
void dump_entries_free(dump_entry *e, int n);

#endif
