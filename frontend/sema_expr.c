/* Expressions: names, attributes, subscripts, operators with Quadrants typing (literals i32/f32,
 * qt_promote, `/` true division, explicit IR_CAST so operands share a type), constant folding,
 * and the value builtins (casts, select, min/max, math). Memory builtins are in sema_mem.c. */
#include "sema.h"
#include <ctype.h>
#include <math.h>
#include <string.h>


const char *val_describe(Val v) {
    switch (v.kind) {
    case V_FIELD: return "a field";
    case V_NDARRAY: return "an ndarray";
    case V_SHARED: return "a SharedArray";
    case V_SHAPE: return "an ndarray shape";
    case V_TYPE: return "a type";
    case V_NS: return "a module or builtin";
    case V_FUNC: return "a qd.func";
    case V_KERNEL: return "a kernel";
    case V_TUPLE: return "a tuple";
    case V_NONE: return "None";
    case V_STR: return "a string";
    case V_HOST: return "a run-time value of the script";
    case V_PYFUNC: return "a Python function";
    case V_MODULE: return "a module";
    case V_DISPATCH: return "a qd.perf_dispatch dispatcher (host code)";
    case V_DICT: return "a dict";
    case V_SNODE: return "an SNode";
    case V_VEC: return v.vec.m ? "a matrix" : "a vector";
    case V_VECTYPE: return "a vector or matrix type";
    case V_METHOD: return v.method.self->kind == V_STR ? "a method of a string" : "a method of a vector";
    case V_STRUCT: return "a struct";
    case V_STRUCTTYPE: return "a struct type";
    case V_PYDC: return "a dataclass instance";
    case V_BVIEW: return "a BufferView";
    case V_PYDCTYPE: return "a dataclass type";
    case V_ANNOT: return "a parameter annotation";
    case V_PYINT: return "an integer past 64 bits";
    default: return "a value";
    }
}

/* ---- IR constructors with folding ---- */

bool ir_is_const(const IrExpr *e) { return e && e->kind == IR_CONST; }

IrExpr *sema_local(Sema *S, int local, Span sp) {
    IrExpr *e = irb_new(S->arena, IR_LOCAL, S->locals.items[local].type, sp);
    e->local = local;
    return e;
}

IrExpr *sema_to_bool(Sema *S, IrExpr *e) {
    if (!e || e->type == QT_U1) return e;
    return sema_binary(S, IR_NE, e, irb_int(S->arena, e->type, 0, e->span), e->span);
}

static bool is_cmp(IrBinOp op) { return op >= IR_EQ && op <= IR_GE; }

/* Constant operands fold through the IR's own definition of the operator (ir/expand.c), so a
 * folded constant is what every backend computes at run time. A constant integer division by
 * zero is QD2023 (defined at run time, but never what was meant in a constant). */
static IrExpr *try_fold(Sema *S, IrBinOp op, QdType t, IrExpr *a, IrExpr *b, Span sp) {
    if (!ir_is_const(a) || !ir_is_const(b)) return NULL;
    bool division = op == IR_DIV || op == IR_FLOORDIV || op == IR_MOD || op == IR_REM;
    if (division && !qt_is_float(t) && b->c.u == 0) {
        diag_error(sp, QD2023, "integer division by zero in a constant expression");
        return irb_int(S->arena, is_cmp(op) ? QT_U1 : t, 0, sp);
    }
    Arena scratch = {0}; /* the expansion's intermediate constants: only the result is kept */
    IrExpr *r = ir_expand_binary(&scratch, op, a, b, sp), *c = NULL;
    if (ir_is_const(r)) {
        c = irb_new(S->arena, IR_CONST, r->type, sp);
        c->c = r->c;
    }
    arena_free(&scratch);
    return c;
}

/* ---- Python int constants ----
 * Quadrants evaluates operators on Python ints in Python, exactly, and types the result only
 * where it meets a typed value (make_constant_expr: "Integer literal ... exceeded the range"). So
 * do we: a literal, and an operator on literals, is an exact value (past 64 bits a V_PYINT,
 * py/sema_pyint.c, QD2050 where a kernel needs it) typed by its value (i32 when it fits, else i64, else u64; module level: i64), never a
 * value wrapped to 32 bits. Where it meets a type, range() bounds must fit (QD2012) and an
 * implicit conversion that changes it warns (QD2150, sema_convert). The arithmetic itself is the
 * evaluator's (py/value.c, through Sema.up): sema_binary asks sema_py_fold for two int literals,
 * and a tree of int literals (2**64 - 1) is sema_py_literal_tree's. */
typedef __int128 PyInt; /* up to 64 bits; past them, struct PyInt (frontend/py/pyint.h, py/sema_pyint.c) */

static PyInt lit_value(const IrExpr *e) { return e->type == QT_U64 ? (PyInt)e->c.u : (PyInt)e->c.i; }

static bool is_literal(const IrExpr *e) { return e && e->kind == IR_CONST && e->literal && qt_is_int(e->type); }
bool sema_is_int_literal(const IrExpr *e) { return is_literal(e); }

static IrExpr *lit_const(Sema *S, PyInt v, Span sp) {
    if (v < INT64_MIN || v > (PyInt)UINT64_MAX) {
        diag_error(sp, QD2050, "integer constant expression does not fit in 64 bits");
        v = 0;
    }
    QdType t = !S->k ? (v > INT64_MAX ? QT_U64 : QT_I64)
               : v >= INT32_MIN && v <= INT32_MAX && S->default_ip == QT_I32 ? QT_I32 : v <= INT64_MAX ? QT_I64 : QT_U64;
    IrExpr *e = irb_int(S->arena, t, (int64_t)(uint64_t)v, sp);
    e->literal = true;
    return e;
}

IrExpr *sema_int_literal(Sema *S, PyInt v, Span sp) { return lit_const(S, v, sp); }

/* An implicit conversion of e to t (assignment, store): ir_cast, with a warning when e is a
 * Python int constant whose value t cannot hold (x[0] = 4294967301 stores 5 in an i32). */
IrExpr *sema_convert(Sema *S, IrExpr *e, QdType t) {
    if (is_literal(e) && qt_is_integral(t) && e->type != t) {
        IrExpr *c = irb_cast(S->arena, e, t);
        if (lit_value(c) != lit_value(e)) {
            char was[32], now[32];
            snprintf(was, sizeof was, e->type == QT_U64 ? "%llu" : "%lld", e->type == QT_U64 ? (unsigned long long)e->c.u : (unsigned long long)e->c.i);
            snprintf(now, sizeof now, qt_is_signed(t) ? "%lld" : "%llu", (long long)c->c.i);
            diag_warning(e->span, QD2150, "integer constant %s does not fit %s; it becomes %s", was, qt_name(t), now);
        }
        return c;
    }
    return irb_cast(S->arena, e, t);
}

/* An explicit conversion (qd.i32(x), qd.cast, int()): a Python int becomes a typed value that
 * wraps like any other (Quadrants' cast), so it stops being exact. */
static IrExpr *explicit_cast(Sema *S, IrExpr *e, QdType t) {
    if (is_literal(e)) {
        IrExpr *c = irb_new(S->arena, IR_CONST, e->type, e->span);
        c->c = e->c;
        e = c;
    }
    return irb_cast(S->arena, e, t);
}

static bool op_token(IrBinOp op, int *tok);

IrExpr *sema_binary(Sema *S, IrBinOp op, IrExpr *a, IrExpr *b, Span sp) {
    if (!a || !b) return NULL;
    int tok;
    Val exact;
    if (is_literal(a) && is_literal(b) && op_token(op, &tok) && S->up->sema_py_fold(S, tok, val_expr(a), val_expr(b), sp, &exact))
        return sema_rvalue(S, exact, sp); /* two Python ints: exact (py/value.c) */
    QdType t = op == IR_SHL || op == IR_SHR ? a->type : qt_promote(a->type, b->type);
    if (op == IR_LAND || op == IR_LOR) t = QT_U1, a = sema_to_bool(S, a), b = sema_to_bool(S, b);
    a = irb_cast(S->arena, a, t), b = irb_cast(S->arena, b, t);
    IrExpr *f = try_fold(S, op, t, a, b, sp);
    if (f) return f;
    if (qt_is_int(t)) { /* integer identities keep loop-variable arithmetic readable */
        bool a0 = ir_is_const(a) && a->c.u == 0, b0 = ir_is_const(b) && b->c.u == 0;
        bool a1 = ir_is_const(a) && a->c.u == 1, b1 = ir_is_const(b) && b->c.u == 1;
        if ((op == IR_ADD && a0) || (op == IR_MUL && a1)) return b;
        if (((op == IR_ADD || op == IR_SUB) && b0) || (op == IR_MUL && b1)) return a;
    }
    IrExpr *e = irb_new(S->arena, IR_BINARY, is_cmp(op) ? QT_U1 : t, sp);
    e->bin.op = op, e->bin.a = a, e->bin.b = b;
    return e;
}

/* ---- values ---- */

Val sema_new_value(Sema *S, Val v, Span at) {
    int64_t units = v.kind == V_STR ? (int64_t)strlen(v.path) + 1 : v.kind == V_TUPLE ? (int64_t)v.tuple.n + 1 : 0;
    return !units || budget_charge(&S->budget, EB_SIZE, units, at) ? v : val_err();
}

IrExpr *sema_rvalue(Sema *S, Val v, Span sp) {
    switch (v.kind) {
    case V_ERR: return NULL;
    case V_EXPR:
        if (v.e->type != QT_VOID) return v.e;
        diag_error(sp, QD2019, "'atomic_store' has no value; use it as a statement");
        return NULL;
    case V_LOCAL: return sema_local(S, v.index, sp);
    case V_REF: {
        IrExpr *q = S->quant ? S->up->sema_quant_load(S, v.ref, sp) : NULL; /* a quantized member: decoded */
        if (q) return q;
        IrExpr *e = irb_new(S->arena, IR_LOAD, v.ref->type, sp);
        e->ref = v.ref;
        return e;
    }
    case V_FIELD: case V_NDARRAY: case V_SHARED:
        diag_error(sp, QD2032, "%s cannot be used directly as a value; index it (x[i], or x[None] for a 0-d field)",
                   val_describe(v));
        return NULL;
    case V_VEC:
        diag_error(sp, QD2040, "%s cannot be used where a scalar is needed; index it (v[0], v.x) or reduce it (v.sum(), v.norm())",
                   val_describe(v));
        return NULL;
    case V_PYINT: return S->up->sema_pyint_unfit(S, v, sp, "a kernel integer (i64 or u64)"), NULL;
    default:
        diag_error(sp, QD2019, "%s cannot be used as a scalar value", val_describe(v));
        return NULL;
    }
}

IrExpr *sema_expr(Sema *S, const Expr *e) { return sema_rvalue(S, sema_eval(S, e), e->span); }

bool sema_const_int(Sema *S, const Expr *e, int64_t *out, const char *what) {
    Val v = sema_eval(S, e);
    if (v.kind == V_PYINT) return S->up->sema_pyint_unfit(S, v, e->span, what), false;
    Val x = val_scalar(S, v, e->span);
    if (x.kind == V_ERR) return false;
    if (!val_host_int(x, out)) {
        diag_error(e->span, QD2009, "%s must be a compile-time integer constant", what);
        return false;
    }
    return true;
}

/* Where dimension k of a shape is written: the item of a tuple literal, else the whole shape. */
Span sema_shape_span(const Expr *e, int k) {
    return (e->kind == E_TUPLE || e->kind == E_LIST) && k < e->list.n ? e->list.items[k]->span : e->span;
}

/* A compile-time shape: an integer, or a tuple or list of integers, written in place or named
 * by a module constant (SHAPE = (4, 8)). Returns the number of dimensions, or -1 after an error. */
int sema_const_shape(Sema *S, const Expr *e, int64_t *shape, int maxdims, const char *what) {
    IrStmtVec *cur = S->cur;
    S->cur = NULL; /* a shape emits no code */
    Val v = sema_eval(S, e);
    S->cur = cur;
    if (v.kind == V_ERR) return -1;
    Val *items = &v;
    int n = 1;
    if (v.kind == V_TUPLE) items = v.tuple.items, n = v.tuple.n;
    if (n > maxdims) return diag_error(e->span, QD2009, "%s has at most %d dimensions, got %d", what, maxdims, n), -1;
    for (int k = 0; k < n; k++) {
        if (items[k].kind == V_PYINT) return S->up->sema_pyint_unfit(S, items[k], sema_shape_span(e, k), what), -1;
        if (!val_host_int(items[k], &shape[k])) {
            diag_error(sema_shape_span(e, k), QD2009, "%s must be a compile-time integer or a tuple of them, got %s", what,
                       items[k].kind == V_EXPR ? "a run-time value" : val_describe(items[k]));
            return -1;
        }
    }
    return n;
}

/* qd.math.pi, e, inf, nan (also imported: from quadrants.math import pi) and Python's math.pi, e,
 * tau, inf, nan (import math): Python floats, default_fp in kernels like any float literal. */
static bool math_const(Sema *S, const char *path, Span sp, Val *out) {
    static const struct { const char *name; double v; } consts[] = {
        {"pi", 3.14159265358979323846}, {"e", 2.71828182845904523536}, {"inf", INFINITY}, {"nan", NAN},
        {"tau", 6.28318530717958647692}};
    const char *name = !strncmp(path, "qd.math.", 8) ? path + 8 : !strncmp(path, "math.", 5) ? path + 5 : NULL;
    for (size_t k = 0; name && k < ARRAY_LEN(consts); k++)
        if (!strcmp(consts[k].name, name) && (k < 4 || path[0] == 'm'))
            return *out = val_expr(irb_float(S->arena, S->k ? S->default_fp : QT_F64, consts[k].v, sp)), true;
    return false;
}

/* Python's math module on compile-time numbers (import math): evaluated in double at compile
 * time, as Python evaluates it when Quadrants compiles the kernel; floor, ceil and trunc give
 * ints, isnan/isinf/isfinite bools, the rest floats (default_fp in kernels, like a literal). A
 * run-time argument is QD2009 (Python's math cannot take a Quadrants value: qd.<fn> can), a
 * value outside the function's domain QD2009 as Python's ValueError. */
/* math.prod(iterable, start=1) of compile-time numbers (a tuple, list or shape): an int when all
 * are ints, else a float. */
