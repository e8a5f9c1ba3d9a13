/* qdc-cuda-launch: runs an example's PTX (qdc examples/<name>.qd --target=sm_XX) on an NVIDIA GPU
 * through the CUDA driver API and checks the results the x86 tests check.
 *   usage: qdc-cuda-launch EXAMPLE FILE.ptx [N]
 *   exit:  0 results match, 1 mismatch, 2 usage, 3 CUDA error, 77 no driver or GPU (skip)
 * libcuda is opened with dlopen, so the launcher builds with only the CUDA headers and reports
 * a missing driver as a skip instead of failing to start. Tasks <kernel>_t0, _t1, ... are
 * launched in order; the block size is the entry's .reqntid/.maxntid. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_MISMATCH 1
#define EXIT_USAGE 2
#define EXIT_CUDA 3
#define EXIT_SKIP 77

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
           SYM(ErrorString, "cuGetErrorString");
#undef SYM
}

static void check_cu(CUresult r, const char *what) {
    if (r == CUDA_SUCCESS) return;
    const char *s = "?";
    if (cu.ErrorString) cu.ErrorString(r, &s);
    fprintf(stderr, "qdc-cuda-launch: %s failed: %s (%d)\n", what, s, (int)r);
    exit(EXIT_CUDA);
}

/* ---- kernel arguments: the flattened qdc GPU ABI (ndarray -> pointer, i32 extent) ---- */
typedef struct {
    void *host;
    size_t elem, n;
    CUdeviceptr dev;
    int32_t extent;
} Buf;

typedef struct {
    Buf bufs[8];
    int nbufs;
    int32_t scalar; /* compaction's threshold (passed after the arrays when has_scalar) */
    int has_scalar;
    int grid_items; /* work items the widest task needs */
} Args;

static Buf *buf(Args *a, size_t elem, size_t n) {
    Buf *b = &a->bufs[a->nbufs++];
    b->host = calloc(n ? n : 1, elem);
    b->elem = elem, b->n = n, b->extent = (int32_t)n;
    return b;
}

#define I32(b) ((int32_t *)(b)->host)
#define U32(b) ((uint32_t *)(b)->host)
#define F32(b) ((float *)(b)->host)

/* ---- examples: inputs and the checks of the x86 tests ---- */
static uint32_t rng = 12345;
static uint32_t next(void) { return rng = rng * 1664525u + 1013904223u; }

static int fail(const char *what, long i, double got, double want) {
    fprintf(stderr, "qdc-cuda-launch: %s[%ld] = %g, expected %g\n", what, i, got, want);
    return 0;
}

static void histogram_setup(Args *a, int n) {
    Buf *d = buf(a, 4, (size_t)n);
    buf(a, 4, 256);
    for (int i = 0; i < n; i++) I32(d)[i] = (int32_t)next();
    a->grid_items = (n + 255) / 256 * 256;
}
static int histogram_check(Args *a, int n) {
    int want[256] = {0};
    for (int i = 0; i < n; i++) want[I32(&a->bufs[0])[i] & 255]++;
    for (int b = 0; b < 256; b++)
        if (I32(&a->bufs[1])[b] != want[b]) return fail("bins", b, I32(&a->bufs[1])[b], want[b]);
    return 1;
}

static void float_sum_setup(Args *a, int n) {
    Buf *x = buf(a, 4, (size_t)n);
    buf(a, 4, 2);
    for (int i = 0; i < n; i++) F32(x)[i] = (float)((int)(next() % 65) - 32) * 0.25f;
    a->grid_items = n;
}
static int float_sum_check(Args *a, int n) {
    double s = 0, q = 0;
    for (int i = 0; i < n; i++) s += F32(&a->bufs[0])[i], q += (double)F32(&a->bufs[0])[i] * F32(&a->bufs[0])[i];
    if (F32(&a->bufs[1])[0] != (float)s) return fail("out", 0, F32(&a->bufs[1])[0], s);
    if (F32(&a->bufs[1])[1] != (float)q) return fail("out", 1, F32(&a->bufs[1])[1], q);
    return 1;
}

