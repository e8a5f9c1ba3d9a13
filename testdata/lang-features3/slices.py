# A slice beside an index that is a kernel argument (tests/unit/test_lang_features3.c).
import quadrants as qd


@qd.kernel
def row_of(index: qd.i32) -> qd.types.vector(3, dtype=qd.i32):
    m = qd.Matrix([[1, 2, 3], [4, 5, 6]])
    return m[index, :]


@qd.kernel
def col_of(index: qd.i32) -> qd.types.vector(2, dtype=qd.i32):
    m = qd.Matrix([[1, 2, 3], [4, 5, 6]])
    return m[:, index]


@qd.kernel
def put_row(i: qd.i32) -> qd.types.matrix(3, 4, qd.i32):
    mat = qd.Matrix([[0, 0, 0, 0] for _ in range(3)])
    mat[i, :] = qd.Vector([1, 2, 3, 4])
    mat[2, i] += 10  # one element at an argument index
    return mat


@qd.kernel
def grid(out: qd.types.ndarray(qd.i32, ndim=2), k: qd.i32):
    for i in range(3):
        m = qd.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        m[k, :] = m[:, i]  # row k becomes column i
        for j in range(3):
            out[i, j] = m[k, j] * 10 + m[(k + 1) % 3, j]