static Val py_math_prod(Sema *S, const Expr *call) {
    const Expr *start = NULL;
    for (int k = 0; k < call->call.nkw; k++) {
        if (strcmp(call->call.kw[k].name, "start") || start)
            return diag_error(call->call.kw[k].span, QD2007, "math.prod takes (iterable, start=1)"), val_err();
        start = call->call.kw[k].value;
    }
    if (call->call.args.n != 1) return diag_error(call->span, QD2007, "math.prod takes (iterable, start=1)"), val_err();
    Val v = sema_eval(S, call->call.args.items[0]);
    if (v.kind == V_ERR) return v;
    if (v.kind != V_TUPLE)
        return diag_error(call->call.args.items[0]->span, QD2009, "math.prod needs a compile-time tuple or list, got %s", val_describe(v)), val_err();
    IrExpr *r = start ? sema_expr(S, start) : lit_const(S, 1, call->span);
    for (int k = 0; r && k < v.tuple.n; k++) {
        IrExpr *x = sema_rvalue(S, v.tuple.items[k], call->span);
        if (!x || !ir_is_const(x) || !ir_is_const(r))
            return diag_error(call->call.args.items[0]->span, QD2009, "math.prod needs compile-time numbers"), val_err();
        r = sema_binary(S, IR_MUL, r, x, call->span);
    }
    return r ? val_expr(r) : val_err();
}

static Val py_math_call(Sema *S, const Expr *call, const char *p) {
    static const struct { const char *name; int nargs; char result; } fns[] = {
        {"sqrt", 1, 'f'}, {"sin", 1, 'f'}, {"cos", 1, 'f'}, {"tan", 1, 'f'}, {"asin", 1, 'f'}, {"acos", 1, 'f'},
        {"atan", 1, 'f'}, {"sinh", 1, 'f'}, {"cosh", 1, 'f'}, {"tanh", 1, 'f'}, {"exp", 1, 'f'}, {"log", 1, 'f'},
        {"log2", 1, 'f'}, {"log10", 1, 'f'}, {"fabs", 1, 'f'}, {"radians", 1, 'f'}, {"degrees", 1, 'f'},
        {"floor", 1, 'i'}, {"ceil", 1, 'i'}, {"trunc", 1, 'i'}, {"isnan", 1, 'b'}, {"isinf", 1, 'b'},
        {"isfinite", 1, 'b'}, {"atan2", 2, 'f'}, {"pow", 2, 'f'}, {"hypot", 2, 'f'}, {"copysign", 2, 'f'}, {"fmod", 2, 'f'}};
    const char *f = p + 5;
    if (!strcmp(f, "prod")) return py_math_prod(S, call);
    size_t k = 0;
    while (k < ARRAY_LEN(fns) && strcmp(fns[k].name, f)) k++;
    if (k == ARRAY_LEN(fns)) {
        diag_error(call->call.fn->span, QD2008, "'%s' is not supported (Python's math module: qdc evaluates %s)", p,
                   "pi, e, tau, inf, nan and sqrt, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, exp, log, log2, "
                   "log10, pow, hypot, fabs, floor, ceil, trunc, copysign, fmod, radians, degrees, isnan, isinf, isfinite, prod");
        return val_err();
    }
    int n = call->call.args.n, want = fns[k].nargs + (!strcmp(f, "log") && n == 2);
    if (n != want || call->call.nkw)
        return diag_error(call->span, QD2007, "'%s' takes %d argument%s, got %d", p, fns[k].nargs, fns[k].nargs == 1 ? "" : "s", n + call->call.nkw), val_err();
    double x[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        IrExpr *a = sema_expr(S, call->call.args.items[i]);
        if (!a) return val_err();
        if (!ir_is_const(a))
            return diag_error(call->call.args.items[i]->span, QD2009, "%s takes compile-time numbers (Python's math cannot take a "
                              "kernel value); use qd.%s for a run-time value", p, f), val_err();
        x[i] = qt_is_float(a->type) ? a->c.f : qt_is_signed(a->type) ? (double)a->c.i : (double)a->c.u;
    }
    double r = 0;
    bool domain = true;
    switch (k) {
    case 0: domain = x[0] >= 0, r = sqrt(x[0]); break;
    case 1: r = sin(x[0]); break;
    case 2: r = cos(x[0]); break;
    case 3: r = tan(x[0]); break;
    case 4: domain = fabs(x[0]) <= 1, r = asin(x[0]); break;
    case 5: domain = fabs(x[0]) <= 1, r = acos(x[0]); break;
    case 6: r = atan(x[0]); break;
    case 7: r = sinh(x[0]); break;
    case 8: r = cosh(x[0]); break;
    case 9: r = tanh(x[0]); break;
    case 10: r = exp(x[0]); break;
    case 11: domain = x[0] > 0 && (n == 1 || (x[1] > 0 && x[1] != 1)), r = n == 2 ? log(x[0]) / log(x[1]) : log(x[0]); break;
    case 12: domain = x[0] > 0, r = log2(x[0]); break;
    case 13: domain = x[0] > 0, r = log10(x[0]); break;
    case 14: r = fabs(x[0]); break;
    case 15: r = x[0] * (3.14159265358979323846 / 180.0); break;
    case 16: r = x[0] * (180.0 / 3.14159265358979323846); break;
    case 17: domain = isfinite(x[0]), r = floor(x[0]); break;
    case 18: domain = isfinite(x[0]), r = ceil(x[0]); break;
    case 19: domain = isfinite(x[0]), r = trunc(x[0]); break;
    case 20: r = isnan(x[0]); break;
    case 21: r = isinf(x[0]); break;
    case 22: r = isfinite(x[0]); break;
    case 23: r = atan2(x[0], x[1]); break;
    case 24: domain = !(x[0] == 0 && x[1] < 0) && !(x[0] < 0 && x[1] != floor(x[1])), r = pow(x[0], x[1]); break;
    case 25: r = hypot(x[0], x[1]); break;
    case 26: r = copysign(x[0], x[1]); break;
    default: domain = x[1] != 0 && !isinf(x[0]), r = fmod(x[0], x[1]); break;
    }
    if (!domain) return diag_error(call->span, QD2009, "%s: math domain error (Python raises ValueError)", p), val_err();
    if (fns[k].result == 'b') return val_expr(irb_int(S->arena, QT_U1, r != 0, call->span));
    if (fns[k].result == 'i') {
        if (fabs(r) >= 0x1p63) return diag_error(call->span, QD2050, "%s gives an integer that does not fit in 64 bits", p), val_err();
        return val_expr(lit_const(S, (PyInt)(int64_t)r, call->span));
    }
    return val_expr(irb_float(S->arena, S->k ? S->default_fp : QT_F64, r, call->span));
}

/* A fastcache kernel (@qd.kernel(fastcache=True), pure=True, @qd.pure) and the qd.funcs it calls
 * may not read an int, float, bool, string or field captured from the module or an enclosing
 * function: Quadrants raises QuadrantsCompilationError, or only warns when the name is UPPERCASE
 * or inside qd.static(...) (its transition rule). qd types, namespaces, functions and
 * data-oriented objects are not captures. */
bool sema_host_scope(const Sema *S, const Scope *where) {
    bool host = where == &S->module;
    for (int k = 0; k < S->host_scopes.len && !host; k++) host = S->host_scopes.items[k] == where;
    return host;
}

void sema_pure_capture(Sema *S, const Expr *name, const Binding *b, const Scope *where) {
    bool host = sema_host_scope(S, where);
    if (where->library) return; /* a tile method's own constants, as Quadrants' library closures */
    ValKind v = b->v.kind;
    if (!host || !(v == V_FIELD || v == V_STR || val_is_host_scalar(b->v))) return;
    bool upper = true;
    for (const char *c = name->name; *c; c++) upper &= !(*c >= 'a' && *c <= 'z');
    const char *what = v == V_FIELD ? "a field" : v == V_STR ? "a string" : "a constant";
    if (upper || S->in_static) {
        diag_warning(name->span, QD2106, "fastcache kernel '%s' reads %s '%s' captured from outside it%s; pass it as a parameter",
                     S->k->name, what, name->name, upper ? " (an UPPERCASE name: Quadrants warns)" : " (inside qd.static: Quadrants warns)");
        return;
    }
    diag_error(name->span, QD2064, "fastcache kernel '%s' reads %s '%s' captured from outside it; a fastcache (pure) kernel "
               "takes all its data as parameters", S->k->name, what, name->name);
    diag_note(b->decl, "'%s' is set here", name->name);
}

/* np.array([1]), np.zeros(3) ... in a kernel: Python makes the array and Quadrants refuses it
 * as a value (expr.py); true when reported. */
static bool numpy_array_in_kernel(Sema *S, const Expr *call) {
    const Expr *fn = call->call.fn;
    if (fn->kind != E_ATTR || fn->attr.obj->kind != E_NAME) return false;
    Binding *b = sema_lookup(S, fn->attr.obj->name);
    if (!b || b->v.kind != V_HOST || strcmp(b->v.path, "a module the script imports")) return false;
    Val arr;
    int mark = diag_quiet_begin();
    bool ok = S->up->sema_host_array(S, call, &arr);
    diag_quiet_end(mark);
    if (!ok || arr.kind != V_HOSTARRAY || arr.harr.ndim < 1) return false;
    diag_error(call->span, QD2062, "Only 0-dimensional numpy array can be used to initialize a scalar expression (this "
               "%d-dimensional array is made by the script when it runs; a kernel takes an array as an ndarray argument)", arr.harr.ndim);
    return true;
}

static Val eval_name(Sema *S, const Expr *e) {
    static const char *const builtins[] = {"range", "int", "float", "bool", "min", "max", "abs", "pow", "print", "len", "dict",
                                           "all", "any", "sum", "tuple", "list", "enumerate", "zip", "reversed", "chr", "ord"};
    static const char *const host_builtins[] = {"getattr", "str"}; /* host code only (sema_param.c) */
    if (!strncmp(e->name, "$val", 4)) return S->val_slots[e->name[4] - '0']; /* sema_val_node */
    for (Scope *s = S->scope ? S->scope : S->hscope; s; s = s->parent) {
        Binding *b = scope_find(s, e->name);
        if (b && b->v.kind == V_LOCAL && !sema_local_visible(S, b->v.index, e->span)) return val_err();
        if (b && b->v.kind == V_HOSTARRAY && !S->up->sema_np_known(b->v)) b->v = (Val){.kind = V_HOST, .path = "an array the script allocates"};
        if (b && b->v.kind == V_HOST) {
            diag_error(e->span, QD2062, "'%s' is %s, known only when the script runs; kernels can use module "
                                          "constants, fields, qd.func and their own arguments", e->name, b->v.path);
            diag_note(b->decl, "'%s' is set here", e->name);
            if (!diag_quiet_active()) b->v = val_err(); /* reported once (a speculative look reported nothing) */
            return val_err();
        }
        if (b && b->v.kind == V_VEC) { /* a promoted vector: each component a kernel-owned field */
            Val v = S->up->vec_make(S, b->v.vec.n, b->v.vec.m);
            for (int k = 0; k < vec_len(v); k++) v.vec.c[k] = S->up->sema_fresh_ref(S, b->v.vec.c[k], e->span);
            return v;
        }
        Val c;
        if (b && b->v.kind == V_NS && math_const(S, b->v.path, e->span, &c)) return c;
        if (b && S->pure && S->k) sema_pure_capture(S, e, b, s);
        if (b && S->raise_floats && S->k && b->v.kind == V_EXPR && ir_is_const(b->v.e) && qt_is_float(b->v.e->type) && sema_host_scope(S, s)) {
            /* Quadrants' ast_transformer_utils.py, with qd.init(raise_on_templated_floats=True) */
            diag_error(e->span, QD2174, "Not permitted to access floats as global values ('%s', read by kernel '%s'; "
                                        "qd.init(raise_on_templated_floats=True))", e->name, S->k->name);
            diag_note(b->decl, "'%s' is set here", e->name);
            return val_err();
        }
        if (b) return S->up->sema_fresh_ref(S, b->v, e->span);
    }
    if (S->qd_alias && !strcmp(e->name, S->qd_alias)) return (Val){.kind = V_NS, .path = "qd"};
    for (size_t k = 0; k < ARRAY_LEN(builtins); k++)
        if (!strcmp(builtins[k], e->name)) return (Val){.kind = V_NS, .path = builtins[k]};
    for (size_t k = 0; !S->k && k < ARRAY_LEN(host_builtins); k++)
        if (!strcmp(host_builtins[k], e->name)) return (Val){.kind = V_NS, .path = host_builtins[k]};
    VEC(const char *) cands = {0};
    for (Scope *s = S->scope ? S->scope : S->hscope; s; s = s->parent)
        for (int k = 0; k < s->b.len; k++) vec_push(&cands, s->b.items[k].name);
    for (size_t k = 0; k < ARRAY_LEN(builtins); k++) vec_push(&cands, builtins[k]);
    if (S->qd_alias) vec_push(&cands, S->qd_alias);
    const char *near = closest_name(e->name, cands.items, cands.len);
    if (near) diag_fixit(e->span, near);
    diag_error(e->span, QD2001, "Name \"%s\" is not defined%s%s%s", e->name, near ? "; did you mean '" : "", near ? near : "",
               near ? "'?" : "");
    vec_free(&cands);
    return val_err();
}

/* A Python object a kernel can only compare for identity: a type, a namespace (qd.cuda), a
 * string, None, a function. */
static bool is_python_object(Val v) {
    return v.kind == V_TYPE || v.kind == V_NS || v.kind == V_STR || v.kind == V_NONE || v.kind == V_FUNC || v.kind == V_KERNEL;
}

/* The methods Quadrants marks @python_scope on ndarrays and fields (copying to and from numpy or
 * torch, and an ndarray's fill, which a field has in kernels too): in a kernel, Quadrants' assert
 * "NAME cannot be called in Quadrants-scope". */
static bool python_scope_method(Val o, const char *name) {
    static const char *const both[] = {"to_numpy", "from_numpy", "to_torch", "from_torch", "copy_from"};
    for (size_t k = 0; k < ARRAY_LEN(both); k++)
        if (!strcmp(name, both[k])) return true;
    return o.kind == V_NDARRAY && !strcmp(name, "fill");
}

