# expect: error 9:12 QD2026 --eval-limit=depth=N
import quadrants as qd

def a(n):
    return b(n + 1)


def b(n):
    return a(n + 1)


x = a(0)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
