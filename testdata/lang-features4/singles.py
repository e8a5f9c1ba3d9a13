# Forms Quadrants accepts that qdc refused before (qdc-lang(7)): a dict comprehension with
# run-time keys, a numpy array of another dtype for an ndarray of matrices, offset= computed
# as None.
import numpy as np

import quadrants as qd

x = qd.field(qd.i32, shape=8)
off = None
y = qd.Matrix.field(2, 2, dtype=qd.i32, shape=(3,), offset=[off] if off is not None else None)


@qd.kernel
def dictcomp() -> qd.i32:
    a = {x[j]: x[j] + j for j in range(100) if j > 2 if j < 5}
    return sum(a.values())


@qd.kernel
def mat_elems(a: qd.types.ndarray(dtype=qd.math.mat2)):
    for i in range(5):
        for j, k in qd.ndrange(2, 2):
            a[i][j, k] = j * j + k * k + i * 10


m = np.empty((5, 2, 2), dtype=np.int32)
mat_elems(m)


@qd.kernel
def no_offset() -> qd.i32:
    for i in y:
        y[i][1, 1] = 3 * i + 1
    return y[0][1, 1] + y[2][1, 1]