static Val eval_attr(Sema *S, const Expr *e) {
    Val dt;
    if (!S->k && S->up->sema_host_dtype(S, e, &dt)) return dt; /* host code: np.float32 is the qd type it converts to */
    if (S->up->sema_np_shape_value(S, e, &dt)) return dt; /* a.size, a.shape of a numpy array whose shape qdc knows */
    Val o = sema_eval(S, e->attr.obj);
    if (o.kind == V_ERR) return o;
    if (S->up->sema_np_attr(S, o, e->attr.name, e->span, &dt)) return dt; /* a.T, a.dtype of a numpy array qdc computed */
    if (o.kind == V_NDARRAY && !strcmp(e->attr.name, "shape")) return (Val){.kind = V_SHAPE, .index = o.index};
    if (o.kind == V_SHARED && !strcmp(e->attr.name, "shape")) { /* SharedArray.shape: the shape it was made with */
        const IrShared *sh = &S->shared.items[o.index];
        Val t = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, sh->ndim + 1), sh->ndim - sh->elem_ndim}};
        for (int d = 0; d < t.tuple.n; d++) t.tuple.items[d] = val_expr(irb_int(S->arena, QT_I32, sh->shape[d], e->span));
        return t;
    }
    if (o.kind == V_VEC && o.vec.c[0].kind == V_FIELD && !strcmp(e->attr.name, "shape")) o = o.vec.c[0]; /* a vector field as components */
    if (o.kind == V_FIELD && !strcmp(e->attr.name, "shape") && S->fields.items[o.index].ndim >= 0) { /* a tuple of constants */
        const IrField *f = &S->fields.items[o.index];
        Val t = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, f->ndim + 1), f->ndim - f->elem_ndim}};
        for (int d = 0; d < t.tuple.n; d++) t.tuple.items[d] = val_expr(irb_int(S->arena, QT_I32, f->shape[d], e->span));
        return t;
    }
    if (o.kind == V_FIELD && S->fields.items[o.index].elem_ndim && S->fields.items[o.index].ndim >= 0 &&
        (!strcmp(e->attr.name, "n") || !strcmp(e->attr.name, "m"))) { /* a vector or matrix field's element shape */
        const IrField *f = &S->fields.items[o.index];
        int64_t n = f->shape[f->ndim - f->elem_ndim], m = f->elem_ndim == 2 ? f->shape[f->ndim - 1] : 1;
        return val_expr(irb_int(S->arena, QT_I32, e->attr.name[0] == 'n' ? n : m, e->span));
    }
    if (!strcmp(e->attr.name, "dtype") && (o.kind == V_FIELD || (o.kind == V_VEC && vec_len(o) && o.vec.c[0].kind == V_FIELD)))
        return (Val){.kind = V_TYPE, .type = S->fields.items[(o.kind == V_FIELD ? o : o.vec.c[0]).index].type}; /* its element type */
    if (o.kind == V_SNODE) return S->up->sema_snode_attr(S, o, e->attr.name);
    if ((o.kind == V_FIELD || (o.kind == V_VEC && vec_len(o) && o.vec.c[0].kind == V_FIELD)) && (!strcmp(e->attr.name, "snode") || !strcmp(e->attr.name, "parent") || !strcmp(e->attr.name, "append") ||
                                                                                                    !strcmp(e->attr.name, "length") || !strcmp(e->attr.name, "deactivate")))
        return S->up->sema_snode_attr(S, o, e->attr.name); /* x.snode, x.parent() (sema_sparse.c) */
    if (o.kind == V_OBJECT || (o.kind == V_CLASS && S->classes.items[o.index].plain)) return S->up->sema_object_attr(S, o, e);
    if (o.kind == V_MODULE) return sema_module_attr(S, o, e);
    Val list = o; /* x[i].append(v) of a vector, matrix or struct field in a dynamic SNode: its first component's list */
    while ((list.kind == V_VEC && vec_len(list)) || (list.kind == V_STRUCT && list.strct.st->n)) list = list.kind == V_VEC ? list.vec.c[0] : list.strct.m[0];
    if (list.kind == V_SNODE && list.snode.node < 0 && list.snode.idx && !list.snode.method && list.kind != o.kind &&
        (!strcmp(e->attr.name, "append") || !strcmp(e->attr.name, "length") || !strcmp(e->attr.name, "deactivate")))
        return list.snode.method = e->attr.name, list;
    if (o.kind == V_VEC) return S->up->sema_vec_attr(S, o, e->attr.name, e->span);
    if (o.kind == V_STRUCT) return S->up->sema_struct_attr(S, o, e->attr.name, e->span);
    if (o.kind == V_PYDC) return S->up->sema_pydc_attr(S, o, e);
    if (o.kind == V_BVIEW) return S->up->sema_bview_attr(S, o, e->attr.name, e->span);
    if (o.kind == V_DICT && (!strcmp(e->attr.name, "items") || !strcmp(e->attr.name, "keys") || !strcmp(e->attr.name, "values"))) {
        Val m = {.kind = V_METHOD}; /* d.items() ... (sema_lang.c) */
        m.method.self = ARENA_NEW(S->arena, Val);
        *m.method.self = o;
        m.method.name = e->attr.name;
        return m;
    }
    if (o.kind == V_STR && S->up->sema_str_method(e->attr.name)) { /* "".join, "{}".format ... (sema_pystr.c) */
        Val m = {.kind = V_METHOD};
        m.method.self = ARENA_NEW(S->arena, Val);
        *m.method.self = o;
        m.method.name = e->attr.name;
        return m;
    }
    if (!strcmp(e->attr.name, "grad") || !strcmp(e->attr.name, "dual")) { /* x.grad, x.dual (sema_ad.c) */
        Val g = S->up->sema_ad_attr(S, o, e);
        if (g.kind != V_NONE) return g;
    }
    if (o.kind == V_NS && (!strcmp(o.path, "qd.lang.impl.current_cfg()") || !strcmp(o.path, "qd.cfg")))
        return S->up->sema_cfg_attr(S, e->attr.name, e->span); /* qd.cfg is the same object */
    if (o.kind == V_NS && !strcmp(o.path, "qd.lang.impl.get_runtime()") && (!strcmp(e->attr.name, "default_fp") || !strcmp(e->attr.name, "default_ip")))
        return S->up->sema_cfg_attr(S, e->attr.name, e->span); /* the runtime's default types are qd.init's, as the config's */
    if (o.kind == V_NS && !strcmp(o.path, "qd.lang.impl.get_runtime()") && !strcmp(e->attr.name, "prog"))
        return (Val){.kind = V_NS, .path = "qd.lang.impl.get_runtime().prog"};
    if (o.kind == V_NS && !strcmp(o.path, "qd.lang.impl.get_runtime().prog") && !strcmp(e->attr.name, "config"))
        return (Val){.kind = V_NS, .path = "qd.lang.impl.current_cfg"}; /* get_runtime().prog.config() is current_cfg() */
    if (o.kind == V_NS && !strcmp(o.path, "math")) { /* import math */
        char *path = arena_printf(S->arena, "math.%s", e->attr.name);
        Val c;
        return math_const(S, path, e->span, &c) ? c : (Val){.kind = V_NS, .path = path};
    }
    Val lib;
    if (S->up->sema_tile_attr(S, o, e, &lib)) return lib; /* T.zeros, T.SIZE of a qd.simt tile type (sema_tile.c) */
    if (S->up->sema_pylib_attr(S, o, e, &lib)) return lib; /* dataclasses.dataclass, functools.partial */
    if ((o.kind == V_NDARRAY || o.kind == V_FIELD) && python_scope_method(o, e->attr.name)) {
        diag_error(e->span, QD2019, "%s cannot be called in Quadrants-scope (%s's %s runs in host code only)", e->attr.name,
                   val_describe(o), e->attr.name);
        return val_err();
    }
    if (o.kind != V_NS || strncmp(o.path, "qd", 2) != 0) {
        diag_error(e->span, QD2019, "%s has no attribute '%s' in the kernel language", val_describe(o), e->attr.name);
        return val_err();
    }
    if (!strcmp(o.path, "qd")) {
        QdType t = qt_from_name(e->attr.name);
        if (t != QT_VOID) return (Val){.kind = V_TYPE, .type = t};
    }
    Val r = {.kind = V_NS, .path = arena_printf(S->arena, "%s.%s", o.path, e->attr.name)}, t;
    if (math_const(S, r.path, e->span, &t)) return t;
    if (!strcmp(o.path, "qd.types.primitive_types")) { /* real_types, integer_types, all_types: Quadrants' sets, in its source's order */
        static const char *const real[] = {"f16", "f32", "f64", "float"}, *const integer[] = {"i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64", "int", "bool"};
        bool r_ = !strcmp(e->attr.name, "real_types"), i_ = !strcmp(e->attr.name, "integer_types"), a_ = !strcmp(e->attr.name, "all_types");
        if (r_ || i_ || a_) {
            Val set = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, 15), 0}};
            for (size_t k = 0; (r_ || a_) && k < ARRAY_LEN(real); k++)
                set.tuple.items[set.tuple.n++] = qt_from_name(real[k]) != QT_VOID ? (Val){.kind = V_TYPE, .type = qt_from_name(real[k])} : (Val){.kind = V_NS, .path = real[k]};
            for (size_t k = 0; (i_ || a_) && k < ARRAY_LEN(integer); k++)
                set.tuple.items[set.tuple.n++] = qt_from_name(integer[k]) != QT_VOID ? (Val){.kind = V_TYPE, .type = qt_from_name(integer[k])} : (Val){.kind = V_NS, .path = integer[k]};
            return set;
        }
    }
    return S->up->sema_vec_alias(S, r.path, &t) ? t : r;
}

/* A constant index should lie in its axis (extent < 0: an ndarray, whose extent is known at run
 * time only, so only the i32 index range applies): b[-1] and b[16] on a 16-element field address
 * memory outside it, and Quadrants has no negative indexing. Quadrants checks bounds at run time
 * in debug mode only, so code that never runs may hold such an index (`False and f()`): a
 * warning, and under --debug the run-time check (bounds_check) reports it when it runs. */
/* A constant index outside its axis (what: its description): warning QD2111, as the code may never
 * run. In debug mode (--debug, or qd.init(debug=True) in the script) Quadrants checks every access
 * when it runs, so one in code that always runs when the kernel does (its top level, outside any
 * loop, run-time if or qd.func) fails every launch: error QD2172 then, with a note at the host call
 * that launches it (when the script calls it). qdc's own library text
 * (a Tile's load and store) guards each access with a run-time test against the array's shape, so
 * its constant indices past a small array are dead code, not the user's mistake: no warning. */
static void report_oob(Sema *S, Span sp, const char *what) {
    if (sp.src && sp.src->library) return;
    if ((S->debug || S->init_debug) && S->k && !S->dyn && S->loop == LOOP_NONE && !S->ninline) {
        diag_error(sp, QD2172, "%s, and the access runs on every launch of kernel '%s': in debug mode Quadrants' bounds check "
                               "raises there (Out of bound access)", what, S->k->name);
        int d = S->kernel_def ? sema_def_at(S, S->kernel_def) : -1; /* the host call that launches it */
        if (d >= 0 && S->defs.items[d].called)
            diag_note(S->callinst ? S->callinst->span : S->defs.items[d].call_at, "kernel '%s' is called here", S->kernel_def->def.name);
    } else
        diag_warning(sp, QD2111, "%s", what);
}

static void check_const_index(Sema *S, const IrExpr *x, const Expr *src, const char *name, int axis, int64_t extent) {
    if (!ir_is_const(x)) return;
    bool neg = qt_is_signed(x->type) && x->c.i < 0;
    uint64_t v = x->c.u, lim = extent < 0 ? (uint64_t)INT32_MAX + 1 : (uint64_t)extent;
    if (!neg && v < lim) return;
    char what[512];
    if (extent < 0)
        snprintf(what, sizeof what, "index %s%llu is out of bounds for axis %d of '%s' (indices are 0 to 2147483647)",
                 neg ? "-" : "", neg ? 0ull - (unsigned long long)v : (unsigned long long)v, axis, name);
    else
        snprintf(what, sizeof what, "index %s%llu is out of bounds for axis %d of '%s' with size %lld",
                 neg ? "-" : "", neg ? 0ull - (unsigned long long)v : (unsigned long long)v, axis, name, (long long)extent);
    report_oob(S, src->span, what);
}

/* --debug: the index (already less the axis' origin) is checked where it is evaluated, like an
 * assert (Quadrants' debug mode checks every access). extent: the axis' size (NULL: unknown). */
static void bounds_check(Sema *S, IrExpr *x, IrExpr *extent, const char *name, int axis, Span sp) {
    if (!S->debug || !S->cur || !x || !extent) return;
    if (ir_is_const(x) && ir_is_const(extent) && x->c.i >= 0 && x->c.i < extent->c.i) return;
    uint32_t line, col;
    const Source *src = sp.src ? sp.src : S->src; /* the index's own module (an imported kernel) */
    source_line_col(src, sp.off, &line, &col);
    IrStmt *st = sema_stmt_new(S, IR_ASSERT, sp);
    st->assert_.cond = sema_binary(S, IR_LT, irb_cast(S->arena, x, QT_U32), irb_cast(S->arena, extent, QT_U32), sp);
    st->assert_.msg = arena_printf(S->arena, "%s:%d:%d: index out of bounds for axis %d of '%s'", src->name, (int)line, (int)col, axis, name);
    sema_emit(S, st);
}

/* Index expressions of a subscript: x[None] and x[()] have none; x[i, j] has two.
 * shape: the extents of a field or SharedArray, NULL for an ndarray. */
/* origin: a field's offset= (NULL: 0), subtracted from each index (constant ones are checked
 * against [origin, origin + extent)). */
static int eval_indices(Sema *S, const Expr *ix, IrExpr ***out, const char *name, int ndim, const int64_t *shape, const int64_t *origin,
                        int param) {
    const Expr *const *items = (const Expr *const *)&ix;
    int n = 1;
    if (ix->kind == E_NONE) n = 0;
    else if (ix->kind == E_TUPLE) items = (const Expr *const *)ix->list.items, n = ix->list.n;
    *out = ARENA_ARRAY(S->arena, IrExpr *, IR_MAX_DIMS + 2);
    bool ok = true;
    int m = 0;
    for (int k = 0; k < n; k++) {
        bool star = items[k]->kind == E_STARRED; /* x[(i, j, *J)]: the items of J, one index each */
        Val v = sema_eval(S, star ? items[k]->un.a : items[k]);
        if (v.kind == V_TUPLE && (n == 1 || star)) /* x[I] with I = [i_l, i_b] (Genesis' batched index): one index per item */
            v = (Val){.kind = V_VEC, .vec = {v.tuple.items, v.tuple.n, 0}};
        if (star && v.kind != V_ERR && (v.kind != V_VEC || v.vec.m)) {
            diag_error(items[k]->span, QD2011, "'*' in an index unpacks a tuple, list or vector, not %s", val_describe(v));
            return -1;
        }
        int nv = v.kind == V_VEC ? vec_len(v) : 1; /* x[I] with I from qd.grouped: one index per component */
        if (m + nv > IR_MAX_DIMS + 2) {
            diag_error(items[k]->span, QD2011, "too many indices for '%s'", name);
            return -1;
        }
        for (int c = 0; c < nv; c++, m++) {
            IrExpr *x = sema_rvalue(S, v.kind == V_VEC ? v.vec.c[c] : v, items[k]->span);
            if (x && !qt_is_integral(x->type)) {
                diag_error(items[k]->span, QD2011, "array index must be an integer, got %s (indices must be integers, however '%s' is provided "
                           "as index %d)", qt_name(x->type), qt_name(x->type), m);
                x = NULL;
            }
            int64_t o = origin && m < ndim ? origin[m] : 0;
            if (x && o) {
                if (ir_is_const(x) && (x->c.i < o || x->c.i >= o + shape[m])) {
                    char what[512];
                    snprintf(what, sizeof what, "index %lld is out of bounds for axis %d of '%s' (offset=: indices %lld to %lld)",
                             (long long)x->c.i, m, name, (long long)o, (long long)(o + shape[m] - 1));
                    report_oob(S, items[k]->span, what);
                }
                x = sema_binary(S, IR_SUB, irb_cast(S->arena, x, QT_I32), irb_int(S->arena, QT_I32, o, items[k]->span), items[k]->span);
            } else if (x && m < ndim) {
                check_const_index(S, x, items[k], name, m, shape ? shape[m] : -1);
            }
            if (x && m < ndim) {
                IrExpr *ext = shape ? irb_int(S->arena, QT_I32, shape[m], items[k]->span) : NULL;
                if (!shape && param >= 0) {
                    ext = irb_new(S->arena, IR_SHAPE, QT_I32, items[k]->span);
                    ext->shape.param = param, ext->shape.axis = m;
                }
                bounds_check(S, irb_cast(S->arena, x, QT_I32), ext, name, m, items[k]->span);
            }
            ok &= x != NULL;
            (*out)[m] = irb_cast(S->arena, x, QT_I32);
        }
    }
    return ok ? m : -1;
}

