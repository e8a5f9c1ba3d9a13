# Fields made by host expressions (issue 30): a lambda that returns a field, a comprehension of
# fields, and a constant qd.Vector passed to a qd.template() parameter.
import quadrants as qd

qd.init(arch=qd.cpu)

scalar = lambda: qd.field(dtype=qd.i32)
vec = lambda: qd.Vector.field(2, dtype=qd.i32)

s = scalar()
v = vec()
qd.root.dense(qd.i, 8).place(s, v)

grid = [qd.field(dtype=qd.i32) for _ in range(2)]
for l in range(2):
    qd.root.dense(qd.i, 8).place(grid[l])


@qd.kernel
def fill():
    for i in s:
        s[i] = i * 3
        v[i] = qd.Vector([i, -i])


@qd.kernel
def layer(l: qd.template()):
    for i in grid[l]:
        grid[l][i] = s[i] + v[i][1] + l * 100


w = qd.Vector([2, 5, 7])


@qd.kernel
def weigh(a: qd.template(), out: qd.template()):
    for i in out:
        out[i] += a[0] * a[1] + a[2] * i


fill()
layer(0)
layer(1)
weigh(w, grid[1])
