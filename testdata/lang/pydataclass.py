# @dataclasses.dataclass containers as kernel and qd.func parameters (qdc-abi(7), "Dataclass
# parameters"): members flattened to parameters PARAM__MEMBER in declaration order, nested ones
# depth first; generic members (qd.Tensor, qd.template()) instantiated from the host call.
import dataclasses
from dataclasses import dataclass

import quadrants as qd

vec3 = qd.types.vector(3, qd.f32)
F1 = qd.types.NDArray[qd.f32, 1]  # annotation aliases, as a physics engine writes them
V_TEMPLATE = qd.template()


@dataclass
class Inner:
    x: F1
    w: vec3


@dataclasses.dataclass(frozen=True)
class Outer:
    inner: Inner
    y: qd.types.ndarray(dtype=qd.i32, ndim=1)
    scale: float
    n: qd.i32


@qd.func
def touch_inner(inner: Inner) -> None:
    inner.x[0] += inner.w.x + inner.w.y + inner.w.z


@qd.func
def touch_outer(s: Outer, k: qd.i32) -> qd.i32:
    s.y[k] = k * 3
    touch_inner(s.inner)
    return s.n


@qd.kernel
def outer_step(s: Outer, z: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(s.n):
        z[i] = touch_outer(s, i) + i
        s.inner.x[i + 1] = s.scale * i


def test_fields():
    @dataclasses.dataclass(frozen=True)
    class State:
        a: qd.Tensor
        b: V_TEMPLATE
        bias: qd.template()

    fa = qd.field(qd.i32, shape=(8,))
    fb = qd.field(qd.i32, shape=(8,))

    @qd.kernel
    def write(st: State):
        for i in st.a:
            st.a[i] = i + st.bias
            st.b[i] = 10 * i

    state = State(a=qd.Tensor(fa), b=fb, bias=5)
    write(state)
    write(State(a=fb, b=fa, bias=-1))


def test_template():
    @dataclasses.dataclass
    class Arrays:
        p: qd.types.NDArray[qd.f32, 1]
        q: object

    @qd.kernel
    def double(s: qd.template()):
        for i in s.p:
            s.p[i] = 2.0 * s.q[i]

    arrs = Arrays(p=qd.ndarray(qd.f32, shape=(4,)), q=qd.ndarray(qd.f32, shape=(4,)))
    double(arrs)
