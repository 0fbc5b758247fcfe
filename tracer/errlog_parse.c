/* tracer/errlog_parse.c — error lines of the runtime, the driver and the
 * toolkit (log-formats.md §6), and the small table of the known ones. */
#include <ctype.h>
#include <string.h>
#include "tracer/tracer.h"

/* The runtime's tag at a level ('E': "E RKNN") then blanks and ':' somewhere in
 * the line: "E RKNN: [ts] ...", "rknn_run E RKNN: ...", logcat's "... E RKNN    : ...". */
static int has_rknn_level(const char *s, char level)
{
    /* logcat's brief and Android Studio forms: "E/RKNN    (12848): ...", "... E/RKNN: ..." */
    const char tag[] = {level, '/', 'R', 'K', 'N', 'N', 0}, sp[] = {level, ' ', 'R', 'K', 'N', 'N', 0};
    const char *b = strstr(s, tag);
    if (b && (b == s || b[-1] == ' ') && tracer_after_tag(b + 6, 1))
        return 1;
    for (const char *p = s; (p = strstr(p, sp)) != NULL; p += 6)
        if ((p == s || p[-1] == ' ') && tracer_after_tag(p + 6, 0))
            return 1;
    return 0;
}

/* Python's "ValueError: ...", "Exception: ...", "rknn.api.X.FooError: ...". */
static int python_error(const char *t)
{
    const char *c = strstr(t, ": ");
    size_t n;

    if (!c || !isalpha((unsigned char)t[0]))
        return 0;
    for (const char *p = t; p < c; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
            return 0;
    n = (size_t)(c - t);
    return (n >= 5 && !strncmp(c - 5, "Error", 5)) || (n >= 9 && !strncmp(c - 9, "Exception", 9));
}

/* The kernel driver's error lines about a job (LOG_ERROR in rknpu_job.c, khadas/linux
 * @3000f26570fa58fd368e80f45abf0c859e851cda drivers/rknpu/rknpu_job.c): dmesg prints
 * no level, so they go by their words. */
static int kernel_job_error(const char *k)
{
    static const char *const starts[] = {
        "failed to wait job", "job timeout", "job abort", "job commit failed",
        "invalid irq status", "invalid rknpu task number", "invalid rknpu core mask",
        "failed to allocate rknpu job", "Unknown core mask", "Unknown use core num"};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        if (!strncmp(k, starts[i], strlen(starts[i])))
            return 1;
    /* the wait's report ("job: %p, ... wait_count: %d, ...") and the per-core lines of a
     * timeout ("\tcore %d irq status: %#x, ...") */
    return (!strncmp(k, "job: ", 5) && strstr(k, "wait_count:")) ||
           (!strncmp(k, "core ", 5) && isdigit((unsigned char)k[5]) && strstr(k, " irq status:"));
}

/* The messages whose words are the runtime's or RKLLM's alone, as a user pastes them
 * without the "E RKNN: " prefix (librknnrt's core mask check), or as RKLLM prints them
 * with none (its chip check, rknn-llm issue 416: "Platform error: must be either RK3588,
 * RK3576, RV1126B, or RK3562."); digit: a digit follows the words. */
static const struct {
    const char *words;
    int digit;
} bare_messages[] = {{"Not support core mask: ", 1}, {"Platform error: must be either RK", 0}};

const char *errlog_bare_message(const char *t)
{
    for (size_t i = 0; i < sizeof bare_messages / sizeof bare_messages[0]; i++) {
        const char *m = strstr(t, bare_messages[i].words);
        if (m && (!bare_messages[i].digit || isdigit((unsigned char)m[strlen(bare_messages[i].words)])) &&
            (m == t || !isalpha((unsigned char)m[-1])))
            return m;
    }
    return NULL;
}

int errlog_is_error(const char *raw, const char *t)
{
    const char *k;

    /* the runtime's own message pasted alone, at the line's start */
    if (errlog_bare_message(t) == t)
        return 1;

    /* the toolkit's own version, repeated at level E in its error block, and its
     * version box (RKNN-Toolkit 1.x prints it at level E: "E RKNNAPI:   API: 1.7.5 ...") */
    if (strstr(raw, "rknn-toolkit2 version:") || strstr(raw, "rknn-toolkit-lite2 version:") ||
        strstr(raw, "rknn-toolkit version:"))
        return 0;
    if (!strncmp(raw, "E RKNNAPI:", 10)) {
        const char *p = raw + 10;
        while (*p == ' ')
            p++;
        if (!strncmp(p, "RKNN VERSION", 12) || !strncmp(p, "API:", 4) || !strncmp(p, "DRV:", 4) ||
            !strncmp(p, "=====", 5))
            return 0;
    }
    /* adb's own failure (accuracy_analysis pulling the board's dumps), a libc abort */
    if (!strncmp(raw, "adb: error:", 11) || strstr(raw, "corrupted size vs. prev_size") ||
        strstr(raw, "double free or corruption"))
        return 1;
    if (has_rknn_level(raw, 'E'))
        return 1;
    /* the kernel driver's in dmesg ("[   12.3] RKNPU: failed to wait job, ...") */
    if ((k = tracer_kernel_body(raw)) != NULL)
        return kernel_job_error(k);
    /* the kernel driver's error in logcat: "... 0 E RKNPU   : job timeout, ..." */
    if (strstr(raw, " E RKNPU ") && strstr(raw, ": "))
        return 1;
    /* the toolkit's logger: "E init_runtime: ...", "E RKNNAPI: ..." */
    if (raw[0] == 'E' && raw[1] == ' ' && raw[2] && raw[2] != ' ' && strchr(raw + 2, ':'))
        return 1;
    return python_error(t) || strstr(raw, "Fatal signal ") != NULL;
}

int errlog_process_death(const char *t)
{
    /* the shell's report of a signal (bash's strsignal words), alone or with "(core dumped)" */
    static const char *const deaths[] = {"Aborted", "Segmentation fault", "Bus error",
                                         "Illegal instruction", "Floating point exception"};
    const char *fn;
    size_t n = strlen(t);

    for (size_t i = 0; i < sizeof deaths / sizeof deaths[0]; i++) {
        size_t m = strlen(deaths[i]);
        if (!strncmp(t, deaths[i], m) && (!t[m] || !strcmp(t + m, " (core dumped)")))
            return 1;
    }
    /* ggml, inside librkllmrt: its abort ("%s:%d: fatal error", file and line empty in a
     * release build: ":0: fatal error") and its allocation failure before it
     * (rknn-llm issue 183) */
    if (n >= 13 && !strcmp(t + n - 13, ": fatal error"))
        return 1;
    if (!strncmp(t, "ggml_", 5) && strstr(t, ": failed to allocate"))
        return 1;
    /* a backtrace's frame inside the vendor's API: where the process was */
    return tracer_gdb_frame(t, n, &fn) && (!strncmp(fn, "rkllm_", 6) || !strncmp(fn, "rknn_", 5));
}

/* What a line says, and what it means per the runtime's own wording and the
 * catalog of log-formats.md §6. First match wins. */
static const struct known_error {
    const char *says, *means;
    int fatal;
} known[] = {
    /* the compiler logs it at level E when it moves an op to the CPU; the maintainers
     * say it is not an error (airockchip/rknn-toolkit2 issue 559) */
    {"Unkown op target", "the compiler placed an op on the CPU (it logs this at level E; "
     "not an error: the build goes on)", 0},
    {"failed to submit", "an NPU job did not complete (timeout or NPU hang); the runtime's own "
     "advice is to update toolkit2 and runtime: a runtime that does not match the kernel "
     "driver, or a model the NPU hangs on", 1},
    {"Invalid target_platform", "the toolkit does not build for the chip named (RKNN-Toolkit2 "
     "builds for RK3562/RK3566/RK3568/RK3576/RK3588, RV1103/RV1106 and RV1126B; RV1109/RV1126 "
     "and RK1808 need RKNN-Toolkit 1.x)", 1},
    {"remote object '/userdata/dumps' does not exist", "accuracy_analysis could not pull the "
     "board's layer dumps: the board has no /userdata/dumps folder (create it; Android boards "
     "use /data/dumps)", 1},
    {"corrupted size vs. prev_size", "the toolkit's process aborted in native code (heap "
     "corruption reported by glibc) during the step logged before it", 1},
    {"double free or corruption", "the toolkit's process aborted in native code (heap "
     "corruption reported by glibc) during the step logged before it", 1},
    /* the kernel driver's wait with another ret than known_ret's */
    {"failed to wait job", "the kernel driver's wait for an NPU job failed (the line's ret is "
     "the wait's error), and it aborted the job", 1},
    {"job abort", "the kernel driver aborted an NPU job that ended with an error other than a "
     "timeout (the wait's line before it says which)", 1},
    {"job timeout", "an NPU job timed out in the kernel driver (an NPU hang, or a runtime that "
     "does not match the driver); the driver resets the NPU after it", 1},
    {"failed open dump path", "a level-5 dump file could not be written (the dump folder does "
     "not exist on the board); the run itself went on", 0},
    {"Failed to open dump path", "a level-5 dump file could not be written (the dump folder "
     "does not exist on the board); the run itself went on", 0},
    {"failed to allocate handle", "NPU memory could not be allocated (DMA/CMA or swiotlb too "
     "small for the model, or a driver that does not match the runtime)", 1},
    {"failed to malloc npu memory", "NPU memory could not be allocated (DMA/CMA or swiotlb too "
     "small for the model)", 1},
    {"failed to allocate fd", "NPU memory could not be allocated (out of memory on the board)", 1},
    /* each NPU buffer the runtime holds is a file descriptor: handles numbered near 1024,
     * the default soft limit, in the RKLLM logs (airockchip/rknn-llm#47, whose answer is
     * "ulimit -n 102400") */
    {"Too many open files", "the process ran out of file descriptors: the runtime holds one "
     "for each NPU buffer, and a large model needs more than the default limit of 1024 "
     "(raise it in the shell that starts the program, e.g. ulimit -n 102400, or release "
     "buffers no longer used)", 1},
    {"invalid tensor malloc size", "a tensor of size 0 was asked for (a model the runtime cannot "
     "place)", 1},
    {"REGTASK: The bit width of field value exceeds the limit", "a layer's register value "
     "exceeds its field width: a tensor too large for the NPU's registers that the compiler "
     "did not split (the model needs smaller shapes or a newer toolkit)", 1},
    /* the newer runtimes' wording names both chips */
    {"but current platform is", "the model was compiled for another chip than this board's "
     "NPU (the line names both; rknn.config(target_platform=...) must name the board's chip)", 1},
    {"does not match the RKNPU hardware version", "the model was compiled for another chip "
     "than this board's NPU (rknn.config(target_platform=...) must name the board's chip)", 1},
    {"unsupport cpu", "a layer the compiler left on the CPU has no CPU kernel in this "
     "runtime (the op is named on the line): a runtime older than the toolkit that built the "
     "model (the runtime's own advice: update toolkit2 and runtime), or an op to move to the "
     "NPU or out of the model", 1},
    {"Meet unsupported", "a layer the compiler left on the CPU has no CPU kernel for its data "
     "type in this runtime (the runtime's own advice: update toolkit2 and runtime), or an op "
     "to move to the NPU or out of the model", 1},
    {"fallback cpu failed", "a layer the compiler left on the CPU could not run there (see the "
     "line before it for the op): update the runtime, or move the op to the NPU", 1},
    {"failed to open rknpu module", "the rknpu kernel driver is not loaded on the board "
     "(insmod rknpu, or a kernel built without the NPU driver)", 1},
    {"failed to open rknn device", "the NPU device node could not be opened (the rknpu driver "
     "not loaded, or no permission on /dev/dri/renderD* or /dev/rknpu)", 1},
    {"detail is empty", "eval_perf got no per-layer table from the board: init_runtime "
     "without perf_debug=True, or a runtime that returns none (RV1103/RV1106)", 1},
    /* the file's header counts more bytes than the file has: before "load model failed" */
    {"exportDataSize large then model size", "the .rknn file is shorter than its header says: "
     "a truncated or corrupted copy of the model (copy it again and compare its size), not a "
     "version or memory problem", 1},
    /* rknn_query's struct size check: the caller's sizeof differs from the runtime's */
    {"< sizeof(rknn_", "the application was built with an rknn_api.h that does not match the "
     "runtime (the structure sizes on the line differ): build it against the header of the "
     "board's librknnrt version (the demo of the same SDK release)", 1},
    {"invalid rknn llm model magic", "the file given to RKLLM is not an .rkllm model it "
     "reads (another kind of file, a corrupted copy, or a model converted by another "
     "rkllm-toolkit version than the runtime)", 1},
    {"Cannot load clGetPlatformIDs", "the runtime could not load OpenCL (the GPU's library): "
     "it asked for the GPU path, which this board lacks or has no driver for; the NPU is not "
     "involved", 1},
    {"load model failed", "the runtime could not load the model (a model built by another "
     "toolkit version than the runtime, or out of memory)", 1},
    {"Import rknn model failed", "the runtime could not load the model (a model built by another "
     "toolkit version than the runtime, or out of memory)", 1},
    {"Invalid RKNN model version", "the model was built by a toolkit that does not match the "
     "runtime version", 1},
    /* the same line in a browser's Chinese translation ("无效的 RKNN 模型版本 6",
     * rockchip-linux/rknn-toolkit2 issue 212, beside its English original) */
    {"\xe6\x97\xa0\xe6\x95\x88\xe7\x9a\x84 RKNN \xe6\xa8\xa1\xe5\x9e\x8b\xe7\x89\x88\xe6\x9c\xac",
     "the model was built by a toolkit that does not match the runtime version", 1},
    /* rknn-toolkit2 issue 75: API 1.2.0 against rknn_server 1.3.0; the reply was to keep
     * the API and DRV versions the same */
    {"msg_ioctl_ack fail", "the toolkit's API (on the PC) and rknn_server/librknnrt on the "
     "board are of different versions (their messages differ in size: data_len against "
     "expect); install the board's rknn_server and librknnrt of the toolkit's version", 1},
    {"rknn_server version is too old", "the board's rknn_server is older than the toolkit "
     "needs: update rknn_server (and librknnrt) on the board to the version the line names", 1},
    {"server connect fail", "the toolkit could not reach rknn_server on the board (not "
     "running, or another version than the toolkit)", 1},
    /* "recv(MsgLoadAck) fail, -9(ERROR_PIPE)": the same broken pipe as "server connect fail" */
    {"ERROR_PIPE", "the toolkit could not reach rknn_server on the board (not running, or "
     "another version than the toolkit)", 1},
    {"Connect to Device Failure", "the toolkit could not connect to the board (adb/USB/network; "
     "an adb client and server of other versions, or rknn_server not running)", 1},
    {"Init runtime environment failed", "init_runtime failed: the board could not be reached "
     "or its runtime does not match the toolkit", 1},
    {"RKNN_ERR_DEVICE_UNAVAILABLE", "the board's NPU is not available to the toolkit", 1},
    {"RKNN_ERR_MODEL_INVALID", "the runtime refused the model (a model compiled for another "
     "chip, or by a toolkit whose version differs from the runtime's)", 1},
    {"RKNN_ERR_MALLOC_FAIL", "the runtime ran out of memory", 1},
    /* the application's calls, in the runtime's words (include/rknn_api.h) */
    {"< model input size(", "the buffer given to rknn_inputs_set is smaller than the model's "
     "input: its type or size does not match RKNN_QUERY_INPUT_ATTR (a float32 type left as "
     "the default for a uint8 image makes the runtime expect 4 bytes an element, float16 2)", 1},
    {"rknn_set_input_shapes error", "rknn_set_input_shapes was given shapes that are not one of "
     "the model's shape sets (the runtime lists them: compare dims and layout, NHWC or NCHW)", 1},
    {"Not support core mask", "the NPU core mask asked for is not available to this model or "
     "context (one core on this chip, or a model built for one core): the runtime runs it on "
     "one core", 0},
    {"failed to set core mask", "the NPU core mask asked for is not available to this model or "
     "context (one core on this chip, or a model built for one core): the runtime runs it on "
     "one core", 0},
    {"error code: -13", "-13 is RKNN_ERR_TARGET_PLATFORM_UNMATCH: the model or the call does "
     "not fit this chip (a model built for another chip, or a core mask of cores it does not "
     "have)", 1},
    {"RKNN_MAGIC", "the file is not an .rknn model (another format given as .rknn, or a "
     "corrupted copy)", 1},
    {"Invalid RKNN fromat", "the file is not an .rknn model (another format given as .rknn, "
     "or a corrupted copy)", 1},
    {"while required target_platform", "the target_platform set for the toolkit (init_runtime, "
     "or the model's) is not the board's chip: the line names both", 1},
    {"failed to run pass: rknn::", "the compiler failed one of its passes while building the "
     "model (rknn.build(): a layer this toolkit version cannot lower; the lines before it name "
     "it)", 1},
    /* RKLLM's own checks (airockchip/rknn-llm) */
    {"number of enabled CPUs must be greater than or equal to the number of NPU cores",
     "RKLLM runs with fewer enabled CPUs than the NPU cores the model was converted for "
     "(rkllm-toolkit's num_npu_core; set the enabled CPUs, or convert for fewer cores)", 1},
    {"Platform error: must be either", "RKLLM does not run on this board's chip: it names the "
     "chips it supports, and the line after it ('Your platform is ...') what it read from the "
     "board", 1},
    {"must be less than the model's max_context_limit", "RKLLM's max_context is above the "
     "limit the model was converted with (rkllm-toolkit's max_context)", 1},
    {"/sys/class/devfreq/", "a frequency node the toolkit reads does not exist on this board "
     "(eval_perf fixes or reads the DDR/NPU clock through devfreq)", 1},
    {"Fatal signal", "the program crashed", 1},
    /* a backtrace's frame inside the API, then the shell's report of the death */
    {" in rkllm_init (", "the process died inside rkllm_init (the backtrace's frame): RKLLM "
     "aborted while loading the model, before any inference; the error lines before the "
     "frame say why", 1},
    {" in rknn_init (", "the process died inside rknn_init (the backtrace's frame): the "
     "runtime aborted while loading the model, before any inference; the error lines "
     "before the frame say why", 1},
    {"Segmentation fault", "the process crashed (SIGSEGV, an invalid memory access in "
     "native code) after the lines before it", 1},
    {"Aborted", "the process aborted (SIGABRT: a fatal error or a failed check in native "
     "code; the error lines before it say which)", 1},
};

/* Lines whose meaning is in the value they print: checked before known[]. The kernel
 * driver's wait (rknpu_job_wait, khadas/linux @3000f265 drivers/rknpu/rknpu_job.c):
 * ret 0 is wait_event_timeout's timeout, after which it prints "job timeout"; -512 is
 * -ERESTARTSYS, a wait interrupted by a signal (the interruptible wait of other driver
 * versions), after which it prints "job abort". */
static const struct known_ret {
    const char *says, *ret, *means;
} known_ret[] = {
    {"failed to wait job", "ret = -512", "the process waiting for an NPU job was interrupted "
     "by a signal (ret -512, the kernel's ERESTARTSYS: it was killed, stopped with Ctrl-C or "
     "crashed while the job ran), and the kernel driver aborted the job; the NPU itself "
     "reported no fault"},
    {"failed to wait job", "ret = 0,", "an NPU job did not finish within the kernel driver's "
     "timeout (ret 0: the wait timed out; an NPU hang, or a runtime that does not match the "
     "driver); the driver resets the NPU after it"},
};

const char *errlog_diagnosis(const char *line, int *fatal)
{
    for (size_t i = 0; i < sizeof known_ret / sizeof known_ret[0]; i++)
        if (strstr(line, known_ret[i].says) && strstr(line, known_ret[i].ret)) {
            if (fatal)
                *fatal = 1;
            return known_ret[i].means;
        }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strstr(line, known[i].says)) {
            if (fatal)
                *fatal = known[i].fatal;
            return known[i].means;
        }
    if (fatal)
        *fatal = 1;
    return NULL;
}

