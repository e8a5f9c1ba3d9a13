/* Statements and expressions: structured control flow (selection and loop merges), arithmetic
 * with the IR's exact semantics (Python // and %, minNum/maxNum), conversions, addressing. */
#include "spvgen.h"
#include <math.h>
#include <string.h>

enum { GLSL_PACKHALF2X16 = 58, GLSL_UNPACKHALF2X16 = 62, GLSL_TRUNC = 3, GLSL_FABS = 4, GLSL_SABS = 5, GLSL_FSIGN = 6, GLSL_FLOOR = 8, GLSL_CEIL = 9, GLSL_SIN = 13,
       GLSL_COS = 14, GLSL_TAN = 15, GLSL_ASIN = 16, GLSL_ACOS = 17, GLSL_ATAN = 18, GLSL_TANH = 21, GLSL_ATAN2 = 25,
       GLSL_EXP = 27, GLSL_LOG = 28, GLSL_INVSQRT = 32, GLSL_POW = 26, GLSL_SQRT = 31, GLSL_UMIN = 38,
       GLSL_SMIN = 39, GLSL_UMAX = 41, GLSL_SMAX = 42, GLSL_FINDUMSB = 75, GLSL_NMIN = 79, GLSL_NMAX = 80 };

uint32_t g_op(SpvGen *g, SpvOp op, uint32_t type, int n, const uint32_t *w) {
    uint32_t id = spv_id(&g->b);
    uint32_t buf[16];
    if (n > 14) die("too many operands");
    buf[0] = type, buf[1] = id;
    memcpy(buf + 2, w, sizeof(uint32_t) * (size_t)n);
    spv_inst(&g->b, SPV_SEC_FUNC, op, buf, n + 2);
    return id;
}

uint32_t g_ext(SpvGen *g, uint32_t type, uint32_t inst, int n, const uint32_t *args) {
    uint32_t w[8] = {spv_glsl_std(&g->b), inst};
    memcpy(w + 2, args, sizeof(uint32_t) * (size_t)n);
    return g_op(g, SpvOpExtInst, type, n + 2, w);
}
static uint32_t ext1(SpvGen *g, uint32_t ty, uint32_t inst, uint32_t a) { return g_ext(g, ty, inst, 1, &a); }
static uint32_t ext2(SpvGen *g, uint32_t ty, uint32_t inst, uint32_t a, uint32_t b) {
    return g_ext(g, ty, inst, 2, (uint32_t[]){a, b});
}

void g_label(SpvGen *g, uint32_t id) {
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLabel, id);
    g->cur = id;
}
/* Ends the current block; nothing when the code point is already dead (cur == 0). */
void g_branch(SpvGen *g, uint32_t target) {
    if (!g->cur) return;
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranch, target);
    g->cur = 0;
}

/* ---- conversions ---- */
static uint32_t from_bool(SpvGen *g, uint32_t v, QdType to) {
    return G_OP(g, SpvOpSelect, g_ty(g, to), v, g_const_num(g, to, 1.0, 1), g_const_num(g, to, 0.0, 0));
}

static uint32_t to_bool(SpvGen *g, uint32_t v, QdType from) {
    SpvOp op = qt_is_float(from) ? SpvOpFUnordNotEqual : SpvOpINotEqual;
    return G_OP(g, op, g_ty(g, QT_U1), v, g_const_num(g, from, 0.0, 0));
}

static SpvOp convert_op(QdType from, QdType to) {
    bool ff = qt_is_float(from), tf = qt_is_float(to);
    if (ff && tf) return SpvOpFConvert;
    if (ff) return qt_is_signed(to) ? SpvOpConvertFToS : SpvOpConvertFToU;
    if (tf) return qt_is_signed(from) ? SpvOpConvertSToF : SpvOpConvertUToF;
    if (qt_bits(from) == qt_bits(to)) return SpvOpBitcast;
    if (qt_bits(from) > qt_bits(to)) return SpvOpUConvert; /* truncation: sign is irrelevant */
    return qt_is_signed(from) ? SpvOpSConvert : SpvOpUConvert;
}

/* int -> int of another width. UConvert's result must be unsigned (spirv-val), SConvert's is
 * taken unsigned too for uniformity; the value is then reinterpreted as the destination type. */
static uint32_t int_resize(SpvGen *g, uint32_t v, SpvOp op, QdType to) {
    QdType mid = qt_int_of_width(qt_bits(to), false);
    uint32_t r = G_OP(g, op, g_ty(g, mid), v);
    return mid == to ? r : G_OP(g, SpvOpBitcast, g_ty(g, to), r);
}

