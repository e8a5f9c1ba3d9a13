/* Math builtins of the LLVM targets: sin cos tan asin acos atan atan2 exp log tanh pow (float),
 * rsqrt, ceil, round. A target may call its C library (LlvmTarget.math_call: x86 calls libm,
 * which every host links). Without one (NVPTX has no libm; AMDGPU selects only approximate
 * instructions and aborts on the rest) qdc emits its own expansions: one internal function per
 * operation, evaluated in f64 with only fadd/fmul/fdiv/sqrt/floor/fabs/copysign, selects and
 * integer bit operations -- instructions every LLVM GPU backend selects, so no LLVM abort.
 * f16/bf16/f32 arguments are widened to f64 and the result rounded once: within 1 ulp of the
 * true value. f64 accuracy and the argument ranges are in qdc-lang(7), "Math functions". */
#include "llvm_target.h"
#include <math.h>
#include <string.h>

/* ---- f64 building blocks (inside the helper function being built) ---- */
typedef struct {
    LlvmCg *cg;
    LLVMTypeRef d, i64;
} Fx;

static LLVMValueRef K(Fx *f, double v) { return LLVMConstReal(f->d, v); }
static LLVMValueRef add(Fx *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(f->cg->b, a, b, ""); }
static LLVMValueRef sub(Fx *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFSub(f->cg->b, a, b, ""); }
static LLVMValueRef mul(Fx *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(f->cg->b, a, b, ""); }
static LLVMValueRef fdv(Fx *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFDiv(f->cg->b, a, b, ""); }
static LLVMValueRef sel(Fx *f, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildSelect(f->cg->b, c, a, b, ""); }
static LLVMValueRef fcmp(Fx *f, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFCmp(f->cg->b, p, a, b, ""); }
static LLVMValueRef lor(Fx *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildOr(f->cg->b, a, b, ""); }
static LLVMValueRef land(Fx *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildAnd(f->cg->b, a, b, ""); }
static LLVMValueRef intr1(Fx *f, const char *name, LLVMValueRef a) { return cg_call_intrinsic(f->cg, name, &f->d, 1, &a, 1); }
static LLVMValueRef fabs_(Fx *f, LLVMValueRef a) { return intr1(f, "llvm.fabs", a); }
static LLVMValueRef floor_(Fx *f, LLVMValueRef a) { return intr1(f, "llvm.floor", a); }
static LLVMValueRef copysign_(Fx *f, LLVMValueRef mag, LLVMValueRef sgn) {
    LLVMValueRef args[2] = {mag, sgn};
    return cg_call_intrinsic(f->cg, "llvm.copysign", &f->d, 1, args, 2);
}
static LLVMValueRef isnan_(Fx *f, LLVMValueRef a) { return fcmp(f, LLVMRealUNO, a, a); }
static LLVMValueRef sign_bit(Fx *f, LLVMValueRef a) {
    LLVMValueRef bits = LLVMBuildBitCast(f->cg->b, a, f->i64, "");
    return LLVMBuildICmp(f->cg->b, LLVMIntSLT, bits, LLVMConstInt(f->i64, 0, 0), "");
}

/* c[0] + x*(c[1] + x*(... c[n-1])) */
static LLVMValueRef horner(Fx *f, LLVMValueRef x, const double *c, int n) {
    LLVMValueRef r = K(f, c[n - 1]);
    for (int k = n - 2; k >= 0; k--) r = add(f, mul(f, r, x), K(f, c[k]));
    return r;
}

/* Series coefficients (Taylor/Maclaurin): exact rationals rounded to f64 once. */
static void series(double *c, int n, double (*term)(int)) {
    for (int k = 0; k < n; k++) c[k] = term(k);
}
static double fact(int n) { double r = 1; for (int k = 2; k <= n; k++) r *= k; return r; }
static double t_exp(int k) { return 1 / fact(k); }                       /* e^r */
static double t_sin(int k) { return (k & 1 ? -1 : 1) / fact(2 * k + 1); } /* sin r / r in r^2 */
static double t_cos(int k) { return (k & 1 ? -1 : 1) / fact(2 * k); }     /* cos r in r^2 */
static double t_atan(int k) { return (k & 1 ? -1.0 : 1.0) / (2 * k + 1); } /* atan a / a in a^2 */
static double t_atanh(int k) { return 1.0 / (2 * k + 1); }                 /* atanh s / s in s^2 */
static double t_expm1(int k) { return 1 / fact(k + 1); }                   /* expm1(y) / y */

