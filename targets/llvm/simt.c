/* SIMT collectives (IR_SUBGROUP) on the LLVM targets. A target gives the primitives (lane id, a
 * 32-bit indexed shuffle, a ballot, the subgroup barrier) and may give single native forms
 * (sg_native: PTX shfl.sync.up/down, vote.sync, redux.sync; x86: libqdrt); everything else is
 * built here from the primitives with the family's subgroup width (limits.subgroup_width):
 * reductions as xor butterflies, scans as Hillis-Steele over shuffle_up, 64-bit values as two
 * 32-bit shuffles. Every lane of the subgroup must reach the collective (qdc-lang(7)). */
#include "llvm_target.h"
#include <math.h>
#include <string.h>

int cg_sg_width(LlvmCg *cg) {
    int w = (int)cap_subgroup_width(cg->cap, cg->opts ? cg->opts->caps : NULL, cg->opts ? cg->opts->ncaps : 0);
    return w > 0 ? w : 1;
}

static LLVMTypeRef i32t(LlvmCg *cg) { return LLVMInt32TypeInContext(cg->ctx); }

/* Shuffle any 32/64-bit value through the target's i32 shuffle. */
static LLVMValueRef shuffle(LlvmCg *cg, QdType t, LLVMValueRef v, LLVMValueRef src) {
    LLVMTypeRef ty = cg_type(cg, t);
    if (qt_bits(t) == 32) {
        LLVMValueRef x = LLVMBuildBitCast(cg->b, v, i32t(cg), "");
        return LLVMBuildBitCast(cg->b, cg->tgt->sg_shuffle(cg, x, src), ty, "");
    }
    LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
    LLVMValueRef x = LLVMBuildBitCast(cg->b, v, i64, "");
    LLVMValueRef lo = LLVMBuildTrunc(cg->b, x, i32t(cg), ""), hi = LLVMBuildTrunc(cg->b, LLVMBuildLShr(cg->b, x, cg_i64(cg, 32), ""), i32t(cg), "");
    lo = LLVMBuildZExt(cg->b, cg->tgt->sg_shuffle(cg, lo, src), i64, "");
    hi = LLVMBuildZExt(cg->b, cg->tgt->sg_shuffle(cg, hi, src), i64, "");
    return LLVMBuildBitCast(cg->b, LLVMBuildOr(cg->b, lo, LLVMBuildShl(cg->b, hi, cg_i64(cg, 32), ""), ""), ty, "");
}

/* Lane id +/- d, or the lane itself when that leaves the subgroup (CUDA's shfl.up/down rule). */
static LLVMValueRef shift_src(LlvmCg *cg, LLVMValueRef lane, LLVMValueRef d, bool up) {
    LLVMValueRef s = up ? LLVMBuildSub(cg->b, lane, d, "") : LLVMBuildAdd(cg->b, lane, d, "");
    LLVMValueRef in = up ? LLVMBuildICmp(cg->b, LLVMIntSGE, s, cg_i32(cg, 0), "")
                         : LLVMBuildICmp(cg->b, LLVMIntSLT, s, cg_i32(cg, cg_sg_width(cg)), "");
    return LLVMBuildSelect(cg->b, in, s, lane, "");
}

static LLVMValueRef identity(LlvmCg *cg, IrBinOp op, QdType t) {
    LLVMTypeRef ty = cg_type(cg, t);
    int bits = qt_bits(t);
    bool f = qt_is_float(t), s = qt_is_signed(t);
    switch (op) {
    case IR_MUL: return f ? LLVMConstReal(ty, 1.0) : LLVMConstInt(ty, 1, 0);
    case IR_AND: return LLVMConstAllOnes(ty);
    case IR_MIN: return f ? LLVMConstReal(ty, INFINITY) : LLVMConstInt(ty, UINT64_MAX >> (64 - bits + s), 0);
    case IR_MAX: return f ? LLVMConstReal(ty, -INFINITY) : LLVMConstInt(ty, s ? 1ull << (bits - 1) : 0, 0);
    default: return f ? LLVMConstReal(ty, 0.0) : LLVMConstInt(ty, 0, 0);
    }
}

static LLVMValueRef lane_id(LlvmCg *cg) { return cg->tgt->sg_lane(cg); }

static LLVMValueRef butterfly(LlvmCg *cg, IrBinOp op, QdType t, LLVMValueRef v) {
    LLVMValueRef lane = lane_id(cg);
    for (int m = 1; m < cg_sg_width(cg); m <<= 1)
        v = cg_binary(cg, op, t, v, shuffle(cg, t, v, LLVMBuildXor(cg->b, lane, cg_i32(cg, m), "")));
    return v;
}

