# expect: error 15:13 QD2026 --eval-limit=steps=N
import quadrants as qd

@qd.data_oriented
class Node:
    def __init__(self, v):
        self.v = v


n = Node(3)
x = 0
for i in range(64):
    for j in range(64):
        for m in range(64):
            x = x + getattr(n, "v")
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
