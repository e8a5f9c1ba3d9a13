# hostloop.py — host Python control flow that qdc evaluates at compile time (issue 14 item 6):
# while loops, break and continue in host for loops, NAME op= VALUE, helper functions of several
# statements returning a value (an annotation chosen by an if, a power of two from a while loop),
# `A if cond else B` choosing an annotation, a parametrized constructor (tensor_type(dtype, shape)
# with tensor_type qd.ndarray or qd.field), qd.Tensor(a) of a helper's field, list.append/extend,
# a vector field's .n, impl.get_runtime().default_fp, parametrize over
# qd.types.primitive_types.integer_types, the kernels two calls of one helper return (each its own,
# its parameter annotated with a name of the helper). Host: hostloop.c.
# backends: x86_64
import pytest

import quadrants as qd
from quadrants.lang import impl

out = qd.field(qd.i32, shape=16)

n = 1
while n < 100:  # 1 3 9 27 81 243
    n *= 3
total = 0
for i in range(10):
    if i % 2:
        continue
    if i > 6:
        break
    total += i  # 0 + 2 + 4 + 6


def pow2_at_least(x):
    p = 1
    while p < x:
        p <<= 1
    return p


def _ann(tensor_type, dtype, ndim):
    """The kernel annotation for tensor_type."""
    if tensor_type == qd.ndarray:
        return qd.types.NDArray[dtype, ndim]
    return qd.Template


def first_square_over(limit):
    for k in range(1, 100):
        if k * k > limit:
            return k
    return -1


def _alloc(kind, dtype, shape):
    if kind == 1:
        return qd.field(dtype, shape)
    return qd.ndarray(dtype, shape)


@qd.kernel
def consts():
    out[0] = n  # 243
    out[1] = total  # 12
    out[2] = pow2_at_least(20)  # 32
    out[3] = first_square_over(50)  # 8


@pytest.mark.parametrize("tensor_type", [qd.ndarray, qd.field])
def test_ann(tensor_type):
    Ann = _ann(tensor_type, qd.i32, 1)
    Alt = qd.types.NDArray[qd.i32, 1] if tensor_type == qd.ndarray else qd.template()
    x = tensor_type(qd.i32, (4,))

    @qd.kernel
    def fill(a: Ann, b: Alt):
        for i in range(4):
            a[i] = i * 2
        out[4 if qd.static(tensor_type == qd.field) else 5] = b[3] + 100

    fill(x, x)


def test_wrapped():
    a = _alloc(1, qd.i32, (3,))

    @qd.kernel
    def put(t: qd.template()):
        for i in range(3):
            t[i] = i + 7
        out[6] = t[2]

    put(qd.Tensor(a))


coeffs = []
for d in (2, 3, 4):
    coeffs.append(d * 10)
coeffs.extend([7])
vf = qd.Vector.field(3, dtype=qd.i32, shape=2)


@qd.kernel
def lists():
    out[7] = coeffs[0] + coeffs[3]  # 27
    out[8] = len(coeffs) * 10 + vf.n  # 43
    out[10] = int(qd.cast(2.5, FP) * 2)  # 5


FP = impl.get_runtime().default_fp  # qd.init's (f32); read when lists() compiles, after the module


@pytest.mark.parametrize("dt", qd.types.primitive_types.integer_types)
def test_cast(dt):
    @qd.kernel
    def conv():
        out[9] = qd.cast(qd.cast(-3.7, dt), qd.i32)

    conv()


def make_filler(n, kind):
    ann = qd.template() if kind == 1 else qd.types.ndarray()

    @qd.kernel
    def fill(x: ann):
        for i in range(2):
            x[i] = i + n

    return fill


def test_makers():
    f = qd.field(qd.i32, shape=2)
    g = qd.field(qd.i32, shape=2)
    fill_a = make_filler(10, 1)
    fill_b = make_filler(20, 1)
    fill_a(f)  # make_filler(10, 1)'s kernel, though make_filler(20, 1) defined one since
    fill_b(g)
