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


# A data-oriented instance whose plain methods launch its kernel (run -> step -> combine): each
# call obj.m(args) runs the method with self bound, as Python does.
@qd.data_oriented
class Inner:
    def __init__(self):
        self.a = qd.field(qd.i32, shape=4)


@qd.data_oriented
class Outer:
    def __init__(self):
        self.inner = Inner()
        self.c = qd.field(qd.i32, shape=4)

    @qd.kernel
    def combine(self, c: qd.template(), inner: qd.template()):
        for i in c:
            inner.a[i] += i + 1
            c[i] = inner.a[i] * 10

    def step(self):
        self.combine(self.c, self.inner)

    def run(self, n):
        for _ in range(n):
            self.step()


obj = Outer()
obj.run(2)


# Fixtures that ask for a test parameter the script binds after them (pytest passes it).
import pytest


@pytest.fixture
def ann(use_template):
    if use_template:
        return qd.template()
    return qd.types.ndarray()


@pytest.fixture
def ann2(use_template):
    return qd.template() if use_template else qd.types.ndarray()


use_template = True
t = qd.field(qd.i32, shape=4)


@qd.kernel
def bump(x: ann):
    for i in x:
        x[i] += i + 1


@qd.kernel
def twice(x: ann2):
    for i in x:
        x[i] *= 2


bump(t)
twice(t)


# A kernel is a value like any function: an instance keeps one (self.hook = hook) and a method
# calls it with its own field.
@qd.data_oriented
class Solver:
    def __init__(self, hook):
        self.val = qd.field(qd.i32, shape=4)
        self.hook = hook

    def run_hook(self):
        self.hook(self.val)


@qd.kernel
def hook(x: qd.template()):
    for i in x:
        x[i] = 7 * i


solver = Solver(hook)
solver.run_hook()


# @staticmethod over @qd.kernel: a kernel of the class without self, called through an instance.
z = qd.field(qd.i32, shape=4)


@qd.data_oriented
class Static:
    @staticmethod
    @qd.kernel
    def fill_z():
        for i in z:
            z[i] = 3 - i


st = Static()
st.fill_z()


# Attributes a method sets (self.b = B() in init(), not __init__): the instance has them when its
# kernel is compiled at its first call; B's __init__ places its field with its own FieldsBuilder.
@qd.data_oriented
class Leaf:
    def __init__(self):
        self.x = qd.field(int)
        fb = qd.FieldsBuilder()
        fb.dense(qd.i, 1).place(self.x)
        self.tree = fb.finalize()


@qd.data_oriented
class Tree:
    def __init__(self):
        self.n = 6

    def init(self):
        self.leaf = Leaf()

    @qd.kernel
    def grow(self, m: int):
        for i in range(self.n):
            self.leaf.x[0] += m


tree = Tree()
tree.init()
tree.grow(3)