/* m[i, :], m[:, j], m[i, a:b] on a matrix variable with a run-time index i (a name: a variable
 * or a scalar argument) beside a
 * slice of compile-time bounds (Quadrants accepts a variable index beside a slice; only the
 * slice's own bounds must be constants): the number of positions the slice selects, in pos[],
 * *sa the sliced axis, *d the index; 0 when e is not of that form (a constant index: the slice
 * path), -1 after an error. */
int sema_runtime_slice(Sema *S, const Expr *e, int *pos, int *sa, const Expr **d) {
    const Expr *ix = e->sub.index, *obj = e->sub.obj;
    if (e->kind != E_SUBSCRIPT || ix->kind != E_TUPLE || ix->list.n != 2 || obj->kind != E_NAME || !S->cur) return 0;
    *sa = ix->list.items[0]->kind == E_SLICE ? 0 : ix->list.items[1]->kind == E_SLICE ? 1 : -1;
    if (*sa < 0) return 0;
    const Expr *sl = ix->list.items[*sa];
    *d = ix->list.items[1 - *sa];
    if ((*d)->kind != E_NAME) return 0;
    Binding *b = sema_lookup(S, obj->name), *ib = sema_lookup(S, (*d)->name);
    bool runtime = ib && (ib->v.kind == V_LOCAL || (ib->v.kind == V_EXPR && !val_is_host_scalar(ib->v))); /* a variable or an argument */
    if (!b || b->v.kind != V_VEC || !b->v.vec.m || !runtime) return 0;
    int n = *sa == 0 ? b->v.vec.n : b->v.vec.m, cnt = 0;
    int64_t step = 1;
    if (sl->slice.step && !sema_const_int(S, sl->slice.step, &step, "a slice step")) return -1;
    if (!step) return diag_error(sl->slice.step->span, QD2042, "slice step cannot be zero"), -1;
    int64_t bnd[2] = {step > 0 ? 0 : n - 1, step > 0 ? n : -1};
    const Expr *parts[2] = {sl->slice.lo, sl->slice.hi};
    for (int k = 0; k < 2; k++) { /* Python's slice.indices(n) */
        if (!parts[k]) continue;
        if (!sema_const_int(S, parts[k], &bnd[k], "Quadrants does not support variables in slice now: a slice bound")) return -1;
        if (bnd[k] < 0) bnd[k] += n;
        if (bnd[k] < 0) bnd[k] = step > 0 ? 0 : -1;
        if (bnd[k] >= n) bnd[k] = step > 0 ? n : n - 1;
    }
    for (int64_t i = bnd[0]; (step > 0 ? i < bnd[1] : i > bnd[1]) && cnt < QD_VEC_MAX; i += step) pos[cnt++] = (int)i;
    if (!cnt) return diag_error(ix->span, QD2042, "the slice selects no components"), -1;
    return cnt;
}

/* m[i, pos] of that form: the subscript of one selected position (lit, items: the caller's). */
void sema_runtime_slice_at(const Expr *e, int sa, const Expr *d, int pos, Expr *lit, Expr *pair, Expr **items, Expr *sub) {
    *lit = (Expr){.kind = E_INT, .span = e->sub.index->span, .i = (uint64_t)pos};
    *pair = (Expr){.kind = E_TUPLE, .span = e->sub.index->span};
    items[1 - sa] = (Expr *)d, items[sa] = lit;
    pair->list.items = items, pair->list.n = 2;
    *sub = *e, sub->sub.index = pair;
}

/* The value of that form: the row or column's selected components, each read at the run-time index. */
static bool slice_beside_runtime_index(Sema *S, const Expr *e, Val *out) {
    int pos[QD_VEC_MAX], sa;
    const Expr *d;
    int cnt = sema_runtime_slice(S, e, pos, &sa, &d);
    if (!cnt) return false;
    if (cnt < 0) return *out = val_err(), true;
    Val o = sema_lookup(S, e->sub.obj->name)->v, r = S->up->vec_make(S, cnt, 0);
    for (int k = 0; k < cnt; k++) {
        Expr lit, pair, sub, *items[2];
        sema_runtime_slice_at(e, sa, d, pos[k], &lit, &pair, items, &sub);
        r.vec.c[k] = S->up->sema_vec_subscript(S, o, &pair, e->span);
        if (r.vec.c[k].kind == V_ERR) return *out = val_err(), true;
    }
    return *out = r, true;
}

static Val eval_subscript(Sema *S, const Expr *e) {
    bool sliced;
    Val dv;
    if (S->up->sema_np_rooted(S, e->sub.obj)) { /* a[2], a[1:] of a numpy array qdc computed (py/sema_npvalue.c) */
        Val o = sema_eval(S, e->sub.obj);
        if (o.kind == V_ERR) return o;
        if (S->up->sema_np_subscript(S, o, e->sub.index, e->span, &dv)) return dv;
        if (S->up->sema_np_known(o)) {
            diag_error(e->sub.index->span, QD2011, "a numpy array's index must be compile-time integers or slices within its shape");
            return val_err();
        }
        Expr *c = ARENA_NEW(S->arena, Expr);
        *c = *e;
        c->sub.obj = S->up->sema_value_expr(S, o, e->sub.obj->span);
        e = c;
    }
    if (slice_beside_runtime_index(S, e, &dv)) return dv;
    Val sv = S->up->sema_slice_subscript(S, e, &sliced);
    if (sliced) return sv;
    Val o = sema_eval(S, e->sub.obj);
    if (o.kind == V_ERR) return o;
    if (o.kind == V_OBJECT && S->classes.items[o.obj->cls].plain) { /* obj[i] of a plain class: its __getitem__, run at compile time */
        Expr *attr = ARENA_NEW(S->arena, Expr), *call = ARENA_NEW(S->arena, Expr);
        *attr = (Expr){.kind = E_ATTR, .span = e->span};
        attr->attr.obj = e->sub.obj, attr->attr.name = "__getitem__";
        Val m = S->up->sema_object_attr(S, o, attr);
        if (m.kind != V_PYFUNC) return val_err();
        *call = (Expr){.kind = E_CALL, .span = e->span};
        call->call.fn = attr, call->call.args.items = ARENA_ARRAY(S->arena, Expr *, 1), call->call.args.n = 1;
        call->call.args.items[0] = e->sub.index;
        return S->up->sema_pyfunc_call(S, call, m.def);
    }
    if (o.kind == V_STR) { /* s[k]: one character, as a string */
        Val *items;
        int n;
        S->up->sema_iter_items(S, e->sub.obj, &items, &n);
        o = (Val){.kind = V_TUPLE, .tuple = {items, n}};
    }
    if (o.kind == V_SHAPE || o.kind == V_TUPLE) {
        int64_t k;
        if (!sema_const_int(S, e->sub.index, &k, "the index of a shape or compile-time list")) return val_err();
        int n = o.kind == V_SHAPE ? S->params.items[o.index].ndim - S->params.items[o.index].elem_ndim : o.tuple.n; /* vector ndarrays: the element axes are not in .shape */
        if (k < 0 && k >= -n) k += n; /* Python: a.shape[-1] is the last axis */
        if (k < 0 || k >= n) {
            diag_error(e->sub.index->span, QD2011, "index %lld is out of range for %s of length %d", (long long)k, val_describe(o), n);
            return val_err();
        }
        if (o.kind == V_TUPLE) return o.tuple.items[k];
        return val_expr(S->up->sema_ndarray_shape(S, o.index, (int)k, e->span));
    }
    if (o.kind == V_VEC && o.vec.m && e->sub.index->kind == E_NAME) { /* m[J], J = (i, j) from qd.static(qd.grouped(...)) */
        Binding *jb = sema_lookup(S, e->sub.index->name);
        Val j = jb ? jb->v : val_err();
        Val *ji = j.kind == V_TUPLE ? j.tuple.items : j.kind == V_VEC && !j.vec.m ? j.vec.c : NULL;
        int jn = j.kind == V_TUPLE ? j.tuple.n : j.kind == V_VEC ? j.vec.n : 0;
        IrExpr *a = ji && jn == 2 && ji[0].kind == V_EXPR ? ji[0].e : NULL, *b = ji && jn == 2 && ji[1].kind == V_EXPR ? ji[1].e : NULL;
        if (a && b && ir_is_const(a) && ir_is_const(b) && qt_is_integral(a->type) && qt_is_integral(b->type) &&
            !(qt_is_signed(a->type) && a->c.i < 0) && !(qt_is_signed(b->type) && b->c.i < 0)) {
            Expr lit[2], pair = {.kind = E_TUPLE, .span = e->sub.index->span}, *items[2] = {&lit[0], &lit[1]};
            for (int k = 0; k < 2; k++) lit[k] = (Expr){.kind = E_INT, .span = e->sub.index->span, .i = (ji[k].e)->c.u};
            pair.list.items = items, pair.list.n = 2;
            return S->up->sema_vec_subscript(S, o, &pair, e->span);
        }
    }
    if (o.kind == V_VEC) return S->up->sema_vec_subscript(S, o, e->sub.index, e->span);
    if (o.kind == V_STRUCT) return S->up->sema_struct_subscript(S, o, e);
    if (o.kind == V_DICT) return S->up->sema_dict_get(S, o, e->sub.index);
    if (o.kind == V_BVIEW) return S->up->sema_bview_subscript(S, o, e);
    IrRef *r = ARENA_NEW(S->arena, IrRef);
    r->span = e->span;
    r->index = o.index;
    int ndim, edim = 0, en = 0, em = 0;
    const char *name;
    const int64_t *shape = NULL, *origin = NULL;
    if (o.kind == V_FIELD) {
        IrField *f = &S->fields.items[o.index];
        r->kind = IR_REF_FIELD, r->type = f->type, ndim = f->ndim, name = f->name, shape = f->shape, origin = f->origin;
        if (ndim < 0) return val_err(); /* never placed: reported at its declaration */
        edim = f->elem_ndim;
        if (edim) en = (int)f->shape[ndim - edim], em = edim == 2 ? (int)f->shape[ndim - 1] : 0;
    } else if (o.kind == V_NDARRAY) {
        IrParam *p = &S->params.items[o.index];
        if (p->builder) { /* only K[i, j] += v and -= v (sema_builder.c) */
            diag_error(e->span, QD2010, "Only operations '+=' and '-=' are supported on sparse matrices.");
            return val_err();
        }
        r->kind = IR_REF_NDARRAY, r->type = p->type, ndim = p->ndim, name = p->name;
        edim = p->elem_ndim, en = p->elem_shape[0], em = p->elem_shape[1];
    } else if (o.kind == V_SHARED) {
        IrShared *sh = &S->shared.items[o.index];
        r->kind = IR_REF_SHARED, r->type = sh->type, ndim = sh->ndim, name = sh->name, r->space = QSPACE_SHARED;
        shape = sh->shape, edim = sh->elem_ndim;
        if (edim) en = (int)sh->shape[ndim - edim], em = edim == 2 ? (int)sh->shape[ndim - 1] : 0;
    } else {
        diag_error(e->span, QD2011, "%s is not subscriptable", val_describe(o));
        return val_err();
    }
    r->nidx = eval_indices(S, e->sub.index, &r->idx, name, ndim - edim, shape, origin, o.kind == V_NDARRAY ? o.index : -1);
    if (r->nidx < 0) return val_err();
    if (o.kind == V_NDARRAY && r->nidx == ndim - edim) S->up->sema_ndarray_permute(&S->params.items[o.index], r->idx); /* a layout= ndarray */
    if (edim && r->nidx == ndim - edim) return S->up->sema_vec_ref(S, r, en, em); /* before any SNode flattening */
    if (o.kind == V_FIELD && !edim && r->nidx == ndim - 1 && S->fields.items[o.index].nlevels &&
        S->fields.items[o.index].levels[S->fields.items[o.index].nlevels - 1].sparse == IR_SNODE_DYNAMIC) /* x[i]: a list (x[i].append(v)) */
        return (Val){.kind = V_SNODE, .snode = {-(o.index + 1), NULL, 0, r->idx, r->nidx}};
    ndim -= edim;
    if (o.kind == V_FIELD && S->quant) S->up->sema_quant_subscript(S, o.index, r);
    if (o.kind == V_FIELD && S->fields.items[o.index].storage && r->nidx == ndim)
        r->flat = S->up->sema_snode_flat(S, &S->fields.items[o.index], r->idx, e->span);
    if (r->nidx != ndim) {
        diag_error(e->sub.index->span, QD2011, "'%s' has %d dimension%s but %d index%s given%s", name, ndim,
                   ndim == 1 ? "" : "s", r->nidx, r->nidx == 1 ? " was" : "es were",
                   ndim == 0 ? "; index a 0-d field with [None]" : "");
        return val_err();
    }
    return (Val){.kind = V_REF, .ref = r};
}

/* ---- operators ---- */

