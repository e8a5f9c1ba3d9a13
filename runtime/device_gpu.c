/* libqdrt's CUDA and HIP devices: the vendor's driver library opened at run time
 * (libcuda.so.1, libamdhip64.so), its few entry points declared here, so libqdrt builds with a C
 * compiler alone. The two driver APIs have the same shape (module from memory, function by
 * name, launch with an array of parameter pointers), so one implementation serves both through a
 * table of entry-point names. Each task is launched with qdc-abi(7)'s flattened parameters (a
 * scalar by value; an ndarray as its pointer then one i32 per axis) on a grid of
 * ceil(items / block_dim) blocks, or the metadata's groups; the launches of one kernel are in
 * order on the default stream, which orders them; a do-while condition is read back after its
 * loop's last task. Fields are the module's globals (cuModuleGetGlobal). The CUDA path is
 * exercised by `make gpu-check` on a machine with an NVIDIA GPU; the HIP path has been
 * compiled only, never run on AMD hardware (qdrt(3)). */
#include "qdrt_backend.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*fn_i)(unsigned);
typedef struct Api {
    const char *lib, *what;
    const char *init, *count, *get, *load, *func, *alloc, *free, *htod, *dtoh, *launch, *sync, *global, *name, *memset8, *unload;
} Api;
static const Api cuda_api = {"libcuda.so.1", "CUDA", "cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuModuleLoadData", "cuModuleGetFunction",
                             "cuMemAlloc_v2", "cuMemFree_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuLaunchKernel", "cuCtxSynchronize",
                             "cuModuleGetGlobal_v2", "cuDeviceGetName", "cuMemsetD8_v2", "cuModuleUnload"};
static const Api hip_api = {"libamdhip64.so", "HIP", "hipInit", "hipGetDeviceCount", "hipDeviceGet", "hipModuleLoadData",
                            "hipModuleGetFunction", "hipMalloc", "hipFree", "hipMemcpyHtoD", "hipMemcpyDtoH", "hipModuleLaunchKernel",
                            "hipDeviceSynchronize", "hipModuleGetGlobal", "hipDeviceGetName", "hipMemsetD8", "hipModuleUnload"};

typedef struct Gpu {
    const Api *api;
    void *lib;
    void *ctx;
    int dev;
    int (*init)(unsigned);
    int (*count)(int *);
    int (*get)(int *, int);
    int (*load)(void **, const void *);
    int (*func)(void **, void *, const char *);
    int (*alloc)(uint64_t *, size_t);
    int (*free)(uint64_t);
    int (*htod)(uint64_t, const void *, size_t);
    int (*dtoh)(void *, uint64_t, size_t);
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
    int (*sync)(void);
    int (*global)(uint64_t *, size_t *, void *, const char *);
    int (*name)(char *, int, int);
    int (*memset8)(uint64_t, unsigned char, size_t);
    int (*unload)(void *);
    int (*ctx_retain)(void **, int); /* CUDA only: the primary context */
    int (*ctx_set)(void *);
    int (*ctx_release)(int);
    int (*set_device)(int); /* HIP only */
} Gpu;

static qdrt_status gpu_err(const Gpu *g, int r, const char *call) {
    return qdrt_fail(r == 2 ? QDRT_E_MEMORY : QDRT_E_DEVICE, "%s: %s failed (error %d)", g->api->what, call, r);
}
#define GCHECK(g, call, name)                     \
    do {                                          \
        int r_ = (call);                          \
        if (r_) return gpu_err(g, r_, name);      \
    } while (0)

static void gpu_close(qdrt_device *d) {
    Gpu *g = d->impl;
    if (!g) return;
    if (g->ctx && g->ctx_release) g->ctx_release(g->dev);
    if (g->lib) dlclose(g->lib);
    free(g);
    d->impl = NULL;
}

