/* tracer/rtinfo_parse.c — the runtime's init / information lines and the clock
 * lines around the tables (log-formats.md §2, §3.1 eval_perf header, §5). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

void rtinfo_init(rtinfo_t *i)
{
    memset(i, 0, sizeof(*i));
    i->npu_mhz = i->ddr_mhz = -1;
}

/* Copies the value after `key` up to the first of `stops` (or the end). */
static int field(const char *s, const char *key, const char *stops, char *dst, size_t n)
{
    const char *p = strstr(s, key), *e;
    size_t l;

    if (!p)
        return 0;
    p += strlen(key);
    while (*p == ' ')
        p++;
    e = p + strcspn(p, stops);
    l = (size_t)(e - p);
    while (l && p[l - 1] == ' ')
        l--;
    if (l >= n)
        l = n - 1;
    memcpy(dst, p, l);
    dst[l] = 0;
    return 1;
}

/* "2.3.0 (c949ad889d@2024-11-07T11:35:33)" into version and build. */
static void version_build(const char *v, char *ver, size_t vn, char *build, size_t bn)
{
    const char *o = strchr(v, '('), *c;
    size_t l = strcspn(v, " (");

    if (l >= vn)
        l = vn - 1;
    memcpy(ver, v, l);
    ver[l] = 0;
    if (o && (c = strchr(o, ')')) != NULL) {
        l = (size_t)(c - o - 1);
        if (l >= bn)
            l = bn - 1;
        memcpy(build, o + 1, l);
        build[l] = 0;
    }
}

/* RKLLM's logger prefix ("I rkllm: "), when the line has one. */
static const char *rkllm_body(const char *s)
{
    if (s[0] && strchr("IWED", s[0]) && !strncmp(s + 1, " rkllm: ", 8))
        return s + 9;
    return s;
}

static const char *const rkllm_driver_warning = "Warning: Your rknpu driver version is too low";

int rtinfo_is_runtime_line(const rtinfo_t *i, const char *s)
{
    const char *b = rkllm_body(s);
    /* 1.1.x prints the warning before its version line (rknn-llm issue 232), 1.0.1
     * after it (rknn-llm issue 62: "rkllm-runtime version: 1.0.1, ...", then
     * "Warning: ... upgrade to 0.9.6."): the latter is the same start */
    if (!strncmp(b, rkllm_driver_warning, strlen(rkllm_driver_warning)))
        return !i->rkllm_version[0] || i->driver_required[0];
    return !strncmp(s, "RKNN Runtime Information", 24) || !strncmp(b, "rkllm-runtime version:", 22);
}

/* The toolkit's own version line, which it prints when a session starts:
 * "I rknn-toolkit2 version: 2.3.0", Toolkit-Lite2's "W rknn-toolkit-lite2 version:",
 * RKNN-Toolkit 1.x's "W rknn-toolkit version: 1.7.5"; a level and a blank before
 * it. *len: the length of what comes before the version. */
static int toolkit_version_line(const char *s, size_t *len)
{
    static const char *const names[] = {"rknn-toolkit2 version:", "rknn-toolkit-lite2 version:",
                                        "rknn-toolkit version:"};
    if (!s[0] || !strchr("IWED", s[0]) || s[1] != ' ')
        return 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strncmp(s + 2, names[k], strlen(names[k]))) {
            *len = 2 + strlen(names[k]);
            return 1;
        }
    return 0;
}

int rtinfo_is_session_line(const char *s)
{
    size_t n;
    return s[0] != 'E' && toolkit_version_line(s, &n);
}

int rtinfo_has_runtime(const rtinfo_t *i)
{
    return i->runtime_version[0] || i->rkllm_version[0];
}

