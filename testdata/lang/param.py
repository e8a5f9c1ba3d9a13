"""param.py — pytest-parametrized host functions: each combination of the listed values evaluates
the function once and names its kernels FUNCTION__COMBO__KERNEL (the decorator nearest the def
first, as in pytest's ids); getattr(qd, NAME) with a compile-time NAME (an f-string, +, str())
is qd.NAME; an `if` on parametrized values runs the branch it selects. Host: param.c."""
import pytest
from pytest import mark

import quadrants as qd

N = 32
SCALES = [2, -3]


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", [qd.i32, qd.f32])
def test_minmax(op, dtype):
    r = qd.field(dtype, shape=())
    atomic_op = getattr(qd, f"atomic_{op}")

    @qd.kernel
    def kern():
        for i in range(N):
            atomic_op(r[None], qd.cast((i * 7) % N - 5, dtype))

    kern()


@mark.parametrize("a, b", [(1, 2), pytest.param(3, -4, marks=pytest.mark.skip), pytest.param(5, 6, id="five")])
@pytest.mark.parametrize(("scale",), [[SCALES[0]], [SCALES[1]]])
def test_affine(a, b, scale, request):  # request: a fixture, not parametrized
    out = qd.field(qd.i32, shape=N)
    add = getattr(qd, "atomic_" + "add")

    @qd.kernel
    def affine():
        for i in range(N):
            out[i] = (a * i + b) * scale
        add(out[0], 1000)

    affine()


@pytest.mark.parametrize("k", SCALES)
def test_math(k):
    y = qd.field(qd.f32, shape=N)
    fn = getattr(qd.math, "sqrt")

    @qd.kernel
    def roots():
        for i in range(N):
            y[i] = fn(qd.cast(i * i, qd.f32)) * k

    roots()


@pytest.mark.parametrize("kind", [qd.ndarray, qd.field])
@pytest.mark.parametrize("big", [True, False])
def test_branch(kind, big, fixture):
    if big and kind is not qd.ndarray:
        n = 16
    elif kind == qd.ndarray:
        n = 8
    else:
        n = 4
    if fixture:  # not known: what it binds is a run-time value, unused by the kernel
        unused = 1
    cnt = qd.field(qd.i32, shape=())

    @qd.kernel
    def count():
        for i in range(n):
            qd.atomic_add(cnt[None], 1)

    count()
