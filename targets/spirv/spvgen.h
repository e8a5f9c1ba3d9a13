/* Internal interface of the SPIR-V backend: the target description, the documented binding
 * layout (man/qdc-spirv.7, layout version SPV_LAYOUT_VERSION) and the generator state shared by
 * spirv.c (module, resources, entry points), spvcode.c (statements, expressions) and
 * spvatomic.c (memory operations). */
#ifndef QDC_SPVGEN_H
#define QDC_SPVGEN_H
#include "../../ir/ir.h"
#include "spvbuild.h"
#include "spvtools.h"

typedef struct SpvTarget {
    const char *env;       /* SPIRV-Tools environment: "vulkan1.2" */
    int minor;             /* SPIR-V 1.<minor> */
    bool for_msl;          /* shape the module for SPIRV-Cross (one entry point per module) */
    int default_block_dim; /* LocalSize when loop_config gives none */
    int subgroup_width;    /* limits.subgroup_width: MSL scans SPIRV-Cross lacks unroll over it */
    bool debug_lines;      /* -g: OpString/OpSource for the input and an OpLine per statement */
    int max_push;          /* limits.max_push_constant_bytes (0: no limit, MSL) */
} SpvTarget;

/* ---- binding layout (version 1) ----
 * set 0, binding b: the b-th ndarray parameter of the kernel, in parameter order;
 * set 1, binding f: module field f, in module order;
 * one push-constant block per kernel: every scalar parameter in order, then the extents (i32)
 * of each ndarray parameter, axis by axis. Scalars narrower than 32 bits are widened to 32
 * (u1 -> u32, f16 -> f32); members are aligned to their own size. A block larger than the
 * family's limits.max_push_constant_bytes is instead a read-only storage buffer with the same
 * layout at set 0, binding nndarray (the binding after the ndarrays': SpvLayout.args_binding).
 * MSL: [[buffer(b)]] for ndarray b, [[buffer(nndarray + f)]] for field f, push constants at
 * [[buffer(nndarray + nfields)]]. */
#define SPV_LAYOUT_VERSION 1
#define SPV_SET_NDARRAY 0
#define SPV_SET_FIELD 1

typedef struct SpvPushMember {
    int param;       /* kernel parameter index */
    int axis;        /* -1: the scalar itself; else the extent of that ndarray axis */
    QdType type;     /* as stored in the block (widened) */
    uint32_t offset;
} SpvPushMember;

typedef struct SpvLayout {
    SpvPushMember *push;
    int npush;
    uint32_t push_size;
    int *binding; /* per parameter: ndarray binding, -1 for scalars */
    int nndarray;
    int args_binding; /* the block is a storage buffer at set 0, this binding; -1: push constants */
} SpvLayout;

/* max_push: SpvTarget.max_push (0: any size stays push constants). */
void spv_layout_kernel(const IrKernel *k, int max_push, SpvLayout *l);
void spv_layout_free(SpvLayout *l);
QdType spv_push_type(QdType t);

/* ---- generator state ---- */
/* How a resource's elements are declared: as their type; floats as the same-width uint; a
 * SharedArray of 16-bit elements as u32 words, one value per word (LOWF_SHARED_U32: Vulkan has
 * no 16-bit atomics, so its CAS loops swap the word). */
enum { VIEW_NATURAL, VIEW_INT, VIEW_WIDE, VIEW_COUNT };

typedef struct SpvRes {
    uint32_t var[VIEW_COUNT]; /* per view, 0 until declared */
    bool need_int;     /* some memory operation needs integer-typed storage */
    bool need_float;   /* some native float atomic needs float-typed storage */
    bool wide;         /* a SharedArray some decision stores as u32 words: every access uses VIEW_WIDE */
    bool coherent[VIEW_COUNT], volatile_[VIEW_COUNT]; /* decorations added, per view */
} SpvRes;
/* The view plain accesses of a resource use (NULL: a local). */
int g_res_view(const SpvRes *res);

typedef struct SpvLoop { uint32_t merge, cont; } SpvLoop;
/* One call site of a 64-bit MSL helper: void NAME(int idx, T v) { buf[idx] = v; } whose body
 * the completion step replaces (qdc-msl(7)). */
