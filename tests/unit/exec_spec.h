/* What the execution tests run and how they judge it, shared by the Vulkan tests
 * (test_exec_vulkan.c), the x86 tests (test_exec_x86.c) and the CUDA launcher
 * (tools/cuda-launcher, `make gpu-check`). Plain C17 and libc only: no Criterion, no qdc code.
 *
 *  - Examples: for each examples/<name>.qd, the host buffers (one per ndarray parameter, in
 *    order), their inputs for a size n, and the exact check of the results.
 *  - The atomics matrix: every atomic op x dtype x memory order x memory space (global ndarray
 *    element, block SharedArray element, module field element: copied in from tgt by a first
 *    task and back by a last one), each kernel using the returned old value. One .qd file
 *    per (dtype, space) holds one kernel per (op, order); the check is the exact sequential-history
 *    test: for every target, the old values returned and the final value must form one valid
 *    serial history starting from the initial value (an Eulerian trail over the values). */
#ifndef QDC_EXEC_SPEC_H
#define QDC_EXEC_SPEC_H
#include <stddef.h>
#include <stdint.h>

/* ---- examples ---- */
typedef struct {
    void *host;
    size_t elem, n;
    int32_t extent;
} ExBuf;

typedef struct {
    ExBuf bufs[8];
    int nbufs;
    int32_t scalar;  /* compaction's threshold */
    int has_scalar;
    int grid_items;  /* work items the widest parallel task needs */
    char why[256];   /* the first mismatch, for the failure message */
} ExArgs;

typedef struct {
    const char *name, *kernel;
    void (*setup)(ExArgs *, int n);
    int (*check)(ExArgs *, int n); /* 1 when exact; 0 with a->why set */
    int full_grid_only;            /* block.sync / SharedArray: every group must be a full block */
} Example;

extern const Example exec_examples[];
extern const int exec_nexamples;
const Example *exec_example(const char *name);
void exec_args_free(ExArgs *a);

/* ---- the atomics matrix ---- */
enum { XD_I32, XD_U32, XD_I64, XD_U64, XD_F32, XD_F64, XD_COUNT };
enum { XS_GLOBAL, XS_SHARED, XS_FIELD, XS_COUNT };
/* XO_LOADSTORE: half the elements atomic_store v, the other half atomic_load into old, for
 * every (load order, store order) pair; the check: each load returns the initial value or a
 * value stored to that target, bit for bit, and the final value is one of the stored ones. */
enum { XO_ADD, XO_SUB, XO_MUL, XO_MIN, XO_MAX, XO_AND, XO_OR, XO_XOR, XO_EXCHANGE, XO_INC, XO_DEC, XO_CAS, XO_LOADSTORE, XO_COUNT };
#define XORDERS 5
#define XLS_PAIRS 9       /* load order (relaxed, acquire, seq_cst) x store order (relaxed, release, seq_cst) */
#define XMAXK (XO_COUNT * XLS_PAIRS)
#define XTARGETS 5       /* global kernels: targets per kernel (element i uses target i % 5) */
#define XSHARED_BLOCK 128 /* shared kernels: block size; 4 SharedArray targets per block */
#define XSHARED_SLOTS 4

extern const char *const xdtype_name[XD_COUNT]; /* "i32", ... */
extern const char *const xspace_name[XS_COUNT]; /* "global", "shared", "field" */
extern const char *const xop_name[XO_COUNT];     /* "add", ... */
extern const char *const xorder_name[XORDERS];   /* "relaxed", ... */
int xdtype_size(int dt);
int xop_valid(int dt, int op); /* and/or/xor/inc/dec/cas are integer-only */

/* One (dtype, space) file: its kernels in order, named <g|s>_<op>_<order> (load/store:
 * <g|s>_ls_<load order>_<store order>). Float min/max operands include NaNs (minNum/maxNum: a
 * NaN operand loses); load/store values include NaN payloads, -0.0 and infinities. */
typedef struct {
    int dt, space, nkernels;
    int op[XMAXK], order[XMAXK]; /* order: index into xorder_name, or the pair for XO_LOADSTORE */
} XFile;
void xfile_init(XFile *f, int dt, int space);
char *xfile_source(const XFile *f); /* malloc'd .qd text; module name x_<dtype>_<space> */
char *xkernel_name(const XFile *f, int k);

/* The buffers of every kernel of a file for n elements per kernel (n a multiple of 128 for shared):
 *   kernel parameters (n: i32, v, w, tgt, old); kernel k uses v[k*n + i], w[k*n + i], old[k*n + i]
 *   and targets tgt[k*ntgt ...]. ntgt = 5 (global) or 4 * n / 128 (shared). */
typedef struct {
    int n, ntgt, nk, esize;
    void *v, *w, *tgt, *tgt0, *old; /* tgt0: the initial targets */
} XData;
void xdata_init(XData *d, const XFile *f, int n, uint32_t seed);
void xdata_free(XData *d);
size_t xdata_bytes(const XData *d, char which); /* 'v', 'w', 't' (tgt), 'o' (old) */
/* The sequential-history check of kernel k; 1 when valid, else 0 with why filled in. */
int xcheck(const XFile *f, const XData *d, int k, char *why, size_t whylen);
/* Every (dtype, memory space) cell of the atomics matrix, once: X(DT, SP) names XD_DT, XS_SP.
 * The Vulkan and x86 execution tests each expand it into one Test per cell. */
#define EXEC_MATRIX_CELLS(X) \
    X(I32, GLOBAL) \
    X(I32, SHARED) \
    X(U32, GLOBAL) \
    X(U32, SHARED) \
    X(I64, GLOBAL) \
    X(I64, SHARED) \
    X(U64, GLOBAL) \
    X(U64, SHARED) \
    X(F32, GLOBAL) \
    X(F32, SHARED) \
    X(F64, GLOBAL) \
    X(F64, SHARED) \
    X(I32, FIELD) \
    X(U32, FIELD) \
    X(I64, FIELD) \
    X(U64, FIELD) \
    X(F32, FIELD) \
    X(F64, FIELD)

#endif
