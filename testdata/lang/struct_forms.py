# Struct forms of upstream tests (issue 15): a @qd.dataclass of a host function is that function's
# own (two tests define different Foo), its methods construct it by name; a bool member; a tuple
# given for a vector member; a scalar given for a struct member (its first member takes it, as
# Quadrants calls the member's type); qd.Struct({...}); a dataclass of methods only; struct fields
# passed to qd.template() parameters and a host-code struct value captured by a kernel (its values
# baked in). The host (struct_forms.c) checks every value.
import numpy as np

import quadrants as qd


def test_first():
    @qd.dataclass
    class Foo:
        x: qd.f32
        y: qd.f32

        @qd.func
        def add(self, other: qd.template()):
            return Foo(self.x + other.x, self.y + other.y)

    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1), f: Foo):
        out[0] = qd.i32(f.add(f).y)

    out = np.zeros(8, dtype=np.int32)
    k(out, Foo(1, 2))


def test_second():
    @qd.dataclass
    class Foo:
        a: qd.i32
        flag: bool

        @qd.func
        def twice(self):
            return Foo(self.a * 2, self.flag)

    @qd.dataclass
    class Nested:
        f: Foo
        v: qd.types.vector(2, qd.i32)

    @qd.dataclass
    class Tools:
        @qd.func
        def seven(self):
            return 7

    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        n = Nested(Foo(21, True).twice(), (3, 4))
        out[1] = n.f.a + qd.i32(n.f.flag)
        out[2] = n.v[0] * 10 + n.v[1]
        m = Nested(5)
        out[3] = m.f.a * 100 + qd.i32(m.f.flag) * 10 + m.v[1]
        s = qd.Struct({"p": 6, "q": qd.Vector([1, 2])})
        out[4] = s.p + s.q[1]
        out[5] = Tools().seven()

    out = np.zeros(8, dtype=np.int32)
    k(out)


def test_third():
    @qd.dataclass
    class Seg:
        p1: qd.math.vec3
        p2: qd.math.vec3

        @qd.func
        def pull(self, other, extra):
            self.p1 = (self.p1 + mid(other)) / 2 + extra.p1

    base = Seg(p1=[0, 2, 4], p2=[-2, -4, -6])

    @qd.func
    def mid(s) -> qd.math.vec3:
        return (s.p1 + s.p2) / 2

    @qd.kernel
    def step(f1: qd.template(), f2: qd.template()):
        for i in f1:
            f1[i].pull(f2[i], base)

    field1 = Seg.field()
    field2 = Seg.field()
    qd.root.dense(qd.i, 16).place(field1, field2)

    @qd.kernel
    def fill():
        for i in range(16):
            field1[i] = Seg(p1=[1, 2, 3], p2=[4, 5, 6])
            field2[i] = Seg(p1=[4, 5, 6], p2=[i, 2, 3])

    fill()
    step(field1, field2)