uint32_t g_convert(SpvGen *g, uint32_t v, QdType from, QdType to) {
    if (from == to) return v;
    if (from == QT_U1) return from_bool(g, v, to);
    if (to == QT_U1) return to_bool(g, v, from);
    SpvOp op = convert_op(from, to);
    if (op == SpvOpUConvert || op == SpvOpSConvert) return int_resize(g, v, op, to);
    return G_OP(g, op, g_ty(g, to), v);
}

/* A 16-bit value <-> the u32 word that holds it in the wide view. f16 goes through f32 and
 * GLSL.std.450 PackHalf2x16 / UnpackHalf2x16 (the half in the low 16 bits), exact for every
 * half, so the module needs no Int16 (a bitcast to u16 would); integers are converted. */
static uint32_t to_word(SpvGen *g, uint32_t v, QdType t) {
    if (!qt_is_float(t)) return g_convert(g, v, t, QT_U32);
    uint32_t f32 = g_ty(g, QT_F32), v2 = SPV_TYPE(&g->b, SpvOpTypeVector, f32, 2);
    uint32_t pair = G_OP(g, SpvOpCompositeConstruct, v2, g_convert(g, v, t, QT_F32), g_const_num(g, QT_F32, 0, 0));
    return ext1(g, g_ty(g, QT_U32), GLSL_PACKHALF2X16, pair);
}
static uint32_t from_word(SpvGen *g, uint32_t w, QdType t) {
    if (!qt_is_float(t)) return g_convert(g, w, QT_U32, t);
    uint32_t f32 = g_ty(g, QT_F32), v2 = SPV_TYPE(&g->b, SpvOpTypeVector, f32, 2);
    uint32_t lo = G_OP(g, SpvOpCompositeExtract, f32, ext1(g, v2, GLSL_UNPACKHALF2X16, w), 0);
    return g_convert(g, lo, QT_F32, t);
}

/* Memory <-> value: u1 is stored as a byte, floats in an integer view as their bits, 16-bit
 * values in the wide view as a u32 word. */
uint32_t g_to_store(SpvGen *g, uint32_t v, QdType t, int view) {
    if (view == VIEW_WIDE && qt_bits(t) < 32) return to_word(g, v, t);
    if (t == QT_U1) return from_bool(g, v, QT_U8);
    if (view == VIEW_INT && qt_is_float(t)) return G_OP(g, SpvOpBitcast, g_ty_store(g, t, view), v);
    return v;
}
uint32_t g_from_store(SpvGen *g, uint32_t v, QdType t, int view) {
    if (view == VIEW_WIDE && qt_bits(t) < 32) return from_word(g, v, t);
    if (t == QT_U1) return to_bool(g, v, QT_U8);
    if (view == VIEW_INT && qt_is_float(t)) return G_OP(g, SpvOpBitcast, g_ty(g, t), v);
    return v;
}

/* ---- addressing ----
 * A subscript addresses element IrRef.flat of its buffer: the IR's exact index (ir_expand_module:
 * row-major in i64; an SNode storage's index from the frontend). SPIR-V indexes in 32 bits and
 * computes it modulo 2^32: truncation commutes with +, - and *, so the i64 sums and products
 * are evaluated on their low 32 bits, and every index a Vulkan buffer can hold (its range is a
 * 32-bit count of bytes) or workgroup memory (kilobytes) comes out exact. Other nodes (a load,
 * a shared value) are evaluated as they are and truncated. */
static uint32_t index32(SpvGen *g, const IrExpr *e) {
    uint32_t i32 = g_ty(g, QT_I32);
    if (!e->shared && qt_is_int(e->type) && qt_bits(e->type) == 64) {
        switch (e->kind) {
        case IR_CONST: return g_i32(g, (int32_t)(uint32_t)e->c.u);
        case IR_CAST:
            if (qt_is_int(e->arg->type) && qt_bits(e->arg->type) <= 32)
                return g_convert(g, g_expr(g, e->arg), e->arg->type, QT_I32); /* the low bits of its extension */
            break;
        case IR_BINARY:
            if (e->bin.op == IR_ADD || e->bin.op == IR_SUB || e->bin.op == IR_MUL) {
                uint32_t a = index32(g, e->bin.a), b = index32(g, e->bin.b);
                SpvOp op = e->bin.op == IR_ADD ? SpvOpIAdd : e->bin.op == IR_SUB ? SpvOpISub : SpvOpIMul;
                return G_OP(g, op, i32, a, b);
            }
            break;
        default: break;
        }
    }
    return g_convert(g, g_expr(g, e), e->type, QT_I32);
}

uint32_t g_linear_index(SpvGen *g, const IrRef *r) { return r->flat ? index32(g, r->flat) : g_i32(g, 0); }

