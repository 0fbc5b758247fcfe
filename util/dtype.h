/* util/dtype.h — tensor data types: the one numbering (ONNX TensorProto's, also
 * the vendor .rknn file's) and the one table of their sizes and names, numpy's
 * ("float16") and the vendor's ("FLOAT16", as its logs and tables print them).
 * A leaf: the runtime, dump/ and record/ all include it, it includes nothing. */
#ifndef RT_DTYPE_H
#define RT_DTYPE_H

#include <stddef.h>

enum dtype {
    DT_UNDEFINED = 0,
    DT_FLOAT = 1,
    DT_UINT8 = 2,
    DT_INT8 = 3,
    DT_UINT16 = 4,
    DT_INT16 = 5,
    DT_INT32 = 6,
    DT_INT64 = 7,
    DT_STRING = 8,
    DT_BOOL = 9, /* stored as one byte, 0 or 1 */
    DT_FLOAT16 = 10,
    DT_DOUBLE = 11,
    DT_UINT32 = 12,
    DT_UINT64 = 13,
    DT_COMPLEX64 = 14,  /* named only: no kernel, no size */
    DT_COMPLEX128 = 15,
    DT_BFLOAT16 = 16,
};
#define DT_LAST DT_BFLOAT16

size_t dtype_size(int dt);          /* 0 for unknown/string/complex */
const char *dtype_name(int dt);     /* "float32", "int64", ... (numpy names); "undefined" */
/* The numpy name of a code 0..DT_LAST ("undefined" for 0), NULL for any other
 * number: for reading files whose codes must be checked. */
const char *dtype_name_or_null(int dt);
/* "FLOAT16", "INT8", "FLOAT" (float32), ... as the vendor's tools print it; NULL
 * for a type they have no name for. */
const char *dtype_vendor_name(int dt);
/* The type of a numpy name ("float16"), a vendor name ("FLOAT16", "FP16",
 * "FLOAT", "FLOAT32") or "float"; case-sensitive as those tools write them.
 * DT_UNDEFINED for anything else. */
int dtype_from_name(const char *s);

#endif
