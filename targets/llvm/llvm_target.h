/* The interface between the LLVM codegen core (codegen.c: expressions, statements, addressing,
 * CAS loops; machine.c: target machine, passes, emission) and the per-target hooks (x86.c,
 * nvptx.c, amdgpu.c). The core calls a hook for everything that differs between targets. */
#ifndef QDC_LLVM_TARGET_H
#define QDC_LLVM_TARGET_H
#include "../target.h"
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>
#include <stdlib.h>

typedef struct LlvmCg LlvmCg;
typedef struct LlvmTarget LlvmTarget;

/* One memory operation as the hooks see it. The core has already computed the address,
 * applied the lowering (negate, via_int bitcasts, operand casts) and chooses between NATIVE,
 * CAS_LOOP and PLAIN itself; hooks only build single instructions. */
typedef struct CgAtomic {
    const IrLowering *low;  /* the decision (order, scope, fences are the hook's to honour for
                               the instruction itself; fence_before/after are emitted by the core
                               through LlvmTarget.fence) */
    const IrMemOp *mem;     /* the source operation (op as written, dtype, space) */
    LLVMValueRef ptr;       /* pointer in the address space of mem->ref->space */
    LLVMTypeRef ty;         /* LLVM type operated on: the same-width integer when low->via_int */
    QdType qt;              /* element type as declared (f32 even when via_int) */
    QdSpace space;
    LLVMValueRef val;       /* operand, already of type ty (negated when low->negate); NULL for load */
    LLVMAtomicRMWBinOp rmw; /* native_rmw: LLVM opcode for low->op and qt (Add/FAdd/Min/UMin/
                               FMin/Xchg/UIncWrap...) */
} CgAtomic;

/* The per-target hooks. Function pointers marked "may be NULL" fall back to the core's generic
 * LLVM instruction (cg_default_*), which carries the LLVM ordering and no syncscope. */
struct LlvmTarget {
    const char *backend;   /* cap_backend(): "x86_64", "ptx", "amdgpu" */
    unsigned as_global;    /* LLVM address space of fields and ndarray data */
    unsigned as_shared;    /* LLVM address space of SharedArray storage */
    /* A call of a parallel task runs many iterations (x86: a chunk of a worker's share): the
     * loop's back edge is not marked unlikely, so LLVM may vectorize it. */
    bool long_loops;
    /* Inline-asm register constraint ("v") that pins values to the block piece defining them
     * when long blocks are cut, for codegen pipelines that sink them back together
     * (blocksplit.c). NULL: the pieces survive without it. */
    const char *pin_constraint;

    /* After the core created the module and set triple + data layout (machine.c): module flags,
     * per-module state in cg->target_state. May be NULL. */
    void (*module_begin)(LlvmCg *cg);
    /* Emits everything for task `ti` of kernel `k`: the entry function(s) and the kernel ABI.
     * It must (1) create the entry function (cg_add_function positions cg->b in it) and call
     * cg_task_begin(), (2) bind every kernel parameter with cg_bind_scalar/cg_bind_ndarray (or
     * cg_bind_args_struct), (3) for a parallel task emit its iteration loop with
     * cg_emit_strided_loop() (x86: [begin,end) step 1; GPU: grid-stride), or for a serial task
     * call cg_emit_task_body(cg, NULL) once, and (4) cg_task_end() and terminate the function. */
    void (*emit_task)(LlvmCg *cg, const IrKernel *k, int ti);
    /* After every kernel: module-level metadata (e.g. nvvm.annotations). May be NULL. */
    void (*module_end)(LlvmCg *cg);
    /* Called on every function the core or the hook creates for code (attributes such as
     * "amdgpu-unsafe-fp-atomics" when the module uses LOWF_UNSAFE_FP_ATOMICS). May be NULL. */
    void (*function_attrs)(LlvmCg *cg, LLVMValueRef fn);
    /* Writes the final artifact for `kind` (EMIT_OBJ/ASM/LLVM_IR/PTX/HSACO after the core built
     * the module). NULL: machine_emit() (object, assembly or textual IR from a clone). */
    bool (*emit_artifact)(LlvmCg *cg, EmitKind kind, StrBuf *out);

    /* Block-level constructs inside a task with uses_block. All may be NULL when the target
     * rejects them (the core then reports QD5002 at the construct). */
    LLVMValueRef (*shared_base)(LlvmCg *cg, int shared); /* ptr (as_shared) to the array's start */
    LLVMValueRef (*thread_idx)(LlvmCg *cg);              /* i32 lane within the block */
    void (*barrier)(LlvmCg *cg);                         /* execution barrier + block fence */
    /* i32 global linear thread index. NULL: the task's current iteration index. */
    LLVMValueRef (*global_thread_idx)(LlvmCg *cg);

