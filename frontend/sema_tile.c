/* qd.simt register tiles (qdc-lang(7), "SIMT TILES"): qd.simt.Tile16x16 / qd.simt.Tile32x32 and
 * the factory quadrants.lang.simt._tile._make_tile(N, dtype). A tile is an N x N matrix held by
 * N lanes of one subgroup, lane i holding row i in N registers: a @qd.dataclass with one member
 * r: qd.types.vector(N, dtype) and @qd.func methods, as Quadrants defines it. qdc builds that
 * dataclass from its own source text below (one per (N, dtype), evaluated once per compile in a
 * scope of its own), so every method is ordinary kernel code over the subgroup primitives
 * (invocation_id, shuffle: sema_simt.c) and every backend compiles it as it compiles any qd.func.
 *
 * The proxies qd.simt.Tile16x16.zeros(dtype=) / .eye(dtype=) resolve the dtype where the kernel
 * is compiled (qd.init's default_fp when omitted) and, as Quadrants, refuse a CPU target. A tile
 * type's own attributes: T() and T.zeros() (a zero tile), T.eye() (the identity), T.SIZE.
 * Also here: a call of functools.partial(f, a, k=v) (sema_pylib.c makes the value). */
#include "sema.h"
#include "../support/diag.h"
#include <stdio.h>
#include <string.h>

struct SemaTile {
    int n;
    struct TileType { int size; QdType dt; Val type; const Stmt *eye; } items[16];
};

/* The tile's source: _n (N) and _dt (the dtype) are bound in the scope it is evaluated in. Each lane owns row
 * row_start + lane; rows and columns past the stops (clamped to the array's shape) are not
 * read or written. */
