/* Semantic analysis, module level: imports, compile-time constants, qd.field declarations,
 * kernel and qd.func definitions, parameter annotations, and the split of each kernel body
 * into tasks (each top-level for is a parallel task; runs of other statements are serial). */
#include "sema.h"
#include "../ir/sparse.h"
#include "../ir/autodiff.h"
#include <string.h>

const int sema_reassigned = 0; /* SEMA_REASSIGNED points here (sema_simt.c uses it) */

/* ---- scopes, locals, statements ---- */

/* A scope's names by hash: scope_bind keeps it, in the compilation arena, once a scope holds
 * SCOPE_INDEX_MIN bindings (a module of 10,000 kernels made the linear search quadratic).
 * Scopes are also filled (vec_push of a copy) and emptied (vec_free) directly; the index
 * covers b.items[0, n) only while b.items is still the array it was built on, bindings after n
 * are searched linearly, and a stale index is not used (scope_bind rebuilds it). */
#define SCOPE_INDEX_MIN 64
typedef struct ScopeIndex {
    const Binding *items; /* the array it indexes */
    int n;                /* bindings indexed */
    int cap;              /* slots, a power of two, at least twice n */
    int *slot;            /* binding index + 1; 0: empty */
} ScopeIndex;

static uint32_t name_hash(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static bool index_usable(const Scope *s) {
    return s->index && s->index->items == s->b.items && s->index->n <= s->b.len;
}

/* Adds binding k (a later binding of the same name replaces an earlier one, as the linear search
 * from the end found it). */
static void index_add(ScopeIndex *x, const Binding *items, int k) {
    for (uint32_t i = name_hash(items[k].name) & (uint32_t)(x->cap - 1);; i = (i + 1) & (uint32_t)(x->cap - 1)) {
        if (!x->slot[i] || !strcmp(items[x->slot[i] - 1].name, items[k].name)) {
            x->slot[i] = k + 1;
            return;
        }
    }
}

/* Brings s's index up to date with all of s->b (rebuilt, larger, when it fills to half). */
static void index_update(Arena *a, Scope *s) {
    ScopeIndex *x = s->index;
    if (!index_usable(s) || s->b.len * 2 > x->cap) {
        if (!x) x = s->index = ARENA_NEW(a, ScopeIndex);
        int cap = 4 * SCOPE_INDEX_MIN;
        while (cap < s->b.len * 4) cap *= 2;
        x->cap = cap, x->n = 0, x->slot = ARENA_ARRAY(a, int, cap);
    }
    x->items = s->b.items;
    for (; x->n < s->b.len; x->n++) index_add(x, s->b.items, x->n);
}

Binding *scope_find(Scope *s, const char *name) {
    if (!s) return NULL;
    int n = index_usable(s) ? s->index->n : 0;
    for (int k = s->b.len - 1; k >= n; k--)
        if (!strcmp(s->b.items[k].name, name)) return &s->b.items[k];
    if (!n) return NULL;
    const ScopeIndex *x = s->index;
    for (uint32_t i = name_hash(name) & (uint32_t)(x->cap - 1); x->slot[i]; i = (i + 1) & (uint32_t)(x->cap - 1))
        if (!strcmp(s->b.items[x->slot[i] - 1].name, name)) return &s->b.items[x->slot[i] - 1];
    return NULL;
}

Binding *scope_bind(Sema *S, Scope *s, const char *name, Val v, Span decl) {
    Binding *b = scope_find(s, name);
    if (!b) {
        Binding nb = {name, v, false, decl};
        vec_push(&s->b, nb);
        if (s->b.len >= SCOPE_INDEX_MIN) index_update(S->arena, s);
        return &s->b.items[s->b.len - 1];
    }
    b->v = v, b->decl = decl;
    return b;
}

int sema_new_local(Sema *S, const char *name, QdType t) {
    IrLocal l = {name, t};
    vec_push(&S->locals, l);
    vec_push(&S->local_task, S->task);
    return S->locals.len - 1;
}

/* Each task runs as its own launch with thread-private locals. Kernel-scope locals that another
 * task uses are promoted to kernel-owned fields beforehand (sema_promote.c); what is left is a
 * variable created inside one loop (it exists only in that loop's iterations, as in Quadrants)
 * or inside a qd.func's top-level loop. */
bool sema_local_visible(Sema *S, int local, Span use) {
    int owner = S->local_task.items[local];
    if (owner == S->task || owner < 0 || S->task < 0) return true;
    const IrTask *t = &S->tasks.items[owner];
    diag_error(use, QD2025, "'%s' is created inside %s and exists only there; set it at the kernel's top level "
                              "before the loops to share it", S->locals.items[local].name,
               t->kind == IR_TASK_SERIAL ? "a qd.func's serial code" : "another parallel loop");
    return false;
}

IrStmt *sema_stmt_new(Sema *S, IrStmtKind k, Span sp) {
    IrStmt *st = ARENA_NEW(S->arena, IrStmt);
    st->kind = k;
    st->span = sp;
    return st;
}

void sema_emit(Sema *S, IrStmt *st) {
    if (!S->cur) die("statement emitted outside a block");
    if (st->kind == IR_ASSIGN) S->up->sema_note_assign(S, st);
    if (st->kind == IR_BARRIER && S->block_divergent) S->up->sema_check_uniform(S, st->span, "a block barrier", true);
    vec_push(S->cur, st);
}

/* "qd.types.ndarray" for a dotted chain rooted at the quadrants alias; NULL otherwise. */
const char *sema_path(Sema *S, const Expr *e) {
    if (e->kind == E_NAME) return S->qd_alias && !strcmp(e->name, S->qd_alias) ? "qd" : NULL;
    if (e->kind != E_ATTR) return NULL;
    const char *base = sema_path(S, e->attr.obj);
    return base ? arena_printf(S->arena, "%s.%s", base, e->attr.name) : NULL;
}

/* Python's int, float and bool as dtypes (Quadrants' cook_dtype: default_ip, default_fp, u1). */
bool sema_py_scalar(const Sema *S, Val v, QdType *out) {
    if (v.kind != V_NS || (strcmp(v.path, "int") && strcmp(v.path, "float") && strcmp(v.path, "bool"))) return false;
    *out = v.path[0] == 'i' ? S->default_ip : v.path[0] == 'f' ? S->default_fp : QT_U1;
    return true;
}

bool sema_annotation_type(Sema *S, const Expr *ann, QdType *out) {
    Scope *saved = S->scope;
    S->scope = S->hscope; /* annotations name things of the scope the definition is in */
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    Val v = sema_eval(S, ann);
    S->scope = saved, S->cur = cur;
    if (v.kind == V_TYPE) return *out = v.type, true;
    if (sema_py_scalar(S, v, out)) return true;
    if (v.kind == V_NS && !strncmp(v.path, "qd.", 3))
        diag_error(ann->span, QD2005, "'%s' is not a scalar type of the kernel language (qd.i8 ... qd.f64)", v.path);
    else if (v.kind != V_ERR)
        diag_error(ann->span, QD2005, "expected a scalar type such as qd.i32 or qd.f32, got %s", val_describe(v));
    return false;
}

/* ---- module level and host functions ---- */


Binding *sema_lookup(Sema *S, const char *name) {
    for (Scope *s = S->scope ? S->scope : S->hscope; s; s = s->parent) {
        Binding *b = scope_find(s, name);
        if (b) return b;
    }
    return NULL;
}

static Binding *host_find(Sema *S, const char *name) {
    for (Scope *s = S->hscope; s; s = s->parent) {
        Binding *b = scope_find(s, name);
        if (b) return b;
    }
    return NULL;
}

/* qd.simt.subgroup.group_size() / log2_group_size() (any spelling of the namespace) in host code:
 * a compile-time int in Quadrants, known here when every target of the compile has one width
 * (else the script's value: host code). */
static bool subgroup_size_call(Sema *S, const Expr *e) {
    if (e->kind != E_CALL || e->call.args.n || e->call.nkw || e->call.fn->kind != E_ATTR) return false;
    const char *name = e->call.fn->attr.name, *p = sema_path(S, e->call.fn->attr.obj);
    if (strcmp(name, "group_size") && strcmp(name, "log2_group_size")) return false;
    if (!p && e->call.fn->attr.obj->kind == E_NAME) {
        Binding *b = host_find(S, e->call.fn->attr.obj->name);
        p = b && b->v.kind == V_NS ? b->v.path : NULL;
    }
    return p && !strcmp(p, "qd.simt.subgroup");
}

/* Sema.defs and Sema.lambdas by def (open addressing on the pointer): a module of 10^4 qd.funcs
 * looked each one up by scanning them, at every inlined call and every method check. Both
 * vectors only grow, so a position stays valid; a def added again points at its latest entry. */
static uint32_t index_slot(const struct DefIndex *x, const Stmt *def) {
    uint64_t h = (uint64_t)(uintptr_t)def * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 32) & (uint32_t)(x->cap - 1);
    while (x->def[i] && x->def[i] != def) i = (i + 1) & (uint32_t)(x->cap - 1);
    return i;
}

static void index_put(struct DefIndex *x, const Stmt *def, int at) {
    if (2 * (x->n + 1) > x->cap) {
        struct DefIndex old = *x;
        x->cap = old.cap ? 2 * old.cap : 64, x->n = 0;
        x->def = xcalloc((size_t)x->cap, sizeof *x->def), x->at = xcalloc((size_t)x->cap, sizeof *x->at);
        for (int k = 0; k < old.cap; k++)
            if (old.def[k]) {
                uint32_t i = index_slot(x, old.def[k]);
                x->def[i] = old.def[k], x->at[i] = old.at[k], x->n++;
            }
        free(old.def), free(old.at);
    }
    uint32_t i = index_slot(x, def);
    if (!x->def[i]) x->def[i] = def, x->n++;
    x->at[i] = at;
}

static int index_get(const struct DefIndex *x, const Stmt *def) {
    if (!x->cap) return -1;
    uint32_t i = index_slot(x, def);
    return x->def[i] ? x->at[i] : -1;
}

void sema_def_push(Sema *S, SemaDef d) {
    vec_push(&S->defs, d);
    index_put(&S->def_index, d.def, S->defs.len - 1);
}

void sema_lambda_push(Sema *S, SemaDef d) {
    vec_push(&S->lambdas, d);
    index_put(&S->lambda_index, d.def, S->lambdas.len - 1);
}

int sema_def_at(const Sema *S, const Stmt *def) { return index_get(&S->def_index, def); }
int sema_lambda_at(const Sema *S, const Stmt *def) { return index_get(&S->lambda_index, def); }

static Scope *def_scope_of(Sema *S, const Stmt *def) {
    int k = sema_lambda_at(S, def);
    if (k >= 0) return S->lambdas.items[k].scope;
    k = sema_def_at(S, def);
    if (k >= 0) return S->defs.items[k].scope;
    Scope *py = sema_pyfunc_scope(S, def); /* a Python function made a qd.func in a kernel: qd.func(f) */
    return py ? py : &S->module;
}

/* The scope a qd.func's (or kernel's) body sees, as the kernel being checked sees it: Quadrants
 * compiles a kernel at its first call and reads then the globals (and closure cells) of each
 * qd.func it calls, so a qd.func defined where the kernel is reads the kernel's snapshot of
 * that scope (SemaDef.live), not the names as the script leaves them. */
Scope *sema_def_scope(Sema *S, const Stmt *def) {
    Scope *sc = def_scope_of(S, def);
    return S->snap_live && sc == S->snap_live && S->snap ? S->snap : sc;
}

/* Sema.pyfuncs grows by one entry per closure a script makes (a call of a function that defines
 * one keeps its scope), so finding a def's scope by scanning it was quadratic in the calls; the
 * index maps each def to the scope added last for it (open addressing on the pointer). */
static uint32_t def_slot(const struct PyFuncIndex *x, const Stmt *def) {
    uint64_t h = (uint64_t)(uintptr_t)def * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 32) & (uint32_t)(x->cap - 1);
    while (x->def[i] && x->def[i] != def) i = (i + 1) & (uint32_t)(x->cap - 1);
    return i;
}

void sema_pyfunc_add(Sema *S, const Stmt *def, Scope *scope) {
    vec_push(&S->pyfuncs, ((struct PyFunc){def, scope}));
    struct PyFuncIndex *x = &S->pyfunc_index;
    if (2 * (x->n + 1) > x->cap) {
        struct PyFuncIndex old = *x;
        x->cap = old.cap ? 2 * old.cap : 64, x->n = 0;
        x->def = xcalloc((size_t)x->cap, sizeof *x->def), x->scope = xcalloc((size_t)x->cap, sizeof *x->scope);
        for (int k = 0; k < old.cap; k++)
            if (old.def[k]) {
                uint32_t i = def_slot(x, old.def[k]);
                x->def[i] = old.def[k], x->scope[i] = old.scope[k], x->n++;
            }
        free(old.def), free(old.scope);
    }
    uint32_t i = def_slot(x, def);
    if (!x->def[i]) x->def[i] = def, x->n++;
    x->scope[i] = scope;
}

Scope *sema_pyfunc_scope(Sema *S, const Stmt *def) {
    const struct PyFuncIndex *x = &S->pyfunc_index;
    if (!x->cap) return NULL;
    uint32_t i = def_slot(x, def);
    return x->def[i] ? x->scope[i] : NULL;
}

/* base, or base__def2, base__def3 ... when base was given already (a name redefined in a host
 * function, two host functions of one name). */
const char *sema_unique_name(Sema *S, const char *base) {
    const char *name = base;
    for (int n = 2, k = 0; k < S->used_names.len; k++)
        if (!strcmp(S->used_names.items[k], name)) name = arena_printf(S->arena, "%s__def%d", base, n++), k = -1;
    vec_push(&S->used_names, name);
    return name;
}

/* The name of a field bound to `name` here: the host function's prefix, and __defN when a
 * field of that name was declared already (the same statement run twice, x = qd.field(...)
 * in a loop or twice in one function), so every field has its own symbol (qdc-abi(7)). */
const char *sema_field_name(Sema *S, const char *name) {
    return sema_unique_name(S, *S->prefix ? arena_printf(S->arena, "%s%s", S->prefix, name) : name);
}

/* A field's name as written: without its host function's prefix and __defN. */
const char *sema_field_written(Sema *S, const char *name) {
    const char *end = name + strlen(name), *tail = name;
    const char *d = end;
    while (d > name && d[-1] >= '0' && d[-1] <= '9') d--;
    if (d < end && d - name >= 5 && !strncmp(d - 5, "__def", 5)) end = d - 5;
    for (const char *p = strstr(name, "__"); p && p < end; p = strstr(p + 2, "__")) tail = p + 2;
    return arena_printf(S->arena, "%.*s", (int)(end - tail), tail);
}

static bool keyword(const Expr *call, const char *name, const Expr **out) {
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, name)) return *out = call->call.kw[k].value, true;
    return false;
}

static bool field_shape(Sema *S, const Expr *shape, IrField *f) {
    int n = sema_const_shape(S, shape, f->shape, IR_MAX_DIMS, "a field shape");
    if (n < 0) return false;
    f->ndim = n, f->elems = 1;
    for (int k = 0; k < n; k++) {
        if (f->shape[k] <= 0) { /* Quadrants: "Every dimension of a Quadrants field should be positive" */
            diag_error(sema_shape_span(shape, k), QD2004, "every dimension of a field must be positive, got %lld", (long long)f->shape[k]);
            return false;
        }
        if (f->shape[k] > INT32_MAX || f->elems * f->shape[k] > INT32_MAX) {
            diag_error(sema_shape_span(shape, k), QD2004, "field extent %lld is out of range (1 to 2^31-1 elements in all)", (long long)f->shape[k]);
            return false;
        }
        f->elems *= f->shape[k];
    }
    return true;
}

/* None written or named (offset=offset with offset = None) */
static bool is_none(Sema *S, const Expr *e) {
    Binding *b = e->kind == E_NAME ? sema_lookup(S, e->name) : NULL;
    return e->kind == E_NONE || (b && b->v.kind == V_NONE);
}

/* order="ji": a permutation of the first ndim letters of "ijkl" (outermost storage axis first);
 * 0 when the order is row-major (nothing to do), -1 after an error. */
static int field_order(Sema *S, const Expr *order, const IrField *f, int vn, int *axes) {
    if (!order || order->kind == E_NONE) return 0;
    Val ov = order->kind == E_STR ? (Val){.kind = V_STR, .path = order->str} : sema_eval(S, order); /* order=_order_string(layout) */
    if (ov.kind == V_ERR) return -1;
    if (ov.kind != V_STR) return diag_error(order->span, QD2004, "order= takes a string such as \"ji\", got %s", val_describe(ov)), -1;
    const char *str = ov.path;
    int n = (int)strlen(str), seen = 0, nd = f->ndim - f->elem_ndim; /* a vector field: its element axes are not ordered */
    bool permuted = false;
    if (n != nd) return diag_error(order->span, QD2004, "order=\"%s\" names %d ax%s but the shape has %d (the dimensionality of shape and order must be the same)",
                                      str, n, n == 1 ? "is" : "es", nd), -1;
    for (int k = 0; k < n; k++) {
        int a = str[k] - 'i';
        if (a < 0 || a >= n || seen & (1 << a))
            return diag_error(order->span, QD2004, "order=\"%s\" must name each of the axes %.*s once", str, n, "ijkl"), -1;
        seen |= 1 << a, axes[k] = a, permuted |= a != k;
    }
    (void)vn;
    return permuted;
}

/* offset= given and not None (offset=None, written or computed, is no offset, as in Quadrants). */
bool sema_offset_given(Sema *S, const Expr *offset) {
    if (!offset || offset->kind == E_NONE) return false;
    if (offset->kind != E_NAME && offset->kind != E_IFEXP) return true;
    Val v = sema_eval(S, offset);
    return v.kind != V_NONE;
}

/* offset=N or (N, M, ...): one per axis of shape (Quadrants' rule), f->origin. */
static bool field_origin(Sema *S, const Expr *offset, IrField *f) {
    if (!sema_offset_given(S, offset)) return true;
    int64_t o[IR_MAX_DIMS];
    int n = sema_const_shape(S, offset, o, IR_MAX_DIMS, "a field offset");
    if (n < 0) return false;
    if (n != f->ndim)
        return diag_error(offset->span, QD2004, "offset= has %d value%s but the shape has %d dimension%s (the dimensionality of "
                          "shape and offset must be the same)", n, n == 1 ? "" : "s", f->ndim, f->ndim == 1 ? "" : "s"), false;
    for (int k = 0; k < n; k++) {
        if (o[k] < INT32_MIN || o[k] + f->shape[k] - 1 > INT32_MAX)
            return diag_error(offset->span, QD2004, "offset %lld puts axis %d outside the i32 index range", (long long)o[k], k), false;
        f->origin[k] = o[k];
    }
    return true;
}

static bool field_args(Sema *S, const Expr *call) {
    const Expr *dt = call->call.args.n > 0 ? call->call.args.items[0] : NULL;
    keyword(call, "dtype", &dt);
    for (int k = 0; k < call->call.nkw; k++) {
        const char *kw = call->call.kw[k].name;
        if (!strcmp(kw, "needs_grad") || !strcmp(kw, "needs_dual")) continue; /* sema_ad_mark */
        if (strcmp(kw, "dtype") && strcmp(kw, "shape") && strcmp(kw, "name") && strcmp(kw, "offset") && strcmp(kw, "order"))
            return diag_error(call->call.kw[k].span, QD2004, "qd.field argument '%s' is not supported in v1", kw), false;
    }
    if (call->call.args.n > 2) return diag_error(call->span, QD2004, "qd.field takes (dtype, shape)"), false;
    if (!dt) return diag_error(call->span, QD2004, "qd.field needs a dtype, e.g. qd.field(qd.f32, shape=(N,))"), false;
    return true;
}

/* A vector or matrix field with layout=qd.Layout.SOA or a permuted order=: one scalar field
 * per component (as Quadrants makes them), placed as Quadrants places them: AOS, all together
 * under one dense node per axis in the order given (the components of an element stay
 * contiguous); SOA, each alone under its own nodes (one plain array per component when the
 * order is row-major). axes: the order (outermost first), NULL for row-major. */
static void vector_placed(Sema *S, const Expr *target, Span span, const IrField *f, int n, int m, const int *axes, bool soa) {
    int nd = f->ndim - f->elem_ndim, row[IR_MAX_DIMS];
    for (int k = 0; k < nd; k++) row[k] = k;
    Val v = S->up->vec_make(S, n, m);
    int *ids = ARENA_ARRAY(S->arena, int, vec_len(v));
    for (int k = 0; k < vec_len(v); k++) {
        IrField c = *f;
        c.name = arena_printf(S->arena, "%s_%d", f->name, k), c.ndim = -1, c.elem_ndim = 0;
        vec_push(&S->fields, c);
        ids[k] = S->fields.len - 1;
        v.vec.c[k] = (Val){.kind = V_FIELD, .index = ids[k]};
        if (soa) S->up->sema_snode_place_ordered(S, &ids[k], 1, f->shape, axes ? axes : row, nd, span);
    }
    if (!soa) S->up->sema_snode_place_ordered(S, ids, vec_len(v), f->shape, axes, nd, span);
    scope_bind(S, BIND_SCOPE(S), target->name, v, span);
}