static const struct { int tok; IrBinOp op; const char *spelling; } binops[] = {
    {T_PLUS, IR_ADD, "+"}, {T_MINUS, IR_SUB, "-"}, {T_STAR, IR_MUL, "*"}, {T_SLASH, IR_DIV, "/"},
    {T_FDIV, IR_FLOORDIV, "//"}, {T_PERCENT, IR_MOD, "%"}, {T_POW, IR_POW, "**"}, {T_AMP, IR_AND, "&"},
    {T_PIPE, IR_OR, "|"}, {T_CARET, IR_XOR, "^"}, {T_SHL, IR_SHL, "<<"}, {T_SHR, IR_SHR, ">>"},
    {T_EQ, IR_EQ, "=="}, {T_NE, IR_NE, "!="}, {T_LT, IR_LT, "<"}, {T_LE, IR_LE, "<="},
    {T_GT, IR_GT, ">"}, {T_GE, IR_GE, ">="},
};

/* The Python operator whose IR operator op is (false: none, such as IR_REM or IR_MAX). */
static bool op_token(IrBinOp op, int *tok) {
    for (size_t k = 0; k < ARRAY_LEN(binops); k++)
        if (binops[k].op == op) return *tok = binops[k].tok, true;
    return false;
}

/* qd.f32(0), qd.i32(0.5), qd.u16(-1): Quadrants' make_constant_expr annotates a literal with the
 * type, and rejects a type of the other kind or an integer past the type's range (a value that
 * is not a literal is cast: qd.cast(0, qd.f32) and qd.f32(x) of a variable x are casts). */
static bool literal_annotation(Sema *S, const Expr *a, QdType t) {
    PyInt v;
    const Expr *f = a->kind == E_UNARY && (a->op == T_MINUS || a->op == T_PLUS) ? a->un.a : a;
    if (t == QT_U1) return true;
    if (f->kind == E_FLOAT && qt_is_integral(t)) {
        diag_error(a->span, QD2171, "Floating-point literals must be annotated with a floating-point type. For type casting, use "
                                    "`qd.cast`. (qd.%s of a float literal)", qt_name(t));
        return false;
    }
    if (!S->up->sema_py_literal_tree(a, &v)) return true;
    if (qt_is_float(t)) {
        diag_error(a->span, QD2171, "Integer literals must be annotated with a integer type. For type casting, use `qd.cast`. "
                                    "(qd.%s of an integer literal; write a float literal such as 1.0)", qt_name(t));
        return false;
    }
    int bits = qt_bits(t);
    PyInt lo = qt_is_signed(t) ? -((PyInt)1 << (bits - 1)) : 0;
    PyInt hi = qt_is_signed(t) ? ((PyInt)1 << (bits - 1)) - 1 : ((PyInt)1 << bits) - 1;
    if (v < INT64_MIN || v > (PyInt)UINT64_MAX) return true; /* past 64 bits: the big-int path reports it */
    if (v < lo || v > hi) {
        if (v < 0) diag_error(a->span, QD2171, "Integer literal %lld exceeded the range of specified dtype: %s", (long long)v, qt_name(t));
        else diag_error(a->span, QD2171, "Integer literal %llu exceeded the range of specified dtype: %s", (unsigned long long)v, qt_name(t));
        return false;
    }
    return true;
}

/* A Python binary operator with Quadrants typing; tok is the operator's token kind. */
IrExpr *sema_binop_tok(Sema *S, int tok, IrExpr *a, IrExpr *b, Span sp) {
    if (!a || !b) return NULL;
    size_t k = 0;
    while (k < ARRAY_LEN(binops) && binops[k].tok != tok) k++;
    if (k == ARRAY_LEN(binops)) die("no IR operator for token %d", tok);
    IrBinOp op = binops[k].op;
    bool bitwise = op == IR_AND || op == IR_OR || op == IR_XOR || op == IR_SHL || op == IR_SHR;
    if (bitwise && (!qt_is_integral(a->type) || !qt_is_integral(b->type))) {
        diag_error(sp, QD2006, "operator '%s' requires integer operands, got %s and %s (unsupported operand type(s) for '%s': '%s' and "
                   "'%s')", binops[k].spelling, qt_name(a->type), qt_name(b->type), binops[k].spelling, qt_name(a->type), qt_name(b->type));
        return NULL;
    }
    if (op == IR_DIV) { /* true division: the result is a float */
        QdType t = qt_promote(a->type, b->type);
        if (!qt_is_float(t)) t = QT_F32;
        return sema_binary(S, IR_DIV, irb_cast(S->arena, a, t), irb_cast(S->arena, b, t), sp);
    }
    return sema_binary(S, op, a, b, sp);
}

/* Stores a value used twice (chained comparisons) in a temporary unless it is trivial. */
static IrExpr *reusable(Sema *S, IrExpr *e) {
    if (!e || e->kind == IR_CONST || e->kind == IR_LOCAL || e->kind == IR_PARAM || !S->cur) return e;
    int l = sema_new_local(S, "$cmp", e->type);
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, e->span);
    st->assign.local = l, st->assign.value = e;
    sema_emit(S, st);
    return sema_local(S, l, e->span);
}

static IrExpr *eval_compare(Sema *S, const Expr *e) {
    IrExpr *result = NULL, *a = sema_expr(S, e->cmp.items.items[0]);
    for (int k = 1; k < e->cmp.items.n; k++) {
        IrExpr *b = sema_expr(S, e->cmp.items.items[k]);
        if (k + 1 < e->cmp.items.n) b = reusable(S, b);
        IrExpr *c = sema_binop_tok(S, e->cmp.ops[k - 1], a, b, e->span);
        if (!c) return NULL;
        result = result ? sema_binary(S, IR_LAND, result, c, e->span) : c;
        a = b;
    }
    return result;
}

static IrExpr *eval_unary(Sema *S, const Expr *e) {
    IrExpr *a = sema_expr(S, e->un.a);
    if (!a) return NULL;
    if (e->op == T_PLUS) return a;
    /* Quadrants' logic_not and bit_not take integral inputs only (a Python float constant is
     * Python's business: `not 0.5` is False) */
    if (e->op == T_KW_NOT && qt_is_float(a->type) && !ir_is_const(a)) {
        diag_error(e->span, QD2006, "operator 'not' requires an integer or bool operand, got %s (Quadrants: \"'logic_not' takes "
                                    "integral inputs only, however '%s' is provided\")", qt_name(a->type), qt_name(a->type));
        return NULL;
    }
    if (e->op == T_KW_NOT) return sema_binary(S, IR_EQ, sema_to_bool(S, a), irb_int(S->arena, QT_U1, 0, e->span), e->span);
    if (e->op == T_TILDE && !qt_is_integral(a->type)) {
        diag_error(e->span, QD2006, "operator '~' requires an integer operand, got %s (Quadrants: \"'bit_not' takes integral inputs "
                                    "only, however '%s' is provided\")", qt_name(a->type), qt_name(a->type));
        return NULL;
    }
    if (e->op == T_MINUS && a->type == QT_U1) a = irb_cast(S->arena, a, QT_I32);
    if (is_literal(a)) return lit_const(S, e->op == T_MINUS ? -lit_value(a) : ~lit_value(a), e->span);
    if (ir_is_const(a)) {
        if (e->op == T_MINUS && qt_is_float(a->type)) return irb_float(S->arena, a->type, -a->c.f, e->span);
        IrExpr *c = irb_new(S->arena, IR_CONST, a->type, e->span);
        ir_set_int_const(c, a->type, e->op == T_MINUS ? (uint64_t)0 - a->c.u : ~a->c.u);
        return c;
    }
    IrExpr *u = irb_new(S->arena, IR_UNARY, a->type, e->span);
    u->un.op = e->op == T_MINUS ? IR_NEG : IR_BITNOT;
    u->un.a = a;
    return u;
}

static IrExpr *eval_ifexp(Sema *S, const Expr *e) {
    IrExpr *c = sema_to_bool(S, sema_expr(S, e->ifexp.cond));
    IrExpr *a = sema_expr(S, e->ifexp.a), *b = sema_expr(S, e->ifexp.b);
    if (!c || !a || !b) return NULL;
    QdType t = qt_promote(a->type, b->type);
    a = irb_cast(S->arena, a, t), b = irb_cast(S->arena, b, t);
    if (ir_is_const(c)) return c->c.u ? a : b;
    if ((ir_has_effects(a) || ir_has_effects(b)) && S->cur) { /* evaluate only the chosen side */
        int l = sema_new_local(S, "$ifexp", t);
        IrStmt *st = sema_stmt_new(S, IR_IF, e->span), *sa = sema_stmt_new(S, IR_ASSIGN, e->span);
        IrStmt *sb = sema_stmt_new(S, IR_ASSIGN, e->span);
        sa->assign.local = sb->assign.local = l, sa->assign.value = a, sb->assign.value = b;
        st->if_.cond = c;
        st->if_.then.stmts = ARENA_ARRAY(S->arena, IrStmt *, 1), st->if_.then.stmts[0] = sa, st->if_.then.n = 1;
        st->if_.els.stmts = ARENA_ARRAY(S->arena, IrStmt *, 1), st->if_.els.stmts[0] = sb, st->if_.els.n = 1;
        sema_emit(S, st);
        return sema_local(S, l, e->span);
    }
    IrExpr *s = irb_new(S->arena, IR_SELECT, t, e->span);
    s->sel.cond = c, s->sel.a = a, s->sel.b = b;
    return s;
}

static Val eval_tuple(Sema *S, const Expr *e) {
    Val t = {.kind = V_TUPLE};
    t.tuple.n = e->list.n;
    t.tuple.items = ARENA_ARRAY(S->arena, Val, e->list.n ? e->list.n : 1);
    for (int k = 0; k < e->list.n; k++) {
        t.tuple.items[k] = sema_eval(S, e->list.items[k]);
        if (t.tuple.items[k].kind == V_ERR) return val_err();
    }
    return t;
}


static Val bool_op(Sema *S, const Expr *e);
static Val cond_expr(Sema *S, const Expr *e);

/* np.int64(v), np.float32(v) ... in host code, np a module the script imports: the type numpy
 * converts v to (QT_VOID when call is not one). */
QdType sema_numpy_scalar(Sema *S, const Expr *call) {
    const Expr *fn = call->call.fn;
    if (S->k || call->call.args.n != 1 || call->call.nkw || fn->kind != E_ATTR || fn->attr.obj->kind != E_NAME ||
        call->call.args.items[0]->kind == E_STARRED)
        return QT_VOID;
    Binding *b = sema_lookup(S, fn->attr.obj->name);
    if (!b || b->v.kind != V_HOST || strcmp(b->v.path, "a module the script imports")) return QT_VOID;
    return S->up->sema_numpy_dtype(S, fn);
}

/* np.cos(0), np.arctan2(y, x), np.sqrt(2) ... in host code, np a module the script imports: the
 * math function numpy's ufunc computes on Python numbers ("math.cos", "math.atan2"), as a
 * float64 (numpy's floor, ceil and rounding give floats, not ints: not these); NULL when call
 * is not one. */
const char *sema_numpy_math(Sema *S, const Expr *call) {
    static const char *const fns[][2] = {
        {"sin", "math.sin"}, {"cos", "math.cos"}, {"tan", "math.tan"}, {"arcsin", "math.asin"}, {"arccos", "math.acos"},
        {"arctan", "math.atan"}, {"arctan2", "math.atan2"}, {"sinh", "math.sinh"}, {"cosh", "math.cosh"}, {"tanh", "math.tanh"},
        {"exp", "math.exp"}, {"log", "math.log"}, {"log2", "math.log2"}, {"log10", "math.log10"}, {"sqrt", "math.sqrt"},
        {"hypot", "math.hypot"}, {"fabs", "math.fabs"}, {"radians", "math.radians"}, {"degrees", "math.degrees"}};
    const Expr *fn = call->call.fn;
    if (S->k || call->call.nkw || fn->kind != E_ATTR || fn->attr.obj->kind != E_NAME) return NULL;
    for (int k = 0; k < call->call.args.n; k++)
        if (call->call.args.items[k]->kind == E_STARRED) return NULL;
    Binding *b = sema_lookup(S, fn->attr.obj->name);
    if (!b || b->v.kind != V_HOST || strcmp(b->v.path, "a module the script imports") ||
        (strcmp(fn->attr.obj->name, "np") && strcmp(fn->attr.obj->name, "numpy")))
        return NULL;
    for (size_t k = 0; k < ARRAY_LEN(fns); k++)
        if (!strcmp(fns[k][0], fn->attr.name)) return fns[k][1];
    return NULL;
}

/* pytest.param(...) in host code, `pytest` being the module the script imports (an opaque one). */
bool sema_pytest_param(Sema *S, const Expr *e) {
    const Expr *fn = e->call.fn;
    if (S->k || fn->kind != E_ATTR || strcmp(fn->attr.name, "param") || fn->attr.obj->kind != E_NAME ||
        strcmp(fn->attr.obj->name, "pytest"))
        return false;
    for (int k = 0; k < e->call.args.n; k++)
        if (e->call.args.items[k]->kind == E_STARRED) return false;
    Binding *b = sema_lookup(S, "pytest");
    return b && b->v.kind == V_HOST;
}

