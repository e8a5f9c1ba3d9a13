# Data-oriented instances inside dataclasses and dataclasses inside data-oriented instances
# (tests/unit/test_eval_dodc.c): Quadrants walks both through a qd.template() argument.
import dataclasses

import quadrants as qd

N = 64


@qd.data_oriented
class Inner:
    def __init__(self, x):
        self.x = x
        self.f = qd.field(qd.i32, shape=(N,))


@dataclasses.dataclass(frozen=True)
class Outer:
    inner: Inner


x = qd.ndarray(qd.i32, shape=(N,))
outer = Outer(inner=Inner(x=x))


@qd.kernel
def run(s: qd.template()):
    for i in range(N):
        s.inner.x[i] = 3 * i + 1
        s.inner.f[i] = i + 100


run(outer)


@dataclasses.dataclass(frozen=True)
class Arrs:
    y: qd.types.NDArray[qd.i32, 1]


@qd.data_oriented
class Holder:
    def __init__(self, arrs):
        self.arrs = arrs

    @qd.kernel
    def fill(self):
        for i in range(N):
            self.arrs.y[i] = 2 * i + self.k

    k = 5


y = qd.ndarray(qd.i32, shape=(N,))
holder = Holder(arrs=Arrs(y=y))
holder.fill()


@qd.data_oriented
class Named:
    def __init__(self):
        self.g = qd.field(qd.i32, shape=(N,))


named = Named()
pair = Outer(inner=named)


@qd.kernel
def put(p: qd.template()):
    for i in range(N):
        p.inner.g[i] = N - i


put(pair)


@dataclasses.dataclass(frozen=True)
class Big:
    a: qd.types.NDArray[qd.i32, 1]
    b: qd.types.NDArray[qd.i32, 1]
    c: qd.types.NDArray[qd.i32, 1]


arrays = [qd.ndarray(qd.i32, shape=(N,)) for _ in range(3)]
big = Big(*arrays)


@qd.kernel
def use_two(s: Big):
    for i in range(N):
        s.a[i] = i
        s.c[i] = 7 - i


use_two(big)
assert big._qd_dc_unwrapped["a"] is arrays[0]
