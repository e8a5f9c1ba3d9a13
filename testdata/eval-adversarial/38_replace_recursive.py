# expect: error 5:31 QD2026 --eval-limit=size=N
import quadrants as qd

def g(s, n):
    return s if n == 0 else g(s.replace("a", "aaaa"), n - 1)


x = len(g("a", 40))
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
