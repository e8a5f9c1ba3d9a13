# Host code of Quadrants' tests that qdc follows to its kernels (issue 30, fourth round).
import numpy as np

import quadrants as qd

n = 4
out = qd.field(qd.i32, shape=n)


# a kernel named like a C keyword (Quadrants' test_oop.py): its C launcher is double_
@qd.kernel
def double():
    for i in range(n):
        out[i] = 2 * out[i] + 1


@qd.kernel
def fill(m: qd.types.ndarray(), v: qd.types.ndarray()):
    for i, j in qd.ndrange(n, n):
        m[i, j] = i * 10 + j + v[j]


# numpy arrays whose dtype and ndim host code makes evident: a sum of a product and np.eye,
# np.asarray of a list comprehension, float32 + float64 (numpy promotes to float64)
A = np.random.rand(n, n)
A_psd = (np.dot(A, A.transpose()) + np.eye(n)).astype(np.float32)
vals = np.asarray([i + 1.0 for i in range(n)], dtype=np.float32)
fill(A_psd, vals)
fill(np.identity(n) + np.ones((n, n), dtype=np.float32), vals * 2)

# Quadrants' host-side sparse solver: an object of the running script, no kernel of qdc's
solver = qd.linalg.SparseSolver(dtype=qd.f32, solver_type="LLT")
solver.analyze_pattern(A_psd)

double()
double()
