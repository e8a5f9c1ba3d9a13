# x[i].append(v) of struct and matrix fields in a dynamic SNode (tests/unit/test_lang_features3.c).
import quadrants as qd

mat = qd.types.matrix(n=2, m=2, dtype=qd.u8)
st = qd.types.struct(a=qd.u64, b=mat, c=qd.u16)
f = st.field()
qd.root.dense(qd.i, 6).dynamic(qd.j, 8, 4).place(f)

g = mat.field()
qd.root.dense(qd.i, 6).dynamic(qd.j, 8, 4).place(g)


@qd.kernel
def fill():
    for i in range(6):
        for j in range(i + 3):  # rows 5 and 6 overflow the 8 places: the extra appends are dropped
            f[i].append(st(i * j * qd.u64(10**10), qd.Matrix([[i, j], [i * j, 200 + j]], dt=qd.u8), i * j * 5000))
            g[i].append(qd.Matrix([[j, i], [i + j, i * j]], dt=qd.u8))


@qd.kernel
def lengths() -> qd.types.vector(6, qd.i32):
    return qd.Vector([f[i].length() + 100 * g[i].length() for i in qd.static(range(6))])
