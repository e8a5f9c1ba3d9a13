/* The checked, target-independent program: the only thing targets see of the source.
 * The frontend (sema) builds it with names resolved, types explicit, qd.func calls inlined,
 * qd.static loops unrolled and module constants folded, then seals it (ir_seal numbers the
 * memory operations); after that it is never changed. The lowering engine produces, per target,
 * an IrLowered: one IrLowering decision per memory operation (IR_MEMOP, IR_FENCE), indexed by
 * the operation's id; targets obey it exactly. All nodes live in the compilation arena.
 *
 * What it may touch: support/ only (ir/ includes no frontend, lowering, capability or backend
 * header); every later layer reads this header and never a frontend one. */
#ifndef QDC_IR_H
#define QDC_IR_H
#include "../support/diag.h"
#include "../support/types.h"
#include "../support/util.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct IrExpr IrExpr;
typedef struct IrStmt IrStmt;

/* ---- lowering decisions (made by lower/lower.c, one IrLowered per target) ---- */
typedef enum {
    LOW_UNDECIDED = 0,
    LOW_NATIVE,      /* one native atomic instruction of `op` (after any rewrite) */
    LOW_CAS_LOOP,    /* load; compute op(old, val); compare-and-swap; retry */
    LOW_PLAIN,       /* demoted: thread-private target, plain load/compute/store */
    LOW_UNSUPPORTED, /* a diagnostic was reported; no backend runs */
} IrLowKind;

/* The compiler's rewrite of a memory operation across iterations (lower/reduce.c, the rules in
 * qdc-lang(7) "Atomic reductions"): none, or a reduction whose iterations accumulate into a
 * private partial that one atomic of the decided kind adds to memory at the end of each call of
 * the task body (x86: a chunk of a worker's share; PTX: a thread's grid-stride loop, after a
 * subgroup reduction). */
typedef enum {
    LOW_REDUCE_NONE = 0,
    LOW_REDUCE_WORKER,   /* per worker (x86: per chunk of a worker's share) */
    LOW_REDUCE_SUBGROUP, /* GPU: per thread over its grid-stride iterations, then reduced over
                            the subgroup's active lanes (LlvmTarget.reduce_subgroup) and one
                            atomic by the lowest of them */
    LOW_AGGREGATE_SUBGROUP, /* not a reduction: an add whose result is used, combined over the
                               lanes active at it into one atomic of the sum by the lowest, each
                               lane getting old + (its rank among them) * operand
                               (LlvmTarget.aggregate_subgroup) */
} IrReduceLevel;

typedef struct IrLowering {
    IrLowKind kind;
    IrReduceLevel reduce; /* LOW_REDUCE_NONE: one atomic per execution, as decided below */
    QdOp op;              /* the operation to emit (QOP_SUB rewritten to QOP_ADD + negate) */
    bool negate;          /* the operand is negated first (atomic_sub -> atomic_add) */
    bool via_int;         /* operate on the same-width unsigned integer (float exchange/cas/
                             load/store, and every CAS loop on a float: compare bits) */
    QdOrder order;        /* order the instruction itself carries (may be stronger than asked) */
    QdScope scope;        /* scope the instruction carries (may be wider than asked) */
    bool fence_before;    /* emit a fence of fence_scope before the instruction */
    bool fence_after;     /* ... and/or after it (e.g. seq_cst -> fence + acq_rel; sm_60 membar) */
    QdScope fence_scope;
    QdOrder fence_order;  /* the order those fences carry (backends never choose it) */
    bool no_return;       /* result unused and the target has a non-returning form (red, lock add) */
    bool loop_cas_native; /* LOW_CAS_LOOP: the database has a native compare-and-swap of the loop's
                             width (the cas cell of the same-width integer, e.g. atom.cas.b16 on
                             sm_70); false: the backend's widest fallback (a masked 32-bit CAS) */
    unsigned flags;       /* LOWF_* below: target facts from the database that change emission */
    const char *reason_file; /* database file and line that decided (for reports and errors) */
    int reason_line;
    const char *reason_key;  /* and its key path ("ops.add.f32.global"): what reports name */
    const char *detail;   /* one line for --report-lowering, e.g. "seq_cst as fence.sc + acq_rel" */
    const char *spelling; /* the instruction the database names, if any, e.g. "atom.add.f32" */
    /* A vector atomic (lower/vector.c, qdc-lang(7) "Vector atomics"): vec_width > 1 on the
     * first of vec_width consecutive component atomics of one vector statement, vec_ops[] (it
     * first), emitted as one instruction of the database's vector_atomics cell; the others are
     * vec_member and emit nothing. Both 0 for every other operation. */
    int vec_width;
    const IrExpr *const *vec_ops;
    bool vec_member;
} IrLowering;