/* A rejected declaration poisons its name: later uses are not reported again. */
static void declare_field(Sema *S, const Expr *target, Span span, const Expr *call, bool soa) {
    if (S->up->sema_quant_field(S, target, span, call)) return;
    IrField f = {.name = sema_field_name(S, target->name), .span = span};
    const Expr *dt = call->call.args.n > 0 ? call->call.args.items[0] : NULL, *shape = call->call.args.n > 1 ? call->call.args.items[1] : NULL;
    keyword(call, "dtype", &dt), keyword(call, "shape", &shape);
    if (shape && is_none(S, shape)) shape = NULL; /* shape=None: placed later, as without shape= */
    if (!field_args(S, call)) return (void)scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span);
    int n = 0, m = 0;
    bool ok = S->up->sema_vec_type_of(S, dt, &f.type, &n, &m) ? n > 0 : sema_annotation_type(S, dt, &f.type);
    const Expr *offset = NULL, *order = NULL;
    keyword(call, "offset", &offset), keyword(call, "order", &order);
    if (offset && is_none(S, offset)) offset = NULL;
    if (order && is_none(S, order)) order = NULL;
    if (ok && order && !shape) ok = (diag_error(order->span, QD2004, "shape cannot be None when order is set"), false);
    if (ok && offset && !shape)
        ok = (diag_error(offset->span, QD2004, "shape cannot be None when offset is set (a field placed later takes its offset from place())"), false);
    if (ok && !shape && n) { /* placed later, as Quadrants does: one scalar field per component, placed together */
        Val v = S->up->vec_make(S, n, m);
        for (int k = 0; k < vec_len(v); k++) {
            IrField c = f;
            c.name = arena_printf(S->arena, "%s_%d", f.name, k), c.ndim = -1;
            vec_push(&S->fields, c);
            v.vec.c[k] = (Val){.kind = V_FIELD, .index = S->fields.len - 1};
        }
        vec_push(&S->members, ((AdManual){S->fields.len - vec_len(v), S->fields.len - 1, span, false, false}));
        return (void)scope_bind(S, BIND_SCOPE(S), target->name, v, span);
    }
    if (ok && !shape) f.ndim = -1; /* placed later: qd.root.dense(...).place(x) */
    else if (ok) ok = field_shape(S, shape, &f) && field_origin(S, offset, &f) && S->up->sema_vec_field_elem(S, &f, n, m, call->span);
    int axes[IR_MAX_DIMS], ordered = 0;
    if (ok && shape) ordered = field_order(S, order, &f, n, axes);
    if (!ok || ordered < 0) return (void)scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span);
    if (n && (soa || ordered)) return vector_placed(S, target, span, &f, n, m, ordered ? axes : NULL, soa);
    vec_push(&S->fields, f);
    if (ordered) S->up->sema_snode_place_ordered(S, &(int){S->fields.len - 1}, 1, f.shape, axes, f.ndim, span);
    scope_bind(S, BIND_SCOPE(S), target->name, (Val){.kind = V_FIELD, .index = S->fields.len - 1}, span);
}

static void vector_field(Sema *S, const Expr *target, Span span, const Expr *call, bool matrix);

void sema_declare_field(Sema *S, const Expr *target, Span span, const Expr *call, int vec) {
    int first = S->fields.len;
    if (vec) vector_field(S, target, span, call, vec == 2);
    else declare_field(S, target, span, call, false);
    S->up->sema_ad_mark(S, call, first);
}

/* qd.field(...) (vec 1/2: qd.Vector.field/qd.Matrix.field) run by host code as an expression, not
 * bound to a name by an assignment: a lambda's body (`scalar = lambda: qd.field(qd.f32)`), a
 * comprehension's item (`[qd.field(qd.f32) for _ in range(2)]`), an argument. Python makes a
 * field wherever the call runs (Quadrants allows it until the fields are materialized); its
 * symbol is named after the assignment being run when there is one (S->field_hint), else
 * "field", made unique as every field name is (qdc-abi(7)). */
Val sema_field_value(Sema *S, const Expr *call, int vec) {
    const char *name = S->field_hint ? S->field_hint : "field";
    Scope sc = {0}, *save = S->bind_to;
    Expr t = {.kind = E_NAME, .span = call->span, .name = name};
    S->bind_to = &sc;
    sema_declare_field(S, &t, call->span, call, vec);
    S->bind_to = save;
    Binding *b = scope_find(&sc, name);
    Val v = b ? b->v : val_err();
    vec_free(&sc.b);
    return v;
}

/* qd.Vector.field(n, dtype, shape) / qd.Matrix.field(n, m, dtype, shape): a field of the
 * vector type (qd.field(qd.types.vector(n, dtype), shape)). */
static void vector_field(Sema *S, const Expr *target, Span span, const Expr *call, bool matrix) {
    int want = matrix ? 3 : 2, na = call->call.args.n;
    bool soa = false;
    Expr tcall = *call, fcall = *call, *targs[3], *fargs[2];
    Keyword tkw[3], fkw[8];
    tcall.call.args.items = targs, tcall.call.args.n = 0, tcall.call.kw = tkw, tcall.call.nkw = 0;
    fcall.call.args.items = fargs, fcall.call.args.n = 0, fcall.call.kw = fkw, fcall.call.nkw = 0;
    for (int k = 0; k < na && k < want; k++) targs[tcall.call.args.n++] = call->call.args.items[k];
    if (na > want) fargs[1] = call->call.args.items[want], fcall.call.args.n = 2;
    for (int k = 0; k < call->call.nkw; k++) {
        const Keyword *kw = &call->call.kw[k];
        if (!strcmp(kw->name, "n") || !strcmp(kw->name, "m") || !strcmp(kw->name, "dtype") || !strcmp(kw->name, "dt")) {
            if (tcall.call.nkw < 3) tkw[tcall.call.nkw++] = *kw;
        } else if (!strcmp(kw->name, "layout")) { /* qd.Layout.AOS (the default) or qd.Layout.SOA */
            const char *lp = sema_path(S, kw->value);
            if (!lp || (strcmp(lp, "qd.Layout.AOS") && strcmp(lp, "qd.Layout.SOA")))
                return (void)diag_error(kw->value->span, QD2043, "layout= takes qd.Layout.AOS or qd.Layout.SOA");
            soa = !strcmp(lp, "qd.Layout.SOA");
        } else if (fcall.call.nkw < 8) {
            fkw[fcall.call.nkw++] = *kw;
        }
    }
    int64_t qn = 0, qm = 0; /* a quantized dtype: one member per component (sema_quant.c) */
    const Expr *qdt = tcall.call.args.n == want ? targs[want - 1] : NULL;
    for (int k = 0; k < tcall.call.nkw; k++)
        if (!strcmp(tkw[k].name, "dtype") || !strcmp(tkw[k].name, "dt")) qdt = tkw[k].value;
    if (qdt && !fcall.call.args.n && !fcall.call.nkw && tcall.call.args.n >= want - 1) {
        int mark = diag_quiet_begin();
        bool dims = sema_const_int(S, targs[0], &qn, "n") && qn > 0 && qn <= INT32_MAX && (!matrix || (sema_const_int(S, targs[1], &qm, "m") && qm > 0 && qm <= INT32_MAX));
        if (diag_quiet_end(mark)) dims = false;
        if (dims && S->up->sema_quant_vec_field(S, target, span, qdt, (int)qn, (int)qm)) return;
    }
    Expr fn = {.kind = E_NAME, .span = call->span, .name = "$vectype"};
    tcall.call.fn = &fn;
    Val ty = S->up->sema_vec_type_call(S, &tcall, matrix);
    if (ty.kind != V_VECTYPE) return (void)scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span);
    S->val_slots[5] = ty;
    fargs[0] = (Expr *)S->up->sema_val_node(S, ty, 5, call->span);
    if (fcall.call.args.n == 0) fcall.call.args.n = 1;
    declare_field(S, target, span, &fcall, soa);
}

/* A struct value whose every leaf is a constant (already of its member's type). */
static bool const_struct(Val v) {
    if (v.kind == V_EXPR) return val_is_host_scalar(v);
    if (v.kind == V_VEC) {
        for (int k = 0; k < vec_len(v); k++)
            if (!const_struct(v.vec.c[k])) return false;
        return true;
    }
    if (v.kind != V_STRUCT) return false;
    for (int k = 0; k < v.strct.st->n; k++)
        if (!const_struct(v.strct.m[k])) return false;
    return true;
}

/* A module-level constant: a number (narrowed to the type a literal of it has in a kernel: i32
 * or i64, f32), a type, a tuple/list of them (SHAPE = (4, 8)), or a struct of constants
 * (s = P(a=1.0): kernels see its values, as Quadrants bakes a Python-scope struct in). False if
 * it is none of these. */
/* A builtin function of Python's as a value (its V_NS path is its name). */
static bool py_builtin(const char *p) {
    static const char *const names[] = {"int", "float", "bool", "min", "max", "abs", "pow", "len", "range", "sum", "all", "any",
                                        "tuple", "list", "dict", "enumerate", "zip", "reversed", "chr", "ord", "str"};
    for (size_t k = 0; k < ARRAY_LEN(names); k++)
        if (!strcmp(names[k], p)) return true;
    return false;
}

bool sema_module_constant(Sema *S, Val *c) {
    if (c->kind == V_STRUCT) return const_struct(*c);
    if (c->kind == V_TYPE || c->kind == V_STR || c->kind == V_NONE || c->kind == V_SNODE || c->kind == V_VECTYPE || c->kind == V_OBJECT ||
        c->kind == V_FIELD || c->kind == V_STRUCTTYPE || c->kind == V_FUNC || c->kind == V_PYFUNC || c->kind == V_ANNOT ||
        c->kind == V_MODULE || c->kind == V_PYINT || c->kind == V_PYDCTYPE || c->kind == V_CLASS || c->kind == V_KERNEL) /* kernels: self.hook = hook; classes: LinksState = StructLinksState if f else qd.template() */
        return true;
    if (c->kind == V_DICT) { /* keys are compile-time by construction; the values must be constants too */
        for (int k = 0; k < c->dict.n; k++)
            if (!sema_module_constant(S, &c->dict.vals[k])) return false;
        return true;
    }
    if (c->kind == V_VEC) { /* a constant vector or matrix */
        for (int k = 0; k < vec_len(*c); k++)
            if (!sema_module_constant(S, &c->vec.c[k])) return false;
        return true;
    }
    if (c->kind == V_NS && !strncmp(c->path, "qd.", 3)) return true; /* sg = qd.simt.subgroup */
    if (c->kind == V_NS && py_builtin(c->path)) return true; /* castor = float */
    if (c->kind == V_NS && !strcmp(c->path, "dataclasses.dataclass")) return true; /* DATA_ORIENTED = partial(dataclasses.dataclass, ...) */
    if (c->kind == V_PYDC && !c->pydc.dc->anns[0] && !strcmp(c->pydc.dc->cls->class_.name, "SimpleNamespace")) { /* types.SimpleNamespace(a=1) */
        for (int k = 0; k < c->pydc.dc->n; k++)
            if (!sema_module_constant(S, &c->pydc.m[k])) return false;
        return true;
    }
    if (c->kind == V_METHOD && !strcmp(c->method.name, "functools.partial")) /* functools.partial(f, 16): its parts */
        return sema_module_constant(S, c->method.self);
    if (c->kind == V_TUPLE) { /* [T, T, T] shares T: a walk can take exponential time, so it is charged */
        if (!budget_charge(&S->budget, EB_STEPS, c->tuple.n, S->budget.at)) return false;
        for (int k = 0; k < c->tuple.n; k++)
            if (!sema_module_constant(S, &c->tuple.items[k])) return false;
        return true;
    }
    if (!val_is_host_scalar(*c)) return false;
    if (val_is_host_float(*c)) *c = val_host_cast(S, *c, QT_F32); /* a Python float literal */
    else if (val_is_host_int(*c) && qt_is_signed(val_host_type(*c)) && val_host_i64(*c) >= INT32_MIN && val_host_i64(*c) <= INT32_MAX)
        *c = val_host_cast(S, *c, QT_I32); /* a Python int stays one: p * p is exact (sema_expr.c, PyInt) */
    return true;
}

/* A compile-time string: a literal (an f-string of known fields), a name bound to one, a str
 * method called on one, or + of them (sema_pystr.c evaluates the methods). */
static bool str_expr(Sema *S, const Expr *e) {
    if (e->kind == E_STR) return !e->fstr || S->up->sema_fstring_known(S, e);
    if (e->kind == E_BINARY) return e->op == T_PLUS && str_expr(S, e->bin.a) && str_expr(S, e->bin.b);
    if (e->kind == E_CALL && e->call.fn->kind == E_ATTR) return S->up->sema_str_method(e->call.fn->attr.name) && str_expr(S, e->call.fn->attr.obj);
    Binding *b = e->kind == E_NAME ? host_find(S, e->name) : NULL;
    return b && b->v.kind == V_STR;
}

/* The iterable of a comprehension: range(), enumerate(), zip() and reversed() are Python's
 * (unless the script binds the name), so only their arguments decide. */
bool sema_iter_is_host(Sema *S, const Expr *it) {
    static const char *const py[] = {"range", "enumerate", "zip", "reversed"};
    if (it->kind == E_CALL && it->call.fn->kind == E_NAME && !host_find(S, it->call.fn->name) && !it->call.nkw)
        for (size_t k = 0; k < ARRAY_LEN(py); k++) {
            if (strcmp(py[k], it->call.fn->name)) continue;
            for (int a = 0; a < it->call.args.n; a++)
                if (sema_is_host_expr(S, it->call.args.items[a])) return true;
            return false;
        }
    return sema_is_host_expr(S, it);
}

/* d.items() / d.keys() / d.values() on a compile-time dict (a name bound to one, an enum's
 * __members__). */
static bool dict_view(Sema *S, const Expr *call) {
    const char *m = call->call.fn->attr.name;
    if (call->call.args.n || call->call.nkw || (strcmp(m, "items") && strcmp(m, "keys") && strcmp(m, "values")) ||
        sema_is_host_expr(S, call->call.fn->attr.obj))
        return false;
    int mark = diag_quiet_begin();
    Val d = sema_eval(S, call->call.fn->attr.obj);
    diag_quiet_end(mark);
    return d.kind == V_DICT;
}

/* True when a module-level expression can only be evaluated by running the script: it names
 * something host code binds or Python provides at run time (np.pi, len(x), a helper's
 * result), or allocates run-time data (qd.ndarray). Such values are bound as V_HOST. */
static const Expr *host_name_in(Sema *S, const Expr *e);

bool sema_is_host_expr(Sema *S, const Expr *e) {
    static const char *const builtins[] = {"int", "float", "bool", "min", "max", "abs", "pow", "getattr", "str", "tuple", "list", "chr", "ord", "len"};
    switch (e->kind) {
    case E_NAME: {
        Binding *b = host_find(S, e->name);
        if (b) return b->v.kind == V_HOST || (b->v.kind == V_HOSTARRAY && !S->up->sema_np_known(b->v));
        if (S->qd_alias && !strcmp(e->name, S->qd_alias)) return false;
        for (size_t k = 0; k < ARRAY_LEN(builtins); k++)
            if (!strcmp(builtins[k], e->name)) return false;
        return true;
    }
    case E_ATTR: {
        Val dt;
        if (S->up->sema_host_dtype(S, e, &dt)) return false; /* np.float32, torch.bool: a dtype qdc knows */
        if (S->up->sema_np_shape_value(S, e, &dt)) return false; /* a.size of an array whose shape qdc knows */
        if (e->attr.name[0] == '_' && e->attr.obj->kind != E_CALL && !sema_is_host_expr(S, e->attr.obj)) {
            int mark = diag_quiet_begin(); /* k._primal.launch_stats: Quadrants' kernel object, a run-time value */
            IrStmtVec *cur = S->cur;
            S->cur = NULL;
            Val o = sema_eval(S, e->attr.obj);
            S->cur = cur;
            diag_quiet_end(mark);
            if (o.kind == V_KERNEL) return true;
        }
        return sema_is_host_expr(S, e->attr.obj);
    }
    case E_CALL: {
        Val shp;
        if (S->up->sema_np_shape_value(S, e, &shp)) return false; /* len(a) of an array whose shape qdc knows */
        if (S->up->sema_np_static(S, e, NULL)) return false; /* np.prod(shape), a.astype(np.int32): numpy values qdc computes */
        if (sema_numpy_scalar(S, e) != QT_VOID) return sema_is_host_expr(S, e->call.args.items[0]); /* np.int64(0) */
        if (sema_numpy_math(S, e)) { /* np.cos(0): a number when its arguments are and math computes it (np.log(-1.0) is numpy's nan) */
            for (int k = 0; k < e->call.args.n; k++)
                if (sema_is_host_expr(S, e->call.args.items[k])) return true;
            int mark = diag_quiet_begin();
            IrStmtVec *cur = S->cur;
            S->cur = NULL;
            Val v = sema_eval(S, e);
            S->cur = cur;
            return diag_quiet_end(mark) || v.kind == V_ERR;
        }
        if (sema_pytest_param(S, e)) { /* pytest.param(v, ...): its values */
            for (int k = 0; k < e->call.args.n; k++)
                if (sema_is_host_expr(S, e->call.args.items[k])) return true;
            return false;
        }
        const char *p = sema_path(S, e->call.fn);
        if (subgroup_size_call(S, e)) return !S->subgroup_width; /* N = subgroup.group_size(): the compile's width */
        if (p && (strstr(p, "ndarray") || !strcmp(p, "qd.tensor") || strstr(p, ".tensor"))) return true;
        if (p && (!strcmp(p, "qd.create_stream") || !strcmp(p, "qd.create_event"))) return true; /* run-time handles */
        if (e->call.fn->kind == E_NAME && !strcmp(e->call.fn->name, "getattr") && (e->call.args.n != 2 || e->call.nkw))
            return true; /* getattr(obj, name, default): whether obj has it is a run-time question */
        if (e->call.fn->kind == E_NAME && !strcmp(e->call.fn->name, "getattr") && !sema_lookup(S, "getattr") && !S->k) {
            int mark = diag_quiet_begin(); /* getattr(qd, qd.cfg.arch.name): a name only the running script knows */
            IrStmtVec *cur = S->cur;
            S->cur = NULL;
            Val n = sema_eval(S, e->call.args.items[1]);
            S->cur = cur;
            diag_quiet_end(mark);
            if (n.kind == V_NS) return true; /* a Quadrants object's attribute qdc does not model; a number stays Python's TypeError */
        }
        if (e->call.fn->kind == E_ATTR && !p && str_expr(S, e->call.fn->attr.obj) && S->up->sema_str_method(e->call.fn->attr.name)) {
            /* "".join(...), "{}_{}".format(a, b): compile-time when the arguments are */
        } else if (e->call.fn->kind == E_ATTR && !p && dict_view(S, e)) {
            /* d.items(), E.__members__.keys() of a compile-time dict (sema_lang.c) */
        } else if (e->call.fn->kind == E_ATTR && !p) { /* x.to_numpy(), sim.run(): a method of a run-time object */
            const Expr *r = e->call.fn;
            while (r->kind == E_ATTR || r->kind == E_CALL) r = r->kind == E_ATTR ? r->attr.obj : r->call.fn;
            Binding *rb = r->kind == E_NAME ? host_find(S, r->name) : NULL;
            bool qd_root = (rb && rb->v.kind == V_NS && !strncmp(rb->v.path, "qd", 2)) ||
                           (!rb && r->kind == E_NAME && S->qd_alias && !strcmp(r->name, S->qd_alias));
            bool cfg = qd_root && !strcmp(e->call.fn->attr.name, "config") && e->call.fn->attr.obj->kind == E_ATTR &&
                       !strcmp(e->call.fn->attr.obj->attr.name, "prog"); /* qd.lang.impl.get_runtime().prog.config() */
            bool compile_time = cfg || (rb && (rb->v.kind == V_SNODE || rb->v.kind == V_ERR || rb->v.kind == V_VECTYPE ||
                                       rb->v.kind == V_STRUCTTYPE || /* ... or a type's: vec3.field(...) */
                                       (rb->v.kind == V_NS && !strcmp(rb->v.path, "math")) ||
                                       (rb->v.kind == V_NS && (!strcmp(rb->v.path, "types") || !strcmp(rb->v.path, "functools"))) ||
                                       (rb->v.kind == V_NS && !strcmp(rb->v.path, "qd.root")) || /* S0 = qd.root; S0.dense(...) */
                                       (rb->v.kind == V_NS && !strncmp(rb->v.path, "qd.", 3) && /* impl.get_runtime().default_fp */
                                        (!strcmp(e->call.fn->attr.name, "get_runtime") || !strcmp(e->call.fn->attr.name, "current_cfg"))) ||
                                       (rb->v.kind == V_VEC && !strcmp(e->call.fn->attr.name, "get_scalar_field"))));
            bool evaluated = rb && (rb->v.kind == V_OBJECT || rb->v.kind == V_PYDC || (rb->v.kind == V_CLASS && S->classes.items[rb->v.index].plain));
            if (!compile_time && evaluated && r == e->call.fn->attr.obj) { /* obj.method(...), self.f(n - 1), Cls.make(...) */
                int mark = diag_quiet_begin();
                Val m = sema_eval(S, e->call.fn);
                diag_quiet_end(mark);
                if (m.kind == V_PYFUNC) return S->up->sema_pyfunc_is_host(S, e, m.def); /* a method qdc evaluates */
                if (m.kind == V_METHOD && !strcmp(m.method.name, "functools.partial")) { /* ns.make(qd.f32): the partial's call */
                    for (int k = 0; k < e->call.args.n; k++)
                        if (sema_is_host_expr(S, e->call.args.items[k])) return true;
                    return false;
                }
            }
            if (!compile_time) return true;
        }
        Binding *fb = e->call.fn->kind == E_NAME ? host_find(S, e->call.fn->name) : NULL;
        if (!fb && e->call.fn->kind == E_NAME && (!strcmp(e->call.fn->name, "list") || !strcmp(e->call.fn->name, "tuple")) &&
            e->call.args.n == 1 && !e->call.nkw)
            return sema_iter_is_host(S, e->call.args.items[0]); /* list(reversed(coeffs)), tuple(range(n)) */
        if (fb && (fb->v.kind == V_KERNEL || (fb->v.kind == V_CLASS && !S->classes.items[fb->v.index].plain)))
            return true; /* a launch; a data-oriented instance not bound to a name (a plain class's is evaluated) */
        if (fb && fb->v.kind == V_PYFUNC) return S->up->sema_pyfunc_is_host(S, e, fb->v.def);
        bool dict = e->call.fn->kind == E_NAME && !strcmp(e->call.fn->name, "dict"); /* {"a": qd.f32} */
        if (dict && !e->call.args.n && !e->call.nkw) return true; /* {}: an empty dict the script fills */
        if (!dict && sema_is_host_expr(S, e->call.fn)) return true;
        for (int k = 0; k < e->call.args.n; k++)
            if (sema_is_host_expr(S, e->call.args.items[k])) return true;
        for (int k = 0; k < e->call.nkw; k++)
            if (sema_is_host_expr(S, e->call.kw[k].value)) return true;
        return false;
    }
    case E_SUBSCRIPT: return sema_is_host_expr(S, e->sub.obj) || sema_is_host_expr(S, e->sub.index);
    case E_TUPLE: case E_LIST: case E_BOOLOP:
        for (int k = 0; k < e->list.n; k++)
            if (sema_is_host_expr(S, e->list.items[k])) return true;
        return false;
    case E_UNARY: return sema_is_host_expr(S, e->un.a);
    case E_BINARY: case E_NAMED: return sema_is_host_expr(S, e->bin.a) || sema_is_host_expr(S, e->bin.b);
    case E_COMPARE:
        for (int k = 0; k < e->cmp.items.n; k++)
            if (sema_is_host_expr(S, e->cmp.items.items[k])) return true;
        return false;
    case E_IFEXP: return sema_is_host_expr(S, e->ifexp.cond) || sema_is_host_expr(S, e->ifexp.a) || sema_is_host_expr(S, e->ifexp.b);
    case E_STARRED: return sema_is_host_expr(S, e->un.a);
    case E_COMP:
        for (const Expr *c = e; c; c = c->comp.next)
            if (sema_iter_is_host(S, c->comp.iter)) return true;
        return host_name_in(S, e) != NULL; /* [i for i in range(n) if seen[i] == 0]: its element or a condition reads a run-time value */
    case E_STR: return e->fstr && !S->up->sema_fstring_known(S, e);
    default: return false;
    }
}