uint32_t g_ref_ptr(SpvGen *g, const IrRef *r, int view, SpvStorageClass *sc) {
    if (r->kind == IR_REF_LOCAL) {
        *sc = SpvStorageClassFunction;
        return g->local_var[r->index];
    }
    uint32_t lin = g_linear_index(g, r), var = g_res_var(g, r, view);
    uint32_t elem = g_ty_store(g, r->type, view);
    if (r->kind == IR_REF_SHARED) {
        *sc = SpvStorageClassWorkgroup;
        return G_OP(g, SpvOpAccessChain, g_ptr(g, *sc, elem), var, lin);
    }
    *sc = SpvStorageClassStorageBuffer;
    return G_OP(g, SpvOpAccessChain, g_ptr(g, *sc, elem), var, g_i32(g, 0), lin);
}

/* The view plain accesses use: u32 words for a widened SharedArray, integer storage when any
 * memory operation needs it. */
int g_res_view(const SpvRes *res) {
    if (res && res->wide) return VIEW_WIDE;
    return res && res->need_int ? VIEW_INT : VIEW_NATURAL;
}
static int plain_view(SpvGen *g, const IrRef *r) { return g_res_view(g_res(g, r)); }

static uint32_t load_ref(SpvGen *g, const IrRef *r) {
    if (r->kind == IR_REF_LOCAL) return G_OP(g, SpvOpLoad, g_ty(g, r->type), g->local_var[r->index]);
    int view = plain_view(g, r);
    SpvStorageClass sc;
    uint32_t p = g_ref_ptr(g, r, view, &sc);
    return g_from_store(g, G_OP(g, SpvOpLoad, g_ty_store(g, r->type, view), p), r->type, view);
}

static void store_ref(SpvGen *g, const IrRef *r, uint32_t v) {
    if (r->kind == IR_REF_LOCAL) {
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, g->local_var[r->index], v);
        return;
    }
    int view = plain_view(g, r);
    SpvStorageClass sc;
    uint32_t p = g_ref_ptr(g, r, view, &sc);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, p, g_to_store(g, v, r->type, view));
}

/* ---- arithmetic ---- */
typedef struct { SpvOp s, u, f, b; } OpRow; /* signed, unsigned, float, bool forms (0: none) */
static const OpRow simple_ops[] = {
    [IR_ADD] = {SpvOpIAdd, SpvOpIAdd, SpvOpFAdd, 0},
    [IR_SUB] = {SpvOpISub, SpvOpISub, SpvOpFSub, 0},
    [IR_MUL] = {SpvOpIMul, SpvOpIMul, SpvOpFMul, 0},
    [IR_DIV] = {SpvOpSDiv, SpvOpUDiv, SpvOpFDiv, 0},
    [IR_REM] = {SpvOpSRem, SpvOpUMod, SpvOpFRem, 0},
    [IR_AND] = {SpvOpBitwiseAnd, SpvOpBitwiseAnd, 0, SpvOpLogicalAnd},
    [IR_OR] = {SpvOpBitwiseOr, SpvOpBitwiseOr, 0, SpvOpLogicalOr},
    [IR_XOR] = {SpvOpBitwiseXor, SpvOpBitwiseXor, 0, SpvOpLogicalNotEqual},
    [IR_SHL] = {SpvOpShiftLeftLogical, SpvOpShiftLeftLogical, 0, 0},
    [IR_SHR] = {SpvOpShiftRightArithmetic, SpvOpShiftRightLogical, 0, 0},
    [IR_EQ] = {SpvOpIEqual, SpvOpIEqual, SpvOpFOrdEqual, SpvOpLogicalEqual},
    [IR_NE] = {SpvOpINotEqual, SpvOpINotEqual, SpvOpFUnordNotEqual, SpvOpLogicalNotEqual},
    [IR_LT] = {SpvOpSLessThan, SpvOpULessThan, SpvOpFOrdLessThan, 0},
    [IR_LE] = {SpvOpSLessThanEqual, SpvOpULessThanEqual, SpvOpFOrdLessThanEqual, 0},
    [IR_GT] = {SpvOpSGreaterThan, SpvOpUGreaterThan, SpvOpFOrdGreaterThan, 0},
    [IR_GE] = {SpvOpSGreaterThanEqual, SpvOpUGreaterThanEqual, SpvOpFOrdGreaterThanEqual, 0},
    [IR_LAND] = {0, 0, 0, SpvOpLogicalAnd},
    [IR_LOR] = {0, 0, 0, SpvOpLogicalOr},
};

static SpvOp pick(const OpRow *r, QdType t) {
    switch (qt_kind(t)) {
    case K_BOOL: return r->b;
    case K_SINT: return r->s;
    case K_UINT: return r->u;
    case K_FLOAT: return r->f;
    default: return 0;
    }
}