enum {
    LOWF_UNSAFE_FP_ATOMICS = 1u << 0, /* AMDGPU: function needs "amdgpu-unsafe-fp-atomics" */
    LOWF_MEMBAR_ORDERS = 1u << 1,     /* PTX sm_60: orders come from membar + relaxed atom */
    LOWF_VOLATILE_DECORATION = 1u << 2, /* SPIR-V for MSL: volatile as a variable decoration */
    LOWF_MSL_HELPER = 1u << 3,        /* MSL: a 64-bit atomic written by a qdc helper (Apple9 ulong min/max) */
    LOWF_SPLIT64 = 1u << 4,           /* MSL: a 64-bit op emulated as two 32-bit atomics (opt-in) */
    LOWF_SHARED_U32 = 1u << 5,        /* SPIR-V: the SharedArray is stored one value per u32 word
                                         (no 16-bit atomics: the CAS loop swaps the word) */
};

/* ---- memory references ---- */
typedef enum {
    IR_REF_FIELD,   /* module-level qd.field: index into IrModule.fields */
    IR_REF_NDARRAY, /* kernel ndarray parameter: index into IrKernel.params */
    IR_REF_SHARED,  /* qd.simt.block.SharedArray: index into IrKernel.shared */
    IR_REF_LOCAL,   /* a kernel-local scalar: index into IrKernel.locals (no idx) */
} IrRefKind;

typedef struct IrRef {
    IrRefKind kind;
    int index;
    IrExpr **idx;  /* one i32 index per dimension, row-major; 0-d field: nidx == 0 */
    int nidx;
    QdType type;   /* element type */
    QdSpace space; /* global for fields/ndarrays, shared for SharedArray (locals: global) */
    IrExpr *flat;  /* the element index: for a field in an SNode storage (IrField.storage > 0)
                      the frontend's index into the storage in units of `type` (i32, or i64
                      for a storage of more than 2^31-1 elements); for every other subscript
                      (nidx > 0) the row-major index into the buffer, exact in i64, built
                      by ir_expand_module from idx. Backends address memory with flat only;
                      idx stays for readers of the subscripts. NULL: the buffer's start. */
    Span span;
    bool stop_grad; /* a load in a block where qd.stop_grad(field) was called: autodiff takes
                       its value as a constant (no adjoint, no tangent), as Quadrants does */
} IrRef;

/* ---- expressions ---- */
typedef enum {
    IR_CONST,      /* c.i / c.u / c.f by type */
    IR_LOCAL,      /* value of locals[local] */
    IR_PARAM,      /* value of a scalar parameter: params[param] */
    IR_SHAPE,      /* i32 extent of ndarray params[param], axis `axis` */
    IR_LOAD,       /* plain (non-atomic, non-volatile) load of *ref */
    IR_UNARY,
    IR_BINARY,
    IR_SELECT,     /* cond (u1) ? a : b, both evaluated */
    IR_CAST,       /* value conversion to e->type; float -> int truncates toward zero and
                      saturates: past the range gives the minimum or maximum, NaN gives 0
                      (the constant folder, LLVM's fptosi.sat and the SPIR-V sequence agree) */
    IR_BITCAST,    /* same width reinterpretation */
    IR_MATH,       /* builtin call: math op over args */
    IR_MEMOP,      /* atomic RMW/cas/inc/dec/load/store or volatile load; see IrMemOp */
    IR_THREAD_IDX,        /* i32 lane index within the block (qd.simt.block.thread_idx) */
    IR_GLOBAL_THREAD_IDX, /* i32 global linear thread index (block.global_thread_idx) */
    IR_SUBGROUP,   /* a subgroup collective: IrExpr.sg, ops in ir/simt.def */
    IR_CLOCK,      /* i64 qd.clock_counter(): read as IrLowered.clock says */
    IR_ADDR,       /* u64 address of the element *ref names (qd.get_addr): a field element;
                      targets with raw addresses only (LLVM), SPIR-V refuses it (QD5002) */
} IrExprKind;

typedef enum {
#define SG(e, name, nargs, result) e,
#include "simt.def"
#undef SG
    SG_COUNT
} IrSgOp;
typedef enum { SGR_VOID, SGR_I32, SGR_U64, SGR_ARG } IrSgResult;
const char *ir_sg_name(IrSgOp op);     /* "shuffle_up" */
int ir_sg_nargs(IrSgOp op);
IrSgResult ir_sg_result(IrSgOp op);