Val sema_eval(Sema *S, const Expr *e) {
    switch (e->kind) {
    case E_ERROR: return val_err();
    case E_STARRED: case E_SLICE: case E_COMP: case E_LAMBDA: case E_VALUE: return S->up->sema_lang_eval(S, e);
    case E_NAME: return eval_name(S, e);
    /* module level approximates Python's numbers (i64 / f64); the constant is narrowed to a
     * literal's type (i32 or i64 / f32) when it is bound, see sema.c module_assign */
    case E_INT: return val_expr(lit_const(S, (PyInt)e->i, e->span));
    case E_FLOAT: return val_expr(irb_float(S->arena, S->k ? S->default_fp : QT_F64, e->f, e->span));
    case E_BOOL: return val_expr(irb_int(S->arena, QT_U1, e->b, e->span));
    case E_NONE: return (Val){.kind = V_NONE};
    case E_STR: return e->fstr ? S->up->sema_fstring(S, e) : (Val){.kind = V_STR, .path = e->str};
    case E_ATTR: return eval_attr(S, e);
    case E_SUBSCRIPT: return eval_subscript(S, e);
    case E_TUPLE: case E_LIST: return (e = S->up->sema_unpack(S, e)) ? eval_tuple(S, e) : val_err();
    case E_CALL: {
        if (sema_pytest_param(S, e)) { /* pytest.param(v1, v2, id=..., marks=...): the values parametrize gives the test */
            if (e->call.args.n == 1) return sema_eval(S, e->call.args.items[0]);
            Expr t = {.kind = E_TUPLE, .span = e->span};
            t.list = e->call.args;
            return eval_tuple(S, &t);
        }
        Val shp;
        if (S->up->sema_np_shape_value(S, e, &shp)) return shp; /* len(a) of a numpy array whose shape qdc knows */
        QdType npt = sema_numpy_scalar(S, e);
        if (npt != QT_VOID) { /* np.int64(0): a number of that type */
            Val v = sema_eval(S, e->call.args.items[0]);
            if (v.kind == V_ERR) return v;
            IrExpr *x = sema_rvalue(S, v, e->call.args.items[0]->span);
            return x ? val_expr(explicit_cast(S, x, npt)) : val_err();
        }
        if (S->k && numpy_array_in_kernel(S, e)) return val_err();
        if (S->up->sema_np_call(S, e, &shp)) return shp; /* np.array(...), a.reshape(...): numpy's value (py/sema_npvalue.c) */
        const char *npm = sema_numpy_math(S, e);
        if (npm) { /* np.cos(0): math.cos's value; a number qdc cannot compute (an array, a domain error) stays numpy's */
            int mark = diag_quiet_begin();
            Val v = sema_call(S, e, (Val){.kind = V_NS, .path = npm});
            if (!diag_quiet_end(mark) && v.kind != V_ERR) return v;
        }
        Val f = sema_eval(S, e->call.fn);
        for (int k = 0; f.kind == V_FUNC && S->cur && k < e->call.args.n; k++) /* Quadrants' pruning of a qd.func call's arguments */
            if (e->call.args.items[k]->kind == E_STARRED && (k != e->call.args.n - 1 || e->call.nkw))
                return diag_error(e->call.args.items[k]->span, QD2171, "* args can only be present as the last argument of a "
                                  "function (STARNOTLAST)"), val_err();
        if (f.kind != V_ERR && !(e = S->up->sema_unpack(S, e))) return val_err();
        if (f.kind == V_SNODE || (f.kind == V_NS && !strncmp(f.path, "qd.root.", 8))) return S->up->sema_snode_call(S, e, f);
        if (f.kind == V_NS && !strcmp(f.path, "qd.FieldsBuilder")) return S->up->sema_snode_builder(S, e);
        return f.kind == V_ERR ? f : sema_call(S, e, f);
    }
    case E_UNARY: {
        Val a = sema_eval(S, e->un.a), npv;
        if (a.kind == V_ERR) return a;
        if (S->up->sema_np_unary(S, e->op, a, e->span, &npv)) return npv; /* -a of a numpy array qdc computed */
        if (a.kind == V_VEC) return S->up->sema_vec_unary(S, e, a); /* `not v` too: element-wise, Quadrants' logical_not */
        Val exact;
        if (S->up->sema_pyint_unary(S, e->op, a, e->span, &exact)) return exact;
        Expr fake = *e;
        fake.un.a = (Expr *)S->up->sema_val_node(S, a, 0, e->un.a->span);
        return val_expr(eval_unary(S, &fake));
    }
    case E_BINARY: {
        PyInt exact;
        if (S->up->sema_py_literal_tree(e, &exact) && exact >= INT64_MIN && exact <= (PyInt)UINT64_MAX)
            return val_expr(lit_const(S, exact, e->span)); /* 2**64 - 1 */
        Val a = sema_eval(S, e->bin.a), b = sema_eval(S, e->bin.b), str;
        if (a.kind == V_ERR || b.kind == V_ERR) return val_err();
        if (a.kind == V_FIELD || b.kind == V_FIELD) { /* Python's TypeError in Quadrants */
            size_t k = 0;
            while (k < ARRAY_LEN(binops) && binops[k].tok != e->op) k++;
            diag_error(e->span, QD2032, "unsupported operand type(s) for '%s': %s and %s; index the field (x[i], or x[None] for a 0-d field)",
                       k < ARRAY_LEN(binops) ? binops[k].spelling : "@", val_describe(a), val_describe(b));
            return val_err();
        }
        if (S->up->sema_np_binary(S, e->op, a, b, e->span, &str)) return str; /* numpy arrays qdc computed: element-wise */
        if (S->up->sema_pyint_binary(S, e->op, &a, &b, e->span, &str)) return str; /* Python ints: exact */
        a = S->up->sema_list_as_vec(S, a, b), b = S->up->sema_list_as_vec(S, b, a);
        if (S->up->sema_str_binary(S, e->op, a, b, &str, e->span) || S->up->sema_tuple_binary(S, e->op, a, b, &str, e->span)) return sema_new_value(S, str, e->span);
        if (a.kind == V_VEC || b.kind == V_VEC || e->op == T_AT) return S->up->sema_vec_binary(S, e->op, a, b, e->span);
        return val_expr(sema_binop_tok(S, e->op, sema_rvalue(S, a, e->bin.a->span), sema_rvalue(S, b, e->bin.b->span), e->span));
    }
    case E_BOOLOP: return bool_op(S, e);
    case E_COMPARE: {
        if (S->up->sema_is_static_compare(e)) return S->up->sema_lang_eval(S, e);
        if (e->cmp.items.n != 2) return val_expr(eval_compare(S, e));
        Val a = sema_eval(S, e->cmp.items.items[0]), b = sema_eval(S, e->cmp.items.items[1]);
        if (a.kind == V_ERR || b.kind == V_ERR) return val_err();
        int op = e->cmp.ops[0];
        if ((op == T_EQ || op == T_NE) && (is_python_object(a) || is_python_object(b))) {
            /* dtype == qd.f32, arch == qd.cuda, s == "add": Python compares the objects when the kernel compiles */
            bool runtime = (a.kind == V_EXPR && !val_is_host_scalar(a)) || (b.kind == V_EXPR && !val_is_host_scalar(b)) ||
                           a.kind == V_LOCAL || a.kind == V_REF || b.kind == V_LOCAL || b.kind == V_REF;
            int r = runtime ? -1 : S->up->sema_same_value(S, a, b);
            if (r < 0) {
                diag_error(e->span, QD2009, "'%s' between %s and %s compares compile-time values only (Quadrants evaluates it in Python)",
                           op == T_EQ ? "==" : "!=", runtime && !is_python_object(a) ? "a run-time value" : val_describe(a),
                           runtime && !is_python_object(b) ? "a run-time value" : val_describe(b));
                return val_err();
            }
            return val_expr(irb_int(S->arena, QT_U1, op == T_EQ ? r : !r, e->span));
        }
        Val exact;
        if (S->up->sema_pyint_compare(S, op, a, b, e->span, &exact)) return exact;
        a = S->up->sema_list_as_vec(S, a, b), b = S->up->sema_list_as_vec(S, b, a);
        if (a.kind == V_VEC || b.kind == V_VEC) return S->up->sema_vec_binary(S, e->cmp.ops[0], a, b, e->span);
        return val_expr(sema_binop_tok(S, e->cmp.ops[0], sema_rvalue(S, a, e->cmp.items.items[0]->span),
                                       sema_rvalue(S, b, e->cmp.items.items[1]->span), e->span));
    }
    case E_IFEXP: return cond_expr(S, e);
    case E_NAMED: return sema_named_expr(S, e);
    }
    unreachable();
}

/* ---- and / or ---- */

/* An operand whose evaluation may fault or has an effect: a load (its index may be valid only
 * when the left operand says so), an atomic or collective, an integer division. */
static bool unsafe_operand(const IrExpr *e, void *ctx) {
    (void)ctx;
    if (e->kind == IR_LOAD || e->kind == IR_MEMOP || e->kind == IR_SUBGROUP) return true;
    return e->kind == IR_BINARY && qt_is_integral(e->type) &&
           (e->bin.op == IR_DIV || e->bin.op == IR_FLOORDIV || e->bin.op == IR_MOD || e->bin.op == IR_REM);
}

/* Code evaluated into its own statement list (S->cur NULL: compile time, no list). */
static Val eval_into(Sema *S, const Expr *e, IrStmtVec *pre) {
    IrStmtVec *saved = S->cur;
    if (saved) S->cur = pre;
    Val v = sema_eval(S, e);
    S->cur = saved;
    return v;
}

static IrExpr *select_(Sema *S, IrExpr *c, IrExpr *a, IrExpr *b, Span sp) {
    QdType t = qt_promote(a->type, b->type);
    if (ir_is_const(c)) return irb_cast(S->arena, c->c.u ? a : b, t);
    IrExpr *s = irb_new(S->arena, IR_SELECT, t, sp);
    s->sel.cond = c, s->sel.a = irb_cast(S->arena, a, t), s->sel.b = irb_cast(S->arena, b, t);
    return s;
}

/* `c ? a-code-then-a : b-code-then-b` as a local: only the chosen side's statements run. */
static IrExpr *branch_local(Sema *S, IrExpr *c, IrStmtVec *pa, IrExpr *a, IrStmtVec *pb, IrExpr *b, const char *name, Span sp) {
    QdType t = qt_promote(a->type, b->type);
    int l = sema_new_local(S, name, t);
    IrStmt *st = sema_stmt_new(S, IR_IF, sp), *sa = sema_stmt_new(S, IR_ASSIGN, sp), *sb = sema_stmt_new(S, IR_ASSIGN, sp);
    sa->assign.local = sb->assign.local = l, sa->assign.value = irb_cast(S->arena, a, t), sb->assign.value = irb_cast(S->arena, b, t);
    vec_push(pa, sa);
    vec_push(pb, sb);
    st->if_.cond = c, st->if_.then = sema_freeze(S, pa), st->if_.els = sema_freeze(S, pb);
    sema_emit(S, st);
    return sema_local(S, l, sp);
}

/* a if c else b as in Python: only the chosen side is evaluated. A side that needs statements
 * (an inlined qd.func) or may fault (a load, an integer division) or has an effect runs under
 * an if; pure sides become a select. A vector condition is QD2040 (Quadrants: use qd.select);
 * vector sides (a scalar side is used for every component) are chosen component by component. */
static Val cond_expr(Sema *S, const Expr *e) {
    Val cv = sema_eval(S, e->ifexp.cond);
    if (cv.kind == V_VEC) {
        diag_error(e->ifexp.cond->span, QD2040, "a vector condition in `a if c else b`: use qd.select(c, a, b) to choose "
                                                 "component by component (Quadrants: \"Please use \"qd.select\" instead.\")");
        return val_err();
    }
    IrExpr *c = cv.kind == V_ERR ? NULL : sema_to_bool(S, sema_rvalue(S, cv, e->ifexp.cond->span));
    if (c && ir_is_const(c) && (!S->k || S->pyfunc_depth)) /* Python code run at compile time: only the side chosen */
        return sema_eval(S, c->c.u ? e->ifexp.a : e->ifexp.b); /* (fib(n - 1) when n < 2 would never end) */
    IrStmtVec pa = {0}, pb = {0};
    Val av = eval_into(S, e->ifexp.a, &pa), bv = eval_into(S, e->ifexp.b, &pb);
    if (!c || av.kind == V_ERR || bv.kind == V_ERR) return vec_free(&pa), vec_free(&pb), val_err();
    if (!ir_is_const(c)) /* (i, j) if c else (j, i) at run time: Quadrants makes each tuple of scalars a vector and selects */
        for (int k = 0; k < 2; k++) {
            Val *t = k ? &bv : &av;
            bool scalars = t->kind == V_TUPLE && t->tuple.n > 0 && t->tuple.n <= QD_VEC_MAX;
            for (int j = 0; scalars && j < t->tuple.n; j++) {
                ValKind q = t->tuple.items[j].kind;
                scalars = q == V_EXPR || q == V_LOCAL || q == V_REF;
            }
            if (scalars) *t = (Val){.kind = V_VEC, .vec = {t->tuple.items, t->tuple.n, 0}};
        }
    bool scalar_a = av.kind == V_EXPR || av.kind == V_LOCAL || av.kind == V_REF || av.kind == V_VEC,
         scalar_b = bv.kind == V_EXPR || bv.kind == V_LOCAL || bv.kind == V_REF || bv.kind == V_VEC;
    if (ir_is_const(c) && (!scalar_a || !scalar_b)) { /* qd.Vector.field if b else qd.Vector.ndarray: Python's choice */
        for (int j = 0; j < (c->c.u ? pa.len : pb.len); j++) sema_emit(S, c->c.u ? pa.items[j] : pb.items[j]);
        vec_free(&pa), vec_free(&pb);
        return c->c.u ? av : bv;
    }
    bool vec = av.kind == V_VEC || bv.kind == V_VEC;
    if (ir_is_const(c) || vec) { /* decided at compile time, or vector sides: both sides' code runs */
        IrStmtVec *both[2] = {c->c.u || !ir_is_const(c) ? &pa : NULL, !c->c.u || !ir_is_const(c) ? &pb : NULL};
        for (int k = 0; k < 2; k++)
            for (int j = 0; both[k] && j < both[k]->len; j++) sema_emit(S, both[k]->items[j]);
        vec_free(&pa), vec_free(&pb);
        bool objects = av.kind != V_EXPR && av.kind != V_LOCAL && av.kind != V_REF;
        objects |= bv.kind != V_EXPR && bv.kind != V_LOCAL && bv.kind != V_REF;
        if (!vec && ir_is_const(c) && objects) return c->c.u ? av : bv; /* `qd.field if flag else qd.ndarray` */
        if (!vec) {
            IrExpr *ra = sema_rvalue(S, av, e->ifexp.a->span), *rb = sema_rvalue(S, bv, e->ifexp.b->span);
            return ra && rb ? val_expr(select_(S, c, ra, rb, e->span)) : val_err();
        }
        Val shape = av.kind == V_VEC ? av : bv;
        if (av.kind == V_VEC && bv.kind == V_VEC && (av.vec.n != bv.vec.n || av.vec.m != bv.vec.m)) {
            diag_error(e->span, QD2040, "the sides of `a if c else b` are %s and %s of other shapes (Cannot broadcast tensor to tensor)",
                       val_describe(av), val_describe(bv));
            return val_err();
        }
        Val out = S->up->vec_make(S, shape.vec.n, shape.vec.m);
        for (int k = 0; k < vec_len(out); k++) {
            IrExpr *x = sema_rvalue(S, av.kind == V_VEC ? av.vec.c[k] : av, e->ifexp.a->span);
            IrExpr *y = sema_rvalue(S, bv.kind == V_VEC ? bv.vec.c[k] : bv, e->ifexp.b->span);
            if (!x || !y) return val_err();
            out.vec.c[k] = val_expr(select_(S, c, x, y, e->span));
        }
        return out;
    }
    IrExpr *a = sema_rvalue(S, av, e->ifexp.a->span), *b = sema_rvalue(S, bv, e->ifexp.b->span);
    if (!a || !b) return vec_free(&pa), vec_free(&pb), val_err();
    if ((!pa.len && !pb.len && !ir_expr_any(a, unsafe_operand, NULL) && !ir_expr_any(b, unsafe_operand, NULL)) || !S->cur) {
        vec_free(&pa), vec_free(&pb);
        return val_expr(select_(S, c, a, b, e->span));
    }
    return val_expr(branch_local(S, c, &pa, a, &pb, b, "$ifexp", e->span));
}

