# numpy values a script computes at module level and its kernels read (issue 30): qdc computes
# their elements (frontend/py/sema_npvalue.c) as Python does before the kernels compile.
import numpy as np

import quadrants as qd

N = 8
out = qd.field(qd.i32, shape=16)
fout = qd.field(qd.f32, shape=8)

cube = np.array([3] * 3)  # int64, as Quadrants' test_implicit_fem.py's n_cube
n_verts = np.prod(cube)
n_cells = (cube - 1).prod() * 5
lo = (np.ones(1) * (N // 2 - 1)).astype(np.int32).reshape(())  # a 0-d array: a range bound
grid = np.arange(12).reshape(3, 4)
col = grid[:, 1]
w = np.linspace(0.0, 1.0, 5, dtype=np.float32)
m = np.zeros((2, 2), dtype=np.int32)
m[1, 0] = 7  # a store qdc follows
half = np.array([1, 2, 3], dtype=np.float32) / 2
s = np.int32(5) + cube[0]
small = np.array([100, 27], dtype=np.int8) * 2  # int8 wraps: -56, 54


@qd.kernel
def k():
    out[0] = n_verts
    out[1] = n_cells
    for i in range(lo, N):
        out[2] += i
    for I in qd.grouped(qd.ndrange(*(cube - 1))):
        out[3] += I.x * 100 + I.y * 10 + I.z
    out[4] = grid[2, -1]
    out[5] = col.sum()
    out[6] = grid.T[3, 0]
    out[7] = m[1, 0] + m.size * 10
    out[8] = cube.shape[0] + grid.ndim * 10
    out[9] = s
    out[10] = np.sum(grid[1:, ::2])
    a = np.array(6, dtype=np.int32)  # a 0-d array in a kernel: its value (test_type_check.py)
    out[11] = a
    out[12] = (grid // 5 % 3)[2, 3]
    out[13] = -cube[1] + (cube**2)[2]
    out[14] = small[0] * 1000 + small[1]
    for j in qd.static(range(5)):
        fout[j] = w[j]
    v = qd.Vector([half[0], half[2], 0.0])
    fout[5] = v[0] + v[1]
    fout[6] = np.max(half) * 4


# a kernel reads the script's array as it is at the kernel's first call (Quadrants compiles then)
snap = np.array([1, 2, 3])


@qd.kernel
def first():
    out[15] = snap[1]


k()
first()
snap[1] = 20


@qd.kernel
def second():
    fout[7] = snap[1] + np.ascontiguousarray(grid[:, 0])[2]


second()