static const char tile_text[] =
    "import quadrants as qd\n"
    "\n"
    "\n"
    "@qd.dataclass\n"
    "class %s:\n"
    "    r: qd.types.vector(_n, _dt)\n"
    "\n"
    "    @qd.func\n"
    "    def _load(self, arr: qd.template(), row_start, row_stop, col_start, col_stop):\n"
    "        stop = qd.min(row_stop, arr.shape[0])\n"
    "        row = row_start + qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        if row < stop:\n"
    "            cstop = qd.min(col_stop, arr.shape[1])\n"
    "            for j in qd.static(range(_n)):\n"
    "                if col_start + j < cstop:\n"
    "                    self.r[j] = arr[row, col_start + j]\n"
    "\n"
    "    @qd.func\n"
    "    def _load3d(self, arr: qd.template(), batch, row_start, row_stop, col_start, col_stop):\n"
    "        stop = qd.min(row_stop, arr.shape[1])\n"
    "        row = row_start + qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        if row < stop:\n"
    "            cstop = qd.min(col_stop, arr.shape[2])\n"
    "            for j in qd.static(range(_n)):\n"
    "                if col_start + j < cstop:\n"
    "                    self.r[j] = arr[batch, row, col_start + j]\n"
    "\n"
    "    @qd.func\n"
    "    def _store(self, arr: qd.template(), row_start, row_stop, col_start, col_stop):\n"
    "        stop = qd.min(row_stop, arr.shape[0])\n"
    "        row = row_start + qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        if row < stop:\n"
    "            cstop = qd.min(col_stop, arr.shape[1])\n"
    "            for j in qd.static(range(_n)):\n"
    "                if col_start + j < cstop:\n"
    "                    arr[row, col_start + j] = self.r[j]\n"
    "\n"
    "    @qd.func\n"
    "    def _store3d(self, arr: qd.template(), batch, row_start, row_stop, col_start, col_stop):\n"
    "        stop = qd.min(row_stop, arr.shape[1])\n"
    "        row = row_start + qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        if row < stop:\n"
    "            cstop = qd.min(col_stop, arr.shape[2])\n"
    "            for j in qd.static(range(_n)):\n"
    "                if col_start + j < cstop:\n"
    "                    arr[batch, row, col_start + j] = self.r[j]\n"
    "\n"
    "    @qd.func\n"
    "    def eye_(self):\n"
    "        lane = qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        for j in qd.static(range(_n)):\n"
    "            self.r[j] = qd.cast(1.0 if lane == j else 0.0, _dt)\n"
    "\n"
    "    @qd.func\n"
    "    def _ger_sub(self, a, b):\n"
    "        for j in qd.static(range(_n)):\n"
    "            self.r[j] = self.r[j] - a * qd.simt.subgroup.shuffle(b, qd.u32(j))\n"
    "\n"
    "    @qd.func\n"
    "    def cholesky_(self, eps):\n"
    "        lane = qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        norm = qd.cast(0.0, _dt)\n"
    "        for k in qd.static(range(_n)):\n"
    "            d = qd.cast(0.0, _dt)\n"
    "            if lane == k:\n"
    "                d = qd.sqrt(qd.max(self.r[k] - norm, eps))\n"
    "                self.r[k] = d\n"
    "            dk = qd.simt.subgroup.shuffle(d, qd.u32(k))\n"
    "            s0 = qd.cast(0.0, _dt)\n"
    "            s1 = qd.cast(0.0, _dt)\n"
    "            for j in qd.static(range(k)):\n"
    "                mine = self.r[j]\n"
    "                lkj = qd.simt.subgroup.shuffle(mine, qd.u32(k))\n"
    "                if qd.static(j %% 2 == 0):\n"
    "                    s0 += lkj * mine\n"
    "                else:\n"
    "                    s1 += lkj * mine\n"
    "            if lane > k:\n"
    "                v = (self.r[k] - (s0 + s1)) / dk\n"
    "                self.r[k] = v\n"
    "                norm += v * v\n"
    "\n"
    "    @qd.func\n"
    "    def _get_col(self, k):\n"
    "        v = qd.cast(0.0, _dt)\n"
    "        for kk in qd.static(range(_n)):\n"
    "            if k == kk:\n"
    "                v = self.r[kk]\n"
    "        return v\n"
    "\n"
    "    @qd.func\n"
    "    def _set_col(self, k, v):\n"
    "        for kk in qd.static(range(_n)):\n"
    "            if k == kk:\n"
    "                self.r[kk] = v\n"
    "\n"
    "    @qd.func\n"
    "    def _trsm(self, L):\n"
    "        for c in range(_n):\n"
    "            dot = qd.cast(0.0, _dt)\n"
    "            for j in range(_n):\n"
    "                if c > j:\n"
    "                    lcj = qd.simt.subgroup.shuffle(L._get_col(j), qd.u32(c))\n"
    "                    dot += self._get_col(j) * lcj\n"
    "            dc = qd.simt.subgroup.shuffle(L._get_col(c), qd.u32(c))\n"
    "            self._set_col(c, (self._get_col(c) - dot) / dc)\n"
    "\n"
    "    @qd.func\n"
    "    def _resolve_vec2d(self, arr: qd.template(), row_start, row_stop, col):\n"
    "        row = row_start + qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        v = qd.cast(0.0, _dt)\n"
    "        if row < qd.min(row_stop, arr.shape[0]):\n"
    "            v = arr[row, col]\n"
    "        return v\n"
    "\n"
    "    @qd.func\n"
    "    def _resolve_vec3d(self, arr: qd.template(), batch, row_start, row_stop, col):\n"
    "        row = row_start + qd.i32(qd.simt.subgroup.invocation_id())\n"
    "        v = qd.cast(0.0, _dt)\n"
    "        if row < qd.min(row_stop, arr.shape[1]):\n"
    "            v = arr[batch, row, col]\n"
    "        return v\n"
    "\n"
    "    @qd.func\n"
    "    def solve_triangular_(self, B, lower=True):  # called as sema_tile.c's solve_triangular: B in place\n"
    "        B._trsm(self)\n"
    "\n"
    "\n"
    "@qd.func\n"
    "def _eye():\n"
    "    t = %s()\n"
    "    t.eye_()\n"
    "    return t\n";

static struct TileType *tile_of(Sema *S, Val t) {
    for (int k = 0; S->tile && t.kind == V_STRUCTTYPE && k < S->tile->n; k++)
        if (S->tile->items[k].type.strct.st == t.strct.st) return &S->tile->items[k];
    return NULL;
}

