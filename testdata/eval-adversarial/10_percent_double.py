# expect: error 6:9 QD2019 a compile-time tuple or
import quadrants as qd

s = "ab"
for i in range(64):
    s = "%s%s" % (s, s)
x = len(s)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
