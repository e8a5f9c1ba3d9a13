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

static const char *ann_path(Sema *S, const Expr *ann) {
    return sema_path(S, ann->kind == E_CALL ? ann->call.fn : ann->kind == E_SUBSCRIPT ? ann->sub.obj : ann);
}

static bool keyword_of(const Expr *call, const char *name, const Expr **out) {
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, name)) return *out = call->call.kw[k].value, true;
    return false;
}

/* What an annotation declares: an array (dtype and ndim possibly open), a template, or a scalar. */
SemaParamShape sema_param_shape(Sema *S, const Expr *ann, const Expr **dt, const Expr **nd) {
    *dt = *nd = NULL;
    if (!ann) return PS_SCALAR;
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
    }
    return PS_ARRAY;
}

bool sema_param_is_generic(Sema *S, const Param *ap) {
    const Expr *dt, *nd;
    SemaParamShape k = sema_param_shape(S, ap->annotation, &dt, &nd);
    return k == PS_TEMPLATE || k == PS_TENSOR || (k == PS_ARRAY && (!dt || !nd));
}

/* ---- parsing the specs ---- */

static void bad_spec(Span sp, const char *msg) {
    diag_error(sp, "QD2061", "invalid --instantiate spec: %s; write [ENTRY=]KERNEL(PARAM=VALUE, ...)", msg);
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

/* Resolves generic parameter ap of the kernel under the current instantiation: an array
 * becomes an ndarray parameter (*p, returns GP_PARAM), a template value is bound by name
 * (*bound, returns GP_BOUND). */
GenericResult sema_generic_param(Sema *S, const Param *ap, IrParam *p, Val *bound, StrBuf *entry) {
    const Instance *in = &S->instances.items[S->inst];
    const Expr *dt, *nd;
    SemaParamShape shape = sema_param_shape(S, ap->annotation, &dt, &nd);
    const Keyword *kw = inst_arg(in, ap->name);
    if (!kw) {
        diag_error(in->span, "QD2061", "the instantiation of '%s' gives no value for its generic parameter '%s'", in->kernel, ap->name);
        diag_note(ap->span, "'%s' is declared here", ap->name);
        return GP_ERR;
    }
    QdType vt = QT_VOID;
    int64_t vnd = -1;
    bool is_array = array_value(kw->value, &vt, &vnd);
    mangle(entry, in, kw->value);
    if (shape == PS_ARRAY || (is_array && shape != PS_SCALAR)) {
        if (!is_array) {
            diag_error(kw->value->span, "QD2061", "'%s' is an ndarray: give its element type and dimensions, e.g. %s=f32[1]", ap->name, ap->name);
            return GP_ERR;
        }
        QdType at = QT_VOID;
        int64_t and = -1;
        if (dt && !sema_annotation_type(S, dt, &at)) return GP_ERR;
        if (nd && !sema_const_int(S, nd, &and, "ndim")) return GP_ERR;
        if (at != QT_VOID && at != vt) {
            diag_error(kw->value->span, "QD2061", "'%s' is declared with dtype %s, the instantiation gives %s", ap->name, qt_name(at), qt_name(vt));
            return GP_ERR;
        }
        if (vnd < 0) vnd = and;
        if (vnd < 0) return diag_error(kw->value->span, "QD2061", "give the number of dimensions of '%s', e.g. %s=%s[1]", ap->name, ap->name, qt_name(vt)), GP_ERR;
        if (and >= 0 && and != vnd) {
            diag_error(kw->value->span, "QD2061", "'%s' is declared with ndim=%lld, the instantiation gives %lld", ap->name, (long long)and, (long long)vnd);
            return GP_ERR;
        }
        if (vnd > IR_MAX_DIMS) return diag_error(kw->value->span, "QD2061", "ndim must be between 0 and %d", IR_MAX_DIMS), GP_ERR;
        p->kind = IR_PARAM_NDARRAY, p->type = vt, p->ndim = (int)vnd;
        return GP_PARAM;
    }
    Scope *saved = S->scope;
    S->scope = NULL; /* template values name module-level things only */
    *bound = sema_eval(S, kw->value);
    S->scope = saved;
    if (bound->kind == V_ERR) return GP_ERR;
    if (shape == PS_TENSOR && bound->kind != V_FIELD) {
        diag_error(kw->value->span, "QD2061", "'%s' is a qd.Tensor: give a field's name or DTYPE[NDIM], not %s", ap->name, val_describe(*bound));
        return GP_ERR;
    }
    if (bound->kind == V_EXPR && !ir_is_const(bound->e)) {
        diag_error(kw->value->span, "QD2061", "a template argument must be a compile-time value");
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
        if (!found) diag_error(kw->span, "QD2061", "kernel '%s' has no parameter '%s'", in->kernel, kw->name);
        else if (!sema_param_is_generic(S, found))
            diag_error(kw->span, "QD2061", "parameter '%s' of '%s' is not generic; its type is fixed by its annotation", kw->name, in->kernel);
        for (int j = 0; j < k; j++)
            if (!strcmp(in->call->call.kw[j].name, kw->name)) diag_error(kw->span, "QD2061", "parameter '%s' is given twice", kw->name);
    }
}

const char *sema_instance_entry(Sema *S, int inst) { return S->instances.items[inst].entry; }

void sema_mark_instance_used(Sema *S, int inst) { S->instances.items[inst].used = true; }

/* A generic kernel without an instantiation: name the option and show a spec to start from. */
void sema_missing_instance(Sema *S, const Stmt *def) {
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
    diag_error(first->annotation->span, "QD2060", "kernel '%s' is generic ('%s' has no fixed type); compile it with --instantiate '%s(%s)'",
               def->def.name, first->name, def->def.name, ex.data);
    sb_free(&ex);
}

/* Specs that named no kernel of the module, or a kernel that is not generic. */
void sema_finish_instances(Sema *S) {
    for (int i = 0; i < S->instances.len; i++) {
        Instance *in = &S->instances.items[i];
        if (in->used) continue;
        Binding *b = scope_find(&S->module, in->kernel);
        const Span sp = in->call->call.fn->span;
        if (!b || b->v.kind != V_KERNEL) diag_error(sp, "QD2061", "--instantiate names '%s', which is not a kernel of this module", in->kernel);
        else diag_error(sp, "QD2061", "kernel '%s' is not generic; it needs no --instantiate", in->kernel);
    }
}

void sema_free_instances(Sema *S) {
    for (int i = 0; i < S->instances.len; i++) source_free(S->instances.items[i].src);
    for (int i = 0; i < S->spec_sources.len; i++) source_free(S->spec_sources.items[i]);
    vec_free(&S->instances), vec_free(&S->spec_sources);
}