    /* SIMT collectives (simt.c builds IR_SUBGROUP from these). All NULL: the target rejects
     * them (QD5010). sg_lane: i32 lane in the subgroup; sg_shuffle: i32 value of lane src;
     * sg_ballot: i64 mask of the lanes whose i1 is true; sg_sync: the subgroup barrier.
     * sg_native (may be NULL): one operation in a single native form from the family's simt.*
     * keys, or NULL to let simt.c expand it (never called for SG_SYNC). */
    LLVMValueRef (*sg_lane)(LlvmCg *cg);
    LLVMValueRef (*sg_shuffle)(LlvmCg *cg, LLVMValueRef v, LLVMValueRef src);
    LLVMValueRef (*sg_ballot)(LlvmCg *cg, LLVMValueRef pred);
    void (*sg_sync)(LlvmCg *cg);
    LLVMValueRef (*sg_native)(LlvmCg *cg, const IrExpr *e, LLVMValueRef a, LLVMValueRef b);
    /* A reduced atomic's flush at the subgroup level (IrLowering.reduce == LOW_REDUCE_SUBGROUP,
     * lower/reduce.c): op (add/min/max/and/or/xor) of v over the lanes active here, and in
     * *leader an i1 that is true on exactly one of them. NULL: the family never decides it. */
    LLVMValueRef (*reduce_subgroup)(LlvmCg *cg, QdOp op, QdType t, LLVMValueRef v, LLVMValueRef *leader);
    /* An aggregated atomic (LOW_AGGREGATE_SUBGROUP): v (i32, the same on every lane) times the
     * number of lanes active here goes to memory by one atomic (cg_memop_with) on the lowest of
     * them; returns this lane's result, old + rank * v (old - rank * v for a sub). NULL: never
     * decided for the family. */
    LLVMValueRef (*aggregate_subgroup)(LlvmCg *cg, const IrExpr *e, LLVMValueRef v);

    /* Called at the top of every iteration of a serial `while` that waits on memory (its
     * condition or body reads through qd.volatile_load or qd.atomic_load). x86 pauses and now
     * and then yields the thread, so spin-waits progress with more threads than cores.
     * May be NULL (GPU targets: nothing to do). */
    void (*spin_hint)(LlvmCg *cg);
    /* A memory fence of (order, scope) -- from IR_FENCE and fence_before/fence_after. NULL:
     * LLVM `fence <order>` (nothing for relaxed). */
    void (*fence)(LlvmCg *cg, QdOrder order, QdScope scope);
    /* LOW_NATIVE read-modify-write (op add/min/.../exchange/inc/dec); returns the old value
     * (type a->ty). May ignore the result when a->low->no_return. NULL: `atomicrmw`. */
    LLVMValueRef (*native_rmw)(LlvmCg *cg, const CgAtomic *a);
    /* Compare-and-swap of a->ty values (LOW_NATIVE cas and every CAS-loop step); returns the old
     * value. a->val is `expected`. NULL: `cmpxchg` (strong) + extractvalue 0. */
    LLVMValueRef (*cmpxchg)(LlvmCg *cg, const CgAtomic *a, LLVMValueRef desired);
    /* qd.atomic_load / the initial load of a CAS loop (order relaxed then). NULL: load atomic. */
    LLVMValueRef (*atomic_load)(LlvmCg *cg, const CgAtomic *a);
    /* qd.atomic_store of a->val. NULL: store atomic. */
    void (*atomic_store)(LlvmCg *cg, const CgAtomic *a);
    /* A vector atomic (IrLowering.vec_width > 1, lower/vector.c): one instruction of a->low->op
     * on the n consecutive elements at a->ptr, operands vals[0..n-1] of type a->ty (negated when
     * low->negate), results unused. NULL: the family's database never decides one. */
    void (*vector_rmw)(LlvmCg *cg, const CgAtomic *a, LLVMValueRef *vals, int n);
    /* qd.volatile_load. NULL: load volatile. */
    LLVMValueRef (*volatile_load)(LlvmCg *cg, const CgAtomic *a);
    /* The C library's `name` (libm spelling without the f suffix: "sin", "atan2", "pow") on a
     * of float type t (and b for two-operand functions). NULL: the target has no C library and
     * mathlib.c expands the function inline. */
    LLVMValueRef (*math_call)(LlvmCg *cg, const char *name, QdType t, LLVMValueRef a, LLVMValueRef b);
    /* print(...): C printf semantics of fmt over args (i32, i64 or double values, at most 32).
     * NULL: the target has no output channel; the core warns (QD5180) and drops the call. */
    void (*print)(LlvmCg *cg, const char *fmt, LLVMValueRef *args, int nargs);
    /* A failed assert under --debug: report msg and stop (the core then builds unreachable).
     * NULL: the target cannot report; the core warns (QD5181) and drops the check. */
    void (*assert_fail)(LlvmCg *cg, const char *msg);
};

