/* qdc-cuda-launch: runs qdc's PTX on an NVIDIA GPU through the CUDA driver API and checks the
 * results exactly, with the inputs and checks the Vulkan and x86 execution tests use
 * (tests/unit/exec_spec.c, compiled in).
 *   qdc-cuda-launch EXAMPLE FILE.ptx [N [few]]   one example (examples/EXAMPLE.qd) at size N
 *                                                (few: 3 blocks, so the grid-stride loops turn)
 *   qdc-cuda-launch --matrix DTYPE SPACE FILE.ptx N   every kernel of the atomics matrix file
 *                                                (--emit-matrix writes them), history-checked
 *   qdc-cuda-launch --emit-matrix DIR            write the matrix files x_<dtype>_<space>.qd
 *   qdc-cuda-launch --info                       print "NAME|sm_XY" of GPU 0
 *   exit:  0 results match, 1 mismatch, 2 usage, 3 CUDA error, 77 no driver or GPU (skip)
 * libcuda is opened with dlopen and the few driver types are declared here, so the launcher
 * builds with a C compiler alone (no CUDA toolkit) and reports a missing driver as a skip.
 * Tasks <kernel>_t0, _t1, ... are launched in order; the block size is the entry's
 * .reqntid/.maxntid. Build: make -C tools/cuda-launcher, or `make gpu-check`. */
#include "../../tests/unit/exec_spec.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_MISMATCH 1
#define EXIT_USAGE 2
#define EXIT_CUDA 3
#define EXIT_SKIP 77

/* The CUDA driver API's types and constants the launcher uses (cuda.h, ABI-stable since CUDA 4). */
typedef int CUresult, CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
#define CUDA_SUCCESS 0
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* ---- the driver entry points we use, resolved with dlsym ---- */
static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*HtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*DtoH)(void *, CUdeviceptr, size_t);
    CUresult (*Launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       CUstream, void **, void **);
    CUresult (*Sync)(void);
    CUresult (*ErrorString)(CUresult, const char **);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
} cu;

static int load_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) return 0;
#define SYM(f, n) (*(void **)&cu.f = dlsym(h, n)) != NULL
    return SYM(Init, "cuInit") && SYM(DeviceGetCount, "cuDeviceGetCount") && SYM(DeviceGet, "cuDeviceGet") &&
           SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain") && SYM(CtxSetCurrent, "cuCtxSetCurrent") &&
           SYM(ModuleLoadData, "cuModuleLoadData") && SYM(ModuleGetFunction, "cuModuleGetFunction") &&
           SYM(MemAlloc, "cuMemAlloc_v2") && SYM(MemFree, "cuMemFree_v2") && SYM(HtoD, "cuMemcpyHtoD_v2") &&
           SYM(DtoH, "cuMemcpyDtoH_v2") && SYM(Launch, "cuLaunchKernel") && SYM(Sync, "cuCtxSynchronize") &&
           SYM(ErrorString, "cuGetErrorString") && SYM(DeviceGetName, "cuDeviceGetName") &&
           SYM(DeviceGetAttribute, "cuDeviceGetAttribute");
#undef SYM
}

static void check_cu(CUresult r, const char *what) {
    if (r == CUDA_SUCCESS) return;
    const char *s = "?";
    if (cu.ErrorString) cu.ErrorString(r, &s);
    fprintf(stderr, "qdc-cuda-launch: %s failed: %s (%d)\n", what, s, (int)r);
    exit(EXIT_CUDA);
}

/* ---- PTX reading and launching ---- */
static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    s[n] = 0;
    fclose(f);
    return s;
}

/* The entry's block size: .reqntid or .maxntid between ".entry name(" and its body. */
static unsigned block_size(const char *ptx, const char *entry) {
    char pat[256];
    snprintf(pat, sizeof pat, ".entry %s(", entry);
    const char *p = strstr(ptx, pat);
    const char *body = p ? strchr(p, '{') : NULL;
    for (const char *k = p; k && k < body; k++)
        if (!strncmp(k, ".reqntid ", 9) || !strncmp(k, ".maxntid ", 9)) return (unsigned)atoi(k + 9);
    return 128;
}

/* One argument list: device buffers (pointer + i32 extent each), an optional i32 scalar placed
 * first (the matrix's n) or last (compaction's threshold). */