/* RKLLM's lines (prefix already cut); 1 when read. */
static int rkllm_line(rtinfo_t *i, const char *b)
{
    char tmp[32];
    const char *p;

    if (!strncmp(b, "rkllm-runtime version:", 22)) {
        if (!field(b, "rkllm-runtime version:", " ,", i->rkllm_version, sizeof i->rkllm_version))
            return 0;
        field(b, "rknpu driver version:", " ,", i->driver_version, sizeof i->driver_version);
        if (field(b, "platform:", " ,", tmp, sizeof tmp) && tmp[0]) {
            for (size_t k = 0; tmp[k]; k++)
                tmp[k] = (char)tolower((unsigned char)tmp[k]);
            snprintf(i->soc, sizeof i->soc, "%s", tmp);
        }
        return i->rkllm_version[0] != 0;
    }
    if (!strncmp(b, "rkllm-toolkit version:", 22))
        return field(b, "rkllm-toolkit version:", " ,", i->rkllm_toolkit_version,
                     sizeof i->rkllm_toolkit_version) && i->rkllm_toolkit_version[0];
    /* "... too low, please upgrade to 0.9.7." */
    if (!strncmp(b, rkllm_driver_warning, strlen(rkllm_driver_warning)) &&
        (p = strstr(b, "upgrade to ")) != NULL) {
        p += 11;
        size_t n = strspn(p, "0123456789.");
        while (n && p[n - 1] == '.')
            n--;
        if (!n || n >= sizeof i->driver_required)
            return 0;
        snprintf(i->driver_required, sizeof i->driver_required, "%.*s", (int)n, p);
        return 1;
    }
    /* the rknn runtime inside librkllmrt: "RKNN LLM Runtime Information, rknn llm lib version: 2.3.3b0 (...)" */
    if (!strncmp(b, "RKNN LLM Runtime Information", 28))
        return field(b, "lib version:", " (", i->llm_lib_version, sizeof i->llm_lib_version) &&
               i->llm_lib_version[0];
    return 0;
}

/* A browser's Chinese translation of the information lines' fixed words, as a
 * paste in rockchip-linux/rknn-toolkit2 issue 212 shows them beside the English
 * original of the same thread ("RKNN 运行时信息：librknnrt 版本：1.4.0" is "RKNN Runtime
 * Information: librknnrt version: 1.4.0", "RKNN 驱动程序信息：版本：0.8.2" is "RKNN
 * Driver Information: version: 0.8.2"). */
static const char *const translated[][2] = {
    {"\xe8\xbf\x90\xe8\xa1\x8c\xe6\x97\xb6\xe4\xbf\xa1\xe6\x81\xaf\xef\xbc\x9a", "Runtime Information: "},
    {"\xe9\xa9\xb1\xe5\x8a\xa8\xe7\xa8\x8b\xe5\xba\x8f\xe4\xbf\xa1\xe6\x81\xaf\xef\xbc\x9a",
     "Driver Information: "},
    {"\xe7\x89\x88\xe6\x9c\xac\xef\xbc\x9a", "version: "},
};

