/* x86-64 hooks: the C ABI of qdc-abi(7). Per task `void <task>(const void *args, int32_t begin,
 * int32_t end, qdrt_lane *lane)` running iterations [begin, end), and `int32_t
 * <task>_extent(const void *args)`. Block constructs call into libqdrt, which runs each block's
 * lanes as coroutines on one thread; spin-wait loops call qdrt_spin_pause. Atomics use the core's generic LLVM instructions (x86 needs
 * no scopes: lock-prefixed RMW, cmpxchg, mov loads, mfence for seq_cst fences). */
#include "../abi.h"
#include "../../runtime/qdrt.h"
#include "llvm_target.h"
#include <string.h>

typedef struct { LLVMValueRef lane; } X86State;

static LLVMValueRef lane(LlvmCg *cg) { return ((X86State *)cg->target_state)->lane; }

static void emit_extent_fn(LlvmCg *cg, const IrKernel *k, int ti) {
    char *name = xasprintf("%s_extent", cg_task_symbol(&k->tasks[ti]));
    LLVMTypeRef p = cg_ptr(cg, 0);
    LLVMValueRef fn = cg_add_function(cg, name, LLVMInt32TypeInContext(cg->ctx), &p, 1);
    free(name);
    cg_task_begin(cg, k, ti);
    cg_bind_args_struct(cg, k, LLVMGetParam(fn, 0));
    LLVMBuildRet(cg->b, cg_task_extent(cg));
    cg_task_end(cg);
}

static void x86_emit_task(LlvmCg *cg, const IrKernel *k, int ti) {
    const IrTask *t = &k->tasks[ti];
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx), p = cg_ptr(cg, 0);
    LLVMTypeRef params[4] = {p, i32, i32, p};
    LLVMValueRef fn = cg_add_function(cg, cg_task_symbol(t), LLVMVoidTypeInContext(cg->ctx), params, 4);
    X86State st = {LLVMGetParam(fn, 3)};
    cg->target_state = &st;
    cg_task_begin(cg, k, ti);
    cg_bind_args_struct(cg, k, LLVMGetParam(fn, 0));
    if (t->kind == IR_TASK_PARALLEL) cg_emit_strided_loop(cg, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2), cg_i32(cg, 1));
    else cg_emit_task_body(cg, NULL);
    cg_task_end(cg);
    LLVMBuildRetVoid(cg->b);
    cg->target_state = NULL;
    if (t->kind == IR_TASK_PARALLEL) emit_extent_fn(cg, k, ti);
}

static LLVMValueRef x86_shared_base(LlvmCg *cg, int s) {
    LLVMTypeRef p = cg_ptr(cg, 0);
    LLVMValueRef l = lane(cg);
    LLVMValueRef base = cg_call_extern(cg, "qdrt_lane_shared", p, &p, 1, &l);
    LLVMValueRef off = cg_i64(cg, ir_shared_offset(cg->kernel, NULL, s));
    return LLVMBuildGEP2(cg->b, LLVMInt8TypeInContext(cg->ctx), base, &off, 1, "");
}

static LLVMValueRef x86_thread_idx(LlvmCg *cg) {
    LLVMTypeRef p = cg_ptr(cg, 0);
    LLVMValueRef l = lane(cg);
    return cg_call_extern(cg, "qdrt_lane_thread_idx", LLVMInt32TypeInContext(cg->ctx), &p, 1, &l);
}

static void x86_barrier(LlvmCg *cg) {
    LLVMTypeRef p = cg_ptr(cg, 0);
    LLVMValueRef l = lane(cg);
    cg_call_extern(cg, "qdrt_block_sync", LLVMVoidTypeInContext(cg->ctx), &p, 1, &l);
}

/* ---- subgroups: libqdrt's qdrt_subgroup does every collective exactly (qdrt.h) ---- */

static LLVMValueRef sg_call(LlvmCg *cg, int code, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx), i32 = LLVMInt32TypeInContext(cg->ctx), p = cg_ptr(cg, 0);
    LLVMTypeRef params[5] = {p, i32, i64, i32, i32};
    LLVMValueRef args[5] = {lane(cg), cg_i32(cg, code), a ? a : cg_i64(cg, 0), b ? b : cg_i32(cg, 0), cg_i32(cg, cg_sg_width(cg))};
    return cg_call_extern(cg, "qdrt_subgroup", i64, params, 5, args);
}

