# expect: error 4:5 QD2026 --eval-limit=steps=N
import quadrants as qd

L = [0] * 10**6
L = L * 1000
x = len(L)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
