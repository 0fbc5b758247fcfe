/* runtime/api/api_mem.c — zero-copy memory and the context settings:
 * rknn_create_mem*, rknn_destroy_mem, rknn_set_io_mem, rknn_set_weight_mem,
 * rknn_set_internal_mem, rknn_mem_sync, rknn_set_core_mask, rknn_set_batch_core_num,
 * rknn_set_input_shape(s).
 *
 * rknn_create_mem returns real shareable memory: a memfd mapped into the process, so
 * fd, virt_addr and size mean what they mean on a board (the fd can be mmap'ed or
 * passed to another process). Every rknn_tensor_mem handed out is kept in a registry,
 * so a destroyed or foreign one is recognised before it is touched. */
#include "runtime/api/api_internal.h"
#include "runtime/api/api_matmul.h"
#include "runtime/npu/npu.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/dma-heap.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct mem_rec {
    rknn_tensor_mem *m;
    void *map;          /* our mapping, unmapped on destroy */
    size_t map_len;
    int own_fd;         /* fd we created, closed on destroy */
    uint8_t *data;      /* FROM_FD / FROM_PHYS: start of the region */
    struct mem_rec *next;
} mem_rec;

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static mem_rec *mems;

static mem_rec *rec_find(const rknn_tensor_mem *m)
{
    for (mem_rec *r = mems; r; r = r->next)
        if (r->m == m)
            return r;
    return NULL;
}

int api_mem_alive(const rknn_tensor_mem *m)
{
    int alive;
    pthread_mutex_lock(&mem_lock);
    alive = m && rec_find(m) != NULL;
    pthread_mutex_unlock(&mem_lock);
    return alive;
}

/* ALLOC_INSIDE memory follows mem->offset as the application may move it (one
 * allocation shared by several tensors); imported memory starts where it was given. */
uint8_t *api_mem_ptr(const rknn_tensor_mem *m)
{
    uint8_t *p = NULL;
    mem_rec *r;

    pthread_mutex_lock(&mem_lock);
    r = m ? rec_find(m) : NULL;
    if (r)
        p = r->data ? r->data : m->virt_addr ? (uint8_t *)m->virt_addr + m->offset : NULL;
    pthread_mutex_unlock(&mem_lock);
    return p;
}

size_t api_mem_avail(const rknn_tensor_mem *m)
{
    size_t n = 0;
    mem_rec *r;

    pthread_mutex_lock(&mem_lock);
    r = m ? rec_find(m) : NULL;
    if (r)
        n = r->data ? m->size : m->offset >= 0 && (uint32_t)m->offset <= m->size
                                    ? m->size - (uint32_t)m->offset : 0;
    pthread_mutex_unlock(&mem_lock);
    return n;
}

static rknn_tensor_mem *rec_add(mem_rec *r)
{
    pthread_mutex_lock(&mem_lock);
    r->next = mems;
    mems = r;
    pthread_mutex_unlock(&mem_lock);
    return r->m;
}

/* A context argument that must be valid; checked and released at once (memory is not
 * tied to a context in the simulator). */
static int ctx_ok(rknn_context ctx, const char *fn)
{
    api_ctx *c;

    if (api_matmul_known(ctx)) /* memory for rknn_matmul_set_io_mem */
        return 1;
    c = api_ctx_get_any(ctx, fn);
    if (!c)
        return 0;
    api_ctx_put(c);
    return 1;
}

/* A dma-buf from a DMA heap, as the vendor runtime allocates on a board
 * ($RKNN_TRACE_DMA_HEAP, else /dev/dma_heap/system); -1 when there is none or it
 * refuses, and the caller falls back to memfd. */
static int dma_heap_alloc(uint64_t size, const char *fn)
{
    const char *path = getenv("RKNN_TRACE_DMA_HEAP");
    struct dma_heap_allocation_data d = {.len = size, .fd_flags = O_RDWR | O_CLOEXEC};
    int heap = open(path && *path ? path : "/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);

    if (heap < 0)
        return -1;
    if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &d) != 0) {
        API_W("%s, DMA heap %s refused %llu bytes (%s): using memfd memory", fn,
              path && *path ? path : "/dev/dma_heap/system", (unsigned long long)size,
              strerror(errno));
        close(heap);
        return -1;
    }
    close(heap);
    return (int)d.fd;
}

