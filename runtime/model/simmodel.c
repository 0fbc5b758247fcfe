/* runtime/model/simmodel.c — the `rknn-trace build` container: read, write,
 * load its graph (layout: docs/sim-model-format.md). Every offset and length is
 * checked against the file before use. */
#include "runtime/model/model.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER 16
#define ENTRY 24

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void wr64(unsigned char *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

int simmodel_is(const void *buf, size_t len)
{
    return len >= SIMMODEL_MAGIC_LEN && memcmp(buf, SIMMODEL_MAGIC, SIMMODEL_MAGIC_LEN) == 0;
}

int simmodel_parse(const void *buf, size_t len, simmodel *m, char *err, size_t errlen)
{
    const unsigned char *p = buf;
    memset(m, 0, sizeof(*m));
    if (!simmodel_is(buf, len))
        return rt_err(err, errlen, RT_EFORMAT, "not an rknn-trace simulator model (magic)");
    if (len < HEADER)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model truncated in its header");
    uint32_t ver = rd32(p + 8), n = rd32(p + 12);
    if (ver != SIMMODEL_VERSION)
        return rt_err(err, errlen, ver > SIMMODEL_VERSION ? RT_EUNSUPPORTED : RT_EFORMAT,
                      "simulator model version %u (this rknn-trace reads %d)", ver,
                      SIMMODEL_VERSION);
    if (n < 1 || n > SIMMODEL_MAX_SECTIONS)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model: %u sections", n);
    if ((len - HEADER) / ENTRY < n)
        return rt_err(err, errlen, RT_EFORMAT, "simulator model truncated in its section table");
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = p + HEADER + (size_t)i * ENTRY;
        uint64_t off = rd64(e + 8), l = rd64(e + 16);
        simmodel_section *s = &m->s[i];
        memcpy(s->tag, e, 8);
        s->tag[8] = 0;
        if (!s->tag[0] || strlen(s->tag) != strnlen((const char *)e, 8))
            return rt_err(err, errlen, RT_EFORMAT, "simulator model: section %u has a bad tag", i);
        for (size_t k = strlen(s->tag); k < 8; k++)
            if (e[k])
                return rt_err(err, errlen, RT_EFORMAT, "simulator model: section %u has a bad tag",
                              i);
        if (off < HEADER + (uint64_t)n * ENTRY || off > len || l > len - off)
            return rt_err(err, errlen, RT_EFORMAT,
                          "simulator model: section %s (%llu bytes at %llu) lies outside the "
                          "file (%zu bytes)", s->tag, (unsigned long long)l,
                          (unsigned long long)off, len);
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(m->s[k].tag, s->tag))
                return rt_err(err, errlen, RT_EFORMAT, "simulator model: section %s twice",
                              s->tag);
        s->data = p + off;
        s->len = (size_t)l;
    }
    m->n = (int)n;
    if (!simmodel_find(m, "ONNX"))
        return rt_err(err, errlen, RT_EFORMAT, "simulator model without an ONNX section");
    return RT_OK;
}

const simmodel_section *simmodel_find(const simmodel *m, const char *tag)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->s[i].tag, tag))
            return &m->s[i];
    return NULL;
}

int simmodel_write(const char *path, int n, const char *const *tags, const void *const *data,
                   const size_t *lens, char *err, size_t errlen)
{
    if (n < 1 || n > SIMMODEL_MAX_SECTIONS)
        return rt_err(err, errlen, RT_EINVAL, "simulator model: %d sections", n);
    size_t hdr = HEADER + (size_t)n * ENTRY, off = (hdr + 7) & ~(size_t)7;
    unsigned char *h = xcalloc(1, off);
    char *tmp = NULL;
    memcpy(h, SIMMODEL_MAGIC, SIMMODEL_MAGIC_LEN);
    wr32(h + 8, SIMMODEL_VERSION);
    wr32(h + 12, (uint32_t)n);
    size_t at = off;
    for (int i = 0; i < n; i++) {
        unsigned char *e = h + HEADER + (size_t)i * ENTRY;
        size_t tl = strlen(tags[i]);
        memcpy(e, tags[i], tl > 8 ? 8 : tl);
        wr64(e + 8, at);
        wr64(e + 16, lens[i]);
        at = (at + lens[i] + 7) & ~(size_t)7;
    }
    int rc = RT_OK, fd = -1;
    /* A new file beside the target, renamed over it once complete: a failed
     * write never leaves a truncated container (nor truncates an old one). */
    size_t tl = strlen(path) + 32;
    tmp = xmalloc(tl);
    for (int k = 0; fd < 0 && k < 100; k++) {
        snprintf(tmp, tl, "%s.tmp%ld.%d", path, (long)getpid(), k);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        rc = rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
        goto out;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        rc = rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
        close(fd);
        remove(tmp);
        goto out;
    }
    static const unsigned char zeros[8];
    size_t pos = off;
    int ok = fwrite(h, 1, off, f) == off;
    for (int i = 0; i < n && ok; i++) {
        ok = fwrite(data[i], 1, lens[i], f) == lens[i];
        pos += lens[i];
        size_t pad = ((pos + 7) & ~(size_t)7) - pos;
        ok = ok && fwrite(zeros, 1, pad, f) == pad;
        pos += pad;
    }
    ok = ok && fflush(f) == 0 && fsync(fd) == 0;
    if (fclose(f) || !ok) {
        rc = rt_err(err, errlen, RT_EIO, "%s: write error", path);
        remove(tmp);
    } else if (rename(tmp, path)) {
        rc = rt_err(err, errlen, RT_EIO, "%s: %s", path, strerror(errno));
        remove(tmp);
    }
out:
    free(tmp);
    free(h);
    return rc;
}

int simmodel_load_graph(const void *buf, size_t len, graph_t **out, char *err, size_t errlen)
{
    simmodel m;
    int rc = simmodel_parse(buf, len, &m, err, errlen);
    if (rc)
        return rc;
    const simmodel_section *s = simmodel_find(&m, "ONNX");
    return model_load_onnx(s->data, s->len, out, err, errlen);
}

int simmodel_meta_str(const simmodel *m, const char *key, char *val, size_t vlen)
{
    const simmodel_section *s = simmodel_find(m, "META");
    char pat[96];
    if (!s || !vlen)
        return -1;
    snprintf(pat, sizeof(pat), "\"%s\":\"", key);
    size_t pl = strlen(pat);
    const char *d = s->data, *end = d + s->len;
    for (const char *p = d; p + pl <= end; p++) {
        if (memcmp(p, pat, pl))
            continue;
        size_t k = 0;
        for (p += pl; p < end && *p != '"' && k + 1 < vlen; p++) {
            if (*p == '\\' && p + 1 < end)
                p++;
            val[k++] = *p;
        }
        val[k] = 0;
        return 0;
    }
    return -1;
}
