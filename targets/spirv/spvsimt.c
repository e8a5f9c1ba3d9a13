/* SIMT collectives (IR_SUBGROUP) as SPIR-V 1.3 OpGroupNonUniform* instructions at Subgroup
 * scope, each with the capability it needs (GroupNonUniform, ...Shuffle, ...ShuffleRelative,
 * ...Ballot, ...Vote, ...Arithmetic). Nothing here assumes a width: the lane id and the size
 * come from the SubgroupLocalInvocationId / SubgroupSize builtins (lavapipe: 8 lanes), and
 * shuffle_up/down give a lane its own value past either end, as the IR defines it. MSL gets
 * the same module through SPIRV-Cross (simd_shuffle, simd_ballot, simd_sum, ...). */
#include "spvgen.h"
#include <math.h>
#include <string.h>

static uint32_t scope(SpvGen *g) { return g_u32(g, SpvScopeSubgroup); }

static uint32_t lane(SpvGen *g) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniform);
    return g_builtin_scalar(g, &g->sg_lid_var, SpvBuiltInSubgroupLocalInvocationId, "sg_lane");
}

static uint32_t size(SpvGen *g) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniform);
    return g_builtin_scalar(g, &g->sg_size_var, SpvBuiltInSubgroupSize, "sg_size");
}

/* The arithmetic instruction of a combine op on type t. */
static SpvOp arith(IrBinOp op, QdType t) {
    bool f = qt_is_float(t), s = qt_is_signed(t);
    switch (op) {
    case IR_ADD: return f ? SpvOpGroupNonUniformFAdd : SpvOpGroupNonUniformIAdd;
    case IR_MUL: return f ? SpvOpGroupNonUniformFMul : SpvOpGroupNonUniformIMul;
    case IR_MIN: return f ? SpvOpGroupNonUniformFMin : s ? SpvOpGroupNonUniformSMin : SpvOpGroupNonUniformUMin;
    case IR_MAX: return f ? SpvOpGroupNonUniformFMax : s ? SpvOpGroupNonUniformSMax : SpvOpGroupNonUniformUMax;
    case IR_AND: return SpvOpGroupNonUniformBitwiseAnd;
    case IR_OR: return SpvOpGroupNonUniformBitwiseOr;
    case IR_XOR: return SpvOpGroupNonUniformBitwiseXor;
    default: die("subgroup combine %d", (int)op);
    }
}

/* shuffle_up/down: the partner when it is inside the subgroup, else the lane's own value. */
static uint32_t shuffle_rel(SpvGen *g, const IrExpr *e, uint32_t ty, uint32_t a, uint32_t b) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniformShuffleRelative);
    bool up = e->sg.op == SG_SHUFFLE_UP;
    uint32_t u32 = g_ty(g, QT_U32), boolt = g_ty(g, QT_U1), d = G_OP(g, SpvOpBitcast, u32, b);
    uint32_t r = G_OP(g, up ? SpvOpGroupNonUniformShuffleUp : SpvOpGroupNonUniformShuffleDown, ty, scope(g), a, d);
    uint32_t l = G_OP(g, SpvOpBitcast, u32, lane(g));
    uint32_t in = up ? G_OP(g, SpvOpUGreaterThanEqual, boolt, l, d)
                     : G_OP(g, SpvOpULessThan, boolt, G_OP(g, SpvOpIAdd, u32, l, d), G_OP(g, SpvOpBitcast, u32, size(g)));
    return G_OP(g, SpvOpSelect, ty, in, r, a);
}

/* ballot: the uvec4 mask's first two words as a u64 (lanes 0..63). */
static uint32_t ballot(SpvGen *g, uint32_t pred) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniformBallot);
    uint32_t u32 = g_ty(g, QT_U32), u64 = g_ty(g, QT_U64), v4 = SPV_TYPE(&g->b, SpvOpTypeVector, u32, 4);
    uint32_t m = G_OP(g, SpvOpGroupNonUniformBallot, v4, scope(g), pred);
    uint32_t lo = G_OP(g, SpvOpUConvert, u64, G_OP(g, SpvOpCompositeExtract, u32, m, 0));
    uint32_t hi = G_OP(g, SpvOpUConvert, u64, G_OP(g, SpvOpCompositeExtract, u32, m, 1));
    return G_OP(g, SpvOpBitwiseOr, u64, lo, G_OP(g, SpvOpShiftLeftLogical, u64, hi, g_const(g, QT_U64, 32)));
}