/* ln 2 and pi/2 split so that k * HI is exact for the k that occur (fdlibm's splits). */
#define LN2_HI 0x1.62e42feep-1
#define LN2_LO 1.90821492927058770002e-10
#define PIO2_1 0x1.921fb544p+0
#define PIO2_2 0x1.0b4611a6p-34
#define PIO2_3 0x1.3198a2ep-69

/* 2^k for an integer-valued f64 k in [-1100, 1100], as two normal factors. */
static LLVMValueRef scale2(Fx *f, LLVMValueRef p, LLVMValueRef kf) {
    LLVMBuilderRef b = f->cg->b;
    LLVMValueRef k = LLVMBuildFPToSI(b, kf, f->i64, "");
    LLVMValueRef k1 = LLVMBuildAShr(b, k, LLVMConstInt(f->i64, 1, 0), ""), k2 = LLVMBuildSub(b, k, k1, "");
    LLVMValueRef s[2];
    LLVMValueRef ks[2] = {k1, k2};
    for (int i = 0; i < 2; i++) {
        LLVMValueRef e = LLVMBuildAdd(b, ks[i], LLVMConstInt(f->i64, 1023, 0), "");
        s[i] = LLVMBuildBitCast(b, LLVMBuildShl(b, e, LLVMConstInt(f->i64, 52, 0), ""), f->d, "");
    }
    return mul(f, mul(f, p, s[0]), s[1]);
}

/* e^x: x = k ln2 + r, |r| <= ln2/2, degree-13 series, times 2^k. Saturates to 0 and inf. */
static LLVMValueRef exp_(Fx *f, LLVMValueRef x) {
    LLVMValueRef xc = sel(f, fcmp(f, LLVMRealOLT, x, K(f, -746)), K(f, -746), x);
    xc = sel(f, fcmp(f, LLVMRealOGT, xc, K(f, 710)), K(f, 710), xc);
    xc = sel(f, isnan_(f, x), K(f, 0), xc); /* no poison from fptosi below */
    LLVMValueRef kf = floor_(f, add(f, mul(f, xc, K(f, 1.44269504088896340736)), K(f, 0.5)));
    LLVMValueRef r = sub(f, sub(f, xc, mul(f, kf, K(f, LN2_HI))), mul(f, kf, K(f, LN2_LO)));
    double c[14];
    series(c, 14, t_exp);
    LLVMValueRef res = scale2(f, horner(f, r, c, 14), kf);
    return sel(f, isnan_(f, x), x, res);
}

/* ln x: x = 2^e m, m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh((m-1)/(m+1)) by its series. */
static LLVMValueRef log_(Fx *f, LLVMValueRef x) {
    LLVMBuilderRef b = f->cg->b;
    LLVMValueRef sub_ = fcmp(f, LLVMRealOLT, x, K(f, 2.2250738585072014e-308));
    LLVMValueRef xs = sel(f, sub_, mul(f, x, K(f, 18014398509481984.0 /* 2^54 */)), x);
    LLVMValueRef eadj = sel(f, sub_, K(f, -54), K(f, 0));
    LLVMValueRef bits = LLVMBuildBitCast(b, xs, f->i64, "");
    LLVMValueRef e = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, LLVMConstInt(f->i64, 52, 0), ""), LLVMConstInt(f->i64, 0x7ff, 0), "");
    e = LLVMBuildSub(b, e, LLVMConstInt(f->i64, 1023, 0), "");
    LLVMValueRef mb = LLVMBuildOr(b, LLVMBuildAnd(b, bits, LLVMConstInt(f->i64, 0x000fffffffffffffULL, 0), ""),
                                  LLVMConstInt(f->i64, 0x3ff0000000000000ULL, 0), "");
    LLVMValueRef m = LLVMBuildBitCast(b, mb, f->d, "");
    LLVMValueRef big = fcmp(f, LLVMRealOGT, m, K(f, 1.41421356237309504880));
    m = sel(f, big, mul(f, m, K(f, 0.5)), m);
    LLVMValueRef ef = add(f, add(f, LLVMBuildSIToFP(b, e, f->d, ""), sel(f, big, K(f, 1), K(f, 0))), eadj);
    LLVMValueRef s = fdv(f, sub(f, m, K(f, 1)), add(f, m, K(f, 1)));
    double c[12];
    series(c, 12, t_atanh);
    LLVMValueRef ser = mul(f, mul(f, K(f, 2), s), horner(f, mul(f, s, s), c, 12));
    LLVMValueRef res = add(f, mul(f, ef, K(f, LN2_HI)), add(f, ser, mul(f, ef, K(f, LN2_LO))));
    res = sel(f, fcmp(f, LLVMRealOEQ, x, K(f, 0)), K(f, -INFINITY), res);
    res = sel(f, fcmp(f, LLVMRealOLT, x, K(f, 0)), K(f, NAN), res);
    res = sel(f, fcmp(f, LLVMRealOEQ, x, K(f, INFINITY)), x, res);
    return sel(f, isnan_(f, x), x, res);
}