typedef enum { IR_NEG, IR_BITNOT, IR_LNOT } IrUnOp; /* LNOT: u1 -> u1 */

/* Binary ops. Operands already have e->type's operand type (comparisons: a and b share a type,
 * result u1). Integer ADD/SUB/MUL/SHL wrap. DIV on ints truncates toward zero (qd.raw_div);
 * FLOORDIV floors (Python //); MOD takes the divisor's sign (Python %); REM is C's % (raw_mod).
 * SHR is arithmetic on signed and logical on unsigned. MIN/MAX on floats are minNum/maxNum:
 * a NaN operand loses. LAND/LOR are on u1 and evaluate both sides.
 * Edge cases, defined once in ir/expand.c (qdc-semantics(7)): an integer division by zero
 * divides by 1 (x / 0 == x // 0 == x, x % 0 == 0) and so does INT_MIN / -1 (== INT_MIN, rem 0);
 * a shift count is taken modulo the width (x << 33 == x << 1 on 32 bits).
 * After ir_expand_module (the IR that targets see): no FLOORDIV or MOD remain, integer DIV/REM
 * divisors are never 0 and never -1 beside INT_MIN, and shift counts are below the width, so a
 * target maps each remaining op to its plain instruction. */
typedef enum {
    IR_ADD, IR_SUB, IR_MUL, IR_DIV, IR_FLOORDIV, IR_MOD, IR_REM, IR_POW,
    IR_AND, IR_OR, IR_XOR, IR_SHL, IR_SHR,
    IR_EQ, IR_NE, IR_LT, IR_LE, IR_GT, IR_GE,
    IR_MIN, IR_MAX, IR_LAND, IR_LOR,
} IrBinOp;

/* Builtin math. All but ABS/POPCNT/CLZ take and return a float type (sema casts integers to
 * f32). ROUND rounds half away from zero (C round); ATAN2 is the only binary one (math.b: x).
 * Accuracy per target is in qdc-lang(7) ("Math functions"). */
typedef enum {
    IR_SQRT, IR_FLOOR, IR_ABS, IR_POPCNT, IR_CLZ, IR_CEIL, IR_ROUND, IR_RSQRT,
    IR_SIN, IR_COS, IR_TAN, IR_ASIN, IR_ACOS, IR_ATAN, IR_EXP, IR_LOG, IR_TANH, IR_ATAN2,
} IrMathOp;

typedef struct IrMemOp {
    QdOp op;          /* as written (QOP_SUB stays SUB here; the decision says how) */
    bool is_volatile; /* qd.volatile_load: op == QOP_LOAD, never atomic */
    IrRef *ref;
    IrExpr *val;      /* operand; cas: expected; inc/dec: bound; store: value */
    IrExpr *val2;     /* cas: desired */
    QdOrder order;    /* as requested (default relaxed) */
    QdScope scope;    /* as requested (default device) */
    bool result_used; /* false for expression statements and atomic augmented assignment */
    bool from_augassign;
    int id;           /* dense number among the module's memory operations (ir_seal) */
} IrMemOp;

struct IrExpr {
    IrExprKind kind;
    QdType type; /* result type; QT_VOID for atomic_store */
    Span span;
    bool shared; /* an operand the expansion uses more than once (ir/expand.c): backends evaluate
                    it once per statement (IrMemo), so its effects and loads happen once */
    bool literal; /* IR_CONST, frontend only: the exact value of a Python int expression (literals
                     and operators on them), typed by its value; checked where it meets a type */
    union {
        union { int64_t i; uint64_t u; double f; } c; /* IR_CONST (u1: u = 0/1; f16/bf16: f) */
        int local;                                     /* IR_LOCAL */
        int param;                                     /* IR_PARAM */
        struct { int param, axis; } shape;             /* IR_SHAPE */
        IrRef *ref;                                    /* IR_LOAD, IR_ADDR */
        struct { IrUnOp op; IrExpr *a; } un;
        struct { IrBinOp op; IrExpr *a, *b; } bin;
        struct { IrExpr *cond, *a, *b; } sel;
        IrExpr *arg;                                   /* IR_CAST, IR_BITCAST */
        struct { IrMathOp op; IrExpr *a, *b; } math; /* b: ATAN2 only */
        IrMemOp mem;                                   /* IR_MEMOP */
        struct { IrSgOp op; IrBinOp combine; IrExpr *a, *b; bool warp; } sg; /* IR_SUBGROUP (warp:
                          from qd.simt.warp.*, valid only on 32-lane subgroups) */
    };
};

