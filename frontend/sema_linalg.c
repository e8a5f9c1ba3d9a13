/* Quadrants' small dense linear algebra, usable in kernels: qd.sym_eig, qd.svd,
 * qd.polar_decompose, qd.solve and qd.eig (2x2), expanded into straight-line scalar IR (every branch a select,
 * every reused value a local) so each backend sees plain arithmetic.
 *
 * sym_eig: cyclic Jacobi (Golub & Van Loan 8.5) with a fixed number of sweeps, eigenvalues
 * sorted ascending, eigenvectors in the columns (as Quadrants). svd: one-sided (Hestenes) Jacobi
 * on the columns of A, which never forms A^T A (so small singular values keep their precision);
 * the columns are sorted by norm, V is made a rotation, U is built from the columns by
 * Gram-Schmidt and a cross product (3x3: a rotation, the last singular value carries det A's
 * sign, as Quadrants' Sifakis SVD; 2x2: S >= 0 and det U = sign(det A), as Quadrants' 2x2).
 * polar_decompose: R = U V^T, P = V S V^T. solve: Gaussian elimination with partial pivoting. */
#include "sema.h"
#include <string.h>

typedef struct { Sema *S; QdType t; Span sp; } La;

static IrExpr *k_(La *L, double v) { return irb_float(L->S->arena, L->t, v, L->sp); }
static IrExpr *op(La *L, IrBinOp o, IrExpr *a, IrExpr *b) { return sema_binary(L->S, o, a, b, L->sp); }
static IrExpr *add(La *L, IrExpr *a, IrExpr *b) { return op(L, IR_ADD, a, b); }
static IrExpr *sub(La *L, IrExpr *a, IrExpr *b) { return op(L, IR_SUB, a, b); }
static IrExpr *mul(La *L, IrExpr *a, IrExpr *b) { return op(L, IR_MUL, a, b); }
static IrExpr *dv(La *L, IrExpr *a, IrExpr *b) { return op(L, IR_DIV, a, b); }
static IrExpr *fabs_(La *L, IrExpr *a) { return irb_math(L->S->arena, IR_ABS, a, L->sp); }
static IrExpr *sqrt_(La *L, IrExpr *a) { return irb_math(L->S->arena, IR_SQRT, a, L->sp); }
static IrExpr *sel(La *L, IrExpr *c, IrExpr *a, IrExpr *b) { return irb_select(L->S->arena, c, a, b, L->sp); }

/* A value used more than once is computed once, into a local. */
static IrExpr *once(La *L, IrExpr *e) {
    if (e->kind == IR_CONST || e->kind == IR_LOCAL) return e;
    int l = sema_new_local(L->S, "$la", e->type);
    IrStmt *st = sema_stmt_new(L->S, IR_ASSIGN, L->sp);
    st->assign.local = l, st->assign.value = e;
    sema_emit(L->S, st);
    return sema_local(L->S, l, L->sp);
}

/* The rotation (c, s, t = s / c) that zeroes the off-diagonal entry apq of the symmetric 2x2
 * [[app, apq], [apq, aqq]] by J^T A J, J = [[c, s], [-s, c]]: t = sgn(tau) 2 apq / (|tau| +
 * sqrt(tau^2 + 4 apq^2)), tau = aqq - app, the smaller root (|angle| <= pi/4); apq == 0: none. */
static void rotation(La *L, IrExpr *app, IrExpr *aqq, IrExpr *apq, IrExpr **c, IrExpr **s, IrExpr **t) {
    IrExpr *tau = once(L, sub(L, aqq, app)), *two_apq = once(L, mul(L, k_(L, 2), apq));
    IrExpr *root = sqrt_(L, add(L, mul(L, tau, tau), mul(L, two_apq, two_apq)));
    IrExpr *none = once(L, op(L, IR_EQ, apq, k_(L, 0))), *den = sel(L, none, k_(L, 1), add(L, fabs_(L, tau), root));
    IrExpr *sg = sel(L, op(L, IR_LT, tau, k_(L, 0)), k_(L, -1), k_(L, 1));
    *t = once(L, sel(L, none, k_(L, 0), dv(L, mul(L, sg, two_apq), den)));
    *c = once(L, dv(L, k_(L, 1), sqrt_(L, add(L, k_(L, 1), mul(L, *t, *t)))));
    *s = once(L, mul(L, *t, *c));
}

