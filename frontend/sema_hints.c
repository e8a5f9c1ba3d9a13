/* Optimization hints of Quadrants that do not change results (qdc-lang(7) "Hints"):
 * qd.block_local(*fields) and qd.cache_read_only(*fields) (cache a field in block-shared memory
 * or the read-only cache: qdc reads the field itself), and qd.loop_unique(val, covers=None) /
 * qd.misc.loop_unique (val is the same in no two iterations, so Quadrants may make the updates
 * it indexes plain: qdc keeps them atomic). Each checks its arguments as Quadrants does and
 * returns what Quadrants returns. Also two small forms: qd.lang.ops.<op>(a, b) (the operator)
 * and qd._lib.core.get_max_num_indices() (qdc's limit, IR_MAX_DIMS). */
#include "sema.h"
#include <string.h>

static const struct { const char *name; int tok; } ops[] = { /* qd.lang.ops.<name>(a, b): a <op> b */
    {"add", T_PLUS}, {"sub", T_MINUS}, {"mul", T_STAR}, {"truediv", T_SLASH}, {"floordiv", T_FDIV}, {"mod", T_PERCENT},
    {"pow", T_POW}, {"bit_and", T_AMP}, {"bit_or", T_PIPE}, {"bit_xor", T_CARET}, {"bit_shl", T_SHL}, {"bit_sar", T_SHR},
    {"cmp_eq", T_EQ}, {"cmp_ne", T_NE}, {"cmp_lt", T_LT}, {"cmp_le", T_LE}, {"cmp_gt", T_GT}, {"cmp_ge", T_GE},
};

static int op_tok(const char *p) {
    const char *n = !strncmp(p, "qd.lang.ops.", 12) ? p + 12 : !strncmp(p, "qd.ops.", 7) ? p + 7 : NULL;
    for (size_t k = 0; n && k < ARRAY_LEN(ops); k++)
        if (!strcmp(ops[k].name, n)) return ops[k].tok;
    return 0;
}

bool sema_is_hint(const char *p) {
    return op_tok(p) || !strcmp(p, "qd._lib.core.get_max_num_indices") || !strcmp(p, "qd.block_local") || !strcmp(p, "qd.cache_read_only") || !strcmp(p, "qd.loop_unique") ||
           !strcmp(p, "qd.misc.loop_unique") || !strcmp(p, "qd.lang.misc.loop_unique");
}

static bool is_field(Val v) {
    if (v.kind == V_FIELD) return true;
    if (v.kind == V_VEC) {
        for (int k = 0; k < v.vec.n * (v.vec.m ? v.vec.m : 1); k++)
            if (v.vec.c[k].kind != V_FIELD) return false;
        return true;
    }
    return v.kind == V_STRUCT && v.strct.st;
}

Val sema_hint_call(Sema *S, const Expr *call, Val f) {
    const char *p = f.path, *name = strrchr(p, '.') + 1;
    if (op_tok(p)) { /* the operator itself, on scalars, vectors and matrices alike */
        if (call->call.args.n != 2 || call->call.nkw) return diag_error(call->span, QD2007, "'%s' takes 2 arguments (a, b)", p), val_err();
        Expr *b = ARENA_NEW(S->arena, Expr);
        *b = (Expr){.kind = E_BINARY, .span = call->span, .op = op_tok(p)};
        b->bin.a = call->call.args.items[0], b->bin.b = call->call.args.items[1];
        return sema_eval(S, b);
    }
    if (!strcmp(p, "qd._lib.core.get_max_num_indices")) { /* qdc's limit on a field's indices (Quadrants': 12) */
        if (call->call.args.n || call->call.nkw) return diag_error(call->span, QD2007, "'%s' takes no arguments", p), val_err();
        return val_expr(irb_int(S->arena, QT_I32, IR_MAX_DIMS, call->span));
    }
    if (!S->k) return diag_error(call->span, QD2019, "'qd.%s' is a hint inside a kernel", name), val_err();
    if (strstr(p, "loop_unique")) {
        const Expr *covers = NULL;
        for (int k = 0; k < call->call.nkw; k++)
            if (!strcmp(call->call.kw[k].name, "covers")) covers = call->call.kw[k].value;
            else return diag_error(call->call.kw[k].span, QD2007, "qd.loop_unique has no parameter '%s'", call->call.kw[k].name), val_err();
        if (call->call.args.n == 2 && !covers) covers = call->call.args.items[1];
        if (call->call.args.n < 1 || call->call.args.n > 2 || (call->call.args.n == 2 && covers != call->call.args.items[1]))
            return diag_error(call->span, QD2007, "qd.loop_unique takes (val, covers=None)"), val_err();
        if (covers && covers->kind != E_NONE) { /* fields, one or a list */
            Val c = sema_eval(S, covers);
            if (c.kind == V_ERR) return c;
            for (int k = 0; k < (c.kind == V_TUPLE ? c.tuple.n : 1); k++)
                if (!is_field(c.kind == V_TUPLE ? c.tuple.items[k] : c))
                    return diag_error(covers->span, QD2019, "covers= of qd.loop_unique takes fields, not %s",
                                      val_describe(c.kind == V_TUPLE ? c.tuple.items[k] : c)), val_err();
        }
        IrExpr *v = sema_expr(S, call->call.args.items[0]);
        if (!v) return val_err();
        if (!qt_is_integral(v->type)) return diag_error(call->call.args.items[0]->span, QD2019, "qd.loop_unique takes an integer, got %s", qt_name(v->type)), val_err();
        return val_expr(v);
    }
    if (call->call.nkw) return diag_error(call->call.kw[0].span, QD2007, "qd.%s takes fields only", name), val_err();
    for (int k = 0; k < call->call.args.n; k++) {
        Val v = sema_eval(S, call->call.args.items[k]);
        if (v.kind == V_ERR) return v;
        if (!is_field(v)) return diag_error(call->call.args.items[k]->span, QD2019, "qd.%s takes fields, not %s", name, val_describe(v)), val_err();
    }
    return (Val){.kind = V_NONE};
}
