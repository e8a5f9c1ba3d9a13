# expect: value 3
import quadrants as qd

@qd.data_oriented
class Node:
    def __init__(self, v):
        self.v = v
        self.me = self


n = Node(3)
x = getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(getattr(n, 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'me'), 'v')
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
