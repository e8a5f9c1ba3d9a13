# expect: error 8:13 QD2026 --eval-limit=steps=N
import quadrants as qd

s = set()
for i in range(64):
    for j in range(64):
        for m in range(64):
            s.add((i, j, m))
x = len(s)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
