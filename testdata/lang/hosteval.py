# hosteval.py — host Python that qdc evaluates at compile time (issue 14): a function returning one
# expression (called in host code and in kernels), qd.lang.impl.current_cfg() (arch, default_fp),
# == between types and namespaces, qd._lib.core.data_type_size, math.prod, @pytest.mark.parametrize
# over a module-level list of pytest.param rows, a function passed to a helper, and dicts of
# compile-time keys ({OP: qd.atomic_max}[op], {"w": 3}["w"], `in`), and a helper that makes and
# returns a kernel (scaler = make_scaler(3); scaler(arr)). Host: hosteval.c.
# backends: x86_64
import math

import pytest

import quadrants as qd


def lanes():
    """The subgroup size Quadrants pins each arch to (host side)."""
    return 64 if qd.lang.impl.current_cfg().arch == qd.amdgpu else 32


def square(x):
    return x * x


SHAPE = (3, 4)
N = math.prod(SHAPE) * qd._lib.core.data_type_size(qd.f64)  # 96
ON_CPU = 1 if qd.lang.impl.current_cfg().arch == qd.cpu else 0  # qd.cpu is x64 here
FP_IS_F32 = 1 if qd.lang.impl.current_cfg().default_fp == qd.f32 else 0
out = qd.field(qd.i32, shape=8)
OP_ADD, OP_MAX = 0, 1
OPS = {OP_ADD: qd.atomic_add, OP_MAX: qd.atomic_max}
WEIGHTS = {"w": 3, "z": 4}

CASES = [pytest.param(qd.i32, 5, id="int"), pytest.param(qd.f32, 6, id="float")]


@qd.kernel
def k(a: qd.i32):
    out[0] = N
    out[1] = lanes()
    out[2] = square(a)  # a Python function called with a kernel value
    out[3] = ON_CPU + 10 * FP_IS_F32 + 100 * WEIGHTS["w"] + (1000 if qd.static("z" in WEIGHTS) else 0)
    OPS[OP_MAX](out[7], a)  # the dict's value: qd.atomic_max


def run(fn, slot):  # a helper taking a function
    @qd.kernel
    def apply():
        out[slot] = fn(7)

    apply()


run(square, 4)


@pytest.mark.parametrize("dt,m", CASES)
def test_cases(dt, m):
    init = 0 if dt == qd.i32 else 0.5
    @qd.kernel
    def fill():
        out[m] = qd.cast(init * 2, qd.i32) + m * (2 if qd.static(dt == qd.f32) else 1)

    fill()


def make_scaler(factor):
    @qd.kernel
    def scale(a: qd.types.ndarray()):
        for i in range(a.shape[0]):
            a[i] = a[i] * factor

    return scale


scaler = make_scaler(3)
arr = qd.ndarray(qd.i32, shape=(4,))
scaler(arr)
make_scaler(5)(arr)  # called where it is made