static void bitflags_setup(Args *a, int n) {
    Buf *k = buf(a, 4, (size_t)n);
    buf(a, 4, 8);
    buf(a, 4, 2);
    for (int i = 0; i < n; i++) U32(k)[i] = next() | 0x00010001u;
    a->grid_items = n;
}
static int bitflags_check(Args *a, int n) {
    uint32_t want[8] = {0}, x = 0, y = ~0u;
    for (int i = 0; i < n; i++) {
        uint32_t k = U32(&a->bufs[0])[i];
        want[(k >> 5) % 8] |= 1u << (k & 31), x ^= k, y &= k;
    }
    for (int w = 0; w < 8; w++)
        if (U32(&a->bufs[1])[w] != want[w]) return fail("present", w, U32(&a->bufs[1])[w], want[w]);
    if (U32(&a->bufs[2])[0] != x) return fail("acc", 0, U32(&a->bufs[2])[0], x);
    if (U32(&a->bufs[2])[1] != y) return fail("acc", 1, U32(&a->bufs[2])[1], y);
    return 1;
}

static void cas_max_setup(Args *a, int n) {
    Buf *c = buf(a, 4, (size_t)n);
    buf(a, 4, 1);
    for (int i = 0; i < n; i++) I32(c)[i] = (int32_t)(next() % 2000001u) - 1000000;
    a->grid_items = n;
}
static int cas_max_check(Args *a, int n) {
    int32_t want = 0;
    for (int i = 0; i < n; i++) {
        int32_t v = abs(I32(&a->bufs[0])[i]);
        if (v > want) want = v;
    }
    return I32(&a->bufs[1])[0] == want ? 1 : fail("best", 0, I32(&a->bufs[1])[0], want);
}

static void compaction_setup(Args *a, int n) {
    Buf *s = buf(a, 4, (size_t)n);
    buf(a, 4, (size_t)n), buf(a, 4, (size_t)n), buf(a, 4, 1);
    for (int i = 0; i < n; i++) I32(s)[i] = (int32_t)(next() % 1000u);
    a->scalar = 500, a->has_scalar = 1, a->grid_items = n;
}
static int compaction_check(Args *a, int n) {
    int32_t *src = I32(&a->bufs[0]), *val = I32(&a->bufs[1]), *idx = I32(&a->bufs[2]);
    int want = 0;
    char *seen = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) want += src[i] > a->scalar;
    int ok = I32(&a->bufs[3])[0] == want || fail("n_out", 0, I32(&a->bufs[3])[0], want);
    for (int k = 0; ok && k < want; k++) {
        int i = idx[k];
        if (i < 0 || i >= n || seen[i] || src[i] <= a->scalar || val[k] != src[i]) ok = fail("dst_idx", k, i, -1);
        else seen[i] = 1;
    }
    free(seen);
    return ok;
}

static void last_block_setup(Args *a, int n) {
    buf(a, 4, (size_t)n);
    a->grid_items = n;
}
static int last_block_check(Args *a, int n) {
    for (int i = 0; i < n; i++)
        if (I32(&a->bufs[0])[i] != i + 1) return fail("a", i, I32(&a->bufs[0])[i], i + 1);
    return 1;
}

static void spin_chain_setup(Args *a, int n) {
    Buf *x = buf(a, 4, (size_t)n);
    buf(a, 4, (size_t)n), buf(a, 4, (size_t)n);
    for (int i = 0; i < n; i++) I32(x)[i] = (int32_t)(next() % 100u);
    a->grid_items = n;
}
static int spin_chain_check(Args *a, int n) {
    int32_t acc = 0;
    for (int t = 0; t < n; t++) {
        acc += I32(&a->bufs[0])[t];
        if (I32(&a->bufs[1])[t] != acc) return fail("out", t, I32(&a->bufs[1])[t], acc);
    }
    return 1;
}

typedef struct {
    const char *name, *kernel;
    void (*setup)(Args *, int);
    int (*check)(Args *, int);
} Example;