/* ---- statements ---- */
typedef struct IrBlock {
    IrStmt **stmts;
    int n;
} IrBlock;

typedef enum {
    IR_ASSIGN,   /* locals[local] = value */
    IR_STORE,    /* *ref = value (plain store) */
    IR_EVAL,     /* evaluate value for its effect (an IR_MEMOP) */
    IR_IF,
    IR_WHILE,    /* while (cond) body; cond re-evaluated every iteration */
    IR_FOR,      /* serial: counter = begin; while (step>0 ? counter<end : counter>end)
                    { body; counter += step }  -- end evaluated once, before the loop; the
                    frontend starts body with `var = counter`, so body writes cannot steer it */
    IR_BREAK,
    IR_CONTINUE,
    IR_BARRIER,  /* qd.simt.block.sync(): execution barrier + block-scope memory fence */
    IR_FENCE,    /* memory fence; lowering fills low */
    IR_PRINT,    /* printf(fmt, args...): args are i32, u32, i64, u64 or f64 (sema widens) */
    IR_ASSERT,   /* --debug: if !cond (u1), report msg ("file:line:col: assertion failed: ...") and stop */
} IrStmtKind;

struct IrStmt {
    IrStmtKind kind;
    Span span;
    union {
        struct { int local; IrExpr *value; } assign;
        struct { IrRef *ref; IrExpr *value; } store;
        IrExpr *eval;
        struct { IrExpr *cond; IrBlock then, els; } if_;
        struct { IrExpr *cond; IrBlock body; } while_;
        struct { int counter; IrExpr *begin, *end; int64_t step; IrBlock body; } for_;
        struct { QdScope scope; QdOrder order; int id; } fence; /* id: as IrMemOp.id */
        struct { const char *fmt; IrExpr **args; int nargs; } print;
        struct { IrExpr *cond; const char *msg; } assert_;
    };
};

/* ---- kernels and module ---- */
typedef struct IrLocal {
    const char *name; /* source name, or "$..." for compiler temporaries */
    QdType type;
} IrLocal;

typedef enum { IR_PARAM_SCALAR, IR_PARAM_NDARRAY } IrParamKind;
#define IR_MAX_DIMS 8
typedef struct IrParam {
    const char *name;
    IrParamKind kind;
    QdType type; /* scalar type, or ndarray element type */
    int ndim;    /* ndarray only; the component axes of a vector/matrix dtype included */
    int elem_ndim; /* ndarray of vectors (1) or matrices (2): its last axes are the components */
    int elem_shape[2];
    bool builder;  /* qd.types.sparse_matrix_builder(): an i32 ndarray [count, i, j, bits(v), ...] (qdc-abi(7)) */
    bool permuted; /* ndarray stored in a permuted layout (qd.tensor(..., layout=)): the buffer and
                      the shape the host passes are in storage order; layout[k] is the canonical
                      axis at storage level k, outermost first (qdc-abi(7)) */
    unsigned char layout[IR_MAX_DIMS];
    /* Gradients of ndarrays (qdc-abi(7) GRADIENTS): needs_grad is the annotation's
     * qd.types.ndarray(needs_grad=...): -1 False (never differentiated), 1 True, 0 not given;
     * adjoint_of is 1 + the index of the ndarray parameter whose adjoint array this parameter
     * is ("<name>_grad": x.grad in a kernel, or one of a <kernel>_grad companion's appended
     * parameters), 0 for any other parameter. */
    signed char needs_grad;
    int adjoint_of;
    Span span;
} IrParam;
typedef struct IrShared {
    const char *name;
    QdType type;
    int ndim;      /* a vector/matrix element type's component axes included */
    int elem_ndim; /* SharedArray(shape, vecN / matNxM): its last 1 or 2 axes are the components,
                      so one element's components are contiguous (AOS, as fields) */
    int64_t shape[IR_MAX_DIMS];
    int64_t elems; /* product of shape (scalars) */
    int task;      /* the task that declares it */
    Span span;
} IrShared;