/* Columns p and q of the n x n row-major m: (c m_p - s m_q, s m_p + c m_q). */
static void rotate_cols(La *L, IrExpr **m, int n, int p, int q, IrExpr *c, IrExpr *s) {
    for (int r = 0; r < n; r++) {
        IrExpr *x = m[r * n + p], *y = m[r * n + q];
        m[r * n + p] = once(L, sub(L, mul(L, c, x), mul(L, s, y)));
        m[r * n + q] = once(L, add(L, mul(L, s, x), mul(L, c, y)));
    }
}

/* Swaps columns i and j of the n x n m when cond holds. */
static void cond_swap(La *L, IrExpr *cond, IrExpr **m, int n, int i, int j) {
    for (int r = 0; r < n; r++) {
        IrExpr *x = m[r * n + i], *y = m[r * n + j];
        m[r * n + i] = once(L, sel(L, cond, y, x)), m[r * n + j] = once(L, sel(L, cond, x, y));
    }
}

static void identity(La *L, IrExpr **m, int n) {
    for (int k = 0; k < n * n; k++) m[k] = k_(L, k % (n + 1) == 0 ? 1 : 0);
}

/* Sorts key[0..n) (ascending, or descending) with the columns of m1 and m2 (when not NULL),
 * by a bubble-sort network of compare-and-swap selects. */
static void sort_cols(La *L, IrExpr **key, int n, bool ascending, IrExpr **m1, IrExpr **m2) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j + 1 < n - i; j++) {
            IrExpr *cond = once(L, op(L, ascending ? IR_GT : IR_LT, key[j], key[j + 1])), *a = key[j], *b = key[j + 1];
            key[j] = once(L, sel(L, cond, b, a)), key[j + 1] = once(L, sel(L, cond, a, b));
            cond_swap(L, cond, m1, n, j, j + 1);
            if (m2) cond_swap(L, cond, m2, n, j, j + 1);
        }
}

static int sweeps(La *L, int n) { return n == 2 ? 1 : n > 3 ? 12 : L->t == QT_F64 ? 8 : 6; }

/* a (symmetric, upper triangle read) -> eigenvalues d (ascending), eigenvectors q (columns). */
static void sym_eig(La *L, IrExpr **a, int n, IrExpr **d, IrExpr **q) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) a[i * n + j] = a[j * n + i];
    identity(L, q, n);
    for (int sw = 0; sw < sweeps(L, n); sw++)
        for (int p = 0; p < n; p++)
            for (int r = p + 1; r < n; r++) {
                IrExpr *c, *s, *t, *apq = a[p * n + r];
                rotation(L, a[p * n + p], a[r * n + r], apq, &c, &s, &t);
                for (int k = 0; k < n; k++) {
                    if (k == p || k == r) continue;
                    IrExpr *x = a[k * n + p], *y = a[k * n + r];
                    a[k * n + p] = a[p * n + k] = once(L, sub(L, mul(L, c, x), mul(L, s, y)));
                    a[k * n + r] = a[r * n + k] = once(L, add(L, mul(L, s, x), mul(L, c, y)));
                }
                a[p * n + p] = once(L, sub(L, a[p * n + p], mul(L, t, apq)));
                a[r * n + r] = once(L, add(L, a[r * n + r], mul(L, t, apq)));
                a[p * n + r] = a[r * n + p] = k_(L, 0);
                rotate_cols(L, q, n, p, r, c, s);
            }
    for (int i = 0; i < n; i++) d[i] = a[i * n + i];
    sort_cols(L, d, n, true, q, NULL);
}

static IrExpr *dot_cols(La *L, IrExpr **x, int i, IrExpr **y, int j, int n) {
    IrExpr *r = mul(L, x[i], y[j]);
    for (int k = 1; k < n; k++) r = add(L, r, mul(L, x[k * n + i], y[k * n + j]));
    return once(L, r);
}

