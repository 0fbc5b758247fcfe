/* record/version.h — the tool's version, recorded with every run (store_run.
 * tool_version) and printed by `rknn-trace --version` and `info`. */
#ifndef RT_RECORD_VERSION_H
#define RT_RECORD_VERSION_H

#define RKNN_TRACE_VERSION "0.1.0"

#endif