/* A Python int (SIZE). */
static Val py_int(Sema *S, int v, Span sp) { return val_int_typed(S, QT_I32, v, sp); }

/* The tile type of (size, dt), built on first use. */
static struct TileType *tile_type(Sema *S, int size, QdType dt, Span at) {
    if (!S->tile) S->tile = ARENA_NEW(S->arena, struct SemaTile);
    for (int k = 0; k < S->tile->n; k++)
        if (S->tile->items[k].size == size && S->tile->items[k].dt == dt) return &S->tile->items[k];
    if (S->tile->n == (int)ARRAY_LEN(S->tile->items)) return diag_error(at, QD2026, "more than %d distinct tile types", (int)ARRAY_LEN(S->tile->items)), NULL;
    char name[32], label[64];
    snprintf(name, sizeof name, "_Tile%dx%d", size, size);
    snprintf(label, sizeof label, "<qd.simt.Tile%dx%d(%s)>", size, size, qt_name(dt));
    int len = snprintf(NULL, 0, tile_text, name, name);
    char *text = xmalloc((size_t)len + 1);
    snprintf(text, (size_t)len + 1, tile_text, name, name);
    Source *src = source_new(label, text, (size_t)len);
    free(text);
    const char *names[] = {"_n", "_dt"};
    const Val vals[] = {py_int(S, size, at), {.kind = V_TYPE, .type = dt}};
    Scope *sc = sema_library_module(S, src, 2, names, vals, at);
    if (!sc) return NULL;
    Binding *b = scope_find(sc, name), *e = scope_find(sc, "_eye");
    if (!b || b->v.kind != V_STRUCTTYPE || !e || e->v.kind != V_FUNC) return NULL;
    struct TileType *t = &S->tile->items[S->tile->n++];
    *t = (struct TileType){size, dt, b->v, e->v.def};
    return t;
}

/* A call with no arguments of the same place (T(), _eye()). */
static Expr *bare_call(Sema *S, const Expr *call, Val fn) {
    Expr *c = ARENA_NEW(S->arena, Expr);
    *c = *call;
    c->call.fn = S->up->sema_value_expr(S, fn, call->call.fn->span);
    c->call.args.n = 0, c->call.nkw = 0;
    return c;
}

static Val make_zero(Sema *S, const Expr *call, struct TileType *t) { return sema_struct_call(S, bare_call(S, call, t->type), t->type); }
static Val make_eye(Sema *S, const Expr *call, struct TileType *t) {
    return sema_inline_call(S, bare_call(S, call, (Val){.kind = V_FUNC, .def = t->eye}), t->eye);
}

/* A dtype argument: a float type. */
static bool tile_dtype(Sema *S, const Expr *e, QdType *dt) {
    Val v = sema_eval(S, e);
    if (v.kind == V_ERR) return false;
    if (v.kind == V_TYPE && qt_is_float(v.type)) return *dt = v.type, true;
    diag_error(e->span, QD2019, "a tile's dtype must be a float type (qd.f32 or qd.f64), got %s", val_describe(v));
    return false;
}

static const Expr *kw_arg(const Expr *call, const char *name) {
    for (int k = 0; k < call->call.nkw; k++)
        if (call->call.kw[k].name && !strcmp(call->call.kw[k].name, name)) return call->call.kw[k].value;
    return NULL;
}

static int proxy_size(const char *p) {
    if (!strncmp(p, "qd.simt.Tile16x16", 17)) return 16;
    if (!strncmp(p, "qd.simt.Tile32x32", 17)) return 32;
    return 0;
}

bool sema_is_tile_call(Val f) {
    if (f.kind == V_METHOD && f.method.self->kind == V_STRUCT && !strcmp(f.method.name, "solve_triangular_")) return true;
    if (f.kind == V_METHOD) return !strcmp(f.method.name, "functools.partial");
    if (f.kind != V_NS) return false;
    if (!strcmp(f.path, "qd.simt._tile._make_tile") || !strcmp(f.path, "qd.outer")) return true;
    return proxy_size(f.path) && (!strcmp(f.path + 17, ".zeros") || !strcmp(f.path + 17, ".eye"));
}