static IrExpr *det3(La *L, IrExpr **m) {
    IrExpr *r = NULL;
    for (int j = 0; j < 3; j++) {
        IrExpr *minor = sub(L, mul(L, m[3 + (j + 1) % 3], m[6 + (j + 2) % 3]), mul(L, m[3 + (j + 2) % 3], m[6 + (j + 1) % 3]));
        r = r ? add(L, r, mul(L, m[j], minor)) : mul(L, m[j], minor);
    }
    return once(L, r);
}

/* Column j of u := v / |v| (v an n-vector), or fallback (a unit n-vector) when v is zero. */
static void unit_col(La *L, IrExpr **u, int n, int j, IrExpr **v, IrExpr **fallback) {
    IrExpr *l2 = mul(L, v[0], v[0]);
    for (int r = 1; r < n; r++) l2 = add(L, l2, mul(L, v[r], v[r]));
    IrExpr *len = once(L, sqrt_(L, l2));
    IrExpr *tiny = once(L, op(L, IR_LE, len, k_(L, L->t == QT_F64 ? 1e-300 : 1e-35)));
    IrExpr *inv = once(L, dv(L, k_(L, 1), sel(L, tiny, k_(L, 1), len)));
    for (int r = 0; r < n; r++) u[r * n + j] = once(L, sel(L, tiny, fallback[r], mul(L, v[r], inv)));
}

/* a -> u, sigma (diagonal values), v with a = u diag(sigma) v^T. */
static void svd(La *L, IrExpr **a, int n, IrExpr **u, IrExpr **sig, IrExpr **v) {
    IrExpr *w[9];
    memcpy(w, a, sizeof(IrExpr *) * (size_t)(n * n));
    identity(L, v, n);
    for (int sw = 0; sw < (n == 2 ? 2 : sweeps(L, n)); sw++)
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                IrExpr *c, *s, *t;
                rotation(L, dot_cols(L, w, p, w, p, n), dot_cols(L, w, q, w, q, n), dot_cols(L, w, p, w, q, n), &c, &s, &t);
                rotate_cols(L, w, n, p, q, c, s);
                rotate_cols(L, v, n, p, q, c, s);
            }
    IrExpr *norm2[3];
    for (int i = 0; i < n; i++) norm2[i] = dot_cols(L, w, i, w, i, n);
    sort_cols(L, norm2, n, false, w, v);
    /* V a rotation: flip its last column (and W's) when det V < 0 */
    IrExpr *dV = n == 2 ? once(L, sub(L, mul(L, v[0], v[3]), mul(L, v[1], v[2]))) : det3(L, v);
    IrExpr *flip = once(L, sel(L, op(L, IR_LT, dV, k_(L, 0)), k_(L, -1), k_(L, 1)));
    for (int r = 0; r < n; r++) v[r * n + n - 1] = once(L, mul(L, flip, v[r * n + n - 1])), w[r * n + n - 1] = once(L, mul(L, flip, w[r * n + n - 1]));
    IrExpr *col[3], *e0[3] = {k_(L, 1), k_(L, 0), k_(L, 0)};
    for (int r = 0; r < n; r++) col[r] = w[r * n];
    unit_col(L, u, n, 0, col, e0);
    if (n == 2) { /* u1 = u0 rotated by +90 degrees; sigma1 >= 0 flips it (det U = sign det A) */
        u[1] = once(L, sub(L, k_(L, 0), u[2])), u[3] = u[0];
        IrExpr *s1 = dot_cols(L, u, 1, w, 1, 2), *neg = once(L, op(L, IR_LT, s1, k_(L, 0)));
        u[1] = once(L, sel(L, neg, u[2], u[1])), u[3] = once(L, sel(L, neg, sub(L, k_(L, 0), u[0]), u[3]));
        sig[0] = dot_cols(L, u, 0, w, 0, 2), sig[1] = once(L, fabs_(L, s1));
        return;
    }
    /* u1 = the part of w1 orthogonal to u0, or any unit vector orthogonal to u0 */
    IrExpr *pr = dot_cols(L, u, 0, w, 1, 3), *g[3], *f[3];
    for (int r = 0; r < 3; r++) g[r] = once(L, sub(L, w[r * 3 + 1], mul(L, pr, u[r * 3])));
    IrExpr *use_x = once(L, op(L, IR_LT, fabs_(L, u[0]), k_(L, 0.9)));
    /* u0 x e0 = (0, u0z, -u0y); u0 x e1 = (-u0z, 0, u0x) */
    f[0] = sel(L, use_x, k_(L, 0), sub(L, k_(L, 0), u[6])), f[1] = sel(L, use_x, u[6], k_(L, 0));
    f[2] = sel(L, use_x, sub(L, k_(L, 0), u[3]), u[0]);
    IrExpr *fl = once(L, dv(L, k_(L, 1), sqrt_(L, add(L, add(L, mul(L, f[0], f[0]), mul(L, f[1], f[1])), mul(L, f[2], f[2])))));
    for (int r = 0; r < 3; r++) f[r] = once(L, mul(L, f[r], fl));
    unit_col(L, u, 3, 1, g, f);
    /* u2 = u0 x u1 */
    for (int r = 0; r < 3; r++) {
        int i = (r + 1) % 3, j = (r + 2) % 3;
        u[r * 3 + 2] = once(L, sub(L, mul(L, u[i * 3], u[j * 3 + 1]), mul(L, u[j * 3], u[i * 3 + 1])));
    }
    for (int i = 0; i < 3; i++) sig[i] = dot_cols(L, u, i, w, i, 3);
}