static const Example examples[] = {
    {"histogram", "histogram", histogram_setup, histogram_check},
    {"shared_histogram", "shared_histogram", histogram_setup, histogram_check},
    {"float_sum", "float_sum", float_sum_setup, float_sum_check},
    {"bitflags", "bitflags", bitflags_setup, bitflags_check},
    {"cas_max", "cas_max", cas_max_setup, cas_max_check},
    {"compaction", "compact", compaction_setup, compaction_check},
    {"last_block", "last_block", last_block_setup, last_block_check},
    {"spin_chain", "spin_chain", spin_chain_setup, spin_chain_check},
};

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

static void run_tasks(const char *ptx, const Example *ex, Args *a) {
    CUmodule mod;
    check_cu(cu.ModuleLoadData(&mod, ptx), "cuModuleLoadData");
    void *params[20];
    int np = 0;
    for (int i = 0; i < a->nbufs; i++) params[np++] = &a->bufs[i].dev, params[np++] = &a->bufs[i].extent;
    if (a->has_scalar) params[np++] = &a->scalar;
    for (int t = 0;; t++) {
        char name[128];
        snprintf(name, sizeof name, "%s_t%d", ex->kernel, t);
        CUfunction fn;
        if (cu.ModuleGetFunction(&fn, mod, name) != CUDA_SUCCESS) {
            if (t == 0) fprintf(stderr, "qdc-cuda-launch: no entry %s in the PTX\n", name), exit(EXIT_USAGE);
            break;
        }
        unsigned bs = block_size(ptx, name);
        unsigned grid = (unsigned)((a->grid_items + (int)bs - 1) / (int)bs);
        check_cu(cu.Launch(fn, grid ? grid : 1, 1, 1, bs, 1, 1, 0, NULL, params, NULL), name);
        check_cu(cu.Sync(), "cuCtxSynchronize");
    }
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: qdc-cuda-launch EXAMPLE FILE.ptx [N]\n");
        return EXIT_USAGE;
    }
    const Example *ex = NULL;
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
        if (!strcmp(examples[i].name, argv[1])) ex = &examples[i];
    int n = argc == 4 ? atoi(argv[3]) : 1000;
    char *ptx = read_file(argv[2]);
    if (!ex || !ptx || n < 1) {
        fprintf(stderr, "qdc-cuda-launch: %s\n", !ex ? "unknown example" : !ptx ? "cannot read the PTX file" : "bad N");
        return EXIT_USAGE;
    }
    int count = 0;
    CUdevice dev;
    CUcontext ctx;
    if (!load_driver() || cu.Init(0) != CUDA_SUCCESS || cu.DeviceGetCount(&count) != CUDA_SUCCESS || count < 1) {
        printf("qdc-cuda-launch: SKIP %s: no CUDA driver or GPU\n", ex->name);
        return EXIT_SKIP;
    }
    check_cu(cu.DeviceGet(&dev, 0), "cuDeviceGet");
    check_cu(cu.PrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check_cu(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent");
    Args a = {0};
    ex->setup(&a, n);
    for (int i = 0; i < a.nbufs; i++) {
        check_cu(cu.MemAlloc(&a.bufs[i].dev, a.bufs[i].elem * (a.bufs[i].n ? a.bufs[i].n : 1)), "cuMemAlloc");
        check_cu(cu.HtoD(a.bufs[i].dev, a.bufs[i].host, a.bufs[i].elem * a.bufs[i].n), "cuMemcpyHtoD");
    }
    run_tasks(ptx, ex, &a);
    for (int i = 0; i < a.nbufs; i++) check_cu(cu.DtoH(a.bufs[i].host, a.bufs[i].dev, a.bufs[i].elem * a.bufs[i].n), "cuMemcpyDtoH");
    int ok = ex->check(&a, n);
    printf("qdc-cuda-launch: %s n=%d %s\n", ex->name, n, ok ? "PASS" : "FAIL");
    for (int i = 0; i < a.nbufs; i++) cu.MemFree(a.bufs[i].dev), free(a.bufs[i].host);
    free(ptx);
    return ok ? 0 : EXIT_MISMATCH;
}