typedef enum { IR_TASK_PARALLEL, IR_TASK_SERIAL } IrTaskKind;
typedef struct IrTask {
    IrTaskKind kind;
    const char *name; /* "<kernel>_t<k>", unique in the module: entry point names derive from it */
    IrExpr *extent;   /* parallel: i32 number of iterations, from consts, params and shapes, or
                         reading the task's field qdc_bounds_<task> (run-time bounds stored by the
                         serial task before it: the extent is known on the device only).
                         After ir_expand_module it is >= 0 by construction (ir_nonneg), and
                         every backend runs the task's loop as qdc-semantics(7) defines it:
                         for (i = first; i <u extent; i += step), first and step the target's
                         (x86: a worker's chunk, step 1; GPUs: the global invocation index and
                         the grid size), i + step never wrapping below 2^32 */
    int index_local;  /* parallel: local that receives the linear iteration index (i32) */
    int block_dim;    /* from qd.loop_config(block_dim=...); 0 = the target's default */
    int cp;           /* 1 + the index of the checkpoint (IrKernel.checkpoints) it belongs to; 0: none */
    bool uses_block;  /* contains IR_BARRIER, IR_THREAD_IDX, IR_SUBGROUP or shared arrays */
    IrBlock body;     /* parallel: starts by computing the loop variables from index_local */
    Span span;
} IrTask;

/* One leaf of a struct or tuple return (`-> MyStruct`, `-> tuple[qd.f32, MyStruct]`): its path
 * ("a", "b.a"; tuple elements are "_0", "_1", ...), type and shape, and the kernel-owned field
 * the last task stores it in (0-d, or 1-d with the n (n*m) components row-major). */
typedef struct IrRetMember {
    const char *name;
    QdType type;
    int field;
    int n, m; /* a vector (m 0) or matrix member; 0 for a scalar */
} IrRetMember;

/* A qd.graph.do_while loop (qdc-lang(7) "Graph kernels", qdc-abi(7) "Do-while loops"): tasks
 * first..last (inclusive, at least one) run, then again while the condition, element 0 of
 * 32-bit integer ndarray parameter `param`, is non-zero (a do-while: the body runs at least
 * once). Loops nest as intervals: IrKernel.loops is in pre-order (an enclosing loop before the
 * loops inside it), parent is the index of the enclosing loop or -1. After task t the host checks
 * the loops whose last task is t, innermost first, and continues at the first task of the first
 * whose condition holds. */
typedef struct IrLoop {
    int first, last;
    int param;
    int parent;
    const char *cond; /* the condition as written: "counter", "self.counter", "params.counter" */
    Span span;
} IrLoop;

/* A checkpoint of a @qd.kernel(graph=True, checkpoints=True) (qdc-lang(7) "Checkpoints",
 * qdc-abi(7) "Checkpoints"): `with qd.checkpoint(label, yield_on=flag):` (explicit: param is the
 * 0-d 32-bit integer ndarray flag), or a top-level for loop outside one (implicit: param -1, no
 * label). Indices are source order; the tasks of checkpoint c have IrTask.cp == c + 1. A launch
 * resuming from checkpoint r skips the tasks of checkpoints before r (on the first pass of the
 * loops only); after the last task of a run of an explicit one, a non-zero flag ends the launch:
 * no task of a checkpoint runs afterwards and no loop repeats. */
typedef struct IrCheckpoint {
    int param;         /* the yield_on ndarray parameter, -1 for an implicit checkpoint */
    int64_t label;     /* the cp_id as given (an int, an IntEnum member's value) */
    const char *text;  /* the label as written ("Stage.SIM", "3"); NULL when implicit */
    const char *yield; /* the yield_on argument as written ("flag", "self.flag") */
    Span span;
} IrCheckpoint;

