# Host-side evaluation (qdc-lang(7) HOST FUNCTIONS): helper host functions instantiated per
# call, host for/with/try blocks, module-level if, pytest defaults, @qd.kernel(fastcache=...).
import numpy as np
import pytest

import quadrants as qd

USE_WIDE = False

if USE_WIDE:
    width = 64
else:
    width = 8


def _fill(dt, n, scale=2):
    # one instance per distinct call: _fill__i32_8_2__fill, _fill__f32_8_2__fill, _fill__i32_4_3__fill
    z = qd.field(dt, shape=n)

    @qd.kernel
    def fill():
        for i in range(n):
            z[i] = qd.cast(i * scale, dt) + qd.cast(1, dt)

    fill()


@pytest.mark.parametrize("dt", [qd.i32, qd.f32])
def test_fill(dt):
    _fill(dt, width)
    _fill(dt, n=width)  # the same call: no second instance


def test_fill_keywords():
    _fill(qd.i32, 4, scale=3)
    _late(5)  # defined below: pytest runs the test after the whole module is read


def _late(k):
    out = qd.field(qd.i32, shape=())

    @qd.kernel
    def late():
        out[None] = k * 10

    late()


acc = qd.field(qd.i32, shape=16)


@qd.kernel
def put(i: qd.i32, j: qd.template()):
    acc[i * 4 + j] += i * 100 + j + 1


def test_loops():
    for i in range(0, 4, 2):
        for j in (1, 3):
            put(i, j)  # call sites: put__1, put__3
    with pytest.raises(RuntimeError):
        put(0, 2)  # a call site in a with block

        @qd.kernel
        def rejected(a: qd.template()):
            a is None  # the script expects this block to raise: not compiled

    try:
        put(1, 0)
    except ValueError:
        pass
    for dt in [qd.i32, qd.f32]:
        _fill(dt, 4, scale=3)


def test_default(n=6):
    # pytest passes no argument for a parameter with a default: n is 6
    res = qd.field(qd.i32, shape=())

    @qd.kernel(fastcache=True)
    def twice(a: qd.types.ndarray(dtype=qd.i32, ndim=1), m: qd.i32) -> qd.i32:
        s = 0
        for i in range(a.shape[0]):
            s += a[i] * m
        return s

    @qd.pure
    @qd.kernel
    def konst(x: qd.i32) -> qd.i32:
        return x + 1

    @qd.kernel
    def store():
        res[None] = n

    store()


@qd.kernel
def bump(a: qd.types.ndarray()):
    for I in qd.grouped(a):
        a[I] += 1


def test_arrays():
    m = np.zeros(shape=(2, 3), dtype=np.int32)
    bump(m.T)  # bump__i32_2d
    bump(m.astype(np.float32).copy())  # bump__f32_2d
    bump(qd.ndarray(dtype=int, shape=4))  # int is Quadrants' default integer type, i32: bump__i32_1d


def _check(dt, pred):
    # pred is a lambda: a compile-time function (a kernel could call it), spelled by where it is
    r = qd.field(dt, shape=())

    @qd.kernel
    def seven():
        r[None] = qd.cast(7, dt)

    seven()
    assert pred(r[None])


def test_check():
    _check(qd.i32, lambda v: v == 7)  # _check__i32_pred_l125c20__seven


conv = qd.field(qd.f32, shape=4)


@qd.kernel
def convert(dt: qd.template(), n: qd.template()):
    for i in range(n):
        conv[i] = qd.cast(i * 1.5, dt)


def test_types():
    convert(qd.i32, 4)  # a qd type passed to a qd.template(): convert__i32__4
    dtype = qd.f32
    convert(dtype, 4)  # convert__f32__4