static LLVMValueRef x86_sg_lane(LlvmCg *cg) {
    return LLVMBuildTrunc(cg->b, sg_call(cg, QDRT_SG_LANE, NULL, NULL), LLVMInt32TypeInContext(cg->ctx), "sglane");
}

static void x86_sg_sync(LlvmCg *cg) { sg_call(cg, QDRT_SG_SYNC, NULL, NULL); }

static int sg_type_code(QdType t) {
    switch (t) {
    case QT_I32: return QDRT_SGT_I32;
    case QT_U32: return QDRT_SGT_U32;
    case QT_I64: return QDRT_SGT_I64;
    case QT_U64: return QDRT_SGT_U64;
    case QT_F32: return QDRT_SGT_F32;
    case QT_F64: return QDRT_SGT_F64;
    default: die("subgroup operand of type %s", qt_name(t));
    }
}

static int sg_combine_code(IrBinOp op) {
    switch (op) {
    case IR_ADD: return QDRT_SGC_ADD;
    case IR_MUL: return QDRT_SGC_MUL;
    case IR_MIN: return QDRT_SGC_MIN;
    case IR_MAX: return QDRT_SGC_MAX;
    case IR_AND: return QDRT_SGC_AND;
    case IR_OR: return QDRT_SGC_OR;
    case IR_XOR: return QDRT_SGC_XOR;
    default: die("subgroup combine %d", (int)op);
    }
}

/* One row per IrSgOp: the libqdrt operation, or -1 for the ones simt.c builds itself. */
static const int sg_rt_op[SG_COUNT] = {
    [SG_INVOCATION_ID] = -1, [SG_SIZE] = -1, [SG_SHUFFLE] = QDRT_SG_SHUFFLE, [SG_SHUFFLE_UP] = QDRT_SG_SHUFFLE_UP,
    [SG_SHUFFLE_DOWN] = QDRT_SG_SHUFFLE_DOWN, [SG_BROADCAST] = QDRT_SG_SHUFFLE, [SG_BALLOT] = QDRT_SG_BALLOT,
    [SG_ALL] = QDRT_SG_ALL, [SG_ANY] = QDRT_SG_ANY, [SG_REDUCE] = QDRT_SG_REDUCE, [SG_INCLUSIVE] = QDRT_SG_INCLUSIVE,
    [SG_EXCLUSIVE] = QDRT_SG_EXCLUSIVE, [SG_SYNC] = -1, [SG_MATCH_ANY] = -1, [SG_MATCH_ALL] = -1,
};

/* warp.match_any / match_all: 32 libqdrt shuffles compared with the lane's own value, masked by
 * the active lanes (a ballot), as simt.c does on the GPUs. */
static LLVMValueRef x86_match(LlvmCg *cg, const IrExpr *e, LLVMValueRef a) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx), i64 = LLVMInt64TypeInContext(cg->ctx);
    LLVMValueRef av = LLVMBuildZExt(cg->b, a, i64, "");
    LLVMValueRef active = LLVMBuildTrunc(cg->b, sg_call(cg, QDRT_SG_BALLOT, cg_i64(cg, 1), NULL), i32, "");
    LLVMValueRef m = cg_i32(cg, 0);
    for (int j = 0; j < 32; j++) {
        LLVMValueRef s = sg_call(cg, QDRT_SG_SHUFFLE | QDRT_SGT_I32 << 8, av, cg_i32(cg, j));
        LLVMValueRef eq = LLVMBuildICmp(cg->b, LLVMIntEQ, s, av, "");
        m = LLVMBuildOr(cg->b, m, LLVMBuildShl(cg->b, LLVMBuildZExt(cg->b, eq, i32, ""), cg_i32(cg, j), ""), "");
    }
    m = LLVMBuildAnd(cg->b, m, active, "");
    if (e->sg.op == SG_MATCH_ANY) return m;
    return LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, m, active, ""), active, cg_i32(cg, 0), "");
}

