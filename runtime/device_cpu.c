/* libqdrt's CPU device: qdc's x86-64 object linked at load time into a shared object with
 * ld.lld-19 ($QDRT_LD overrides) and LLVM 19's builtins archive ($QDRT_BUILTINS), dlopen'd, its tasks run by qdrt_launch (qdrt.h). The object's
 * calls into libqdrt (qdrt_block_sync, ...) resolve against the program's own libqdrt, so the
 * program must export those symbols (-rdynamic; qdrt(3)). */
#include "qdrt.h"
#include "qdrt_backend.h"
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct CpuKernel {
    size_t size, align;
    size_t *offset; /* per parameter: its member (ndarray: the pointer; the shape follows) */
    qdrt_task *tasks;
    qdrt_loop *loops;
} CpuKernel;

static qdrt_status cpu_open(qdrt_device *d, const qdrt_vulkan_options *vk) {
    (void)vk;
    snprintf(d->name, sizeof d->name, "cpu (%d threads)", qdrt_default_threads());
    snprintf(d->target, sizeof d->target, "x86_64");
    return QDRT_OK;
}
static void cpu_close(qdrt_device *d) { (void)d; }

static qdrt_status cpu_alloc(qdrt_array *a) {
    a->host = calloc(1, a->bytes ? a->bytes : 1);
    return a->host ? QDRT_OK : qdrt_fail(QDRT_E_MEMORY, "out of memory for a %zu-byte array", a->bytes);
}
static void cpu_release(qdrt_array *a) { free(a->host), a->host = NULL; }
static qdrt_status cpu_write(qdrt_array *a, const void *src) { return memcpy(a->host, src, a->bytes), QDRT_OK; }
static qdrt_status cpu_read(const qdrt_array *a, void *dst) { return memcpy(dst, a->host, a->bytes), QDRT_OK; }

/* Links obj (size bytes) into a shared object in a private temporary directory and opens it. */
static qdrt_status link_and_open(const void *obj, size_t size, void **handle) {
    const char *tmp = getenv("TMPDIR");
    char dir[4096], o[4160], so[4160];
    snprintf(dir, sizeof dir, "%s/qdrt-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return qdrt_fail(QDRT_E_DEVICE, "cannot make a temporary directory in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
    snprintf(o, sizeof o, "%s/module.o", dir);
    snprintf(so, sizeof so, "%s/module.so", dir);
    qdrt_status st = QDRT_OK;
    FILE *f = fopen(o, "wb");
    if (!f || fwrite(obj, 1, size, f) != size) st = qdrt_fail(QDRT_E_DEVICE, "cannot write %s", o);
    if (f && fclose(f) && !st) st = qdrt_fail(QDRT_E_DEVICE, "cannot write %s", o);
    const char *ld = getenv("QDRT_LD") && *getenv("QDRT_LD") ? getenv("QDRT_LD") : "ld.lld-19";
    /* LLVM's builtins (f16/bf16 conversions such as __extendhfsf2, __truncsfbf2) linked in: the
     * program loading the module need not have them */
    const char *rt = getenv("QDRT_BUILTINS") && *getenv("QDRT_BUILTINS") ? getenv("QDRT_BUILTINS")
                                                                        : "/usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.builtins-x86_64.a";
    char *argv[] = {(char *)ld, "-shared", "-o", so, o, access(rt, R_OK) ? NULL : (char *)rt, NULL};
    pid_t pid;
    int status = 0, rc = st ? 0 : posix_spawnp(&pid, ld, NULL, NULL, argv, environ);
    if (!st && rc) st = qdrt_fail(QDRT_E_NO_DEVICE, "cannot run %s to link the CPU module: %s", ld, strerror(rc));
    else if (!st && (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)))
        st = qdrt_fail(QDRT_E_MODULE, "%s could not link the CPU module into a shared object (status %d)", ld, status);
    if (!st) {
        dlopen("libm.so.6", RTLD_NOW | RTLD_GLOBAL); /* the object's math calls */
        if (!(*handle = dlopen(so, RTLD_NOW | RTLD_LOCAL))) st = qdrt_fail(QDRT_E_MODULE, "cannot load the CPU module: %s", dlerror());
    }
    unlink(so), unlink(o), rmdir(dir);
    return st;
}

