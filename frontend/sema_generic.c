/* Generic kernels: parameters whose type Quadrants decides at the call (qd.types.ndarray()
 * without dtype or ndim, bare qd.types.ndarray / NDArray, qd.Tensor, qd.template()) and the
 * command-line instantiations that fix them for ahead-of-time compilation:
 *     --instantiate '[ENTRY=]KERNEL(PARAM=VALUE, ...)'
 * VALUE is DTYPE[NDIM] (or DTYPE when the annotation fixes ndim) for an array, or a
 * compile-time value for a template: an integer, a float, True/False, or the name of a module
 * constant or field. Each instantiation is checked as its own kernel named ENTRY, by default
 * KERNEL followed by "__" and a spelling of each generic argument in parameter order
 * (k(a=f32[2], n=4) -> k__f32_2d__4). Specs are parsed with the frontend's own parser, so
 * their errors point into the spec ("--instantiate:1:5"). */
#include "sema.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct Instance {
    Source *src;       /* the spec text (owns the AST's spans) */
    const char *kernel;
    const char *entry; /* ENTRY= if given */
    const Expr *call;  /* KERNEL(PARAM=VALUE, ...) */
    Span span;
    bool used;         /* named an existing generic kernel */
};

static bool is_ndarray_path(const char *p) {
    return p && (!strcmp(p, "qd.types.ndarray") || !strcmp(p, "qd.types.NDArray"));
}

static bool is_template_path(const char *p) {
    return p && (!strcmp(p, "qd.template") || !strcmp(p, "qd.Template") || !strcmp(p, "qd.types.template"));
}

static bool is_tensor_path(const char *p) { return p && (!strcmp(p, "qd.Tensor") || !strcmp(p, "qd.types.Tensor")); }

/* The qd path an annotation names; a name host code bound to one counts as the path
 * (qd_anno = qd.types.ndarray ... a: qd_anno[qd.i32, 1]). */
static const char *ann_path(Sema *S, const Expr *ann) {
    const Expr *e = ann->kind == E_CALL ? ann->call.fn : ann->kind == E_SUBSCRIPT ? ann->sub.obj : ann;
    Binding *b = e->kind == E_NAME ? sema_lookup(S, e->name) : NULL;
    if (b && b->v.kind == V_NS && !strncmp(b->v.path, "qd.", 3)) return b->v.path;
    return sema_path(S, e);
}

static bool keyword_of(const Expr *call, const char *name, const Expr **out) {
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, name)) return *out = call->call.kw[k].value, true;
    return false;
}

/* What an annotation declares: an array (dtype and ndim possibly open), a template, or a scalar. */
bool sema_annotation_alias(Sema *S, const Expr *v) {
    if (v->kind != E_CALL && v->kind != E_SUBSCRIPT && v->kind != E_ATTR) return false;
    const char *p = ann_path(S, v);
    return is_template_path(p) || is_tensor_path(p) || is_ndarray_path(p);
}

SemaParamShape sema_param_shape(Sema *S, const Expr *ann, const Expr **dt, const Expr **nd) {
    *dt = *nd = NULL;
    if (!ann) return PS_SCALAR;
    Binding *alias = ann->kind == E_NAME ? sema_lookup(S, ann->name) : sema_module_member(S, ann); /* x: mod.V */
    if (alias && alias->v.kind == V_ANNOT) ann = alias->v.ann; /* V = qd.types.ndarray() ... x: V */
    const char *p = ann_path(S, ann);
    if (is_template_path(p)) return PS_TEMPLATE;
    if (is_tensor_path(p)) return PS_TENSOR;
    if (!is_ndarray_path(p)) return PS_SCALAR;
    if (ann->kind == E_CALL) {
        if (ann->call.args.n > 0) *dt = ann->call.args.items[0];
        if (ann->call.args.n > 1) *nd = ann->call.args.items[1];
        keyword_of(ann, "dtype", dt), keyword_of(ann, "ndim", nd);
        if (*dt && (*dt)->kind == E_NONE) *dt = NULL; /* dtype=None: any */
        if (*nd && (*nd)->kind == E_NONE) *nd = NULL;
    } else if (ann->kind == E_SUBSCRIPT) {
        const Expr *ix = ann->sub.index;
        if (ix->kind == E_TUPLE && ix->list.n == 2) *dt = ix->list.items[0], *nd = ix->list.items[1];
        else *dt = ix;
        if (*nd && (*nd)->kind == E_NONE) *nd = NULL; /* NDArray[qd.f32, None]: any ndim */
    }
    return PS_ARRAY;
}

bool sema_param_is_generic(Sema *S, const Param *ap) {
    const PyDc *dc = ap->annotation ? S->up->sema_pydc_of(S, ap->annotation) : NULL;
    if (dc) return S->up->sema_pydc_is_generic(S, dc);
    const Expr *dt, *nd;
    if (S->up->sema_bview_annotation(S, ap->annotation, &dt)) return !dt; /* v: BufferView: the dtype of the array a call passes */
    SemaParamShape k = sema_param_shape(S, ap->annotation, &dt, &nd);
    return k == PS_TEMPLATE || k == PS_TENSOR || (k == PS_ARRAY && (!dt || !nd));
}

/* ---- parsing the specs ---- */

static void bad_spec(Span sp, const char *msg) {
    diag_error(sp, QD2061, "invalid --instantiate spec: %s; write [ENTRY=]KERNEL(PARAM=VALUE, ...)", msg);
}

static bool parse_spec(Sema *S, const char *text, Instance *in) {
    memset(in, 0, sizeof *in);
    size_t n = strlen(text);
    char *buf = xmalloc(n + 2);
    memcpy(buf, text, n), buf[n] = '\n', buf[n + 1] = 0;
    in->src = source_new("--instantiate", buf, n + 1);
    free(buf);
    in->span = span_make(in->src, 0, (uint32_t)n);
    int errors = diag_error_count();
    AstModule *m = frontend_parse(in->src, S->arena);
    if (!m || diag_error_count() > errors) return false;
    if (m->body.n != 1) return bad_spec(in->span, "one instantiation per option"), false;
    const Stmt *st = m->body.stmts[0];
    const Expr *call = st->kind == S_EXPR ? st->expr : st->kind == S_ASSIGN ? st->assign.value : NULL;
    if (st->kind == S_ASSIGN) {
        const Expr *t = st->assign.targets.items[0];
        if (st->assign.targets.n != 1 || t->kind != E_NAME) return bad_spec(t->span, "ENTRY must be a name"), false;
        in->entry = t->name;
    }
    if (!call || call->kind != E_CALL || call->call.fn->kind != E_NAME)
        return bad_spec(call ? call->span : st->span, "expected a kernel name and its arguments"), false;
    if (call->call.args.n) return bad_spec(call->call.args.items[0]->span, "name each argument (PARAM=VALUE)"), false;
    in->kernel = call->call.fn->name;
    in->call = call;
    return true;
}

void sema_parse_instances(Sema *S, const FrontendOptions *o) {
    for (int i = 0; o && i < o->ninstantiate; i++) {
        Instance in;
        if (parse_spec(S, o->instantiate[i], &in)) {
            vec_push(&S->instances, in);
            if (!budget_charge(&S->budget, EB_KERNELS, 1, in.span)) return;
        } else if (in.src) {
            vec_push(&S->spec_sources, in.src);
        }
    }
}

/* The first instantiation at or after `from` that names `kernel`, or -1. */
int sema_next_instance(Sema *S, const char *kernel, int from) {
    for (int i = from; i < S->instances.len; i++)
        if (!strcmp(S->instances.items[i].kernel, kernel)) return i;
    return -1;
}