/* functools.partial(f, a, k=v)(b, j=w): f(a, b, k=v, j=w). */
static Val partial_call(Sema *S, const Expr *call, Val p) {
    const Val *parts = p.method.self->tuple.items;
    Val fn = parts[0], args = parts[1], kws = parts[2];
    Expr *c = ARENA_NEW(S->arena, Expr);
    *c = *call;
    c->call.fn = S->up->sema_value_expr(S, fn, call->call.fn->span);
    c->call.args.n = args.tuple.n + call->call.args.n;
    c->call.args.items = ARENA_ARRAY(S->arena, Expr *, c->call.args.n + 1);
    for (int k = 0; k < args.tuple.n; k++) c->call.args.items[k] = S->up->sema_value_expr(S, args.tuple.items[k], call->call.fn->span);
    for (int k = 0; k < call->call.args.n; k++) c->call.args.items[args.tuple.n + k] = call->call.args.items[k];
    c->call.nkw = kws.dict.n + call->call.nkw;
    c->call.kw = ARENA_ARRAY(S->arena, Keyword, c->call.nkw + 1);
    for (int k = 0; k < kws.dict.n; k++)
        c->call.kw[k] = (Keyword){kws.dict.keys[k].path, S->up->sema_value_expr(S, kws.dict.vals[k], call->call.fn->span), call->call.fn->span};
    for (int k = 0; k < call->call.nkw; k++) c->call.kw[kws.dict.n + k] = call->call.kw[k];
    return sema_eval(S, c);
}

static const Stmt *method_of(const QdStruct *st, const char *name) {
    for (int k = 0; k < st->nmethods; k++)
        if (!strcmp(st->methods[k]->def.name, name)) return st->methods[k];
    return NULL;
}

/* L.solve_triangular_(B, lower=True): B._trsm(L), B updated in place (a Python method in
 * Quadrants, so B is the caller's tile, not a copy as a qd.func argument would be). */
static Val solve_triangular(Sema *S, const Expr *call, Val self) {
    struct TileType *t = NULL;
    for (int k = 0; S->tile && k < S->tile->n; k++)
        if (S->tile->items[k].type.strct.st == self.strct.st) t = &S->tile->items[k];
    if (!t) return sema_struct_method_call(S, call, self, method_of(self.strct.st, "solve_triangular_")); /* another dataclass's own */
    const Expr *be = call->call.args.n ? call->call.args.items[0] : kw_arg(call, "B");
    const Expr *le = call->call.args.n > 1 ? call->call.args.items[1] : kw_arg(call, "lower");
    if (!be || call->call.args.n > 2)
        return diag_error(call->span, QD2007, "Tile%dx%d.solve_triangular_(B, lower=True) takes the tile to solve in place", t->size, t->size), val_err();
    if (le) {
        Val l = sema_eval(S, le);
        if (l.kind == V_ERR) return l;
        if (!val_is_host_scalar(l))
            return diag_error(le->span, QD2075, "Tile%dx%d.solve_triangular_: lower must be a compile-time bool", t->size, t->size), val_err();
        if (!val_host_u64(l)) return diag_error(le->span, QD2075, "Tile%dx%d.solve_triangular_: only lower=True is supported", t->size, t->size), val_err();
    }
    Val b = sema_eval(S, be);
    if (b.kind == V_ERR) return b;
    if (b.kind != V_STRUCT || b.strct.st != self.strct.st)
        return diag_error(be->span, QD2019, "Tile%dx%d.solve_triangular_ takes a tile of the same type, got %s", t->size, t->size, val_describe(b)), val_err();
    Expr *c = ARENA_NEW(S->arena, Expr);
    *c = *call;
    c->call.args.n = 1, c->call.nkw = 0;
    c->call.args.items = ARENA_ARRAY(S->arena, Expr *, 1);
    c->call.args.items[0] = S->up->sema_value_expr(S, self, call->call.fn->span);
    return sema_struct_method_call(S, c, b, method_of(self.strct.st, "_trsm"));
}

static Val outer_call(Sema *S, const Expr *call);