/* Warnings the runtime prints at level W whose text says what they mean: the
 * run goes on. */
static const struct known_warning {
    const char *says, *means;
} known_warn[] = {
    /* "Output(output0): size_with_stride larger than model origin size, if need run
     * OutputOperator in NPU, please call rknn_create_memory using size_with_stride." */
    {"size_with_stride larger than model origin size", "an output's native layout "
     "(size_with_stride) is larger than the model's output size: the runtime's advice is for "
     "an application that runs the OutputOperator on the NPU into memory it allocates itself "
     "(rknn_create_mem), which must allocate size_with_stride bytes; nothing to do otherwise"},
    /* RKNNLite asks every model for its dynamic shapes at init, then prints "If it is a
     * static shape RKNN model, please ignore the above warning message." */
    {"RKNN_QUERY_INPUT_DYNAMIC_RANGE error, rknn model is static shape type", "the application "
     "asked a static-shape model for its dynamic input shapes: not an error (RKNNLite asks at "
     "init and says to ignore this warning for a static-shape model)"},
};

const char *errlog_warning(const char *raw)
{
    if (!has_rknn_level(raw, 'W'))
        return NULL;
    for (size_t i = 0; i < sizeof known_warn / sizeof known_warn[0]; i++)
        if (strstr(raw, known_warn[i].says))
            return known_warn[i].means;
    return NULL;
}