/* Integer power by squaring, as the LLVM backends: a negative exponent gives 1.
 * head: phis, LoopMerge, test e; body: res *= base if e odd, base *= base, e >>= 1. */
static uint32_t ipow(SpvGen *g, QdType t, uint32_t a, uint32_t b) {
    uint32_t ty = g_ty(g, t), bt = g_ty(g, QT_U1), one = g_const_num(g, t, 1, 1), zero = g_const_num(g, t, 0, 0);
    uint32_t pre = g->cur, head = spv_id(&g->b), body = spv_id(&g->b), cont = spv_id(&g->b), merge = spv_id(&g->b);
    uint32_t res = spv_id(&g->b), base = spv_id(&g->b), e = spv_id(&g->b);
    uint32_t res2 = spv_id(&g->b), base2 = spv_id(&g->b), e2 = spv_id(&g->b);
    g_branch(g, head);
    g_label(g, head);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpPhi, ty, res, one, pre, res2, cont);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpPhi, ty, base, a, pre, base2, cont);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpPhi, ty, e, b, pre, e2, cont);
    uint32_t more = G_OP(g, qt_is_signed(t) ? SpvOpSGreaterThan : SpvOpINotEqual, bt, e, zero);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLoopMerge, merge, cont, SpvLoopControlMaskNone);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, more, body, merge);
    g_label(g, body);
    uint32_t odd = G_OP(g, SpvOpINotEqual, bt, G_OP(g, SpvOpBitwiseAnd, ty, e, one), zero);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpSelect, ty, res2, odd, G_OP(g, SpvOpIMul, ty, res, base), res);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpIMul, ty, base2, base, base);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpShiftRightLogical, ty, e2, e, one);
    g_branch(g, cont);
    g_label(g, cont);
    g_branch(g, head);
    g_label(g, merge);
    return res;
}

static bool is_compare(IrBinOp op) { return op >= IR_EQ && op <= IR_GE; }

/* a op b where both operands have type t (the result is u1 for comparisons). */
uint32_t g_binop(SpvGen *g, IrBinOp op, QdType t, uint32_t a, uint32_t b) {
    uint32_t rty = g_ty(g, is_compare(op) ? QT_U1 : t), ty = g_ty(g, t);
    bool f = qt_is_float(t), s = qt_is_signed(t);
    switch (op) {
    case IR_MIN: return ext2(g, ty, f ? GLSL_NMIN : s ? GLSL_SMIN : GLSL_UMIN, a, b);
    case IR_MAX: return ext2(g, ty, f ? GLSL_NMAX : s ? GLSL_SMAX : GLSL_UMAX, a, b);
    case IR_POW:
        return f ? ext2(g, ty, GLSL_POW, a, b) : ipow(g, t, a, b);
    case IR_FLOORDIV: case IR_MOD: die("'%s' reached the SPIR-V backend unexpanded", op == IR_MOD ? "%" : "//");
    default: break;
    }
    SpvOp sop = pick(&simple_ops[op], t);
    if (!sop && t == QT_U1 && !is_compare(op)) { /* u1 arithmetic (True + True): as LLVM's i1, modulo 2, computed in u32 */
        uint32_t u = g_ty(g, QT_U32), one = g_const_num(g, QT_U32, 1, 1), zero = g_const_num(g, QT_U32, 0, 0);
        uint32_t a32 = G_OP(g, SpvOpSelect, u, a, one, zero), b32 = G_OP(g, SpvOpSelect, u, b, one, zero);
        uint32_t r = G_OP(g, SpvOpBitwiseAnd, u, g_binop(g, op, QT_U32, a32, b32), one);
        return G_OP(g, SpvOpINotEqual, ty, r, zero);
    }
    if (!sop) die("binary op %d has no form for %s", (int)op, qt_name(t));
    return G_OP(g, sop, rty, a, b);
}

static uint32_t unop(SpvGen *g, const IrExpr *e) {
    uint32_t a = g_expr(g, e->un.a), ty = g_ty(g, e->type);
    switch (e->un.op) {
    case IR_NEG: return G_OP(g, qt_is_float(e->type) ? SpvOpFNegate : SpvOpSNegate, ty, a);
    case IR_BITNOT: return G_OP(g, SpvOpNot, ty, a);
    case IR_LNOT: return G_OP(g, SpvOpLogicalNot, ty, a);
    }
    unreachable();
}

/* clz of a 32-bit value: 31 - FindUMsb(x) (FindUMsb(0) = -1 gives 32). */
static uint32_t clz32(SpvGen *g, uint32_t x) {
    uint32_t i32 = g_ty(g, QT_I32);
    return G_OP(g, SpvOpISub, i32, g_i32(g, 31), ext1(g, i32, GLSL_FINDUMSB, x));
}