Val sema_tile_call(Sema *S, const Expr *call, Val f) {
    if (f.kind == V_METHOD && f.method.self->kind == V_STRUCT) return solve_triangular(S, call, *f.method.self);
    if (f.kind == V_METHOD) return partial_call(S, call, f);
    if (!strcmp(f.path, "qd.outer")) return outer_call(S, call);
    if (!strcmp(f.path, "qd.simt._tile._make_tile")) { /* _make_tile(N, dtype=None): dtype None is qd.f32 */
        const Expr *ne = call->call.args.n ? call->call.args.items[0] : kw_arg(call, "N");
        const Expr *de = call->call.args.n > 1 ? call->call.args.items[1] : kw_arg(call, "dtype");
        if (!ne || call->call.args.n > 2)
            return diag_error(call->span, QD2007, "_make_tile(N, dtype=None) takes the tile size and an optional dtype"), val_err();
        Val n = sema_eval(S, ne);
        if (n.kind == V_ERR) return n;
        if (!val_is_host_integral(n) || val_host_i64(n) < 1 || val_host_i64(n) > 64)
            return diag_error(ne->span, QD2019, "a tile's size must be a compile-time integer from 1 to 64, got %s", val_describe(n)), val_err();
        QdType dt = QT_F32;
        if (de) {
            Val d = sema_eval(S, de);
            if (d.kind == V_ERR) return d;
            if (d.kind != V_NONE && !tile_dtype(S, de, &dt)) return val_err();
        }
        struct TileType *t = tile_type(S, (int)val_host_i64(n), dt, call->span);
        return t ? t->type : val_err();
    }
    int size = proxy_size(f.path);
    bool eye = !strcmp(f.path + 17, ".eye");
    if (call->call.args.n)
        return diag_error(call->call.args.items[0]->span, QD2007, "Tile%dx%d.%s() takes only the keyword argument dtype", size, size, eye ? "eye" : "zeros"), val_err();
    for (int k = 0; k < call->call.nkw; k++)
        if (!call->call.kw[k].name || strcmp(call->call.kw[k].name, "dtype"))
            return diag_error(call->call.kw[k].span, QD2007, "Tile%dx%d.%s() got an unexpected keyword argument '%s'", size, size,
                              eye ? "eye" : "zeros", call->call.kw[k].name ? call->call.kw[k].name : "**"), val_err();
    if (S->arch && (!strcmp(S->arch, "x64") || !strcmp(S->arch, "arm64") || !strcmp(S->arch, "cpu")))
        return diag_error(call->call.fn->span, QD2075, "Tile%dx%d requires a GPU backend (cuda, metal, vulkan, amdgpu). Current arch is %s.",
                          size, size, S->arch), val_err();
    QdType dt = S->default_fp;
    const Expr *de = kw_arg(call, "dtype");
    if (de) {
        Val d = sema_eval(S, de);
        if (d.kind == V_ERR) return d;
        if (d.kind != V_NONE && !tile_dtype(S, de, &dt)) return val_err();
    }
    struct TileType *t = tile_type(S, size, dt, call->span);
    if (!t) return val_err();
    return eye ? make_eye(S, call, t) : make_zero(S, call, t);
}

/* T.zeros, T.eye, T.SIZE of a tile type; qd.simt.Tile16x16.SIZE. False: not a tile's. */
bool sema_tile_attr(Sema *S, Val o, const Expr *e, Val *out) {
    const char *a = e->attr.name;
    if (o.kind == V_NS && proxy_size(o.path) && !o.path[17]) {
        if (!strcmp(a, "SIZE")) return *out = py_int(S, proxy_size(o.path), e->span), true;
        if (strcmp(a, "zeros") && strcmp(a, "eye"))
            return diag_error(e->span, QD2019, "'Tile%dx%d' has no attribute '%s' (it has zeros, eye and SIZE)", proxy_size(o.path),
                              proxy_size(o.path), a), *out = val_err(), true;
        return false;
    }
    struct TileType *t = tile_of(S, o);
    if (!t) return false;
    if (!strcmp(a, "SIZE")) return *out = py_int(S, t->size, e->span), true;
    if (!strcmp(a, "zeros")) return *out = t->type, true;
    if (!strcmp(a, "eye")) return *out = (Val){.kind = V_FUNC, .def = t->eye}, true;
    return diag_error(e->span, QD2019, "'Tile%dx%d' has no attribute '%s'", t->size, t->size, a), *out = val_err(), true;
}

