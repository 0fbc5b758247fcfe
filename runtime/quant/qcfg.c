/* runtime/quant/qcfg.c — the hybrid quantization file, in the layout of
 * RKNN-Toolkit2's `*.quantization.cfg` (a YAML subset, see quant.h): read for
 * --hybrid, written for --write-quant-cfg. */
#include "runtime/quant/quant.h"
#include "util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void quant_cfg_free(quant_cfg *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n_fp16; i++)
        free(c->fp16[i]);
    for (int i = 0; i < c->n_params; i++) {
        free(c->params[i].name);
        free(c->params[i].min);
        free(c->params[i].max);
        free(c->params[i].scale);
        free(c->params[i].zp);
    }
    free(c->fp16);
    free(c->params);
    memset(c, 0, sizeof(*c));
}

typedef struct line {
    int no, indent;
    const char *s; /* first non-blank character */
    size_t len;    /* up to the end, comment and trailing blanks removed */
} line;

/* Next meaningful line (no blank, no comment-only line). 0 at the end. */
static int next_line(const char *text, size_t len, size_t *pos, int *no, line *l)
{
    while (*pos < len) {
        size_t a = *pos, e = a;
        while (e < len && text[e] != '\n')
            e++;
        *pos = e + 1;
        (*no)++;
        size_t k = a;
        while (k < e && text[k] == ' ')
            k++;
        if (k < e && text[k] == '\t')
            return -1; /* YAML forbids tabs for indentation */
        size_t b = e;
        /* a '#' after a blank (or at the start) begins a comment, outside quotes */
        char q = 0;
        for (size_t i = k; i < e; i++) {
            if (q) {
                if (text[i] == q)
                    q = 0;
            } else if (text[i] == '\'' || text[i] == '"') {
                q = text[i];
            } else if (text[i] == '#' && (i == k || text[i - 1] == ' ')) {
                b = i;
                break;
            }
        }
        while (b > k && (text[b - 1] == ' ' || text[b - 1] == '\r'))
            b--;
        if (b == k)
            continue;
        l->no = *no;
        l->indent = (int)(k - a);
        l->s = text + k;
        l->len = b - k;
        return 1;
    }
    return 0;
}

/* "key: rest" -> key (unquoted, malloc'd) and rest. -1 if there is no key. */
static int split_key(const line *l, char **key, const char **rest, size_t *rlen)
{
    const char *s = l->s, *end = l->s + l->len, *colon = NULL;
    const char *k0 = s, *k1;
    if (*s == '\'' || *s == '"') {
        const char *q = memchr(s + 1, *s, (size_t)(end - s - 1));
        if (!q || q + 1 >= end || q[1] != ':')
            return -1;
        k0 = s + 1;
        k1 = q;
        colon = q + 1;
    } else {
        /* the key ends at the last ": " or a final ':' (names may hold ':') */
        for (const char *p = s; p < end; p++)
            if (*p == ':' && (p + 1 == end || p[1] == ' '))
                colon = p;
        if (!colon || colon == s)
            return -1;
        k1 = colon;
    }
    *key = xmalloc((size_t)(k1 - k0) + 1);
    memcpy(*key, k0, (size_t)(k1 - k0));
    (*key)[k1 - k0] = 0;
    *rest = colon + 1;
    while (*rest < end && **rest == ' ')
        (*rest)++;
    *rlen = (size_t)(end - *rest);
    return 0;
}