static uint32_t math_bits(SpvGen *g, IrMathOp op, QdType at, uint32_t a, QdType rt) {
    int bits = qt_bits(at);
    uint32_t u32 = g_ty(g, QT_U32), i32 = g_ty(g, QT_I32), r;
    if (bits == 64) {
        uint32_t u64 = g_ty(g, QT_U64), au = G_OP(g, SpvOpBitcast, u64, a);
        uint32_t lo = G_OP(g, SpvOpUConvert, u32, au);
        uint32_t hi = G_OP(g, SpvOpUConvert, u32, G_OP(g, SpvOpShiftRightLogical, u64, au, g_const(g, QT_U64, 32)));
        if (op == IR_POPCNT) r = G_OP(g, SpvOpIAdd, i32, G_OP(g, SpvOpBitCount, i32, lo), G_OP(g, SpvOpBitCount, i32, hi));
        else {
            uint32_t hz = G_OP(g, SpvOpIEqual, g_ty(g, QT_U1), hi, g_u32(g, 0));
            uint32_t low = G_OP(g, SpvOpIAdd, i32, g_i32(g, 32), clz32(g, lo));
            r = G_OP(g, SpvOpSelect, i32, hz, low, clz32(g, hi));
        }
    } else {
        uint32_t x = g_convert(g, a, at, bits == 32 ? QT_U32 : qt_int_of_width(bits, false));
        if (bits < 32) x = g_convert(g, x, qt_int_of_width(bits, false), QT_U32);
        if (op == IR_POPCNT) r = G_OP(g, SpvOpBitCount, i32, x);
        else r = G_OP(g, SpvOpISub, i32, clz32(g, x), g_i32(g, 32 - bits));
    }
    return g_convert(g, r, QT_I32, rt);
}

/* C round (half away from zero) exactly: t = trunc(x); t + sign(x) when |x - t| >= 0.5.
 * (GLSL Round leaves the direction of halves to the implementation.) */
static uint32_t round_half_away(SpvGen *g, QdType t, uint32_t x) {
    uint32_t ty = g_ty(g, t), tr = ext1(g, ty, GLSL_TRUNC, x);
    uint32_t d = ext1(g, ty, GLSL_FABS, G_OP(g, SpvOpFSub, ty, x, tr));
    uint32_t half = G_OP(g, SpvOpFOrdGreaterThanEqual, g_ty(g, QT_U1), d, g_const_num(g, t, 0.5, 0));
    return G_OP(g, SpvOpSelect, ty, half, G_OP(g, SpvOpFAdd, ty, tr, ext1(g, ty, GLSL_FSIGN, x)), tr);
}

/* GLSL.std.450 transcendental instructions take 16- and 32-bit floats only. */
static uint32_t transcendental(SpvGen *g, const IrExpr *e, int inst, uint32_t a, uint32_t b) {
    static const char *const names[] = {[GLSL_SIN] = "sin", [GLSL_COS] = "cos", [GLSL_TAN] = "tan", [GLSL_ASIN] = "asin",
                                        [GLSL_ACOS] = "acos", [GLSL_ATAN] = "atan", [GLSL_TANH] = "tanh",
                                        [GLSL_ATAN2] = "atan2", [GLSL_EXP] = "exp", [GLSL_LOG] = "log", [GLSL_POW] = "pow"};
    if (e->type == QT_F64) {
        g_fail(g, e->span, "%s on f64 has no SPIR-V form (GLSL.std.450 %s takes 16- and 32-bit floats); cast the "
                           "argument to qd.f32", names[inst], names[inst]);
        return g_const_num(g, QT_F64, 0, 0);
    }
    uint32_t ty = g_ty(g, e->type);
    return b ? ext2(g, ty, inst, a, b) : ext1(g, ty, inst, a);
}