/* ---- slice syntax: t[:] = arr[r0:r1, c0:c1], arr[...] = t, t -= qd.outer(a, b) ----
 * As Quadrants, once a tile type exists, a field, ndarray or SharedArray subscripted with
 * slices in one of four patterns is a deferred proxy (not a value): arr[r0:r1, c0:c1] and
 * arr[b, r0:r1, c0:c1] (a tile's rows and columns), arr[r0:r1, col] and arr[b, r0:r1, col] (one
 * value per lane, 0 past the rows); qd.outer(a, b) is one too. A proxy may be bound to a name;
 * it is consumed only by the three statements above. Each is a V_METHOD named after Quadrants'
 * class, its self the tuple of its parts (array, batch or None, bounds). */

#define SLICE_PROXY "qd.simt._tile._TileSliceProxy"
#define VEC_PROXY "qd.simt._tile._VecSliceProxy"
#define OUTER_PROXY "qd.simt._tile._OuterProduct"

static Val proxy(Sema *S, const char *kind, const Val *parts, int n) {
    Val *items = ARENA_ARRAY(S->arena, Val, n), *self = ARENA_NEW(S->arena, Val);
    memcpy(items, parts, sizeof(Val) * (size_t)n);
    *self = (Val){.kind = V_TUPLE, .tuple = {items, n}};
    return (Val){.kind = V_METHOD, .method = {self, kind}};
}

static bool is_proxy(Val v, const char *kind) { return v.kind == V_METHOD && !strcmp(v.method.name, kind); }

/* A bound's value, once (an rvalue), or V_ERR after an error. */
static Val bound(Sema *S, const Expr *e) {
    Val v = sema_eval(S, e);
    if (v.kind == V_ERR) return v;
    IrExpr *r = sema_rvalue(S, v, e->span);
    return r ? val_expr(r) : val_err();
}

bool sema_tile_slice(Sema *S, Val arr, const Expr *e, Val *out) {
    if (!S->tile || !S->tile->n) return false;
    const Expr *ix = e->sub.index;
    const Expr *const *items = ix->kind == E_TUPLE ? (const Expr *const *)ix->list.items : &ix;
    int n = ix->kind == E_TUPLE ? ix->list.n : 1;
    char pat[5] = {0};
    if (n > 3) return false;
    for (int k = 0; k < n; k++) pat[k] = items[k]->kind == E_SLICE ? 's' : 'i';
    bool tile2 = !strcmp(pat, "ss"), tile3 = !strcmp(pat, "iss"), vec2 = !strcmp(pat, "si"), vec3 = !strcmp(pat, "isi");
    if (!tile2 && !tile3 && !vec2 && !vec3) return false;
    int base = tile3 || vec3;
    for (int k = 0; k < n; k++) /* Quadrants' validate_subscript_index first */
        for (int h = 0; h < 2; h++) {
            const Expr *p = items[k]->kind == E_SLICE ? (h ? items[k]->slice.hi : items[k]->slice.lo) : h ? NULL : items[k];
            Val v = p ? sema_eval(S, p) : (Val){.kind = V_NONE};
            if (val_is_host_scalar(v) && qt_is_signed(val_host_type(v)) && val_host_i64(v) < 0)
                return diag_error(p->span, QD2171, "Negative indices are not supported in Quadrants kernels."), *out = val_err(), true;
        }
    for (int k = base; k < n; k++)
        if (items[k]->kind == E_SLICE && (!items[k]->slice.lo || !items[k]->slice.hi || items[k]->slice.step))
            return diag_error(items[k]->span, QD2011, "Tile %s slice: both start and stop indices are required", k == base ? "row" : "col"),
                   *out = val_err(), true;
    Val parts[6] = {arr, {.kind = V_NONE}};
    if (base && (parts[1] = bound(S, items[0])).kind == V_ERR) return *out = val_err(), true;
    int np = 2;
    for (int k = base; k < n; k++) {
        const Expr *lo = items[k]->kind == E_SLICE ? items[k]->slice.lo : items[k];
        if ((parts[np++] = bound(S, lo)).kind == V_ERR) return *out = val_err(), true;
        if (items[k]->kind == E_SLICE && (parts[np++] = bound(S, items[k]->slice.hi)).kind == V_ERR) return *out = val_err(), true;
    }
    *out = proxy(S, tile2 || tile3 ? SLICE_PROXY : VEC_PROXY, parts, np);
    return true;
}