/* The first name in e bound to a run-time value, for the reason given with it; NULL if none. */
static const Expr *host_name_in(Sema *S, const Expr *e) {
    const Expr *r = NULL;
    switch (e->kind) {
    case E_NAME: {
        Binding *b = host_find(S, e->name);
        return b && b->v.kind == V_HOST ? e : NULL;
    }
    case E_ATTR: return host_name_in(S, e->attr.obj);
    case E_CALL:
        for (int k = 0; !r && k < e->call.args.n; k++) r = host_name_in(S, e->call.args.items[k]);
        for (int k = 0; !r && k < e->call.nkw; k++) r = host_name_in(S, e->call.kw[k].value);
        return r;
    case E_SUBSCRIPT: return (r = host_name_in(S, e->sub.obj)) ? r : host_name_in(S, e->sub.index);
    case E_TUPLE: case E_LIST: case E_BOOLOP:
        for (int k = 0; !r && k < e->list.n; k++) r = host_name_in(S, e->list.items[k]);
        return r;
    case E_UNARY: return host_name_in(S, e->un.a);
    case E_BINARY: case E_NAMED: return (r = host_name_in(S, e->bin.a)) ? r : host_name_in(S, e->bin.b);
    case E_COMPARE:
        for (int k = 0; !r && k < e->cmp.items.n; k++) r = host_name_in(S, e->cmp.items.items[k]);
        return r;
    case E_IFEXP: return (r = host_name_in(S, e->ifexp.cond)) ? r : (r = host_name_in(S, e->ifexp.a)) ? r : host_name_in(S, e->ifexp.b);
    case E_STARRED: return host_name_in(S, e->un.a);
    case E_COMP: /* its iterables, conditions and element (the loop's own names are not bound here) */
        for (const Expr *c = e; !r && c; c = c->comp.next) {
            r = host_name_in(S, c->comp.iter);
            for (int k = 0; !r && k < c->comp.conds.n; k++) r = host_name_in(S, c->comp.conds.items[k]);
        }
        return r ? r : host_name_in(S, e->comp.elt);
    default: return NULL;
    }
}

/* What a run-time value computed in a host function is, naming the run-time name it comes
 * from when there is one ("a field declared from 'dtype' (a parameter of ...)"). */
static const char *host_value_what(Sema *S, const Expr *v) {
    const char *p = v->kind == E_CALL ? sema_path(S, v->call.fn) : NULL;
    const Expr *n = host_name_in(S, v);
    if (v->kind == E_CALL && subgroup_size_call(S, v)) /* the host asks the device (Quadrants' group_size()) */
        return "the device's subgroup width, which this compile does not fix (the target's is the device's or the targets "
               "of this compile differ; Vulkan: assert it with --cap=+subgroup32)";
    if (S->hscope == &S->module && !n) return "a module-level value computed by the script";
    if (!n) return "a value computed by the host function";
    return arena_printf(S->arena, "%s from '%s' (%s)", p && !strcmp(p, "qd.field") ? "a field declared" : "a value computed", n->name,
                        host_find(S, n->name)->v.path);
}

/* The start of a chain of calls and attributes: blk in blk.dense(...).place(x), qd.root in
 * qd.root.dense(...). */
static const Expr *chain_root(Sema *S, const Expr *e) {
    while (e->kind == E_CALL || (e->kind == E_ATTR && !(e->attr.obj->kind == E_NAME && !strcmp(e->attr.name, "root")))) {
        if (e->kind == E_ATTR && e->attr.obj->kind == E_NAME) { /* self.block: an attribute of an instance */
            Binding *ob = host_find(S, e->attr.obj->name);
            if (ob && ob->v.kind == V_OBJECT) return e;
        }
        e = e->kind == E_CALL ? e->call.fn : e->attr.obj;
    }
    return e;
}

/* A name, or an instance's attribute (self.block, self.x), bound by host code; NULL if none. */
static Binding *host_binding(Sema *S, const Expr *e) {
    if (e->kind == E_NAME) return host_find(S, e->name);
    if (e->kind != E_ATTR || e->attr.obj->kind != E_NAME) return NULL;
    Binding *ob = host_find(S, e->attr.obj->name);
    return ob && ob->v.kind == V_OBJECT ? scope_find(&ob->v.obj->attrs, e->attr.name) : NULL;
}

/* qd.root.dense(...).place(x), blk.place(x) with blk an SNode, fb.dense(...) with fb a
 * qd.FieldsBuilder(), fb.finalize(): evaluated at module level and in host functions. */
static bool is_snode_chain(Sema *S, const Expr *e) {
    const Expr *r = chain_root(S, e);
    Binding *b = host_binding(S, r); /* S0 = qd.root */
    if (r->kind == E_ATTR && !b) return S->qd_alias && r->attr.obj->kind == E_NAME && !strcmp(r->attr.obj->name, S->qd_alias);
    if (b && b->v.kind == V_PYFUNC) /* make_block(8).place(x): a function returning qd.root.dense(...) */
        for (; e->kind == E_CALL || e->kind == E_ATTR; e = e->kind == E_CALL ? e->call.fn : e->attr.obj)
            if (e->kind == E_ATTR && e->attr.obj->kind == E_CALL && e->attr.obj->call.fn == r)
                return !strcmp(e->attr.name, "place") || !strcmp(e->attr.name, "dense");
    return b && (b->v.kind == V_SNODE || b->v.kind == V_ERR || (b->v.kind == V_NS && !strcmp(b->v.path, "qd.root")));
}

/* The fields that place(...) calls in e name: leaves of vector, matrix and struct fields too. */
static void placed_fields(Sema *S, const Expr *e, const char *why) {
    for (; e->kind == E_CALL || e->kind == E_ATTR; e = e->kind == E_CALL ? e->call.fn : e->attr.obj) {
        if (e->kind != E_CALL || e->call.fn->kind != E_ATTR || strcmp(e->call.fn->attr.name, "place")) continue;
        for (int k = 0; k < e->call.args.n; k++) {
            const Expr *a = e->call.args.items[k];
            Binding *b = host_binding(S, a);
            Val v = b ? b->v : val_err();
            if (a->kind == E_CALL && a->call.fn->kind == E_ATTR && !strcmp(a->call.fn->attr.name, "get_scalar_field") &&
                (b = host_binding(S, a->call.fn->attr.obj)) && b->v.kind == V_VEC) { /* v.get_scalar_field(0) */
                int mark = diag_quiet_begin();
                v = sema_eval(S, a);
                diag_quiet_end(mark);
            }
            int leaf[1024], n = 0;
            if (v.kind == V_FIELD) leaf[n++] = v.index;
            else if (v.kind == V_STRUCT && v.strct.st) n = S->up->sema_struct_leaf_fields(v, leaf, 1024);
            for (int c = 0; v.kind == V_VEC && c < vec_len(v) && n < 1024; c++)
                if (v.vec.c[c].kind == V_FIELD) leaf[n++] = v.vec.c[c].index;
            for (int j = 0; j < n; j++) {
                if (S->fields.items[leaf[j]].ndim >= 0) continue;
                while (S->unplaced_why.len <= leaf[j]) vec_push(&S->unplaced_why, NULL);
                if (!S->unplaced_why.items[leaf[j]]) S->unplaced_why.items[leaf[j]] = why;
            }
        }
    }
}

/* After a rejected placement statement the fields it places stay without a shape, quietly:
 * their uses in kernels are not reported again, nor are they reported as never placed. */
static void poison_placed(Sema *S, const Expr *e) { placed_fields(S, e, ""); }

/* blk.place(x) where blk, or a size in the chain, is a value only the running script knows:
 * the fields it places keep no shape, and sema_snode_finish says why. */
static void placed_by_host(Sema *S, const Expr *e, const char *why) { placed_fields(S, e, why); }

/* In a host function, the first argument of an SNode chain that only the running script
 * knows (qd.root.dense(qd.i, n) with n a parameter); NULL if none. */
static const Expr *snode_host_arg(Sema *S, const Expr *e) {
    for (const Expr *c = e; S->hscope != &S->module && (c->kind == E_CALL || c->kind == E_ATTR); c = c->kind == E_CALL ? c->call.fn : c->attr.obj) {
        for (int k = 0; c->kind == E_CALL && k < c->call.args.n; k++)
            if (sema_is_host_expr(S, c->call.args.items[k])) return c->call.args.items[k];
        for (int k = 0; c->kind == E_CALL && k < c->call.nkw; k++)
            if (sema_is_host_expr(S, c->call.kw[k].value)) return c->call.kw[k].value;
    }
    return NULL;
}

/* A statement that places fields: evaluated when qdc can; in a host function, one that
 * depends on run-time values records why its fields stay unplaced. */
static void snode_stmt(Sema *S, const Expr *e) {
    const Expr *r = chain_root(S, e);
    Binding *rb = host_binding(S, r);
    if (rb && rb->v.kind == V_HOST)
        return placed_by_host(S, e, arena_printf(S->arena, "'%s' is %s", rb->name, rb->v.path));
    if (rb && rb->v.kind == V_NS && !strncmp(rb->v.path, "qd.bitpacked.", 13)) return (void)sema_eval(S, e); /* bitpack.place(x, y) */
    if (!is_snode_chain(S, e)) return;
    const Expr *a = snode_host_arg(S, e);
    if (a) return placed_by_host(S, e, host_value_what(S, a));
    if (sema_eval(S, e).kind == V_ERR) poison_placed(S, e);
}

void sema_bind_host(Sema *S, const Expr *target, const char *what) {
    if (target->kind == E_NAME) scope_bind(S, BIND_SCOPE(S), target->name, (Val){.kind = V_HOST, .path = what}, target->span);
    if (target->kind == E_TUPLE || target->kind == E_LIST)
        for (int k = 0; k < target->list.n; k++) sema_bind_host(S, target->list.items[k], what);
}

/* NAME(args) where NAME is bound to a qd callable (tensor_type = qd.ndarray, parametrized):
 * the same call spelled with the path (qd.ndarray(args)), so that it declares or allocates as
 * written; NULL when v is not one. */
static const Expr *aliased_call(Sema *S, const Expr *v) {
    Binding *b = v->kind == E_CALL && v->call.fn->kind == E_NAME && S->qd_alias ? host_find(S, v->call.fn->name) : NULL;
    if (!b || b->v.kind != V_NS || strncmp(b->v.path, "qd.", 3)) return NULL;
    Expr *fn = ARENA_NEW(S->arena, Expr);
    *fn = (Expr){.kind = E_NAME, .span = v->call.fn->span, .name = S->qd_alias};
    for (const char *p = b->v.path + 3; *p;) {
        size_t n = strcspn(p, ".");
        Expr *a = ARENA_NEW(S->arena, Expr);
        *a = (Expr){.kind = E_ATTR, .span = v->call.fn->span};
        a->attr.obj = fn, a->attr.name = arena_strndup(S->arena, p, n), fn = a;
        p += n + (p[n] == '.');
    }
    Expr *call = ARENA_NEW(S->arena, Expr);
    *call = *v;
    call->call.fn = fn;
    return call;
}

void sema_module_value(Sema *S, const Expr *t, const Expr *v, Span sp) {
    if (t->kind == E_NAME && sema_defined(S, t->name)) return; /* -D NAME=EXPR wins (module.c) */
    const Expr *alias = aliased_call(S, v);
    if (alias) return sema_module_value(S, t, alias, sp);
    Val arr;
    int side = v->kind == E_IFEXP ? S->up->sema_host_cond(S, v->ifexp.cond) : -1;
    if (side >= 0) return sema_module_value(S, t, side ? v->ifexp.a : v->ifexp.b, sp); /* A = X if cond else Y: only the side Python evaluates */
    if (t->kind == E_NAME && S->up->sema_new_object(S, t, v, sp)) return;
    if (t->kind == E_NAME && S->up->sema_pydc_new(S, t, v, BIND_SCOPE(S), sp)) return;
    if (t->kind == E_NAME && S->up->sema_tensor_alias(S, v, &arr)) return (void)scope_bind(S, BIND_SCOPE(S), t->name, arr, sp); /* before qd.Tensor as an annotation */
    if (t->kind == E_NAME && S->up->sema_annotation_alias(S, v)) return (void)scope_bind(S, BIND_SCOPE(S), t->name, (Val){.kind = V_ANNOT, .ann = v}, sp);
    if (t->kind == E_NAME && S->up->sema_np_static(S, v, &arr) && (S->up->sema_np_known(arr) || sema_module_constant(S, &arr)))
        return (void)scope_bind(S, BIND_SCOPE(S), t->name, arr, sp); /* n = np.array([5] * 3): its elements (py/sema_npvalue.c) */
    if (t->kind == E_NAME && S->up->sema_host_array(S, v, &arr)) return (void)scope_bind(S, BIND_SCOPE(S), t->name, arr, sp);
    if (t->kind == E_NAME && v == S->helper_call &&
        (S->helper_ret.kind == V_HOSTARRAY || S->helper_ret.kind == V_FIELD || S->helper_ret.kind == V_KERNEL || S->helper_ret.kind == V_FUNC))
        return (void)scope_bind(S, BIND_SCOPE(S), t->name, S->helper_ret, sp); /* a = helper(...) returning an array, k = make_kernel(op) */
    if ((t->kind == E_TUPLE || t->kind == E_LIST) && v == S->helper_call && S->helper_ret.kind == V_TUPLE && S->helper_ret.tuple.n == t->list.n) {
        for (int k = 0; k < t->list.n; k++) { /* a, shape = helper(...) returning (array, ...) */
            const Expr *tk = t->list.items[k];
            Val ik = S->helper_ret.tuple.items[k];
            if (tk->kind == E_NAME && (ik.kind == V_HOSTARRAY || ik.kind == V_FIELD)) scope_bind(S, BIND_SCOPE(S), tk->name, ik, sp);
            else sema_bind_host(S, tk, "a value a host function returns");
        }
        return;
    }
    if (t->kind == E_NAME && S->up->sema_with_layout(S, v, &arr)) return (void)scope_bind(S, BIND_SCOPE(S), t->name, arr, sp);
    if (t->kind == E_NAME && S->up->sema_permutations(S, v, &arr)) return (void)scope_bind(S, BIND_SCOPE(S), t->name, arr, sp);
    QdType npt = t->kind == E_NAME && v->kind != E_NAME ? S->up->sema_numpy_dtype(S, v) : QT_VOID;
    if (npt != QT_VOID && v->kind != E_STR) /* np_dtype = np.float32 (if ... else ...): a type */
        return (void)scope_bind(S, BIND_SCOPE(S), t->name, (Val){.kind = V_TYPE, .type = npt}, sp);
    if (S->up->sema_tensor_new(S, t, v, BIND_SCOPE(S), sp)) return;
    bool calls = (v->kind == E_TUPLE || v->kind == E_LIST) && v->list.n;
    for (int k = 0; calls && k < v->list.n; k++) calls = v->list.items[k]->kind == E_CALL;
    if (calls && (t->kind == E_TUPLE || t->kind == E_LIST) && t->list.n == v->list.n) {
        for (int k = 0; k < t->list.n; k++) sema_module_value(S, t->list.items[k], v->list.items[k], sp); /* x, y = qd.field(...), ... */
        return;
    }
    Binding *hb = v->kind == E_NAME ? host_find(S, v->name) : NULL;
    if (S->up->sema_helper_alias(S, t, v, sp)) return; /* func = helper, f = F.apply: calls of func run helper */
    if (hb && hb->v.kind == V_HOST) return sema_bind_host(S, t, hb->v.path); /* y = x: the same run-time value */
    if (hb && (hb->v.kind == V_HOSTARRAY || hb->v.kind == V_PYDC) && t->kind == E_NAME) /* y = x: the same array, dataclass instance */
        return (void)scope_bind(S, BIND_SCOPE(S), t->name, hb->v, sp);
    const Expr *ha = is_snode_chain(S, v) ? snode_host_arg(S, v) : NULL; /* blk = qd.root.dense(...).dense(...): its arguments decide */
    if (ha) return sema_bind_host(S, t, host_value_what(S, ha));
    if (!is_snode_chain(S, v) && sema_is_host_expr(S, v)) {
        if (S->up->sema_unpack_row(S, t, v, sp)) return; /* a, b = list(CASES)[0]: item by item */
        return sema_bind_host(S, t, host_value_what(S, v));
    }
    if (v->kind == E_CALL) {
        const char *p = sema_path(S, v->call.fn);
        if (t->kind == E_NAME && S->up->sema_struct_field(S, t, sp, v, p)) return;
        QdType vdt;
        int vn = 0, vm = 0;
        if (t->kind == E_NAME && v->call.fn->kind == E_ATTR && !strcmp(v->call.fn->attr.name, "field") &&
            S->up->sema_vec_type_of(S, v->call.fn->attr.obj, &vdt, &vn, &vm) && vn && v->call.args.n <= 1) { /* vec3.field(shape=...) */
            Expr fcall = *v;
            Expr *args[2] = {v->call.fn->attr.obj, v->call.args.n ? v->call.args.items[0] : NULL};
            fcall.call.args.items = args, fcall.call.args.n = v->call.args.n + 1;
            return sema_declare_field(S, t, sp, &fcall, 0);
        }
        if (p && !strcmp(p, "qd.field") && t->kind == E_NAME) return sema_declare_field(S, t, sp, v, 0);
        if (p && (!strcmp(p, "qd.Vector.field") || !strcmp(p, "qd.Matrix.field")) && t->kind == E_NAME)
            return sema_declare_field(S, t, sp, v, p[3] == 'M' ? 2 : 1);
    }
    Val c;
    bool strings = v->kind == E_CALL && v->call.fn->kind == E_ATTR && S->up->sema_str_method(v->call.fn->attr.name); /* "{:>4}".format(n) */
    for (int k = 0; !strings && (v->kind == E_LIST || v->kind == E_TUPLE) && k < v->list.n; k++)
        strings = v->list.items[k]->kind == E_CALL && sema_pytest_param(S, v->list.items[k]); /* pytest.param rows: the test's values when qdc computes them */
    const char *hint = S->field_hint;
    if (t->kind == E_NAME) S->field_hint = t->name; /* pos = vec() with vec = lambda: qd.field(...): the field is 'pos' */
    if ((S->hscope != &S->module || strings) && !is_snode_chain(S, v)) { /* host function: what qdc cannot evaluate, Python computes when it runs */
        int mark = diag_quiet_begin();
        c = sema_eval(S, v);
        S->field_hint = hint;
        if (diag_quiet_end(mark))
            return sema_bind_host(S, t, arena_printf(S->arena, "a value qdc cannot compute (%s)", diag_quiet_first()));
    } else {
        c = sema_eval(S, v);
    }
    S->field_hint = hint;
    if (c.kind != V_ERR && !sema_module_constant(S, &c))
        return sema_bind_host(S, t, "a module-level value that is not a compile-time constant");
    if (t->kind == E_NAME) return (void)scope_bind(S, BIND_SCOPE(S), t->name, c, sp); /* V_ERR: later uses stay quiet */
    if (c.kind == V_TUPLE && c.tuple.n == t->list.n) { /* a, b = 1, 2 */
        for (int k = 0; k < t->list.n; k++)
            if (t->list.items[k]->kind == E_NAME) scope_bind(S, BIND_SCOPE(S), t->list.items[k]->name, c.tuple.items[k], sp);
        return;
    }
    sema_bind_host(S, t, "set by an unpacking qdc cannot evaluate");
}

