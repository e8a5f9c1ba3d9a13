/* The frontend's entry: connects the feature files to the checker's core, then checks.
 * The core (sema.c, sema_expr.c, sema_stmt.c, module.c, callcheck.c) names no feature: it calls
 * up through Sema.up, the table filled here (calls[] below and the rows of hooks.def). This
 * file depends on every feature and nothing depends on it but the driver, so no circle forms
 * (docs/architecture.md, "Circles"). */
#include "sema.h"
#include "sema_sparse.h"
#include <string.h>

/* ---- which callees each feature takes, and the call in the form its file checks it ---- */
static bool is_path(Val f, const char *p) { return f.kind == V_NS && !strcmp(f.path, p); }
static bool pyfunc_takes(Val f) { return f.kind == V_PYFUNC; }
static Val pyfunc_call(Sema *S, const Expr *c, Val f) { return sema_pyfunc_call(S, c, f.def); }
static bool str_method_takes(Val f) { return f.kind == V_METHOD && f.method.self->kind == V_STR; }
static Val str_method_call(Sema *S, const Expr *c, Val f) { return sema_str_method_call(S, c, f.method.self->path, f.method.name); }
static bool struct_takes(Val f) { return f.kind == V_STRUCTTYPE || (f.kind == V_NS && sema_struct_path(f.path)); }
static bool vec_takes(Val f) { return f.kind == V_METHOD || f.kind == V_VECTYPE || (f.kind == V_NS && sema_vec_path(f.path)); }
static bool more_takes(Val f) { return f.kind == V_NS && sema_is_more_builtin(f.path); }
static Val more_call(Sema *S, const Expr *c, Val f) { return sema_more_builtin_call(S, c, f.path); }
static bool glsl_takes(Val f) { return f.kind == V_NS && sema_is_glsl(f.path); }
static Val glsl_call(Sema *S, const Expr *c, Val f) { return sema_glsl_call(S, c, f.path); }
static bool mem_takes(Val f) { return f.kind == V_NS && sema_is_mem_builtin(f.path); }
static Val mem_call(Sema *S, const Expr *c, Val f) { return sema_mem_call(S, c, f.path); }
static bool simt_takes(Val f) { return f.kind == V_NS && sema_is_simt_builtin(f.path); }
static Val simt_call(Sema *S, const Expr *c, Val f) { return sema_simt_call(S, c, f.path); }
static bool print_takes(Val f) { return is_path(f, "print"); }
static Val print_call(Sema *S, const Expr *c, Val f) { return sema_print_call(S, c); }
static bool dict_takes(Val f) { return is_path(f, "dict"); }
static bool dict_method_takes(Val f) { return f.kind == V_METHOD && f.method.self->kind == V_DICT; }
static Val dict_method_call(Sema *S, const Expr *c, Val f) { return sema_dict_method_call(S, c, *f.method.self, f.method.name); }
static Val dict_call(Sema *S, const Expr *c, Val f) { return sema_dict_call(S, c); }
static bool getattr_takes(Val f) { return is_path(f, "getattr"); }
static Val getattr_call(Sema *S, const Expr *c, Val f) { return sema_getattr(S, c); }
static bool str_takes(Val f) { return is_path(f, "str"); }
static Val str_call(Sema *S, const Expr *c, Val f) { return sema_str_call(S, c); }
static bool sparse_takes(Val f) { return f.kind == V_NS && sema_is_sparse_builtin(f.path); }
static bool class_takes(Val f) { return f.kind == V_CLASS; }
static bool internal_takes(Val f) { return f.kind == V_NS && sema_is_internal_call(f.path); }
static Val internal_call(Sema *S, const Expr *c, Val f) { return (void)f, sema_internal_call(S, c); }
static bool quant_takes(Val f) { return f.kind == V_NS && sema_quant_path(f.path); }
static bool hint_takes(Val f) { return f.kind == V_NS && sema_is_hint(f.path); }
static bool fieldop_takes(Val f) { return f.kind == V_NS && sema_is_fieldop(f.path); }
static bool tile_takes(Val f) { return sema_is_tile_call(f); }
static bool chr_ord_takes(Val f) { return is_path(f, "chr") || is_path(f, "ord"); }
static Val chr_ord_call(Sema *S, const Expr *c, Val f) { return sema_chr_ord(S, c, f.path[0] == 'c'); }

/* In the order sema_call asks them: a callee two features take goes to the first (a V_METHOD
 * on a str is a str method, on a dict a dict's, any other is a vector's). The core's own builtins (casts, qd.static,
 * math.*, the scalar qd.* functions) are asked after these; no path here is one of them. */
static const SemaFeature calls[] = {
    {"py/sema_pyfunc.c", pyfunc_takes, pyfunc_call},
    {"py/sema_pystr.c", str_method_takes, str_method_call},
    {"py/sema_lang.c", dict_method_takes, dict_method_call},
    {"sema_tile.c", tile_takes, sema_tile_call},
    {"sema_algo.c", sema_is_algo_call, sema_algo_call},
    {"sema_generic.c", sema_is_to_numpy_type, sema_to_numpy_type_call},
    {"sema_struct.c", struct_takes, sema_struct_call},
    {"sema_bview.c", sema_bview_takes, sema_bview_call},
    {"sema_vec.c", vec_takes, sema_vec_call},
    {"sema_builtin.c", more_takes, more_call},
    {"sema_glsl.c", glsl_takes, glsl_call},
    {"sema_mem.c", mem_takes, mem_call},
    {"sema_simt.c", simt_takes, simt_call},
    {"sema_format.c", print_takes, print_call},
    {"py/sema_lang.c", dict_takes, dict_call},
    {"py/sema_param.c", getattr_takes, getattr_call},
    {"py/sema_param.c", str_takes, str_call},
    {"py/sema_pystr.c", chr_ord_takes, chr_ord_call},
    {"sema_sparse.c", sparse_takes, sema_sparse_call},
    {"py/sema_class.c", class_takes, sema_instance_call},
    {"sema_builder.c", internal_takes, internal_call},
    {"sema_quant.c", quant_takes, sema_quant_call},
    {"sema_hints.c", hint_takes, sema_hint_call},
    {"sema_fieldops.c", fieldop_takes, sema_fieldop_call},
};

static const SemaHooks features = {
    .calls = calls,
    .ncalls = ARRAY_LEN(calls),
#define H(name) .name = name,
#include "hooks.def"
#undef H
};

IrModule *frontend_check(const AstModule *ast, Arena *arena) { return sema_check(ast, arena, NULL, &features); }

IrModule *frontend_check_with(const AstModule *ast, Arena *arena, const FrontendOptions *fo) {
    return sema_check(ast, arena, fo, &features);
}
