# expect: error 4:5 QD2026 --eval-limit=size=N
import quadrants as qd

x = 2 ** 2 ** 40
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