static rknn_tensor_mem *mem_alloc(uint64_t size, const char *fn)
{
    mem_rec *r;
    void *map;
    int fd;

    if (size == 0 || size > UINT32_MAX) {
        API_E("%s, size %llu is not in [1, 4294967295] (rknn_tensor_mem.size is 32-bit)", fn,
              (unsigned long long)size);
        return NULL;
    }
    fd = dma_heap_alloc(size, fn);
    if (fd >= 0)
        goto mapped;
    fd = memfd_create("rknn_mem", MFD_CLOEXEC);
    if (fd < 0) {
        API_E("%s, memfd_create failed: %s", fn, strerror(errno));
        return NULL;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        API_E("%s, cannot size the buffer to %llu bytes: %s", fn, (unsigned long long)size,
              strerror(errno));
        close(fd);
        return NULL;
    }
mapped:
    map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        API_E("%s, mmap of %llu bytes failed: %s", fn, (unsigned long long)size, strerror(errno));
        close(fd);
        return NULL;
    }
    r = xcalloc(1, sizeof(*r));
    r->m = xcalloc(1, sizeof(*r->m));
    r->map = map;
    r->map_len = (size_t)size;
    r->own_fd = 1;
    r->m->virt_addr = map;
    r->m->fd = fd;
    r->m->size = (uint32_t)size;
    r->m->flags = RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE;
    return rec_add(r);
}

rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size)
{
    if (!ctx_ok(ctx, "rknn_create_mem"))
        return NULL;
    return mem_alloc(size, "rknn_create_mem");
}

rknn_tensor_mem *rknn_create_mem2(rknn_context ctx, uint64_t size, uint64_t alloc_flags)
{
    const uint64_t known = RKNN_FLAG_MEMORY_CACHEABLE | RKNN_FLAG_MEMORY_NON_CACHEABLE |
                           RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM | RKNN_MEM_FLAG_ALLOC_NO_CONTEXT;

    if (alloc_flags & ~known) {
        API_E("rknn_create_mem2, alloc_flags 0x%llx has unknown bits 0x%llx: use "
              "RKNN_FLAG_MEMORY_* and RKNN_MEM_FLAG_ALLOC_NO_CONTEXT",
              (unsigned long long)alloc_flags, (unsigned long long)(alloc_flags & ~known));
        return NULL;
    }
    if ((alloc_flags & RKNN_FLAG_MEMORY_CACHEABLE) && (alloc_flags & RKNN_FLAG_MEMORY_NON_CACHEABLE)) {
        API_E("rknn_create_mem2, RKNN_FLAG_MEMORY_CACHEABLE and NON_CACHEABLE are exclusive");
        return NULL;
    }
    if (!(ctx == 0 && (alloc_flags & RKNN_MEM_FLAG_ALLOC_NO_CONTEXT)) &&
        !ctx_ok(ctx, ctx == 0 ? "rknn_create_mem2 (ctx 0 needs RKNN_MEM_FLAG_ALLOC_NO_CONTEXT)"
                              : "rknn_create_mem2"))
        return NULL;
    return mem_alloc(size, "rknn_create_mem2");
}

rknn_tensor_mem *rknn_create_mem_from_fd(rknn_context ctx, int32_t fd, void *virt_addr,
                                         uint32_t size, int32_t offset)
{
    mem_rec *r;
    void *map = NULL;
    size_t map_len = 0;
    uint8_t *data;

    if (!ctx_ok(ctx, "rknn_create_mem_from_fd"))
        return NULL;
    if (fd < 0 || fcntl(fd, F_GETFD) < 0) {
        API_E("rknn_create_mem_from_fd, fd %d is not an open file descriptor", fd);
        return NULL;
    }
    if (size == 0 || offset < 0) {
        API_E("rknn_create_mem_from_fd, size %u / offset %d: size must be > 0 and offset >= 0",
              size, offset);
        return NULL;
    }
    if (virt_addr) {
        data = (uint8_t *)virt_addr + offset;
    } else {
        /* no CPU mapping given: map [offset, offset + size) of the fd ourselves */
        long pg = sysconf(_SC_PAGESIZE);
        off_t base = (off_t)offset / pg * pg;
        map_len = (size_t)(offset - base) + size;
        map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, base);
        if (map == MAP_FAILED) {
            API_E("rknn_create_mem_from_fd, cannot mmap fd %d (offset %d, %u bytes): %s; pass "
                  "its CPU mapping as virt_addr", fd, offset, size, strerror(errno));
            return NULL;
        }
        data = (uint8_t *)map + (offset - base);
    }
    r = xcalloc(1, sizeof(*r));
    r->m = xcalloc(1, sizeof(*r->m));
    r->map = map;
    r->map_len = map_len;
    r->data = data;
    r->m->virt_addr = virt_addr ? virt_addr : data;
    r->m->fd = fd;
    r->m->offset = offset;
    r->m->size = size;
    r->m->flags = RKNN_TENSOR_MEMORY_FLAGS_FROM_FD;
    return rec_add(r);
}