/* ---- binding one instantiation ---- */

static const Keyword *inst_arg(const Instance *in, const char *param) {
    for (int k = 0; k < in->call->call.nkw; k++)
        if (!strcmp(in->call->call.kw[k].name, param)) return &in->call->call.kw[k];
    return NULL;
}

/* DTYPE or DTYPE[NDIM] (qd.DTYPE also accepted); false (quietly) when v is neither. */
static bool array_value(const Expr *v, QdType *dt, int64_t *ndim) {
    *ndim = -1;
    if (v->kind == E_SUBSCRIPT) {
        if (v->sub.index->kind != E_INT) return false;
        *ndim = (int64_t)v->sub.index->i;
        v = v->sub.obj;
    }
    const char *name = v->kind == E_NAME ? v->name : v->kind == E_ATTR && v->attr.obj->kind == E_NAME ? v->attr.name : NULL;
    *dt = name ? qt_from_name(name) : QT_VOID;
    return *dt != QT_VOID;
}

/* Appends "__" and the spelling of a value written in the spec to the entry name. */
static void mangle(StrBuf *b, const Instance *in, const Expr *v) {
    sb_puts(b, "__");
    for (uint32_t k = 0; k < v->span.len; k++) {
        char c = in->src->text[v->span.off + k];
        if (isalnum((unsigned char)c) || c == '_') sb_putc(b, c);
        else if (c == '-') sb_putc(b, 'm');
        else if (c == '.') sb_putc(b, 'p');
        else if (c == '[') sb_putc(b, '_');
        else if (c == ']') sb_putc(b, 'd');
        else if (c != ' ') sb_putc(b, '_');
    }
}

/* An array argument v (V_HOSTARRAY; ndim -1: unknown) for parameter ap whose annotation fixes
 * dt/nd (NULL: open). */
static GenericResult array_param(Sema *S, const Param *ap, const Expr *dt, const Expr *nd, Val v, Span at, IrParam *p) {
    QdType t = QT_VOID;
    int64_t and = -1;
    int n = 0, m = 0;
    if (dt && !(sema_vec_type_of(S, dt, &t, &n, &m) && n) && !sema_annotation_type(S, dt, &t)) return GP_ERR;
    if (nd && !sema_const_int(S, nd, &and, "ndim")) return GP_ERR;
    if (n && !v.harr.en && (v.harr.type == t || !v.harr.qd) && v.harr.ndim >= (m ? 2 : 1)) { /* np.zeros((N, 2), np.float32) for */
        v.harr.en = (signed char)n, v.harr.em = (signed char)m; /* an ndarray of vec2: its last axes are the element's (Quadrants; callcheck.c) */
        v.harr.ndim = (signed char)(v.harr.ndim - (m ? 2 : 1));
        if (!v.harr.qd) t = v.harr.type; /* Quadrants checks an external array's element shape only: its dtype is the element's */
    }
    StrBuf want, got;
    sb_init(&want), sb_init(&got);
    if (n) sb_printf(&want, m ? "mat%dx%d_" : "vec%d_", n, m);
    if (v.harr.en) sb_printf(&got, v.harr.em ? "mat%dx%d_" : "vec%d_", v.harr.en, v.harr.em);
    sb_puts(&want, t == QT_VOID ? "" : qt_name(t)), sb_puts(&got, qt_name(v.harr.type));
    bool differ = t != QT_VOID && strcmp(want.data, got.data);
    if (differ) diag_error(at, QD2061, "'%s' is declared with dtype %s, the instantiation gives %s", ap->name, want.data, got.data);
    sb_free(&want), sb_free(&got);
    if (differ) return GP_ERR;
    int64_t vnd = v.harr.ndim;
    if (vnd < 0) vnd = and;
    if (vnd < 0) return diag_error(at, QD2061, "give the number of dimensions of '%s', e.g. %s=%s[1]", ap->name, ap->name, qt_name(v.harr.type)), GP_ERR;
    if (and >= 0 && and != vnd) {
        diag_error(at, QD2061, "'%s' is declared with ndim=%lld, the instantiation gives %lld", ap->name, (long long)and, (long long)vnd);
        return GP_ERR;
    }
    int edim = v.harr.en ? (v.harr.em ? 2 : 1) : 0;
    if (vnd + edim > IR_MAX_DIMS) return diag_error(at, QD2061, "ndim must be between 0 and %d", IR_MAX_DIMS - edim), GP_ERR;
    v.harr.ndim = (signed char)vnd;
    sema_hostarray_param(v, p);
    return GP_PARAM;
}

/* Resolves generic parameter ap of the kernel under the current instantiation: an array
 * becomes an ndarray parameter (*p, returns GP_PARAM), a template value is bound by name
 * (*bound, returns GP_BOUND). */
GenericResult sema_generic_param(Sema *S, const Param *ap, IrParam *p, Val *bound, StrBuf *entry) {
    const Instance *in = &S->instances.items[S->inst];
    const Expr *dt, *nd;
    SemaParamShape shape = sema_param_shape(S, ap->annotation, &dt, &nd);
    const Keyword *kw = inst_arg(in, ap->name);
    if (!kw) {
        diag_error(in->span, QD2061, "the instantiation of '%s' gives no value for its generic parameter '%s'", in->kernel, ap->name);
        diag_note(ap->span, "'%s' is declared here", ap->name);
        return GP_ERR;
    }
    QdType vt = QT_VOID;
    int64_t vnd = -1;
    bool is_array = array_value(kw->value, &vt, &vnd);
    mangle(entry, in, kw->value);
    if (shape == PS_ARRAY || (is_array && shape != PS_SCALAR)) {
        if (!is_array) {
            diag_error(kw->value->span, QD2061, "'%s' is an ndarray: give its element type and dimensions, e.g. %s=f32[1]", ap->name, ap->name);
            return GP_ERR;
        }
        return array_param(S, ap, dt, nd, (Val){.kind = V_HOSTARRAY, .harr = {.type = vt, .ndim = (signed char)(vnd > 100 ? 100 : vnd)}}, kw->value->span, p);
    }
    Scope *saved = S->scope;
    S->scope = S->hscope; /* template values name things of the scope the kernel is defined in */
    *bound = sema_eval(S, kw->value);
    S->scope = saved;
    if (bound->kind == V_ERR) return GP_ERR;
    if (shape == PS_TENSOR && bound->kind != V_FIELD) {
        diag_error(kw->value->span, QD2061, "'%s' is a qd.Tensor: give a field's name or DTYPE[NDIM], not %s", ap->name, val_describe(*bound));
        return GP_ERR;
    }
    if (bound->kind == V_EXPR && !val_is_host_scalar(*bound)) {
        diag_error(kw->value->span, QD2061, "a template argument must be a compile-time value");
        return GP_ERR;
    }
    if (bound->kind == V_EXPR) { /* the spec's text is gone after checking: locate it at the parameter */
        IrExpr *c = ARENA_NEW(S->arena, IrExpr);
        *c = *bound->e, c->span = ap->span, bound->e = c;
    }
    return GP_BOUND;
}

/* Arguments of the instantiation that name no generic parameter of the kernel. */
void sema_check_instance_args(Sema *S, const Stmt *def) {
    const Instance *in = &S->instances.items[S->inst];
    for (int k = 0; k < in->call->call.nkw; k++) {
        const Keyword *kw = &in->call->call.kw[k];
        const Param *found = NULL;
        for (int j = 0; j < def->def.nparams; j++)
            if (!strcmp(def->def.params[j].name, kw->name)) found = &def->def.params[j];
        if (!found) diag_error(kw->span, QD2061, "kernel '%s' has no parameter '%s'", in->kernel, kw->name);
        else if (!sema_param_is_generic(S, found))
            diag_error(kw->span, QD2061, "parameter '%s' of '%s' is not generic; its type is fixed by its annotation", kw->name, in->kernel);
        for (int j = 0; j < k; j++)
            if (!strcmp(in->call->call.kw[j].name, kw->name)) diag_error(kw->span, QD2061, "parameter '%s' is given twice", kw->name);
    }
}

