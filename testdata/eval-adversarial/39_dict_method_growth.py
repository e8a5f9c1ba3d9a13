# expect: error 6:15 QD2026 --eval-limit=size=N
import quadrants as qd

d = {"k": "ab"}
for i in range(64):
    d = {"k": d["k"] + d["k"]}
x = len(d["k"])
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