/* The bits of the identity of combine on t (lane 0 of an exclusive scan). */
static uint64_t identity_bits(IrBinOp op, QdType t) {
    int bits = qt_bits(t);
    uint64_t ones = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    bool s = qt_is_signed(t);
    if (qt_is_float(t)) {
        double d = op == IR_MUL ? 1.0 : op == IR_MIN ? INFINITY : op == IR_MAX ? -INFINITY : 0.0;
        if (bits == 64) { uint64_t u; memcpy(&u, &d, 8); return u; }
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    switch (op) {
    case IR_MUL: return 1;
    case IR_AND: return ones;
    case IR_MIN: return s ? ones >> 1 : ones;
    case IR_MAX: return s ? (ones >> 1) + 1 : 0;
    default: return 0;
    }
}

static uint32_t nonzero(SpvGen *g, uint32_t a) {
    return G_OP(g, SpvOpINotEqual, g_ty(g, QT_U1), a, g_i32(g, 0));
}

/* A scan SPIRV-Cross cannot give Metal (it has simd_prefix_* only for sum and product):
 * Hillis-Steele over ShuffleUp with the family's fixed width, the exclusive form shifted first. */
static uint32_t msl_scan(SpvGen *g, const IrExpr *e, uint32_t ty, uint32_t v) {
    QdType t = e->type;
    uint32_t boolt = g_ty(g, QT_U1), l = lane(g);
    spv_cap(&g->b, SpvCapabilityGroupNonUniformShuffleRelative);
    if (e->sg.op == SG_EXCLUSIVE) {
        uint32_t prev = G_OP(g, SpvOpGroupNonUniformShuffleUp, ty, scope(g), v, g_u32(g, 1));
        uint32_t id = g_const(g, t, identity_bits(e->sg.combine, t));
        v = G_OP(g, SpvOpSelect, ty, G_OP(g, SpvOpIEqual, boolt, l, g_i32(g, 0)), id, prev);
    }
    for (int d = 1; d < g->t->subgroup_width; d <<= 1) {
        uint32_t p = G_OP(g, SpvOpGroupNonUniformShuffleUp, ty, scope(g), v, g_u32(g, (uint32_t)d));
        uint32_t in = G_OP(g, SpvOpSGreaterThanEqual, boolt, l, g_i32(g, d));
        v = G_OP(g, SpvOpSelect, ty, in, g_binop(g, e->sg.combine, t, p, v), v);
    }
    return v;
}

/* warp.match_any / match_all (32-lane subgroups, asserted by the user on Vulkan): 32 shuffles
 * compared with the lane's own value, masked by the active lanes' ballot. */
static uint32_t match(SpvGen *g, const IrExpr *e, uint32_t a) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniformShuffle);
    uint32_t u32 = g_ty(g, QT_U32), boolt = g_ty(g, QT_U1), ta = g_ty(g, e->sg.a->type);
    uint32_t active = G_OP(g, SpvOpUConvert, u32, ballot(g, g_const(g, QT_U1, 1)));
    uint32_t m = g_u32(g, 0);
    for (uint32_t j = 0; j < 32; j++) {
        uint32_t s = G_OP(g, SpvOpGroupNonUniformShuffle, ta, scope(g), a, g_u32(g, j));
        uint32_t eq = G_OP(g, SpvOpIEqual, boolt, s, a);
        m = G_OP(g, SpvOpBitwiseOr, u32, m, G_OP(g, SpvOpSelect, u32, eq, g_u32(g, 1u << j), g_u32(g, 0)));
    }
    m = G_OP(g, SpvOpBitwiseAnd, u32, m, active);
    if (e->sg.op == SG_MATCH_ALL)
        m = G_OP(g, SpvOpSelect, u32, G_OP(g, SpvOpIEqual, boolt, m, active), active, g_u32(g, 0));
    return G_OP(g, SpvOpBitcast, g_ty(g, QT_I32), m);
}