/* x = k pi/2 + r, |r| <= pi/4 (three-part Cody-Waite: accurate while |x| < 2^20 pi/2);
 * *q = k mod 4 as i64; sin r and cos r by their series. Non-finite x gives NaN (caller). */
static void sincos_(Fx *f, LLVMValueRef x, LLVMValueRef *sr, LLVMValueRef *cr, LLVMValueRef *q) {
    LLVMValueRef fin = fcmp(f, LLVMRealOLT, fabs_(f, x), K(f, INFINITY));
    LLVMValueRef xc = sel(f, fin, x, K(f, 0));
    LLVMValueRef kf = floor_(f, add(f, mul(f, xc, K(f, 0.63661977236758134308)), K(f, 0.5)));
    LLVMValueRef r = sub(f, sub(f, sub(f, xc, mul(f, kf, K(f, PIO2_1))), mul(f, kf, K(f, PIO2_2))), mul(f, kf, K(f, PIO2_3)));
    LLVMValueRef qf = sub(f, kf, mul(f, K(f, 4), floor_(f, mul(f, kf, K(f, 0.25)))));
    *q = LLVMBuildFPToSI(f->cg->b, qf, f->i64, "");
    LLVMValueRef z = mul(f, r, r);
    double cs[9], cc[10];
    series(cs, 9, t_sin), series(cc, 10, t_cos);
    *sr = mul(f, r, horner(f, z, cs, 9));
    *cr = horner(f, z, cc, 10);
}

static LLVMValueRef q_is(Fx *f, LLVMValueRef q, int v) {
    return LLVMBuildICmp(f->cg->b, LLVMIntEQ, q, LLVMConstInt(f->i64, (unsigned long long)v, 0), "");
}

/* sin, cos, tan from the reduced pair: the quadrant picks +-sin r or +-cos r. */
static LLVMValueRef trig(Fx *f, IrMathOp op, LLVMValueRef x) {
    LLVMValueRef s, c, q;
    sincos_(f, x, &s, &c, &q);
    LLVMValueRef ns = LLVMBuildFNeg(f->cg->b, s, ""), nc = LLVMBuildFNeg(f->cg->b, c, ""), res;
    if (op == IR_SIN) res = sel(f, q_is(f, q, 0), s, sel(f, q_is(f, q, 1), c, sel(f, q_is(f, q, 2), ns, nc)));
    else if (op == IR_COS) res = sel(f, q_is(f, q, 0), c, sel(f, q_is(f, q, 1), ns, sel(f, q_is(f, q, 2), nc, s)));
    else {
        LLVMValueRef odd = LLVMBuildTrunc(f->cg->b, q, LLVMInt1TypeInContext(f->cg->ctx), "");
        res = sel(f, odd, fdv(f, nc, s), fdv(f, s, c));
    }
    LLVMValueRef fin = fcmp(f, LLVMRealOLT, fabs_(f, x), K(f, INFINITY));
    return sel(f, fin, res, K(f, NAN));
}

/* atan of a >= 0 (or NaN): 1/a above 1, then atan a = pi/6 + atan((a sqrt3 - 1)/(a + sqrt3))
 * above tan(pi/12); the series on |a| <= 0.268 to a^29. */
static LLVMValueRef atan_pos(Fx *f, LLVMValueRef a) {
    LLVMValueRef inv = fcmp(f, LLVMRealOGT, a, K(f, 1));
    LLVMValueRef a1 = sel(f, inv, fdv(f, K(f, 1), a), a);
    LLVMValueRef big = fcmp(f, LLVMRealOGT, a1, K(f, 0.26794919243112270647));
    const double sqrt3 = 1.73205080756887729353;
    LLVMValueRef a2 = sel(f, big, fdv(f, sub(f, mul(f, a1, K(f, sqrt3)), K(f, 1)), add(f, a1, K(f, sqrt3))), a1);
    double c[15];
    series(c, 15, t_atan);
    LLVMValueRef r = add(f, sel(f, big, K(f, 0.52359877559829887308), K(f, 0)), mul(f, a2, horner(f, mul(f, a2, a2), c, 15)));
    return sel(f, inv, sub(f, K(f, 1.57079632679489661923), r), r);
}