static LLVMValueRef x86_sg_native(LlvmCg *cg, const IrExpr *e, LLVMValueRef a, LLVMValueRef b) {
    if (e->sg.op == SG_MATCH_ANY || e->sg.op == SG_MATCH_ALL) return x86_match(cg, e, a);
    int op = sg_rt_op[e->sg.op];
    if (op < 0) return NULL;
    QdType t = e->sg.a->type;
    bool typed = op == QDRT_SG_REDUCE || op == QDRT_SG_INCLUSIVE || op == QDRT_SG_EXCLUSIVE;
    int code = op | sg_type_code(t) << 8 | (typed ? sg_combine_code(e->sg.combine) : 0) << 16;
    LLVMTypeRef bits = LLVMIntTypeInContext(cg->ctx, (unsigned)qt_bits(t));
    LLVMValueRef av = LLVMBuildZExt(cg->b, LLVMBuildBitCast(cg->b, a, bits, ""), LLVMInt64TypeInContext(cg->ctx), "");
    LLVMValueRef r = sg_call(cg, code, av, b);
    if (e->type == QT_U64) return r;
    LLVMTypeRef rbits = LLVMIntTypeInContext(cg->ctx, (unsigned)qt_bits(e->type));
    return LLVMBuildBitCast(cg->b, LLVMBuildTrunc(cg->b, r, rbits, ""), cg_type(cg, e->type), "");
}

static void x86_spin_hint(LlvmCg *cg) {
    cg_call_extern(cg, "qdrt_spin_pause", LLVMVoidTypeInContext(cg->ctx), NULL, 0, NULL);
}

/* libm: sinf for f32 (f16/bf16 through f32), sin for f64. */
static LLVMValueRef x86_math_call(LlvmCg *cg, const char *name, QdType t, LLVMValueRef a, LLVMValueRef b) {
    QdType ct = t == QT_F64 ? QT_F64 : QT_F32;
    LLVMTypeRef ty = cg_type(cg, ct), params[2] = {ty, ty};
    LLVMValueRef args[2] = {a, b};
    unsigned n = b ? 2 : 1;
    for (unsigned i = 0; i < n && ct != t; i++) args[i] = LLVMBuildFPExt(cg->b, args[i], ty, "");
    char *fname = xasprintf("%s%s", name, ct == QT_F32 ? "f" : "");
    LLVMValueRef r = cg_call_extern(cg, fname, ty, params, n, args);
    free(fname);
    return ct == t ? r : LLVMBuildFPTrunc(cg->b, r, cg_type(cg, t), "");
}

/* printf from libc, one call per print (lines from different threads do not interleave). */
static void x86_print(LlvmCg *cg, const char *fmt, LLVMValueRef *args, int nargs) {
    LLVMValueRef all[33];
    all[0] = LLVMBuildGlobalStringPtr(cg->b, fmt, "qdc.fmt");
    for (int i = 0; i < nargs; i++) all[i + 1] = args[i];
    LLVMTypeRef p = cg_ptr(cg, 0), i32 = LLVMInt32TypeInContext(cg->ctx);
    LLVMTypeRef fty = LLVMFunctionType(i32, &p, 1, 1);
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, "printf");
    if (!fn) fn = LLVMAddFunction(cg->mod, "printf", fty);
    LLVMBuildCall2(cg->b, fty, fn, all, (unsigned)nargs + 1, "");
}

/* write(2, "msg\n") then abort(): the host process stops with SIGABRT, as a failed C assert. */
static void x86_assert_fail(LlvmCg *cg, const char *msg) {
    char *line = xasprintf("%s\n", msg);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx), i64 = LLVMInt64TypeInContext(cg->ctx), p = cg_ptr(cg, 0);
    LLVMTypeRef params[3] = {i32, p, i64};
    LLVMValueRef args[3] = {LLVMConstInt(i32, 2, 0), LLVMBuildGlobalStringPtr(cg->b, line, "qdc.assert"),
                            LLVMConstInt(i64, strlen(line), 0)};
    cg_call_extern(cg, "write", i64, params, 3, args);
    cg_call_extern(cg, "abort", LLVMVoidTypeInContext(cg->ctx), NULL, 0, NULL);
    free(line);
}

const LlvmTarget llvm_target_x86 = {
    .backend = "x86_64",
    .as_global = 0,
    .as_shared = 0,
    .long_loops = true,
    .emit_task = x86_emit_task,
    .shared_base = x86_shared_base,
    .thread_idx = x86_thread_idx,
    .barrier = x86_barrier,
    .sg_lane = x86_sg_lane,
    .sg_sync = x86_sg_sync,
    .sg_native = x86_sg_native,
    .spin_hint = x86_spin_hint,
    .math_call = x86_math_call,
    .print = x86_print,
    .assert_fail = x86_assert_fail,
};