const char *sema_instance_entry(Sema *S, int inst) { return S->instances.items[inst].entry; }

void sema_mark_instance_used(Sema *S, int inst) { S->instances.items[inst].used = true; }

/* A generic kernel without an instantiation: name the option and show a spec to start from. */
/* True when an --instantiate spec names no kernel of the module (it is reported by
 * sema_finish_instances; a generic kernel it was probably meant for is then not reported too). */
static bool spec_names_no_kernel(Sema *S) {
    for (int i = 0; i < S->instances.len; i++) {
        bool kernel = false;
        for (int d = 0; d < S->defs.len && !kernel; d++)
            kernel = S->defs.items[d].kernel && !strcmp(S->defs.items[d].entry, S->instances.items[i].kernel);
        if (!kernel && !S->instances.items[i].used) return true;
    }
    return false;
}

void sema_missing_instance(Sema *S, const Stmt *def, const char *entry) {
    if (spec_names_no_kernel(S)) return;
    StrBuf ex;
    sb_init(&ex);
    const Param *first = NULL;
    for (int k = 0; k < def->def.nparams; k++) {
        const Param *ap = &def->def.params[k];
        const Expr *dt, *nd;
        SemaParamShape shape = sema_param_shape(S, ap->annotation, &dt, &nd);
        if (!sema_param_is_generic(S, ap)) continue;
        if (!first) first = ap;
        sb_printf(&ex, "%s%s=%s", ex.len ? ", " : "", ap->name, shape == PS_TEMPLATE ? "..." : "f32[1]");
    }
    if (S->kernels.len && !diag_error_count()) /* as in Python, where a kernel no call reaches is never compiled; the others are the output */
        diag_warning(first->annotation->span, QD2108, "kernel '%s' is generic ('%s' has no fixed type) and no call qdc can "
                     "evaluate instantiates it: it is not compiled (as in Python, where a kernel is compiled at its first call); "
                     "compile it with --instantiate '%s(%s)'", def->def.name, first->name, entry, ex.data);
    else
        diag_error(first->annotation->span, QD2060, "kernel '%s' is generic ('%s' has no fixed type) and no call qdc can evaluate "
                   "instantiates it; compile it with --instantiate '%s(%s)'", def->def.name, first->name, entry, ex.data);
    sb_free(&ex);
}