/* globals()[KEY] = v at a module's top level (in its loops and ifs too) with KEY a compile-time
 * string: Python binds the global KEY (`for name, m in E.__members__.items(): globals()[name] = m`).
 * The name target it stands for; NULL for any other subscript. */
static const Expr *globals_target(Sema *S, const Expr *t) {
    const Expr *g = t->kind == E_SUBSCRIPT ? t->sub.obj : NULL;
    if (!g || g->kind != E_CALL || g->call.fn->kind != E_NAME || strcmp(g->call.fn->name, "globals") || g->call.args.n || g->call.nkw ||
        sema_lookup(S, "globals") || !sema_is_module_scope(S, BIND_SCOPE(S)))
        return NULL;
    int mark = diag_quiet_begin();
    Val key = sema_eval(S, t->sub.index);
    diag_quiet_end(mark);
    if (key.kind != V_STR) return NULL; /* a key only the script knows: a global qdc cannot name */
    Expr *n = ARENA_NEW(S->arena, Expr);
    *n = (Expr){.kind = E_NAME, .span = t->span, .name = key.path};
    return n;
}

static void module_assign(Sema *S, const Stmt *s) {
    for (int k = 0; k < s->assign.targets.n; k++) {
        const Expr *t = s->assign.targets.items[k], *g = globals_target(S, t);
        if (g) sema_module_value(S, g, s->assign.value, s->span);
        if (t->kind == E_NAME || t->kind == E_TUPLE || t->kind == E_LIST) sema_module_value(S, t, s->assign.value, s->span);
        if (t->kind == E_NAME && S->fixtures.len) S->up->sema_fixture_param(S, t->name); /* a test parameter a fixture asks for */
        else if (t->kind == E_ATTR) S->up->sema_host_setattr(S, t, s->assign.value, s->span); /* obj.attr = v of a plain instance */
        else if (t->kind == E_SUBSCRIPT) S->up->sema_np_store(S, t, s->assign.value); /* a[i] = v of a numpy array qdc computed */
        /* x[i] = v, another obj.attr = v: host code changing run-time data; kernels do not see it */
    }
}

/* import quadrants.lang.simt.subgroup as sg / from quadrants.lang.simt import subgroup: the
 * alias names the qd namespace path, without Python's "lang" package level (qd.simt.subgroup). */
static void import_submodule(Sema *S, const Stmt *s) {
    const char *rest = s->import.module + strlen("quadrants");
    if (!strncmp(rest, ".lang.", 6)) rest += 5;
    Val v = {.kind = V_NS, .path = arena_printf(S->arena, "qd%s", rest)};
    if (s->import.alias) scope_bind(S, S->hscope, s->import.alias, v, s->span);
}

static void module_import(Sema *S, const Stmt *s) {
    if (s->import.user) return sema_import(S, s); /* the program's modules (module.c) */
    if (!strncmp(s->import.module, "quadrants.", 10)) return import_submodule(S, s);
    if (!strcmp(s->import.module, "math")) { /* Python's math: constants and functions of compile-time numbers */
        const char *name = s->import.alias ? s->import.alias : "math";
        scope_bind(S, S->hscope, name, (Val){.kind = V_NS, .path = "math"}, s->span);
        return;
    }
    if (strcmp(s->import.module, "quadrants"))
        return (void)diag_error(s->span, QD2003, "only 'import quadrants as qd' is supported, not '%s'", s->import.module);
    S->qd_alias = s->import.alias ? s->import.alias : "quadrants";
}

/* `import quadrants as qd` in its place among the module's statements (the alias itself is
 * known before them): after `import foo as qd` the later import wins, as in Python. */
static void rebind_quadrants(Sema *S, const Stmt *s) {
    const char *name = s->import.alias ? s->import.alias : "quadrants";
    Binding *b = scope_find(S->hscope, name);
    if (b && S->qd_alias && !strcmp(name, S->qd_alias)) b->v = (Val){.kind = V_NS, .path = "qd"}, b->decl = s->span;
}

/* A keyword of @qd.kernel(...) that must be a compile-time bool: its value, or -1 after an error.
 * fastcache= and pure= only decide whether Quadrants caches the kernel and checks its captures,
 * never its code: one known only when the script runs (fastcache=gs.use_fastcache) compiles the
 * kernel without that check, with warning QD2107. */
static int kernel_flag(Sema *S, const Expr *d, const char *name) {
    const Expr *e;
    if (!keyword(d, name, &e)) return 0;
    if (!strcmp(name, "fastcache") || !strcmp(name, "pure")) {
        int mark = diag_quiet_begin();
        sema_eval(S, e);
        if (diag_quiet_end(mark) && diag_quiet_first_code() == QD2062) {
            diag_warning(e->span, QD2107, "@qd.kernel(%s=...) is known only when the script runs: qdc compiles the kernel as "
                         "written (%s decides how Quadrants caches a kernel, not its code) and skips the checks of "
                         "captured values that %s=True adds", name, name, name);
            return 0;
        }
    }
    Val v = sema_eval(S, e);
    if (v.kind == V_ERR) return -1;
    if (val_is_host_integral(v)) return val_host_u64(v) != 0;
    if (v.kind == V_NONE) return 0;
    diag_error(e->span, QD2020, "@qd.kernel(%s=...) needs a compile-time bool, got %s", name, val_describe(v));
    return -1;
}

/* @qd.kernel, @qd.kernel(), @qd.kernel(fastcache=B, pure=B, graph=B, checkpoints=B): 'K' (pure:
 * fastcache or pure is True), 0 after an error. */