/* atan2(y, x) with C's signs and special cases (both zero, both infinite, NaN). */
static LLVMValueRef atan2_(Fx *f, LLVMValueRef y, LLVMValueRef x) {
    LLVMValueRef ax = fabs_(f, x), ay = fabs_(f, y);
    LLVMValueRef swap = fcmp(f, LLVMRealOGT, ay, ax);
    LLVMValueRef t = fdv(f, sel(f, swap, ax, ay), sel(f, swap, ay, ax));
    LLVMValueRef zero = land(f, fcmp(f, LLVMRealOEQ, ax, K(f, 0)), fcmp(f, LLVMRealOEQ, ay, K(f, 0)));
    LLVMValueRef inf = land(f, fcmp(f, LLVMRealOEQ, ax, K(f, INFINITY)), fcmp(f, LLVMRealOEQ, ay, K(f, INFINITY)));
    t = sel(f, zero, K(f, 0), sel(f, inf, K(f, 1), t));
    LLVMValueRef r = atan_pos(f, t);
    r = sel(f, swap, sub(f, K(f, 1.57079632679489661923), r), r);
    r = sel(f, sign_bit(f, x), sub(f, K(f, 3.14159265358979323846), r), r);
    r = copysign_(f, r, y);
    return sel(f, lor(f, isnan_(f, x), isnan_(f, y)), add(f, x, y), r);
}

/* tanh x = em / (em + 2), em = expm1(2|x|) (series below 1.25, e^y - 1 above); 1 past 22. */
static LLVMValueRef tanh_(Fx *f, LLVMValueRef x) {
    LLVMValueRef a = fabs_(f, x), y = mul(f, a, K(f, 2));
    double c[20];
    series(c, 20, t_expm1);
    LLVMValueRef small = fcmp(f, LLVMRealOLT, y, K(f, 1.25));
    LLVMValueRef em = sel(f, small, mul(f, y, horner(f, y, c, 20)), sub(f, exp_(f, y), K(f, 1)));
    LLVMValueRef r = sel(f, fcmp(f, LLVMRealOGT, a, K(f, 22)), K(f, 1), fdv(f, em, add(f, em, K(f, 2))));
    return sel(f, isnan_(f, x), x, copysign_(f, r, x));
}

/* x ** y as e^(y ln|x|) with C pow's signs and special cases. */
static LLVMValueRef pow_(Fx *f, LLVMValueRef x, LLVMValueRef y) {
    LLVMValueRef ax = fabs_(f, x);
    LLVMValueRef r = exp_(f, mul(f, y, log_(f, ax)));
    LLVMValueRef yint = fcmp(f, LLVMRealOEQ, floor_(f, y), y);
    LLVMValueRef yodd = land(f, yint, fcmp(f, LLVMRealONE, mul(f, floor_(f, mul(f, y, K(f, 0.5))), K(f, 2)), y));
    r = sel(f, land(f, sign_bit(f, x), yodd), LLVMBuildFNeg(f->cg->b, r, ""), r);
    LLVMValueRef negfin = land(f, fcmp(f, LLVMRealOLT, x, K(f, 0)), fcmp(f, LLVMRealONE, x, K(f, -INFINITY)));
    r = sel(f, land(f, negfin, LLVMBuildNot(f->cg->b, yint, "")), K(f, NAN), r);
    r = sel(f, land(f, fcmp(f, LLVMRealOEQ, ax, K(f, 1)), fcmp(f, LLVMRealOEQ, fabs_(f, y), K(f, INFINITY))), K(f, 1), r);
    return sel(f, lor(f, fcmp(f, LLVMRealOEQ, x, K(f, 1)), fcmp(f, LLVMRealOEQ, y, K(f, 0))), K(f, 1), r);
}

/* ---- one internal f64 function per operation, built on first use ---- */
enum { M_POW = IR_ATAN2 + 1 }; /* pow shares the table with the IrMathOp ops */

static LLVMValueRef body(Fx *f, int op, LLVMValueRef a, LLVMValueRef b) {
    LLVMValueRef one = K(f, 1);
    switch (op) {
    case IR_SIN: case IR_COS: case IR_TAN: return trig(f, (IrMathOp)op, a);
    case IR_ATAN: return copysign_(f, atan_pos(f, fabs_(f, a)), a);
    case IR_ASIN: return atan2_(f, a, intr1(f, "llvm.sqrt", mul(f, sub(f, one, a), add(f, one, a))));
    case IR_ACOS: return atan2_(f, intr1(f, "llvm.sqrt", mul(f, sub(f, one, a), add(f, one, a))), a);
    case IR_ATAN2: return atan2_(f, a, b);
    case IR_EXP: return exp_(f, a);
    case IR_LOG: return log_(f, a);
    case IR_TANH: return tanh_(f, a);
    case M_POW: return pow_(f, a, b);
    }
    die("no expansion for math op %d", op);
}

