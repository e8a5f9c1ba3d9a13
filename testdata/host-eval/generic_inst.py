# Generic kernels instantiated by calls qdc evaluates (tests/unit/test_generic_inst.c): an array
# passed through a host helper, a dtype read from a dict of numpy dtypes (np.bool_ is u1), a
# layout that is one item of itertools.permutations, a generic kernel no call reaches (QD2108),
# and a numpy array of scalars for an ndarray of vec2 (its last axis is the element's).
import itertools

import numpy as np

import quadrants as qd

_NP = {qd.u1: np.bool_, qd.i32: np.int32, qd.f32: np.float32}


def scale(arr, v):
    @qd.kernel
    def k(a: qd.types.ndarray(), b: qd.types.NDArray):
        for i in range(a.shape[0]):
            a[i] = b[i] * v + i

    k(arr, np.ones(8, dtype=_NP[qd.i32]))


scale(np.zeros((8,), dtype=np.float32), 3)
scale(np.zeros((8,), dtype=_NP[qd.i32]), 5)

np_dtype = _NP[qd.u1]
flags = np.zeros(dtype=np_dtype, shape=(8,))


@qd.kernel
def count(f: qd.types.ndarray(), out: qd.types.ndarray()):
    for i in range(f.shape[0]):
        if f[i]:
            qd.atomic_add(out[0], i)


count(flags, np.zeros(1, dtype=np.int32))

layout = list(list(itertools.permutations(range(3))))[-1]
t = qd.tensor(qd.i32, shape=(2, 3, 4), backend=qd.Backend.NDARRAY, layout=layout)


@qd.kernel
def fill(x: qd.types.ndarray()):
    for i, j, k in qd.ndrange(2, 3, 4):
        x[i, j, k] = i * 100 + j * 10 + k


fill(t)


@qd.kernel
def never(x: qd.types.ndarray()):
    x[0] = 1


@qd.kernel
def mix(p: qd.types.ndarray(dtype=qd.math.vec2), out: qd.types.ndarray()):
    for i in range(p.shape[0]):
        out[i] = p[i][0] + 10 * p[i][1]


mix(np.zeros((4, 2), dtype=np.float32), np.zeros(4, dtype=np.float32))