static char kernel_decorator(Sema *S, const Expr *d, bool *pure) {
    if (d->kind != E_CALL) return 'K';
    if (d->call.args.n) {
        diag_error(d->call.args.items[0]->span, QD2020, "@qd.kernel(...) takes only keyword arguments (fastcache=, pure=, graph=, checkpoints=)");
        return 0;
    }
    /* gpu_graph= is graph='s name before Quadrants #446 (the spelling Genesis' pinned version takes) */
    static const char *const known[] = {"fastcache", "pure", "graph", "checkpoints", "gpu_graph"};
    for (int k = 0; k < d->call.nkw; k++) {
        size_t j = 0;
        while (j < ARRAY_LEN(known) && strcmp(known[j], d->call.kw[k].name)) j++;
        if (j == ARRAY_LEN(known)) {
            const char *near = closest_name(d->call.kw[k].name, known, (int)ARRAY_LEN(known));
            diag_error(d->call.kw[k].span, QD2020, "@qd.kernel has no argument '%s'%s%s%s (fastcache=, pure=, graph=, checkpoints=)",
                       d->call.kw[k].name, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            return 0;
        }
    }
    int fc = kernel_flag(S, d, "fastcache"), pu = kernel_flag(S, d, "pure"), graph = kernel_flag(S, d, "graph"),
        cp = kernel_flag(S, d, "checkpoints"), old = kernel_flag(S, d, "gpu_graph");
    if (fc < 0 || pu < 0 || graph < 0 || cp < 0 || old < 0) return 0;
    graph |= old;
    if (cp && !graph) { /* Quadrants rejects it at decoration time */
        diag_error(d->span, QD2020, "@qd.kernel(checkpoints=True) requires graph=True");
        return 0;
    }
    *pure = fc || pu;
    return 'K';
}

static void dotted(StrBuf *b, const Expr *e) {
    if (e->kind == E_NAME) sb_puts(b, e->name);
    else if (e->kind == E_ATTR) dotted(b, e->attr.obj), sb_printf(b, ".%s", e->attr.name);
    else sb_puts(b, "?");
}

/* The dispatcher whose .register decorates s (@op.register or @op.register(...)), or -1. */
static int dispatcher_of(Sema *S, const Expr *d) {
    const Expr *fn = d->kind == E_CALL ? d->call.fn : d;
    if (fn->kind != E_ATTR || strcmp(fn->attr.name, "register") || fn->attr.obj->kind != E_NAME) return -1;
    Binding *b = host_find(S, fn->attr.obj->name);
    return b && b->v.kind == V_DISPATCH ? b->v.index : -1;
}

/* The decorators of a kernel or qd.func: 'K' for @qd.kernel (*pure: @qd.kernel(fastcache=True),
 * pure=True, or @qd.pure above it), 'F' for @qd.func (and its aliases), 0 after an error.
 * Decorators from outside the qd namespace (@test_utils.test(...)) are host code: the definition
 * is compiled as declared, with a warning naming them. */
static char decorator_kind(Sema *S, const Stmt *s, bool *pure) {
    char kind = 0;
    bool pure_deco = false;
    const Expr *qd = NULL;
    *pure = false;
    for (int k = 0; k < s->def.decorators.n; k++) {
        const Expr *d = s->def.decorators.items[k];
        const Expr *fn = d->kind == E_CALL ? d->call.fn : d;
        const char *p = sema_path(S, fn);
        if (!p) continue; /* not from the qd namespace: warned below */
        if (!strcmp(p, "qd.pure") && d->kind != E_CALL) {
            pure_deco = true;
            continue;
        }
        if (!strcmp(p, "qd.ad.no_grad") && d->kind != E_CALL) continue; /* the kernel gets no <kernel>_grad (sema_ad_no_grad) */
        if (!strncmp(p, "qd.ad.", 6)) {
            diag_error(d->span, QD2044, "'@%s' on a kernel or qd.func is not supported: @qd.ad.grad_replaced and @qd.ad.grad_for decorate "
                                        "host functions, @qd.ad.no_grad a kernel", p);
            return 0;
        }
        char kk = !strcmp(p, "qd.kernel") ? 'K'
                  : !strcmp(p, "qd.func") || !strcmp(p, "qd.real_func") || !strcmp(p, "qd.pyfunc") || !strcmp(p, "qd.experimental.real_func")
                      ? 'F'
                      : 0;
        if (!kk) {
            diag_error(d->span, QD2020, "unsupported decorator '@%s'; expected @qd.kernel or @qd.func", p);
            return 0;
        }
        if (qd) {
            diag_error(d->span, QD2020, "'%s' needs exactly one decorator, @qd.kernel or @qd.func", s->def.name);
            return 0;
        }
        qd = d, kind = kk;
        if (kk == 'K' && !(kind = kernel_decorator(S, d, pure))) return 0;
        if (!strcmp(p, "qd.real_func") || !strcmp(p, "qd.experimental.real_func")) /* Quadrants' _func_base, at decoration */
            for (int j = 0; j < s->def.nparams; j++)
                if (!s->def.params[j].annotation && !(j == 0 && !strcmp(s->def.params[j].name, "self"))) {
                    diag_error(s->def.params[j].span, QD2005, "qd.real_func parameter '%s' needs a type annotation (Quadrants kernels "
                               "parameters must be type annotated)", s->def.params[j].name);
                    break; /* still defined: its calls are not reported again */
                }
    }
    if (!qd) {
        diag_error(s->def.name_span, QD2020, "'%s' needs a @qd.kernel or @qd.func decorator", s->def.name);
        return 0;
    }
    if (pure_deco && kind != 'K') {
        diag_error(s->def.name_span, QD2020, "@qd.pure marks a kernel: write it above @qd.kernel (or use @qd.kernel(fastcache=True))");
        return 0;
    }
    *pure |= pure_deco;
    for (int k = 0; k < s->def.decorators.n; k++) { /* decorators qdc does not know: host code */
        const Expr *d = s->def.decorators.items[k];
        const Expr *fn = d->kind == E_CALL ? d->call.fn : d;
        if (sema_path(S, fn)) continue;
        int disp = dispatcher_of(S, d);
        if (disp >= 0) { /* @op.register: one of op's implementations */
            vec_push(&S->dispatchers.items[disp].impls, s);
            continue;
        }
        StrBuf name;
        sb_init(&name);
        dotted(&name, fn);
        diag_warning(d->span, QD2105, "'%s' is a Python decorator qdc does not run (host code); '%s' is compiled as declared",
                     name.data ? name.data : "?", s->def.name);
        sb_free(&name);
    }
    return kind;
}

/* @qd.perf_dispatch(...) def op(...): ...  — a prototype: the host times the implementations
 * registered with @op.register and calls the fastest; qdc compiles each as its own entry, and a
 * host call op(args) is a call site of every one of them. True when s is one. */
static bool perf_dispatch_def(Sema *S, const Stmt *s) {
    for (int k = 0; k < s->def.decorators.n; k++) {
        const Expr *d = s->def.decorators.items[k];
        const char *p = sema_path(S, d->kind == E_CALL ? d->call.fn : d);
        if (!p || strcmp(p, "qd.perf_dispatch")) continue;
        struct SemaDispatch sd = {s, {0}};
        vec_push(&S->dispatchers, sd);
        scope_bind(S, S->hscope, s->def.name, (Val){.kind = V_DISPATCH, .index = S->dispatchers.len - 1}, s->def.name_span);
        return true;
    }
    return false;
}

/* Quadrants' checks when @op.register decorates s (_perf_dispatch.py, register; _func_base.py,
 * check_parameter_annotations): every parameter of the implementation is one of the prototype's
 * and there are as many; @qd.kernel goes below @op.register (a kernel made of what register
 * returned is "in front of other annotations"). False after the error. */
static bool perf_dispatch_register_ok(Sema *S, const Stmt *s) {
    int reg = -1, kernel_at = -1, disp = -1;
    for (int k = 0; k < s->def.decorators.n; k++) {
        const Expr *d = s->def.decorators.items[k];
        const char *p = sema_path(S, d->kind == E_CALL ? d->call.fn : d);
        if (p && !strcmp(p, "qd.kernel")) kernel_at = k;
        int dd = dispatcher_of(S, d);
        if (dd >= 0) reg = k, disp = dd;
    }
    if (disp < 0) return true;
    const Stmt *proto = S->dispatchers.items[disp].proto;
    const Expr *rd = s->def.decorators.items[reg];
    for (int k = 0; k < s->def.nparams; k++) {
        bool found = false;
        for (int j = 0; j < proto->def.nparams && !found; j++) found = !strcmp(proto->def.params[j].name, s->def.params[k].name);
        if (!found) {
            diag_error(s->def.params[k].span, QD2020,
                       "Signature parameter %s of function not in perf_dispatch function prototype "
                       "(PERFDISPATCH_ANNOTATION_SEQUENCE_MISMATCH)",
                       s->def.params[k].name);
            diag_note(proto->def.name_span, "the prototype '%s' is defined here", proto->def.name);
            return false;
        }
    }
    if (s->def.nparams != proto->def.nparams) {
        diag_error(s->def.name_span, QD2020,
                   "Number of function parameters %d doesn't match number of parameters in perf_dispatch function "
                   "prototype %d (PERFDISPATCH_ANNOTATION_SEQUENCE_MISMATCH)",
                   s->def.nparams, proto->def.nparams);
        diag_note(proto->def.name_span, "the prototype '%s' is defined here", proto->def.name);
        return false;
    }
    if (kernel_at >= 0 && kernel_at < reg) {
        diag_error(s->def.decorators.items[kernel_at]->span, QD2020,
                   "Cant put kernel in front of other annotations (KERNEL_ANNOTATION_ORDER): write @%s.register above @qd.kernel",
                   (rd->kind == E_CALL ? rd->call.fn : rd)->attr.obj->name);
        return false;
    }
    return true;
}

static void module_def(Sema *S, const Stmt *s) {
    if (perf_dispatch_def(S, s)) return;
    if (!budget_charge(&S->budget, EB_KERNELS, 1, s->def.name_span)) return; /* QD2024 */
    S->ndefs++;
    bool pure;
    char kind = decorator_kind(S, s, &pure);
    if (!kind || !s->def.name) return;
    Binding *prev = scope_find(S->hscope, s->def.name);
    /* As in Python, a def binds its name again (the later one wins from then on, at module level
     * as in a host function); each kernel keeps its own entry: the later ones get __defN. */
    bool redefined = prev && S->hscope == &S->module && (prev->v.kind == V_KERNEL || prev->v.kind == V_FUNC);
    bool registered = false;
    for (int k = 0; k < s->def.decorators.n; k++) registered |= dispatcher_of(S, s->def.decorators.items[k]) >= 0;
    if (registered && !perf_dispatch_register_ok(S, s)) return;
    if (((kind == 'K' && S->helper_depth > 0) || redefined) && !registered) { /* each evaluation of a helper defines its own kernel: */
        Stmt *own = ARENA_NEW(S->arena, Stmt);            /* `f = make(3)`, `g = make(4)`: f(x) is make(3)'s */
        *own = *s;
        s = own;
    }
    SemaDef d = {.def = s, .scope = S->hscope, .kernel = kind == 'K', .pure = pure, .imported = S->cur_mod != NULL};
    if (d.kernel && redefined && !*S->prefix) {
        bool seen = false; /* the first `name` was not recorded: record it so that this one gets __def2 */
        for (int k = 0; k < S->used_names.len && !seen; k++) seen = !strcmp(S->used_names.items[k], s->def.name);
        if (!seen) vec_push(&S->used_names, s->def.name);
        d.entry = sema_unique_name(S, s->def.name);
    } else if (d.kernel)
        d.entry = *S->prefix ? sema_unique_name(S, arena_printf(S->arena, "%s%s", S->prefix, s->def.name)) : s->def.name;
    sema_def_push(S, d);
    scope_bind(S, S->hscope, s->def.name, (Val){.kind = kind == 'K' ? V_KERNEL : V_FUNC, .def = s}, s->def.name_span);
}

/* The kernel calls in a host statement's expressions, in evaluation order: the first call of a
 * kernel defined in this host function freezes the scope it sees (Quadrants compiles a kernel at
 * its first call, reading the enclosing function's variables then); a call of a generic kernel
 * adds an instantiation (sema_generic.c). */
/* A module-level kernel's first call: Quadrants compiles it then, reading the module's globals as
 * they are at that moment; a name the script binds again afterwards (`x = x.to_numpy()` after
 * the call) does not change the kernel. The bindings of that moment, over the module itself (a
 * name bound only later is read there, as before). */
static Scope *module_snapshot(Sema *S) {
    Scope *snap = xcalloc(1, sizeof *snap);
    snap->parent = &S->module;
    for (int k = 0; k < S->module.b.len; k++) {
        const Binding *b = &S->module.b.items[k];
        Binding *c = scope_bind(S, snap, b->name, b->v, b->decl);
        c->is_param = b->is_param;
        S->up->sema_np_snapshot(S, &c->v); /* a numpy array's elements as they are now */
    }
    vec_push(&S->host_scopes, snap);
    return snap;
}

/* A copy of a host function's scope (or of the module's, in a host loop) as it is now. */
static Scope *scope_snapshot(Sema *S, const Scope *live) {
    Scope *snap = xcalloc(1, sizeof *snap);
    snap->parent = live->parent;
    for (int k = 0; k < live->b.len; k++) {
        vec_push(&snap->b, live->b.items[k]);
        S->up->sema_np_snapshot(S, &snap->b.items[k].v); /* a numpy array's elements as they are now */
    }
    vec_push(&S->host_scopes, snap);
    return snap;
}

/* A host call of kernel def: the first call of a kernel defined in a host function freezes the
 * scope it sees; a generic kernel gets the call's instantiation. */
static void kernel_call_site(Sema *S, const Expr *e, const Stmt *def) {
    /* an imported module's host functions run only when the program calls them: the calls in
     * their bodies, read where they are defined, instantiate nothing (the input's calls do) */
    if (S->cur_mod) return;
    int d = sema_def_at(S, def);
    if (d < 0) return;
    SemaDef *sd = &S->defs.items[d];
    if (!sd->called) sd->call_at = e->span;
    sd->called = true;
    sd->plain_call |= !S->raises;
    /* a kernel defined at module level in a loop is compiled, as in Python, with the names of the
     * iteration that first calls it (a later iteration may bind them, and the kernel's name, again) */
    bool loop = S->host_loops > 0 && sd->scope == &S->module;
    if (!sd->frozen && sd->scope == S->hscope && (loop || !sema_is_module_scope(S, sd->scope)))
        sd->live = sd->scope, sd->scope = scope_snapshot(S, sd->scope);
    else if (!sd->frozen && sd->scope == S->hscope && sd->scope == &S->module)
        sd->live = sd->scope, sd->scope = module_snapshot(S);
    bool first = !sd->frozen;
    sd->frozen = true;
    int ninst = S->callinsts.len;
    int errors = diag_error_count();
    for (int k = 0; k < e->call.args.n + e->call.nkw; k++) { /* the kernel may write an array it is given */
        const Expr *a = k < e->call.args.n ? e->call.args.items[k] : e->call.kw[k - e->call.args.n].value;
        Binding *ab = a->kind == E_NAME ? sema_lookup(S, a->name) : NULL;
        if (ab) S->up->sema_np_forget(ab->v);
    }
    sema_check_call(S, e, d); /* Quadrants' checks of the arguments (callcheck.c) */
    if (diag_error_count() == errors) S->defs.items[d].call_ok = true, S->up->sema_call_site(S, e, d); /* a call Quadrants rejects instantiates nothing */
    /* a generic kernel's later instantiation is compiled at its own first call, reading the
     * names as they are then (the first one reads the kernel's snapshot) */
    sd = &S->defs.items[d];
    if (S->callinsts.len > ninst && !first && sd->live && sd->live == S->hscope)
        S->callinsts.items[S->callinsts.len - 1].scope = sd->live == &S->module && !S->host_loops ? module_snapshot(S) : scope_snapshot(S, sd->live);
}

static void host_calls(Sema *S, const Expr *e) {
    if (!e) return;
    switch (e->kind) {
    case E_ATTR: return host_calls(S, e->attr.obj);
    case E_CALL: {
        host_calls(S, e->call.fn);
        for (int k = 0; k < e->call.args.n; k++) host_calls(S, e->call.args.items[k]);
        for (int k = 0; k < e->call.nkw; k++) host_calls(S, e->call.kw[k].value);
        sema_check_zero_copy(S, e); /* x.to_torch(copy=False) (callcheck.c) */
        Binding *b = e->call.fn->kind == E_NAME ? host_find(S, e->call.fn->name) : NULL;
        const Expr *fn = e->call.fn;
        if (fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME) { /* instance.kernel(...) */
            Binding *ob = host_find(S, fn->attr.obj->name);
            b = ob && ob->v.kind == V_OBJECT ? scope_find(&ob->v.obj->attrs, fn->attr.name) : NULL;
        }
        if (!b && fn->kind == E_ATTR) b = sema_module_member(S, fn); /* mod.kernel(...) */
        if (!b && fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME) { /* obj.step(...): a method that launches kernels */
            Binding *ob = host_find(S, fn->attr.obj->name);
            if (ob && ob->v.kind == V_OBJECT) S->up->sema_helper_call(S, e, NULL);
        }
        if (b && b->v.kind == V_HOST && e->call.fn->kind == E_NAME) S->up->sema_helper_call(S, e, b);
        if (!b && fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME && !strcmp(fn->attr.name, "apply")) { /* F.apply(x): F.forward(ctx, x) */
            Binding *cb = host_find(S, fn->attr.obj->name);
            if (cb && cb->v.kind == V_HOST) S->up->sema_helper_call(S, e, cb);
        }
        bool unparsed = false; /* an argument outside the grammar (host_call_stmt): not a kernel call site */
        for (int k = 0; k < e->call.args.n; k++) unparsed |= e->call.args.items[k]->kind == E_ERROR;
        for (int k = 0; k < e->call.nkw; k++) unparsed |= e->call.kw[k].value->kind == E_ERROR || !e->call.kw[k].name; /* **d */
        if (b && b->v.kind == V_DISPATCH && !unparsed) { /* op(args): a call of whichever implementation wins */
            struct SemaDispatch *sd = &S->dispatchers.items[b->v.index];
            for (int k = 0; k < sd->impls.len; k++) kernel_call_site(S, e, sd->impls.items[k]);
            return;
        }
        if (fn == S->helper_call && S->helper_ret.kind == V_KERNEL && !unparsed) { /* make_kernel(op)(arr) */
            kernel_call_site(S, e, S->helper_ret.def);
            return;
        }
        if (!b && fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME && !strcmp(fn->attr.name, "resume")) { /* K.resume(..., from_checkpoint=L) */
            Binding *kb = host_find(S, fn->attr.obj->name);
            if (kb && kb->v.kind == V_KERNEL && !unparsed) S->up->sema_checkpoint_resume(S, e, kb->v.def);
            return;
        }
        if (!b && fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME && !strcmp(fn->attr.name, "grad")) { /* K.grad(args): K's arguments */
            b = host_find(S, fn->attr.obj->name);
            if (b && b->v.kind != V_KERNEL) b = NULL;
        }
        if (!b || b->v.kind != V_KERNEL || unparsed) return;
        kernel_call_site(S, e, b->v.def);
        return;
    }
    case E_SUBSCRIPT: return host_calls(S, e->sub.obj), host_calls(S, e->sub.index);
    case E_TUPLE: case E_LIST: case E_BOOLOP:
        for (int k = 0; k < e->list.n; k++) host_calls(S, e->list.items[k]);
        return;
    case E_UNARY: return host_calls(S, e->un.a);
    case E_BINARY: case E_NAMED: return host_calls(S, e->bin.a), host_calls(S, e->bin.b);
    case E_COMPARE:
        for (int k = 0; k < e->cmp.items.n; k++) host_calls(S, e->cmp.items.items[k]);
        return;
    case E_IFEXP: return host_calls(S, e->ifexp.cond), host_calls(S, e->ifexp.a), host_calls(S, e->ifexp.b);
    case E_STARRED: return host_calls(S, e->un.a);
    default: return;
    }
}


/* An undecorated function (or one whose decorators are not from the qd namespace, such as
 * @pytest.mark...): its body is evaluated like module level in a nested scope that sees the
 * enclosing ones, once per combination of its @pytest.mark.parametrize values (sema_param.c):
 * params[k] is what parameter k is bound to (a run-time value unless parametrized), combo the
 * combination's spelling in entry names (NULL: not parametrized). Its name is host code for
 * kernels. */
void sema_host_function_once(Sema *S, const Stmt *s, const Val *params, const Span *decls, const char *combo, bool first) {
    if (first) scope_bind(S, S->hscope, s->def.name, (Val){.kind = V_HOST, .path = "a Python function (not a qd.func)"}, s->def.name_span);
    Scope *sc = xcalloc(1, sizeof *sc);
    sc->parent = S->hscope;
    vec_push(&S->host_scopes, sc);
    for (int k = 0; k < s->def.nparams; k++) scope_bind(S, sc, s->def.params[k].name, params[k], decls[k]);
    Scope *saved = S->hscope;
    const char *prefix = S->prefix;
    S->hscope = sc;
    bool returned = S->host_returned;
    int loops = S->host_loops; /* a function's body is outside the caller's loops */
    S->host_returned = false, S->host_ret = val_err(), S->host_loops = 0;
    const char *name = combo ? arena_printf(S->arena, "%s%s__%s", prefix, s->def.name, combo) : arena_printf(S->arena, "%s%s", prefix, s->def.name);
    S->prefix = arena_printf(S->arena, "%s__", sema_unique_name(S, name));
    sema_module_body(S, &s->def.body);
    Val ret = S->host_returned ? S->host_ret : val_err();
    S->host_returned = false;
    S->hscope = saved, S->prefix = prefix, S->host_returned = returned, S->host_ret = ret, S->host_loops = loops, S->host_jump = HJ_NONE;
}

/* Runs a library written in qdc's own Python source (qd.simt's tiles, qd.algorithms) as a module
 * of its own: src is recorded for diagnostics, parsed and evaluated in a new library scope with
 * `qd` and the n (names[k], vals[k]) bound, the checker's state saved around it. NULL when it
 * does not parse. */
Scope *sema_library_module(Sema *S, Source *src, int n, const char *const names[], const Val vals[], Span at) {
    src->library = true;
    if (S->files) vec_push(S->files, src);
    else vec_push(&S->spec_sources, src);
    AstModule *ast = frontend_parse(src, S->arena);
    if (!ast) return NULL;
    Scope *sc = xcalloc(1, sizeof *sc);
    sc->library = true;
    vec_push(&S->host_scopes, sc);
    scope_bind(S, sc, "qd", (Val){.kind = V_NS, .path = "qd"}, at);
    for (int k = 0; k < n; k++) scope_bind(S, sc, names[k], vals[k], at);
    Scope *hscope = S->hscope, *bind_to = S->bind_to, *scope = S->scope;
    IrStmtVec *cur = S->cur;
    const char *prefix = S->prefix;
    bool returned = S->host_returned;
    int loops = S->host_loops;
    S->hscope = sc, S->bind_to = NULL, S->scope = NULL, S->cur = NULL, S->prefix = "", S->host_returned = false, S->host_loops = 0;
    sema_module_body(S, &ast->body);
    S->hscope = hscope, S->bind_to = bind_to, S->scope = scope, S->cur = cur, S->prefix = prefix;
    S->host_returned = returned, S->host_loops = loops, S->host_jump = HJ_NONE;
    return sc;
}

void sema_module_body(Sema *S, const StmtList *l) {
    bool host = S->hscope != &S->module;
    for (int k = 0; k < l->n && !S->host_returned && !S->host_jump; k++) {
        const Stmt *s = l->stmts[k];
        if (!budget_charge(&S->budget, EB_STEPS, 1, s->span)) return;
        S->budget.at = s->span;
        switch (S->pyfunc_body ? S_PASS : s->kind) { /* a value helper's body: computes only, no call sites */
        case S_EXPR: host_calls(S, s->expr); break;
        case S_ASSIGN: host_calls(S, s->assign.value); break;
        case S_ANNASSIGN: host_calls(S, s->ann.value); break;
        case S_AUGASSIGN: host_calls(S, s->aug.value); break;
        case S_ASSERT: host_calls(S, s->assert_.cond), host_calls(S, s->assert_.msg); break;
        case S_RETURN: if (host) host_calls(S, s->expr); break;
        default: break;
        }
        switch (s->kind) {
        case S_IMPORT: strcmp(s->import.module, "quadrants") ? module_import(S, s) : rebind_quadrants(S, s); break;
        case S_ASSIGN: module_assign(S, s); break;
        case S_ANNASSIGN:
            if (s->ann.value && s->ann.target->kind == E_NAME) sema_module_value(S, s->ann.target, s->ann.value, s->span);
            break;
        case S_AUGASSIGN: S->up->sema_host_augassign(S, s); break;
        case S_DEF:
            if (s->def.host) S->up->sema_ad_grad_for(S, s);
            if (s->def.host && S->hscope == &S->module && !strncmp(s->def.name, "test", 4) && !S->up->sema_script_calls(S, s)) { /* run after the module body */
                scope_bind(S, S->hscope, s->def.name, (Val){.kind = V_HOST, .path = "a Python function (not a qd.func)"}, s->def.name_span);
                vec_push(&S->tests, s);
            } else {
                s->def.host ? S->up->sema_param_host_function(S, s) : module_def(S, s);
            }
            break;
        case S_CLASS:
            if (s->class_.deco) S->up->sema_alias_class(S, s);
            else if (s->class_.int_enum) S->up->sema_int_enum(S, s);
            else if (s->class_.py_dataclass) S->up->sema_pydc_class(S, s);
            else s->class_.dataclass ? S->up->sema_struct_dataclass(S, s) : S->up->sema_class(S, s);
            break;
        case S_IF: S->up->sema_host_if(S, s); break;
        case S_FOR: S->up->sema_host_for(S, s); break;
        case S_WHILE: S->up->sema_host_while(S, s); break;
        case S_BREAK: case S_CONTINUE:
            if (S->host_loops) S->up->sema_host_jump(S, s);
            else diag_error(s->span, QD2002, "'%s' outside a loop", s->kind == S_BREAK ? "break" : "continue");
            break;
        case S_HOST:
            for (int j = 0; j < s->host.names.n; j++) sema_bind_host(S, s->host.names.items[j], s->host.what);
            break;
        case S_EXPR: /* SNode placement; else qd.init(...), main() ... */
            if (S->up->sema_host_list_method(S, s->expr)) break;
            S->up->sema_init_call(S, s->expr);
            S->up->sema_with_layout(S, s->expr, NULL);
            snode_stmt(S, s->expr);
            break;
        case S_PASS: break;
        case S_ASSERT: S->up->sema_host_assert(S, s); break; /* false or raised at compile time: an error, as Python raises */
        case S_RETURN: /* a host function's: what follows is not evaluated (Python returns) */
            if (host && S->pyfunc_body) S->host_ret = S->up->sema_pyfunc_result(S, s->expr), S->host_returned = true;
            else if (host) S->host_ret = s->expr ? S->up->sema_host_return(S, s->expr) : val_err(), S->host_returned = true;
            if (host) break;
            /* fall through */
        default: diag_error(s->span, QD2002, "'return' outside a function"); break;
        }
    }
}

/* ---- loop spaces ---- */

/* ndrange: the dimension is an argument of qd.ndrange (Quadrants' words in the messages) */
static bool range_args_of(Sema *S, const Expr *call, LoopSpace *ls, int d, bool ndrange) {
    int n = call->call.args.n;
    if (call->call.nkw) return diag_error(call->span, QD2012, "range takes no keyword arguments"), false;
    if (n < 1 || n > (ls->is_static ? 3 : 2)) /* Quadrants' build_range_for: no step (qd.static(range(a, b, step)) is Python's) */
        return diag_error(call->span, QD2012, ls->is_static ? "range takes 1 to 3 positional arguments, got %d"
                                                            : "Range should have 1 or 2 arguments, found %d", n), false;
    IrExpr *a[3];
    for (int k = 0; k < n; k++) {
        a[k] = sema_expr(S, call->call.args.items[k]);
        if (!a[k]) return false;
        if (!qt_is_integral(a[k]->type))
            return diag_error(call->call.args.items[k]->span, QD2012, "range bounds must be integers, got %s%s", qt_name(a[k]->type),
                              ndrange ? " (Every argument of ndrange should be an integer scalar or a tuple/list of (int, int))" : ""),
                   false;
        const IrExpr *c = a[k];
        bool big = c->kind == IR_CONST && (c->type == QT_U64 ? c->c.u > INT32_MAX
                                           : qt_is_signed(c->type) && (c->c.i < INT32_MIN || c->c.i > INT32_MAX));
        if (big || (c->kind == IR_CONST && c->type == QT_U32 && c->c.u > INT32_MAX))
            return diag_error(call->call.args.items[k]->span, QD2012, "range bound %s%llu does not fit i32 (loop indices are i32)",
                              qt_is_signed(c->type) && c->c.i < 0 ? "-" : "",
                              qt_is_signed(c->type) && c->c.i < 0 ? 0ull - (unsigned long long)c->c.u : (unsigned long long)c->c.u), false;
        a[k] = irb_cast(S->arena, a[k], QT_I32);
    }
    ls->begin[d] = n == 1 ? irb_int(S->arena, QT_I32, 0, call->span) : a[0];
    ls->end[d] = n == 1 ? a[0] : a[1];
    ls->step[d] = 1;
    if (n == 3) { /* qd.static(range(a, b, step)) */
        if (!ir_is_const(a[2])) return diag_error(call->call.args.items[2]->span, QD2012, "the step of a range must be a compile-time constant"), false;
        if (a[2]->c.i == 0) return diag_error(call->call.args.items[2]->span, QD2012, "the step of a range must not be zero"), false;
        ls->step[d] = a[2]->c.i;
    }
    return true;
}

static bool range_args(Sema *S, const Expr *call, LoopSpace *ls, int d) { return range_args_of(S, call, ls, d, false); }

/* qd.ndrange(..., axes=(a0, a1, ...)): the dimension at each nesting level of the iteration,
 * outermost first, a permutation of the dimensions (Quadrants' rule); the loop variables stay
 * bound to their dimensions. None and the identity are the default order (the last innermost). */
static bool ndrange_axes(Sema *S, const Keyword *kw, int n, LoopSpace *ls) {
    if (strcmp(kw->name, "axes"))
        return diag_error(kw->span, QD2012, "qd.ndrange has no keyword argument '%s' (it takes axes=)", kw->name), false;
    if (kw->value->kind == E_NONE) return true;
    Val v = sema_eval(S, kw->value);
    if (v.kind == V_ERR) return false;
    if (v.kind == V_NONE) return true;
    int64_t ax[IR_MAX_DIMS + 1];
    int m = sema_const_shape(S, kw->value, ax, IR_MAX_DIMS + 1, "axes=");
    if (m < 0) return false;
    if (m != n) return diag_error(kw->value->span, QD2012, "axes= has %d entr%s but qd.ndrange has %d dimension%s", m, m == 1 ? "y" : "ies", n,
                                  n == 1 ? "" : "s"), false;
    bool seen[IR_MAX_DIMS] = {0};
    for (int k = 0; k < m; k++) {
        if (ax[k] < 0 || ax[k] >= n || seen[ax[k]])
            return diag_error(kw->value->span, QD2012, "axes= must be a permutation of range(%d)", n), false;
        seen[ax[k]] = true, ls->order[k] = (unsigned char)ax[k], ls->ordered |= ax[k] != k;
    }
    return true;
}

static bool ndrange_args(Sema *S, const Expr *call, LoopSpace *ls) {
    int n = call->call.args.n;
    if (n > IR_MAX_DIMS) return diag_error(call->span, QD2012, "qd.ndrange takes at most %d dimensions", IR_MAX_DIMS), false;
    for (int k = 0; k < call->call.nkw; k++)
        if (!ndrange_axes(S, &call->call.kw[k], n, ls)) return false;
    ls->ndims = n;
    for (int d = 0; d < n; d++) {
        const Expr *a = call->call.args.items[d];
        Expr fake = {.kind = E_CALL, .span = a->span};
        Val v = a->kind == E_TUPLE || a->kind == E_LIST ? val_err() : sema_eval(S, a);
        if (v.kind == V_TUPLE) { /* a compile-time (begin, end): qd.ndrange(*dims) */
            if (v.tuple.n != 2) return diag_error(a->span, QD2012, "an ndrange dimension is N or (begin, end) (Every argument of ndrange should be a scalar or a tuple/list like (begin, end))"), false;
            Expr **items = ARENA_ARRAY(S->arena, Expr *, 2);
            for (int k = 0; k < 2; k++) items[k] = S->up->sema_value_expr(S, v.tuple.items[k], a->span);
            fake.call.args.items = items, fake.call.args.n = 2;
        } else if (a->kind != E_TUPLE && a->kind != E_LIST) {
            if (v.kind == V_ERR) return false;
            Expr **items = ARENA_ARRAY(S->arena, Expr *, 1);
            items[0] = S->up->sema_value_expr(S, v, a->span);
            fake.call.args.items = items, fake.call.args.n = 1;
        } else if (a->kind == E_TUPLE || a->kind == E_LIST) {
            if (a->list.n != 2) return diag_error(a->span, QD2012, "an ndrange dimension is N or (begin, end) (Every argument of ndrange should be a scalar or a tuple/list like (begin, end))"), false;
            fake.call.args = a->list;
        } else {
            fake.call.args.items = (Expr **)&call->call.args.items[d], fake.call.args.n = 1;
        }
        if (!range_args_of(S, &fake, ls, d, true)) return false;
    }
    return true;
}

/* Struct-for (`for i, j in x:`): the index space of a field or an ndarray, 0 .. shape[d]. */
static bool struct_for_space(Sema *S, const Expr *iter, LoopSpace *ls) {
    Val v = sema_eval(S, iter);
    if (v.kind == V_ERR) return false;
    if (v.kind == V_STRUCT && v.strct.st && v.strct.m[0].kind != V_LOCAL) v = (Val){.kind = V_FIELD, .index = S->up->sema_struct_first_field(v)};
    if (v.kind == V_VEC && v.vec.c[0].kind == V_FIELD) v = v.vec.c[0]; /* a vector field placed under an SNode */
    if (v.kind == V_SNODE) return S->up->sema_sparse_loop_space(S, v, ls, iter->span);
    if (v.kind != V_FIELD && v.kind != V_NDARRAY) {
        diag_error(iter->span, QD2012, "unsupported loop: a struct-for iterates over a field or an ndarray, not %s",
                   v.kind == V_EXPR || v.kind == V_LOCAL ? "a scalar" : val_describe(v));
        return false;
    }
    if (v.kind == V_FIELD && S->fields.items[v.index].ndim < 0) return false; /* never placed: reported at its declaration */
    ls->ndims = v.kind == V_FIELD ? S->fields.items[v.index].ndim - S->fields.items[v.index].elem_ndim
                                  : S->params.items[v.index].ndim - S->params.items[v.index].elem_ndim;
    for (int d = 0; d < ls->ndims; d++) {
        ls->begin[d] = irb_int(S->arena, QT_I32, 0, iter->span), ls->step[d] = 1;
        if (v.kind == V_FIELD) { /* offset=: the indices start at the origin */
            const IrField *f = &S->fields.items[v.index];
            ls->begin[d] = irb_int(S->arena, QT_I32, f->origin[d], iter->span);
            ls->end[d] = irb_int(S->arena, QT_I32, f->origin[d] + f->shape[d], iter->span);
            if (ir_sparse_field(f)) ls->sparse = f;
        } else {
            ls->end[d] = S->up->sema_ndarray_shape(S, v.index, d, iter->span);
        }
    }
    return true;
}

static bool loop_space(Sema *S, const Expr *iter, LoopSpace *ls);

bool sema_loop_space(Sema *S, const Expr *iter, LoopSpace *ls) {
    const char *p = iter->kind == E_CALL ? sema_path(S, iter->call.fn) : NULL;
    bool st = p && !strcmp(p, "qd.static");
    ls->ordered = false;
    S->in_static += st;
    bool ok = loop_space(S, iter, ls);
    S->in_static -= st;
    return ok;
}

static bool loop_space(Sema *S, const Expr *iter, LoopSpace *ls) {
    memset(ls, 0, sizeof *ls);
    Val f = iter->kind == E_CALL ? sema_eval(S, iter->call.fn) : val_err();
    if (f.kind == V_NS && !strcmp(f.path, "qd.static")) {
        if (iter->call.args.n != 1) return diag_error(iter->span, QD2012, "qd.static takes one argument"), false;
        ls->is_static = true;
        iter = iter->call.args.items[0];
        f = iter->kind == E_CALL ? sema_eval(S, iter->call.fn) : val_err();
    }
    bool ok;
    if (f.kind == V_NS && !strcmp(f.path, "qd.grouped")) { /* for I in qd.grouped(x): I is a vector index */
        if (iter->call.args.n != 1) return diag_error(iter->span, QD2012, "qd.grouped takes one argument"), false;
        if (ls->is_static) return diag_error(iter->span, QD2012, "qd.static(qd.grouped(...)) is not supported"), false;
        ls->grouped = true;
        iter = iter->call.args.items[0];
        f = iter->kind == E_CALL ? sema_eval(S, iter->call.fn) : val_err();
    }
    if (iter->kind == E_CALL && !(iter = S->up->sema_unpack(S, iter))) return false; /* qd.ndrange(*a.shape) */
    if (!ls->is_static && (iter->kind != E_CALL || f.kind == V_SNODE)) ok = struct_for_space(S, iter, ls); /* x.parent(): an SNode */
    else if (f.kind == V_NS && !strcmp(f.path, "range")) ok = (ls->ndims = 1, range_args(S, iter, ls, 0));
    else if (f.kind == V_NS && !strcmp(f.path, "qd.ndrange")) ok = ndrange_args(S, iter, ls);
    else {
        if (iter->kind != E_CALL || f.kind != V_ERR)
            diag_error(iter->span, QD2012, "unsupported loop: iterate over range(...), qd.ndrange(...), qd.static(range(...)), "
                                             "a field or an ndarray");
        return false;
    }
    for (int d = 0; ok && ls->is_static && d < ls->ndims; d++)
        if (!ir_is_const(ls->begin[d]) || !ir_is_const(ls->end[d]))
            return diag_error(iter->span, QD2009, "the bounds of a qd.static loop must be compile-time constants"), false;
    if (ok && ls->ndims == 0) { /* one point (Quadrants runs the body once), indexed by an empty vector */
        if (!ls->grouped)
            return diag_error(iter->span, QD2012, "a 0-d iteration space has no loop variable: iterate over qd.grouped(...) "
                                                  "(its variable is the empty index, x[I] is x[None])"), false;
        ls->ndims = 1, ls->zero_d = true, ls->step[0] = 1;
        ls->begin[0] = irb_int(S->arena, QT_I32, 0, iter->span), ls->end[0] = irb_int(S->arena, QT_I32, 1, iter->span);
    }
    return ok;
}

/* max(ceil((end - begin) / step), 0) as an i32 expression (folded when constant). */
IrExpr *sema_trip_count(Sema *S, const LoopSpace *ls, int d, Span sp) {
    int64_t st = ls->step[d];
    IrExpr *span = st > 0 ? sema_binary(S, IR_SUB, ls->end[d], ls->begin[d], sp) : sema_binary(S, IR_SUB, ls->begin[d], ls->end[d], sp);
    int64_t mag = st > 0 ? st : -st;
    if (mag != 1) span = sema_binary(S, IR_DIV, sema_binary(S, IR_ADD, span, irb_int(S->arena, QT_I32, mag - 1, sp), sp),
                                   irb_int(S->arena, QT_I32, mag, sp), sp);
    return sema_binary(S, IR_MAX, span, irb_int(S->arena, QT_I32, 0, sp), sp);
}

/* ---- tasks ---- */

static void close_task(Sema *S, IrStmtVec *body) {
    if (S->task < 0) return;
    IrTask *t = &S->tasks.items[S->task];
    if (S->rng_init) { /* qd.random's state is seeded first (sema_builtin.c) */
        vec_push(body, NULL);
        memmove(body->items + 1, body->items, sizeof(IrStmt *) * (size_t)(body->len - 1));
        body->items[0] = S->rng_init;
    }
    S->rng_local = -1, S->rng_init = NULL;
    t->body = sema_freeze(S, body);
    t->uses_block = S->uses_block;
    S->task = -1, S->cur = NULL, S->uses_block = false;
}

void sema_close_task(Sema *S, IrStmtVec *body) { close_task(S, body); }
static void open_task(Sema *S, IrTaskKind kind, Span sp, IrStmtVec *body);
void sema_open_serial(Sema *S, Span sp, IrStmtVec *serial) {
    if (S->task < 0) open_task(S, IR_TASK_SERIAL, sp, serial);
}

static void open_task(Sema *S, IrTaskKind kind, Span sp, IrStmtVec *body) {
    IrTask t = {.kind = kind, .span = sp, .index_local = -1, .cp = S->cur_cp};
    t.name = arena_printf(S->arena, "%s_t%d", S->k->name, S->tasks.len);
    vec_push(&S->tasks, t);
    S->task = S->tasks.len - 1;
    S->cur = body;
    S->uses_block = false;
}

/* ---- bounds known on the device only ---- */

static bool space_uniform(const LoopSpace *ls) {
    for (int d = 0; d < ls->ndims; d++)
        if (!ir_is_uniform(ls->begin[d]) || !ir_is_uniform(ls->end[d])) return false;
    return true;
}

static IrExpr *known_bound(Sema *S, IrStmtVec *serial, IrExpr *e);

/* The value of local l when its only assignment so far is a statement of the serial code just
 * before the loop, outside any if or loop (so it ran), and uniform once its own locals are
 * replaced; else NULL. */
static IrExpr *top_level_value(Sema *S, IrStmtVec *serial, int l) {
    const IrExpr *d = l < S->local_def.len ? S->local_def.items[l] : NULL;
    if (!d || d == SEMA_REASSIGNED || S->task < 0 || S->tasks.items[S->task].kind != IR_TASK_SERIAL) return NULL;
    for (int k = 0; k < serial->len; k++)
        if (serial->items[k]->kind == IR_ASSIGN && serial->items[k]->assign.local == l) {
            IrExpr *v = known_bound(S, serial, serial->items[k]->assign.value); /* m = n * 2 after n = a.shape[0] */
            return ir_is_uniform(v) ? v : NULL;
        }
    return NULL;
}

/* How often the kernel so far writes field f (stores and atomics, every task and nesting). */
typedef struct { int field, writes; } FieldWrites;
static void note_store(IrWalker *w, IrStmt *s) {
    FieldWrites *c = w->ctx;
    c->writes += s->kind == IR_STORE && s->store.ref->kind == IR_REF_FIELD && s->store.ref->index == c->field;
}
static IrExpr *note_memop(IrWalker *w, IrExpr *e) {
    FieldWrites *c = w->ctx;
    c->writes += e->kind == IR_MEMOP && e->mem.op != QOP_LOAD && e->mem.ref->kind == IR_REF_FIELD && e->mem.ref->index == c->field;
    return e;
}
static int field_writes(Sema *S, IrStmtVec *serial, int f) {
    FieldWrites c = {f, 0};
    IrWalker w = {.expr = note_memop, .stmt = note_store, .ctx = &c};
    for (int t = 0; t < S->tasks.len; t++)
        if (t != S->task) ir_walk_block(&S->tasks.items[t].body, &w);
    IrBlock b = {serial->items, serial->len};
    ir_walk_block(&b, &w);
    return c.writes;
}

static IrExpr *stored_value(IrStmt *const *stmts, int n, int f) {
    for (int k = 0; k < n; k++)
        if (stmts[k]->kind == IR_STORE && stmts[k]->store.ref->kind == IR_REF_FIELD && stmts[k]->store.ref->index == f)
            return stmts[k]->store.value;
    return NULL;
}

/* The same for a kernel-scope local promoted to qdc_tmp_<kernel>_<name> (another loop uses
 * it): its only write so far is a top-level statement of serial code, which ran before. */
static IrExpr *promoted_value(Sema *S, IrStmtVec *serial, const IrRef *r) {
    if (r->kind != IR_REF_FIELD || r->nidx || strncmp(S->fields.items[r->index].name, "qdc_tmp_", 8)) return NULL;
    if (field_writes(S, serial, r->index) != 1) return NULL;
    IrExpr *v = S->task >= 0 ? stored_value(serial->items, serial->len, r->index) : NULL;
    for (int t = 0; !v && t < S->tasks.len; t++)
        if (t != S->task && S->tasks.items[t].kind == IR_TASK_SERIAL)
            v = stored_value(S->tasks.items[t].body.stmts, S->tasks.items[t].body.n, r->index);
    v = v ? known_bound(S, serial, v) : NULL;
    return v && ir_is_uniform(v) ? v : NULL;
}

/* e with each such local replaced by its value, so `n = a.shape[0]` then `range(n)` keeps
 * uniform bounds (the launch computes them). */
static IrExpr *known_bound(Sema *S, IrStmtVec *serial, IrExpr *e) {
    IrExpr *a, *b, *c;
    switch (e->kind) {
    case IR_LOCAL: {
        IrExpr *d = top_level_value(S, serial, e->local);
        return d && d->type == e->type ? d : e;
    }
    case IR_LOAD: {
        IrExpr *d = promoted_value(S, serial, e->ref);
        return d && d->type == e->type ? d : e;
    }
    case IR_UNARY: case IR_CAST: case IR_BITCAST:
        a = known_bound(S, serial, e->kind == IR_UNARY ? e->un.a : e->arg);
        if (a == (e->kind == IR_UNARY ? e->un.a : e->arg)) return e;
        c = ARENA_NEW(S->arena, IrExpr), *c = *e;
        if (e->kind == IR_UNARY) c->un.a = a;
        else c->arg = a;
        return c;
    case IR_BINARY:
        a = known_bound(S, serial, e->bin.a), b = known_bound(S, serial, e->bin.b);
        if (a == e->bin.a && b == e->bin.b) return e;
        c = ARENA_NEW(S->arena, IrExpr), *c = *e, c->bin.a = a, c->bin.b = b;
        return c;
    default: return e;
    }
}

/* Another load of the same slot: a bound is read by the extent and by the body, which the
 * backends build as separate functions, so they never share a node. */
static IrExpr *fresh_bound(Sema *S, IrExpr *e) {
    if (e->kind != IR_LOAD) return e;
    IrExpr *c = ARENA_NEW(S->arena, IrExpr);
    IrRef *r = ARENA_NEW(S->arena, IrRef);
    *c = *e, *r = *e->ref, c->ref = r;
    return c;
}

/* The serial task that stores the bounds sees the locals they read (they were evaluated
 * before it was chosen): a local of another task is QD2025, as anywhere else. */
typedef struct { Sema *S; bool ok; } Visible;
static bool local_hidden(const IrExpr *e, void *ctx) {
    Visible *v = ctx;
    if (e->kind == IR_LOCAL && v->ok) v->ok = sema_local_visible(v->S, e->local, e->span);
    return !v->ok;
}

static bool bounds_visible(Sema *S, const LoopSpace *ls) {
    Visible v = {S, true};
    for (int d = 0; d < ls->ndims && v.ok; d++)
        if (!ir_expr_any(ls->begin[d], local_hidden, &v)) ir_expr_any(ls->end[d], local_hidden, &v);
    return v.ok;
}

/* Bounds that are not uniform (they read fields, ndarrays or kernel-scope locals) are evaluated
 * once by the serial code before the loop, as Quadrants' offload pass does, and stored in the
 * kernel-owned i32 field qdc_bounds_<task> (one slot per such bound, in source order); the task
 * then reads them: its extent is known on the device only (qdc-abi(7), "Device bounds"). */
static void store_bounds(Sema *S, LoopSpace *ls, Span sp) {
    int n = 0;
    for (int d = 0; d < ls->ndims; d++) n += !ir_is_uniform(ls->begin[d]) + !ir_is_uniform(ls->end[d]);
    const char *name = arena_printf(S->arena, "qdc_bounds_%s_t%d", S->k->name, S->tasks.len); /* the task opened next */
    int f = S->up->sema_owned_field(S, name, QT_I32, sp), slot = 0;
    IrField *fd = &S->fields.items[f];
    fd->ndim = 1, fd->shape[0] = n, fd->elems = n;
    for (int d = 0; d < ls->ndims; d++)
        for (int e = 0; e < 2; e++) {
            IrExpr **b = e ? &ls->end[d] : &ls->begin[d];
            if (ir_is_uniform(*b)) continue;
            IrRef *r = S->up->sema_owned_ref(S, f, sp).ref;
            r->idx[0] = irb_int(S->arena, QT_I32, slot++, sp), r->nidx = 1;
            IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
            st->store.ref = r, st->store.value = *b;
            sema_emit(S, st);
            *b = irb_new(S->arena, IR_LOAD, QT_I32, sp);
            (*b)->ref = S->up->sema_owned_ref(S, f, sp).ref;
            (*b)->ref->idx[0] = irb_int(S->arena, QT_I32, slot - 1, sp), (*b)->ref->nidx = 1;
        }
}

/* A parallel loop's trip counts and extent are i32, as its index is. Compile-time bounds are
 * folded as Python integers, so range(1, -2**31) or ndrange(10**5, 10**5) give a wider constant:
 * an empty or fitting count is made i32, a larger one is a located error (it used to reach the
 * backends as an i64 extent beside the i32 index: an internal error). */
static IrExpr *task_count(Sema *S, IrExpr *e, Span sp) {
    if (!e || e->kind != IR_CONST || e->type == QT_I32) return e;
    int64_t v = e->c.i;
    if (qt_is_signed(e->type) ? v > INT32_MAX : (uint64_t)v > INT32_MAX) {
        diag_error(sp, QD2050, "this parallel loop runs %s%lld times; a parallel loop runs at most 2^31-1 iterations (its index is an i32)",
                   qt_is_signed(e->type) ? "" : "u", (long long)v);
        return irb_int(S->arena, QT_I32, 0, sp);
    }
    return irb_int(S->arena, QT_I32, v < 0 ? 0 : v, sp);
}

/* The body of a parallel task: loop variables from the linear index, then the loop body.
 * A `continue` leaves the body: the body is wrapped in `while True: ...; break`. */
static void for_body(Sema *S, const Stmt *loop, LoopSpace ls) {
    IrTask *t = &S->tasks.items[S->task];
    const Expr *iter = loop->for_.iter;
    const Expr *t0 = loop->for_.target;
    int nvars = t0->kind == E_TUPLE ? t0->list.n : 1;
    if (ls.grouped && nvars == 1) nvars = ls.ndims;
    if (nvars != ls.ndims) {
        const char *p = iter->kind == E_CALL ? sema_path(S, iter->call.fn) : NULL;
        diag_error(t0->span, QD2012, "the loop has %d dimension%s but %d loop variable%s%s", ls.ndims, ls.ndims == 1 ? "" : "s",
                   nvars, nvars == 1 ? "" : "s",
                   p && !strcmp(p, "qd.ndrange") ? " (Ndrange for loop with number of the loop variables not equal to the dimension of "
                                                   "the ndrange is not supported)" : "");
        return;
    }
    IrExpr *count[IR_MAX_DIMS], *extent = NULL;
    bool known = true; /* every count a constant: their product is checked exactly */
    int64_t product = 1;
    for (int d = 0; d < ls.ndims; d++) {
        count[d] = task_count(S, sema_trip_count(S, &ls, d, iter->span), iter->span);
        known = known && count[d]->kind == IR_CONST;
        if (known && product && __builtin_mul_overflow(product, count[d]->c.i, &product)) product = INT64_MAX;
        extent = extent ? sema_binary(S, IR_MUL, extent, count[d], iter->span) : count[d];
    }
    if (known && product > INT32_MAX) {
        diag_error(iter->span, QD2050, "this parallel loop runs %lld times; a parallel loop runs at most 2^31-1 iterations (its index is an i32)",
                   (long long)product);
        extent = irb_int(S->arena, QT_I32, 0, iter->span);
    }
    t->extent = extent;
    if (!space_uniform(&ls)) /* the body reads the slots itself (the extent is another function) */
        for (int d = 0; d < ls.ndims; d++) {
            LoopSpace one = {.ndims = 1, .begin = {fresh_bound(S, ls.begin[d])}, .end = {fresh_bound(S, ls.end[d])}, .step = {ls.step[d]}};
            count[d] = sema_trip_count(S, &one, 0, iter->span);
            ls.begin[d] = fresh_bound(S, ls.begin[d]);
        }
    t->index_local = sema_new_local(S, "$index", QT_I32);
    IrExpr *rest = sema_local(S, t->index_local, iter->span), *vars[IR_MAX_DIMS];
    Val group = ls.grouped ? S->up->vec_make(S, ls.ndims, 0) : val_err();
    for (int lv = ls.ndims - 1; lv >= 0; lv--) { /* the innermost nesting level first */
        int d = LOOP_DIM(&ls, lv);
        const Expr *v = t0->kind == E_TUPLE ? t0->list.items[d] : t0;
        Expr named = *v;
        if (ls.grouped && v->kind == E_NAME) named.name = arena_printf(S->arena, "%s_%d", v->name, d), v = &named;
        if (v->kind != E_NAME) return (void)diag_error(v->span, QD2012, "a loop variable must be a name");
        Binding *pb = scope_find(S->scope, v->name);
        if (pb && pb->is_param) return (void)diag_error(v->span, QD2038, "cannot use kernel argument '%s' as a loop variable", v->name);
        if (pb && !ls.grouped && (iter->kind != E_CALL || (iter->call.fn->kind == E_NAME && !strcmp(iter->call.fn->name, "range"))))
            return (void)diag_error(v->span, QD2012, "Variable '%s' is already declared in the outer scope and cannot be used as "
                                    "loop variable", v->name); /* Quadrants' check_loop_var: a range-for or struct-for */
        IrExpr *pos = lv > 0 ? sema_binary(S, IR_REM, rest, count[d], v->span) : rest;
        IrExpr *val = sema_binary(S, IR_ADD, ls.begin[d], sema_binary(S, IR_MUL, pos, irb_int(S->arena, QT_I32, ls.step[d], v->span), v->span), v->span);
        int l = sema_new_local(S, v->name, QT_I32);
        sema_bind_loop_name(S, v, (Val){.kind = V_LOCAL, .index = l});
        IrStmt *as = sema_stmt_new(S, IR_ASSIGN, v->span);
        as->assign.local = l, as->assign.value = val;
        sema_emit(S, as);
        vars[d] = sema_local(S, l, v->span);
        if (ls.grouped) group.vec.c[d] = (Val){.kind = V_LOCAL, .index = l};
        if (lv > 0) rest = sema_binary(S, IR_DIV, rest, count[d], v->span);
    }
    if (ls.grouped) sema_bind_loop_name(S, t0, ls.zero_d ? S->up->vec_make(S, 0, 0) : group);
    IrStmtVec body = {0}, *outer = S->cur;
    S->cur = &body;
    LoopKind around = S->loop; /* LOOP_STATIC in an unrolled top-level qd.static loop */
    S->loop = LOOP_PARALLEL, S->parallel_continue = false;
    S->dyn++, S->loop_nest++;
    sema_block(S, &loop->for_.body);
    S->dyn--, S->loop_nest--;
    S->loop = around, S->cur = outer;
    IrExpr *active = ls.sparse ? S->up->sema_sparse_loop_cond(S, &ls, vars, iter->span) : NULL;
    IrStmtVec inactive = {0}, *around_cur = S->cur;
    if (active) S->cur = &inactive; /* the body runs on active cells only */
    if (!S->parallel_continue) {
        for (int k = 0; k < body.len; k++) sema_emit(S, body.items[k]);
        if (S->stop_grad) S->up->sema_stop_grad_move(S, &body, S->cur); /* the body's statements are the task's now */
        vec_free(&body);
    } else {
        vec_push(&body, sema_stmt_new(S, IR_BREAK, loop->span));
        IrStmt *w = sema_stmt_new(S, IR_WHILE, loop->span);
        w->while_.cond = irb_int(S->arena, QT_U1, 1, loop->span);
        w->while_.body = sema_freeze(S, &body);
        sema_emit(S, w);
    }
    if (!active) return;
    S->cur = around_cur;
    IrStmt *st = sema_stmt_new(S, IR_IF, iter->span);
    st->if_.cond = active, st->if_.then = sema_freeze(S, &inactive);
    sema_emit(S, st);
}

static bool is_loop_config(Sema *S, const Stmt *s) {
    if (s->kind != S_EXPR || s->expr->kind != E_CALL) return false;
    const char *p = sema_path(S, s->expr->call.fn);
    return p && !strcmp(p, "qd.loop_config");
}

/* qd.block_local(...) / qd.cache_read_only(...): hints for the next loop, so they may stand
 * between qd.loop_config and that loop (Quadrants keeps the config until the next for). */
static bool is_loop_hint(Sema *S, const Stmt *s) {
    if (s->kind != S_EXPR || s->expr->kind != E_CALL) return false;
    const char *p = sema_path(S, s->expr->call.fn);
    return p && (!strcmp(p, "qd.block_local") || !strcmp(p, "qd.cache_read_only"));
}

static bool const_bool(Sema *S, const Expr *e, bool *out, const char *what) {
    Val x = val_expr(sema_expr(S, e));
    if (x.kind == V_ERR) return false;
    if (!val_is_host_integral(x)) {
        diag_error(e->span, QD2009, "%s must be a compile-time constant True or False", what);
        return false;
    }
    return *out = val_host_u64(x) != 0, true;
}

/* qd.loop_config(block_dim=, serialize=, parallelize=, block_dim_adaptive=, name=) before a
 * top-level for. serialize=True (= parallelize=1) makes the loop a serial loop of a serial task:
 * one thread, iterations in order, break allowed. parallelize=N > 1 is Quadrants' CPU thread
 * count; qdc's runtime takes the thread count at launch, so it warns (QD2103). block_dim is used
 * exactly as given, and the target's default otherwise, which is what block_dim_adaptive
 * allows either way. bit_vectorize (Quadrants: one iteration per word of a quant_array) runs one
 * iteration per element, the same results. */
static void loop_config(Sema *S, const Expr *call) {
    if (call->call.args.n) diag_error(call->span, QD2007, "qd.loop_config takes keyword arguments only");
    for (int k = 0; k < call->call.nkw; k++) {
        const Keyword *kw = &call->call.kw[k];
        int64_t v;
        bool b;
        if (!strcmp(kw->name, "block_dim")) {
            if (kw->value->kind == E_NONE || !sema_const_int(S, kw->value, &v, "block_dim")) continue;
            /* the upper bound is each target's max_block_dim in the database (QD4007, lower.c) */
            if (v < 1 || v > INT32_MAX) diag_error(kw->value->span, QD2017, "block_dim must be a positive 32-bit integer, got %lld", (long long)v);
            else S->block_dim = (int)v, S->block_dim_span = call->span;
        } else if (!strcmp(kw->name, "serialize")) {
            if (const_bool(S, kw->value, &b, "serialize")) S->serialize |= b;
        } else if (!strcmp(kw->name, "parallelize")) {
            if (kw->value->kind == E_NONE || !sema_const_int(S, kw->value, &v, "parallelize")) continue;
            if (v < 1) diag_error(kw->value->span, QD2017, "parallelize must be at least 1, got %lld", (long long)v);
            else if (v == 1) S->serialize = true;
            else diag_warning(kw->span, QD2103, "parallelize=%lld is ignored: the thread count of a CPU launch is its "
                                                 "nthreads argument (qdc-abi(7)); GPU targets never used it", (long long)v);
        } else if (!strcmp(kw->name, "block_dim_adaptive")) {
            const_bool(S, kw->value, &b, "block_dim_adaptive");
        } else if (!strcmp(kw->name, "bit_vectorize")) {
            const_bool(S, kw->value, &b, "bit_vectorize"); /* a struct-for over a quant_array, one element per iteration */
        } else if (strcmp(kw->name, "name")) {
            static const char *const known[] = {"block_dim", "serialize", "parallelize", "block_dim_adaptive", "bit_vectorize", "name"};
            const char *near = closest_name(kw->name, known, (int)ARRAY_LEN(known));
            diag_error(kw->span, QD2007, "qd.loop_config has no argument '%s'%s%s%s", kw->name, near ? "; did you mean '" : "",
                       near ? near : "", near ? "'?" : "");
        }
    }
    if (!S->block_dim) S->block_dim = -1, S->block_dim_span = call->span; /* pending, default size */
}

/* Whether a for's iterable is qd.static(...) in every branch of its inline ifs (read, not
 * evaluated: `A if qd.static(not BW) else B` names the qd.func's own values). */
static bool static_iter(Sema *S, const Expr *it) {
    if (it->kind == E_IFEXP) return static_iter(S, it->ifexp.a) && static_iter(S, it->ifexp.b);
    const char *p = it->kind == E_CALL ? sema_path(S, it->call.fn) : NULL;
    return p && !strcmp(p, "qd.static");
}

/* Whether statements of a qd.func's body, at its top level, hold a loop that becomes the calling
 * kernel's (also in a branch of an `if qd.static(...)`: its condition is known only once the
 * func's arguments are bound, and the branch taken is as much top level as the func's body). */
typedef struct { const Stmt *seen[64]; int n; } FuncWalk; /* qd.funcs already looked into (no loops found) */
static bool body_has_toplevel_for(Sema *S, const StmtList *body, Scope *where, FuncWalk *w);

/* The call of a statement that may inline a qd.func at the top level: the statement itself
 * (`f(...)`, `module.f(...)`), or the value of an assignment (`v = f(...)`, Genesis'
 * `is_grad_valid = func_is_grad_valid(...)`). */
static const Expr *toplevel_call(const Stmt *s) {
    const Expr *c = s->kind == S_EXPR ? s->expr : s->kind == S_ASSIGN ? s->assign.value : NULL;
    if (!c || c->kind != E_CALL) return NULL;
    const Expr *fn = c->call.fn;
    return fn->kind == E_NAME || (fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME) ? c : NULL;
}

/* What the callee of toplevel_call names, looked up from `where` (NULL: the current scope):
 * NAME, or MODULE.NAME of an imported module of the program (Genesis' solver_breakdown.py calls
 * solver.func_hessian_direct_tiled(...), whose loops are the kernel's). */
static Binding *toplevel_callee(Sema *S, const Expr *fn, Scope *where) {
    const char *name = fn->kind == E_NAME ? fn->name : fn->attr.obj->name;
    Binding *b = NULL;
    for (Scope *sc = where; sc && !b; sc = sc->parent) b = scope_find(sc, name);
    if (!where) b = sema_lookup(S, name);
    if (fn->kind == E_NAME || !b) return b;
    return sema_module_find(b->v, fn->attr.name);
}

/* A qd.func body whose only top-level return is its last statement, `return VALUE`: the value
 * an assignment of its call takes once its loops have run. */
static const Stmt *final_value_return(const StmtList *body) {
    for (int k = 0; k + 1 < body->n; k++)
        if (body->stmts[k]->kind == S_RETURN) return NULL;
    const Stmt *r = body->n ? body->stmts[body->n - 1] : NULL;
    return r && r->kind == S_RETURN && r->expr ? r : NULL;
}

/* A statement calling a qd.func (a name looked up from `where`, NULL: the current scope) whose
 * body holds top-level loops, itself or through the qd.funcs it calls so (Genesis' forward
 * dynamics: kernel -> func_forward_dynamics -> func_compute_mass_matrix's loops). */
static bool calls_toplevel_for(Sema *S, const Stmt *s, Scope *where, FuncWalk *w, const Stmt **def) {
    const Expr *call = toplevel_call(s);
    if (!call) return false;
    Binding *b = toplevel_callee(S, call->call.fn, where);
    if (!b || b->v.kind != V_FUNC || sema_is_real_func(S, b->v.def)) return false; /* a real_func's loops are its own */
    if (s->kind == S_ASSIGN && !final_value_return(&b->v.def->def.body)) return false;
    for (int k = 0; k < w->n; k++)
        if (w->seen[k] == b->v.def) return false; /* looked into (or being looked into: recursion) */
    if (w->n == (int)ARRAY_LEN(w->seen)) return false;
    w->seen[w->n++] = b->v.def;
    if (!body_has_toplevel_for(S, &b->v.def->def.body, sema_def_scope(S, b->v.def), w)) return false;
    return *def = b->v.def, true;
}

static bool body_has_toplevel_for(Sema *S, const StmtList *body, Scope *where, FuncWalk *w) {
    for (int k = 0; k < body->n; k++) {
        const Stmt *x = body->stmts[k], *d;
        if (calls_toplevel_for(S, x, where, w, &d)) return true;
        if (x->kind == S_FOR && x->for_.iter->kind == E_IFEXP) { /* its branches are chosen inside the qd.func */
            if (!static_iter(S, x->for_.iter)) return true;
            continue;
        }
        if (x->kind == S_IF && static_iter(S, x->if_.cond)) {
            if (body_has_toplevel_for(S, &x->if_.then, where, w) || body_has_toplevel_for(S, &x->if_.els, where, w)) return true;
            continue;
        }
        x = sema_loop_form(S, x);
        if (S->up->sema_is_do_while(S, x)) return true; /* its tasks repeat: they are the kernel's */
        if ((x->kind == S_FOR && !static_iter(S, x->for_.iter)) || is_loop_config(S, x)) return true;
    }
    return false;
}

static bool func_has_toplevel_for(Sema *S, const Stmt *s, const Stmt **def) {
    FuncWalk w = {.n = 0};
    return calls_toplevel_for(S, s, NULL, &w, def);
}

const Expr *sema_toplevel_func_call(Sema *S, const Stmt *s) {
    const Stmt *def;
    return func_has_toplevel_for(S, s, &def) ? toplevel_call(s) : NULL;
}

static bool is_static_for(Sema *S, const Stmt *s) {
    if (s->kind != S_FOR || s->for_.iter->kind != E_CALL) return false;
    const char *p = sema_path(S, s->for_.iter->call.fn);
    return p && !strcmp(p, "qd.static");
}

static void split_tasks(Sema *S, const StmtList *l, IrStmtVec *serial);

/* A top-level for: a parallel task. Its bounds are evaluated first, where Quadrants evaluates
 * them: in the serial code before the loop, after the previous task has finished. Uniform ones
 * (constants, scalar arguments, shapes) stay expressions of the launch; the others go through
 * store_bounds, in a serial task opened for them when none precedes the loop. */
static void parallel_for(Sema *S, const Stmt *s, IrStmtVec *serial) {
    LoopSpace ls;
    bool opened = S->task < 0; /* the serial code the bounds need, dropped again when they are uniform */
    if (opened) open_task(S, IR_TASK_SERIAL, s->span, serial);
    IrStmtVec pre = {0}, *cur = S->cur; /* what evaluating the bounds emits (an inlined qd.func, qd.random) */
    S->cur = &pre;
    bool ok = sema_loop_space(S, s->for_.iter, &ls);
    S->cur = cur;
    for (int d = 0; ok && d < ls.ndims; d++) ls.begin[d] = known_bound(S, serial, ls.begin[d]), ls.end[d] = known_bound(S, serial, ls.end[d]);
    bool device = ok && !space_uniform(&ls);
    if (device) {
        for (int k = 0; k < pre.len; k++) vec_push(S->cur, pre.items[k]); /* emitted (noted) once already */
        ok = device = bounds_visible(S, &ls);
        if (ok) store_bounds(S, &ls, s->for_.iter->span);
    } else if (opened && !serial->len && !S->rng_init) { /* no serial task after all: as if never opened */
        S->tasks.len--, S->task = -1, S->cur = NULL;
    }
    close_task(S, serial);
    IrStmtVec body = {0};
    open_task(S, IR_TASK_PARALLEL, s->span, &body);
    int task = S->task;
    S->tasks.items[task].block_dim = S->block_dim > 0 ? S->block_dim : 0;
    S->block_dim = 0;
    if (!device)
        for (int k = 0; k < pre.len; k++) vec_push(S->cur, pre.items[k]); /* emitted (noted) once already */
    vec_free(&pre);
    if (ok) for_body(S, s, ls);
    else if (!diag_error_count() && !diag_quiet_active()) die("a parallel loop without bounds and without a diagnostic");
    close_task(S, &body);
    if (device && S->tasks.items[task].uses_block)
        diag_error(s->for_.iter->span, QD2013, "a parallel loop that uses qd.simt.block or subgroup operations needs bounds "
                                               "known at launch (constants, scalar arguments, ndarray shapes): a GPU must "
                                               "run it on exactly ceil(extent / block_dim) blocks");
}

/* A qd.func whose body holds top-level loops, called as a kernel statement: its loops stay
 * parallel (Quadrants inlines it at the kernel's top level). Arguments are evaluated in a
 * serial task; uniform ones (constants, arguments, shapes) are substituted, the others are
 * kernel-scope (kernel-owned fields, as promoted locals), so every loop may read them. Called
 * as the value of an assignment, its final `return VALUE` is evaluated in serial code after
 * its loops and assigned to the targets. */
static void inline_toplevel(Sema *S, const Stmt *s, const Stmt *def, IrStmtVec *serial) {
    for (int k = 0; k < S->ninline; k++)
        if (S->inline_stack[k] == def)
            return (void)diag_error(s->span, QD2016, "recursive call of qd.func '%s' (qd.func calls are inlined)", def->def.name);
    if (!budget_fits(&S->budget, EB_DEPTH, 1, s->span)) return; /* QD2026, reported by budget_report */
    if (S->task < 0) open_task(S, IR_TASK_SERIAL, s->span, serial);
    S->bind_shared = true; /* its non-uniform arguments are kernel-scope: kernel-owned fields */
    const Expr *call = toplevel_call(s);
    Scope *sc = sema_bind_args(S, call, def);
    if (!sc) return;
    const StmtList *b = &def->def.body;
    const Stmt *ret = s->kind == S_ASSIGN ? final_value_return(b) : NULL;
    StmtList body = {b->stmts, b->n && b->stmts[b->n - 1]->kind == S_RETURN && (ret || !b->stmts[b->n - 1]->expr) ? b->n - 1 : b->n};
    Scope *saved = S->scope;
    S->scope = sc;
    sema_inline_push(S, def, s->span);
    /* its serial code's locals that its loops (other tasks) read are kernel-scope too: promoted
     * to kernel-owned fields qdc_tmp_<kernel>_<func>_<name> (sema_promote.c), as the kernel's own */
    int depth = S->promoted_depth;
    const char **kept = S->promoted.items;
    int kept_len = S->promoted.len, kept_cap = S->promoted.cap;
    S->promoted.items = NULL, S->promoted.len = S->promoted.cap = 0;
    S->up->sema_find_promoted(S, b); /* with the final return: a value it reads after the loops */
    S->promoted_depth = S->ninline;
    split_tasks(S, &body, serial);
    Val result = {.kind = V_NONE};
    if (ret && S->returned) {
        result = S->fn_result; /* a return under qd.static ended it early */
    } else if (ret) {
        if (S->task < 0) open_task(S, IR_TASK_SERIAL, ret->span, serial);
        result = sema_func_result(S, def, ret, call);
    }
    vec_free(&S->promoted);
    S->promoted.items = kept, S->promoted.len = kept_len, S->promoted.cap = kept_cap, S->promoted_depth = depth;
    S->returned = false; /* a return under qd.static ended the qd.func, not the kernel */
    sema_inline_pop(S);
    S->scope = saved;
    vec_free(&sc->b);
    if (ret && result.kind != V_ERR)
        for (int k = 0; k < s->assign.targets.n; k++) sema_assign(S, s->assign.targets.items[k], result, ret->span);
}

/* `if qd.static(c):` at the top level: the chosen branch stays top level (its loops parallel). */
static const StmtList *static_branch(Sema *S, const Stmt *s) {
    if (s->kind != S_IF || s->if_.cond->kind != E_CALL) return NULL;
    const char *p = sema_path(S, s->if_.cond->call.fn);
    if (!p || strcmp(p, "qd.static")) return NULL;
    IrStmtVec *cur = S->cur;
    S->cur = NULL; /* a compile-time condition emits no code */
    IrExpr *c = sema_to_bool(S, sema_expr(S, s->if_.cond));
    S->cur = cur;
    static const StmtList none = {0};
    return c ? (c->c.u ? &s->if_.then : &s->if_.els) : &none;
}

void sema_split_tasks(Sema *S, const StmtList *l, IrStmtVec *serial) { split_tasks(S, l, serial); }

/* A task never spans two checkpoints (sema_graph.c): an open task of another one is closed
 * before the next statement, except the code outside any (cp 0) before a parallel loop, which
 * may compute its bounds. */
static void checkpoint_boundary(Sema *S, const Stmt *s, IrStmtVec *serial) {
    if (S->task < 0 || S->tasks.items[S->task].cp == S->cur_cp) return;
    if (!S->tasks.items[S->task].cp && s->kind == S_FOR && !S->serialize && !is_static_for(S, s)) return;
    close_task(S, serial);
}

static void split_tasks(Sema *S, const StmtList *l, IrStmtVec *serial) {
    bool wrap = S->cp_wrap; /* this list's for loops are implicit checkpoints (not those of lists inside it) */
    S->cp_wrap = false;
    for (int k = 0; k < l->n && !S->returned && !S->static_jump; k++) {
        const Stmt *s = sema_loop_form(S, l->stmts[k]), *def;
        if (wrap && s->kind == S_FOR) {
            S->up->sema_checkpoint_for(S, s, serial);
            continue;
        }
        checkpoint_boundary(S, s, serial);
        const StmtList *branch = static_branch(S, s);
        if (branch) {
            int mark = sema_block_begin(S);
            split_tasks(S, branch, serial);
            sema_block_end(S, mark);
        } else if (is_static_for(S, s)) { /* unrolled here: each iteration's body is top level (its loops parallel) */
            IrStmtVec *saved = S->toplevel;
            S->toplevel = serial;
            sema_stmt(S, s);
            S->toplevel = saved;
        } else if (is_loop_config(S, s)) {
            loop_config(S, s->expr);
        } else if (s->kind == S_FOR && !is_static_for(S, s) && S->serialize) {
            S->serialize = false, S->block_dim = 0; /* one thread: the loop is an ordinary serial loop */
            if (S->task < 0) open_task(S, IR_TASK_SERIAL, s->span, serial);
            sema_stmt(S, s);
        } else if (s->kind == S_FOR && !is_static_for(S, s)) {
            int mark = sema_block_begin(S);
            parallel_for(S, s, serial);
            sema_block_end(S, mark);
        } else if (S->up->sema_is_do_while(S, s)) {
            S->cp_wrap = wrap; /* Quadrants' auto-wrap recurses into the loop's body */
            S->up->sema_do_while(S, s, serial);
            S->cp_wrap = false;
        } else if (s->kind == S_IF && s->if_.with) { /* its body stays top level (sema_graph.c) */
            S->up->sema_with(S, s, serial);
        } else if (func_has_toplevel_for(S, s, &def)) {
            inline_toplevel(S, s, def, serial);
        } else {
            if (S->block_dim && s->kind != S_ASSIGN && !is_loop_hint(S, s)) { /* Quadrants keeps the setting for the next for loop across assignments */
                diag_error(S->block_dim_span, QD2017, "qd.loop_config must directly precede a top-level for loop");
                S->block_dim = 0, S->serialize = false;
            }
            bool code = s->kind != S_BREAK && s->kind != S_CONTINUE && s->kind != S_PASS; /* a static loop's jump: no task */
            if (S->task < 0 && code) open_task(S, IR_TASK_SERIAL, s->span, serial);
            sema_stmt(S, s);
        }
    }
}

/* ---- kernels ---- */

bool sema_ndarray_annotation(Sema *S, const Expr *ann, IrParam *p) {
    const Expr *dt, *nd;
    S->up->sema_param_shape(S, ann, &dt, &nd);
    int64_t ndim;
    int n = 0, m = 0;
    bool vec = S->up->sema_vec_type_of(S, dt, &p->type, &n, &m);
    const QdStruct *st;
    if (!vec && dt && S->up->sema_struct_type_of(S, dt, &st)) /* qd.ndarray(struct, ...) raises in Quadrants */
        return diag_error(dt->span, QD2005, "a struct type is not an ndarray element type (Quadrants: only scalars, vectors and "
                                            "matrices; qd.ndarray raises \"is not supported as ndarray element type\"); use a "
                                            "struct field (MyStruct.field(shape=...)) or one ndarray per member"), false;
    if ((vec && !n) || (!vec && !sema_annotation_type(S, dt, &p->type)) || !sema_const_int(S, nd, &ndim, "ndim")) return false;
    int edim = n ? (m ? 2 : 1) : 0;
    if (ndim < 0 || ndim + edim > IR_MAX_DIMS) return diag_error(nd->span, QD2005, "ndim must be between 0 and %d", IR_MAX_DIMS - edim), false;
    p->kind = IR_PARAM_NDARRAY, p->ndim = (int)ndim + edim, p->elem_ndim = edim, p->elem_shape[0] = n, p->elem_shape[1] = m;
    return true;
}

/* GP_PARAM: *p is a run-time parameter; GP_BOUND: a template value to bind by name (*bound). */
static GenericResult kernel_param(Sema *S, const Param *ap, IrParam *p, Val *bound, StrBuf *entry) {
    p->name = ap->name, p->span = ap->span, p->kind = IR_PARAM_SCALAR;
    const Expr *ann = ap->annotation, *dt, *nd;
    if (!ann)
        return diag_error(ap->span, QD2005, "kernel parameter '%s' needs a type annotation (Quadrants kernels parameters must be "
                                            "type annotated)", ap->name), GP_ERR;
    if (ap->dflt) return diag_error(ap->dflt->span, QD2005, "kernel parameters cannot have default values in v1"), GP_ERR;
    if (S->up->sema_builder_param(S, ann, p)) return GP_PARAM;
    if (S->up->sema_param_is_generic(S, ap))
        return S->callinst ? S->up->sema_callsite_param(S, ap, p, bound, entry) : S->up->sema_generic_param(S, ap, p, bound, entry);
    if (S->up->sema_param_shape(S, ann, &dt, &nd) == PS_ARRAY) return sema_ndarray_annotation(S, ann, p) ? GP_PARAM : GP_ERR;
    if (ann->kind == E_STR) /* Quadrants' _func_base: a string is no type */
        return diag_error(ann->span, QD2005, "Invalid type annotation of kernel parameter '%s': the string '%s' is not a type", ap->name,
                          ann->str), GP_ERR;
    return sema_annotation_type(S, ann, &p->type) ? GP_PARAM : GP_ERR;
}

Val sema_param_value(Sema *S, int k, Span sp) {
    IrExpr *e = irb_new(S->arena, IR_PARAM, S->params.items[k].type, sp);
    e->param = k;
    return val_expr(e);
}

Val sema_scalar_param(Sema *S, const char *name, QdType t, Span sp) {
    IrParam p = {.name = name, .kind = IR_PARAM_SCALAR, .type = t, .span = sp};
    vec_push(&S->params, p);
    return sema_param_value(S, S->params.len - 1, sp);
}

/* A parameter of a vector or matrix type (v: qd.types.vector(3, qd.f32)): one scalar parameter
 * per component, named <v>_<k> (row-major), in the argument struct (qdc-abi(7)); each carries the
 * type's shape in elem_shape (elem_ndim stays 0: a scalar), for the typed launcher's const T v[n]. */
static bool vector_param(Sema *S, const Param *ap) {
    QdType t;
    int n = 0, m = 0;
    if (!ap->annotation || ap->dflt || !S->up->sema_vec_type_of(S, ap->annotation, &t, &n, &m)) return false;
    if (!n) return scope_bind(S, S->scope, ap->name, val_err(), ap->span)->is_param = true, true;
    Val v = S->up->vec_make(S, n, m);
    for (int k = 0; k < vec_len(v); k++) {
        IrParam p = {.name = arena_printf(S->arena, "%s_%d", ap->name, k), .kind = IR_PARAM_SCALAR, .type = t, .span = ap->span,
                     .elem_shape = {n, m}};
        vec_push(&S->params, p);
        v.vec.c[k] = sema_param_value(S, S->params.len - 1, ap->span);
    }
    scope_bind(S, S->scope, ap->name, v, ap->span)->is_param = true;
    return true;
}

/* Binds the parameters; for an instantiation, builds its entry name (sema_generic.c). */
static const char *kernel_params(Sema *S, const Stmt *def, const char *base) {
    StrBuf entry;
    sb_init(&entry);
    sb_puts(&entry, base);
    for (int k = S->method ? 1 : 0; k < def->def.nparams; k++) {
        const Param *ap = &def->def.params[k];
        for (int j = 0; j < k; j++)
            if (!strcmp(def->def.params[j].name, ap->name))
                diag_error(ap->span, QD2005, "duplicate parameter '%s'", ap->name);
        IrParam p = {0};
        Val v = {0};
        if (vector_param(S, ap) || S->up->sema_struct_param(S, ap)) continue;
        if (S->up->sema_pydc_param(S, ap, S->callinst ? S->callinst->args[k] : (Val){.kind = V_HOST, .path = "no call qdc can evaluate"})) continue;
        if (S->up->sema_bview_param(S, ap, S->callinst ? S->callinst->args[k] : (Val){.kind = V_HOST, .path = "no call qdc can evaluate"}, &entry))
            continue;
        GenericResult r = kernel_param(S, ap, &p, &v, &entry);
        if (r == GP_ERR) { /* poisoned: its uses are not reported again */
            scope_bind(S, S->scope, ap->name, val_err(), ap->span)->is_param = true;
            continue;
        }
        if (r == GP_PARAM) {
            if (p.kind == IR_PARAM_NDARRAY) S->up->sema_ad_param(S, ap->annotation, &p, def, k);
            vec_push(&S->params, p);
            int idx = S->params.len - 1;
            v = (Val){.kind = V_NDARRAY, .index = idx};
            if (p.kind == IR_PARAM_SCALAR) v = sema_param_value(S, idx, ap->span);
        }
        scope_bind(S, S->scope, ap->name, v, ap->span)->is_param = true;
    }
    const char *name = S->inst >= 0 && S->up->sema_instance_entry(S, S->inst) ? S->up->sema_instance_entry(S, S->inst) : arena_strdup(S->arena, entry.data);
    sb_free(&entry);
    return name;
}

/* A `return value` inside a run-time if/for/while of a kernel's body (qd.static ones are run-time
 * loops here too: a return that ends the kernel under them sets S->returned), or NULL. */
static const Stmt *nested_return(const StmtList *l, int depth) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k], *r = NULL;
        if (s->kind == S_IF) r = nested_return(&s->if_.then, depth + 1), r = r ? r : nested_return(&s->if_.els, depth + 1);
        if (s->kind == S_WHILE) r = nested_return(&s->while_.body, depth + 1);
        if (s->kind == S_FOR) r = nested_return(&s->for_.body, depth + 1);
        if (r) return r;
        if (depth && s->kind == S_RETURN && s->expr && s->expr->kind != E_NONE) return s;
    }
    return NULL;
}

