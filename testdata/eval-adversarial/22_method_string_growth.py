# expect: error 10:43 QD2026 --eval-limit=size=N
import quadrants as qd

@qd.data_oriented
class M:
    def __init__(self):
        self.n = 1

    def grow(self, s, n):
        return s if n == 0 else self.grow(s + s, n - 1)


m = M()
x = len(m.grow("ab", 64))
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
