# qd.get_addr and qd.stop_grad (tests/unit/test_lang_features3.c runs these kernels).
import quadrants as qd

N = 8
x = qd.field(qd.f32, shape=N, needs_grad=True)
loss = qd.field(qd.f32, shape=(), needs_grad=True)

f = qd.field(qd.i32, shape=(5, 7), order="ji")  # column-major: f[i, j] at (j * 5 + i) * 4
g = qd.field(qd.i64, shape=(5, 7))              # row-major: g[i, j] at (i * 7 + j) * 8


@qd.kernel
def stopped():
    for i in range(N):
        loss[None] += x[i] ** 2  # before the call, in its block: stopped as well
        qd.stop_grad(x)
    for i in range(N):
        loss[None] += 3.0 * x[i]  # another block: x has its gradient here


@qd.kernel
def offsets(out: qd.types.ndarray(qd.u64, ndim=2)):
    for i, j in qd.ndrange(5, 7):
        out[i, j] = qd.get_addr(f, [i, j]) - qd.get_addr(f, [0, 0])


@qd.kernel
def goffset(i: qd.i32, j: qd.i32) -> qd.u64:
    return qd.get_addr(g, [i, j]) - qd.get_addr(g, (0, 0))


@qd.kernel
def where(i: qd.i32, j: qd.i32) -> qd.u64:
    return qd.get_addr(f, [i, j])


m = qd.Matrix.field(2, 2, qd.i32, shape=(4, 6), order="ji", offset=(1, 2))


@qd.kernel
def write_m():
    m[1, 2] = qd.Matrix([[10, 20], [30, 40]])
    m[4, 7] = qd.Matrix([[1, 2], [3, 4]])
    m[2, 3][1, 0] = qd.get_addr(m, [2, 3]) - qd.get_addr(m, [1, 2]) == 4 * 4 * (1 * 4 + 1)  # 4 components of 4 bytes, column-major


write_m()
got = m[1, 2]  # host code reads the element before qdc computes the SNode layout (was QD2011)