static uint32_t math(SpvGen *g, const IrExpr *e) {
    static const int glsl[] = {[IR_SIN] = GLSL_SIN, [IR_COS] = GLSL_COS, [IR_TAN] = GLSL_TAN, [IR_ASIN] = GLSL_ASIN,
                               [IR_ACOS] = GLSL_ACOS, [IR_ATAN] = GLSL_ATAN, [IR_EXP] = GLSL_EXP, [IR_LOG] = GLSL_LOG,
                               [IR_TANH] = GLSL_TANH, [IR_ATAN2] = GLSL_ATAN2};
    QdType at = e->math.a->type;
    uint32_t a = g_expr(g, e->math.a), ty = g_ty(g, e->type);
    switch (e->math.op) {
    case IR_SQRT: return ext1(g, ty, GLSL_SQRT, a);
    case IR_FLOOR: return ext1(g, ty, GLSL_FLOOR, a);
    case IR_CEIL: return ext1(g, ty, GLSL_CEIL, a);
    case IR_RSQRT: return ext1(g, ty, GLSL_INVSQRT, a);
    case IR_ROUND: return round_half_away(g, e->type, a);
    case IR_SIN: case IR_COS: case IR_TAN: case IR_ASIN: case IR_ACOS: case IR_ATAN: case IR_EXP: case IR_LOG:
    case IR_TANH: case IR_ATAN2:
        return transcendental(g, e, glsl[e->math.op], a, e->math.b ? g_expr(g, e->math.b) : 0);
    case IR_ABS:
        if (qt_is_float(at)) return ext1(g, ty, GLSL_FABS, a);
        return qt_is_signed(at) ? ext1(g, ty, GLSL_SABS, a) : a;
    case IR_POPCNT:
    case IR_CLZ: return math_bits(g, e->math.op, at, a, e->type);
    }
    unreachable();
}

/* A float -> integer cast with the IR's meaning (ir.h, IR_CAST): toward zero, saturating, NaN to
 * 0. OpConvertFToS/U leaves NaN and out-of-range values undefined, so those lanes are selected
 * away: x >= hi gives the maximum, x <= lo the minimum (hi = 2^(n-1) or 2^n, lo = -2^(n-1) or 0,
 * powers of two: exact in f32/f64; in f16 a bound past 65504 becomes infinity, which still
 * catches exactly the infinite inputs). */
static uint32_t float_to_int(SpvGen *g, uint32_t x, QdType from, QdType to) {
    uint32_t ty = g_ty(g, to), boolt = g_ty(g, QT_U1);
    int n = qt_bits(to);
    bool sg = qt_is_signed(to);
    double hi = ldexp(1.0, sg ? n - 1 : n), lo = sg ? -hi : 0;
    uint64_t max = sg ? (UINT64_MAX >> (65 - n)) : (UINT64_MAX >> (64 - n)), min = sg ? (uint64_t)1 << (n - 1) : 0;
    uint32_t r = g_convert(g, x, from, to);
    r = G_OP(g, SpvOpSelect, ty, G_OP(g, SpvOpFOrdGreaterThanEqual, boolt, x, g_const_num(g, from, hi, 0)), g_const(g, to, max), r);
    r = G_OP(g, SpvOpSelect, ty, G_OP(g, SpvOpFOrdLessThanEqual, boolt, x, g_const_num(g, from, lo, 0)), g_const(g, to, min), r);
    return G_OP(g, SpvOpSelect, ty, G_OP(g, SpvOpIsNan, boolt, x), g_const(g, to, 0), r);
}

static uint32_t constant(SpvGen *g, const IrExpr *e) {
    if (qt_is_float(e->type)) return g_const_num(g, e->type, e->c.f, 0);
    return g_const(g, e->type, e->c.u);
}

static uint32_t expr(SpvGen *g, const IrExpr *e) {
    switch (e->kind) {
    case IR_CONST: return constant(g, e);
    case IR_LOCAL: return G_OP(g, SpvOpLoad, g_ty(g, e->type), g->local_var[e->local]);
    case IR_PARAM: return g_push_load(g, e->param, -1);
    case IR_SHAPE: return g_push_load(g, e->shape.param, e->shape.axis);
    case IR_LOAD: return load_ref(g, e->ref);
    case IR_ADDR:
        g_fail(g, e->span, "qd.get_addr has no SPIR-V form: SPIR-V (Vulkan, Metal) has no raw memory addresses "
                           "(Quadrants provides it on its LLVM backends: CPU, CUDA, AMDGPU)");
        return g_const(g, QT_U64, 0);
    case IR_UNARY: return unop(g, e);
    case IR_BINARY: {
        uint32_t a = g_expr(g, e->bin.a), b = g_expr(g, e->bin.b);
        if (e->bin.op == IR_POW && e->type == QT_F64) return transcendental(g, e, GLSL_POW, a, b);
        return g_binop(g, e->bin.op, e->bin.a->type, a, b);
    }
    case IR_SELECT: {
        uint32_t c = g_expr(g, e->sel.cond), a = g_expr(g, e->sel.a), b = g_expr(g, e->sel.b);
        return G_OP(g, SpvOpSelect, g_ty(g, e->type), c, a, b);
    }
    case IR_CAST:
        if (qt_is_float(e->arg->type) && qt_is_int(e->type)) return float_to_int(g, g_expr(g, e->arg), e->arg->type, e->type);
        return g_convert(g, g_expr(g, e->arg), e->arg->type, e->type);
    case IR_BITCAST: return G_OP(g, SpvOpBitcast, g_ty(g, e->type), g_expr(g, e->arg));
    case IR_MATH: return math(g, e);
    case IR_MEMOP: return g_memop(g, e);
    case IR_THREAD_IDX: return g_builtin_x(g, &g->lid_var, SpvBuiltInLocalInvocationId, "tid");
    case IR_GLOBAL_THREAD_IDX: return g_builtin_x(g, &g->gid_var, SpvBuiltInGlobalInvocationId, "gid");
    case IR_SUBGROUP: return g_subgroup(g, e);
    case IR_CLOCK: {
        if (g->low->clock != IR_CLOCK_SHADER) return g_const(g, QT_I64, 0);
        spv_cap(&g->b, SpvCapabilityShaderClockKHR);
        spv_ext(&g->b, "SPV_KHR_shader_clock");
        uint32_t now = G_OP(g, SpvOpReadClockKHR, g_ty(g, QT_U64), g_u32(g, SpvScopeDevice));
        return G_OP(g, SpvOpBitcast, g_ty(g, QT_I64), now);
    }
    }
    unreachable();
}

