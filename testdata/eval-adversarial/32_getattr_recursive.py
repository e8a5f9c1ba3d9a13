# expect: error 5:43 QD2026 --eval-limit=depth=N
import quadrants as qd

def f(o, n):
    return getattr(o, "v") if n == 0 else f(o, n - 1)


@qd.data_oriented
class Node:
    def __init__(self, v):
        self.v = v


n = Node(5)
x = f(n, 500)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
