# A vector field whose components lie under separate dense nodes: its dynamic index stride and
# dynamic component reads and writes (tests/unit/test_lang_features3.c).
import quadrants as qd

v = qd.Vector.field(3, qd.i32)
x = v.get_scalar_field(0)
y = v.get_scalar_field(1)
z = v.get_scalar_field(2)
blk = qd.root.dense(qd.i, 4)
blk.dense(qd.i, 8).place(x)
blk.dense(qd.i, 8).place(y)
blk.dense(qd.i, 8).place(z)
w = qd.Vector.field(2, qd.f32)
qd.root.dense(qd.i, 16).place(w)  # components side by side in one cell
out = qd.field(qd.i32, shape=(32, 3))


@qd.kernel
def strides() -> qd.types.vector(3, qd.i32):
    gap = qd.cast(qd.get_addr(z, 9) - qd.get_addr(y, 9), qd.i32)
    return qd.Vector([v._get_dynamic_index_stride(), w._get_dynamic_index_stride(), gap])


@qd.kernel
def put():
    for i in range(32):
        assert qd.get_addr(y, i) - qd.get_addr(x, i) == v._get_dynamic_index_stride()
        for j in range(3):
            v[i][j] = i * 10 + j
        v[i][i % 3] += 1000


@qd.kernel
def run():
    for i in range(32):
        for j in range(3):
            out[i, j] = v[i][j]