/* A node the expansion shares (IrExpr.shared) is evaluated once per statement: its first
 * evaluation dominates every later use in the statement's straight-line code. */
uint32_t g_expr(SpvGen *g, const IrExpr *e) {
    if (!e->shared) return expr(g, e);
    uint32_t id = (uint32_t)(uintptr_t)ir_memo_get(&g->shared_ids, e);
    if (!id) ir_memo_put(&g->shared_ids, e, (void *)(uintptr_t)(id = expr(g, e)));
    return id;
}

/* ---- statements ---- */
static void stmt(SpvGen *g, const IrStmt *s);
static void g_print(SpvGen *g, const IrStmt *s);

static void if_stmt(SpvGen *g, const IrStmt *s) {
    uint32_t c = g_expr(g, s->if_.cond);
    uint32_t then = spv_id(&g->b), els = spv_id(&g->b), merge = spv_id(&g->b);
    bool has_else = s->if_.els.n > 0;
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpSelectionMerge, merge, SpvSelectionControlMaskNone);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, c, then, has_else ? els : merge);
    g_label(g, then);
    g_block(g, &s->if_.then);
    bool reached = !has_else || g->cur; /* does any path arrive at the merge block? */
    g_branch(g, merge);
    if (has_else) {
        g_label(g, els);
        g_block(g, &s->if_.els);
        reached = reached || g->cur;
        g_branch(g, merge);
    }
    g_label(g, merge);
    if (!reached) { /* both arms end in break/continue: the merge block is dead */
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpUnreachable);
        g->cur = 0;
    }
}

/* header: LoopMerge; cond block: test; body; continue block: step; back to header. The
 * continue block is emitted even when no path reaches it (body ends in break). */
static void loop(SpvGen *g, const IrExpr *cond, const IrStmt *for_, const IrBlock *body) {
    uint32_t head = spv_id(&g->b), test = spv_id(&g->b), bodyl = spv_id(&g->b);
    uint32_t cont = spv_id(&g->b), merge = spv_id(&g->b), end = 0;
    if (for_) {
        uint32_t begin = g_expr(g, for_->for_.begin);
        end = g_expr(g, for_->for_.end);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, g->local_var[for_->for_.counter], begin);
    }
    g_branch(g, head);
    g_label(g, head);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLoopMerge, merge, cont, SpvLoopControlMaskNone);
    g_branch(g, test);
    g_label(g, test);
    uint32_t c;
    if (for_) {
        QdType ct = g->k->locals[for_->for_.counter].type;
        uint32_t i = G_OP(g, SpvOpLoad, g_ty(g, ct), g->local_var[for_->for_.counter]);
        c = g_binop(g, for_->for_.step > 0 ? IR_LT : IR_GT, ct, i, end);
    } else {
        c = g_expr(g, cond);
    }
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, c, bodyl, merge);
    g_label(g, bodyl);
    vec_push(&g->loops, ((SpvLoop){merge, cont}));
    g_block(g, body);
    g->loops.len--;
    g_branch(g, cont);
    g_label(g, cont);
    if (for_) {
        QdType ct = g->k->locals[for_->for_.counter].type;
        uint32_t var = g->local_var[for_->for_.counter];
        uint32_t i = G_OP(g, SpvOpLoad, g_ty(g, ct), var);
        uint32_t step = g_const(g, ct, (uint64_t)for_->for_.step);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, var, G_OP(g, SpvOpIAdd, g_ty(g, ct), i, step));
    }
    g_branch(g, head);
    g_label(g, merge);
}