static qdrt_status cpu_kernel(qdrt_module *m, Kernel *k, void *h) {
    CpuKernel *c = calloc(1, sizeof *c);
    if (!c) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    k->impl = c;
    c->offset = calloc((size_t)k->nparams + 1, sizeof *c->offset);
    c->tasks = calloc((size_t)k->ntasks, sizeof *c->tasks);
    c->loops = calloc((size_t)k->nloops + 1, sizeof *c->loops);
    if (!c->offset || !c->tasks || !c->loops) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    size_t off = 0, align = 1; /* the C struct <kernel>_args (qdc-abi(7), KERNEL ARGUMENTS) */
    for (int i = 0; i < k->nparams; i++) {
        const Param *p = &k->params[i];
        size_t a = p->array ? sizeof(void *) : qdrt_dtype_size(p->dtype);
        off = (off + a - 1) / a * a;
        c->offset[i] = off;
        off += p->array ? sizeof(void *) + 4 * (size_t)p->ndim : a;
        if (a > align) align = a;
    }
    c->size = off ? (off + align - 1) / align * align : 1;
    c->align = align;
    for (int t = 0; t < k->ntasks; t++) {
        const Task *task = &k->tasks[t];
        qdrt_task *q = &c->tasks[t];
        char ext[512];
        q->fn = (qdrt_task_fn)dlsym(h, task->name);
        snprintf(ext, sizeof ext, "%s_extent", task->name);
        q->extent = task->kind == QDRT_SERIAL ? NULL : (qdrt_extent_fn)dlsym(h, ext);
        q->kind = task->kind, q->block_dim = task->block_dim, q->shared_bytes = (int32_t)task->shared_bytes;
        if (!q->fn || (task->kind != QDRT_SERIAL && !q->extent))
            return qdrt_fail(QDRT_E_MODULE, "the CPU module has no entry point %s", q->fn ? ext : task->name);
    }
    for (int l = 0; l < k->nloops; l++)
        c->loops[l] = (qdrt_loop){k->loops[l].first, k->loops[l].last, (int32_t)c->offset[k->loops[l].param]};
    (void)m;
    return QDRT_OK;
}

static void cpu_unload(qdrt_module *m) {
    for (int i = 0; i < m->nkernels; i++) {
        CpuKernel *c = m->kernels[i].impl;
        if (c) free(c->offset), free(c->tasks), free(c->loops), free(c);
        m->kernels[i].impl = NULL;
    }
    if (m->impl) dlclose(m->impl);
    m->impl = NULL;
}

static qdrt_status cpu_load(qdrt_module *m, const void *code, size_t size) {
    if (size < 4 || memcmp(code, "\177ELF", 4)) return qdrt_fail(QDRT_E_MODULE, "not an ELF object (a CPU module is qdc's .o)");
    if (!dlsym(RTLD_DEFAULT, "qdrt_block_sync"))
        return qdrt_fail(QDRT_E_UNSUPPORTED, "this program does not export libqdrt's symbols, which a CPU module calls: "
                                             "link it with -rdynamic (qdrt(3))");
    qdrt_status st = link_and_open(code, size, &m->impl);
    for (int i = 0; !st && i < m->nstorages; i++)
        if (!(m->storages[i].host = dlsym(m->impl, m->storages[i].symbol)))
            st = qdrt_fail(QDRT_E_MODULE, "the CPU module has no SNode storage symbol %s", m->storages[i].symbol);
    for (int i = 0; !st && i < m->nfields; i++) {
        Field *f = &m->fields[i];
        if (!(f->host = dlsym(m->impl, f->symbol ? f->symbol : f->name)))
            st = qdrt_fail(QDRT_E_MODULE, "the CPU module has no field symbol %s", f->symbol ? f->symbol : f->name);
    }
    for (int i = 0; !st && i < m->nkernels; i++) st = cpu_kernel(m, &m->kernels[i], m->impl);
    if (st) cpu_unload(m);
    return st;
}

static qdrt_status cpu_launch(qdrt_module *m, Kernel *k, qdrt_array *const *a, const uint64_t *s) {
    CpuKernel *c = k->impl;
    void *args = aligned_alloc(16, (c->size + 15) / 16 * 16);
    if (!args) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    memset(args, 0, c->size);
    for (int i = 0; i < k->nparams; i++) {
        char *at = (char *)args + c->offset[i];
        if (!a[i]) {
            memcpy(at, &s[i], qdrt_dtype_size(k->params[i].dtype)); /* little-endian: the low bytes */
            continue;
        }
        memcpy(at, &a[i]->host, sizeof(void *));
        for (int d = 0; d < a[i]->ndim; d++) {
            int32_t e = (int32_t)a[i]->shape[d];
            memcpy(at + sizeof(void *) + 4 * (size_t)d, &e, 4);
        }
    }
    double t0 = qdrt_now();
    int rc = k->nloops ? qdrt_launch_loops(c->tasks, k->ntasks, c->loops, k->nloops, args, 0) : qdrt_launch(c->tasks, k->ntasks, args, 0);
    m->dev->last_run_ms = (qdrt_now() - t0) * 1e3;
    free(args);
    return rc ? qdrt_fail(QDRT_E_MEMORY, "kernel %s: no threads or memory for the launch: %s", k->name, strerror(rc)) : QDRT_OK;
}

const Backend qdrt_cpu_backend = {"cpu", "x86_64", cpu_open, cpu_close, cpu_alloc, cpu_release, cpu_write, cpu_read,
                                  cpu_load, cpu_unload, cpu_launch, NULL};