typedef struct IrKernel {
    const char *name;
    IrParam *params;
    int nparams;
    IrLocal *locals;
    int nlocals;
    IrShared *shared;
    int nshared;
    IrTask *tasks; /* top-level statements in order: each top-level for is a parallel task,
                      runs of other top-level statements are serial tasks (one thread) */
    int ntasks;
    IrLoop *loops; /* @qd.kernel(graph=True) with qd.graph.do_while: the repeated task ranges */
    int nloops;
    IrCheckpoint *checkpoints; /* @qd.kernel(graph=True, checkpoints=True): in source order */
    int ncheckpoints;
    QdType ret_type; /* `-> T`: the type returned, QT_VOID for none */
    int ret_field;   /* the 0-d field the last task stores the result in (IrModule.fields), or -1 */
    int ret_n, ret_m; /* `-> qd.types.vector(n, T)` (m 0) / matrix(n, m, T): ret_field is 1-d with
                         the n (n*m) components row-major; 0 for a scalar */
    IrRetMember *ret_members; /* a struct or tuple return: its leaves in declaration order (ret_type */
    int ret_nmembers;         /* is then QT_VOID and ret_field -1); 0 otherwise */
    int grad_of; /* the reverse-mode companion "<primal>_grad" of kernel grad_of - 1 (ir/autodiff.c); 0: a kernel as
                    written; -1: one written with @qd.ad.no_grad, which gets no companion; -2: one whose
                    gradient the script asks for (K.grad(), or K run in a qd.ad.Tape), which gets its
                    companion even when it touches no memory with an adjoint (then a no-op, as Quadrants') */
    int fwd_of;  /* the forward-mode companion "<primal>_fwd" of kernel fwd_of - 1 (ir/autodiff_fwd.c); 0: a kernel
                    as written; -2: one the script runs in a qd.ad.FwdMode, which gets its companion even
                    when it touches no field with a dual field */
    Span grad_call;     /* the host code's K.grad() (or K() in a qd.ad.Tape) outside any block the
                           script expects to raise, where Quadrants compiles the companion (src NULL: none): a rule
                           of Quadrants' autodiff the kernel breaks is an error there (ir/autodiff.c), else a warning */
    bool grad_validate; /* K runs in a qd.ad.Tape(..., validation=True): the global data access rule is checked */
    Span random_at;     /* the first qd.random / qd.randn of the kernel (src NULL: none); Quadrants' autodiff refuses it */
    Span nested_range_at; /* under qd.init(ad_stack_experimental_enabled=False), the first non-static `for ... in range()` inside another run-time loop; Quadrants' reverse mode refuses it */
    Span span;
} IrKernel;

/* The layout of a task's SharedArrays in its block-shared memory, the one every reader uses (the
 * limit check against max_shared_bytes, the CPU backend, the header and the metadata): in
 * declaration order, each starting on an IR_SHARED_ALIGN boundary. An array that a decision of
 * `low` widens (LOWF_SHARED_U32 on a memory operation on it) takes 4 bytes per element, as the
 * SPIR-V backend declares it; low NULL: every array at its natural width (no widening target). */
#define IR_SHARED_ALIGN 16
struct IrLowered;
bool ir_shared_widened(const IrKernel *k, const struct IrLowered *low, int s);
int64_t ir_shared_offset(const IrKernel *k, const struct IrLowered *low, int s); /* byte offset of shared[s] in its task's memory */
int64_t ir_task_shared_bytes(const IrKernel *k, const struct IrLowered *low, int task); /* the end of its last SharedArray (0: none) */

/* One level of an SNode path (qd.root.dense(axes, sizes)...): the axes it splits, their sizes,
 * the bytes of one cell, and where the next level (or the field) sits inside a cell. */
typedef struct IrSnodeLevel {
    int naxes;
    int axis[IR_MAX_DIMS];    /* field index positions (0 = i, 1 = j, ...), increasing */
    int64_t size[IR_MAX_DIMS];
    int64_t cell_bytes;
    int64_t child_offset;     /* bytes */
    /* Sparse levels (qd.root.pointer / bitmasked / dynamic, ir/sparse.h): storage stays dense;
     * meta is the index of the level's metadata field (IR_SNODE_DENSE: unused): a u32 bit mask
     * of its cells (pointer, bitmasked) or an i32 length per cell of its parent (dynamic). */
    int sparse;
    int meta;
} IrSnodeLevel;
enum { IR_SNODE_DENSE, IR_SNODE_POINTER, IR_SNODE_BITMASKED, IR_SNODE_DYNAMIC };

typedef struct IrField {
    const char *name;  /* kernel-owned temporaries (a kernel-scope local shared between tasks,
                          a kernel's return slot, a task's run-time loop bounds) are
                          "qdc_tmp_<kernel>_<var>", "qdc_ret_<kernel>", "qdc_bounds_<task>" */
    QdType type;
    int ndim; /* 0 for shape=(); a vector/matrix field's component axes included */
    int elem_ndim; /* a field of vectors (1) or matrices (2): its last axes are the components,
                      so one element's components are contiguous (AOS, qdc-abi(7)) */
    int64_t shape[IR_MAX_DIMS];
    int64_t elems;
    int64_t origin[IR_MAX_DIMS]; /* qd.field(..., offset=) / place(x, offset=): the index of the
                                    first element along each axis (the frontend subtracts it;
                                    storage starts at 0) */
    int norigin;                 /* place(x, offset=): entries given, checked against ndim */
    Span span;
    /* 0: the field is its own row-major buffer qd_field_<name>. Otherwise it lives in
     * IrModule.storages[storage - 1] (fields placed together interleave, qdc-abi(7)); refs
     * carry IrRef.flat, and levels describe the path for the header and metadata. */
    int storage;
    int64_t offset; /* bytes from the storage's start to the field's slot in the outermost cell */
    int nlevels;
    IrSnodeLevel levels[IR_MAX_DIMS];
    /* qd.field(..., needs_grad=True): 1 + the index of its adjoint field "<name>_grad" (a plain
     * row-major field of the same type and shape, qdc-abi(7) "GRADIENTS"); 0: none; -1 while the
     * frontend has not made it yet (frontend/sema_ad.c). */
    int grad;
    /* qd.field(..., needs_dual=True) / qd.root.lazy_dual(): 1 + the index of its dual field
     * "<name>_dual" (forward mode, qdc-abi(7) "GRADIENTS"), made as the adjoint is; 0: none;
     * -1 while the frontend has not made it yet. */
    int dual;
} IrField;

