# expect: error 6:9 QD2026 --eval-limit=size=N
import quadrants as qd

s = "ab"
for i in range(64):
    s = "{}{}".format(s, s)
x = len(s)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