typedef struct SpvMslHelper { uint32_t fn, var, elem_ptr, elem_ty; char name[48]; } SpvMslHelper;

/* A reduced atomic of the current task (IrLowering.reduce == LOW_REDUCE_SUBGROUP) and the
 * Function variable holding the invocation's partial. */
typedef struct SpvPartial { const IrExpr *e; uint32_t var; } SpvPartial;

typedef struct SpvGen {
    SpvBuilder b;
    const IrModule *m;
    const IrLowered *low; /* this target's decisions */
    const SpvTarget *t;
    const IrKernel *k;
    const IrTask *task;
    const char *prefix;  /* type-name prefix ("" or "<task>_" for MSL) */
    SpvLayout lay;
    SpvRes *fields;      /* per module field */
    SpvRes *nd;          /* per kernel parameter */
    SpvRes *shared;      /* per kernel shared array */
    uint32_t push_var, gid_var, lid_var, nwg_var;
    uint32_t sg_lid_var, sg_size_var; /* subgroup builtins (spvsimt.c), 0 until used */
    int entry_points;           /* emitted so far (built-in variables are per group of them) */
    uint32_t *local_var; /* per kernel local */
    VEC(uint32_t) iface; /* globals the current entry point uses */
    VEC(SpvLoop) loops;
    uint32_t cur;        /* current block label; 0: dead code point (after a branch) */
    uint32_t msl_fence[2]; /* MSL: marker functions qdc_fence_{threadgroup,device}, 0 until used */
    VEC(SpvMslHelper) msl_helpers; /* MSL: 64-bit atomics written by the completion step */
    VEC(SpvPartial) partials; /* the current task's reduced atomics (spvatomic.c) */
    uint32_t given;      /* the operand the next decided atomic takes instead of its own (a flush) */
    bool publishes;      /* the kernel has a fence or an ordered atomic: its buffers are Coherent */
    bool ok;             /* false after a diagnostic */
    IrMemo shared_ids;   /* IrExpr.shared nodes evaluated in the current statement */
    uint32_t src_file;   /* -g: the OpString naming the input; 0 without -g */
    uint32_t printf_set; /* the NonSemantic.DebugPrintf import, 0 until a print */
} SpvGen;

/* spirv.c */
uint32_t g_ty(SpvGen *g, QdType t);                  /* value type (u1 -> bool) */
uint32_t g_ty_store(SpvGen *g, QdType t, int view);  /* element type in memory */
uint32_t g_ptr(SpvGen *g, SpvStorageClass sc, uint32_t ty);
uint32_t g_u32(SpvGen *g, uint32_t v);
uint32_t g_i32(SpvGen *g, int32_t v);
uint32_t g_const(SpvGen *g, QdType t, uint64_t bits); /* raw bits of a value of type t */
uint32_t g_const_num(SpvGen *g, QdType t, double f, int64_t i); /* 0/1-style constants */
uint32_t g_res_var(SpvGen *g, const IrRef *r, int view);
SpvRes *g_res(SpvGen *g, const IrRef *r);
void g_use(SpvGen *g, uint32_t var);
uint32_t g_push_load(SpvGen *g, int param, int axis);
uint32_t g_builtin_x(SpvGen *g, uint32_t *var, SpvBuiltIn bi, const char *name);
uint32_t g_builtin_scalar(SpvGen *g, uint32_t *var, SpvBuiltIn bi, const char *name); /* u32 input, as i32 */
bool g_fail(SpvGen *g, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* spvcode.c */
uint32_t g_op(SpvGen *g, SpvOp op, uint32_t type, int n, const uint32_t *w); /* fresh result id */
#define G_OP(g, op, ty, ...)                                                                \
    g_op((g), (op), (ty), (int)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)),     \
         (const uint32_t[]){__VA_ARGS__})
uint32_t g_ext(SpvGen *g, uint32_t type, uint32_t inst, int n, const uint32_t *args);
void g_label(SpvGen *g, uint32_t id);
void g_branch(SpvGen *g, uint32_t target);
uint32_t g_expr(SpvGen *g, const IrExpr *e);
uint32_t g_convert(SpvGen *g, uint32_t v, QdType from, QdType to);
uint32_t g_binop(SpvGen *g, IrBinOp op, QdType t, uint32_t a, uint32_t b);
uint32_t g_ref_ptr(SpvGen *g, const IrRef *r, int view, SpvStorageClass *sc);
uint32_t g_linear_index(SpvGen *g, const IrRef *r); /* i32 element index of a field/ndarray/shared ref */
uint32_t g_to_store(SpvGen *g, uint32_t v, QdType t, int view);
uint32_t g_from_store(SpvGen *g, uint32_t v, QdType t, int view);
void g_block(SpvGen *g, const IrBlock *blk);