/* The memory of one child of qd.root that is not a plain row-major field: symbol
 * qd_snode_<name> (the first field placed under it), `bytes` long, aligned to `align`. */
typedef struct IrStorage {
    const char *name;
    int64_t bytes;
    int align;
    Span span;
} IrStorage;

typedef struct IrModule {
    const Source *src;
    IrField *fields;
    int nfields;
    IrStorage *storages;
    int nstorages;
    IrKernel *kernels;
    int nkernels;
    int nmemops; /* memory operations and fences, numbered 0..nmemops-1 by ir_seal */
    bool expanded; /* ir_expand_module ran: only primitive operations remain */
    bool ndarray_grads; /* the script allocates an ndarray with needs_grad=True: float ndarray
                           parameters are differentiable (ir/autodiff.c) */
} IrModule;

/* One target's lowering of a module: the decision for every memory operation and fence
 * (ops[id]) and the optional device capabilities the decisions rely on (e.g. "int64-atomics"),
 * sorted, for metadata and SPIR-V capabilities. Each job of a run has its own. */
typedef enum {
    IR_CLOCK_ZERO,  /* the family has no cycle counter, or its capability is not asserted: 0 */
    IR_CLOCK_CYCLE, /* LLVM's llvm.readcyclecounter */
    IR_CLOCK_SHADER, /* SPIR-V OpReadClockKHR at Device scope (SPV_KHR_shader_clock) */
} IrClock;

typedef struct IrLowered {
    const IrLowering *ops;
    int nops;
    const char *const *caps_used;
    int ncaps_used;
    IrClock clock; /* how IR_CLOCK reads (the database's clock section) */
    bool print;    /* IR_PRINT has an output channel (the print section); else compiled out */
    int nvector; /* vector atomics decided (IrLowering.vec_width > 1): PTX needs vector_atomics.ptx_isa */
} IrLowered;

/* The decision for memory operation or fence `id`; dies on a missing one. */
const IrLowering *ir_low(const IrLowered *l, int id);
static inline const IrLowering *ir_low_memop(const IrLowered *l, const IrExpr *e) { return ir_low(l, e->mem.id); }
static inline const IrLowering *ir_low_fence(const IrLowered *l, const IrStmt *s) { return ir_low(l, s->fence.id); }

/* Ends checking: numbers the memory operations and fences in source order (IrMemOp.id,
 * fence.id, IrModule.nmemops). The module is read-only afterwards, but for the one
 * target-independent rewrite the driver runs before lowering, ir_expand_module (below), which
 * creates no memory operation and keeps every id. */
void ir_seal(IrModule *m);
/* ---- building (ir/build.c): arena nodes that fold constants as they are built ---- */
IrExpr *irb_new(Arena *a, IrExprKind k, QdType t, Span sp);
IrExpr *irb_int(Arena *a, QdType t, int64_t v, Span sp);
IrExpr *irb_float(Arena *a, QdType t, double v, Span sp);
IrExpr *irb_cast(Arena *a, IrExpr *e, QdType t); /* folds constants; NULL and same-type pass through */
IrExpr *irb_binary(Arena *a, IrBinOp op, IrExpr *x, IrExpr *y, Span sp); /* a primitive op */
IrExpr *irb_select(Arena *a, IrExpr *c, IrExpr *x, IrExpr *y, Span sp);
IrExpr *irb_math(Arena *a, IrMathOp op, IrExpr *x, Span sp);
void ir_set_int_const(IrExpr *e, QdType t, uint64_t v); /* wraps v to t's width (u1: != 0) */
/* The constant of a primitive op on two constants, or NULL (not constants, or not folded). */
IrExpr *ir_fold_binary(Arena *a, IrBinOp op, const IrExpr *x, const IrExpr *y, Span sp);