typedef struct {
    CUdeviceptr dev[8];
    int32_t extent[8];
    int nbufs, has_scalar, scalar_first;
    int32_t scalar;
} Launch;

/* Runs <kernel>_t0, _t1, ... in order; the grid covers `items` (3 blocks when few). */
static void run_tasks(CUmodule mod, const char *ptx, const char *kernel, Launch *l, int items, int few) {
    void *params[20];
    int np = 0;
    if (l->has_scalar && l->scalar_first) params[np++] = &l->scalar;
    for (int i = 0; i < l->nbufs; i++) params[np++] = &l->dev[i], params[np++] = &l->extent[i];
    if (l->has_scalar && !l->scalar_first) params[np++] = &l->scalar;
    for (int t = 0;; t++) {
        char name[128];
        snprintf(name, sizeof name, "%s_t%d", kernel, t);
        CUfunction fn;
        if (cu.ModuleGetFunction(&fn, mod, name) != CUDA_SUCCESS) {
            if (t == 0) fprintf(stderr, "qdc-cuda-launch: no entry %s in the PTX\n", name), exit(EXIT_USAGE);
            break;
        }
        unsigned bs = block_size(ptx, name);
        unsigned grid = (unsigned)((items + (int)bs - 1) / (int)bs);
        if (few && grid > 3) grid = 3;
        check_cu(cu.Launch(fn, grid ? grid : 1, 1, 1, bs, 1, 1, 0, NULL, params, NULL), name);
        check_cu(cu.Sync(), "cuCtxSynchronize");
    }
}

static CUdeviceptr upload(const void *host, size_t bytes) {
    CUdeviceptr d;
    check_cu(cu.MemAlloc(&d, bytes ? bytes : 4), "cuMemAlloc");
    if (bytes) check_cu(cu.HtoD(d, host, bytes), "cuMemcpyHtoD");
    return d;
}

static int run_example(const char *ptx, const Example *ex, int n, int few) {
    CUmodule mod;
    check_cu(cu.ModuleLoadData(&mod, ptx), "cuModuleLoadData");
    ExArgs a = {0};
    ex->setup(&a, n);
    Launch l = {.nbufs = a.nbufs, .has_scalar = a.has_scalar, .scalar = a.scalar};
    for (int i = 0; i < a.nbufs; i++) l.dev[i] = upload(a.bufs[i].host, a.bufs[i].elem * a.bufs[i].n), l.extent[i] = a.bufs[i].extent;
    run_tasks(mod, ptx, ex->kernel, &l, a.grid_items, few && !ex->full_grid_only);
    for (int i = 0; i < a.nbufs; i++) {
        if (a.bufs[i].n) check_cu(cu.DtoH(a.bufs[i].host, l.dev[i], a.bufs[i].elem * a.bufs[i].n), "cuMemcpyDtoH");
        cu.MemFree(l.dev[i]);
    }
    int ok = ex->check(&a, n);
    printf("qdc-cuda-launch: %s n=%d %s: %s%s%s\n", ex->name, n, few && !ex->full_grid_only ? "3 blocks" : "full grid",
           ok ? "PASS" : "FAIL (", ok ? "" : a.why, ok ? "" : ")");
    exec_args_free(&a);
    return ok;
}

