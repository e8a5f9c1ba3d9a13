# expect: error 4:13 QD2026 --eval-limit=size=N
import quadrants as qd

x = len(str(10 ** (10 ** 8)))
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