static LLVMValueRef helper(LlvmCg *cg, int op) {
    static const char *const names[] = {[IR_SIN] = "sin", [IR_COS] = "cos", [IR_TAN] = "tan", [IR_ASIN] = "asin",
                                        [IR_ACOS] = "acos", [IR_ATAN] = "atan", [IR_EXP] = "exp", [IR_LOG] = "log",
                                        [IR_TANH] = "tanh", [IR_ATAN2] = "atan2", [M_POW] = "pow"};
    char name[32];
    snprintf(name, sizeof name, "qdc.math.%s.f64", names[op]);
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
    if (fn) return fn;
    LLVMTypeRef d = LLVMDoubleTypeInContext(cg->ctx), params[2] = {d, d};
    unsigned n = op == IR_ATAN2 || op == M_POW ? 2 : 1;
    LLVMBasicBlockRef saved_bb = LLVMGetInsertBlock(cg->b);
    LLVMValueRef saved_fn = cg->fn;
    LLVMMetadataRef saved_loc = LLVMGetCurrentDebugLocation2(cg->b); /* -g: the caller's statement */
    fn = cg_add_function(cg, name, d, params, n);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(cg->ctx, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
    Fx f = {cg, d, LLVMInt64TypeInContext(cg->ctx)};
    LLVMBuildRet(cg->b, body(&f, op, LLVMGetParam(fn, 0), n == 2 ? LLVMGetParam(fn, 1) : NULL));
    cg->fn = saved_fn;
    LLVMPositionBuilderAtEnd(cg->b, saved_bb);
    LLVMSetCurrentDebugLocation2(cg->b, saved_loc);
    return fn;
}

static LLVMValueRef expand(LlvmCg *cg, int op, QdType t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef d = LLVMDoubleTypeInContext(cg->ctx), params[2] = {d, d};
    LLVMValueRef args[2] = {a, b};
    unsigned n = b ? 2 : 1;
    for (unsigned i = 0; i < n; i++)
        if (t != QT_F64) args[i] = LLVMBuildFPExt(cg->b, args[i], d, "");
    LLVMValueRef r = LLVMBuildCall2(cg->b, LLVMFunctionType(d, params, n, 0), helper(cg, op), args, n, "");
    return t == QT_F64 ? r : LLVMBuildFPTrunc(cg->b, r, cg_type(cg, t), "");
}

/* op(a[, b]) on a float type t: the target's C library when it has one, else the expansion. */
static LLVMValueRef transcendental(LlvmCg *cg, int op, QdType t, LLVMValueRef a, LLVMValueRef b) {
    static const char *const libm[] = {[IR_SIN] = "sin", [IR_COS] = "cos", [IR_TAN] = "tan", [IR_ASIN] = "asin",
                                       [IR_ACOS] = "acos", [IR_ATAN] = "atan", [IR_EXP] = "exp", [IR_LOG] = "log",
                                       [IR_TANH] = "tanh", [IR_ATAN2] = "atan2", [M_POW] = "pow"};
    if (!cg->tgt->math_call) return expand(cg, op, t, a, b);
    return cg->tgt->math_call(cg, libm[op], t, a, b);
}

LLVMValueRef cg_math_pow(LlvmCg *cg, QdType t, LLVMValueRef a, LLVMValueRef b) {
    return transcendental(cg, M_POW, t, a, b);
}

LLVMValueRef cg_math(LlvmCg *cg, IrMathOp op, QdType t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef ty = LLVMTypeOf(a);
    switch (op) {
    case IR_CEIL: return cg_call_intrinsic(cg, "llvm.ceil", &ty, 1, &a, 1);
    case IR_ROUND: return cg_call_intrinsic(cg, "llvm.round", &ty, 1, &a, 1);
    case IR_RSQRT: return LLVMBuildFDiv(cg->b, LLVMConstReal(ty, 1), cg_call_intrinsic(cg, "llvm.sqrt", &ty, 1, &a, 1), "");
    case IR_SIN: case IR_COS: case IR_TAN: case IR_ASIN: case IR_ACOS: case IR_ATAN: case IR_EXP: case IR_LOG:
    case IR_TANH: case IR_ATAN2: return transcendental(cg, op, t, a, b);
    default: die("cg_math: op %d is not a float builtin", (int)op);
    }
}
