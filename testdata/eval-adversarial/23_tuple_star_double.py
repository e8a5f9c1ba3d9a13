# expect: error 6:5 QD2026 --eval-limit=steps=N
import quadrants as qd

t = (1,)
for i in range(64):
    t = (*t, *t)
x = len(t)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
