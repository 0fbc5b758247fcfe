/* runtime/model/flatbuf.c — a small FlatBuffer reader that checks every
 * offset and length before it reads (Debian ships no C FlatBuffers runtime).
 * Only what the .rknn schema needs: tables, scalars, strings, vectors. */
#include <string.h>
#include "runtime/model/rknn_file.h"
#include "util/util.h"

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* [pos, pos+n) inside the buffer, without overflow */
static int in_buf(const fb_buf *b, size_t pos, size_t n)
{
    return pos <= b->len && n <= b->len - pos;
}

static int table_at(const fb_buf *b, size_t pos, fb_table *out)
{
    int64_t vt;

    if (!in_buf(b, pos, 4))
        return RT_EFORMAT;
    vt = (int64_t)pos - (int32_t)rd_u32(b->p + pos);
    if (vt < 0 || !in_buf(b, (size_t)vt, 4))
        return RT_EFORMAT;
    out->b = b;
    out->pos = pos;
    out->vt = (size_t)vt;
    out->vt_len = rd_u16(b->p + vt);
    out->tab_len = rd_u16(b->p + vt + 2);
    if (out->vt_len < 4 || (out->vt_len & 1) || !in_buf(b, out->vt, out->vt_len) ||
        out->tab_len < 4 || !in_buf(b, pos, out->tab_len))
        return RT_EFORMAT;
    return 0;
}

int fb_root(const fb_buf *b, fb_table *out)
{
    if (!in_buf(b, 0, 8))
        return RT_EFORMAT;
    return table_at(b, rd_u32(b->p), out);
}

int fb_table_slots(const fb_table *t)
{
    return (t->vt_len - 4) / 2;
}

/* Position of a field of size n, 0 if absent, -1 if it leaves the table. */
static int64_t field_pos(const fb_table *t, int slot, size_t n)
{
    uint16_t off;

    if (slot < 0 || slot >= fb_table_slots(t))
        return 0;
    off = rd_u16(t->b->p + t->vt + 4 + 2 * (size_t)slot);
    if (!off)
        return 0;
    if (off < 4 || (size_t)off + n > t->tab_len)
        return -1;
    return (int64_t)(t->pos + off);
}

int fb_u8(const fb_table *t, int slot, uint8_t def, uint8_t *out)
{
    int64_t p = field_pos(t, slot, 1);

    *out = def;
    if (p <= 0)
        return p < 0 ? RT_EFORMAT : 0;
    *out = t->b->p[p];
    return 1;
}

int fb_i32(const fb_table *t, int slot, int32_t def, int32_t *out)
{
    int64_t p = field_pos(t, slot, 4);

    *out = def;
    if (p <= 0)
        return p < 0 ? RT_EFORMAT : 0;
    *out = (int32_t)rd_u32(t->b->p + p);
    return 1;
}

/* Target of an offset field: absolute position, 0 absent, -1 broken. */
static int64_t deref(const fb_table *t, int slot)
{
    int64_t p = field_pos(t, slot, 4);
    uint64_t tgt;

    if (p <= 0)
        return p;
    tgt = (uint64_t)p + rd_u32(t->b->p + p);
    if (tgt >= t->b->len)
        return -1;
    return (int64_t)tgt;
}

static int string_at(const fb_buf *b, size_t pos, const char **s, uint32_t *n)
{
    uint32_t len;

    if (!in_buf(b, pos, 4))
        return RT_EFORMAT;
    len = rd_u32(b->p + pos);
    if (!in_buf(b, pos + 4, len))
        return RT_EFORMAT;
    *s = (const char *)b->p + pos + 4;
    *n = len;
    return 1;
}

int fb_str(const fb_table *t, int slot, const char **s, uint32_t *n)
{
    int64_t p = deref(t, slot);

    *s = "";
    *n = 0;
    if (p <= 0)
        return p < 0 ? RT_EFORMAT : 0;
    return string_at(t->b, (size_t)p, s, n);
}

int fb_vector(const fb_table *t, int slot, size_t elem_size, fb_vec *out)
{
    int64_t p = deref(t, slot);
    uint32_t n;

    out->b = t->b;
    out->pos = 0;
    out->n = 0;
    if (p <= 0)
        return p < 0 ? RT_EFORMAT : 0;
    if (!in_buf(t->b, (size_t)p, 4))
        return RT_EFORMAT;
    n = rd_u32(t->b->p + p);
    if (elem_size && (uint64_t)n > (t->b->len - (size_t)p - 4) / elem_size)
        return RT_EFORMAT;
    out->pos = (size_t)p + 4;
    out->n = n;
    return 1;
}

int fb_subtable(const fb_table *t, int slot, fb_table *out)
{
    int64_t p = deref(t, slot);

    if (p <= 0)
        return p < 0 ? RT_EFORMAT : 0;
    return table_at(t->b, (size_t)p, out) ? RT_EFORMAT : 1;
}

uint32_t fb_vec_u32(const fb_vec *v, uint32_t i)
{
    return i < v->n ? rd_u32(v->b->p + v->pos + 4 * (size_t)i) : 0;
}

static int64_t vec_deref(const fb_vec *v, uint32_t i)
{
    size_t at;
    uint64_t tgt;

    if (i >= v->n)
        return -1;
    at = v->pos + 4 * (size_t)i;
    tgt = (uint64_t)at + rd_u32(v->b->p + at);
    return tgt < v->b->len ? (int64_t)tgt : -1;
}

int fb_vec_table(const fb_vec *v, uint32_t i, fb_table *out)
{
    int64_t p = vec_deref(v, i);

    if (p < 0)
        return RT_EFORMAT;
    return table_at(v->b, (size_t)p, out);
}

int fb_vec_str(const fb_vec *v, uint32_t i, const char **s, uint32_t *n)
{
    int64_t p = vec_deref(v, i);

    if (p < 0)
        return RT_EFORMAT;
    return string_at(v->b, (size_t)p, s, n) < 0 ? RT_EFORMAT : 0;
}