rknn_tensor_mem *rknn_create_mem_from_phys(rknn_context ctx, uint64_t phys_addr, void *virt_addr,
                                           uint32_t size)
{
    mem_rec *r;

    if (!ctx_ok(ctx, "rknn_create_mem_from_phys"))
        return NULL;
    if (size == 0) {
        API_E("rknn_create_mem_from_phys, size is 0");
        return NULL;
    }
    if (!virt_addr) {
        API_E("rknn_create_mem_from_phys, physical address 0x%llx cannot be accessed by the "
              "simulator (the model runs on this CPU): pass the buffer's CPU mapping as "
              "virt_addr, or allocate with rknn_create_mem", (unsigned long long)phys_addr);
        return NULL;
    }
    r = xcalloc(1, sizeof(*r));
    r->m = xcalloc(1, sizeof(*r->m));
    r->data = virt_addr;
    r->m->virt_addr = virt_addr;
    r->m->phys_addr = phys_addr;
    r->m->fd = -1;
    r->m->size = size;
    r->m->flags = RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS;
    return rec_add(r);
}

rknn_tensor_mem *rknn_create_mem_from_mb_blk(rknn_context ctx, void *mb_blk, int32_t offset)
{
    API_E("rknn_create_mem_from_mb_blk is declared in rknn_api.h but implemented by no "
          "runtime; use rknn_create_mem_from_fd with the block's fd");
    return NULL;
}

