# Python forms the compile-time evaluator runs (issue 29's gaps, issue 30's corpus); each value
# a kernel stores is what Python computes. tests/unit/test_eval_forms.c runs it on x86.
import numpy as np
import pytest

import quadrants as qd

qd.init(arch=qd.cpu)


class Shape:
    unit = int("3")  # a class attribute made by a call

    def __init__(self, n):
        self.n = n
        self.total = 10
        self.total += n  # self.x op= v in __init__

    def area(self):
        return self.n * Shape.unit


class Box(Shape):
    def __init__(self, n, depth):
        super().__init__(n + 1)  # the base's __init__ on the same instance
        self.depth = depth
        self.total *= 2


class Crate(Box):
    def __init__(self, n):
        Box.__init__(self, n, 7)  # BASE.__init__(self, ...)
        self.label = "crate"


def area_of(s):
    return s.area()


A1 = area_of(Shape(4))  # an instance made inside an expression: 4 * 3
SHAPES = [Shape(i) for i in range(5)]  # in a comprehension
b = Box(2, 5)
b.depth = b.depth + 4  # an attribute set after creation
b.depth += 1
c = Crate(1)
INF = float("inf")
NEG = float(" -1_000.5e-1 ")
TABLE = {k: k * k for k in range(6) if k % 2}  # a dict comprehension
CASES = [pytest.param(3, "add", id="a"), pytest.param(9, "min", id="m")]
N_CASE, OP = list(CASES)[0]
CAST = (qd.i32, float)[1]
LO, HI = np.int64(2), np.int32(7)  # numpy scalars: numbers of their types
ROWS = [(7, np.sin), (8, np.cos)]
SEVEN, NP_FN = list(ROWS)[0]  # a row qdc cannot compute whole: item by item

x = qd.field(qd.i32, shape=18)
y = qd.field(qd.f32, shape=2)


@qd.kernel
def forms():
    for i in range(1):
        x[0] = A1
        x[1] = SHAPES[3].total  # 10 + 3
        x[2] = SHAPES[4].area()
        x[3] = b.n  # 2 + 1
        x[4] = b.total  # (10 + 3) * 2
        x[5] = b.depth  # 5 + 4 + 1
        x[6] = c.depth
        x[7] = c.total  # (10 + 2) * 2
        x[8] = c.area()  # 2 * 3
        x[9] = TABLE[5]
        x[10] = len(TABLE)
        x[11] = N_CASE
        nop = qd.static(len(OP))  # Quadrants: no qd.static(...) stored into an element
        x[12] = nop
        x[13] = Shape.unit
        x[14] = HI - LO
        x[16] = SEVEN
        d = {k: k + 10 for k in range(4) if k != 1}  # in a kernel too, as Quadrants runs it
        x[17] = d[3] + len(d)
        y[0] = INF
        y[1] = NEG
    for i in qd.ndrange((LO, HI)):
        qd.atomic_add(x[15], i)  # 2 + 3 + 4 + 5 + 6


forms()
x = x.to_numpy()  # rebound after the kernel's first call: the kernel keeps the field
