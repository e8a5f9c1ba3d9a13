# expect: error 6:39 QD2026 --eval-limit=size=N
import quadrants as qd

def outer(s):
    def inner(t, n):
        return t if n == 0 else inner(t + t, n - 1)
    return inner(s, 60)


x = len(outer("ab"))
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
