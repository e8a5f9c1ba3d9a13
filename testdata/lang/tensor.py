"""tensor.py — Quadrants' tensor API (qdc-lang(7), TENSORS): qd.tensor, qd.Vector.tensor and
qd.Matrix.tensor on both backends (a parametrized backend= too), layout= on a field (its storage
order) and on an ndarray (the host passes the buffer and shape in storage order, kernels index
the canonical axes), _with_layout, a host helper returning a tensor, and the arrays that
instantiate generic kernels: qd.Vector.ndarray, qd.Matrix.ndarray, qd.ndarray of a vector type.
Every permutation of a rank-3 ndarray (parametrized with itertools.permutations) runs too, and
qd.ndrange(axes=) in parallel, serial and unrolled loops. Host: tensor.c."""
import itertools

import pytest

import quadrants as qd
from quadrants._tensor import _with_layout

BACKENDS = [qd.Backend.FIELD, qd.Backend.NDARRAY]
vec2 = qd.types.vector(2, qd.i32)


@qd.kernel
def fill(x: qd.Tensor):
    for i, j in qd.ndrange(x.shape[0], x.shape[1]):
        x[i, j] = i * 100 + j


@qd.kernel
def bump(x: qd.types.ndarray()):
    for i, j in x:  # a struct-for visits the canonical index space
        x[i, j] += (i + 1) * 1000 + x.shape[1] * 10000


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", [None, (1, 0)])
def test_fill(backend, layout):
    a = qd.tensor(qd.i32, shape=(3, 5), backend=backend, layout=layout)
    fill(a)


def test_rank3():
    t = qd.tensor(qd.f32, shape=(2, 3, 4), layout=(2, 0, 1))
    f = qd.tensor(qd.f32, shape=(2, 3, 4), backend=qd.Backend.FIELD, layout=(2, 0, 1))

    @qd.kernel
    def put(x: qd.types.ndarray(ndim=3), y: qd.template()):
        for i, j, k in qd.ndrange(x.shape[0], x.shape[1], x.shape[2]):
            x[i, j, k] = i * 100.0 + j * 10.0 + k
            y[i, j, k] = x[i, j, k] + 0.5

    put(t, f)


def _alloc(m, n, layout=None):
    if layout is None:
        return qd.tensor(qd.i32, shape=(m, n))
    physical = tuple((m, n)[axis] for axis in layout)
    a = qd.tensor(qd.i32, shape=physical, backend=qd.Backend.NDARRAY)
    _with_layout(a, layout)
    return a


def test_tagged():
    a = _alloc(3, 5, layout=(1, 0))
    bump(a)


def test_elements():
    v = qd.Vector.tensor(3, qd.f32, shape=(4,))
    m = qd.Matrix.tensor(2, 2, qd.f32, shape=(4,), backend=qd.Backend.FIELD)
    w = qd.Vector.ndarray(2, qd.i32, (4,))
    u = qd.ndarray(vec2, shape=(4,))

    @qd.kernel
    def comps(a: qd.types.ndarray(), b: qd.template(), c: qd.types.ndarray(), d: qd.types.ndarray()):
        for i in range(a.shape[0]):
            a[i] = qd.Vector([i * 1.0, i * 2.0, i * 3.0])
            b[i] = qd.Matrix([[i * 1.0, 1.0], [2.0, i * 4.0]])
            c[i] = qd.Vector([i, -i])
            d[i] = c[i] * 3

    comps(v, m, w, u)


order = qd.field(qd.i32, shape=(3, 4))
count = qd.field(qd.i32, shape=())
cells = qd.field(qd.i32, shape=(3, 4, 2))
unrolled = qd.field(qd.i32, shape=(2, 3))


@qd.kernel
def visit():
    qd.loop_config(serialize=True)
    for i, j in qd.ndrange(3, 4, axes=(1, 0)):  # j outermost: (0, 0), (1, 0), (2, 0), (0, 1), ...
        order[i, j] = qd.atomic_add(count[None], 1)
    for i, j, k in qd.ndrange(3, 4, 2, axes=(2, 0, 1)):  # parallel: every cell once, canonical indices
        cells[i, j, k] = i * 100 + j * 10 + k
    n = 0
    for i, j in qd.static(qd.ndrange(2, 3, axes=(1, 0))):
        unrolled[i, j] = n
        n += 1


def test_visit():
    visit()


@qd.kernel
def fill3(x: qd.types.ndarray()):
    for i, j, k in qd.ndrange(x.shape[0], x.shape[1], x.shape[2]):
        x[i, j, k] = i * 100 + j * 10 + k + x.shape[2] * 1000


@pytest.mark.parametrize("layout", list(itertools.permutations(range(3))))
def test_perms(layout):
    a = qd.tensor(qd.i32, shape=(2, 3, 4), layout=layout)
    fill3(a)