static int num_token(const char *s, size_t n, double *v)
{
    char buf[64];
    char *e;
    while (n && *s == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    if (!n || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    *v = strtod(buf, &e);
    return *e || e == buf ? -1 : 0;
}

/* "[a, b, c]" or a scalar into a malloc'd list. */
static int inline_list(const char *s, size_t n, double **out, int *cnt)
{
    *out = NULL;
    *cnt = 0;
    if (n && *s == '[') {
        if (s[n - 1] != ']')
            return -1;
        s++;
        n -= 2;
        size_t a = 0;
        while (a < n || (a == 0 && n == 0)) {
            size_t b = a;
            while (b < n && s[b] != ',')
                b++;
            double v;
            if (n == 0)
                break;
            if (num_token(s + a, b - a, &v))
                return -1;
            *out = xrealloc(*out, sizeof(double) * (size_t)(*cnt + 1));
            (*out)[(*cnt)++] = v;
            a = b + 1;
        }
        return 0;
    }
    double v;
    if (num_token(s, n, &v))
        return -1;
    *out = xmalloc(sizeof(double));
    (*out)[0] = v;
    *cnt = 1;
    return 0;
}

#define FAIL(...) do { rc = rt_err(err, errlen, RT_EFORMAT, __VA_ARGS__); goto out; } while (0)

int quant_cfg_parse(const char *text, size_t len, quant_cfg *c, char *err, size_t errlen)
{
    size_t pos = 0;
    int no = 0, rc = RT_OK, r, section = 0, top_seen = 0;
    int sec_indent = -1, ten_indent = -1;
    line l;
    char *key = NULL;
    quant_cfg_param *cur = NULL;
    double **list = NULL;
    int *list_n = NULL, list_indent = -1;

    memset(c, 0, sizeof(*c));
    while ((r = next_line(text, len, &pos, &no, &l)) != 0) {
        const char *rest;
        size_t rl;
        if (r < 0)
            FAIL("line %d: tab in the indentation", no);
        free(key);
        key = NULL;
        if (memchr(l.s, '\0', l.len))
            FAIL("line %d: NUL byte", l.no);
        /* a block list item belongs to the field above it */
        if (l.s[0] == '-' && (l.len == 1 || l.s[1] == ' ')) {
            double v;
            if (!list || l.indent < list_indent)
                FAIL("line %d: a list item outside a list field", l.no);
            if (num_token(l.s + 1, l.len - 1, &v))
                FAIL("line %d: '%.*s' is not a number", l.no, (int)l.len, l.s);
            *list = xrealloc(*list, sizeof(double) * (size_t)(*list_n + 1));
            (*list)[(*list_n)++] = v;
            continue;
        }
        list = NULL;
        if (split_key(&l, &key, &rest, &rl))
            FAIL("line %d: expected 'key: value', got '%.*s'", l.no, (int)(l.len < 60 ? l.len : 60),
                 l.s);
        if (l.indent == 0) {
            top_seen = 1;
            cur = NULL;
            sec_indent = ten_indent = -1;
            if (!strcmp(key, "custom_quantize_layers"))
                section = 1;
            else if (!strcmp(key, "quantize_parameters"))
                section = 2;
            else
                FAIL("line %d: unknown section '%s' (custom_quantize_layers or "
                     "quantize_parameters)", l.no, key);
            if (rl && !(rl == 2 && !memcmp(rest, "{}", 2)))
                FAIL("line %d: '%s' takes an indented block or {}", l.no, key);
            continue;
        }
        if (!section)
            FAIL("line %d: indented line before any section", l.no);
        if (section == 1) {
            if (sec_indent < 0)
                sec_indent = l.indent;
            if (l.indent != sec_indent)
                FAIL("line %d: inconsistent indentation", l.no);
            if (!((rl == 7 && !memcmp(rest, "float16", 7)) || (rl == 4 && !memcmp(rest, "fp16", 4))))
                FAIL("line %d: layer '%s': only float16 is supported, got '%.*s'", l.no, key,
                     (int)rl, rest);
            c->fp16 = xrealloc(c->fp16, sizeof(char *) * (size_t)(c->n_fp16 + 1));
            c->fp16[c->n_fp16++] = key;
            key = NULL;
            continue;
        }
        if (sec_indent < 0)
            sec_indent = l.indent;
        if (l.indent == sec_indent) {
            if (rl)
                FAIL("line %d: tensor '%s' takes an indented block of fields", l.no, key);
            c->params = xrealloc(c->params, sizeof(*c->params) * (size_t)(c->n_params + 1));
            cur = &c->params[c->n_params++];
            memset(cur, 0, sizeof(*cur));
            cur->name = key;
            key = NULL;
            ten_indent = -1;
            continue;
        }
        if (!cur || l.indent < sec_indent)
            FAIL("line %d: inconsistent indentation", l.no);
        if (ten_indent < 0)
            ten_indent = l.indent;
        if (l.indent != ten_indent)
            FAIL("line %d: inconsistent indentation", l.no);
        double **dst = NULL;
        int *dn = NULL;
        if (!strcmp(key, "min"))
            dst = &cur->min, dn = &cur->n_min;
        else if (!strcmp(key, "max"))
            dst = &cur->max, dn = &cur->n_max;
        else if (!strcmp(key, "scale"))
            dst = &cur->scale, dn = &cur->n_scale;
        else if (!strcmp(key, "zero_point"))
            dst = &cur->zp, dn = &cur->n_zp;
        if (!dst) {
            /* qtype, qmethod, dtype, ori_min, ori_max, ...: kept by Toolkit2, not needed */
            if (!strcmp(key, "dtype") && rl && !(rl == 4 && !memcmp(rest, "int8", 4)) &&
                !(rl == 7 && !memcmp(rest, "float16", 7)))
                FAIL("line %d: tensor '%s': dtype '%.*s' is not supported (int8)", l.no,
                     cur->name, (int)rl, rest);
            continue;
        }
        if (*dst)
            FAIL("line %d: tensor '%s': '%s' given twice", l.no, cur->name, key);
        if (rl) {
            if (inline_list(rest, rl, dst, dn))
                FAIL("line %d: tensor '%s': '%s' takes numbers", l.no, cur->name, key);
        } else {
            *dst = xmalloc(sizeof(double));
            *dn = 0;
            list = dst;
            list_n = dn;
            list_indent = l.indent;
        }
    }
    if (!top_seen)
        FAIL("no custom_quantize_layers or quantize_parameters section");
    for (int i = 0; i < c->n_params; i++) {
        quant_cfg_param *p = &c->params[i];
        int n = p->n_scale ? p->n_scale : p->n_min;
        if ((p->n_min != p->n_max) || (p->n_scale != p->n_zp) ||
            (p->n_scale && p->n_min && p->n_scale != p->n_min) || n == 0)
            FAIL("tensor '%s': min/max or scale/zero_point missing or of different lengths",
                 p->name);
        for (int k = 0; k < p->n_scale; k++)
            if (!(p->scale[k] > 0) || !isfinite(p->scale[k]) || p->zp[k] < -128 || p->zp[k] > 127)
                FAIL("tensor '%s': scale must be > 0 and zero_point in [-128, 127]", p->name);
        for (int k = 0; k < p->n_min; k++)
            if (!isfinite(p->min[k]) || !isfinite(p->max[k]) || p->min[k] > p->max[k])
                FAIL("tensor '%s': min > max", p->name);
    }
out:
    free(key);
    if (rc)
        quant_cfg_free(c);
    return rc;
}

int quant_cfg_load(const char *path, quant_cfg *c, char *err, size_t errlen)
{
    void *buf = NULL;
    size_t len = 0;
    int rc = rt_read_file(path, &buf, &len, err, errlen);
    memset(c, 0, sizeof(*c));
    if (rc)
        return rc;
    rc = quant_cfg_parse(buf, len, c, err, errlen);
    if (rc) {
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", err ? err : "");
        rt_err(err, errlen, rc, "%s: %s", path, msg);
    }
    free(buf);
    return rc;
}

int quant_cfg_param_get(const quant_cfg_param *p, qparam_t *out)
{
    if (p->n_scale == 1) {
        out->scale = (float)p->scale[0];
        out->zp = (int32_t)p->zp[0];
        out->min = (float)((-128 - out->zp) * (double)out->scale);
        out->max = (float)((127 - out->zp) * (double)out->scale);
        if (p->n_min == 1) {
            out->min = (float)p->min[0];
            out->max = (float)p->max[0];
        }
        return 0;
    }
    if (p->n_min == 1 && !p->n_scale) {
        quant_param_from_range((float)p->min[0], (float)p->max[0], out);
        return 0;
    }
    return -1; /* per channel */
}

/* A tensor name as a YAML key: plain when safe, else single-quoted. */
static void put_key(FILE *f, const char *s)
{
    int plain = *s && !strchr("-?:,[]{}#&*!|>'\"%@` ", *s);
    for (const char *p = s; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("_./-:", *p);
    if (plain && strstr(s, ": ") == NULL && s[strlen(s) - 1] != ':')
        fputs(s, f);
    else {
        fputc('\'', f);
        for (const char *p = s; *p; p++) {
            if (*p == '\'')
                fputc('\'', f);
            fputc(*p, f);
        }
        fputc('\'', f);
    }
}

static void put_list(FILE *f, const char *key, int n, const qparam_t *p, int what)
{
    fprintf(f, "        %s:\n", key);
    for (int i = 0; i < n; i++) {
        if (what == 3)
            fprintf(f, "        - %d\n", (int)p[i].zp);
        else
            fprintf(f, "        - %.9g\n", what == 0 ? p[i].min : what == 1 ? p[i].max : p[i].scale);
    }
}

int quant_cfg_write(const quant_graph *q, const char *path, char *err, size_t errlen)
{
    const graph_t *g = q->g;
    FILE *f = fopen(path, "w");
    if (!f)
        return rt_err(err, errlen, RT_EIO, "%s: cannot write: %m", path);
    int any = 0;
    for (int i = 0; i < g->n_nodes; i++)
        any |= q->node_fp16 && q->node_fp16[i];
    fputs("# rknn-trace quantization parameters, in RKNN-Toolkit2's .quantization.cfg layout.\n"
          "# custom_quantize_layers: 'tensor: float16' keeps the layer producing that tensor in\n"
          "# fp16 (rknn-trace run -q i8 --hybrid FILE).\n", f);
    if (!any) {
        fputs("custom_quantize_layers: {}\n", f);
    } else {
        fputs("custom_quantize_layers:\n", f);
        for (int i = 0; i < g->n_nodes; i++)
            if (q->node_fp16[i] && g->nodes[i].n_out && g->nodes[i].out[0] >= 0) {
                fputs("    ", f);
                put_key(f, g->t[g->nodes[i].out[0]].name);
                fputs(": float16\n", f);
            }
    }
    fputs("quantize_parameters:\n", f);
    for (int t = 0; t < g->n_t && t < q->n_alloc; t++) {
        const qparam_t *p = NULL;
        int n = 0, layer = 1;
        if (q->wparam[t]) {
            p = q->wparam[t];
            n = q->wparam_n[t];
            layer = n == 1;
        } else if (q->has_act[t]) {
            p = &q->act[t];
            n = 1;
        }
        if (!p || !g->t[t].name || !g->t[t].name[0])
            continue;
        fputs("    ", f);
        put_key(f, g->t[t].name);
        fprintf(f, ":\n        qtype: asymmetric_quantized\n        qmethod: %s\n"
                "        dtype: int8\n", layer ? "layer" : "channel");
        put_list(f, "min", n, p, 0);
        put_list(f, "max", n, p, 1);
        put_list(f, "scale", n, p, 2);
        put_list(f, "zero_point", n, p, 3);
    }
    int bad = ferror(f);
    if (fclose(f) || bad)
        return rt_err(err, errlen, RT_EIO, "%s: write error", path);
    return RT_OK;
}
