# snode_handles.py — SNode handles bound to names and used later (issue 14 item 1): several
# children under one node, a handle kept by a @qd.data_oriented __init__, one returned by a
# function; a qd.FieldsBuilder tree; vector fields with layout=qd.Layout.SOA and a permuted
# order= (issue 15 item 2); get_scalar_field; struct fields with layout=qd.Layout.SOA and
# offset=, one of a struct type made in a host function; and field statements run more than
# once in a host function (each field gets its own symbol: __defN).
# Host: snode_handles.c checks every element through the header's accessors and the raw bytes.
import quadrants as qd

qd.init(arch=qd.cpu)

w = qd.field(qd.i32)
x = qd.field(qd.i32)
y = qd.field(qd.i32)
blk = qd.root.dense(qd.ij, 4)
blk.place(w)
blk.dense(qd.ij, 2).dense(qd.ij, 2).place(x)
blk.dense(qd.i, 4).place(y)



def make_block(n):
    return qd.root.dense(qd.i, n)


p = qd.field(qd.f32)
make_block(8).place(p)

fb = qd.FieldsBuilder()
q = qd.field(qd.f32)
r = qd.field(qd.i16)
fb.dense(qd.i, 6).place(q, r)
tree = fb.finalize()

v = qd.Vector.field(2, qd.f32)
qd.root.dense(qd.i, 5).place(v.get_scalar_field(0))
qd.root.dense(qd.i, 5).place(v.get_scalar_field(1))

s = qd.Vector.field(3, qd.i32, shape=(4, 5), layout=qd.Layout.SOA)
t = qd.Vector.field(3, qd.i32, shape=(4, 5), order="ji")
u = qd.Matrix.field(2, 2, qd.f32, shape=(3, 4), order="ji", layout=qd.Layout.SOA, offset=(1, -2))

P = qd.types.struct(a=qd.i32, v=qd.types.vector(2, qd.f32))
ps = P.field(shape=(3,), layout=qd.Layout.SOA, offset=(2,))


@qd.data_oriented
class Grid:
    def __init__(self):
        self.a = qd.field(qd.i32)
        self.b = qd.field(qd.i32)
        self.block = qd.root.dense(qd.i, 3)
        self.block.place(self.a, self.b)

    @qd.kernel
    def fill(self):
        for i in self.a:
            self.a[i] = i + 1
            self.b[i] = -i


grid = Grid()


@qd.func
def bump(f: qd.template(), i: qd.i32, j: qd.i32):
    f[i, j] += qd.Vector([1, 1, 1])


@qd.kernel
def run():
    for I in qd.grouped(w):
        w[I] = I[0] * 10 + I[1]
    for i, j in x:
        x[i, j] = i * 100 + j
    for i, j in y:
        y[i, j] = i * 1000 + j
    for i in p:
        p[i] = i * 0.5
    for i in q:
        q[i] = i * 2.0
        r[i] = qd.i16(i - 2)
    for i in range(v.shape[0]):
        v[i] = qd.Vector([i * 1.0, i * 3.0])
    for i, j in s:
        s[i, j] = qd.Vector([i, j, i * 10 + j])
        t[i, j] = qd.Vector([j, i, j * 10 + i])
        bump(s, i, j)
    for i, j in u:
        u[i, j] = qd.Matrix([[i, j], [i * 10.0, j * 10.0]])
    for i in ps:
        ps[i].a = i * 7
        ps[i].v = qd.Vector([i * 1.0, -i * 1.0])


def test_twice():
    total = qd.field(qd.i32, shape=())

    @qd.kernel
    def first():
        total[None] += 1

    first()
    total = qd.field(qd.i32, shape=())
    pair = qd.types.struct(lo=qd.i32, hi=qd.i32)
    pr = pair.field(shape=(2,), layout=qd.Layout.SOA)

    @qd.kernel
    def second():
        total[None] += 2
        for i in pr:
            pr[i].lo = i
            pr[i].hi = 10 + i

    second()


run()
grid.fill()