/* self.NAME(args) of a tile, the arguments given as values. */
static Val tile_method(Sema *S, Span sp, Val self, const char *name, const Val *args, int n) {
    Expr *c = ARENA_NEW(S->arena, Expr);
    *c = (Expr){.kind = E_CALL, .span = sp};
    c->call.fn = S->up->sema_value_expr(S, (Val){.kind = V_NONE}, sp);
    c->call.args.n = n;
    c->call.args.items = ARENA_ARRAY(S->arena, Expr *, n + 1);
    for (int k = 0; k < n; k++) c->call.args.items[k] = S->up->sema_value_expr(S, args[k], sp);
    return sema_struct_method_call(S, c, self, method_of(self.strct.st, name));
}

/* Python's class of a value Quadrants would see, for its TypeError messages. */
static const char *py_class(Val v) {
    if (v.kind == V_METHOD && !strncmp(v.method.name, "qd.simt._tile.", 14)) return v.method.name + 14;
    if (v.kind == V_STRUCT) return "Struct";
    return "Expr";
}

static const char *aug_name(int op) {
    switch (op) {
    case T_PLUS: return "Add";
    case T_MINUS: return "Sub";
    case T_STAR: return "Mult";
    case T_SLASH: return "Div";
    case T_FDIV: return "FloorDiv";
    case T_PERCENT: return "Mod";
    case T_POW: return "Pow";
    case T_SHL: return "LShift";
    case T_SHR: return "RShift";
    case T_PIPE: return "BitOr";
    case T_CARET: return "BitXor";
    case T_AMP: return "BitAnd";
    default: return "MatMult";
    }
}

/* One operand of an outer product: a vec slice proxy read by each lane, else the value. */
static Val outer_operand(Sema *S, Span sp, Val tile, Val v) {
    if (!is_proxy(v, VEC_PROXY)) return v;
    const Val *p = v.method.self->tuple.items;
    if (p[1].kind == V_NONE) return tile_method(S, sp, tile, "_resolve_vec2d", (Val[]){p[0], p[2], p[3], p[4]}, 4);
    return tile_method(S, sp, tile, "_resolve_vec3d", (Val[]){p[0], p[1], p[2], p[3], p[4]}, 5);
}

static struct TileType *tile_value(Sema *S, Val v) {
    for (int k = 0; v.kind == V_STRUCT && S->tile && k < S->tile->n; k++)
        if (S->tile->items[k].type.strct.st == v.strct.st) return &S->tile->items[k];
    return NULL;
}

static bool full_slice(const Expr *ix) { return ix->kind == E_SLICE && !ix->slice.lo && !ix->slice.hi && !ix->slice.step; }

/* A name or a dotted name: evaluating it twice emits nothing. */
/* A tile's load from or store to a slice proxy (array, [page,] r0, r1, c0, c1): the 2-d method when
 * the proxy has no page index, the 3-d one otherwise. */
static void slice_transfer(Sema *S, Span sp, Val tile, Val proxy, const char *m2, const char *m3) {
    const Val *p = proxy.method.self->tuple.items;
    if (p[1].kind == V_NONE) tile_method(S, sp, tile, m2, (Val[]){p[0], p[2], p[3], p[4], p[5]}, 5);
    else tile_method(S, sp, tile, m3, (Val[]){p[0], p[1], p[2], p[3], p[4], p[5]}, 6);
}

static bool simple(const Expr *e) { return e->kind == E_NAME || (e->kind == E_ATTR && simple(e->attr.obj)); }

