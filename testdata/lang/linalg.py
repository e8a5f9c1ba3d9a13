# linalg.py — Quadrants' matrix decompositions in kernels (issue 15): qd.svd, qd.polar_decompose,
# qd.sym_eig and qd.solve on 2x2 and 3x3 matrices, in f32 (the default dt) and f64 (dt=qd.f64).
# The host checks reconstruction, orthogonality, determinants, ordering and residuals in double.
# f64 kernels: not for MSL (linalg32.py compiles the f32 forms there). Host: linalg.c.
# backends: ptx amdgpu spirv x86_64
import quadrants as qd

N3 = 8
N2 = 6
a3 = qd.Matrix.field(3, 3, qd.f32, shape=N3)
b3 = qd.Vector.field(3, qd.f32, shape=N3)
a2 = qd.Matrix.field(2, 2, qd.f32, shape=N2)
b2 = qd.Vector.field(2, qd.f32, shape=N2)
# per matrix: U, S, V, R, P, eigenvectors (of A + A^T) as 6 matrices; eigenvalues; solve(A, b)
m3 = qd.Matrix.field(3, 3, qd.f32, shape=(N3, 6))
e3 = qd.Vector.field(3, qd.f32, shape=N3)
x3 = qd.Vector.field(3, qd.f32, shape=N3)
m2 = qd.Matrix.field(2, 2, qd.f32, shape=(N2, 6))
e2 = qd.Vector.field(2, qd.f32, shape=N2)
x2 = qd.Vector.field(2, qd.f32, shape=N2)

d3 = qd.Matrix.field(3, 3, qd.f64, shape=N3)
c3 = qd.Vector.field(3, qd.f64, shape=N3)
d2 = qd.Matrix.field(2, 2, qd.f64, shape=N2)
c2 = qd.Vector.field(2, qd.f64, shape=N2)
n3 = qd.Matrix.field(3, 3, qd.f64, shape=(N3, 6))
f3 = qd.Vector.field(3, qd.f64, shape=N3)
y3 = qd.Vector.field(3, qd.f64, shape=N3)
n2 = qd.Matrix.field(2, 2, qd.f64, shape=(N2, 6))
f2 = qd.Vector.field(2, qd.f64, shape=N2)
y2 = qd.Vector.field(2, qd.f64, shape=N2)
ev2 = qd.Matrix.field(2, 2, qd.f32, shape=N2)  # qd.eig: eigenvalues (rows re, im)
evec2 = qd.Matrix.field(4, 2, qd.f32, shape=N2)  # ... eigenvectors (columns re, im, re, im)
fv2 = qd.Matrix.field(2, 2, qd.f64, shape=N2)
fvec2 = qd.Matrix.field(4, 2, qd.f64, shape=N2)


@qd.func
def decompose(a: qd.template(), b: qd.template(), m: qd.template(), e: qd.template(), x: qd.template(), i):
    A = a[i]
    U, S, V = qd.svd(A)
    m[i, 0] = U
    m[i, 1] = S
    m[i, 2] = V
    R, P = qd.polar_decompose(A)
    m[i, 3] = R
    m[i, 4] = P
    w, Q = qd.sym_eig(A + A.transpose())
    m[i, 5] = Q
    e[i] = w
    x[i] = qd.solve(A, b[i])


@qd.func
def decompose64(a: qd.template(), b: qd.template(), m: qd.template(), e: qd.template(), x: qd.template(), i):
    A = a[i]
    U, S, V = qd.svd(A, qd.f64)
    m[i, 0] = U
    m[i, 1] = S
    m[i, 2] = V
    R, P = qd.polar_decompose(A, dt=qd.f64)
    m[i, 3] = R
    m[i, 4] = P
    w, Q = qd.sym_eig(A + A.transpose(), qd.f64)
    m[i, 5] = Q
    e[i] = w
    x[i] = qd.solve(A, b[i], qd.f64)


@qd.kernel
def run3():
    for i in range(N3):
        decompose(a3, b3, m3, e3, x3, i)
        decompose64(d3, c3, n3, f3, y3, i)


@qd.kernel
def run2():
    for i in range(N2):
        decompose(a2, b2, m2, e2, x2, i)
        decompose64(d2, c2, n2, f2, y2, i)


@qd.kernel
def eig2():
    for i in range(N2):
        ev2[i], evec2[i] = qd.eig(a2[i])
        fv2[i], fvec2[i] = qd.eig(d2[i], dt=qd.f64)