int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
    mem_rec **pp, *r = NULL;

    if (ctx != 0 && !ctx_ok(ctx, "rknn_destroy_mem"))
        return RKNN_ERR_CTX_INVALID;
    if (!mem) {
        API_E("rknn_destroy_mem, mem == NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    pthread_mutex_lock(&mem_lock);
    for (pp = &mems; *pp; pp = &(*pp)->next) {
        if ((*pp)->m == mem) {
            r = *pp;
            *pp = r->next;
            break;
        }
    }
    pthread_mutex_unlock(&mem_lock);
    if (!r) {
        API_E("rknn_destroy_mem, mem %p is not a live rknn_tensor_mem: it was already "
              "destroyed (double destroy) or was not made by rknn_create_mem*", (void *)mem);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (r->map)
        munmap(r->map, r->map_len);
    if (r->own_fd)
        close(r->m->fd);
    free(r->m);
    free(r);
    return RKNN_SUCC;
}

/* ---- binding memory to a context ------------------------------------------------------ */

static int mem_check(const rknn_tensor_mem *mem, const char *fn)
{
    if (!mem) {
        API_E("%s, mem == NULL", fn);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (!api_mem_alive(mem)) {
        API_E("%s, mem %p is not a live rknn_tensor_mem (destroyed, or not made by "
              "rknn_create_mem*)", fn, (const void *)mem);
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

/* Finds the io an attr names. The vendor's attrs carry the tensor name; an index
 * that agrees with the name breaks the tie of a tensor that is both input and output. */
static api_io *io_of_attr(api_ctx *c, const rknn_tensor_attr *a, int *is_input, int *idx)
{
    char name[RKNN_MAX_NAME_LEN + 1];

    memcpy(name, a->name, RKNN_MAX_NAME_LEN);
    name[RKNN_MAX_NAME_LEN] = 0;
    for (int pass = 0; pass < 4; pass++) {
        int in = pass == 0 || pass == 3;
        int n = in ? c->n_in : c->n_out;
        api_io *io = in ? c->in : c->out;
        for (int i = 0; i < n; i++) {
            if (strcmp(c->g->t[io[i].tensor].name, name) != 0)
                continue;
            if (pass < 2 && a->index != (uint32_t)i)
                continue;
            *is_input = in;
            *idx = i;
            return &io[i];
        }
    }
    return NULL;
}

/* A binding the NPU cannot read or write as is costs a CPU conversion per rknn_run,
 * as on the vendor runtime (e.g. the SDK guide's yolov5 zero-copy sample binding
 * OUTPUT_ATTR with FLOAT32). Native: the NATIVE_* attrs' layouts (NC1HWC2, or NHWC,
 * for 4-D; UNDEFINED otherwise) in the model's type; a uint8/int8 image into an NHWC
 * input of 1, 3 or 4 channels is native too (the NPU's input stage converts it).
 * Says what the conversion is and which query avoids it; returns 1 if it warned. */
static int conv_check(api_ctx *c, api_io *io, int is_input, int idx, const rknn_tensor_attr *a)
{
    rknn_tensor_attr na;
    int64_t numel = 1;
    int rt = a->pass_through ? io->rtype : (int)a->type, fmt = a->fmt, layout_ok, type_ok;
    int image = is_input && io->ndim == 4 && fmt == RKNN_TENSOR_NHWC &&
                (io->dims[1] == 1 || io->dims[1] == 3 || io->dims[1] == 4);

    io->conv_note = 0;
    if (a->pass_through)
        return 0;
    memset(&na, 0, sizeof(na));
    na.index = (uint32_t)idx;
    api_fill_attr(c, io, is_input,
                  is_input ? RKNN_QUERY_NATIVE_INPUT_ATTR : RKNN_QUERY_NATIVE_OUTPUT_ATTR, &na);
    for (int i = 0; i < io->ndim; i++)
        numel *= io->dims[i];
    if (io->ndim == 4)
        layout_ok = fmt == RKNN_TENSOR_NC1HWC2 || fmt == RKNN_TENSOR_NHWC;
    else
        layout_ok = 1; /* not 4-D: every format is the same dense order */
    type_ok = rt == io->rtype ||
              (image && (rt == RKNN_TENSOR_UINT8 || rt == RKNN_TENSOR_INT8));
    if (layout_ok && type_ok)
        return 0;
    io->conv_note = 1;
    size_t mb = (size_t)numel * api_rtype_size(rt), nb = (size_t)numel * api_rtype_size(io->rtype);
    API_W("rknn_set_io_mem, %s %d '%s' is bound as %s %s but the NPU %s %s %s: every rknn_run "
          "does a CPU %s conversion of %lld elements (%zu bytes read, %zu written; the time is "
          "reported after the first run); bind the attr of rknn_query(%s) (or %s) to use the "
          "memory as is", is_input ? "input" : "output", idx, a->name,
          get_type_string((rknn_tensor_type)rt), get_format_string((rknn_tensor_format)fmt),
          is_input ? "reads" : "writes", get_type_string(na.type), get_format_string(na.fmt),
          layout_ok ? "type" : type_ok ? "layout" : "layout and type", (long long)numel,
          is_input ? mb : nb, is_input ? nb : mb,
          is_input ? "RKNN_QUERY_NATIVE_INPUT_ATTR" : "RKNN_QUERY_NATIVE_OUTPUT_ATTR",
          is_input ? "RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR" : "RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR");
    return 1;
}

int rknn_set_io_mem(rknn_context ctx, rknn_tensor_mem *mem, rknn_tensor_attr *attr)
{
    api_ctx *c = api_ctx_get_any(ctx, "rknn_set_io_mem");
    api_io *io;
    rknn_tensor_mem *old_mem;
    rknn_tensor_attr old_attr;
    int is_input = 0, idx = 0, rt, ret;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    ret = mem_check(mem, "rknn_set_io_mem");
    if (!ret)
        ret = api_ctx_ready(c, "rknn_set_io_mem");
    if (ret)
        goto out;
    if (!attr) {
        API_E("rknn_set_io_mem, attr == NULL: pass the rknn_tensor_attr from rknn_query");
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    io = io_of_attr(c, attr, &is_input, &idx);
    if (!io) {
        API_E("rknn_set_io_mem, attr.name '%.64s' (index %u) names no input or output of the "
              "model: pass the attr returned by rknn_query(RKNN_QUERY_*_ATTR)", attr->name,
              attr->index);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    rt = attr->pass_through ? io->rtype : (int)attr->type;
    if (!api_rtype_valid(rt)) {
        API_E("rknn_set_io_mem, %s %d: attr.type %d cannot be converted (use FP32, FP16, "
              "INT8, UINT8, ...)", is_input ? "input" : "output", idx, (int)attr->type);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    if ((int)attr->fmt < 0 || attr->fmt >= RKNN_TENSOR_FORMAT_MAX) {
        API_E("rknn_set_io_mem, %s %d: attr.fmt %d is not a rknn_tensor_format",
              is_input ? "input" : "output", idx, (int)attr->fmt);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    if (!is_input && (rt == RKNN_TENSOR_INT8 || rt == RKNN_TENSOR_UINT8) &&
        (io->rtype == RKNN_TENSOR_FLOAT32 || io->rtype == RKNN_TENSOR_FLOAT16) &&
        !(attr->qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC && attr->scale > 0)) {
        API_E("rknn_set_io_mem, output %d is %s in this model; %s needs a scale: set "
              "attr.qnt_type = RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC with scale/zp, or ask for "
              "RKNN_TENSOR_FLOAT32/FLOAT16", idx, get_type_string((rknn_tensor_type)io->rtype),
              get_type_string((rknn_tensor_type)rt));
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    if (io->ndim == 4 && ((attr->w_stride && attr->w_stride < io->dims[3]) ||
                          (attr->h_stride && attr->h_stride < io->dims[2]))) {
        API_E("rknn_set_io_mem, %s %d: w_stride %u / h_stride %u smaller than width %lld / "
              "height %lld", is_input ? "input" : "output", idx, attr->w_stride, attr->h_stride,
              (long long)io->dims[3], (long long)io->dims[2]);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    if (io->ndim == 4 && attr->fmt == RKNN_TENSOR_NC1HWC2 && attr->n_dims == 5 &&
        (uint64_t)attr->dims[1] * attr->dims[4] < (uint64_t)io->dims[1]) {
        API_E("rknn_set_io_mem, %s %d: NC1HWC2 dims C1=%u x C2=%u hold fewer than the %lld "
              "channels: take dims from RKNN_QUERY_NATIVE_%s_ATTR", is_input ? "input" : "output",
              idx, attr->dims[1], attr->dims[4], (long long)io->dims[1],
              is_input ? "INPUT" : "OUTPUT");
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    old_mem = io->mem;
    old_attr = io->mem_attr;
    io->mem = mem;
    io->mem_attr = *attr;
    ret = api_binding_check(c, io, is_input, idx, "rknn_set_io_mem");
    if (ret) {
        io->mem = old_mem;
        io->mem_attr = old_attr;
        goto out;
    }
    conv_check(c, io, is_input, idx, attr);
out:
    api_ctx_put(c);
    return ret;
}

int rknn_set_weight_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
    api_ctx *c = api_ctx_get_any(ctx, "rknn_set_weight_mem");
    int ret;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    ret = mem_check(mem, "rknn_set_weight_mem");
    if (ret)
        goto out;
    if (!(c->flag & RKNN_FLAG_MEM_ALLOC_OUTSIDE)) {
        API_E("You must set RKNN_FLAG_MEM_ALLOC_OUTSIDE on rknn_init() if you want to call "
              "rknn_set_weight_mem!");
        ret = RKNN_ERR_FAIL;
        goto out;
    }
    uint64_t need_w, need_i;
    api_mem_need(c, &need_w, &need_i);
    if (api_mem_avail(mem) < need_w) {
        API_E("rknn_set_weight_mem, mem has %zu bytes but the weights need %zu "
              "(RKNN_QUERY_MEM_SIZE.total_weight_size)", api_mem_avail(mem), (size_t)need_w);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    c->weight_mem = mem;
out:
    api_ctx_put(c);
    return ret;
}

int rknn_set_internal_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
    api_ctx *c = api_ctx_get_any(ctx, "rknn_set_internal_mem");
    size_t need;
    int ret;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    ret = mem_check(mem, "rknn_set_internal_mem");
    if (ret)
        goto out;
    if (!(c->flag & (RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE))) {
        API_E("You must set RKNN_FLAG_MEM_ALLOC_OUTSIDE or RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE on "
              "rknn_init() if you want to call rknn_set_internal_mem!");
        ret = RKNN_ERR_FAIL;
        goto out;
    }
    ret = api_ctx_ready(c, "rknn_set_internal_mem");
    if (ret)
        goto out;
    {
        uint64_t need_w, need_i;
        api_mem_need(c, &need_w, &need_i);
        need = (size_t)need_i;
    }
    if (api_mem_avail(mem) < need) {
        API_E("rknn_set_internal_mem, mem has %zu bytes but intermediate tensors need %zu "
              "(RKNN_QUERY_MEM_SIZE.total_internal_size)", api_mem_avail(mem), need);
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    c->internal_mem = mem;
out:
    api_ctx_put(c);
    return ret;
}

int rknn_mem_sync(rknn_context context, rknn_tensor_mem *mem, rknn_mem_sync_mode mode)
{
    int ret;

    if (!ctx_ok(context, "rknn_mem_sync"))
        return RKNN_ERR_CTX_INVALID;
    ret = mem_check(mem, "rknn_mem_sync");
    if (ret)
        return ret;
    if (mode != RKNN_MEMORY_SYNC_TO_DEVICE && mode != RKNN_MEMORY_SYNC_FROM_DEVICE &&
        mode != RKNN_MEMORY_SYNC_BIDIRECTIONAL) {
        API_E("rknn_mem_sync, mode %d: use RKNN_MEMORY_SYNC_TO_DEVICE, FROM_DEVICE or "
              "BIDIRECTIONAL", (int)mode);
        return RKNN_ERR_PARAM_INVALID;
    }
    /* CPU and "device" share one coherent memory here: nothing to flush */
    return RKNN_SUCC;
}

/* ---- cores -------------------------------------------------------------------------- */

int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask)
{
    api_ctx *c = api_ctx_get_any(context, "rknn_set_core_mask");
    int cores, m = (int)core_mask, ret = RKNN_SUCC;
    int ok;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    cores = c->plat->cores;
    if (cores == 1) {
        if (m != RKNN_NPU_CORE_AUTO) {
            API_E("rknn_set_core_mask, %s has a single NPU core: core masks are supported on "
                  "rk3588 and rk3576 only (RKNN_TARGET)", c->plat->name);
            ret = RKNN_ERR_FAIL;
        }
        goto out;
    }
    /* a value of the enum first; which cores the chip has is the NPU model's check */
    ok = m == RKNN_NPU_CORE_AUTO || m == RKNN_NPU_CORE_ALL || m == RKNN_NPU_CORE_0 ||
         m == RKNN_NPU_CORE_1 || m == RKNN_NPU_CORE_0_1 || m == RKNN_NPU_CORE_2 ||
         m == RKNN_NPU_CORE_0_1_2;
    if (ok && npu_platform_find(c->plat->name)) {
        ret = api_npu_core_mask(c, (unsigned)m, "rknn_set_core_mask");
        if (ret)
            goto out;
    } else if (ok) {
        ok = cores >= 3 || (m != RKNN_NPU_CORE_2 && m != RKNN_NPU_CORE_0_1_2);
    }
    if (!ok) {
        API_E("rknn_set_core_mask, core_mask 0x%x is not valid on %s (%d cores): use "
              "RKNN_NPU_CORE_AUTO, _0, _1,%s _0_1%s or _ALL", m, c->plat->name, cores,
              cores >= 3 ? " _2," : "", cores >= 3 ? ", _0_1_2" : "");
        ret = RKNN_ERR_PARAM_INVALID;
        goto out;
    }
    c->core_mask = m;
out:
    api_ctx_put(c);
    return ret;
}

int rknn_set_batch_core_num(rknn_context context, int core_num)
{
    api_ctx *c = api_ctx_get_any(context, "rknn_set_batch_core_num");
    int ret = RKNN_SUCC;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if (c->plat->cores == 1) {
        API_E("rknn_set_batch_core_num, %s has a single NPU core: supported on rk3588 and "
              "rk3576 only", c->plat->name);
        ret = RKNN_ERR_FAIL;
    } else if (core_num < 1 || core_num > c->plat->cores) {
        API_E("rknn_set_batch_core_num, core_num %d is not in [1, %d] on %s", core_num,
              c->plat->cores, c->plat->name);
        ret = RKNN_ERR_PARAM_INVALID;
    } else {
        c->batch_core_num = core_num;
    }
    api_ctx_put(c);
    return ret;
}

/* ---- dynamic shapes ---------------------------------------------------------------- */

/* Shapes of attrs (each naming one input by index) into the model layout, checked
 * against the model's static dims. */
static int shapes_from_attrs(api_ctx *c, uint32_t n, const rknn_tensor_attr *attr,
                             int64_t (*shapes)[MODEL_MAX_DIMS], int *ndims, const char *fn)
{
    for (uint32_t k = 0; k < n; k++) {
        const rknn_tensor_attr *a = &attr[k];
        api_io *io;
        int64_t d[RKNN_MAX_DIMS];
        if (a->index >= (uint32_t)c->n_in) {
            API_E("%s, attr[%u].index(%u) >= input_num(%d)", fn, k, a->index, c->n_in);
            return RKNN_ERR_PARAM_INVALID;
        }
        io = &c->in[a->index];
        if (a->n_dims != (uint32_t)io->ndim) {
            API_E("%s, input %u: n_dims %u but the model input has rank %d", fn, a->index,
                  a->n_dims, io->ndim);
            return RKNN_ERR_PARAM_INVALID;
        }
        for (int i = 0; i < io->ndim; i++)
            d[i] = a->dims[i];
        if (io->ndim == 4 && a->fmt == RKNN_TENSOR_NHWC) {
            int64_t t[4] = {d[0], d[3], d[1], d[2]};
            memcpy(d, t, sizeof(t));
        }
        for (int i = 0; i < io->ndim; i++) {
            if (d[i] <= 0 || (io->model_dims[i] >= 0 && d[i] != io->model_dims[i])) {
                API_E("%s, input %u dim %d = %lld, but the model %s; give dims in attr.fmt "
                      "(%s) order", fn, a->index, i, (long long)d[i],
                      d[i] <= 0 ? "needs a positive size" : "fixes it", 
                      get_format_string(a->fmt));
                return RKNN_ERR_PARAM_INVALID;
            }
            shapes[a->index][i] = d[i];
        }
        ndims[a->index] = io->ndim;
    }
    return RKNN_SUCC;
}

/* Appends shape d (model layout) as the attr format fmt shows it: "[1,224,224,3]",
 * after a "," when it is not the first input's. */
static size_t shape_cat(char *s, size_t o, size_t len, const int64_t *d, int nd, int fmt,
                        int input)
{
    int perm[4] = {0, 2, 3, 1};
    if (input > 0 && o < len)
        o += (size_t)snprintf(s + o, len - o, ",");
    for (int k = 0; k < nd && o < len; k++) {
        int64_t v = nd == 4 && fmt == RKNN_TENSOR_NHWC ? d[perm[k]] : d[k];
        o += (size_t)snprintf(s + o, len - o, "%s%lld", k ? "," : "[", (long long)v);
    }
    if (o < len)
        o += (size_t)snprintf(s + o, len - o, "]");
    return o < len ? o : len;
}

/* A container with a shape set takes only its shapes (SDK 2.x): the index of the set,
 * or RKNN_ERR_FAIL with the E lines a board prints (librknnrt 2.x, as reported in
 * github.com/marty1885/rknn-superresolution/issues/3, where rknnlite names the code
 * RKNN_ERR_FAIL): the first input off the set, its supported shapes one a line, then
 * the attr given. The SDK's rknn_dynshape_inference.cc takes its shapes from
 * RKNN_QUERY_INPUT_DYNAMIC_RANGE, so a shape off the list is an application error. */
static int shapes_in_set(api_ctx *c, uint32_t n, const rknn_tensor_attr *attr,
                         int64_t (*shapes)[MODEL_MAX_DIMS], const int *ndims, const char *fn)
{
    const simmodel_opts *o = &c->opts;
    int fmt = n ? attr[0].fmt : RKNN_TENSOR_NHWC, bad = -1;
    for (int s = 0; s < o->n_sets; s++) {
        int same = 1;
        for (int i = 0; i < c->n_in && same; i++)
            same = ndims[i] == o->ndim[(size_t)s * (size_t)o->set_inputs + (size_t)i] &&
                   !memcmp(shapes[i], simmodel_set_dims(o, s, i), sizeof(int64_t) * (size_t)ndims[i]);
        if (same) {
            c->set_index = s;
            return RKNN_SUCC;
        }
    }
    /* the input whose shape no set has; each in a set but not together: the first one */
    for (int i = 0; i < c->n_in && bad < 0; i++) {
        int found = 0;
        for (int s = 0; s < o->n_sets && !found; s++)
            found = ndims[i] == o->ndim[(size_t)s * (size_t)o->set_inputs + (size_t)i] &&
                    !memcmp(shapes[i], simmodel_set_dims(o, s, i), sizeof(int64_t) * (size_t)ndims[i]);
        if (!found)
            bad = i;
    }
    if (bad < 0)
        bad = 0;
    const char *name = c->g->t[c->in[bad].tensor].name;
    API_E("%s error, input name = %s supported input shapes are as follows:", fn, name);
    for (int s = 0; s < o->n_sets; s++) {
        char sh[256];
        shape_cat(sh, 0, sizeof(sh), simmodel_set_dims(o, s, bad),
                  o->ndim[(size_t)s * (size_t)o->set_inputs + (size_t)bad], fmt, 0);
        API_E(" shape = %s, layout = %s", sh, get_format_string(fmt));
    }
    const rknn_tensor_attr *a = attr;
    for (uint32_t k = 0; k < n; k++)
        if (attr[k].index == (uint32_t)bad)
            a = &attr[k];
    char dims[256];
    size_t k = (size_t)snprintf(dims, sizeof(dims), "[");
    for (uint32_t d = 0; d < a->n_dims && d < RKNN_MAX_DIMS && k < sizeof(dims); d++)
        k += (size_t)snprintf(dims + k, sizeof(dims) - k, "%s%u", d ? ", " : "", a->dims[d]);
    if (k < sizeof(dims))
        snprintf(dims + k, sizeof(dims) - k, "]");
    API_E("while get rknn_tensor_attr[%d].name = %s, dims = %s, fmt = %s", bad, a->name, dims,
          get_format_string(a->fmt));
    return RKNN_ERR_FAIL;
}

static int set_shapes(api_ctx *c, uint32_t n, const rknn_tensor_attr *attr, const char *fn)
{
    int64_t (*shapes)[MODEL_MAX_DIMS] = xcalloc((size_t)(c->n_in ? c->n_in : 1), sizeof(*shapes));
    int *ndims = xcalloc((size_t)(c->n_in ? c->n_in : 1), sizeof(int));
    int ret, same = 1;

    for (int i = 0; i < c->n_in; i++) {
        memcpy(shapes[i], c->in[i].dims, sizeof(shapes[i]));
        ndims[i] = c->in[i].ndim;
    }
    ret = shapes_from_attrs(c, n, attr, shapes, ndims, fn);
    if (ret)
        goto out;
    if (c->opts.n_sets && (ret = shapes_in_set(c, n, attr, shapes, ndims, fn)))
        goto out;
    for (int i = 0; i < c->n_in; i++)
        if (memcmp(shapes[i], c->in[i].dims, sizeof(int64_t) * (size_t)ndims[i]) != 0)
            same = 0;
    if (!same)
        ret = api_ctx_prepare(c, (const int64_t(*)[MODEL_MAX_DIMS])shapes, ndims);
    if (!same && ret == RKNN_SUCC)
        api_npu_prepare(c); /* the NPU model of the new shapes */
out:
    free(shapes);
    free(ndims);
    return ret;
}

int rknn_set_input_shape(rknn_context ctx, rknn_tensor_attr *attr)
{
    api_ctx *c = api_ctx_get(ctx, "rknn_set_input_shape");
    int ret;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if (!attr) {
        API_E("rknn_set_input_shape, attr == NULL");
        ret = RKNN_ERR_PARAM_INVALID;
    } else {
        ret = set_shapes(c, 1, attr, "rknn_set_input_shape");
    }
    api_ctx_put(c);
    return ret;
}

int rknn_set_input_shapes(rknn_context ctx, uint32_t n_inputs, rknn_tensor_attr attr[])
{
    api_ctx *c = api_ctx_get(ctx, "rknn_set_input_shapes");
    int ret;

    if (!c)
        return RKNN_ERR_CTX_INVALID;
    if (!attr || n_inputs != (uint32_t)c->n_in) {
        API_E("rknn_set_input_shapes, %s: pass one attr per model input (%d)",
              !attr ? "attr == NULL" : "n_inputs does not match", c->n_in);
        ret = RKNN_ERR_PARAM_INVALID;
    } else {
        ret = set_shapes(c, n_inputs, attr, "rknn_set_input_shapes");
    }
    api_ctx_put(c);
    return ret;
}
