# Inverses and determinants past 3x3 (tests/unit/test_lang_features2.c): Quadrants' closed forms
# for 4x4, its LU with partial pivoting for 5x5 .. 12x12 (a matrix whose first pivot is 0).
import quadrants as qd

m4 = qd.Matrix.field(4, 4, dtype=qd.f64, shape=())
i4 = qd.Matrix.field(4, 4, dtype=qd.f64, shape=())
d4 = qd.field(qd.f64, shape=())
m6 = qd.Matrix.field(6, 6, dtype=qd.f64, shape=(2,))
i6 = qd.Matrix.field(6, 6, dtype=qd.f64, shape=(2,))


@qd.kernel
def small():
    i4[None] = m4[None].inverse()
    d4[None] = m4[None].determinant()


@qd.kernel
def large():
    for k in range(2):
        i6[k] = m6[k].inverse()