/* Specs that named no kernel of the module, or a kernel that is not generic. */
void sema_finish_instances(Sema *S) {
    for (int i = 0; i < S->instances.len; i++) {
        Instance *in = &S->instances.items[i];
        if (in->used) continue;
        const Span sp = in->call->call.fn->span;
        bool kernel = false;
        VEC(const char *) names = {0};
        for (int d = 0; d < S->defs.len; d++) {
            kernel |= S->defs.items[d].kernel && !strcmp(S->defs.items[d].entry, in->kernel);
            if (S->defs.items[d].kernel) vec_push(&names, S->defs.items[d].entry);
        }
        const char *best = kernel ? NULL : closest_name(in->kernel, names.items, names.len);
        if (!kernel)
            diag_error(sp, QD2061, "--instantiate names '%s', which is not a kernel of this module%s%s%s", in->kernel,
                       best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
        else diag_error(sp, QD2061, "kernel '%s' is not generic; it needs no --instantiate", in->kernel);
        free(names.items);
    }
}

void sema_free_instances(Sema *S) {
    for (int i = 0; i < S->instances.len; i++) source_free(S->instances.items[i].src);
    for (int i = 0; i < S->spec_sources.len; i++) source_free(S->spec_sources.items[i]);
    vec_free(&S->instances), vec_free(&S->spec_sources);
}

/* ---- instantiations from calls in host code ----
 * `k(x)` in host code (module level or a host function), k a generic kernel: each argument of a
 * generic parameter is evaluated where the call is: a field, a compile-time number or bool, a
 * qd.ndarray(dtype, shape) or numpy array constructor with a dtype (its dtype and ndim; see
 * sema_host_array), or a name bound to one of them. Each distinct list of values is an
 * instantiation, entry named as --instantiate would (k__f32_1d__4; a field by its name). */

static const struct { const char *np, *qd; } np_types[] = {
    {"int8", "i8"}, {"int16", "i16"}, {"int32", "i32"}, {"int64", "i64"}, {"uint8", "u8"}, {"uint16", "u16"},
    {"uint32", "u32"}, {"uint64", "u64"}, {"float16", "f16"}, {"float32", "f32"}, {"float64", "f64"},
    {"bool_", "u1"}, {"half", "f16"}, /* Quadrants' to_quadrants_type: np.bool_ is u1 */
};

static const struct { const char *torch, *qd; } torch_types[] = {
    {"float32", "f32"}, {"float", "f32"}, {"float64", "f64"}, {"double", "f64"}, {"float16", "f16"}, {"half", "f16"},
    {"int8", "i8"}, {"int16", "i16"}, {"short", "i16"}, {"int32", "i32"}, {"int", "i32"}, {"int64", "i64"},
    {"long", "i64"}, {"uint8", "u8"}, {"bool", "u1"}, {"uint16", "u16"}, {"uint32", "u32"}, {"uint64", "u64"},
};

/* torch.float32 ... as a QdType; QT_VOID if it is none. */
static QdType torch_type(const Expr *e) {
    if (e->kind != E_ATTR || e->attr.obj->kind != E_NAME || strcmp(e->attr.obj->name, "torch")) return QT_VOID;
    for (size_t k = 0; k < ARRAY_LEN(torch_types); k++)
        if (!strcmp(torch_types[k].torch, e->attr.name)) return qt_from_name(torch_types[k].qd);
    return QT_VOID;
}

/* t.float(), t.double(), t.half(), t.int(), t.long(): torch's conversions. */
static QdType torch_method_type(const char *m) {
    static const struct { const char *m, *qd; } ms[] = {{"float", "f32"}, {"double", "f64"}, {"half", "f16"}, {"int", "i32"}, {"long", "i64"}};
    for (size_t k = 0; k < ARRAY_LEN(ms); k++)
        if (!strcmp(ms[k].m, m)) return qt_from_name(ms[k].qd);
    return QT_VOID;
}

/* np.float32 / numpy.int32 / "float32" as a QdType; QT_VOID if it is none. */
static QdType numpy_type(const Expr *e) {
    const char *n = e->kind == E_ATTR && e->attr.obj->kind == E_NAME ? e->attr.name : e->kind == E_STR ? e->str : NULL;
    for (size_t k = 0; n && k < ARRAY_LEN(np_types); k++)
        if (!strcmp(np_types[k].np, n)) return qt_from_name(np_types[k].qd);
    return QT_VOID;
}

/* TABLE[KEY], TABLE a dict or tuple of dtypes (_NP = {qd.f32: np.float32, ...}, whose numpy and
 * torch dtypes are the qd types they convert to, sema_host_dtype): the item Python's subscript
 * gives, when qdc evaluates it (quietly); QT_VOID otherwise. */
static QdType dtype_item(Sema *S, const Expr *e) {
    Binding *b = e->sub.obj->kind == E_NAME ? sema_lookup(S, e->sub.obj->name) : NULL;
    if (!b || (b->v.kind != V_DICT && b->v.kind != V_TUPLE) || sema_is_host_expr(S, e->sub.index))
        return QT_VOID; /* not evaluated: reading a run-time name reports it (and forgets it) */
    int mark = diag_quiet_begin();
    Val v = sema_eval(S, e);
    bool bad = diag_quiet_end(mark);
    return !bad && v.kind == V_TYPE ? v.type : QT_VOID;
}

/* np.float32, numpy.bool_, torch.float64 ... in host code: the qd type Quadrants converts it to
 * (to_quadrants_type), as a V_TYPE; false if e is none of these. */
bool sema_host_dtype(Sema *S, const Expr *e, Val *out) {
    if (e->kind != E_ATTR || e->attr.obj->kind != E_NAME) return false;
    const char *m = e->attr.obj->name;
    Binding *b = sema_lookup(S, m); /* the module the script imports (a run-time value to qdc), not a name of its own */
    if (b && b->v.kind != V_HOST && b->v.kind != V_ERR) return false;
    QdType t = !strcmp(m, "np") || !strcmp(m, "numpy") ? numpy_type(e) : !strcmp(m, "torch") ? torch_type(e) : QT_VOID;
    if (t == QT_VOID) return false;
    return *out = (Val){.kind = V_TYPE, .type = t}, true;
}

static bool is_to_numpy_type(const char *p) {
    return !strcmp(p, "qd.lang.util.to_numpy_type") || !strcmp(p, "qd.util.to_numpy_type") || !strcmp(p, "qd.to_numpy_type");
}

/* A numpy dtype in host code: np.float32 (numpy_type), a name bound to one (a dtype variable, or
 * a parametrized qd type), or `A if COND else B` whose condition qdc evaluates (np_dtype =
 * np.float32 if dtype == qd.f32 else np.int32). QT_VOID if it is none of these. */
QdType sema_numpy_dtype(Sema *S, const Expr *e) {
    QdType t = numpy_type(e);
    if (t != QT_VOID || e->kind == E_STR) return t;
    if (e->kind == E_NAME) {
        Binding *b = sema_lookup(S, e->name);
        return b && b->v.kind == V_TYPE ? b->v.type : QT_VOID;
    }
    if (e->kind == E_ATTR) { /* qd.f32 given to numpy (Quadrants' types convert) */
        const char *p = sema_path(S, e);
        return p && !strchr(p + 3, '.') ? qt_from_name(p + 3) : QT_VOID;
    }
    if (e->kind == E_SUBSCRIPT) return dtype_item(S, e);
    if (e->kind == E_CALL && e->call.args.n == 1 && !e->call.nkw) { /* qd.lang.util.to_numpy_type(qd.f32): np.float32 */
        const char *p = sema_path(S, e->call.fn);
        if (p && is_to_numpy_type(p))
            return sema_numpy_dtype(S, e->call.args.items[0]);
    }
    int c = e->kind == E_IFEXP ? S->up->sema_host_cond(S, e->ifexp.cond) : -1;
    return c < 0 ? QT_VOID : sema_numpy_dtype(S, c ? e->ifexp.a : e->ifexp.b);
}

/* quadrants.lang.util.to_numpy_type(dtype) (imported from there, or qd.lang.util.*) in host code:
 * the numpy dtype of a Quadrants type, held as that type, so numpy calls given it read it as they
 * read qd.f32 (sema_numpy_dtype) and `np_t = to_numpy_type(dtype)` is a known value. */
bool sema_is_to_numpy_type(Val f) { return f.kind == V_NS && is_to_numpy_type(f.path); }

Val sema_to_numpy_type_call(Sema *S, const Expr *call, Val f) {
    (void)f;
    if (call->call.args.n != 1 || call->call.nkw) return diag_error(call->span, QD2007, "to_numpy_type takes 1 positional argument"), val_err();
    Val t = sema_eval(S, call->call.args.items[0]);
    if (t.kind == V_TYPE) return t;
    if (t.kind != V_ERR) diag_error(call->call.args.items[0]->span, QD2019, "to_numpy_type takes a Quadrants dtype such as qd.f32, got %s", val_describe(t));
    return val_err();
}

/* numpy's own choice for np.array([...]) of literals: int64 for ints, float64 if any is a float. */
static QdType literal_list_type(const Expr *e) {
    if (e->kind == E_INT) return QT_I64;
    if (e->kind == E_FLOAT) return QT_F64;
    if (e->kind == E_UNARY && e->op == T_MINUS) return literal_list_type(e->un.a);
    if ((e->kind != E_LIST && e->kind != E_TUPLE) || !e->list.n) return QT_VOID;
    QdType t = QT_I64;
    for (int k = 0; k < e->list.n; k++) {
        QdType i = literal_list_type(e->list.items[k]);
        if (i == QT_VOID) return QT_VOID;
        if (i == QT_F64) t = QT_F64;
    }
    return t;
}

static int list_depth(const Expr *e) {
    if (e->kind == E_COMP && !e->comp.gen && !e->comp.next) return 1 + list_depth(e->comp.elt); /* [i + 1.0 for i in range(n)] */
    if (e->kind != E_LIST && e->kind != E_TUPLE) return 0;
    return 1 + (e->list.n ? list_depth(e->list.items[0]) : 0);
}

/* An array expression, or a name bound to one. */
static bool host_array_of(Sema *S, const Expr *e, Val *out) {
    Binding *b = e->kind == E_NAME ? sema_lookup(S, e->name) : NULL;
    if (b && b->v.kind == V_HOSTARRAY) return *out = b->v, true;
    return !b && sema_host_array(S, e, out);
}

/* x.to_numpy() of a field or an ndarray: numpy's canonical view, a plain array of the element
 * type whose last axes are a vector's or matrix's components. */
static bool to_numpy(Sema *S, const Expr *x, Val *out) {
    Binding *b = x->kind == E_NAME ? sema_lookup(S, x->name) : NULL;
    if (b && b->v.kind == V_FIELD && S->fields.items[b->v.index].ndim > 0) {
        const IrField *f = &S->fields.items[b->v.index];
        return *out = (Val){.kind = V_HOSTARRAY, .harr = {.type = f->type, .ndim = (signed char)f->ndim}}, true;
    }
    if (!host_array_of(S, x, out)) return false;
    out->harr.ndim = (signed char)(out->harr.ndim + (out->harr.en ? (out->harr.em ? 2 : 1) : 0));
    out->harr.en = out->harr.em = 0, out->harr.layout = NULL;
    return true;
}

/* np.random.randn(4, 3), rng.rand(n), np.random.random((3, 3)), rng.uniform(a, b, size),
 * np.random.randint(a, b, size=...), on np.random or a generator (any OBJ.METHOD of these
 * names): float64 (randint, integers: int64) arrays; a call without a size is a scalar (not one). */
static bool random_array(Sema *S, const Expr *e, Val *out) {
    const char *m = e->call.fn->attr.name;
    const Expr *size = NULL;
    int nd = -1;
    QdType t = QT_F64;
    if (!strcmp(m, "randn") || !strcmp(m, "rand")) {
        if (e->call.nkw) return false;
        nd = e->call.args.n; /* one extent per argument */
    } else if (!strcmp(m, "random") || !strcmp(m, "standard_normal") || !strcmp(m, "uniform") || !strcmp(m, "normal") ||
               !strcmp(m, "randint") || !strcmp(m, "integers")) {
        int pos = !strcmp(m, "random") || !strcmp(m, "standard_normal") ? 0 : 2;
        if (e->call.args.n > pos) size = e->call.args.items[pos];
        keyword_of(e, "size", &size);
        if (!strcmp(m, "randint") || !strcmp(m, "integers")) t = QT_I64;
        nd = size && size->kind != E_NONE ? sema_shape_ndim(S, size) : -1;
    }
    if (nd < 1 || nd > IR_MAX_DIMS) return false;
    *out = (Val){.kind = V_HOSTARRAY, .harr = {.type = t, .ndim = (signed char)nd, .shape = sema_np_shape(S, e, nd)}};
    return true;
}

/* torch.zeros(3, 4) / torch.zeros((3, 4), dtype=torch.int32), ones, empty, rand, randn, full,
 * torch.tensor([...]), torch.Tensor(...) (always float32), torch.from_numpy(a), torch.arange:
 * torch's dtype rules (float32 by default; int64 for integer data). */
static bool torch_array(Sema *S, const Expr *e, Val *out) {
    const char *f = e->call.fn->attr.name;
    const Expr *dte = NULL, *a0 = e->call.args.n ? e->call.args.items[0] : NULL;
    keyword_of(e, "dtype", &dte);
    QdType dt = dte ? torch_type(dte) : QT_VOID;
    if (dte && dt == QT_VOID) return false;
    int nd = -1;
    QdType t = QT_F32;
    bool sized = !strcmp(f, "zeros") || !strcmp(f, "ones") || !strcmp(f, "empty") || !strcmp(f, "rand") || !strcmp(f, "randn");
    if (sized || !strcmp(f, "Tensor")) {
        bool ints = e->call.args.n > 0;
        for (int k = 0; k < e->call.args.n; k++) ints &= e->call.args.items[k]->kind == E_INT;
        Val arr;
        if (ints) nd = e->call.args.n; /* torch.zeros(3, 4) */
        else if (e->call.args.n == 1 && !strcmp(f, "Tensor") && (a0->kind == E_LIST || a0->kind == E_TUPLE)) nd = list_depth(a0);
        else if (e->call.args.n == 1 && !strcmp(f, "Tensor") && host_array_of(S, a0, &arr)) nd = arr.harr.ndim;
        else if (e->call.args.n == 1 && sized) nd = sema_shape_ndim(S, a0);
        if (!strcmp(f, "Tensor")) dt = QT_VOID; /* the FloatTensor constructor */
    } else if (!strcmp(f, "full") && e->call.args.n == 2) {
        nd = sema_shape_ndim(S, a0);
        t = literal_list_type(e->call.args.items[1]) == QT_I64 ? QT_I64 : QT_F32;
    } else if (!strcmp(f, "tensor") && e->call.args.n == 1 && a0->kind != E_LIST && a0->kind != E_TUPLE && host_array_of(S, a0, out)) {
        if (dt != QT_VOID) out->harr.type = dt; /* torch.tensor(np_array): the array's dtype and ndim, unless dtype= */
        return true;
    } else if (!strcmp(f, "tensor") && a0) {
        nd = list_depth(a0), t = literal_list_type(a0) == QT_I64 ? QT_I64 : QT_F32;
        if (literal_list_type(a0) == QT_VOID && !dte) return false;
    } else if (!strcmp(f, "from_numpy") && e->call.args.n == 1) {
        return host_array_of(S, a0, out);
    } else if (!strcmp(f, "arange") && a0) {
        nd = 1, t = QT_I64;
        for (int k = 0; k < e->call.args.n; k++) t = e->call.args.items[k]->kind == E_FLOAT ? QT_F32 : t;
    } else {
        return false;
    }
    if (nd < 1 || nd > IR_MAX_DIMS) return false;
    *out = (Val){.kind = V_HOSTARRAY, .harr = {.type = dt != QT_VOID ? dt : t, .ndim = (signed char)nd, .torch = true}};
    const Expr *rg = NULL;
    keyword_of(e, "requires_grad", &rg);
    out->harr.grad = rg && rg->kind == E_BOOL && rg->b;
    if (!strcmp(f, "Tensor") || !strcmp(f, "tensor")) /* of a literal list: its shape */
        return out->harr.dims = sema_np_shape(S, e, nd), true;
    int64_t dims[IR_MAX_DIMS];
    int dn = -1, mark = diag_quiet_begin();
    if (sized && e->call.args.n == nd && nd > 1) /* torch.ones(2, 3) */
        for (dn = 0; dn < nd && sema_const_shape(S, e->call.args.items[dn], &dims[dn], 1, "a shape") == 1; dn++) {}
    else if (sized && e->call.args.n == 1)
        dn = sema_const_shape(S, a0, dims, IR_MAX_DIMS, "a shape");
    if (!diag_quiet_end(mark) && dn == nd) { /* Tape(loss=t) checks its size (sema_ad.c) */
        int64_t *d = ARENA_ARRAY(S->arena, int64_t, nd);
        memcpy(d, dims, sizeof(int64_t) * (size_t)nd);
        out->harr.dims = d;
    }
    return true;
}

/* np.zeros_like(a), torch.ones_like(t, dtype=...), empty_like, full_like, rand_like, randn_like:
 * a's shape and dtype (numpy's and torch's rule), or the dtype= given. */
static bool like_array(Sema *S, const Expr *e, Val *out) {
    const Expr *fn = e->call.fn, *dte = NULL;
    const char *m = fn->attr.obj->kind == E_NAME ? fn->attr.obj->name : "", *f = fn->attr.name;
    bool np = !strcmp(m, "np") || !strcmp(m, "numpy"), torch = !strcmp(m, "torch");
    static const char *const likes[] = {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like"};
    bool like = false;
    for (size_t k = 0; k < ARRAY_LEN(likes); k++) like |= !strcmp(f, likes[k]);
    if (!like || (!np && !torch) || !e->call.args.n || !host_array_of(S, e->call.args.items[0], out)) return false;
    keyword_of(e, "dtype", &dte);
    if (!dte) return true;
    QdType t = np ? sema_numpy_dtype(S, dte) : torch_type(dte);
    if (t == QT_VOID) return false;
    out->harr.type = t;
    return true;
}

/* np.dot(a, b), np.matmul(a, b), a @ b of arrays of one dtype, at most 2-d: numpy's product has
 * a.ndim + b.ndim - 2 axes (a 2-d by 2-d product is 2-d, by a 1-d one 1-d; 1-d by 1-d is a
 * scalar, not an array). */
static bool product_array(Sema *S, const Expr *a, const Expr *b, Val *out) {
    Val x, y;
    if (!host_array_of(S, a, &x) || !host_array_of(S, b, &y) || x.harr.en || y.harr.en || x.harr.type != y.harr.type ||
        x.harr.ndim > 2 || y.harr.ndim > 2 || x.harr.ndim + y.harr.ndim - 2 < 1)
        return false;
    *out = (Val){.kind = V_HOSTARRAY, .harr = {.type = x.harr.type, .ndim = (signed char)(x.harr.ndim + y.harr.ndim - 2)}};
    return true;
}

/* x + y, x - y, x * y of two plain arrays of one dtype (or float32 with float64: float64, numpy's
 * promotion): numpy broadcasts them to the larger ndim; the shape is not followed. */
static bool elementwise_array(Val *x, const Val *y) {
    QdType a = x->harr.type, b = y->harr.type;
    if (x->harr.en || y->harr.en || x->harr.layout || y->harr.layout || x->harr.qd || y->harr.qd || x->harr.view || y->harr.view) return false;
    if (a != b && !(qt_is_float(a) && qt_is_float(b) && (a == QT_F64 || b == QT_F64))) return false;
    if (y->harr.ndim > x->harr.ndim) x->harr.ndim = y->harr.ndim;
    x->harr.type = a == QT_F64 || b == QT_F64 ? QT_F64 : a;
    x->harr.shape = NULL;
    return true;
}

/* np.eye(n), np.eye(n, m), np.identity(n), dtype= (float64 by default): a 2-d array. */
static bool eye_array(Sema *S, const Expr *e, Val *out) {
    const Expr *fn = e->call.fn, *dte = NULL;
    if (fn->kind != E_ATTR || fn->attr.obj->kind != E_NAME || (strcmp(fn->attr.obj->name, "np") && strcmp(fn->attr.obj->name, "numpy")))
        return false;
    if ((strcmp(fn->attr.name, "eye") && strcmp(fn->attr.name, "identity")) || !e->call.args.n || e->call.args.n > 3) return false;
    keyword_of(e, "dtype", &dte);
    QdType t = dte ? sema_numpy_dtype(S, dte) : QT_F64;
    if (t == QT_VOID) return false;
    *out = (Val){.kind = V_HOSTARRAY, .harr = {.type = t, .ndim = 2}};
    return true;
}

/* A compile-time int, nothing reported. */
static bool quiet_int(Sema *S, const Expr *e, int64_t *v) {
    int mark = diag_quiet_begin();
    bool ok = sema_const_int(S, e, v, "an index");
    return !diag_quiet_end(mark) && ok;
}

/* a[i, lo:hi:step, ...] of a numpy array whose shape qdc knows, with compile-time ints and slices
 * (numpy's basic indexing): the view's shape, and whether it is strided, neither C- nor
 * F-contiguous (numpy's flags: axes of extent 1 do not count). False for anything else (an
 * index out of range, an array index, None, ...). */
static bool np_subscript(Sema *S, const Expr *e, Val *out) {
    Val b;
    if (!host_array_of(S, e->sub.obj, &b) || b.harr.qd || b.harr.torch || b.harr.en || b.harr.layout || b.harr.view || b.harr.strided ||
        !b.harr.shape || b.harr.ndim < 1 || b.harr.ndim > IR_MAX_DIMS)
        return false;
    int nd = b.harr.ndim, n = e->sub.index->kind == E_TUPLE ? e->sub.index->list.n : 1, m = 0;
    if (n > nd) return false;
    int64_t st[IR_MAX_DIMS], sh[IR_MAX_DIMS], nst[IR_MAX_DIMS];
    st[nd - 1] = 1;
    for (int k = nd - 2; k >= 0; k--) st[k] = st[k + 1] * b.harr.shape[k + 1];
    for (int k = 0; k < nd; k++) {
        int64_t len = b.harr.shape[k];
        const Expr *it = k >= n ? NULL : e->sub.index->kind == E_TUPLE ? e->sub.index->list.items[k] : e->sub.index;
        if (!it) {
            sh[m] = len, nst[m++] = st[k];
            continue;
        }
        if (it->kind != E_SLICE) { /* an int: the axis goes */
            int64_t i;
            if (!quiet_int(S, it, &i)) return false;
            if (i < 0) i += len;
            if (i < 0 || i >= len) return false; /* Python's IndexError, not this */
            continue;
        }
        int64_t lo, hi, step = 1, cnt; /* Python's slice.indices(len) */
        if (it->slice.step && (!quiet_int(S, it->slice.step, &step) || !step)) return false;
        if (it->slice.lo && !quiet_int(S, it->slice.lo, &lo)) return false;
        if (it->slice.hi && !quiet_int(S, it->slice.hi, &hi)) return false;
        if (step > 0) {
            lo = !it->slice.lo ? 0 : lo < 0 ? (lo + len < 0 ? 0 : lo + len) : lo > len ? len : lo;
            hi = !it->slice.hi ? len : hi < 0 ? (hi + len < 0 ? 0 : hi + len) : hi > len ? len : hi;
            cnt = hi > lo ? (hi - lo + step - 1) / step : 0;
        } else {
            lo = !it->slice.lo ? len - 1 : lo < 0 ? (lo + len < 0 ? -1 : lo + len) : lo >= len ? len - 1 : lo;
            hi = !it->slice.hi ? -1 : hi < 0 ? (hi + len < 0 ? -1 : hi + len) : hi >= len ? len - 1 : hi;
            cnt = lo > hi ? (lo - hi - step - 1) / -step : 0;
        }
        sh[m] = cnt, nst[m++] = st[k] * step;
    }
    if (!m) return false; /* one element: a scalar */
    bool c = true, f = true, empty = false;
    for (int d = m - 1, x = 1; d >= 0; d--)
        if (sh[d] != 1) c &= nst[d] == x, x *= (int)sh[d];
    for (int d = 0, x = 1; d < m; d++)
        if (sh[d] != 1) f &= nst[d] == x, x *= (int)sh[d];
    for (int d = 0; d < m; d++) empty |= !sh[d];
    int64_t *shape = ARENA_ARRAY(S->arena, int64_t, m);
    memcpy(shape, sh, sizeof(int64_t) * (size_t)m);
    *out = b;
    out->harr.ndim = (signed char)m, out->harr.shape = shape, out->harr.dims = NULL, out->harr.strided = !c && !f && !empty;
    return true;
}

/* a.T, a.transpose(): numpy's is F-contiguous where a is C-contiguous (Quadrants copies it);
 * torch's is not contiguous where two or more axes have extent above 1 (its dims known). */
static bool transposed(Sema *S, const Expr *obj, Val *out) {
    if (!host_array_of(S, obj, out)) return false;
    const int64_t *d = out->harr.torch ? out->harr.dims : NULL;
    int big = 0;
    for (int k = 0; d && k < out->harr.ndim; k++) big += d[k] > 1;
    if (big > 1) out->harr.strided = true;
    out->harr.shape = NULL;
    if (d) {
        int64_t *r = ARENA_ARRAY(S->arena, int64_t, out->harr.ndim);
        for (int k = 0; k < out->harr.ndim; k++) r[k] = d[out->harr.ndim - 1 - k];
        out->harr.dims = r;
    }
    return true;
}

bool sema_host_array(Sema *S, const Expr *e, Val *out) {
    if (S->up->sema_bview_host(S, e, out)) return true; /* data[8:16], BufferView(data, 8, 8): a view of the array */
    if (e->kind == E_BINARY && e->op == T_AT) return product_array(S, e->bin.a, e->bin.b, out); /* a @ b */
    if (e->kind == E_CALL && e->call.fn->kind == E_ATTR && e->call.fn->attr.obj->kind == E_NAME && e->call.args.n == 2 && !e->call.nkw &&
        (!strcmp(e->call.fn->attr.obj->name, "np") || !strcmp(e->call.fn->attr.obj->name, "numpy")) &&
        (!strcmp(e->call.fn->attr.name, "dot") || !strcmp(e->call.fn->attr.name, "matmul")))
        return product_array(S, e->call.args.items[0], e->call.args.items[1], out); /* np.dot(a, b) */
    if (e->kind == E_BINARY && (e->op == T_STAR || e->op == T_PLUS) && (e->bin.a->kind == E_INT || e->bin.a->kind == E_FLOAT) &&
        e->bin.b->kind != E_INT && e->bin.b->kind != E_FLOAT) {
        Expr swapped = *e; /* 2 * np.ones(n, dtype=np.float32): as np.ones(...) * 2 (both commute) */
        swapped.bin.a = e->bin.b, swapped.bin.b = e->bin.a;
        return sema_host_array(S, &swapped, out);
    }
    if (e->kind == E_CALL && e->call.fn->kind == E_ATTR && like_array(S, e, out)) return true;
    if (e->kind == E_BINARY && (e->op == T_STAR || e->op == T_PLUS || e->op == T_MINUS)) {
        /* np.ones(n, dtype=np.float32) * 10: numpy keeps the array's dtype for an int operand, and
         * a float array's for a float one */
        Binding *b = e->bin.a->kind == E_NAME ? sema_lookup(S, e->bin.a->name) : NULL;
        if (b && b->v.kind == V_HOSTARRAY) *out = b->v;
        else if (!sema_host_array(S, e->bin.a, out)) return false;
        Val y;
        if (e->bin.b->kind != E_INT && e->bin.b->kind != E_FLOAT && host_array_of(S, e->bin.b, &y))
            return elementwise_array(out, &y); /* a + np.eye(n): two arrays */
        return e->bin.b->kind == E_INT || (e->bin.b->kind == E_FLOAT && qt_is_float(out->harr.type));
    }
    if (e->kind == E_ATTR && !strcmp(e->attr.name, "T")) return transposed(S, e->attr.obj, out); /* a.T */
    if (e->kind == E_SUBSCRIPT) return np_subscript(S, e, out); /* a[:, 0] */
    if (e->kind == E_CALL && e->call.fn->kind == E_ATTR && !e->call.nkw) { /* a.copy(), a.transpose(), a.astype(np.f32) */
        const char *m = e->call.fn->attr.name;
        const Expr *obj = e->call.fn->attr.obj;
        if (!strcmp(m, "copy") && !e->call.args.n) return host_array_of(S, obj, out) && (out->harr.strided = false, true); /* C order */
        if (!strcmp(m, "contiguous") && !e->call.args.n) return host_array_of(S, obj, out) && (out->harr.strided = false, true);
        if (!strcmp(m, "transpose") && !e->call.args.n) return transposed(S, obj, out);
        if (!strcmp(m, "astype") && e->call.args.n == 1 && host_array_of(S, obj, out)) {
            out->harr.type = sema_numpy_dtype(S, e->call.args.items[0]);
            return out->harr.type != QT_VOID;
        }
        if (!strcmp(m, "to_numpy") && !e->call.args.n) return to_numpy(S, obj, out);
        static const char *const keep[] = {"cuda", "cpu", "contiguous", "clone", "detach"}; /* torch: same dtype and shape */
        for (size_t k = 0; k < ARRAY_LEN(keep); k++)
            if (!strcmp(m, keep[k]) && !e->call.args.n) return host_array_of(S, obj, out);
        QdType cast = torch_method_type(m);
        if (cast != QT_VOID && !e->call.args.n && host_array_of(S, obj, out)) return out->harr.type = cast, true;
        if (!strcmp(m, "to") && e->call.args.n == 1 && host_array_of(S, obj, out)) { /* t.to(device) / t.to(torch.float64) */
            QdType t = torch_type(e->call.args.items[0]);
            if (t != QT_VOID) out->harr.type = t;
            return true;
        }
    }
    if (e->kind == E_CALL && e->call.fn->kind == E_ATTR && random_array(S, e, out)) return true;
    if (e->kind == E_CALL && eye_array(S, e, out)) return true;
    if (e->kind != E_CALL || e->call.fn->kind != E_ATTR) return false;
    const Expr *fn = e->call.fn, *dt = NULL, *shape = e->call.args.n ? e->call.args.items[0] : NULL;
    keyword_of(e, "dtype", &dt);
    keyword_of(e, "shape", &shape);
    QdType t = QT_VOID;
    int nd = -1;
    const char *p = sema_path(S, fn);
    if (p && !strncmp(p, "qd.", 3)) {
        return sema_qd_ndarray(S, e, p, out);
    } else if (fn->attr.obj->kind == E_NAME && (!strcmp(fn->attr.obj->name, "np") || !strcmp(fn->attr.obj->name, "numpy"))) {
        const char *f = fn->attr.name;
        bool filled = !strcmp(f, "zeros") || !strcmp(f, "ones") || !strcmp(f, "empty");
        if (!dt && (filled || !strcmp(f, "array") || !strcmp(f, "asarray")) && e->call.args.n == 2)
            dt = e->call.args.items[1]; /* np.zeros(shape, dtype) */
        if (!dt && !strcmp(f, "full") && e->call.args.n == 3) dt = e->call.args.items[2];
        if (dt) t = sema_numpy_dtype(S, dt);
        else if (filled) t = QT_F64; /* numpy's default dtype */
        else if ((!strcmp(f, "array") || !strcmp(f, "asarray")) && shape) t = literal_list_type(shape);
        if (!strcmp(f, "array") || !strcmp(f, "asarray")) nd = shape ? list_depth(shape) : -1;
        else if (!strcmp(f, "arange")) nd = 1;
        else if (!strcmp(f, "zeros") || !strcmp(f, "ones") || !strcmp(f, "empty") || !strcmp(f, "full")) nd = shape ? sema_shape_ndim(S, shape) : -1;
        if (nd == 0) nd = -1; /* np.array(3): a scalar, not an array argument */
    } else if (fn->attr.obj->kind == E_NAME && !strcmp(fn->attr.obj->name, "torch")) {
        return torch_array(S, e, out);
    } else {
        return false;
    }
    if (t == QT_VOID || nd < 0 || nd > IR_MAX_DIMS) return false;
    *out = (Val){.kind = V_HOSTARRAY, .harr = {.type = t, .ndim = (signed char)nd, .shape = sema_np_shape(S, e, nd)}};
    return true;
}

/* A field argument by its name; a field of the host function the kernel is defined in without
 * the prefix they share, one of another function's (a module kernel) with it: the fields of a
 * parametrized test's combinations are distinct. */
static bool field_spell(Sema *S, Val v, const char *kentry, StrBuf *spell) {
    const char *f = S->fields.items[v.index].name;
    size_t np = strlen(S->prefix);
    if (np && !strncmp(kentry, S->prefix, np) && !strncmp(f, S->prefix, np)) f += np;
    return sb_puts(spell, f), true;
}

/* A str argument in an entry name: s_ then its letters and digits, any other byte as _XX (hex). */
static void str_spell(StrBuf *spell, const char *str) {
    sb_puts(spell, "s_");
    for (const unsigned char *p = (const unsigned char *)str; *p; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) sb_putc(spell, (char)*p);
        else sb_printf(spell, "_%02X", *p);
}

/* The value of a call's argument for a generic parameter, and its spelling in entry names;
 * false if qdc cannot evaluate it. */
static bool call_value(Sema *S, const Expr *a, const char *kentry, Val *v, StrBuf *spell) {
    if (S->up->sema_pydc_call_value(S, a, v, spell)) return true;
    if (a->kind == E_NAME) {
        Binding *b = sema_lookup(S, a->name);
        if (!b) return false;
        *v = b->v;
        if (v->kind == V_OBJECT) return sb_puts(spell, a->name), true;
        if (v->kind == V_NONE) return sb_puts(spell, "None"), true;
        if (v->kind == V_STR) return str_spell(spell, v->path), true;
        if (v->kind == V_FIELD) return field_spell(S, *v, kentry, spell);
        if (v->kind == V_STRUCT && v->strct.st->n) { /* a struct field: spelled by its first component field */
            int leaves[64], n = sema_struct_leaf_fields(*v, leaves, 64);
            bool fields = n > 0;
            for (int k = 0; k < n; k++) fields &= leaves[k] >= 0;
            if (fields) return field_spell(S, (Val){.kind = V_FIELD, .index = leaves[0]}, kentry, spell);
        }
        if (v->kind == V_VEC && v->vec.n > 0 && v->vec.c[0].kind == V_FIELD) /* a vector field placed as components (SOA, SNodes) */
            return sb_puts(spell, a->name), true;
        if (v->kind == V_VEC && v->vec.n > 0 && sema_module_constant(S, v)) /* qd.Vector([1, 2]) of constants: its value, by its name */
            return sb_puts(spell, a->name), true;
    } else if (sema_tensor_alias(S, a, v)) { /* qd.wrap(x), x._unwrap() */
        if (v->kind == V_FIELD) return field_spell(S, *v, kentry, spell);
    } else if (a->kind == E_STR && !a->fstr) { /* "neg_row" for a qd.template(): qd.static(mode == "neg_row") decides */
        *v = (Val){.kind = V_STR, .path = a->str};
        return str_spell(spell, a->str), true;
    } else if (a->kind == E_NONE) { /* None for a qd.template() or qd.Tensor: qd.static(x is None) decides */
        *v = (Val){.kind = V_NONE};
        return sb_puts(spell, "None"), true;
    } else if (a->kind == E_ATTR && sema_path(S, a)) { /* qd.f32 passed to a qd.template() */
        Scope *saved = S->scope;
        S->scope = S->hscope;
        *v = sema_eval(S, a);
        S->scope = saved;
    } else if (sema_host_array(S, a, v)) {
    } else if (a->kind == E_SUBSCRIPT || a->kind == E_ATTR) { /* fields[1], self.inner: a field a list holds, an object's member */
        Scope *saved = S->scope;
        S->scope = S->hscope;
        int mark = diag_quiet_begin();
        *v = sema_eval(S, a);
        S->scope = saved;
        if (diag_quiet_end(mark)) return false;
        if (v->kind == V_OBJECT && a->kind == E_ATTR) return sb_puts(spell, a->attr.name), true;
        if (v->kind != V_FIELD) return false;
        return field_spell(S, *v, kentry, spell);
    } else if (a->kind == E_INT || a->kind == E_FLOAT || a->kind == E_BOOL || (a->kind == E_UNARY && a->un.a->kind != E_NAME)) {
        *v = sema_eval(S, a);
        if (v->kind != V_ERR) sema_module_constant(S, v); /* a Python int or float literal: i32 / f32 as at module level */
    } else {
        return false;
    }
    if (v->kind == V_HOSTARRAY) return sema_hostarray_spell(spell, *v), true;
    if (v->kind == V_OBJECT && a->kind == E_ATTR) return sb_puts(spell, a->attr.name), true; /* self.inner */
    if (v->kind == V_FIELD) return field_spell(S, *v, kentry, spell);
    if (v->kind == V_TYPE) return sb_puts(spell, qt_name(v->type)), true; /* a dtype passed to a qd.template() */
    return val_host_spell(spell, *v);
}

void sema_call_site(Sema *S, const Expr *call, int d) {
    const Stmt *def = S->defs.items[d].def;
    int np = def->def.nparams;
    bool generic = false, *gen = ARENA_ARRAY(S->arena, bool, np ? np : 1);
    Scope *caller = S->hscope;
    S->hscope = S->defs.items[d].scope; /* annotations name things where the kernel is defined (x: ann) */
    for (int k = 0; k < np; k++) generic |= gen[k] = sema_param_is_generic(S, &def->def.params[k]);
    S->hscope = caller;
    if (!generic) return;
    const Expr **given = ARENA_ARRAY(S->arena, const Expr *, np ? np : 1);
    int self = S->defs.items[d].method ? 1 : 0;
    for (int k = 0; k + self < np && k < call->call.args.n; k++) given[k + self] = call->call.args.items[k];
    for (int j = 0; j < call->call.nkw; j++)
        for (int k = 0; k < np; k++)
            if (!strcmp(def->def.params[k].name, call->call.kw[j].name)) given[k] = call->call.kw[j].value;
    CallInst ci = {.def = d, .args = ARENA_ARRAY(S->arena, Val, np ? np : 1), .span = call->span};
    StrBuf entry;
    sb_init(&entry);
    sb_puts(&entry, S->defs.items[d].entry);
    for (int k = 0; k < np; k++) {
        ci.args[k] = val_err();
        if (!gen[k]) continue;
        sb_puts(&entry, "__");
        if (!given[k] || !call_value(S, given[k], S->defs.items[d].entry, &ci.args[k], &entry)) { /* reported if no --instantiate names the kernel */
            ci.args = NULL, ci.span = given[k] ? given[k]->span : call->span, ci.entry = def->def.params[k].name;
            break;
        }
    }
    if (ci.args) ci.entry = arena_strdup(S->arena, entry.data);
    sb_free(&entry);
    if (!ci.args && S->raises) return; /* a call the script expects to fail */
    ci.raises = S->raises > 0;
    for (int c = 0; c < S->callinsts.len; c++)
        if (S->callinsts.items[c].def == d && ci.args && S->callinsts.items[c].args && !strcmp(S->callinsts.items[c].entry, ci.entry)) {
            S->callinsts.items[c].raises &= ci.raises;
            return;
        }
    if (!budget_charge(&S->budget, EB_KERNELS, 1, call->span)) return; /* each instantiation compiles a kernel */
    vec_push(&S->callinsts, ci);
}

/* A call site qdc could not evaluate (args NULL; entry: the parameter's name). */
void sema_bad_call_site(Sema *S, const CallInst *ci) {
    const Stmt *def = S->defs.items[ci->def].def;
    diag_error(ci->span, QD2060, "kernel '%s' is generic and qdc cannot evaluate this call's argument for '%s' (only fields, "
               "compile-time numbers and arrays made by qd.ndarray or numpy with a dtype are known); compile it with "
               "--instantiate '%s(...)'", def->def.name, ci->entry, S->defs.items[ci->def].entry);
}

/* A compile-time number as Python's repr() writes it (1.2, 3), else what the value is. */
static const char *arg_repr(Sema *S, Val v) {
    if (!val_is_host_scalar(v)) return val_describe(v);
    if (val_is_host_float(v)) {
        double f = val_host_f64(v);
        for (int prec = 1; prec <= 17; prec++) {
            const char *t = arena_printf(S->arena, "%.*g", prec, f);
            double back = strtod(t, NULL);
            if (val_host_type(v) == QT_F32 ? (float)back == (float)f : back == f) return strpbrk(t, ".en") ? t : arena_printf(S->arena, "%s.0", t);
        }
    }
    if (val_is_host_bool(v)) return val_host_u64(v) ? "True" : "False";
    return qt_is_signed(val_host_type(v)) ? arena_printf(S->arena, "%lld", (long long)val_host_i64(v)) : arena_printf(S->arena, "%llu", (unsigned long long)val_host_u64(v));
}

GenericResult sema_callsite_param(Sema *S, const Param *ap, IrParam *p, Val *bound, StrBuf *entry) {
    (void)entry;
    const Stmt *def = S->defs.items[S->callinst->def].def;
    Val v = S->callinst->args[ap - def->def.params];
    const Expr *dt, *nd;
    SemaParamShape shape = sema_param_shape(S, ap->annotation, &dt, &nd);
    if (v.kind == V_HOSTARRAY) {
        if (shape == PS_TEMPLATE) {
            diag_error(S->callinst->span, QD2061, "'%s' is a qd.template(): pass a field or a compile-time value, not an ndarray (Ndarray "
                       "shouldn't be passed in via `qd.template()`, please annotate your kernel using `qd.types.ndarray(...)` instead)", ap->name);
            return GP_ERR;
        }
        return array_param(S, ap, dt, nd, v, S->callinst->span, p);
    }
    if (shape == PS_ARRAY || (shape == PS_TENSOR && v.kind != V_FIELD && v.kind != V_NONE)) {
        diag_error(S->callinst->span, QD2061, "'%s' is an ndarray parameter; this call passes %s (Invalid type for argument %s, got %s)", ap->name,
                   val_describe(v), ap->name, arg_repr(S, v));
        return GP_ERR;
    }
    *bound = v;
    return GP_BOUND;
}
