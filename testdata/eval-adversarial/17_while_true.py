# expect: error 12:17 QD2062 'x' is set in
import quadrants as qd

x = 0
while True:
    x = x + 1
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
