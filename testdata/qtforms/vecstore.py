"""vecstore.py — a store at a run-time index into a local vector or matrix (Quadrants' forms, test_matrix.py):
a kernel-scope vector shared by a parallel loop whose threads each write their own component, a private
matrix written at a run-time (row, column), and `+=` at a run-time index of a kernel-scope vector from
every thread (atomic per component). Host: tests/unit/test_qtforms.c."""
import quadrants as qd

out = qd.field(qd.i32, shape=8)
rows = qd.field(qd.f32, shape=(4, 6))


@qd.kernel
def shared_vec(n: qd.i32) -> qd.types.vector(3, qd.i32):
    tmp = qd.Vector([1, 2, 3])
    for i in range(3):
        vec = qd.Vector([4, 5, 6])
        for j in range(3):
            vec[tmp[i] % 3] += vec[j]
        tmp[i] = vec[tmp[i] % 3] + n
    return tmp


@qd.kernel
def private_mat(k: qd.i32):
    for t in range(4):
        m = qd.Matrix([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        m[t % 2, (t + k) % 3] = -1.0
        for c in range(6):
            rows[t, c] = m[c // 3, c % 3]


@qd.kernel
def scalar_loop(n: qd.i32):
    acc = qd.Vector([0, 0, 0, 0])
    for i in range(n):
        acc[i % 4] += i
    for i in range(4):
        out[i] = acc[i]