static void check_kernel(Sema *S, const SemaDef *sd) {
    const Stmt *def = sd->def;
    IrKernel k = {.name = sd->entry, .span = def->def.name_span};
    S->k = &k;
    S->params.len = S->locals.len = S->shared.len = S->tasks.len = S->local_task.len = S->local_def.len = 0;
    S->stop_grad = NULL; /* qd.stop_grad calls of blocks an earlier kernel left unfinished (an error) */
    Scope *own = S->callinst && S->callinst->scope ? S->callinst->scope : sd->scope; /* a later instantiation's snapshot */
    Scope scope = {.parent = own};
    S->hscope = own, S->method = sd->method, S->pure = sd->pure;
    S->snap_live = sd->live, S->snap = own;
    S->scope = &scope;
    S->task = -1, S->block_dim = 0, S->serialize = false, S->loop = LOOP_NONE, S->ninline = 0;
    S->rng_local = -1, S->rng_init = NULL;
    S->returned = false, S->dyn = 0, S->kernel_def = def, S->rng_field = -1;
    S->loops.len = 0, S->cur_loop = -1, S->graph = S->up->sema_kernel_graph(S, def), S->with_ctx = 0;
    S->checkpoints = S->graph && S->up->sema_kernel_checkpoints(S, def), S->cps.len = 0, S->cur_cp = 0;
    k.ret_type = QT_VOID, k.ret_field = -1;
    if (S->inst >= 0) S->up->sema_check_instance_args(S, def);
    k.name = kernel_params(S, def, sd->entry);
    if (S->callinst) k.name = S->callinst->entry;
    Arena *arena_ = S->arena;
    IrStmtVec serial = {0};
    const StmtList *b = &def->def.body;
    const Stmt *ret = b->n && b->stmts[b->n - 1]->kind == S_RETURN ? b->stmts[b->n - 1] : NULL;
    bool returns = def->def.returns && def->def.returns->kind != E_NONE;
    StmtList body = {b->stmts, ret && (returns || !ret->expr) ? b->n - 1 : b->n};
    S->up->sema_graph_validate(S, b);
    S->up->sema_find_promoted(S, b); /* the final `return value` too: it reads what the serial code set before the loops */
    S->cp_wrap = S->checkpoints;
    split_tasks(S, &body, &serial);
    S->cp_wrap = false;
    if (S->task >= 0 && S->tasks.items[S->task].kind != IR_TASK_SERIAL) close_task(S, &serial);
    bool returned = S->returned; /* a return under qd.static control flow ended the kernel */
    S->returned = false;
    const Stmt *inner = returns && !ret && !returned ? nested_return(b, 0) : NULL;
    if (inner)
        diag_error(inner->span, QD2015, "return inside a run-time if, for or while is not supported (Quadrants: \"Return inside "
                                         "non-static if/for is not supported\"); assign a result variable instead");
    else if (returns && !ret && !returned)
        diag_error(def->def.returns->span, QD2015, "kernel '%s' declares a return type but does not end with 'return value' (Kernel has "
                   "a return type but does not have a return statement)", def->def.name);
    if (returns && ret && !returned) {
        if (S->task < 0) open_task(S, IR_TASK_SERIAL, ret->span, &serial);
        S->up->sema_kernel_return(S, def, ret);
    }
    if (S->rng_field >= 0) {
        if (S->task < 0) open_task(S, IR_TASK_SERIAL, def->def.name_span, &serial);
        S->up->sema_random_finish(S);
    }
    close_task(S, &serial);
    if (S->block_dim) diag_error(S->block_dim_span, QD2017, "qd.loop_config is not followed by a top-level for loop");
#define TAKE(dst, n, v)                                                                   \
    do {                                                                                  \
        dst = ARENA_ARRAY(arena_, __typeof__(*(v).items), (v).len ? (v).len : 1);       \
        if ((v).len) memcpy(dst, (v).items, sizeof(*(v).items) * (size_t)(v).len);      \
        n = (v).len;                                                                      \
    } while (0)
    TAKE(k.params, k.nparams, S->params);
    TAKE(k.locals, k.nlocals, S->locals);
    TAKE(k.shared, k.nshared, S->shared);
    TAKE(k.tasks, k.ntasks, S->tasks);
    TAKE(k.loops, k.nloops, S->loops);
    TAKE(k.checkpoints, k.ncheckpoints, S->cps);
    vec_free(&scope.b);
    S->scope = NULL, S->k = NULL, S->hscope = &S->module, S->pure = false, S->snap_live = NULL, S->snap = NULL;
    k.grad_of = S->up->sema_ad_no_grad(S, def) ? -1 : S->up->sema_ad_grad_wanted(S, def, &k) ? -2 : 0;
    k.fwd_of = k.grad_of != -1 && S->up->sema_ad_fwd_wanted(S, def) ? -2 : 0;
    vec_push(&S->kernels, k);
}

