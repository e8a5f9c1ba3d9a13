/* The primitive operations in LLVM IR (what ir/expand.c leaves: the meaning of `//`, `%`,
 * shifts and division edge cases is decided there, once, for every backend): binary operators,
 * integer power, minNum/maxNum, and op(old, val) for RMW ops (shared by plain demotion and CAS
 * loops so both compute exactly the same thing). */
#include "llvm_target.h"

static LLVMValueRef iconst(LLVMValueRef like, long long v) { return LLVMConstInt(LLVMTypeOf(like), (unsigned long long)v, 1); }

/* Integer power by squaring; a negative exponent gives 1 (the loop never runs). */
static LLVMValueRef ipow(LlvmCg *cg, QdType t, LLVMValueRef a, LLVMValueRef b) {
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b);
    LLVMBasicBlockRef head = cg_block(cg, "pow"), body = cg_block(cg, "pow.step"), exit = cg_block(cg, "pow.end");
    LLVMBuildBr(cg->b, head);
    LLVMPositionBuilderAtEnd(cg->b, head);
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef res = LLVMBuildPhi(cg->b, ty, ""), base = LLVMBuildPhi(cg->b, ty, ""), e = LLVMBuildPhi(cg->b, ty, "");
    LLVMValueRef more = LLVMBuildICmp(cg->b, qt_is_signed(t) ? LLVMIntSGT : LLVMIntNE, e, iconst(e, 0), "");
    LLVMBuildCondBr(cg->b, more, body, exit);
    LLVMPositionBuilderAtEnd(cg->b, body);
    LLVMValueRef odd = LLVMBuildTrunc(cg->b, e, LLVMInt1TypeInContext(cg->ctx), "");
    LLVMValueRef res2 = LLVMBuildSelect(cg->b, odd, LLVMBuildMul(cg->b, res, base, ""), res, "");
    LLVMValueRef base2 = LLVMBuildMul(cg->b, base, base, ""), e2 = LLVMBuildLShr(cg->b, e, iconst(e, 1), "");
    LLVMBuildBr(cg->b, head);
    LLVMValueRef one = iconst(a, 1);
    LLVMAddIncoming(res, &one, &pre, 1);
    LLVMAddIncoming(res, &res2, &body, 1);
    LLVMAddIncoming(base, &a, &pre, 1);
    LLVMAddIncoming(base, &base2, &body, 1);
    LLVMAddIncoming(e, &b, &pre, 1);
    LLVMAddIncoming(e, &e2, &body, 1);
    LLVMPositionBuilderAtEnd(cg->b, exit);
    return res;
}

/* The count is below the width (ir/expand.c masks it). */
static LLVMValueRef shift(LlvmCg *cg, IrBinOp op, QdType t, LLVMValueRef a, LLVMValueRef b) {
    if (op == IR_SHL) return LLVMBuildShl(cg->b, a, b, "");
    return qt_is_signed(t) ? LLVMBuildAShr(cg->b, a, b, "") : LLVMBuildLShr(cg->b, a, b, "");
}

static LLVMValueRef compare(LlvmCg *cg, IrBinOp op, QdType t, LLVMValueRef a, LLVMValueRef b) {
    if (qt_is_float(t)) {
        static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
        return LLVMBuildFCmp(cg->b, fp[op - IR_EQ], a, b, "");
    }
    static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
    static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
    return LLVMBuildICmp(cg->b, (qt_is_signed(t) ? sp : up)[op - IR_EQ], a, b, "");
}

static LLVMValueRef minmax(LlvmCg *cg, bool is_min, QdType t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef args[2] = {a, b};
    const char *name = qt_is_float(t) ? (is_min ? "llvm.minnum" : "llvm.maxnum")
                       : qt_is_signed(t) ? (is_min ? "llvm.smin" : "llvm.smax")
                                         : (is_min ? "llvm.umin" : "llvm.umax");
    return cg_call_intrinsic(cg, name, &ty, 1, args, 2);
}