uint32_t g_subgroup(SpvGen *g, const IrExpr *e) {
    uint32_t a = e->sg.a ? g_expr(g, e->sg.a) : 0, b = e->sg.b ? g_expr(g, e->sg.b) : 0;
    uint32_t ty = g_ty(g, e->type);
    switch (e->sg.op) {
    case SG_INVOCATION_ID: return G_OP(g, SpvOpBitcast, ty, lane(g));
    case SG_SIZE: return G_OP(g, SpvOpBitcast, ty, size(g));
    case SG_SHUFFLE:
        spv_cap(&g->b, SpvCapabilityGroupNonUniformShuffle);
        return G_OP(g, SpvOpGroupNonUniformShuffle, ty, scope(g), a, G_OP(g, SpvOpBitcast, g_ty(g, QT_U32), b));
    case SG_BROADCAST: /* the lane must be uniform: a constant before SPIR-V 1.5 */
        if (e->sg.b->kind != IR_CONST && g->t->minor < 5) {
            spv_cap(&g->b, SpvCapabilityGroupNonUniformShuffle);
            return G_OP(g, SpvOpGroupNonUniformShuffle, ty, scope(g), a, G_OP(g, SpvOpBitcast, g_ty(g, QT_U32), b));
        }
        spv_cap(&g->b, SpvCapabilityGroupNonUniformBallot);
        return G_OP(g, SpvOpGroupNonUniformBroadcast, ty, scope(g), a,
                    e->sg.b->kind == IR_CONST ? g_u32(g, (uint32_t)e->sg.b->c.u) : G_OP(g, SpvOpBitcast, g_ty(g, QT_U32), b));
    case SG_SHUFFLE_UP: case SG_SHUFFLE_DOWN: return shuffle_rel(g, e, ty, a, b);
    case SG_BALLOT: return ballot(g, nonzero(g, a));
    case SG_ALL: case SG_ANY: {
        spv_cap(&g->b, SpvCapabilityGroupNonUniformVote);
        SpvOp op = e->sg.op == SG_ALL ? SpvOpGroupNonUniformAll : SpvOpGroupNonUniformAny;
        uint32_t r = G_OP(g, op, g_ty(g, QT_U1), scope(g), nonzero(g, a));
        return g_convert(g, r, QT_U1, QT_I32);
    }
    case SG_REDUCE: case SG_INCLUSIVE: case SG_EXCLUSIVE: {
        if (g->t->for_msl && e->sg.op != SG_REDUCE && e->sg.combine != IR_ADD && e->sg.combine != IR_MUL)
            return msl_scan(g, e, ty, a);
        spv_cap(&g->b, SpvCapabilityGroupNonUniformArithmetic);
        uint32_t gop = e->sg.op == SG_REDUCE ? SpvGroupOperationReduce
                     : e->sg.op == SG_INCLUSIVE ? SpvGroupOperationInclusiveScan : SpvGroupOperationExclusiveScan;
        return G_OP(g, arith(e->sg.combine, e->type), ty, scope(g), gop, a);
    }
    case SG_SYNC: {
        uint32_t bits = SpvMemorySemanticsAcquireReleaseMask | SpvMemorySemanticsWorkgroupMemoryMask |
                        SpvMemorySemanticsUniformMemoryMask;
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpControlBarrier, scope(g), scope(g), g_u32(g, bits));
        return 0;
    }
    case SG_MATCH_ANY: case SG_MATCH_ALL: return match(g, e, a);
    case SG_COUNT: break;
    }
    unreachable();
}

uint32_t g_subgroup_reduce(SpvGen *g, IrBinOp op, QdType t, uint32_t v) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniformArithmetic);
    return G_OP(g, arith(op, t), g_ty(g, t), scope(g), SpvGroupOperationReduce, v);
}

uint32_t g_subgroup_elect(SpvGen *g) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniform);
    return G_OP(g, SpvOpGroupNonUniformElect, g_ty(g, QT_U1), scope(g));
}

void g_subgroup_ranks(SpvGen *g, uint32_t *count, uint32_t *below) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniformBallot);
    uint32_t u32 = g_ty(g, QT_U32), v4 = SPV_TYPE(&g->b, SpvOpTypeVector, u32, 4);
    uint32_t m = G_OP(g, SpvOpGroupNonUniformBallot, v4, scope(g), g_const(g, QT_U1, 1));
    *count = G_OP(g, SpvOpGroupNonUniformBallotBitCount, u32, scope(g), SpvGroupOperationReduce, m);
    *below = G_OP(g, SpvOpGroupNonUniformBallotBitCount, u32, scope(g), SpvGroupOperationExclusiveScan, m);
}

uint32_t g_subgroup_first(SpvGen *g, QdType t, uint32_t v) {
    spv_cap(&g->b, SpvCapabilityGroupNonUniformBallot);
    return G_OP(g, SpvOpGroupNonUniformBroadcastFirst, g_ty(g, t), scope(g), v);
}
