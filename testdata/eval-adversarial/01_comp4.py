# expect: error 4:12 QD2026 --eval-limit=steps=N
import quadrants as qd

x = len([[[[i + j + k + l for l in range(30)] for k in range(30)] for j in range(30)] for i in range(30)])
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