/* Ax = b by Gaussian elimination with partial pivoting (the first largest |pivot| wins). */
static void solve(La *L, IrExpr **a, IrExpr **b, int n, IrExpr **x) {
    int m = n + 1;
    IrExpr *ab[12];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) ab[i * m + j] = a[i * n + j];
        ab[i * m + n] = b[i];
    }
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) { /* rows i and j swap when row j's pivot is larger */
            IrExpr *sw = once(L, op(L, IR_GT, fabs_(L, ab[j * m + i]), fabs_(L, ab[i * m + i])));
            for (int k = i; k < m; k++) {
                IrExpr *p = ab[i * m + k], *q = ab[j * m + k];
                ab[i * m + k] = once(L, sel(L, sw, q, p)), ab[j * m + k] = once(L, sel(L, sw, p, q));
            }
        }
        for (int j = i + 1; j < n; j++) {
            IrExpr *f = once(L, dv(L, ab[j * m + i], ab[i * m + i]));
            for (int k = i + 1; k < m; k++) ab[j * m + k] = once(L, sub(L, ab[j * m + k], mul(L, ab[i * m + k], f)));
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        IrExpr *r = ab[i * m + n];
        for (int k = i + 1; k < n; k++) r = sub(L, r, mul(L, ab[i * m + k], x[k]));
        x[i] = once(L, dv(L, r, ab[i * m + i]));
    }
}

/* Quadrants' 2x2 eig: eigenvalues as rows (re, im), l1 with the + root; eigenvector k (a column
 * of 4: re, im of each entry) from the first column of A - l_other I, normalized; real distinct
 * roots when tr^2 - 4 det > 0, else a conjugate pair. */
static void eig2(La *L, IrExpr **a, IrExpr **val, IrExpr **vec) {
    IrExpr *tr = once(L, add(L, a[0], a[3])), *det = sub(L, mul(L, a[0], a[3]), mul(L, a[1], a[2]));
    IrExpr *gap = once(L, sub(L, mul(L, tr, tr), mul(L, k_(L, 4), det))), *root = once(L, sqrt_(L, fabs_(L, gap)));
    IrExpr *real = once(L, op(L, IR_GT, gap, k_(L, 0))), *h = k_(L, 0.5);
    IrExpr *re_part = sel(L, real, root, k_(L, 0)), *im = once(L, mul(L, sel(L, real, k_(L, 0), root), h));
    IrExpr *re1 = once(L, mul(L, add(L, tr, re_part), h)), *re2 = once(L, mul(L, sub(L, tr, re_part), h));
    val[0] = re1, val[1] = im, val[2] = re2, val[3] = once(L, sub(L, k_(L, 0), im));
    /* A = l1 I (a real double root): Quadrants' fixed basis */
    IrExpr *scalar = op(L, IR_LAND, op(L, IR_LAND, op(L, IR_EQ, sub(L, a[0], re1), k_(L, 0)), op(L, IR_EQ, a[1], k_(L, 0))),
                        op(L, IR_LAND, op(L, IR_EQ, a[2], k_(L, 0)), op(L, IR_EQ, sub(L, a[3], re1), k_(L, 0))));
    scalar = once(L, op(L, IR_LAND, real, scalar));
    IrExpr *re[2] = {re2, re1}, *imk[2] = {val[3], im};
    for (int c = 0; c < 2; c++) {
        IrExpr *v[4] = {once(L, sub(L, a[0], re[c])), once(L, sel(L, real, k_(L, 0), sub(L, k_(L, 0), imk[c]))), a[2], k_(L, 0)};
        IrExpr *inv = once(L, dv(L, k_(L, 1), sqrt_(L, add(L, add(L, mul(L, v[0], v[0]), mul(L, v[1], v[1])), mul(L, v[2], v[2])))));
        for (int r = 0; r < 4; r++) {
            IrExpr *fixed = k_(L, (c == 0 && r == 2) || (c == 1 && r == 0) ? 1 : 0);
            vec[r * 2 + c] = once(L, sel(L, scalar, fixed, mul(L, v[r], inv)));
        }
    }
}