static qdrt_status gpu_start(qdrt_device *d, Gpu *g) {
    const Api *a = g->api;
    if (!(g->lib = dlopen(a->lib, RTLD_NOW | RTLD_LOCAL))) return qdrt_fail(QDRT_E_NO_DEVICE, "no %s driver (%s): %s", a->what, a->lib, dlerror());
#define SYM(field, name)                                                                        \
    if (!(*(void **)&g->field = dlsym(g->lib, name))) return qdrt_fail(QDRT_E_NO_DEVICE, "%s: the driver has no %s", a->what, name);
    SYM(init, a->init) SYM(count, a->count) SYM(get, a->get) SYM(load, a->load) SYM(func, a->func) SYM(alloc, a->alloc)
    SYM(free, a->free) SYM(htod, a->htod) SYM(dtoh, a->dtoh) SYM(launch, a->launch) SYM(sync, a->sync) SYM(global, a->global)
    SYM(name, a->name) SYM(memset8, a->memset8) SYM(unload, a->unload)
    if (a == &cuda_api) {
        SYM(ctx_retain, "cuDevicePrimaryCtxRetain") SYM(ctx_set, "cuCtxSetCurrent") SYM(ctx_release, "cuDevicePrimaryCtxRelease_v2")
    } else {
        SYM(set_device, "hipSetDevice")
    }
#undef SYM
    int n = 0;
    if (g->init(0) || g->count(&n) || n < 1) return qdrt_fail(QDRT_E_NO_DEVICE, "%s: no GPU", a->what);
    GCHECK(g, g->get(&g->dev, 0), a->get);
    if (g->ctx_retain) {
        GCHECK(g, g->ctx_retain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain");
        GCHECK(g, g->ctx_set(g->ctx), "cuCtxSetCurrent");
    } else GCHECK(g, g->set_device(g->dev), "hipSetDevice");
    char name[200] = "?";
    g->name(name, (int)sizeof name, g->dev);
    snprintf(d->name, sizeof d->name, "%s: %s", d->be->name, name);
    int (*attr)(int *, int, int) = NULL, major = 0, minor = 0; /* CUDA: the compute capability (cuda.h's attributes 75, 76) */
    if (g->ctx_retain && (*(void **)&attr = dlsym(g->lib, "cuDeviceGetAttribute")) && !attr(&major, 75, g->dev) && !attr(&minor, 76, g->dev))
        snprintf(d->target, sizeof d->target, "sm_%d%d", major, minor);
    return QDRT_OK;
}

static qdrt_status gpu_open_api(qdrt_device *d, const Api *api) {
    Gpu *g = calloc(1, sizeof *g);
    if (!g) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    g->api = api;
    d->impl = g;
    qdrt_status st = gpu_start(d, g);
    if (st) gpu_close(d);
    return st;
}
static qdrt_status cuda_open(qdrt_device *d, const qdrt_vulkan_options *vk) { return (void)vk, gpu_open_api(d, &cuda_api); }
static qdrt_status hip_open(qdrt_device *d, const qdrt_vulkan_options *vk) { return (void)vk, gpu_open_api(d, &hip_api); }

/* An array's impl is non-NULL when libqdrt allocated its memory (a field's global is not). */
static qdrt_status gpu_alloc(qdrt_array *a) {
    Gpu *g = a->dev->impl;
    GCHECK(g, g->alloc(&a->dptr, a->bytes ? a->bytes : 4), g->api->alloc);
    a->impl = a;
    GCHECK(g, g->memset8(a->dptr, 0, a->bytes ? a->bytes : 4), g->api->memset8);
    return QDRT_OK;
}
static void gpu_release(qdrt_array *a) {
    Gpu *g = a->dev->impl;
    if (a->impl && a->dptr) g->free(a->dptr);
}
static qdrt_status gpu_write(qdrt_array *a, const void *src) {
    Gpu *g = a->dev->impl;
    GCHECK(g, g->htod(a->dptr, src, a->bytes), g->api->htod);
    return QDRT_OK;
}
static qdrt_status gpu_read(const qdrt_array *a, void *dst) {
    Gpu *g = a->dev->impl;
    GCHECK(g, g->sync(), g->api->sync);
    GCHECK(g, g->dtoh(dst, a->dptr, a->bytes), g->api->dtoh);
    return QDRT_OK;
}

static void gpu_unload(qdrt_module *m) {
    Gpu *g = m->dev->impl;
    for (int i = 0; i < m->nkernels; i++) free(m->kernels[i].impl), m->kernels[i].impl = NULL;
    for (int i = 0; i < m->nfields; i++) free(m->fields[i].store), m->fields[i].store = NULL; /* the module's globals */
    for (int i = 0; i < m->nstorages; i++) free(m->storages[i].store), m->storages[i].store = NULL;
    if (m->impl) g->unload(m->impl);
    m->impl = NULL;
}

static qdrt_status gpu_load(qdrt_module *m, const void *code, size_t size) {
    Gpu *g = m->dev->impl;
    char *image = malloc(size + 1); /* PTX text must end in a NUL */
    if (!image) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    memcpy(image, code, size);
    image[size] = 0;
    int r = g->load(&m->impl, image);
    free(image);
    if (r) return m->impl = NULL, qdrt_fail(QDRT_E_MODULE, "%s: %s failed (error %d): a module for another GPU?", g->api->what, g->api->load, r);
    qdrt_status st = QDRT_OK;
    for (int i = 0; !st && i < m->nfields + m->nstorages; i++) { /* fields, then SNode storages (their fields read through them) */
        Field *f = i < m->nfields ? &m->fields[i] : NULL;
        Storage *s = f ? NULL : &m->storages[i - m->nfields];
        const char *sym = f ? (f->symbol ? f->symbol : f->name) : s->symbol;
        if (f && f->storage >= 0) continue;
        qdrt_array *a = calloc(1, sizeof *a);
        size_t bytes = 0;
        if (!a) st = qdrt_fail(QDRT_E_MEMORY, "out of memory");
        else if ((r = g->global(&a->dptr, &bytes, m->impl, sym)))
            free(a), st = qdrt_fail(QDRT_E_MODULE, "%s: the module has no global %s (error %d)", g->api->what, sym, r);
        else {
            a->dev = m->dev, a->dtype = f ? f->dtype : QDRT_U8, a->ndim = 1, a->shape[0] = f ? f->count : (int64_t)bytes, a->bytes = bytes;
            if (f) f->store = a;
            else s->store = a;
        }
    }
    for (int i = 0; !st && i < m->nkernels; i++) {
        Kernel *k = &m->kernels[i];
        void **fns = calloc((size_t)k->ntasks, sizeof *fns);
        k->impl = fns;
        if (!fns) st = qdrt_fail(QDRT_E_MEMORY, "out of memory");
        for (int t = 0; !st && t < k->ntasks; t++)
            if ((r = g->func(&fns[t], m->impl, k->tasks[t].name)))
                st = qdrt_fail(QDRT_E_MODULE, "%s: the module has no entry point %s (error %d)", g->api->what, k->tasks[t].name, r);
    }
    if (st) gpu_unload(m);
    return st;
}

/* params[] and shapes[]: one word per scalar, an ndarray's pointer and each of its extents. */
static qdrt_status gpu_run(qdrt_module *m, Kernel *k, qdrt_array *const *a, const uint64_t *s, void **fns, void **params, int32_t *shapes) {
    Gpu *g = m->dev->impl;
    int np = 0, ns = 0;
    for (int i = 0; i < k->nparams; i++) { /* qdc-abi(7): scalars by value, an ndarray's pointer then its extents */
        if (!a[i]) {
            params[np++] = (void *)&s[i];
            continue;
        }
        params[np++] = (void *)&a[i]->dptr;
        for (int d = 0; d < a[i]->ndim; d++) shapes[ns] = (int32_t)a[i]->shape[d], params[np++] = &shapes[ns++];
    }
    int64_t items = qdrt_items(k, a);
    double t0 = qdrt_now();
    for (int pc = 0; pc < k->ntasks;) {
        const Task *t = &k->tasks[pc];
        GCHECK(g, g->launch(fns[pc], qdrt_groups(m->dev, t, items, 65535), 1, 1, (unsigned)t->block_dim, 1, 1, 0, NULL, params, NULL), g->api->launch);
        int next = pc + 1;
        for (int l = k->nloops - 1; l >= 0; l--) /* innermost first */
            if (k->loops[l].last == pc) {
                const qdrt_array *c = a[k->loops[l].param];
                uint64_t v = 0;
                GCHECK(g, g->sync(), g->api->sync);
                GCHECK(g, g->dtoh(&v, c->dptr, qdrt_dtype_size(c->dtype)), g->api->dtoh);
                if (qdrt_nonzero(c->dtype, &v)) { next = k->loops[l].first; break; }
            }
        pc = next;
    }
    GCHECK(g, g->sync(), g->api->sync);
    m->dev->last_run_ms = (qdrt_now() - t0) * 1e3;
    return QDRT_OK;
}

static qdrt_status gpu_launch(qdrt_module *m, Kernel *k, qdrt_array *const *a, const uint64_t *s) {
    void **fns = k->impl;
    size_t words = 1;
    for (int i = 0; i < k->nparams; i++) words += 1 + (size_t)k->params[i].ndim;
    void **params = calloc(words, sizeof *params);
    int32_t *shapes = calloc(words, sizeof *shapes);
    if (!params || !shapes) return free(params), free(shapes), qdrt_fail(QDRT_E_MEMORY, "out of memory");
    qdrt_status st = gpu_run(m, k, a, s, fns, params, shapes);
    free(params), free(shapes);
    return st;
}

const Backend qdrt_cuda_backend = {"cuda", "ptx", cuda_open, gpu_close, gpu_alloc, gpu_release, gpu_write, gpu_read,
                                   gpu_load, gpu_unload, gpu_launch, NULL};
const Backend qdrt_hip_backend = {"hip", "amdgpu", hip_open, gpu_close, gpu_alloc, gpu_release, gpu_write, gpu_read,
                                  gpu_load, gpu_unload, gpu_launch, NULL};
