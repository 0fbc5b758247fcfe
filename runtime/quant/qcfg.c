/* runtime/quant/qcfg.c — the hybrid quantization file, in the layout of
 * RKNN-Toolkit2's `*.quantization.cfg` (YAML, see quant.h): read with libyaml for
 * --hybrid, written for --write-quant-cfg. */
#include "runtime/quant/quant.h"
#include "util/outfile.h"
#include "util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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

/* ---- reading: the YAML document through libyaml ---- */

#define FAIL(...) do { rc = rt_err(err, errlen, RT_EFORMAT, __VA_ARGS__); goto out; } while (0)

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

/* A plain or quoted scalar's text (NUL-terminated by libyaml), else NULL. */
static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A mapping value with nothing in it: absent, "~"/"null"/"" or {}. */
static int is_empty(const yaml_node_t *n)
{
    const char *s = scalar(n);
    if (s)
        return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
               (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
    return n->type == YAML_MAPPING_NODE && n->data.mapping.pairs.start == n->data.mapping.pairs.top;
}

static int num_text(const char *s, double *v)
{
    char *e;
    if (!s || !*s)
        return -1;
    *v = strtod(s, &e);
    return *e || e == s ? -1 : 0;
}

/* A number, or a list of numbers, into a malloc'd list; *bad: the node that
 * is not a number. */
static int number_list(yaml_document_t *d, yaml_node_t *n, double **out, int *cnt,
                       yaml_node_t **bad)
{
    *out = NULL;
    *cnt = 0;
    *bad = n;
    if (n->type == YAML_SEQUENCE_NODE) {
        yaml_node_item_t *it = n->data.sequence.items.start, *end = n->data.sequence.items.top;
        *out = xmalloc(sizeof(double) * (size_t)(end - it + 1));
        for (; it < end; it++) {
            *bad = yaml_document_get_node(d, *it);
            if (num_text(scalar(*bad), &(*out)[(*cnt)++]))
                return -1;
        }
        return 0;
    }
    *out = xmalloc(sizeof(double));
    *cnt = 1;
    return num_text(scalar(n), *out);
}

static int parse_doc(yaml_document_t *d, quant_cfg *c, char *err, size_t errlen)
{
    yaml_node_t *root = yaml_document_get_root_node(d);
    yaml_node_pair_t *sec;
    int rc = RT_OK;

    if (!root || is_empty(root))
        FAIL("no custom_quantize_layers or quantize_parameters section");
    if (root->type != YAML_MAPPING_NODE)
        FAIL("line %d: expected sections 'custom_quantize_layers:' or 'quantize_parameters:'",
             line_of(root));
    for (sec = root->data.mapping.pairs.start; sec < root->data.mapping.pairs.top; sec++) {
        yaml_node_t *k = yaml_document_get_node(d, sec->key), *v = yaml_document_get_node(d, sec->value);
        const char *name = scalar(k);
        int which = !name ? 0 : !strcmp(name, "custom_quantize_layers") ? 1
                  : !strcmp(name, "quantize_parameters") ? 2 : 0;
        if (!which)
            FAIL("line %d: unknown section '%s' (custom_quantize_layers or quantize_parameters)",
                 line_of(k), name ? name : "?");
        if (is_empty(v))
            continue;
        if (v->type != YAML_MAPPING_NODE)
            FAIL("line %d: '%s' takes an indented block or {}", line_of(k), name);
        for (yaml_node_pair_t *e = v->data.mapping.pairs.start; e < v->data.mapping.pairs.top; e++) {
            yaml_node_t *ek = yaml_document_get_node(d, e->key), *ev = yaml_document_get_node(d, e->value);
            const char *tensor = scalar(ek), *val = scalar(ev);
            if (!tensor || !*tensor)
                FAIL("line %d: a tensor name must be a non-empty string", line_of(ek));
            if (which == 1) {
                if (!val || (strcmp(val, "float16") && strcmp(val, "fp16")))
                    FAIL("line %d: layer '%s': only float16 is supported, got '%s'", line_of(ek),
                         tensor, val ? val : "a block");
                c->fp16 = xrealloc(c->fp16, sizeof(char *) * (size_t)(c->n_fp16 + 1));
                c->fp16[c->n_fp16++] = xstrdup(tensor);
                continue;
            }
            if (ev->type != YAML_MAPPING_NODE)
                FAIL("line %d: tensor '%s' takes an indented block of fields", line_of(ek), tensor);
            c->params = xrealloc(c->params, sizeof(*c->params) * (size_t)(c->n_params + 1));
            quant_cfg_param *cur = &c->params[c->n_params++];
            memset(cur, 0, sizeof(*cur));
            cur->name = xstrdup(tensor);
            for (yaml_node_pair_t *f = ev->data.mapping.pairs.start; f < ev->data.mapping.pairs.top; f++) {
                yaml_node_t *fk = yaml_document_get_node(d, f->key), *fv = yaml_document_get_node(d, f->value);
                const char *field = scalar(fk), *fval = scalar(fv);
                double **dst = NULL;
                int *dn = NULL;
                if (!field)
                    FAIL("line %d: tensor '%s': a field name must be a string", line_of(fk), tensor);
                if (!strcmp(field, "min"))
                    dst = &cur->min, dn = &cur->n_min;
                else if (!strcmp(field, "max"))
                    dst = &cur->max, dn = &cur->n_max;
                else if (!strcmp(field, "scale"))
                    dst = &cur->scale, dn = &cur->n_scale;
                else if (!strcmp(field, "zero_point"))
                    dst = &cur->zp, dn = &cur->n_zp;
                if (!dst) {
                    /* qtype, qmethod, dtype, ori_min, ori_max, ...: kept by Toolkit2, not needed */
                    if (!strcmp(field, "dtype") && fval && *fval && strcmp(fval, "int8") &&
                        strcmp(fval, "float16"))
                        FAIL("line %d: tensor '%s': dtype '%s' is not supported (int8)",
                             line_of(fk), tensor, fval);
                    continue;
                }
                if (*dst)
                    FAIL("line %d: tensor '%s': '%s' given twice", line_of(fk), tensor, field);
                yaml_node_t *bad;
                if (number_list(d, fv, dst, dn, &bad))
                    FAIL("line %d: tensor '%s': '%s' takes numbers, got '%s'", line_of(bad),
                         tensor, field, scalar(bad) ? scalar(bad) : "a block");
            }
        }
    }
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
    return rc;
}

int quant_cfg_parse(const char *text, size_t len, quant_cfg *c, char *err, size_t errlen)
{
    yaml_parser_t parser;
    yaml_document_t doc, next;
    int rc = RT_OK, have_doc = 0;

    memset(c, 0, sizeof(*c));
    if (!yaml_parser_initialize(&parser))
        return rt_err(err, errlen, RT_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)(text ? text : ""),
                                 text ? len : 0);
    if (!yaml_parser_load(&parser, &doc)) {
        if (parser.problem_mark.line || parser.problem_mark.column)
            FAIL("line %d: %s%s%s", (int)parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "not YAML", parser.context ? " " : "",
                 parser.context ? parser.context : "");
        FAIL("not YAML: %s", parser.problem ? parser.problem : "unreadable");
    }
    have_doc = 1;
    /* one document: a second one ("---") would be silently ignored otherwise */
    if (yaml_document_get_root_node(&doc)) {
        if (!yaml_parser_load(&parser, &next))
            FAIL("line %d: %s", (int)parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "not YAML");
        int more = yaml_document_get_root_node(&next) != NULL;
        int at = more ? line_of(yaml_document_get_root_node(&next)) : 0;
        yaml_document_delete(&next);
        if (more)
            FAIL("line %d: a second YAML document", at);
    }
    rc = parse_doc(&doc, c, err, errlen);
out:
    if (have_doc)
        yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
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

const quant_cfg_param *quant_cfg_find(const quant_cfg *c, const char *name)
{
    for (int i = 0; c && name && i < c->n_params; i++)
        if (!strcmp(c->params[i].name, name))
            return &c->params[i];
    return NULL;
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
    outfile *o;
    FILE *f;
    int rc = outfile_open(path, &o, &f, err, errlen);
    if (rc)
        return rc;
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
            /* a BatchNormalization folded into its conv gave it its output: one entry */
            if (q->node_fp16[i] && !g->nodes[i].folded && g->nodes[i].n_out &&
                g->nodes[i].out[0] >= 0) {
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
    return outfile_commit(o, err, errlen);
}