/* ---- the calls ---- */

static const char *const fns[] = {"qd.sym_eig", "qd.svd", "qd.polar_decompose", "qd.solve", "qd.eig", "qd.make_spd"};

bool sema_linalg_path(const char *p) {
    for (size_t k = 0; k < ARRAY_LEN(fns); k++)
        if (!strcmp(p, fns[k])) return true;
    return false;
}

static Val mat_val(Sema *S, IrExpr **m, int n, int cols) {
    Val r = vec_make(S, n, cols);
    for (int k = 0; k < (cols ? n * cols : n); k++) r.vec.c[k] = val_expr(m[k]);
    return r;
}

static Val tuple(Sema *S, Val a, Val b, const Val *c) {
    Val *items = ARENA_ARRAY(S->arena, Val, 3);
    items[0] = a, items[1] = b;
    if (c) items[2] = *c;
    return (Val){.kind = V_TUPLE, .tuple = {items, c ? 3 : 2}};
}

/* The n x n (or n-vector) components of v as dt, each evaluated once. */
static bool operand(La *L, Val v, const char *p, bool matrix, const Expr *at, IrExpr **out) {
    Sema *S = L->S;
    if (v.kind == V_ERR) return false;
    if (v.kind != V_VEC || (matrix ? v.vec.m == 0 : v.vec.m != 0))
        return diag_error(at->span, QD2040, "'%s' needs a %s, got %s", p, matrix ? "square matrix" : "vector", val_describe(v)), false;
    for (int k = 0; k < vec_len(v); k++) {
        IrExpr *e = sema_rvalue(S, v.vec.c[k], at->span);
        if (!e) return false;
        out[k] = once(L, irb_cast(S->arena, e, L->t));
    }
    return true;
}

