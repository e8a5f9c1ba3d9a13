/* Host for testdata/lang/linalg.py: every decomposition checked in double against its contract
 * (reconstruction, orthonormality, determinants, ordering, residual), in f32 and f64. */
#include "linalg.h"
#include "common.h"
#include <math.h>

static int bad;
static double tol; /* relative to the matrix's largest entry: 1e-5 (f32), 1e-12 (f64) */

static void near(double got, double want, double scale, const char *what, int i) {
    if (!(fabs(got - want) <= tol * (1 + scale))) printf("%s[%d]: got %.17g, want %.17g\n", what, i, got, want), bad++;
}

static double det(const double *m, int n) {
    if (n == 2) return m[0] * m[3] - m[1] * m[2];
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* x . diag(s) . y^T (s NULL: x y^T) */
static void mul_t(const double *x, const double *s, const double *y, int n, double *out) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double r = 0;
            for (int k = 0; k < n; k++) r += x[i * n + k] * (s ? s[k] : 1) * y[j * n + k];
            out[i * n + j] = r;
        }
}

static void orthonormal(const double *q, int n, const char *what, int i) {
    double p[9];
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            p[a * n + b] = 0;
            for (int k = 0; k < n; k++) p[a * n + b] += q[k * n + a] * q[k * n + b];
            near(p[a * n + b], a == b, 0, what, i);
        }
}

static void same(const double *x, const double *y, int n, double scale, const char *what, int i) {
    for (int k = 0; k < n * n; k++) near(x[k], y[k], scale, what, i);
}

/* m: U S V R P Q (n x n each), e: eigenvalues of A + A^T, x: solve(A, b) */
static void check(int n, const double *a, const double *b, const double *m, const double *e, const double *x, int i) {
    const double *U = m, *S = m + n * n, *V = m + 2 * n * n, *R = m + 3 * n * n, *P = m + 4 * n * n, *Q = m + 5 * n * n;
    double scale = 0, s[3] = {0}, t[9] = {0}, sym[9] = {0};
    for (int k = 0; k < n * n; k++) scale = fmax(scale, fabs(a[k]));
    for (int k = 0; k < n * n; k++)
        if (k % (n + 1) && S[k] != 0) printf("svd S[%d] off-diagonal %g\n", i, S[k]), bad++;
    for (int k = 0; k < n; k++) s[k] = S[k * (n + 1)];
    mul_t(U, s, V, n, t);
    same(t, a, n, scale, "svd U S V^T", i);
    orthonormal(U, n, "svd U^T U", i), orthonormal(V, n, "svd V^T V", i);
    near(det(V, n), 1, 0, "svd det V", i);
    for (int k = 0; k + 1 < n; k++)
        if (!(s[k] >= fabs(s[k + 1]) - tol * (1 + scale))) printf("svd[%d]: S not descending\n", i), bad++;
    if (n == 3) near(det(U, 3), 1, 0, "svd det U", i);
    if (n == 2 && s[1] < 0) printf("svd[%d]: negative 2x2 singular value\n", i), bad++;
    for (int r = 0; r < n; r++) /* R P = A */
        for (int c = 0; c < n; c++) {
            t[r * n + c] = 0;
            for (int k = 0; k < n; k++) t[r * n + c] += R[r * n + k] * P[k * n + c];
            near(P[r * n + c], P[c * n + r], scale, "polar P symmetric", i);
        }
    same(t, a, n, scale, "polar R P", i);
    orthonormal(R, n, "polar R^T R", i);
    double da = det(a, n);
    if (n == 3 || da != 0) near(det(R, n), n == 3 || da > 0 ? 1 : -1, 0, "polar det R", i);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) sym[r * n + c] = a[r * n + c] + a[c * n + r];
    mul_t(Q, e, Q, n, t);
    same(t, sym, n, 2 * scale, "sym_eig Q diag(w) Q^T", i);
    orthonormal(Q, n, "sym_eig Q^T Q", i);
    for (int k = 0; k + 1 < n; k++)
        if (e[k] > e[k + 1]) printf("sym_eig[%d]: eigenvalues not ascending\n", i), bad++;
    if (fabs(da) < 1e-3) return; /* singular: no solution to check */
    for (int r = 0; r < n; r++) {
        double ax = 0, size = fabs(b[r]);
        for (int k = 0; k < n; k++) ax += a[r * n + k] * x[k], size += fabs(a[r * n + k] * x[k]);
        near(ax, b[r], size, "solve A x - b", i);
    }
}

/* qd.eig: A v = l v in complex arithmetic, |v| = 1, conjugate pairs; l (rows re, im), v (columns
 * of re, im, re, im) */