/* Per-target hook tables (x86.c, nvptx.c, amdgpu.c); emit.c maps cap_backend() to one of them
 * (each target's owner adds its row to the table there). */
extern const LlvmTarget llvm_target_x86;
extern const LlvmTarget llvm_target_nvptx;
extern const LlvmTarget llvm_target_amdgpu;

/* The codegen state. Hooks read the handles and write only target_state and the fields their
 * comments name. */
struct LlvmCg {
    const IrModule *m;
    const IrLowered *low; /* this target's decisions (ir_low_memop / ir_low_fence) */
    const CapTarget *cap;
    const TargetOptions *opts;
    const LlvmTarget *tgt;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTargetMachineRef tm;    /* machine.c */
    LLVMValueRef *field_globals; /* one per IrModule.fields, in as_global (NULL in a storage) */
    LLVMValueRef *storage_globals; /* one per IrModule.storages (qd_snode_<name>) */
    /* current kernel / task (valid between cg_task_begin and cg_task_end) */
    const IrKernel *kernel;
    const IrTask *task;
    int task_index;
    LLVMValueRef fn;            /* the function being built: set by emit_task */
    LLVMValueRef *param_vals;   /* scalar value or ndarray data pointer, per IrKernel.params */
    LLVMValueRef (*param_shape)[IR_MAX_DIMS]; /* ndarray extents (i32) */
    LLVMValueRef *locals;       /* allocas, per IrKernel.locals (entry block; mem2reg later) */
    LLVMValueRef iter_index;    /* current iteration index (i32) of a parallel task, else NULL */
    IrMemo shared_vals;         /* IrExpr.shared nodes evaluated in the current statement */
    bool uses_unsafe_fp;        /* some decision carries LOWF_UNSAFE_FP_ATOMICS */
    void *target_state;         /* owned by the hooks */
    bool failed;                /* a diagnostic was reported */
    /* core-private: break/continue targets of the enclosing serial loops */
    LLVMBasicBlockRef loop_break[64], loop_cont[64];
    int nloops;
    LLVMBasicBlockRef iter_end; /* `continue` at task level: next iteration */
    /* core-private (atomics.c): the task's reduced atomics (IrLowering.reduce) and their
     * partials (allocas in the entry block), in source order */
    const IrExpr **reduced;
    LLVMValueRef *partials;
    int nreduced;
    LLVMValueRef flush_mask; /* the subgroup's lanes at the flush, shared by its reductions (NULL: none yet) */
    /* core-private (debug.c): -g's DIBuilder and the compile unit's file; NULL without -g */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_file;
};

/* ---- core services for hooks (codegen.c) ---- */
LLVMTypeRef cg_type(LlvmCg *cg, QdType t);           /* u1 -> i1, f16 -> half, bf16 -> bfloat */
LLVMTypeRef cg_storage_type(LlvmCg *cg, QdType t);   /* in memory: u1 -> i8 */
LLVMTypeRef cg_ptr(LlvmCg *cg, unsigned as);
LLVMValueRef cg_i32(LlvmCg *cg, int64_t v);
LLVMValueRef cg_i64(LlvmCg *cg, int64_t v);
/* Entry symbol of a task: its IrTask name ("<kernel>_t<k>"); field globals are "qd_field_<name>". */
const char *cg_task_symbol(const IrTask *t);
/* Creates a function with external linkage, calls tgt->function_attrs, and an "entry" block
 * with cg->b positioned in it. */
LLVMValueRef cg_add_function(LlvmCg *cg, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                             unsigned nparams);
/* Calls an external C function `name` (declared on first use). */
LLVMValueRef cg_call_extern(LlvmCg *cg, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                            unsigned nparams, LLVMValueRef *args);
/* The C argument struct of a kernel (the --emit=header layout, see man/qdc-abi.7): per param in
 * order, a scalar as its storage type, an ndarray as `T *data` then `int32_t shape[ndim]`. */
LLVMTypeRef cg_args_struct_type(LlvmCg *cg, const IrKernel *k);
void cg_bind_scalar(LlvmCg *cg, int param, LLVMValueRef v);
void cg_bind_ndarray(LlvmCg *cg, int param, LLVMValueRef data, const LLVMValueRef *extents);
/* Loads every parameter from a pointer to cg_args_struct_type(k) (generic address space). */
void cg_bind_args_struct(LlvmCg *cg, const IrKernel *k, LLVMValueRef args_ptr);
void cg_task_begin(LlvmCg *cg, const IrKernel *k, int ti); /* allocas for locals */
void cg_task_end(LlvmCg *cg);
LLVMValueRef cg_task_extent(LlvmCg *cg);             /* i32 value of task->extent (params bound) */
/* for (i = begin; i < end; i += step) cg_emit_task_body(cg, i);  all i32, step > 0 */
void cg_emit_strided_loop(LlvmCg *cg, LLVMValueRef begin, LLVMValueRef end, LLVMValueRef step);
/* One iteration (index != NULL) or the serial body (index == NULL) at cg->b's position. */
void cg_emit_task_body(LlvmCg *cg, LLVMValueRef index);
/* The generic single instructions (the NULL-hook fallbacks), for hooks that special-case only
 * some operations. */
