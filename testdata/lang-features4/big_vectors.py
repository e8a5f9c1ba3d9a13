# Vectors and matrices past 64 components (Quadrants has no limit; qdc takes up to 4096):
# a 1024-component argument and return value, a 100-component vector field, a run-time
# index and a slice past component 64.
import quadrants as qd

vec1024 = qd.types.vector(1024, qd.i32)
v100 = qd.Vector.field(100, dtype=qd.i32, shape=3)
m2x100 = qd.types.matrix(2, 100, qd.i32)


@qd.kernel
def total(a: vec1024) -> qd.i32:
    ret = 0
    for i in range(1024):
        ret += a[i] * (i % 7)
    return ret


@qd.kernel
def squares(k: qd.i32) -> vec1024:
    ret = vec1024(0)
    for i in range(1024):
        ret[i] = i * i + k
    return ret


@qd.kernel
def fields(o: qd.types.ndarray(qd.i32, ndim=1)):
    for c in range(3):
        for j in range(100):
            v100[c][j] = c * 1000 + j
    for _ in range(1):
        o[2] = v100[2][70] - v100[1][j_of(3)]


@qd.func
def j_of(k: qd.i32) -> qd.i32:
    return k * 23  # 69


@qd.kernel
def slices(o: qd.types.ndarray(qd.i32, ndim=1)):
    for _ in range(1):
        m = m2x100(0)
        for j in range(100):
            m[1, j] = 1000 + j
        r = 1
        row = m[r, :]
        o[0] = row[99]
        o[1] = row[64]
        s = 0
        for j in qd.static(range(65, 100)):
            s += row[j]
        o[3] = s