/* Vector operands of and/or: element-wise logical and/or (u1 components; a scalar operand is
 * used for every component), every operand evaluated, as Quadrants does for vectors. */
static Val vec_bool_op(Sema *S, const Expr *e, Val first) {
    Val r = first;
    for (int k = 1; k < e->list.n; k++) {
        Val b = sema_eval(S, e->list.items[k]);
        if (b.kind == V_ERR) return b;
        Val shape = r.kind == V_VEC ? r : b;
        if (shape.kind != V_VEC || (r.kind == V_VEC && b.kind == V_VEC && (r.vec.n != b.vec.n || r.vec.m != b.vec.m))) {
            diag_error(e->span, QD2040, "'%s' of vectors of different shapes", e->op == T_KW_AND ? "and" : "or");
            return val_err();
        }
        Val out = S->up->vec_make(S, shape.vec.n, shape.vec.m);
        for (int c = 0; c < vec_len(out); c++) {
            IrExpr *x = sema_to_bool(S, sema_rvalue(S, r.kind == V_VEC ? r.vec.c[c] : r, e->span));
            IrExpr *y = sema_to_bool(S, sema_rvalue(S, b.kind == V_VEC ? b.vec.c[c] : b, e->span));
            IrExpr *z = sema_binary(S, e->op == T_KW_AND ? IR_LAND : IR_LOR, x, y, e->span);
            if (!z) return val_err();
            out.vec.c[c] = val_expr(z);
        }
        r = out;
    }
    return r;
}

/* a and b / a or b as in Python (Quadrants' default, short_circuit_operators=True): the value
 * of the operand that decides (`x and y` is y when x is true, else x; comparisons give u1), and
 * b is evaluated only when a does not decide. A constant a decides at compile time (b is
 * still checked, its code dropped; inside qd.static(...) this is Python's rule); a b that needs
 * statements (an inlined qd.func) or may fault runs under an if; otherwise both are evaluated
 * and combined (no observable difference). */
static Val bool_op(Sema *S, const Expr *e) {
    bool and_ = e->op == T_KW_AND;
    Val first = sema_eval(S, e->list.items[0]);
    if (first.kind == V_ERR || first.kind == V_VEC) return first.kind == V_VEC ? vec_bool_op(S, e, first) : first;
    IrExpr *r = sema_rvalue(S, first, e->list.items[0]->span);
    for (int k = 1; k < e->list.n; k++) {
        IrStmtVec pre = {0};
        Val bv = eval_into(S, e->list.items[k], &pre);
        IrExpr *b = bv.kind == V_ERR ? NULL : sema_rvalue(S, bv, e->list.items[k]->span);
        IrExpr *rc = r ? sema_to_bool(S, r) : NULL;
        if (!rc || !b || !S->cur) {
            vec_free(&pre);
            r = rc && b ? select_(S, rc, and_ ? b : r, and_ ? r : b, e->span) : NULL;
            continue;
        }
        if (ir_is_const(rc)) { /* decided here: b's code runs only when a does not decide */
            if ((rc->c.u != 0) == and_) {
                for (int j = 0; j < pre.len; j++) sema_emit(S, pre.items[j]);
                r = b;
            }
            vec_free(&pre);
            continue;
        }
        bool both_u1 = r->type == QT_U1 && b->type == QT_U1;
        if (!pre.len && !ir_expr_any(b, unsafe_operand, NULL)) {
            r = both_u1 ? sema_binary(S, and_ ? IR_LAND : IR_LOR, r, b, e->span) : select_(S, rc, and_ ? b : r, and_ ? r : b, e->span);
            continue;
        }
        if (r->kind != IR_LOCAL && r->kind != IR_PARAM) { /* read once: it is also the result */
            int l = sema_new_local(S, and_ ? "$and_l" : "$or_l", r->type);
            IrStmt *st = sema_stmt_new(S, IR_ASSIGN, e->span);
            st->assign.local = l, st->assign.value = r;
            sema_emit(S, st);
            r = sema_local(S, l, e->span), rc = sema_to_bool(S, r);
        }
        IrStmtVec keep = {0};
        r = and_ ? branch_local(S, rc, &pre, b, &keep, r, "$and", e->span) : branch_local(S, rc, &keep, r, &pre, b, "$or", e->span);
    }
    return r ? val_expr(r) : val_err();
}

/* ---- value builtins ---- */

static bool check_args(Sema *S, const Expr *call, const char *name, int min, int max) {
    int n = call->call.args.n;
    if (call->call.nkw) {
        diag_error(call->call.kw[0].span, QD2007, "'%s' takes no keyword arguments", name);
        return false;
    }
    if (n < min || n > max) {
        if (min == max) diag_error(call->span, QD2007, "'%s' takes %d argument%s, got %d", name, min, min == 1 ? "" : "s", n);
        else diag_error(call->span, QD2007, "'%s' takes %d to %d arguments, got %d", name, min, max, n);
        return false;
    }
    return true;
}

static IrExpr *arg(Sema *S, const Expr *call, int k) { return sema_expr(S, call->call.args.items[k]); }

static bool type_arg(Sema *S, const Expr *call, int k, QdType *t) {
    Val v = sema_eval(S, call->call.args.items[k]);
    if (v.kind == V_TYPE) return *t = v.type, true;
    if (sema_py_scalar(S, v, t)) return true;
    if (v.kind != V_ERR) diag_error(call->call.args.items[k]->span, QD2019, "expected a type such as qd.f32, got %s", val_describe(v));
    return false;
}

static IrExpr *math1(Sema *S, IrMathOp op, IrExpr *a, QdType t, Span sp) {
    if (!a) return NULL;
    IrExpr *m = irb_new(S->arena, IR_MATH, t, sp);
    m->math.op = op;
    m->math.a = irb_cast(S->arena, a, t);
    return m;
}

static IrExpr *min_max(Sema *S, const Expr *call, const char *name, IrBinOp op) {
    Val *items;
    int n;
    if (call->call.args.n == 1 && !call->call.nkw && !S->cur) { /* host code: Python's max(iterable) of a compile-time one */
        int mark = diag_quiet_begin();
        bool ok = sema_iter_items(S, call->call.args.items[0], &items, &n);
        if (diag_quiet_end(mark)) ok = false;
        IrExpr *r = ok && n ? sema_rvalue(S, items[0], call->span) : NULL;
        for (int k = 1; r && k < n; k++) r = sema_binary(S, op, r, sema_rvalue(S, items[k], call->span), call->span);
        if (r) return r;
    }
    if (call->call.args.n < 2) {
        diag_error(call->span, QD2007, "'%s' takes at least 2 arguments, got %d", name, call->call.args.n);
        return NULL;
    }
    IrExpr *r = arg(S, call, 0);
    for (int k = 1; k < call->call.args.n; k++) r = sema_binary(S, op, r, arg(S, call, k), call->span);
    return r;
}

static IrExpr *bit_cast(Sema *S, const Expr *call) {
    QdType t;
    IrExpr *a = arg(S, call, 0);
    if (!type_arg(S, call, 1, &t) || !a) return NULL;
    if (qt_bits(t) != qt_bits(a->type) || t == QT_U1) {
        diag_error(call->span, QD2021, "qd.bit_cast needs types of the same width, got %s to %s", qt_name(a->type), qt_name(t));
        return NULL;
    }
    if (t == a->type) return a;
    IrExpr *b = irb_new(S->arena, IR_BITCAST, t, call->span);
    b->arg = a;
    return b;
}

static IrExpr *int_math(Sema *S, const Expr *call, const char *name, IrMathOp op) {
    IrExpr *a = arg(S, call, 0);
    if (a && !qt_is_int(a->type)) {
        diag_error(call->span, QD2006, "'%s' requires an integer operand, got %s (Quadrants: \"'%s' takes integral inputs only, "
                                       "however '%s' is provided\")", name, qt_name(a->type), strrchr(name, '.') + 1, qt_name(a->type));
        return NULL;
    }
    return a ? math1(S, op, a, a->type, call->span) : NULL;
}

static IrExpr *float_math(Sema *S, const Expr *call, IrMathOp op, const char *name) {
    IrExpr *a = arg(S, call, 0);
    bool real_only = op == IR_FLOOR || op == IR_CEIL || op == IR_ROUND || op == IR_SIN || op == IR_ASIN || op == IR_COS ||
                     op == IR_ACOS || op == IR_TAN || op == IR_TANH; /* Quadrants' frontend_ir.cpp, UnaryOpExpression */
    if (a && real_only && !qt_is_float(a->type) && !ir_is_const(a) && a->type != QT_VOID) /* a constant is Python's: numpy's op */
        return diag_error(call->call.args.items[0]->span, QD2006, "'%s' takes real inputs only, however '%s' is provided", name,
                          qt_name(a->type)), NULL;
    return a ? math1(S, op, a, qt_is_float(a->type) ? a->type : QT_F32, call->span) : NULL;
}

/* atan2(y, x): both operands in their promoted float type (integers promote to f32). */
static IrExpr *atan2_math(Sema *S, const Expr *call) {
    IrExpr *y = arg(S, call, 0), *x = arg(S, call, 1);
    if (!y || !x) return NULL;
    QdType t = qt_promote(y->type, x->type);
    if (!qt_is_float(t)) t = QT_F32;
    IrExpr *m = math1(S, IR_ATAN2, y, t, call->span);
    m->math.b = irb_cast(S->arena, x, t);
    return m;
}

/* clamp(x, lo, hi) = min(max(x, lo), hi), Quadrants' definition (qd.math.clamp). */
static IrExpr *clamp(Sema *S, const Expr *call) {
    IrExpr *x = arg(S, call, 0), *lo = arg(S, call, 1), *hi = arg(S, call, 2);
    return sema_binary(S, IR_MIN, sema_binary(S, IR_MAX, x, lo, call->span), hi, call->span);
}

/* The float math builtins: qd.<name> and qd.math.<name>; the argument's float type, or f32. */
static const struct { const char *name; IrMathOp op; } float_builtins[] = {
    {"sqrt", IR_SQRT}, {"floor", IR_FLOOR}, {"ceil", IR_CEIL}, {"round", IR_ROUND}, {"rsqrt", IR_RSQRT},
    {"sin", IR_SIN}, {"cos", IR_COS}, {"tan", IR_TAN}, {"asin", IR_ASIN}, {"acos", IR_ACOS}, {"atan", IR_ATAN},
    {"exp", IR_EXP}, {"log", IR_LOG}, {"tanh", IR_TANH},
};

static int float_builtin(const char *p) {
    if (!strncmp(p, "qd.math.", 8)) p += 8;
    else if (!strncmp(p, "qd.", 3)) p += 3;
    else return -1;
    for (size_t k = 0; k < ARRAY_LEN(float_builtins); k++)
        if (!strcmp(float_builtins[k].name, p)) return (int)k;
    return -1;
}

/* floor/ceil/round(x, dtype=None): the optional dtype casts the result (Quadrants ops.py). */
static Val float_builtin_call(Sema *S, const Expr *call, const char *p, int k) {
    bool has_dtype = float_builtins[k].op == IR_FLOOR || float_builtins[k].op == IR_CEIL || float_builtins[k].op == IR_ROUND;
    const Expr *dt = call->call.args.n == 2 ? call->call.args.items[1] : NULL;
    for (int j = 0; j < call->call.nkw; j++) {
        if (!has_dtype || strcmp(call->call.kw[j].name, "dtype") || dt) {
            diag_error(call->call.kw[j].span, QD2007, "'%s' has no keyword argument '%s'", p, call->call.kw[j].name);
            return val_err();
        }
        dt = call->call.kw[j].value;
    }
    int n = call->call.args.n;
    if (n < 1 || n > (has_dtype ? 2 : 1) || (n == 2 && call->call.nkw)) {
        diag_error(call->span, QD2007, "'%s' takes %s argument%s, got %d", p, has_dtype ? "1 or 2" : "1", has_dtype ? "s" : "",
                   n + call->call.nkw);
        return val_err();
    }
    IrExpr *r = float_math(S, call, float_builtins[k].op, float_builtins[k].name);
    if (r && dt && !(dt->kind == E_NONE)) {
        QdType t;
        Expr fake = {.kind = E_CALL, .span = call->span};
        const Expr *items[2] = {call->call.args.items[0], dt};
        fake.call.args.items = (Expr **)items, fake.call.args.n = 2;
        if (!type_arg(S, &fake, 1, &t)) return val_err();
        r = irb_cast(S->arena, r, t);
    }
    return r ? val_expr(r) : val_err();
}

/* One row per value builtin: name (qd.* spelled with "qd."), argument counts. */
static const struct { const char *name; int min, max; } value_builtins[] = {
    {"int", 1, 1}, {"float", 1, 1}, {"bool", 1, 1}, {"abs", 1, 1}, {"qd.abs", 1, 1}, {"pow", 2, 2},
    {"qd.cast", 2, 2}, {"qd.bit_cast", 2, 2}, {"qd.select", 3, 3}, {"qd.atan2", 2, 2}, {"qd.math.atan2", 2, 2},
    {"qd.pow", 2, 2}, {"qd.math.pow", 2, 2}, {"qd.math.clamp", 3, 3}, {"qd.math.popcnt", 1, 1}, {"qd.math.clz", 1, 1}, {"qd.raw_div", 2, 2}, {"qd.raw_mod", 2, 2},
    {"qd.static", 1, 1}, {"qd.static_assert", 1, 2}, {"min", 0, 99}, {"max", 0, 99}, {"qd.min", 0, 99},
    {"qd.max", 0, 99},
};

/* float(STR), as Python reads it: blanks around, a sign, "inf", "infinity" or "nan" in any case,
 * or a decimal literal whose digits may be grouped by single underscores; a Python float (an f64
 * constant in host code, the default float type in a kernel). Anything else is Python's ValueError. */
static bool float_digits(const char **q) {
    if (!isdigit((unsigned char)**q)) return false;
    while (isdigit((unsigned char)**q) || (**q == '_' && isdigit((unsigned char)(*q)[1]))) ++*q;
    return true;
}

static bool same_word(const char *a, const char *lower) {
    while (*a && tolower((unsigned char)*a) == *lower) a++, lower++;
    return !*a && !*lower;
}