int rtinfo_translated(const char *s, char *out, size_t n)
{
    size_t o = 0;
    int any = 0;

    if (strncmp(s, "RKNN ", 5) || !strstr(s, "\xef\xbc\x9a") || !n)
        return 0;
    while (*s && o + 1 < n) {
        size_t k = 0, m = sizeof translated / sizeof translated[0];
        for (; k < m; k++)
            if (!strncmp(s, translated[k][0], strlen(translated[k][0])))
                break;
        if (k < m) {
            size_t r = strlen(translated[k][1]);
            if (o + r >= n)
                break;
            memcpy(out + o, translated[k][1], r);
            o += r, s += strlen(translated[k][0]), any = 1;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = 0;
    return any;
}

void rtinfo_new_context(rtinfo_t *i)
{
    i->runtime_version[0] = i->runtime_build[0] = i->driver_version[0] = 0;
    i->model_version[0] = i->compiler_version[0] = i->compiler_build[0] = 0;
    i->npu_target[0] = i->framework[0] = i->layout[0] = i->inference_type[0] = 0;
    if (i->toolkit_of_model)
        i->toolkit_version[0] = 0, i->toolkit_of_model = 0;
    i->rkllm_version[0] = i->rkllm_toolkit_version[0] = i->llm_lib_version[0] = 0;
    i->driver_required[0] = 0;
}

int rtinfo_error_line(rtinfo_t *i, const char *s)
{
    const char *p = strstr(s, "current platform is ");
    size_t n;

    if (!p)
        return 0;
    p += 20;
    for (n = 0; isalnum((unsigned char)p[n]) && n + 1 < sizeof i->soc; n++)
        i->soc[n] = (char)tolower((unsigned char)p[n]);
    i->soc[n] = 0;
    return n > 0;
}

static int freq_item(rtinfo_t *i, const char *s)
{
    const char *p = s;
    int64_t v = -1;
    int64_t *arr;
    int *n;

    while (*p == ' ')
        p++;
    if (p[0] != '-' || p[1] != ' ')
        return 0;
    p += 2;
    if (!strcmp(p, "Unknown"))
        v = -1;
    else {
        char *e;
        long long x = strtoll(p, &e, 10);
        if (e == p || *e || x < 0)
            return 0;
        v = x;
    }
    arr = i->list == 1 ? i->cpu_khz : i->list == 2 ? i->npu_hz : i->ddr_hz;
    n = i->list == 1 ? &i->n_cpu_khz : i->list == 2 ? &i->n_npu_hz : &i->n_ddr_hz;
    if (*n < RTINFO_MAX_FREQ)
        arr[(*n)++] = v;
    return 1;
}

int rtinfo_line(rtinfo_t *i, const char *s)
{
    char tmp[160];
    const char *p;

    if (i->list) {
        if (freq_item(i, s))
            return 1;
        if (*s)
            i->list = 0; /* a blank line may separate the items (PDF text) */
    }
    if (!strncmp(s, "CPU Current Frequency List:", 27)) {
        i->list = 1, i->n_cpu_khz = 0;
        return 1;
    }
    if (!strncmp(s, "NPU Current Frequency List:", 27)) {
        i->list = 2, i->n_npu_hz = 0;
        return 1;
    }
    if (!strncmp(s, "DDR Current Frequency List:", 27)) {
        i->list = 3, i->n_ddr_hz = 0;
        return 1;
    }
    if (rkllm_line(i, rkllm_body(s)))
        return 1;
    if (!strncmp(s, "RKNN Runtime Information", 24)) {
        /* RV1103/RV1106's mini runtime names itself librknnmrt */
        if (!field(s, "librknnrt version:", "", tmp, sizeof tmp) &&
            !field(s, "librknnmrt version:", "", tmp, sizeof tmp))
            return 0;
        version_build(tmp, i->runtime_version, sizeof i->runtime_version, i->runtime_build,
                      sizeof i->runtime_build);
        return 1;
    }
    if (!strncmp(s, "RKNN Driver Information", 23)) {
        return field(s, "version:", " ,", i->driver_version, sizeof i->driver_version);
    }
    if (!strncmp(s, "RKNN Model Information", 22)) {
        if (!field(s, "toolkit version:", "(,", i->toolkit_version, sizeof i->toolkit_version))
            return 0;
        i->toolkit_of_model = 1;
        if (!field(s, "Information, version:", ",", i->model_version, sizeof i->model_version))
            field(s, "Information: version:", ",", i->model_version, sizeof i->model_version);
        if (field(s, "compiler version:", "", tmp, sizeof tmp))
            version_build(tmp, i->compiler_version, sizeof i->compiler_version,
                          i->compiler_build, sizeof i->compiler_build);
        field(s, "target:", ",", i->npu_target, sizeof i->npu_target);
        field(s, "target platform:", ",", i->soc, sizeof i->soc);
        field(s, "framework name:", ",", i->framework, sizeof i->framework);
        field(s, "framework layout:", ",", i->layout, sizeof i->layout);
        field(s, "model inference type:", ",", i->inference_type, sizeof i->inference_type);
        return 1;
    }
    /* the kernel driver's init line in dmesg: the DRM build's "[drm] Initialized rknpu
     * 0.9.8 20240828 for fdab0000.npu on minor 1", the DMA-heap build's "Initialized
     * RKNPU driver: v0.9.8 for 20240828" (tag and stamp already cut, tracer_kernel_body) */
    if (!strncmp(s, "Initialized rknpu ", 18) || !strncmp(s, "Initialized RKNPU driver: v", 27)) {
        p = s + (s[12] == 'r' ? 18 : 27);
        size_t n = strspn(p, "0123456789.");
        if (!n || !isdigit((unsigned char)*p) || n >= sizeof i->driver_version)
            return 0;
        snprintf(i->driver_version, sizeof i->driver_version, "%.*s", (int)n, p);
        return 1;
    }
    /* the library's own version string (`strings librknnrt.so`, a user's paste):
     * "librknnrt version: 1.5.2 (c6b7b351a@2023-08-23T15:28:22)" */
    if (!strncmp(s, "librknnrt version:", 18)) {
        for (p = s + 18; *p == ' ';)
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        version_build(p, i->runtime_version, sizeof i->runtime_version, i->runtime_build,
                      sizeof i->runtime_build);
        return 1;
    }
    /* the toolkit's compiler library at build time: "librknnc version: 1.1.0b0 (8d7e25ad@...)" */
    if (!strncmp(s, "librknnc version:", 17)) {
        for (p = s + 17; *p == ' ';)
            p++;
        if (!*p)
            return 0;
        version_build(p, i->compiler_version, sizeof i->compiler_version, i->compiler_build,
                      sizeof i->compiler_build);
        return 1;
    }
    if ((p = strstr(s, "Get NPU frequency:")) == s || (p = strstr(s, "Get DDR frequency:")) == s) {
        long long mhz;
        char unit[8];
        if (sscanf(s + 18, "%lld%7s", &mhz, unit) != 2 || strcmp(unit, "MHz") || mhz < 0)
            return 0;
        if (s[4] == 'N')
            i->npu_mhz = mhz;
        else
            i->ddr_mhz = mhz;
        return 1;
    }
    /* the toolkit's own logger lines of a session (accuracy_analysis, eval_perf,
     * init_runtime): "I target set by user is: rk3588", "I rknn-toolkit2
     * version: 2.3.0+81f21f4d" */
    if (!strncmp(s, "I target set by user is:", 24)) {
        for (p = s + 24; *p == ' ';)
            p++;
        if (!*p)
            return 0;
        if (!i->soc_of_board)
            snprintf(i->soc, sizeof i->soc, "%.*s", (int)strcspn(p, " "), p);
        return 1;
    }
    /* the board's answer to init_runtime: "I Get hardware info: target_platform = rv1103,
     * os = Linux, aarch = aarch32" (model zoo issue 408): its chip, whatever the user set */
    if (!strncmp(s, "I Get hardware info:", 20) && (p = strstr(s, "target_platform = ")) != NULL) {
        size_t n = strcspn(p + 18, " ,");
        if (!n || n >= sizeof i->soc)
            return 0;
        for (size_t k = 0; k < n; k++)
            i->soc[k] = (char)tolower((unsigned char)p[18 + k]);
        i->soc[n] = 0;
        i->soc_of_board = 1;
        return 1;
    }
    /* at any level: the toolkit repeats it as "E rknn-toolkit2 version:" in an error
     * block, Toolkit-Lite2 prints "W rknn-toolkit-lite2 version:", 1.x "W rknn-toolkit
     * version:" */
    size_t tl;
    if (toolkit_version_line(s, &tl)) {
        for (p = s + tl; *p == ' ';)
            p++;
        if (!*p)
            return 0;
        snprintf(i->toolkit_version, sizeof i->toolkit_version, "%.*s", (int)strcspn(p, " "), p);
        i->toolkit_of_model = 0;
        return 1;
    }
    /* a demo's print of RKNN_QUERY_SDK_VERSION (the SDK samples, the model zoo):
     * "sdk version: 2.3.2 (429f97ae6b@2025-04-09T09:09:27) driver version: 0.7.2" */
    if ((p = strstr(s, "sdk version:")) != NULL && strstr(p, "driver version:")) {
        if (!field(p, "sdk version:", "", tmp, sizeof tmp))
            return 0;
        char *d = strstr(tmp, "driver version:");
        if (d)
            *d = 0;
        version_build(tmp, i->runtime_version, sizeof i->runtime_version, i->runtime_build,
                      sizeof i->runtime_build);
        field(p, "driver version:", " ,", i->driver_version, sizeof i->driver_version);
        return 1;
    }
    /* the same query printed on two lines ("sdk version: 2.3.2 (429f97ae6b@...)", then
     * "driver version: 0.9.3"), and go-rknnlite's "driver version: 0.9.3, API version:
     * 1.6.0 (9a7b5d24c@...)": rknn_sdk_version's api_version is librknnrt's version */
    if (!strncmp(s, "sdk version: ", 13) && isdigit((unsigned char)s[13])) {
        version_build(s + 13, i->runtime_version, sizeof i->runtime_version, i->runtime_build,
                      sizeof i->runtime_build);
        return 1;
    }
    if (!strncmp(s, "driver version: ", 16) && isdigit((unsigned char)s[16])) {
        field(s, "driver version:", " ,", i->driver_version, sizeof i->driver_version);
        if ((p = strstr(s, ", API version: ")) != NULL && isdigit((unsigned char)p[15]))
            version_build(p + 15, i->runtime_version, sizeof i->runtime_version, i->runtime_build,
                          sizeof i->runtime_build);
        return 1;
    }
    /* a Markdown table of versions: "| RKNN Runtime | librknnrt.so v2.3.2 (429f97ae6b@...) |" */
    if (s[0] == '|') {
        for (p = s + 1; *p == ' ';)
            p++;
        if (!strncasecmp(p, "RKNN Runtime", 12) && (p = strchr(p + 12, '|')) != NULL) {
            for (p++; *p && *p != '|' && !(isdigit((unsigned char)*p) &&
                                           (p[-1] == 'v' || p[-1] == ' ' || p[-1] == '|'));)
                p++;
            if (isdigit((unsigned char)*p)) {
                char cell[96];
                snprintf(cell, sizeof cell, "%.*s", (int)strcspn(p, "|"), p);
                version_build(cell, i->runtime_version, sizeof i->runtime_version,
                              i->runtime_build, sizeof i->runtime_build);
                return 1;
            }
        }
    }
    /* the toolkit's version box when it connects to a board */
    if (!strncmp(s, "API:", 4) || !strncmp(s, "  API:", 6)) {
        p = strstr(s, "API:") + 4;
        while (*p == ' ')
            p++;
        /* get_sdk_version(): "API: librknn_api version: 1.5.1 (...)" */
        if (!strncmp(p, "librknn_api version:", 20))
            for (p += 20; *p == ' ';)
                p++;
        snprintf(i->api_version, sizeof i->api_version, "%.*s", (int)strcspn(p, " "), p);
        return 1;
    }
    /* the toolkit's version box, or rknn_server's own log (Android logcat, tag SERVER):
     * "rknn_server version: 2.3.2 (...)", "server & runtime version: rknn_server: ..." */
    if ((p = strstr(s, "DRV: rknn_server:")) != NULL || (p = strstr(s, "rknn_server version:")) != NULL ||
        (p = strstr(s, "runtime version: rknn_server:")) != NULL) {
        p = strchr(p + 4, ':') + 1;
        if (!strncmp(p, " rknn_server:", 13))
            p += 13;
        while (*p == ' ')
            p++;
        snprintf(i->server_version, sizeof i->server_version, "%.*s", (int)strcspn(p, " "), p);
        return 1;
    }
    /* RKNN-Toolkit 1.x's box: "DRV: 1.7.5 (bb79b30 build: ...)", the board's driver side */
    if (!strncmp(s, "DRV:", 4) && (p = s + 4 + strspn(s + 4, " ")) && isdigit((unsigned char)*p)) {
        snprintf(i->driver_version, sizeof i->driver_version, "%.*s", (int)strcspn(p, " "), p);
        return 1;
    }
    /* "DRV: rknnrt: ...", or on a line of its own under "DRV: rknn_server:" */
    if ((p = strstr(s, "DRV: rknnrt:")) != NULL || !strncmp(s, "rknnrt:", 7)) {
        p = p ? p + 12 : s + 7;
        while (*p == ' ')
            p++;
        version_build(p, i->runtime_version, sizeof i->runtime_version, i->runtime_build,
                      sizeof i->runtime_build);
        return 1;
    }
    return 0;
}