static void check_eig(const double *a, const double *l, const double *v, int i) {
    for (int c = 0; c < 2; c++) {
        double lr = l[c * 2], li = l[c * 2 + 1], len = 0;
        for (int r = 0; r < 4; r++) len += v[r * 2 + c] * v[r * 2 + c];
        near(len, 1, 0, "eig |v|", i);
        for (int r = 0; r < 2; r++) {
            double avr = a[r * 2] * v[c] + a[r * 2 + 1] * v[4 + c], avi = a[r * 2] * v[2 + c] + a[r * 2 + 1] * v[6 + c];
            double vr = v[r * 4 + c], vi = v[r * 4 + 2 + c];
            near(avr, lr * vr - li * vi, 10, "eig (A v).re", i), near(avi, lr * vi + li * vr, 10, "eig (A v).im", i);
        }
    }
    near(l[0] + l[2], a[0] + a[3], 10, "eig trace", i);
    near(l[1] + l[3], 0, 10, "eig conjugates", i);
}

static const double in3[8][9] = {
    {1, 1, 3, 9, -3, 2, -3, 4, 2}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0}, {4, -1, 2, 8, -2, 4, 12, -3, 6},
    {1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 0, 0, 0, -3, 0, 0, 0, 1}, {0, -2, 0, 2, 0, 0, 0, 0, 2}, {0}};
static const double in2[6][4] = {{1, 1, 2, 3}, {1, 0, 0, 1}, {0}, {1, 2, 2, 4}, {0, 1, 1, 0}, {3, -1, 0.5, 2}};

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv);
    double a3[8][9], a2[6][4], b[3] = {1, -2, 0.5};
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 9; k++) a3[i][k] = i == 7 ? (double)(host_rand() % 2001) / 100 - 10 : in3[i][k];
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 9; k++) {
            qd_field_a3[i][k / 3][k % 3] = (float)a3[i][k], qd_field_d3[i][k / 3][k % 3] = a3[i][k];
            if (k < 3) qd_field_b3[i][k] = (float)b[k], qd_field_c3[i][k] = b[k];
        }
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 4; k++) {
            a2[i][k] = in2[i][k];
            qd_field_a2[i][k / 2][k % 2] = (float)a2[i][k], qd_field_d2[i][k / 2][k % 2] = a2[i][k];
            if (k < 2) qd_field_b2[i][k] = (float)b[k], qd_field_c2[i][k] = b[k];
        }
    run3_args r3 = {0};
    run2_args r2 = {0};
    eig2_args re = {0};
    if (!host_launch_ok(run3(&r3, nt)) || !host_launch_ok(run2(&r2, nt)) || !host_launch_ok(eig2(&re, nt))) return 2;
    double m[54], e[3], x[3];
    for (int f64 = 0; f64 < 2; f64++) {
        tol = f64 ? 1e-12 : 1e-5;
        for (int i = 0; i < 8; i++) {
            for (int k = 0; k < 54; k++) m[k] = f64 ? qd_field_n3[i][k / 9][k % 9 / 3][k % 3] : qd_field_m3[i][k / 9][k % 9 / 3][k % 3];
            for (int k = 0; k < 3; k++) e[k] = f64 ? qd_field_f3[i][k] : qd_field_e3[i][k], x[k] = f64 ? qd_field_y3[i][k] : qd_field_x3[i][k];
            check(3, a3[i], b, m, e, x, i);
        }
        for (int i = 0; i < 6; i++) {
            for (int k = 0; k < 24; k++) m[k] = f64 ? qd_field_n2[i][k / 4][k % 4 / 2][k % 2] : qd_field_m2[i][k / 4][k % 4 / 2][k % 2];
            for (int k = 0; k < 2; k++) e[k] = f64 ? qd_field_f2[i][k] : qd_field_e2[i][k], x[k] = f64 ? qd_field_y2[i][k] : qd_field_x2[i][k];
            check(2, a2[i], b, m, e, x, 10 + i);
            double l[4], v[8], gap = (a2[i][0] + a2[i][3]) * (a2[i][0] + a2[i][3]) - 4 * det(a2[i], 2);
            for (int k = 0; k < 8; k++) v[k] = f64 ? qd_field_fvec2[i][k / 2][k % 2] : qd_field_evec2[i][k / 2][k % 2];
            for (int k = 0; k < 4; k++) l[k] = f64 ? qd_field_fv2[i][k / 2][k % 2] : qd_field_ev2[i][k / 2][k % 2];
            if (gap != 0) check_eig(a2[i], l, v, 10 + i);
            else if (!isnan(v[0])) printf("eig[%d]: a double root gives NaN eigenvectors in Quadrants\n", i), bad++;
        }
    }
    printf("linalg: %d wrong\n", bad);
    return bad != 0;
}