/* The tile statements; false for any other statement (checked as before). */
bool sema_tile_stmt(Sema *S, const Stmt *s) {
    if (!S->tile || !S->tile->n || !S->cur) return false;
    if (s->kind == S_AUGASSIGN) {
        if (!simple(s->aug.target)) return false;
        int mark = diag_quiet_begin();
        Val t = sema_eval(S, s->aug.target);
        diag_quiet_end(mark);
        struct TileType *tt = tile_value(S, t);
        if (!tt) return false;
        Val v = sema_eval(S, s->aug.value);
        if (v.kind == V_ERR) return true;
        if (!is_proxy(v, OUTER_PROXY))
            return diag_error(s->aug.value->span, QD2075, "Tile%dx%d: unsupported augmented assignment with <class '%s'>", tt->size, tt->size, py_class(v)), true;
        if (s->aug.op != T_MINUS)
            return diag_error(s->span, QD2075, "Tile%dx%d: unsupported augmented assignment op '%s' with outer product", tt->size, tt->size, aug_name(s->aug.op)), true;
        const Val *ab = v.method.self->tuple.items;
        Val a = outer_operand(S, s->span, t, ab[0]);
        Val b = ab[2].kind == V_NONE ? a : outer_operand(S, s->span, t, ab[1]); /* qd.outer(v, v): read once */
        if (a.kind != V_ERR && b.kind != V_ERR) tile_method(S, s->span, t, "_ger_sub", (Val[]){a, b}, 2);
        return true;
    }
    if (s->kind != S_ASSIGN || s->assign.targets.n != 1 || s->assign.targets.items[0]->kind != E_SUBSCRIPT) return false;
    const Expr *target = s->assign.targets.items[0];
    if (!simple(target->sub.obj)) return false;
    int mark = diag_quiet_begin();
    Val o = sema_eval(S, target->sub.obj);
    diag_quiet_end(mark);
    struct TileType *tt = tile_value(S, o);
    if (tt && full_slice(target->sub.index)) { /* t[:] = arr[...]: a load */
        Val v = sema_eval(S, s->assign.value);
        if (v.kind == V_ERR) return true;
        if (!is_proxy(v, SLICE_PROXY))
            return diag_error(s->assign.value->span, QD2075, "Tile[:] can only be assigned from an array slice, got <class '%s'>", py_class(v)), true;
        slice_transfer(S, s->span, o, v, "_load", "_load3d");
        return true;
    }
    if (o.kind != V_FIELD && o.kind != V_NDARRAY && o.kind != V_SHARED) return false;
    const Expr *ix = target->sub.index;
    bool sliced = ix->kind == E_SLICE;
    for (int k = 0; ix->kind == E_TUPLE && k < ix->list.n; k++) sliced |= ix->list.items[k]->kind == E_SLICE;
    if (!sliced) return false;
    Val dst = sema_eval(S, target); /* the proxy (or the slice's error) */
    if (dst.kind == V_ERR) return true;
    if (!is_proxy(dst, SLICE_PROXY)) return false;
    Val v = sema_eval(S, s->assign.value);
    if (v.kind == V_ERR) return true;
    if (!tile_value(S, v))
        return diag_error(s->assign.value->span, QD2075, "an array slice (arr[r0:r1, c0:c1]) can only be assigned a tile, got <class '%s'>", py_class(v)), true;
    slice_transfer(S, s->span, v, dst, "_store", "_store3d");
    return true;
}

/* qd.outer(a, b): the deferred product (its third part: b is the same name as a). */
static Val outer_call(Sema *S, const Expr *call) {
    if (call->call.args.n != 2 || call->call.nkw)
        return diag_error(call->span, QD2007, "qd.outer(a, b) takes two arguments"), val_err();
    const Expr *ae = call->call.args.items[0], *be = call->call.args.items[1];
    Val a = sema_eval(S, ae);
    if (a.kind == V_ERR) return a;
    bool same = ae->kind == E_NAME && be->kind == E_NAME && !strcmp(ae->name, be->name);
    Val b = same ? a : sema_eval(S, be);
    if (b.kind == V_ERR) return b;
    return proxy(S, OUTER_PROXY, (Val[]){a, b, same ? (Val){.kind = V_NONE} : (Val){.kind = V_STR, .path = "distinct"}}, 3);
}