static LLVMValueRef scan(LlvmCg *cg, IrBinOp op, QdType t, LLVMValueRef v, bool exclusive) {
    LLVMValueRef lane = lane_id(cg);
    if (exclusive) {
        LLVMValueRef prev = shuffle(cg, t, v, shift_src(cg, lane, cg_i32(cg, 1), true));
        LLVMValueRef first = LLVMBuildICmp(cg->b, LLVMIntEQ, lane, cg_i32(cg, 0), "");
        v = LLVMBuildSelect(cg->b, first, identity(cg, op, t), prev, "");
    }
    for (int d = 1; d < cg_sg_width(cg); d <<= 1) {
        LLVMValueRef p = shuffle(cg, t, v, shift_src(cg, lane, cg_i32(cg, d), true));
        LLVMValueRef in = LLVMBuildICmp(cg->b, LLVMIntSGE, lane, cg_i32(cg, d), "");
        v = LLVMBuildSelect(cg->b, in, cg_binary(cg, op, t, p, v), v, "");
    }
    return v;
}

/* i32 0/1 from a ballot of a != 0 against the ballot of every active lane. */
static LLVMValueRef vote(LlvmCg *cg, IrSgOp op, LLVMValueRef a) {
    LLVMValueRef p = LLVMBuildICmp(cg->b, LLVMIntNE, a, cg_i32(cg, 0), "");
    LLVMValueRef mask = cg->tgt->sg_ballot(cg, p);
    LLVMValueRef r = op == SG_ANY ? LLVMBuildICmp(cg->b, LLVMIntNE, mask, cg_i64(cg, 0), "")
                                  : LLVMBuildICmp(cg->b, LLVMIntEQ, mask, cg->tgt->sg_ballot(cg, LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 1, 0)), "");
    return LLVMBuildZExt(cg->b, r, i32t(cg), "");
}

/* warp.match_any / match_all without match.sync: 32 shuffles compared with the lane's own value,
 * masked by the active lanes (a ballot); match_all is that mask when it covers every active lane. */
static LLVMValueRef match(LlvmCg *cg, IrSgOp op, QdType t, LLVMValueRef a) {
    LLVMValueRef active = LLVMBuildTrunc(cg->b, cg->tgt->sg_ballot(cg, LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 1, 0)), i32t(cg), "");
    LLVMValueRef m = cg_i32(cg, 0);
    for (int j = 0; j < 32; j++) {
        LLVMValueRef eq = LLVMBuildICmp(cg->b, LLVMIntEQ, shuffle(cg, t, a, cg_i32(cg, j)), a, "");
        m = LLVMBuildOr(cg->b, m, LLVMBuildShl(cg->b, LLVMBuildZExt(cg->b, eq, i32t(cg), ""), cg_i32(cg, j), ""), "");
    }
    m = LLVMBuildAnd(cg->b, m, active, "");
    if (op == SG_MATCH_ANY) return m;
    return LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, m, active, ""), active, cg_i32(cg, 0), "");
}

static LLVMValueRef generic(LlvmCg *cg, const IrExpr *e, LLVMValueRef a, LLVMValueRef b) {
    QdType t = e->sg.a ? e->sg.a->type : QT_I32;
    switch (e->sg.op) {
    case SG_INVOCATION_ID: return lane_id(cg);
    case SG_SIZE: return cg_i32(cg, cg_sg_width(cg));
    case SG_SHUFFLE: case SG_BROADCAST: return shuffle(cg, t, a, b);
    case SG_SHUFFLE_UP: case SG_SHUFFLE_DOWN: return shuffle(cg, t, a, shift_src(cg, lane_id(cg), b, e->sg.op == SG_SHUFFLE_UP));
    case SG_BALLOT: return cg->tgt->sg_ballot(cg, LLVMBuildICmp(cg->b, LLVMIntNE, a, cg_i32(cg, 0), ""));
    case SG_ALL: case SG_ANY: return vote(cg, e->sg.op, a);
    case SG_REDUCE: return butterfly(cg, e->sg.combine, t, a);
    case SG_INCLUSIVE: case SG_EXCLUSIVE: return scan(cg, e->sg.combine, t, a, e->sg.op == SG_EXCLUSIVE);
    case SG_SYNC: cg->tgt->sg_sync(cg); return NULL;
    case SG_MATCH_ANY: case SG_MATCH_ALL: return match(cg, e->sg.op, t, a);
    case SG_COUNT: break;
    }
    unreachable();
}

LLVMValueRef cg_subgroup(LlvmCg *cg, const IrExpr *e) {
    if (!cg->tgt->sg_lane) {
        diag_error(e->span, QD5010, "qd.simt.subgroup.%s is not supported on target '%s'", ir_sg_name(e->sg.op), cap_name(cg->cap));
        cg->failed = true;
        return e->type == QT_VOID ? NULL : LLVMGetUndef(cg_type(cg, e->type));
    }
    LLVMValueRef a = e->sg.a ? cg_expr(cg, e->sg.a) : NULL, b = e->sg.b ? cg_expr(cg, e->sg.b) : NULL;
    LLVMValueRef r = cg->tgt->sg_native ? cg->tgt->sg_native(cg, e, a, b) : NULL;
    return r ? r : generic(cg, e, a, b);
}