LLVMValueRef cg_binary(LlvmCg *cg, IrBinOp op, QdType t, LLVMValueRef a, LLVMValueRef b) {
    bool fl = qt_is_float(t), sg = qt_is_signed(t);
    switch (op) {
    case IR_ADD: return fl ? LLVMBuildFAdd(cg->b, a, b, "") : LLVMBuildAdd(cg->b, a, b, "");
    case IR_SUB: return fl ? LLVMBuildFSub(cg->b, a, b, "") : LLVMBuildSub(cg->b, a, b, "");
    case IR_MUL: return fl ? LLVMBuildFMul(cg->b, a, b, "") : LLVMBuildMul(cg->b, a, b, "");
    case IR_DIV: /* integer divisors are safe (ir/expand.c) */
        if (fl) return LLVMBuildFDiv(cg->b, a, b, "");
        return sg ? LLVMBuildSDiv(cg->b, a, b, "") : LLVMBuildUDiv(cg->b, a, b, "");
    case IR_REM:
        if (fl) return LLVMBuildFRem(cg->b, a, b, "");
        return sg ? LLVMBuildSRem(cg->b, a, b, "") : LLVMBuildURem(cg->b, a, b, "");
    case IR_FLOORDIV: case IR_MOD: die("'%s' reached the LLVM backend unexpanded", op == IR_MOD ? "%" : "//");
    case IR_POW: {
        if (!fl) return ipow(cg, t, a, b);
        return cg_math_pow(cg, t, a, b);
    }
    case IR_AND: case IR_LAND: return LLVMBuildAnd(cg->b, a, b, "");
    case IR_OR: case IR_LOR: return LLVMBuildOr(cg->b, a, b, "");
    case IR_XOR: return LLVMBuildXor(cg->b, a, b, "");
    case IR_SHL: case IR_SHR: return shift(cg, op, t, a, b);
    case IR_EQ: case IR_NE: case IR_LT: case IR_LE: case IR_GT: case IR_GE: return compare(cg, op, t, a, b);
    case IR_MIN: case IR_MAX: return minmax(cg, op == IR_MIN, t, a, b);
    }
    unreachable();
}

/* PTX atom.inc/dec: inc: old >= bound ? 0 : old + 1;  dec: old == 0 || old > bound ? bound : old - 1
 * (unsigned comparisons), the same as LLVM uinc_wrap / udec_wrap. */
static LLVMValueRef inc_dec(LlvmCg *cg, bool inc, LLVMValueRef old, LLVMValueRef bound) {
    if (inc) {
        LLVMValueRef wrap = LLVMBuildICmp(cg->b, LLVMIntUGE, old, bound, "");
        return LLVMBuildSelect(cg->b, wrap, iconst(old, 0), LLVMBuildAdd(cg->b, old, iconst(old, 1), ""), "");
    }
    LLVMValueRef wrap = LLVMBuildOr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, old, iconst(old, 0), ""),
                                    LLVMBuildICmp(cg->b, LLVMIntUGT, old, bound, ""), "");
    return LLVMBuildSelect(cg->b, wrap, bound, LLVMBuildSub(cg->b, old, iconst(old, 1), ""), "");
}

LLVMValueRef cg_apply_op(LlvmCg *cg, QdOp op, QdType t, LLVMValueRef old, LLVMValueRef val) {
    switch (op) {
    case QOP_ADD: return cg_binary(cg, IR_ADD, t, old, val);
    case QOP_SUB: return cg_binary(cg, IR_SUB, t, old, val);
    case QOP_MUL: return cg_binary(cg, IR_MUL, t, old, val);
    case QOP_MIN: return cg_binary(cg, IR_MIN, t, old, val);
    case QOP_MAX: return cg_binary(cg, IR_MAX, t, old, val);
    case QOP_AND: return cg_binary(cg, IR_AND, t, old, val);
    case QOP_OR: return cg_binary(cg, IR_OR, t, old, val);
    case QOP_XOR: return cg_binary(cg, IR_XOR, t, old, val);
    case QOP_EXCHANGE: return val;
    case QOP_INC: return inc_dec(cg, true, old, val);
    case QOP_DEC: return inc_dec(cg, false, old, val);
    default: die("no RMW computation for op %s", qop_name(op));
    }
}