/* A kernel, or each of its instantiations when it is generic. */
/* A generic kernel is instantiated by the --instantiate specs that name its entry name, else by
 * the calls in host code that qdc can evaluate (sema_generic.c). One that nothing instantiates
 * is returned true: sema_missing_instance reports it once every kernel is checked. */
static bool check_kernels(Sema *S, int d) {
    const SemaDef *sd = &S->defs.items[d];
    const Stmt *def = sd->def;
    bool generic = false;
    S->hscope = sd->scope; /* annotations naming dataclasses of the host function */
    for (int k = 0; k < def->def.nparams; k++) generic |= S->up->sema_param_is_generic(S, &def->def.params[k]);
    S->hscope = &S->module;
    S->inst = -1, S->callinst = NULL;
    if (!generic && sd->called && !sd->call_ok && diag_error_count()) return false; /* every call refused (QD2069) */
    if (!generic && sd->called && !sd->plain_call) { /* only calls the script expects to raise */
        int mark = diag_quiet_begin(), nk = S->kernels.len;
        check_kernel(S, sd);
        if (diag_quiet_end(mark)) S->kernels.len = nk; /* Quadrants raises there, as the script expects: no entry */
        return false;
    }
    if (!generic) return check_kernel(S, sd), false;
    if (S->up->sema_next_instance(S, sd->entry, 0) < 0) {
        bool any = false;
        for (int c = 0; c < S->callinsts.len; c++) {
            if (S->callinsts.items[c].def != d) continue;
            any = true;
            if (!S->callinsts.items[c].args) {
                S->up->sema_bad_call_site(S, &S->callinsts.items[c]);
                continue;
            }
            S->callinst = &S->callinsts.items[c];
            if (!S->callinst->raises) {
                check_kernel(S, &S->defs.items[d]);
                continue;
            }
            int mark = diag_quiet_begin(), nk = S->kernels.len; /* only calls the script expects to raise */
            check_kernel(S, &S->defs.items[d]);
            if (diag_quiet_end(mark)) S->kernels.len = nk; /* Quadrants raises there, as the script expects: no entry */
        }
        S->callinst = NULL;
        return !any && !(S->defs.items[d].called && diag_error_count()); /* called: every call was refused (QD2069) */
    }
    for (int i = S->up->sema_next_instance(S, sd->entry, 0); i >= 0; i = S->up->sema_next_instance(S, sd->entry, i + 1)) {
        S->inst = i;
        S->up->sema_mark_instance_used(S, i);
        check_kernel(S, sd);
    }
    S->inst = -1;
    return false;
}

