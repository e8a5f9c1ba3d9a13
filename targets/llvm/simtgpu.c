/* The GPU primitives of the SIMT collectives (simt.c builds the rest): NVVM intrinsics for PTX
 * (laneid, shfl.sync, vote.sync, bar.warp.sync, redux.sync where the family's simt.reduce says
 * so) and AMDGPU intrinsics (mbcnt lane id, ds.bpermute, ballot.i64, wave.barrier). Every warp
 * form uses the full mask: qdc's collectives are defined over the whole subgroup. */
#include "gpu.h"
#include <string.h>

static LLVMTypeRef i32t(LlvmCg *cg) { return LLVMInt32TypeInContext(cg->ctx); }
static LLVMValueRef full(LlvmCg *cg) { return cg_i32(cg, -1); }

/* ---- PTX ---- */
LLVMValueRef nv_sg_lane(LlvmCg *cg) { return cg_call_intrinsic(cg, "llvm.nvvm.read.ptx.sreg.laneid", NULL, 0, NULL, 0); }

LLVMValueRef nv_sg_shuffle(LlvmCg *cg, LLVMValueRef v, LLVMValueRef src) {
    LLVMValueRef args[4] = {full(cg), v, src, cg_i32(cg, 31)};
    return cg_call_intrinsic(cg, "llvm.nvvm.shfl.sync.idx.i32", NULL, 0, args, 4);
}

LLVMValueRef nv_sg_ballot(LlvmCg *cg, LLVMValueRef pred) {
    LLVMValueRef args[2] = {full(cg), pred};
    LLVMValueRef m = cg_call_intrinsic(cg, "llvm.nvvm.vote.ballot.sync", NULL, 0, args, 2);
    return LLVMBuildZExt(cg->b, m, LLVMInt64TypeInContext(cg->ctx), "");
}

void nv_sg_sync(LlvmCg *cg) {
    LLVMValueRef m = full(cg);
    cg_call_intrinsic(cg, "llvm.nvvm.bar.warp.sync", NULL, 0, &m, 1);
}

/* redux.sync.<op> on 32-bit integers (families whose simt.reduce is "redux.sync"). */
static LLVMValueRef nv_redux(LlvmCg *cg, const IrExpr *e, LLVMValueRef a) {
    const char *red = cap_str(cg->cap, "simt.reduce");
    QdType t = e->type;
    if (!red || strcmp(red, "redux.sync") || (t != QT_I32 && t != QT_U32)) return NULL;
    bool s = t == QT_I32;
    const char *name = NULL;
    switch (e->sg.combine) {
    case IR_ADD: name = "llvm.nvvm.redux.sync.add"; break;
    case IR_MIN: name = s ? "llvm.nvvm.redux.sync.min" : "llvm.nvvm.redux.sync.umin"; break;
    case IR_MAX: name = s ? "llvm.nvvm.redux.sync.max" : "llvm.nvvm.redux.sync.umax"; break;
    case IR_AND: name = "llvm.nvvm.redux.sync.and"; break;
    case IR_OR: name = "llvm.nvvm.redux.sync.or"; break;
    case IR_XOR: name = "llvm.nvvm.redux.sync.xor"; break;
    default: return NULL;
    }
    LLVMValueRef args[2] = {a, full(cg)};
    return cg_call_intrinsic(cg, name, NULL, 0, args, 2);
}

/* shfl.sync.up/down keep a lane's own value past the end, as the IR defines it (32-bit). */
static LLVMValueRef nv_shfl_rel(LlvmCg *cg, const IrExpr *e, LLVMValueRef a, LLVMValueRef b) {
    if (qt_bits(e->type) != 32) return NULL;
    bool up = e->sg.op == SG_SHUFFLE_UP;
    LLVMValueRef args[4] = {full(cg), LLVMBuildBitCast(cg->b, a, i32t(cg), ""), b, cg_i32(cg, up ? 0 : 31)};
    LLVMValueRef r = cg_call_intrinsic(cg, up ? "llvm.nvvm.shfl.sync.up.i32" : "llvm.nvvm.shfl.sync.down.i32", NULL, 0, args, 4);
    return LLVMBuildBitCast(cg->b, r, cg_type(cg, e->type), "");
}

/* match.any.sync / match.all.sync (families whose simt.match is "match.sync": sm_70+). */
static LLVMValueRef nv_match(LlvmCg *cg, const IrExpr *e, LLVMValueRef a) {
    const char *how = cap_str(cg->cap, "simt.match");
    if (!how || strcmp(how, "match.sync")) return NULL;
    bool wide = qt_bits(e->sg.a->type) == 64;
    LLVMValueRef args[2] = {full(cg), a};
    if (e->sg.op == SG_MATCH_ANY)
        return cg_call_intrinsic(cg, wide ? "llvm.nvvm.match.any.sync.i64" : "llvm.nvvm.match.any.sync.i32", NULL, 0, args, 2);
    LLVMValueRef r = cg_call_intrinsic(cg, wide ? "llvm.nvvm.match.all.sync.i64p" : "llvm.nvvm.match.all.sync.i32p", NULL, 0, args, 2);
    return LLVMBuildExtractValue(cg->b, r, 0, "");
}

LLVMValueRef nv_sg_native(LlvmCg *cg, const IrExpr *e, LLVMValueRef a, LLVMValueRef b) {
    switch (e->sg.op) {
    case SG_SHUFFLE_UP: case SG_SHUFFLE_DOWN: return nv_shfl_rel(cg, e, a, b);
    case SG_ALL: case SG_ANY: {
        LLVMValueRef args[2] = {full(cg), LLVMBuildICmp(cg->b, LLVMIntNE, a, cg_i32(cg, 0), "")};
        LLVMValueRef r = cg_call_intrinsic(cg, e->sg.op == SG_ALL ? "llvm.nvvm.vote.all.sync" : "llvm.nvvm.vote.any.sync",
                                           NULL, 0, args, 2);
        return LLVMBuildZExt(cg->b, r, i32t(cg), "");
    }
    case SG_REDUCE: return nv_redux(cg, e, a);
    case SG_MATCH_ANY: case SG_MATCH_ALL: return nv_match(cg, e, a);
    default: return NULL;
    }
}

/* ---- AMDGPU ---- */
LLVMValueRef amd_sg_lane(LlvmCg *cg) {
    LLVMValueRef lo_args[2] = {full(cg), cg_i32(cg, 0)};
    LLVMValueRef lo = cg_call_intrinsic(cg, "llvm.amdgcn.mbcnt.lo", NULL, 0, lo_args, 2);
    if (cg_sg_width(cg) <= 32) return lo;
    LLVMValueRef hi_args[2] = {full(cg), lo};
    return cg_call_intrinsic(cg, "llvm.amdgcn.mbcnt.hi", NULL, 0, hi_args, 2);
}

LLVMValueRef amd_sg_shuffle(LlvmCg *cg, LLVMValueRef v, LLVMValueRef src) {
    LLVMValueRef args[2] = {LLVMBuildShl(cg->b, src, cg_i32(cg, 2), ""), v};
    return cg_call_intrinsic(cg, "llvm.amdgcn.ds.bpermute", NULL, 0, args, 2);
}

LLVMValueRef amd_sg_ballot(LlvmCg *cg, LLVMValueRef pred) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
    return cg_call_intrinsic(cg, "llvm.amdgcn.ballot", &i64, 1, &pred, 1);
}

void amd_sg_sync(LlvmCg *cg) { cg_call_intrinsic(cg, "llvm.amdgcn.wave.barrier", NULL, 0, NULL, 0); }