/* ---- the IR's meaning (ir/expand.c) ---- */
/* x op y (operands of one type) with the meaning documented above, built from primitive ops;
 * a constant when both operands are constants: this is how the constant folder evaluates. */
IrExpr *ir_expand_binary(Arena *a, IrBinOp op, IrExpr *x, IrExpr *y, Span sp);
/* Rewrites every non-primitive operation of the checked module (once, before lowering), builds
 * each subscript's element index (IrRef.flat) and clamps each parallel task's extent to >= 0. */
void ir_expand_module(IrModule *m, Arena *a);
/* Whether e >= 0 by construction: a non-negative constant, an ndarray extent, max(x, c >= 0). */
bool ir_nonneg(const IrExpr *e);

/* ---- walking (ir/walk.c): the one traversal of kernels, tasks, statements, expressions ---- */
/* A pointer-keyed map, used to visit shared expression nodes once and by backends to evaluate
 * a shared node once per statement. */
typedef struct IrMemo {
    const void **keys;
    void **vals;
    size_t cap, n;
} IrMemo;
void *ir_memo_get(const IrMemo *m, const void *key);
void ir_memo_put(IrMemo *m, const void *key, void *val);
void ir_memo_clear(IrMemo *m);
void ir_memo_free(IrMemo *m);

typedef struct IrWalker IrWalker;
struct IrWalker {
    /* Called on every expression once (shared nodes too), after its operands, in evaluation
     * order; returns the node that replaces it (or e itself). NULL: expressions not visited. */
    IrExpr *(*expr)(IrWalker *w, IrExpr *e);
    /* Called on every expression before its operands (may be NULL); false skips the node: its
     * operands and expr are not visited and it is not marked seen, so another use reaches it
     * again. For read-only walks that stop early (the first f64 node of a statement). */
    bool (*enter)(IrWalker *w, IrExpr *e);
    /* Called on every statement before its expressions, in program order (may be NULL). All
     * expressions of a statement are visited before its nested blocks. */
    void (*stmt)(IrWalker *w, IrStmt *s);
    void *ctx;
    IrKernel *k; /* where the walk is */
    IrTask *t;
    /* node -> replacement, so a shared node is visited once; a read-only walk may clear it
     * (ir_memo_clear) in its stmt hook to visit nodes shared between statements per statement. */
    IrMemo seen;
};
/* Walks every task of every kernel (of one kernel): its extent, then its body. */
void ir_walk_module(IrModule *m, IrWalker *w);
void ir_walk_kernel(IrKernel *k, IrWalker *w);
/* One task (its extent, then its body), or one block; w->k and w->t are left as they are. */
void ir_walk_task(IrTask *t, IrWalker *w);
void ir_walk_block(IrBlock *b, IrWalker *w);

/* Whether some expression node of `e` (operands and indexes included) or of `b` (its statements,
 * nested blocks included) satisfies pred; both walk with the walker above. */
bool ir_expr_any(const IrExpr *e, bool (*pred)(const IrExpr *e, void *ctx), void *ctx);
/* Marks used[i] for every local of the task's kernel that the task reads or writes (its index
 * local, loop counters and assigned temporaries included); `used` has one entry per kernel local.
 * Backends declare only these per task function: declaring every local of the kernel made a
 * kernel of n loops cost n^2 (bench/scaling.md). */
void ir_task_locals(const IrTask *t, bool *used);
bool ir_block_any(const IrBlock *b, bool (*pred)(const IrExpr *e, void *ctx), void *ctx);
bool ir_has_effects(const IrExpr *e); /* contains a memory operation or a collective */
bool ir_is_uniform(const IrExpr *e);  /* only constants, scalar arguments and shapes */

/* Stable textual dump (--emit=ir) for golden tests; with low, each memop shows its decision. */
void ir_dump(const IrModule *m, const IrLowered *low, StrBuf *out);
/* Calls fn on every IR_MEMOP expression and IR_FENCE statement, in source order. */
typedef void (*IrMemVisitor)(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *memop, const IrStmt *fence);
void ir_visit_memory_ops(const IrModule *m, IrMemVisitor fn, void *ctx);
void ir_visit_kernel_memory_ops(const IrKernel *k, IrMemVisitor fn, void *ctx); /* one kernel's */
#endif
