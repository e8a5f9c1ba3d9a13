# linalg32.py — qd.svd, qd.polar_decompose, qd.sym_eig (2x2 to 4x4) and qd.solve in f32, for every
# family, MSL included (linalg.py runs them on x86 in f32 and f64).
import quadrants as qd

a3 = qd.Matrix.field(3, 3, qd.f32, shape=4)
a2 = qd.Matrix.field(2, 2, qd.f32, shape=4)
a4 = qd.Matrix.field(4, 4, qd.f32, shape=4)
out = qd.Matrix.field(3, 3, qd.f32, shape=4)
out2 = qd.Matrix.field(2, 2, qd.f32, shape=4)
ev = qd.Vector.field(4, qd.f32, shape=4)


@qd.kernel
def run():
    for i in range(4):
        U, S, V = qd.svd(a3[i])
        R, P = qd.polar_decompose(a3[i], qd.f32)
        out[i] = U @ S @ V.transpose() + R @ P
        U2, S2, V2 = qd.svd(a2[i])
        R2, P2 = qd.polar_decompose(a2[i])
        out2[i] = U2 @ S2 @ V2.transpose() - R2 @ P2
        w, Q = qd.sym_eig(a4[i] + a4[i].transpose())
        ev[i] = w + Q[0, :] * 0 + Q @ w
        x = qd.solve(a3[i], qd.Vector([1.0, 2.0, 3.0]))
        out[i][0, 0] += x[0] + qd.solve(a2[i], qd.Vector([1.0, 2.0]))[1]
