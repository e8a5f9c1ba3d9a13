/* A stand-in for the NVIDIA and AMD driver libraries (libcuda.so.1, libamdhip64.so) for the
 * suite, which has no GPU: the entry points libqdrt's CUDA and HIP devices call, on host memory.
 * It runs no kernel; it logs, one line each to $FAKE_GPU_LOG, every module load, entry-point
 * lookup (checked against the module: PTX ".entry NAME(", or NAME in an HSA code object) and
 * launch with its grid, block and (PTX) parameters, read with the sizes the entry's .param
 * declarations give; a parameter that is a pointer libqdrt allocated is logged as buf<k>
 * (k-th allocation); a PTX module's globals (fields) are allocated when asked for. Built by tests/unit/test_qdrt.c (qdrt/cuda_hip_without_a_gpu). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fn Fn;
typedef struct Mod { char *image; size_t size; int ptx; Fn *fns; void *globals[64]; int nglobals; } Mod;
struct Fn { Mod *mod; char name[128]; Fn *next; }; /* the module's, freed with it, as a driver's */

static uint64_t allocs[256];
static int nallocs;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void say(const char *fmt, ...) {
    const char *path = getenv("FAKE_GPU_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

static int init(unsigned flags) { return (int)flags; }
static int count(int *n) { return *n = 1, 0; }
static int get(int *d, int i) { return *d = i, 0; }
static int name(char *s, int n, int d) { return snprintf(s, (size_t)n, "Fake GPU %d", d), 0; }

static int load(void **out, const void *image) {
    Mod *m = calloc(1, sizeof *m);
    const unsigned char *p = image;
    m->ptx = memcmp(p, "\177ELF", 4) != 0;
    m->size = m->ptx ? strlen(image) : 1 << 20; /* an ELF's size is not passed: the driver reads its headers */
    if (!m->ptx) { /* the ELF's section headers end it */
        uint64_t shoff;
        uint16_t shentsize, shnum;
        memcpy(&shoff, p + 0x28, 8), memcpy(&shentsize, p + 0x3a, 2), memcpy(&shnum, p + 0x3c, 2);
        m->size = shoff + (size_t)shentsize * shnum;
    }
    m->image = malloc(m->size + 1);
    memcpy(m->image, image, m->size);
    m->image[m->size] = 0;
    say("load %s", m->ptx ? "ptx" : "elf");
    *out = m;
    return 0;
}

static int func(void **out, void *mod, const char *fname) {
    Mod *m = mod;
    char pat[160];
    snprintf(pat, sizeof pat, m->ptx ? ".entry %s(" : "%s", fname);
    if (!memmem(m->image, m->size, pat, strlen(pat) + (m->ptx ? 0 : 1))) return say("no entry %s", fname), 500;
    Fn *f = calloc(1, sizeof *f);
    f->mod = m, f->next = m->fns, m->fns = f;
    snprintf(f->name, sizeof f->name, "%s", fname);
    *out = f;
    return 0;
}

static int alloc(uint64_t *p, size_t n) {
    *p = (uint64_t)(uintptr_t)calloc(1, n);
    if (nallocs < 256) allocs[nallocs++] = *p;
    say("alloc %zu", n);
    return 0;
}
static int release(uint64_t p) { return free((void *)(uintptr_t)p), 0; }
static int htod(uint64_t d, const void *s, size_t n) { return memcpy((void *)(uintptr_t)d, s, n), 0; }
static int dtoh(void *d, uint64_t s, size_t n) { return memcpy(d, (const void *)(uintptr_t)s, n), 0; }
static int set8(uint64_t d, unsigned char v, size_t n) { return memset((void *)(uintptr_t)d, v, n), 0; }
static int sync0(void) { return 0; }
/* A PTX global ".global .align A .TYPE NAME;" or "... .b8 NAME[N];", allocated on first use. */
static int global(uint64_t *p, size_t *n, void *mod, const char *sym) {
    Mod *m = mod;
    for (const char *g = m->ptx ? strstr(m->image, ".global .align ") : NULL; g; g = strstr(g + 1, ".global .align ")) {
        const char *t = strchr(g + 15, '.'), *name = t ? strchr(t, ' ') : NULL;
        if (!name || strncmp(name + 1, sym, strlen(sym)) || (name[1 + strlen(sym)] != ';' && name[1 + strlen(sym)] != '[')) continue;
        size_t elem = t[2] == '8' ? 1 : !strncmp(t + 2, "16", 2) ? 2 : !strncmp(t + 2, "32", 2) ? 4 : 8, count = 1;
        if (name[1 + strlen(sym)] == '[') count = strtoul(name + 2 + strlen(sym), NULL, 10);
        *n = elem * count;
        if (m->nglobals == 64) return 1;
        *p = (uint64_t)(uintptr_t)(m->globals[m->nglobals++] = calloc(1, *n));
        if (nallocs < 256) allocs[nallocs++] = *p;
        say("global %s %zu", sym, *n);
        return 0;
    }
    return say("no global %s", sym), 500;
}
static int unload(void *mod) {
    Mod *m = mod;
    for (Fn *f = m->fns, *next; f; f = next) next = f->next, free(f);
    for (int i = 0; i < m->nglobals; i++) free(m->globals[i]);
    return free(m->image), free(m), 0;
}

/* The entry's parameters: their sizes from ".param .TYPE" between its "(" and ")". */
static void params_text(const Fn *f, void **params, char *out, size_t n) {
    out[0] = 0;
    if (!f->mod->ptx || !params) return;
    char pat[160];
    snprintf(pat, sizeof pat, ".entry %s(", f->name);
    const char *p = strstr(f->mod->image, pat) + strlen(pat), *end = strchr(p, ')');
    for (int i = 0; p && (p = strstr(p, ".param .")) && p < end; i++, p++) {
        const char *t = p + 8;
        int bytes = t[1] == '8' ? 1 : !strncmp(t + 1, "16", 2) ? 2 : !strncmp(t + 1, "32", 2) ? 4 : 8;
        uint64_t v = 0;
        memcpy(&v, params[i], (size_t)bytes);
        int k = -1;
        for (int a = 0; bytes == 8 && a < nallocs; a++)
            if (allocs[a] == v) k = a;
        size_t len = strlen(out);
        if (k >= 0) snprintf(out + len, n - len, "%sbuf%d", i ? "," : "", k);
        else snprintf(out + len, n - len, "%s%lld", i ? "," : "", bytes == 4 ? (long long)(int32_t)v : (long long)v);
    }
}

static int launch(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem, void *stream,
                  void **params, void **extra) {
    (void)stream, (void)extra;
    Fn *f = fn;
    char text[512];
    params_text(f, params, text, sizeof text);
    say("launch %s grid=%u,%u,%u block=%u,%u,%u shared=%u (%s)", f->name, gx, gy, gz, bx, by, bz, shmem, text);
    return 0;
}

/* CUDA */
int cuInit(unsigned f) { return init(f); }
int cuDeviceGetCount(int *n) { return count(n); }
int cuDeviceGet(int *d, int i) { return get(d, i); }
int cuDeviceGetName(char *s, int n, int d) { return name(s, n, d); }
int cuDeviceGetAttribute(int *v, int attr, int d) { return (void)d, *v = attr == 75 ? 8 : attr == 76 ? 6 : 0, 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { return (void)d, *c = (void *)1, 0; }
int cuDevicePrimaryCtxRelease_v2(int d) { return (void)d, 0; }
int cuCtxSetCurrent(void *c) { return (void)c, 0; }
int cuModuleLoadData(void **m, const void *i) { return load(m, i); }
int cuModuleGetFunction(void **f, void *m, const char *n) { return func(f, m, n); }
int cuModuleGetGlobal_v2(uint64_t *p, size_t *n, void *m, const char *s) { return global(p, n, m, s); }
int cuModuleUnload(void *m) { return unload(m); }
int cuMemAlloc_v2(uint64_t *p, size_t n) { return alloc(p, n); }
int cuMemFree_v2(uint64_t p) { return release(p); }
int cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { return htod(d, s, n); }
int cuMemcpyDtoH_v2(void *d, uint64_t s, size_t n) { return dtoh(d, s, n); }
int cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) { return set8(d, v, n); }
int cuCtxSynchronize(void) { return sync0(); }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sh, void *st, void **p,
                   void **e) {
    return launch(f, gx, gy, gz, bx, by, bz, sh, st, p, e);
}

/* HIP */
int hipInit(unsigned f) { return init(f); }
int hipGetDeviceCount(int *n) { return count(n); }
int hipDeviceGet(int *d, int i) { return get(d, i); }
int hipDeviceGetName(char *s, int n, int d) { return name(s, n, d); }
int hipSetDevice(int d) { return (void)d, 0; }
int hipModuleLoadData(void **m, const void *i) { return load(m, i); }
int hipModuleGetFunction(void **f, void *m, const char *n) { return func(f, m, n); }
int hipModuleGetGlobal(uint64_t *p, size_t *n, void *m, const char *s) { return global(p, n, m, s); }
int hipModuleUnload(void *m) { return unload(m); }
int hipMalloc(uint64_t *p, size_t n) { return alloc(p, n); }
int hipFree(uint64_t p) { return release(p); }
int hipMemcpyHtoD(uint64_t d, const void *s, size_t n) { return htod(d, s, n); }
int hipMemcpyDtoH(void *d, uint64_t s, size_t n) { return dtoh(d, s, n); }
int hipMemsetD8(uint64_t d, unsigned char v, size_t n) { return set8(d, v, n); }
int hipDeviceSynchronize(void) { return sync0(); }
int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sh, void *st,
                          void **p, void **e) {
    return launch(f, gx, gy, gz, bx, by, bz, sh, st, p, e);
}