static void stmt(SpvGen *g, const IrStmt *s) {
    ir_memo_clear(&g->shared_ids);
    if (g->src_file && s->span.src) { /* -g */
        uint32_t line, col;
        source_line_col(s->span.src, s->span.off, &line, &col);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLine, g->src_file, line, col);
    }
    switch (s->kind) {
    case IR_ASSIGN:
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, g->local_var[s->assign.local], g_expr(g, s->assign.value));
        break;
    case IR_STORE: store_ref(g, s->store.ref, g_expr(g, s->store.value)); break;
    case IR_EVAL: g_expr(g, s->eval); break;
    case IR_IF: if_stmt(g, s); break;
    case IR_WHILE: loop(g, s->while_.cond, NULL, &s->while_.body); break;
    case IR_FOR: loop(g, NULL, s, &s->for_.body); break;
    case IR_BREAK:
    case IR_CONTINUE:
        if (!g->loops.len) die("break/continue outside a loop");
        SpvLoop l = g->loops.items[g->loops.len - 1];
        g_branch(g, s->kind == IR_BREAK ? l.merge : l.cont);
        break;
    case IR_BARRIER: g_barrier(g); break;
    case IR_FENCE: g_fence(g, ir_low_fence(g->low, s)->scope, ir_low_fence(g->low, s)->order); break;
    case IR_ASSERT:
        diag_warning(s->span, QD5181, "assert is compiled out for SPIR-V and MSL targets even with --debug (no way to report)");
        break;
    case IR_PRINT:
        if (g->low->print) g_print(g, s); /* else compiled out: QD5180 from the lowering */
        break;
    }
}

/* print(...) as NonSemantic.DebugPrintf (the print section's debug_printf), which the validation
 * layer's Debug Printf or RenderDoc turn into messages. The format is rewritten into that
 * dialect (%lld and %llu are %ld and %lu); f16/f32 values, which the frontend widened to f64 for
 * "%f", are narrowed back to f32 so that printing needs no Float64; f64 values ("%.12f") stay. */
static void g_print(SpvGen *g, const IrStmt *s) {
    if (!g->printf_set) {
        g->printf_set = spv_id(&g->b);
        if (g->t->minor < 6) spv_ext(&g->b, "SPV_KHR_non_semantic_info"); /* core in SPIR-V 1.6 */
        spv_inst_str(&g->b, SPV_SEC_IMPORT, SpvOpExtInstImport, &g->printf_set, 1, "NonSemantic.DebugPrintf", NULL, 0);
    }
    StrBuf fmt;
    sb_init(&fmt);
    uint32_t w[3 + 64];
    int n = 0;
    for (const char *p = s->print.fmt; *p; p++) {
        if (*p != '%' || p[1] == '%') {
            sb_putc(&fmt, *p);
            if (*p == '%') sb_putc(&fmt, '%'), p++;
            continue;
        }
        size_t len = strcspn(p + 1, "duf") + 2; /* the frontend writes %d %u %lld %llu %f %.12f */
        if (n == s->print.nargs || n == 64) die("print format '%s' has more conversions than values", s->print.fmt);
        const IrExpr *a = s->print.args[n];
        bool narrow = a->type == QT_F64 && len == 2;
        if (len == 4 && p[1] == 'l') sb_printf(&fmt, "%%l%c", p[3]); /* %lld -> %ld, %llu -> %lu */
        else sb_printf(&fmt, "%.*s", (int)len, p);
        uint32_t v;
        if (narrow && a->kind == IR_CONST) v = g_const_num(g, QT_F32, (float)a->c.f, 0); /* no f64 at all */
        else if (narrow && a->kind == IR_CAST && qt_is_float(a->arg->type))
            v = g_convert(g, g_expr(g, a->arg), a->arg->type, QT_F32); /* the value before the widening */
        else v = narrow ? g_convert(g, g_expr(g, a), QT_F64, QT_F32) : g_expr(g, a);
        w[3 + n++] = v;
        p += len - 1;
    }
    uint32_t str = spv_id(&g->b);
    spv_inst_str(&g->b, SPV_SEC_SOURCE, SpvOpString, &str, 1, fmt.data ? fmt.data : "", NULL, 0);
    sb_free(&fmt);
    w[0] = g->printf_set, w[1] = 1 /* DebugPrintf */, w[2] = str;
    g_op(g, SpvOpExtInst, g_ty(g, QT_VOID), 3 + n, w);
}

/* Statements after a break/continue (g->cur == 0: no open block) are unreachable and not
 * emitted, so no dead block ever branches into a construct it is not part of. */
void g_block(SpvGen *g, const IrBlock *blk) {
    for (int i = 0; i < blk->n && g->ok && g->cur; i++) stmt(g, blk->stmts[i]);
}