/* Entry names (kernels and instantiations) must be unique: they name symbols and structs. */
static void check_entry_names(Sema *S) {
    for (int i = 0; i < S->kernels.len; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(S->kernels.items[i].name, S->kernels.items[j].name)) {
                diag_error(S->kernels.items[i].span, QD2061, "two kernels or instantiations are both named '%s'; "
                           "name instantiations with --instantiate 'ENTRY=kernel(...)'", S->kernels.items[i].name);
                break;
            }
}

/* What py/ asks of the core (py/core.def). */
static const SemaCore core = {
#define C(name) .name = name,
#include "py/core.def"
#undef C
};

IrModule *sema_check(const AstModule *ast, Arena *arena, const FrontendOptions *fo, const SemaHooks *up) {
    Sema S = {.up = up, .core = &core, .arena = arena, .src = ast->src, .task = -1, .inst = -1, .debug = fo && fo->debug, .ad_stack_off = fo && fo->ad_stack_off, .prefix = "",
              .subgroup_width = fo ? fo->subgroup_width : 0, .max_shared_bytes = fo ? fo->max_shared_bytes : -1,
              .max_block_dim = fo ? fo->max_block_dim : 0,
              .print_to_stderr = fo && fo->print_to_stderr, .rng_local = -1, .rng_field = -1,
              .default_fp = QT_F32, .default_ip = QT_I32, .arch = fo ? fo->arch : NULL};
    S.hscope = &S.module;
    budget_init(&S.budget, fo ? &fo->limits : NULL);
    Arena *arena_ = arena;
    for (int k = 0; k < ast->body.n && !S.qd_alias; k++)
        if (ast->body.stmts[k]->kind == S_IMPORT && !strcmp(ast->body.stmts[k]->import.module, "quadrants"))
            module_import(&S, ast->body.stmts[k]);
    for (int k = 0; k < ast->body.n && !S.qd_alias; k++) { /* Taichi code brought over: say what to import */
        const Stmt *s = ast->body.stmts[k];
        const char *t = s->kind == S_HOST ? s->span.src->text + s->span.off : "";
        size_t n = !strncmp(t, "import taichi", 13) ? 13 : !strncmp(t, "from taichi", 11) ? 11 : 0;
        const char *m = s->kind == S_IMPORT && s->import.module ? s->import.module : "";
        bool taichi = !strncmp(m, "taichi", 6) && (!m[6] || m[6] == '.');
        if (taichi || (n && t[n] && strchr(" \t.\r\n", t[n]))) {
            diag_error(s->span, QD2003, "Quadrants kernels import quadrants, not taichi: write 'import quadrants as qd' "
                       "and qd.<name> where the code has its Taichi alias");
            return NULL;
        }
    }
    if (!S.qd_alias && ast->body.n) {
        diag_error(ast->body.stmts[0]->span, QD2003, "missing 'import quadrants as qd' (the qd namespace is undefined)");
        return NULL;
    }
    S.ast = ast;
    S.kernel_names = fo ? fo->kernels : NULL, S.nkernel_names = fo ? fo->nkernels : 0;
    sema_modules_begin(&S, fo, ast);
    sema_module_body(&S, &ast->body);
    /* a budget that ran out ended the evaluation: the kernels would only report what is missing */
    for (int k = 0; k < S.tests.len && budget_ok(&S.budget); k++) up->sema_param_host_function(&S, S.tests.items[k]);
    budget_report(&S.budget);
    up->sema_ad_finish(&S, false);
    up->sema_snode_finish(&S);
    up->sema_ad_finish(&S, true);
    up->sema_parse_instances(&S, fo);
    sema_check_kernel_names(&S);
    VEC(int) uncalled = {0};
    for (int d = 0; d < S.defs.len; d++)
        if (S.defs.items[d].kernel && budget_ok(&S.budget) && sema_kernel_selected(&S, &S.defs.items[d]) && check_kernels(&S, d))
            vec_push(&uncalled, d);
    for (int k = 0; k < uncalled.len; k++) { /* after the others: whether any kernel compiles decides (QD2108) */
        const SemaDef *sd = &S.defs.items[uncalled.items[k]];
        S.hscope = sd->scope; /* its annotations name things of the scope it is defined in */
        up->sema_missing_instance(&S, sd->def, sd->entry);
        S.hscope = &S.module;
    }
    vec_free(&uncalled);
    budget_report(&S.budget);
    if (budget_ok(&S.budget)) up->sema_finish_instances(&S); /* unused specs: their kernels were not checked */
    check_entry_names(&S);
    sema_check_hollow(&S); /* before the classes' warnings: a class it names gets no QD2104 */
    up->sema_finish_classes(&S);
    if (!S.kernels.len && !diag_error_count())
        diag_warning(span_make(ast->src, 0, 0), QD2102, "the module defines no kernels");
    up->sema_quant_finish(&S); /* the quantized members leave the fields */
    IrModule *m = ARENA_NEW(arena, IrModule);
    m->src = ast->src;
    m->ndarray_grads = S.ad_ndarray;
    TAKE(m->fields, m->nfields, S.fields);
    TAKE(m->storages, m->nstorages, S.storages);
    TAKE(m->kernels, m->nkernels, S.kernels);
    up->sema_free_instances(&S);
    sema_modules_end(&S);
    up->sema_snode_free(&S); /* again: a qd.root met in a kernel body makes a node */
    vec_free(&S.fields), vec_free(&S.kernels), vec_free(&S.module.b), vec_free(&S.storages);
    for (int k = 0; k < S.host_scopes.len; k++) vec_free(&S.host_scopes.items[k]->b), free(S.host_scopes.items[k]);
    for (int k = 0; k < S.objects.len; k++) vec_free(&S.objects.items[k]->attrs.b), free(S.objects.items[k]);
    vec_free(&S.objects), vec_free(&S.classes);
    for (int k = 0; k < S.helpers.len; k++) vec_free(&S.helpers.items[k].combos), vec_free(&S.helpers.items[k].rets);
    vec_free(&S.helpers), vec_free(&S.tests), vec_free(&S.ad_manual), vec_free(&S.members), vec_free(&S.fixtures);
    for (int k = 0; k < S.dispatchers.len; k++) vec_free(&S.dispatchers.items[k].impls);
    vec_free(&S.dispatchers), vec_free(&S.pyfuncs), free(S.pyfunc_index.def), free(S.pyfunc_index.scope);
    free(S.def_index.def), free(S.def_index.at), free(S.lambda_index.def), free(S.lambda_index.at);
    vec_free(&S.host_scopes), vec_free(&S.defs), vec_free(&S.lambdas), vec_free(&S.used_names), vec_free(&S.callinsts), vec_free(&S.lifted);
    vec_free(&S.promoted), vec_free(&S.params), vec_free(&S.locals), vec_free(&S.local_task), vec_free(&S.local_def), vec_free(&S.shared), vec_free(&S.tasks), vec_free(&S.loops), vec_free(&S.cps);
    if (diag_error_count()) return NULL;
    ad_module(m, arena);     /* the <kernel>_grad companions (ir/autodiff.c) */
    ad_fwd_module(m, arena); /* the <kernel>_fwd companions (ir/autodiff_fwd.c) */
    ir_sparse_module(m, arena); /* writes to sparse fields activate their cells (ir/sparse.c) */
    ir_seal(m);
    return m;
}
