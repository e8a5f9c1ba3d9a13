# Hints that do not change results (qdc-lang(7) "Hints"): qd.loop_unique, qd.block_local,
# qd.cache_read_only.
import quadrants as qd
from quadrants.lang.misc import loop_unique

x = qd.field(qd.i32)
y = qd.field(qd.i32)
qd.root.dense(qd.i, 16).place(x)
qd.root.pointer(qd.i, 4).dense(qd.i, 4).place(y)
s = qd.field(qd.f32, shape=64)


@qd.kernel
def run():
    for i in range(16):
        x[i] = (i * 5) % 16
    for i in range(16):
        a = loop_unique(x[i], covers=[y])
        y[a] += i
    qd.block_local(y)
    qd.cache_read_only(x, s)
    for i in y:
        y[i] += qd.loop_unique(i)
    for i in range(64):
        s[i] = x[i % 16] * 2.0


N = qd._lib.core.get_max_num_indices()


@qd.kernel
def ops(o: qd.types.ndarray(qd.i32, ndim=1)):
    for _ in range(1):
        v = qd.lang.ops.add(qd.Vector([1, 2]), qd.Vector([10, 20]))
        o[0] = v[0]
        o[1] = v[1]
        o[2] = qd.lang.ops.mul(6, 7)
        o[3] = N
        d = qd.Matrix.diag(dim=2, val=3)
        o[4] = d[0, 0] + d[1, 1] * 10 + d[0, 1] * 100 + d[1, 0] * 1000
