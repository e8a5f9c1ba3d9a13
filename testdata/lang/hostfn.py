# qdc: --instantiate=test_named__bump(a=i32[1], k=3)
"""hostfn.py — kernels defined inside host functions, as Quadrants' own tests write them: each
host function is a scope (its fields, constants and SNode placements are its own), kernels of
the same name in several functions get distinct entry names (FUNCTION__KERNEL), a kernel sees
the function's names as they are at its first call, a redefined kernel gets __def2, nested
host functions nest the prefix, and generic kernels are instantiated from their calls;
a parametrized function is evaluated once per value (test_place__1__func, test_place__2__func).
Host: hostfn.c."""
import numpy as np
import pytest

import quadrants as qd
from tests import test_utils

N = 64
x = qd.field(qd.i32, shape=N)  # a module field; test_fill's x is another one


@qd.kernel
def top():
    for i in x:
        x[i] = 1


@test_utils.test(arch=[qd.cpu])
def test_fill():
    x = qd.field(qd.i32, shape=N)
    m = 3
    seen: dict[str, int] = {}  # host data: an empty dict

    @qd.kernel
    def func():
        for i in x:
            x[i] = i * m

    func()
    m = 5  # after the first call: func keeps m = 3
    assert x[2] == 6

    @qd.kernel
    def func():  # a second kernel of the same name: entry test_fill__func__def2
        for i in x:
            x[i] += m

    func()


@pytest.mark.parametrize("unused", [1, 2])
def test_place(unused):
    a = qd.field(qd.f32)
    b = qd.field(qd.f32)
    c = qd.field(qd.i32)
    qd.root.dense(qd.i, N).place(a, b)
    qd.root.place(c)
    step = 2

    @qd.kernel
    def func():
        for i in range(N):
            a[i] = i * 0.5
            b[i] = i * 2.0
            qd.atomic_add(c[None], step)

    func()

    def inner():
        d = qd.field(qd.i32, shape=(4, 4))

        @qd.kernel
        def func():
            for i, j in d:
                d[i, j] = i * 10 + j

        func()

    inner()


def test_generic():
    f = qd.field(qd.i32, shape=N)
    g = qd.field(qd.i32, shape=N)

    @qd.kernel
    def fill(t: qd.template(), v: qd.template()):
        for i in t:
            t[i] = v

    @qd.kernel
    def scale(arr: qd.types.ndarray(), k: qd.template()):
        for i in range(arr.shape[0]):
            arr[i] = arr[i] * k

    fill(f, 7)
    fill(g, -2)
    fill(f, 7)  # the same instantiation again
    fill(t=g, v=-2)
    a = qd.ndarray(qd.f32, shape=(N,))
    scale(a, 3)
    scale(np.zeros(N, dtype=np.int32), 2)
    scale(np.array([1, 2, 3], dtype=np.float32), 3)  # the same as scale(a, 3)


def test_named():
    @qd.kernel
    def bump(a: qd.types.ndarray(), k: qd.template()):
        for i in a:
            a[i] += k

    bump(helper_array(), 3)  # not evaluable: --instantiate names the kernel instead


def helper_array():
    return np.ones(4, dtype=np.int32)
