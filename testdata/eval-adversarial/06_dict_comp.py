# expect: error 10:17 QD2062 'x' is set by
import quadrants as qd

x = len({i: i for i in range(10**7)})
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
