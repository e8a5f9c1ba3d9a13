/* The evaluator's host scalars: a compile-time Python int that fits 64 bits, a float, a bool.
 *
 * Every reader of such a value (the evaluator's files in py/ and the checker's, where they only
 * want a number) asks these accessors instead of looking at how it is stored, and every maker
 * outside the literal paths uses the constructors. Only this header (and sema_rvalue, the
 * boundary where kernel semantics takes a value) knows the representation: today a V_EXPR
 * holding an IR_CONST, `literal` set for a Python int (exact in host arithmetic, typed by its
 * value: i32 when it fits in a kernel, else i64, else u64; module level i64). Changing it to a
 * value of the evaluator's own (issue 29 item 1) changes this header and sema_rvalue.
 *
 * A scalar's type: QT_U1 for a bool, a float type for a float, an integer type for an int. */
#ifndef QDC_PY_VALUE_H
#define QDC_PY_VALUE_H
#include "../sema.h"

/* The most dimensions an array has (a numpy shape, qd.ndrange): the kernels' limit. */
#define PY_MAX_DIMS IR_MAX_DIMS

/* v is a compile-time int, float or bool. */
static inline bool val_is_host_scalar(Val v) { return v.kind == V_EXPR && v.e && v.e->kind == IR_CONST; }
/* Its type (v must be a host scalar). */
static inline QdType val_host_type(Val v) { return v.e->type; }
/* A compile-time int or bool ("integral": qt_is_integral). */
static inline bool val_is_host_integral(Val v) { return val_is_host_scalar(v) && qt_is_integral(v.e->type); }
/* A compile-time int, not a bool. */
static inline bool val_is_host_int(Val v) { return val_is_host_scalar(v) && qt_is_int(v.e->type); }
static inline bool val_is_host_float(Val v) { return val_is_host_scalar(v) && qt_is_float(v.e->type); }
static inline bool val_is_host_bool(Val v) { return val_is_host_scalar(v) && v.e->type == QT_U1; }
/* A Python int (a literal or host arithmetic on literals: exact, typed by its value), not a
 * value made typed by a cast. */
static inline bool val_is_py_int(Val v) { return val_is_host_int(v) && v.e->literal; }

/* The value's bits (v must be a host scalar): signed view, unsigned view (a bool: 0 or 1), float. */
static inline int64_t val_host_i64(Val v) { return v.e->c.i; }
static inline uint64_t val_host_u64(Val v) { return v.e->c.u; }
static inline double val_host_f64(Val v) { return v.e->c.f; }

/* A compile-time int or bool: true and its value (an unsigned one past INT64_MAX as its two's
 * complement, the i64 view); false for anything else. */
static inline bool val_host_int(Val v, int64_t *out) {
    if (!val_is_host_integral(v)) return false;
    *out = v.e->c.i;
    return true;
}
/* Python's truth of a compile-time scalar: 0 or 1; -1 when v is not one. */
static inline int val_host_truth(Val v) {
    if (!val_is_host_scalar(v)) return -1;
    return qt_is_float(v.e->type) ? v.e->c.f != 0 : v.e->c.u != 0;
}

/* Appends v's spelling in an instantiation name (value.c; the one spelling of sema_generic.c,
 * sema_pydc.c and sema_param.c): false, appending nothing, when v is not a host scalar. */
bool val_host_spell(StrBuf *b, Val v);

/* v as a scalar value (sema_rvalue, the boundary where kernel semantics takes a value: a load
 * for a kernel variable, an error for a non-scalar): V_EXPR, or V_ERR after an error. */
static inline Val val_scalar(Sema *S, Val v, Span sp) { return val_expr(S->core->sema_rvalue(S, v, sp)); }
/* a OP b for a Python operator token on two scalars, as kernel semantics defines it
 * (sema_binop_tok: folded when both are compile-time; a scalar's own span is kept for its
 * diagnostics): V_ERR after an error. */
static inline Val val_binop(Sema *S, int tok, Val a, Val b, Span sp) {
    IrExpr *x = S->core->sema_rvalue(S, a, sp), *y = x ? S->core->sema_rvalue(S, b, sp) : NULL;
    return val_expr(S->core->sema_binop_tok(S, tok, x, y, sp));
}

/* Moves a host scalar's storage into arena `to` (a host loop frees each iteration's arena);
 * false when v is not one. */
static inline bool val_host_copy(Val *v, Arena *to) {
    if (!val_is_host_scalar(*v)) return false;
    IrExpr *c = ARENA_NEW(to, IrExpr);
    *c = *v->e;
    v->e = c;
    return true;
}

/* A host scalar converted to scalar type t as a kernel cast converts it; a Python int made an
 * int type stays a Python int (exact in host arithmetic). */
static inline Val val_host_cast(Sema *S, Val v, QdType t) {
    bool exact = v.e->literal;
    IrExpr *e = irb_cast(S->arena, v.e, t);
    if (qt_is_int(t)) e->literal = exact;
    return val_expr(e);
}

/* Constructors. val_int: a Python int typed by its value (QD2050 past 64 bits); val_int_typed: a
 * Python int given type t (exact in host arithmetic all the same); val_bool: True or False
 * (also what a host comparison gives). */
static inline Val val_int(Sema *S, __int128 v, Span sp) { return val_expr(S->core->sema_int_literal(S, v, sp)); }
static inline Val val_int_typed(Sema *S, QdType t, int64_t v, Span sp) {
    IrExpr *e = irb_int(S->arena, t, v, sp);
    e->literal = true;
    return val_expr(e);
}
static inline Val val_bool(Sema *S, bool v, Span sp) { return val_expr(irb_int(S->arena, QT_U1, v, sp)); }
/* A compile-time int of type t that is not a Python int: it wraps like a kernel value of t
 * (range() items, enumerate's counter). */
static inline Val val_typed_int(Sema *S, QdType t, int64_t v, Span sp) { return val_expr(irb_int(S->arena, t, v, sp)); }
/* A compile-time float of float type t. */
static inline Val val_float(Sema *S, QdType t, double v, Span sp) { return val_expr(irb_float(S->arena, t, v, sp)); }
#endif