Val sema_linalg_call(Sema *S, const Expr *call, const char *p) {
    bool is_solve = !strcmp(p, "qd.solve");
    int nargs = call->call.args.n, want = is_solve ? 2 : 1;
    const Expr *dt_e = nargs > want ? call->call.args.items[want] : NULL;
    for (int k = 0; k < call->call.nkw; k++) {
        if (!strcmp(call->call.kw[k].name, "dt") && !dt_e) dt_e = call->call.kw[k].value;
        else return diag_error(call->call.kw[k].value->span, QD2007, "'%s' has no keyword argument '%s'", p, call->call.kw[k].name), val_err();
    }
    if (nargs < want || nargs > want + 1)
        return diag_error(call->span, QD2007, "'%s' takes %s and an optional dt, got %d argument%s", p, is_solve ? "A, b" : "A", nargs, nargs == 1 ? "" : "s"), val_err();
    La L = {S, S->default_fp, call->span};
    if (dt_e) {
        IrStmtVec *cur = S->cur;
        S->cur = NULL;
        Val t = sema_eval(S, dt_e);
        S->cur = cur;
        if (t.kind == V_ERR) return t;
        if (t.kind != V_TYPE || !qt_is_float(t.type))
            return diag_error(dt_e->span, QD2005, "'%s' needs a float dt such as qd.f32 or qd.f64, got %s", p,
                              t.kind == V_TYPE ? qt_name(t.type) : val_describe(t)), val_err();
        L.t = t.type;
    }
    if (!S->cur) return diag_error(call->span, QD2004, "'%s' computes at run time: call it inside a kernel or qd.func", p), val_err();
    const Expr *ae = call->call.args.items[0];
    Val av = sema_eval(S, ae);
    bool is_eig = !strcmp(p, "qd.eig"), is_spd = !strcmp(p, "qd.make_spd"), is_sym = is_spd || !strcmp(p, "qd.sym_eig");
    if (av.kind == V_VEC && av.vec.m && (av.vec.n != av.vec.m || av.vec.n < 2 || av.vec.n > (is_sym ? 6 : is_eig ? 2 : 3)))
        return diag_error(ae->span, QD2043, "'%s' is supported for %s matrices in qdc, got a %dx%d matrix%s", p,
                          is_sym ? "2x2 to 6x6 square" : is_eig ? "2x2" : "2x2 and 3x3", av.vec.n, av.vec.m,
                          is_sym && av.vec.n > 6 ? " (Symmetric eigen solver currently supports sizes up to 6\u00d76.)"
                          : is_sym ? "" : !strcmp(p, "qd.polar_decompose") ? " (Polar decomposition only supports 2\u00d72 and 3\u00d73 matrices.)" : ""), val_err();
    IrExpr *a[36], *x[36], *y[36], *z[36];
    if (!operand(&L, av, p, true, ae, a)) return val_err();
    int n = av.vec.n;
    if (is_solve) {
        Val bv = sema_eval(S, call->call.args.items[1]);
        if (bv.kind == V_VEC && !bv.vec.m && bv.vec.n != n)
            return diag_error(call->call.args.items[1]->span, QD2040, "'%s' needs a %d-vector b for a %dx%d matrix, got a %d-vector", p, n, n, n, bv.vec.n), val_err();
        if (!operand(&L, bv, p, false, call->call.args.items[1], y)) return val_err();
        solve(&L, a, y, n, x);
        return mat_val(S, x, n, 0);
    }
    if (is_eig) {
        eig2(&L, a, x, y);
        return tuple(S, mat_val(S, x, 2, 2), mat_val(S, y, 4, 2), NULL);
    }
    if (is_spd) { /* Q diag(max(l, 0)) Q^T, as Quadrants: a negative l times 0.0, each sum from A[0, 0] * 0.0 */
        sym_eig(&L, a, n, x, y);
        for (int k = 0; k < n; k++) x[k] = once(&L, sel(&L, op(&L, IR_LT, x[k], k_(&L, 0)), mul(&L, x[k], k_(&L, 0)), x[k]));
        IrExpr *zero = once(&L, mul(&L, a[0], k_(&L, 0)));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                IrExpr *acc = zero;
                for (int k = 0; k < n; k++) acc = add(&L, acc, mul(&L, mul(&L, y[i * n + k], x[k]), y[j * n + k]));
                z[i * n + j] = acc;
            }
        return mat_val(S, z, n, n);
    }
    if (is_sym) {
        sym_eig(&L, a, n, x, y);
        return tuple(S, mat_val(S, x, n, 0), mat_val(S, y, n, n), NULL);
    }
    IrExpr *sig[3];
    svd(&L, a, n, x, sig, y);
    if (!strcmp(p, "qd.svd")) {
        for (int k = 0; k < n * n; k++) z[k] = k % (n + 1) == 0 ? sig[k / (n + 1)] : k_(&L, 0);
        Val v = mat_val(S, y, n, n);
        return tuple(S, mat_val(S, x, n, n), mat_val(S, z, n, n), &v);
    }
    IrExpr *r[9], *pm[9]; /* polar: R = U V^T, P = V S V^T */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            IrExpr *ru = NULL, *pp = NULL;
            for (int k = 0; k < n; k++) {
                IrExpr *t1 = mul(&L, x[i * n + k], y[j * n + k]), *t2 = mul(&L, mul(&L, y[i * n + k], sig[k]), y[j * n + k]);
                ru = ru ? add(&L, ru, t1) : t1, pp = pp ? add(&L, pp, t2) : t2;
            }
            r[i * n + j] = ru, pm[i * n + j] = pp;
        }
    return tuple(S, mat_val(S, r, n, n), mat_val(S, pm, n, n), NULL);
}
