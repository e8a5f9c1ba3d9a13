# expect: error 14:21 QD2026 --eval-limit=calls=N
import quadrants as qd

def mk(k):
    def g(n):
        return n + k
    return g(1)


x = 0
for i in range(64):
    for j in range(64):
        for m in range(64):
            x = x + mk(i)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
