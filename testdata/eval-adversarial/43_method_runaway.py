# expect: error 9:16 QD2026 --eval-limit=depth=N
import quadrants as qd

class C:
    def __init__(self, n):
        self.n = n

    def down(self, k):
        return self.down(k + 1) + self.n


c = C(3)
x = c.down(0)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
