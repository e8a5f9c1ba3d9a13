# expect: error 4:24 QD2026 --eval-limit=steps=N
import quadrants as qd

x = len({i: i for i in range(10**7)})
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