static int run_matrix(const char *ptx, int dt, int space, int n) {
    CUmodule mod;
    check_cu(cu.ModuleLoadData(&mod, ptx), "cuModuleLoadData");
    XFile f;
    xfile_init(&f, dt, space);
    int bad = 0;
    for (int few = 0; few < (space == XS_SHARED ? 1 : 2); few++) {
        XData d;
        xdata_init(&d, &f, n, 777u + (unsigned)few);
        Launch l = {.nbufs = 4, .has_scalar = 1, .scalar_first = 1, .scalar = n};
        void *host[4] = {d.v, d.w, d.tgt, d.old};
        char which[4] = {'v', 'v', 't', 'o'};
        for (int i = 0; i < 4; i++)
            l.dev[i] = upload(host[i], xdata_bytes(&d, which[i])), l.extent[i] = (int32_t)(xdata_bytes(&d, which[i]) / (size_t)d.esize);
        for (int k = 0; k < f.nkernels; k++) {
            char *name = xkernel_name(&f, k);
            run_tasks(mod, ptx, name, &l, n, few);
            free(name);
        }
        check_cu(cu.DtoH(d.tgt, l.dev[2], xdata_bytes(&d, 't')), "cuMemcpyDtoH");
        check_cu(cu.DtoH(d.old, l.dev[3], xdata_bytes(&d, 'o')), "cuMemcpyDtoH");
        for (int i = 0; i < 4; i++) cu.MemFree(l.dev[i]);
        char why[512];
        int fails = 0;
        for (int k = 0; k < f.nkernels; k++)
            if (!xcheck(&f, &d, k, why, sizeof why)) {
                if (!fails++) printf("qdc-cuda-launch: FAIL %s\n", why);
            }
        printf("qdc-cuda-launch: matrix %s %s n=%d %s: %d kernels, %d %s\n", xdtype_name[dt], xspace_name[space], n,
               few ? "3 blocks" : "full grid", f.nkernels, fails, fails ? "FAIL" : "failures, PASS");
        bad += fails;
        xdata_free(&d);
    }
    return bad == 0;
}

static int start_gpu(void) {
    int count = 0;
    CUdevice dev;
    CUcontext ctx;
    if (!load_driver() || cu.Init(0) != CUDA_SUCCESS || cu.DeviceGetCount(&count) != CUDA_SUCCESS || count < 1) {
        printf("qdc-cuda-launch: SKIP: no CUDA driver or GPU\n");
        exit(EXIT_SKIP);
    }
    check_cu(cu.DeviceGet(&dev, 0), "cuDeviceGet");
    check_cu(cu.PrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check_cu(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent");
    return dev;
}

static int index_of(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--emit-matrix")) {
        for (int dt = 0; dt < XD_COUNT; dt++)
            for (int sp = 0; sp < XS_COUNT; sp++) {
                XFile f;
                xfile_init(&f, dt, sp);
                char path[4096], *src = xfile_source(&f);
                snprintf(path, sizeof path, "%s/x_%s_%s.qd", argv[2], xdtype_name[dt], xspace_name[sp]);
                FILE *o = fopen(path, "w");
                if (!o || fputs(src, o) < 0 || fclose(o)) return fprintf(stderr, "qdc-cuda-launch: cannot write %s\n", path), EXIT_USAGE;
                free(src);
            }
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--info")) {
        int dev = start_gpu(), major = 0, minor = 0;
        char name[256] = "?";
        check_cu(cu.DeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
        check_cu(cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute");
        check_cu(cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute");
        printf("%s|sm_%d%d\n", name, major, minor);
        return 0;
    }
    if (argc == 6 && !strcmp(argv[1], "--matrix")) {
        int dt = index_of(xdtype_name, XD_COUNT, argv[2]), sp = index_of(xspace_name, XS_COUNT, argv[3]), n = atoi(argv[5]);
        char *ptx = read_file(argv[4]);
        if (dt < 0 || sp < 0 || !ptx || n < 1 || (sp == XS_SHARED && n % XSHARED_BLOCK)) {
            fprintf(stderr, "qdc-cuda-launch: --matrix DTYPE SPACE FILE.ptx N (shared: N a multiple of %d)\n", XSHARED_BLOCK);
            return EXIT_USAGE;
        }
        start_gpu();
        int ok = run_matrix(ptx, dt, sp, n);
        free(ptx);
        return ok ? 0 : EXIT_MISMATCH;
    }
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: qdc-cuda-launch EXAMPLE FILE.ptx [N [few]] | --matrix DTYPE SPACE FILE.ptx N |"
                        " --emit-matrix DIR | --info\n");
        return EXIT_USAGE;
    }
    const Example *ex = exec_example(argv[1]);
    int n = argc >= 4 ? atoi(argv[3]) : 1000, few = argc == 5 && !strcmp(argv[4], "few");
    char *ptx = read_file(argv[2]);
    if (!ex || !ptx || n < 1) {
        fprintf(stderr, "qdc-cuda-launch: %s\n", !ex ? "unknown example" : !ptx ? "cannot read the PTX file" : "bad N");
        return EXIT_USAGE;
    }
    start_gpu();
    int ok = run_example(ptx, ex, n, few);
    free(ptx);
    return ok ? 0 : EXIT_MISMATCH;
}
