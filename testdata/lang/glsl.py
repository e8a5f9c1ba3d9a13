# glsl.py — near misses of issue 14 (language reach): qd.math's GLSL-style helpers (degrees,
# radians, fract, step, smoothstep, mod, log2, reflect, refract, eye) on scalars and vectors,
# `not` on a vector (element-wise), float() of an int constant past 64 bits, a for loop over
# `A if qd.static(c) else B`, and float literals past f64's range. Host: glsl.c.
from enum import IntEnum, IntFlag, auto

import quadrants as qd

qd.init(arch=qd.cpu)

FAST = True
SLOW = False
N = 6
sc = qd.field(qd.f32, shape=16)
vv = qd.Vector.field(3, qd.f32, shape=8)
nots = qd.Vector.field(3, qd.i32, shape=2)
counts = qd.field(qd.i32, shape=(4, 8))
eye3 = qd.Matrix.field(3, 3, qd.f32, shape=())


@qd.kernel
def maths(x: qd.f32):
    v = qd.Vector([2.25, -0.75, 3.5])
    n = qd.Vector([0.0, 1.0, 0.0])
    sc[0] = qd.math.degrees(x)
    sc[1] = qd.math.radians(180.0)
    sc[2] = qd.math.fract(x + 2.0)
    sc[3] = qd.math.step(0.5, x)
    sc[4] = qd.math.smoothstep(0.0, 2.0, x)
    sc[5] = qd.math.mod(-7.5, 2.0)
    sc[6] = qd.math.log2(8.0)
    sc[7] = qd.math.step(x, 0.5)
    sc[8] = float(2**64) / float(2**63)
    sc[9] = 1e-400 + 1.0
    sc[10] = qd.math.smoothstep(0.0, 1.0, 7.0)
    vv[0] = qd.math.fract(v)
    vv[1] = qd.math.mod(v, 2.0)
    vv[2] = qd.math.reflect(v, n)
    vv[3] = qd.math.refract(qd.Vector([0.6, -0.8, 0.0]), n, 0.5)
    vv[4] = qd.math.refract(qd.Vector([0.8, -0.6, 0.0]), n, 2.0)
    vv[5] = qd.math.step(qd.Vector([0.0, 1.0, 2.0]), qd.Vector([1.0, 1.0, 1.0]))
    vv[6] = qd.math.degrees(qd.Vector([0.0, x, 2.0 * x]))
    eye3[None] = qd.math.eye(3) * 2.0
    w = qd.Vector([3, 0, -2])
    nots[0] = not w
    nots[1] = not (w - 3)


@qd.kernel
def loops(n: qd.i32):
    for i in range(n) if qd.static(FAST) else qd.static(range(2)):
        counts[0, i] += 1
    for i in range(n) if qd.static(SLOW) else qd.static(range(2)):
        counts[1, i] += 1
    for b in range(2):
        for j in qd.static(range(3)) if qd.static(SLOW) else range(n + b):
            counts[2 + b, j] += 1


@qd.func
def twice(v):
    return v * 2


@qd.kernel
def walrus(n: qd.i32) -> qd.i32:
    b = 3 + (a := n * 5)  # a is a variable from here on
    b += a
    if (c := twice(a)) > 20:
        b += c
    for i in range(3):
        counts[0, 7] += (d := i + n) - d + 1
    return b


@qd.kernel
def annotated(c: qd.i32) -> qd.i32:
    my_int = qd.i32  # a type bound by the kernel itself names the annotation
    d: my_int = 2
    if c > 0:
        d: qd.i32 = 7  # declared already: an assignment to that variable (same type only)
    return d


st = qd.field(qd.i32, shape=8)


def cube(k, dims):
    return qd.ndrange(*((k,) * dims))


@qd.kernel
def stencil():
    for I in qd.static(qd.grouped(cube(2, 3))):  # the helper's qd.ndrange, unrolled
        st[I[0] * 4 + I[1] * 2 + I[2]] = I[0] + I[1] * 3 + I[2] * 10


fs = qd.field(qd.i32, shape=(3, 5))
fv = qd.Vector.field(2, qd.f32, shape=6)
fm = qd.Matrix.field(2, 2, qd.i32, shape=(2, 2))


@qd.kernel
def fills(v: qd.i32):
    fs.fill(v)  # a parallel loop over fs
    for r in range(2):
        if r == 1:
            fv.fill(0.5 * v)  # nested: a serial loop, one value for both components
    fm.fill(qd.Matrix([[1, v], [2 * v, 3]]))


@qd.data_oriented
class Counter:
    step = 3  # class attributes: self.step reads them unless __init__ sets its own
    scale: qd.i32 = 10

    def __init__(self):
        self.out = qd.field(qd.i32, shape=3)
        self.scale = 100

    def plus_step(self, v):  # a plain method: run at compile time, as Quadrants runs Python
        return v * 2 + self.step

    @qd.kernel
    def run(self, w: qd.i32):
        if qd.static(self.step == 3):
            self.out[0] = self.step
        self.out[1] = self.scale
        out, plus = qd.static(self.out, self.plus_step)
        out[2] = plus(w) + self.plus_step(1)


ctr = Counter()


spd = qd.Matrix.field(2, 2, qd.f32, shape=2)


@qd.kernel
def project(s: qd.f32):
    spd[0] = qd.make_spd(qd.Matrix([[2.0, 0.0], [0.0, -s]]))
    spd[1] = qd.make_spd(qd.Matrix([[1.0, 2.0 * s], [2.0 * s, 1.0]]), qd.f32)


lf = qd.field(qd.i32, shape=4)


def lift(i):
    return i * 2 + 1


@qd.kernel
def lifted():
    qd.static_assert(lf.dtype == qd.i32 and fv.dtype == qd.f32)  # a field's dtype is its element type
    for i in range(4):
        lf[i] = qd.func(lift)(i)  # a Python function made a qd.func where it is called


class Shape(IntEnum):
    SPHERE = 0
    BOX = auto()  # 1
    PLANE = 7
    MESH = auto()  # 8
    BELOW = -3


class Bits(IntFlag):
    A = auto()  # 1
    B = auto()  # 2
    C = 8
    D = auto()  # 16


ek = qd.field(qd.i32, shape=6)


@qd.kernel
def enums(kind: qd.i32):
    ek[0] = Shape.BOX
    ek[1] = Shape.MESH
    ek[2] = Bits.D | Bits.A
    ek[3] = 1 if kind == Shape.PLANE else 2
    ek[4] = Shape.BELOW
    if qd.static(Bits.C == 8):
        ek[5] = Bits.B


ra = qd.field(qd.i32, shape=(6, 6))
rb = qd.field(qd.i32, shape=(2, 2))


@qd.kernel
def rescale():
    for I in qd.grouped(ra):  # each 3x3 block of ra onto one cell of rb
        qd.atomic_add(rb[qd.rescale_index(ra, rb, I)], 1)
    for I in qd.grouped(rb):
        J = qd.rescale_index(rb, ra, I)
        ra[J] = J[0] * 10 + J[1] + 1
