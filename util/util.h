/* util/util.h — small helpers shared by every module: status codes, allocation
 * wrappers that fail loudly, error formatting, timing, hashing, JSON output.
 *
 * Status convention (DESIGN.md): functions return 0 or a negative RT_E* code and
 * write a one-line message into a caller-supplied buffer (err, errlen). */
#ifndef RT_UTIL_H
#define RT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rt_status {
    RT_OK = 0,
    RT_EIO = -1,          /* cannot open/read/write a file */
    RT_EFORMAT = -2,      /* malformed input (model, .npy, log, ...) */
    RT_EUNSUPPORTED = -3, /* valid input we do not handle (op, dtype, ...) */
    RT_ESHAPE = -4,       /* shapes that do not fit */
    RT_ENOMEM = -5,
    RT_EINVAL = -6,       /* bad argument from the caller */
    RT_EINTERNAL = -7,    /* a broken invariant */
    RT_ENOTFOUND = -8,    /* a named thing (run, input, layer) does not exist */
    RT_EEXIST = -9,       /* a name that must be new is taken (a run label, ...) */
};

const char *rt_status_str(int status);

/* Writes a printf-style message into err (if non-NULL) and returns status,
 * so that callers can write `return rt_err(err, errlen, RT_EFORMAT, "...", ...)`. */
int rt_err(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Allocation that aborts with a message on failure: out-of-memory in a
 * simulator is not a recoverable condition worth threading through every call. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void *xaligned_alloc(size_t n); /* 64-byte aligned, free with free() */
/* A large block a frame walks through (activations): from 2 MB on, 2 MB
 * aligned and asked for on 2 MB pages (transparent huge pages in madvise
 * mode: fewer TLB entries for megabytes of data), else as xaligned_alloc;
 * NULL when out of memory, free with free(). */
void *big_alloc(size_t n);

/* Aborts with file:line for what must not happen. */
#define RT_ASSERT(cond) \
    do { if (!(cond)) rt_assert_fail(#cond, __FILE__, __LINE__); } while (0)
void rt_assert_fail(const char *cond, const char *file, int line) __attribute__((noreturn));

/* Monotonic clock in microseconds. */
double rt_now_us(void);
/* Wall clock as "YYYY-MM-DDTHH:MM:SSZ" (UTC) into buf (>= 21 bytes). */
void rt_iso_time(char *buf, size_t len);

/* Reads a whole file into a malloc'd buffer (NUL-terminated for convenience). */
int rt_read_file(const char *path, void **data, size_t *len, char *err, size_t errlen);
/* Maps a non-empty regular file read-only (populate: fault every page in now);
 * rt_unmap_file releases it. RT_EINVAL for what cannot be mapped (empty, a
 * pipe or device: read it with rt_read_file), RT_EIO when it cannot be opened. */
int rt_map_file(const char *path, int populate, const void **data, size_t *len, char *err,
                size_t errlen);
void rt_unmap_file(const void *data, size_t len);

/* At most n bytes of s (fewer at its NUL) into dst of cap > 0 bytes, cut to fit,
 * NUL-terminated: snprintf(dst, cap, "%.*s", n, s) without the format parser,
 * for parsers that copy every field of every line. Returns dst. */
char *rt_copy(char *dst, size_t cap, const char *s, size_t n);

/* SHA-256 of a buffer, as 64 lowercase hex characters + NUL. */
void rt_sha256_hex(const void *data, size_t len, char out[65]);

/* IEEE half precision: exact widening; narrowing rounds to nearest even. */
float rt_f16_to_f32(uint16_t h);
uint16_t rt_f32_to_f16(float f);

/* Minimal JSON writer: handles commas and string escaping. */
typedef struct json_writer {
    FILE *f;     /* NULL: the text goes to buf (json_begin_mem) */
    char *buf;   /* malloc'd, NUL-terminated */
    size_t len, cap;
    int depth;
    int need_comma[64];
    int after_key;
} json_writer;

void json_begin(json_writer *w, FILE *f);
/* Into memory instead of a stream (no FILE set up per small document); the
 * text, never NULL, is taken with json_take and freed by the caller. */
void json_begin_mem(json_writer *w);
char *json_take(json_writer *w, size_t *len);
void json_obj_open(json_writer *w);
void json_obj_close(json_writer *w);
void json_arr_open(json_writer *w);
void json_arr_close(json_writer *w);
void json_key(json_writer *w, const char *key);
void json_str(json_writer *w, const char *s); /* NULL writes null */
void json_int(json_writer *w, int64_t v);
void json_num(json_writer *w, double v);      /* non-finite writes null */
void json_bool(json_writer *w, int v);
void json_write_null(json_writer *w);
/* An integer that may be unknown: v, or null when v <= missing, the largest
 * value that means unknown: STORE_NULL_INT for a store column (that value only),
 * -1 for a count, size or index (any negative). Every such integer goes through
 * here, as every string through json_str (NULL: null) and every real through
 * json_num (non-finite: null). */
void json_int_or_null(json_writer *w, int64_t v, int64_t missing);
/* "key": json_int_or_null(v, missing) */
void json_key_int(json_writer *w, const char *key, int64_t v, int64_t missing);
/* The same rule for a text going into a jansson value (an export, a dump's
 * index): NULL is null, and a text that is not UTF-8, which json_string
 * refuses (the key or entry would vanish), is the string json_str writes, each
 * such byte U+FFFD. NULL only when out of memory. */
struct json_t;
struct json_t *json_text(const char *s);
/* A value already in JSON (stored text): written as is when it is valid JSON
 * (RFC 8259, UTF-8), else null. */
void json_raw(json_writer *w, const char *text);
/* 1 when text is exactly one valid JSON value (surrounding white space allowed). */
int json_valid(const char *text);
void json_end(json_writer *w);                /* newline */

#endif