static IrExpr *float_of_str(Sema *S, const char *str, Span sp) {
    const char *q = str, *end = str + strlen(str);
    while (q < end && isspace((unsigned char)*q)) q++;
    while (end > q && isspace((unsigned char)end[-1])) end--;
    size_t n = (size_t)(end - q);
    char *t = arena_alloc(S->arena, n + 1), *w = t;
    for (const char *c = q; c < end; c++) if (*c != '_') *w++ = *c;
    *w = 0;
    const char *word = t + (*t == '+' || *t == '-');
    bool ok;
    if (same_word(word, "inf") || same_word(word, "infinity") || same_word(word, "nan")) ok = true;
    else { /* the grammar on the text with its underscores: digits [. [digits]] | . digits, then [e [sign] digits] */
        const char *g = q + (*q == '+' || *q == '-');
        bool whole = float_digits(&g), frac = false;
        if (*g == '.') g++, frac = float_digits(&g);
        ok = whole || frac;
        if (ok && (*g == 'e' || *g == 'E')) {
            g++;
            if (*g == '+' || *g == '-') g++;
            ok = float_digits(&g);
        }
        ok = ok && g == end;
    }
    if (!ok) {
        diag_error(sp, QD2019, "could not convert string to float: '%s'", str);
        return NULL;
    }
    double d = same_word(word, "nan") ? (*t == '-' ? -NAN : NAN) : strtod(t, NULL);
    return irb_float(S->arena, S->k ? S->default_fp : QT_F64, d, sp);
}

/* int(STR) in base 10, as Python reads it: blanks around, a sign, digits grouped by single
 * underscores; a Python int (64 bits here: past them QD2050). */
static IrExpr *int_of_str(Sema *S, const char *str, Span sp) {
    const char *q = str, *end = str + strlen(str);
    while (q < end && isspace((unsigned char)*q)) q++;
    while (end > q && isspace((unsigned char)end[-1])) end--;
    bool neg = q < end && *q == '-';
    const char *g = q + (q < end && (*q == '+' || *q == '-'));
    const char *d0 = g;
    if (!float_digits(&g) || g != end) {
        diag_error(sp, QD2019, "invalid literal for int() with base 10: '%s'", str);
        return NULL;
    }
    unsigned __int128 v = 0;
    for (const char *c = d0; c < end; c++) {
        if (*c == '_') continue;
        v = v * 10 + (unsigned)(*c - '0');
        if (v > (unsigned __int128)UINT64_MAX) break;
    }
    if (v > (neg ? (unsigned __int128)INT64_MAX + 1 : (unsigned __int128)UINT64_MAX)) {
        diag_error(sp, QD2050, "int('%s') does not fit in 64 bits", str);
        return NULL;
    }
    return lit_const(S, neg ? -(PyInt)v : (PyInt)v, sp);
}

static IrExpr *value_builtin(Sema *S, const Expr *call, const char *p) {
    Span sp = call->span;
    if (!strcmp(p, "int")) {
        Val v = sema_eval(S, call->call.args.items[0]);
        if (v.kind == V_STR) return int_of_str(S, v.path, call->call.args.items[0]->span);
        return explicit_cast(S, sema_rvalue(S, v, call->call.args.items[0]->span), S->default_ip);
    }
    if (!strcmp(p, "float")) {
        Val v = sema_eval(S, call->call.args.items[0]);
        if (v.kind == V_STR) return float_of_str(S, v.path, call->call.args.items[0]->span);
        return explicit_cast(S, sema_rvalue(S, v, call->call.args.items[0]->span), S->default_fp);
    }
    if (!strcmp(p, "bool")) return sema_to_bool(S, arg(S, call, 0));
    if (!strcmp(p, "abs") || !strcmp(p, "qd.abs")) {
        IrExpr *a = arg(S, call, 0);
        return a ? math1(S, IR_ABS, a, a->type, sp) : NULL;
    }
    if (!strcmp(p, "pow") || !strcmp(p, "qd.pow") || !strcmp(p, "qd.math.pow"))
        return sema_binop_tok(S, T_POW, arg(S, call, 0), arg(S, call, 1), sp);
    if (!strcmp(p, "qd.atan2") || !strcmp(p, "qd.math.atan2")) return atan2_math(S, call);
    if (!strcmp(p, "qd.math.clamp")) return clamp(S, call);
    if (!strcmp(p, "qd.cast")) {
        QdType t;
        IrExpr *a = arg(S, call, 0);
        return type_arg(S, call, 1, &t) ? explicit_cast(S, a, t) : NULL;
    }
    if (!strcmp(p, "qd.bit_cast")) return bit_cast(S, call);
    if (!strcmp(p, "qd.select")) {
        Expr fake = {.kind = E_IFEXP, .span = sp};
        fake.ifexp.cond = call->call.args.items[0], fake.ifexp.a = call->call.args.items[1];
        fake.ifexp.b = call->call.args.items[2];
        return eval_ifexp(S, &fake);
    }
    if (!strcmp(p, "qd.math.popcnt")) return int_math(S, call, "qd.math.popcnt", IR_POPCNT);
    if (!strcmp(p, "qd.math.clz")) return int_math(S, call, "qd.math.clz", IR_CLZ);
    if (!strcmp(p, "qd.raw_div") || !strcmp(p, "qd.raw_mod")) {
        IrExpr *a = arg(S, call, 0), *b = arg(S, call, 1);
        if (a && b && (!qt_is_integral(a->type) || !qt_is_integral(b->type)) && p[7] == 'm') {
            diag_error(sp, QD2006, "'qd.raw_mod' requires integer operands, got %s and %s", qt_name(a->type), qt_name(b->type));
            return NULL;
        }
        return sema_binary(S, p[7] == 'd' ? IR_DIV : IR_REM, a, b, sp);
    }
    if (!strcmp(p, "min") || !strcmp(p, "qd.min")) return min_max(S, call, p, IR_MIN);
    if (!strcmp(p, "max") || !strcmp(p, "qd.max")) return min_max(S, call, p, IR_MAX);
    if (!strcmp(p, "qd.static_assert")) {
        S->in_static++; /* Quadrants evaluates the condition in static scope */
        IrExpr *a = sema_to_bool(S, arg(S, call, 0));
        S->in_static--;
        if (a && !ir_is_const(a)) diag_error(sp, QD2009, "the condition of qd.static_assert must be a compile-time constant (Quadrants: "
                                                   "\"Static assert with non-static condition\")");
        else if (a && !a->c.u) diag_error(sp, QD2022, "qd.static_assert failed%s%s", call->call.args.n > 1 ? ": " : "",
                                           call->call.args.n > 1 && call->call.args.items[1]->kind == E_STR ? call->call.args.items[1]->str : "");
        return NULL;
    }
    die("value builtin '%s' without a handler", p);
}

/* The qd.* builtin nearest to an unknown path (same namespace depth or not), for QD2008. */
static const char *closest_builtin(Sema *S, const char *p) {
    static const char *const others[] = {"qd.ndrange", "qd.static", "qd.loop_config", "qd.field", "qd.cast", "range"};
    static char spelled[2 * ARRAY_LEN(float_builtins)][24];
    const char *cands[256];
    int n = S->up->sema_mem_builtin_names(cands, 128);
    for (size_t k = 0; k < ARRAY_LEN(value_builtins); k++) cands[n++] = value_builtins[k].name;
    for (size_t k = 0; k < ARRAY_LEN(others); k++) cands[n++] = others[k];
    for (size_t k = 0; k < ARRAY_LEN(float_builtins); k++) {
        snprintf(spelled[2 * k], sizeof spelled[0], "qd.%s", float_builtins[k].name);
        snprintf(spelled[2 * k + 1], sizeof spelled[0], "qd.math.%s", float_builtins[k].name);
        cands[n++] = spelled[2 * k], cands[n++] = spelled[2 * k + 1];
    }
    return closest_name(p, cands, n);
}

/* qd.static(x): x's value, which must be known at compile time (a compile-time object such as a
 * field, type or tuple is itself); qd.static(a, b, ...): the tuple of those (Quadrants: a list). */
static Val static_value(Sema *S, const Expr *a) {
    S->in_static++;
    Val v = sema_eval(S, a);
    S->in_static--;
    if (v.kind != V_EXPR && v.kind != V_LOCAL && v.kind != V_REF) return v;
    IrExpr *e = sema_rvalue(S, v, a->span);
    if (e && !ir_is_const(e)) diag_error(a->span, QD2009, "the argument of qd.static must be a compile-time constant (Quadrants: \"Input to qd.static "
                                                                "must be compile-time constants or global pointers\")");
    return e && ir_is_const(e) ? val_expr(e) : val_err();
}

static Val static_call(Sema *S, const Expr *call) {
    if (call->call.nkw) return diag_error(call->call.kw[0].span, QD2007, "'qd.static' takes no keyword arguments"), val_err();
    if (!call->call.args.n) return diag_error(call->span, QD2007, "'qd.static' takes at least 1 argument"), val_err();
    if (call->call.args.n == 1) return static_value(S, call->call.args.items[0]);
    Val t = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, call->call.args.n), call->call.args.n}};
    for (int k = 0; k < call->call.args.n; k++)
        if ((t.tuple.items[k] = static_value(S, call->call.args.items[k])).kind == V_ERR) return val_err();
    return t;
}

Val sema_call(Sema *S, const Expr *call, Val f) {
    if (f.kind == V_NS && (!strncmp(f.path, "qd.impl.qd_", 11) || !strncmp(f.path, "qd.lang.impl.qd_", 16))) {
        /* what Quadrants turns int(x), float(x) and bool(x) into: the same builtins */
        const char *b = strstr(f.path, ".qd_") + 4;
        if (!strcmp(b, "int") || !strcmp(b, "float") || !strcmp(b, "bool")) f.path = b;
    }
    Val lib;
    if (S->up->sema_pylib_call(S, call, f, &lib)) return lib;
    if (f.kind == V_FUNC) return sema_inline_call(S, call, f.def);
    for (int k = 0; k < S->up->ncalls; k++) /* the features' builtins, methods and types (check.c) */
        if (S->up->calls[k].takes(f)) return S->up->calls[k].call(S, call, f);
    if (f.kind == V_NS && !strcmp(f.path, "qd.func") && call->call.args.n == 1 && !call->call.nkw) {
        /* qd.func(f) applied in a kernel: f as a qd.func (then called like one) */
        Val g = sema_eval(S, call->call.args.items[0]);
        if (g.kind == V_PYFUNC || g.kind == V_FUNC) return (Val){.kind = V_FUNC, .def = g.def};
        if (g.kind != V_ERR) diag_error(call->call.args.items[0]->span, QD2019, "qd.func takes a function, got %s", val_describe(g));
        return val_err();
    }
    PyInt big; /* float(2**64): Python converts its exact int, past 64 bits too (rounded to a double) */
    if (f.kind == V_NS && !strcmp(f.path, "float") && call->call.args.n == 1 && !call->call.nkw &&
        S->up->sema_py_literal_tree(call->call.args.items[0], &big) && (big < INT64_MIN || big > (PyInt)UINT64_MAX))
        return val_expr(explicit_cast(S, irb_float(S->arena, QT_F64, (double)big, call->span), S->default_fp));
    Val ew;
    if (f.kind == V_TYPE && call->call.args.n == 1 && !call->call.nkw && !literal_annotation(S, call->call.args.items[0], f.type))
        return val_err();
    if (S->up->sema_vec_elementwise(S, call, f, &ew)) return ew;
    if (f.kind == V_TYPE) { /* qd.f32(x): a cast of one value (Quadrants' words for anything else) */
        if (call->call.args.n != 1 || call->call.nkw) {
            diag_error(call->span, QD2007, "A primitive type can only decorate a single expression: 'qd.%s' takes one positional "
                                           "argument, got %d%s", qt_name(f.type), call->call.args.n, call->call.nkw ? " and keywords" : "");
            return val_err();
        }
        return val_expr(explicit_cast(S, arg(S, call, 0), f.type));
    }
    if (f.kind != V_NS) {
        diag_error(call->call.fn->span, QD2019, "%s is not callable%s", val_describe(f),
                   f.kind == V_KERNEL ? " from a kernel (only qd.func can be called)" : "");
        return val_err();
    }
    const char *p = f.path;
    if (!strncmp(p, "math.", 5)) return py_math_call(S, call, p);
    if (!strcmp(p, "qd.static")) return static_call(S, call);
    int fb = float_builtin(p);
    if (fb >= 0) return float_builtin_call(S, call, p, fb);
    for (size_t k = 0; k < ARRAY_LEN(value_builtins); k++) {
        if (strcmp(value_builtins[k].name, p)) continue;
        if (!check_args(S, call, p, value_builtins[k].min, value_builtins[k].max)) return val_err();
        IrExpr *r = value_builtin(S, call, p);
        return r ? val_expr(r) : !strcmp(p, "qd.static_assert") ? (Val){.kind = V_NONE} : val_err();
    }
    if (!strcmp(p, "range") || !strcmp(p, "qd.ndrange"))
        diag_error(call->span, QD2012, "'%s' can only be iterated by a for loop", p);
    else if (!strcmp(p, "qd.loop_config"))
        diag_error(call->span, QD2017, "qd.loop_config must be a statement directly before a top-level for loop of a kernel");
    else if (!strcmp(p, "qd.field") && !S->cur && !S->kernel_def)
        return sema_field_value(S, call, 0);
    else if (!strcmp(p, "qd.field"))
        diag_error(call->span, QD2004, "qd.field can only be declared at module level");
    else if (!S->k && !S->cur && !strcmp(p, "qd.ndarray")) { /* host code ([qd.ndarray(...) for _ in range(n)]): the array the script allocates */
        Val arr;
        if (S->up->sema_host_array(S, call, &arr) && arr.kind == V_HOSTARRAY) return arr;
        diag_error(call->call.fn->span, QD2008, "'%s' is not supported in v1 kernels", p);
    } else if (!S->k && !S->cur && (!strcmp(p, "qd.linalg.SparseSolver") || !strcmp(p, "qd.linalg.SparseMatrix") ||
                                    !strcmp(p, "qd.linalg.SparseCG"))) {
        /* Quadrants' host-side sparse linear algebra (Eigen, cuSPARSE, cuSOLVER on the host): an
         * object only the running script has; the kernels that fill its builders are compiled */
        return (Val){.kind = V_HOST, .path = arena_printf(S->arena, "a %s object (Quadrants' host-side sparse linear algebra, "
                                                                    "which qdc does not compile)", p)};
    } else if (!strncmp(p, "qd.algorithms.", 14)) /* not one of the names sema_algo.c defines: Quadrants' internals */
        diag_error(call->call.fn->span, QD2008, "'%s' is not supported: qdc provides qd.algorithms' composable functions (reduce_*, "
                   "exclusive_scan_*, select, reduce_by_key_add, sort) and their *_scratch_slots helpers, not its internal kernels", p);
    else {
        const char *near = closest_builtin(S, p);
        if (near) diag_fixit(call->call.fn->span, near);
        diag_error(call->call.fn->span, QD2008, "'%s' is not supported in v1 kernels%s%s%s", p, near ? "; did you mean '" : "",
                   near ? near : "", near ? "'?" : "");
    }
    return val_err();
}