/* spvsimt.c: IR_SUBGROUP (0 for SG_SYNC) */
uint32_t g_subgroup(SpvGen *g, const IrExpr *e);
/* The building blocks of the atomic rewrites (qdc-lang(7) "Atomic reductions"): op over the
 * active invocations (GroupOperation Reduce), OpGroupNonUniformElect, the number of active
 * invocations and of those below this one (ballot bit counts, u32), BroadcastFirst. */
uint32_t g_subgroup_reduce(SpvGen *g, IrBinOp op, QdType t, uint32_t v);
uint32_t g_subgroup_elect(SpvGen *g);
void g_subgroup_ranks(SpvGen *g, uint32_t *count, uint32_t *below);
uint32_t g_subgroup_first(SpvGen *g, QdType t, uint32_t v);

/* spvatomic.c */
static inline const IrLowering *g_low(const SpvGen *g, const IrMemOp *mo) { return ir_low(g->low, mo->id); }
int g_memop_view(const SpvGen *g, const IrMemOp *mo);
void g_note_memop(SpvGen *g, const IrMemOp *mo);
uint32_t g_memop(SpvGen *g, const IrExpr *e);
void g_fence(SpvGen *g, QdScope scope, QdOrder order);
void g_barrier(SpvGen *g);
void g_msl_markers(SpvGen *g);
/* The rewrites of a parallel task: its partials declared (entry block, after the locals) and,
 * after the task's loop, each reduced over the subgroup and added by the elected invocation. */
void g_reduce_begin(SpvGen *g, const IrTask *task);
void g_reduce_end(SpvGen *g);

/* spirv.c: the whole module (or one task of it, for MSL), validated. field_views: the
 * module's spirv_field_views, computed once for the many one-task builds of MSL (NULL: decided
 * here, a walk over every kernel of the module). */
SpvRes *spirv_field_views(const IrModule *m, const IrLowered *low, const SpvTarget *t); /* nfields + 1 entries, free() */
bool spirv_build(const IrModule *m, const IrLowered *low, const SpvTarget *t, const IrTask *only, const SpvRes *field_views,
                 StrBuf *out);
/* backend.c: the disassembly of the whole module; MSL of every task, concatenated. */
bool spirv_asm(const IrModule *m, const IrLowered *low, const SpvTarget *t, StrBuf *out);
/* spirv_build and spirv_asm of the whole module that call ir_done(ctx) (TargetOptions.ir_done)
 * once m and low are read for the last time, before validating. */
bool spirv_build_release(const IrModule *m, const IrLowered *low, const SpvTarget *t, void (*ir_done)(void *ctx), void *ctx,
                         StrBuf *out);
bool spirv_asm_release(const IrModule *m, const IrLowered *low, const SpvTarget *t, void (*ir_done)(void *ctx), void *ctx,
                       StrBuf *out);
/* spirv_build of one task that calls ir_done(ctx) as above (NULL: does not; MSL's last task). */
bool spirv_build_task_release(const IrModule *m, const IrLowered *low, const SpvTarget *t, const IrTask *only,
                              const SpvRes *field_views, void (*ir_done)(void *ctx), void *ctx, StrBuf *out);
typedef struct CapTarget CapTarget;
/* mslemit.c: the MSL version of this run and the completion step's spellings. */
typedef struct MslTarget {
    const char *version; /* "3.2.0" */
    MslFacts facts;      /* all NULL unless the upgrade cap is on (MSL before 3.2 has none) */
} MslTarget;
MslTarget msl_target(const CapTarget *t, const char *const *caps, int ncaps);
bool spirv_msl(const IrModule *m, const IrLowered *low, const SpvTarget *t, const MslTarget *mt, void (*ir_done)(void *ctx),
               void *ctx, StrBuf *out); /* ir_done as spirv_build_release's (NULL: none) */
#endif