LLVMValueRef cg_default_rmw(LlvmCg *cg, const CgAtomic *a);
LLVMValueRef cg_default_cmpxchg(LlvmCg *cg, const CgAtomic *a, LLVMValueRef desired);
LLVMValueRef cg_default_atomic_load(LlvmCg *cg, const CgAtomic *a);
void cg_default_atomic_store(LlvmCg *cg, const CgAtomic *a);
LLVMValueRef cg_default_volatile_load(LlvmCg *cg, const CgAtomic *a);
void cg_default_fence(LlvmCg *cg, QdOrder order, QdScope scope);
LLVMAtomicOrdering cg_ordering(QdOrder o);           /* relaxed -> monotonic ... */
unsigned cg_align(QdType t);                         /* natural alignment in bytes */

/* Builds the whole module (codegen.c). False after diagnostics. */
bool cg_build_module(LlvmCg *cg);

/* ---- core-internal, between codegen.c and atomics.c ---- */
LLVMValueRef cg_expr(LlvmCg *cg, const IrExpr *e);
LLVMValueRef cg_ref_ptr(LlvmCg *cg, const IrRef *r);        /* address of the element */
LLVMValueRef cg_memop(LlvmCg *cg, const IrExpr *e);         /* IR_MEMOP */
void cg_fence_stmt(LlvmCg *cg, const IrStmt *s);            /* IR_FENCE */
/* Around a parallel task's loop (cg_emit_strided_loop): a partial per reduced atomic of the
 * task, set to its identity; after the loop, one atomic per partial. */
void cg_reduce_begin(LlvmCg *cg);
void cg_reduce_end(LlvmCg *cg);
/* The memory operation as decided, with its operand already computed (and negated). */
LLVMValueRef cg_memop_with(LlvmCg *cg, const IrExpr *e, LLVMValueRef operand);
/* op(old, val) for an RMW op in the element's own type (plain demotion and CAS loops);
 * float min/max are minnum/maxnum (a NaN operand loses). */
/* a <op> b for operands of type t (arith.c): the IrBinOp semantics of ir.h. */
LLVMValueRef cg_binary(LlvmCg *cg, IrBinOp op, QdType t, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_apply_op(LlvmCg *cg, QdOp op, QdType t, LLVMValueRef old, LLVMValueRef val);
LLVMValueRef cg_call_intrinsic(LlvmCg *cg, const char *name, LLVMTypeRef *tys, unsigned ntys,
                               LLVMValueRef *args, unsigned nargs);
LLVMBasicBlockRef cg_block(LlvmCg *cg, const char *name); /* new block in cg->fn */
/* mathlib.c: the float math builtins (IR_CEIL ... IR_ATAN2; b only for IR_ATAN2) and float
 * x ** y, on values of float type t. */
LLVMValueRef cg_math(LlvmCg *cg, IrMathOp op, QdType t, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_math_pow(LlvmCg *cg, QdType t, LLVMValueRef a, LLVMValueRef b);

/* debug.c (-g): the compile unit of the module (nothing without opts->debug_lines); a
 * DISubprogram for cg->fn at the task's line; the location of later instructions (a statement's
 * line and column; nothing when cg->fn has no subprogram); the finished metadata. */
void cg_debug_begin(LlvmCg *cg);
void cg_debug_function(LlvmCg *cg, Span at);
void cg_debug_at(LlvmCg *cg, Span at);
void cg_debug_end(LlvmCg *cg);

/* simt.c: IR_SUBGROUP (NULL for SG_SYNC); the family's subgroup width */
LLVMValueRef cg_subgroup(LlvmCg *cg, const IrExpr *e);
int cg_sg_width(LlvmCg *cg);

/* ---- machine.c ---- */
/* Creates cg->tm and the module with triple + data layout from the capability database
 * (llvm.triple, llvm.cpu, llvm.features). False after a diagnostic. */
bool machine_init(LlvmCg *cg);
/* Verifies (die on failure: our bug), runs the new pass manager at opts->opt_level and writes
 * the artifact for `kind` (EMIT_OBJ, EMIT_ASM, EMIT_LLVM_IR) to out; emits from a clone. */
bool machine_emit(LlvmCg *cg, EmitKind kind, StrBuf *out);
void machine_dispose(LlvmCg *cg);
#endif
