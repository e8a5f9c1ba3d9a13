# BufferView kernels (tests/unit/test_lang_features2.c): a view parameter with a dtype, one
# without (its dtype from the array the call passes), views of views (slice, subview), a view
# built in a kernel and one passed to a qd.func, a view of an ndarray of matrices.
import numpy as np

import quadrants as qd
from quadrants import BufferView

N = 16


@qd.func
def put(w: BufferView[qd.i32], k: qd.i32, x: qd.i32):
    w[k] = x


@qd.kernel
def views(v: BufferView[qd.i32], base: qd.i32):
    for i in range(v.size):
        v[i] = base + i
    sub = v[1:3]
    for i in range(sub.size):
        sub[i] += 100 * sub.shape[0]
    last = v.subview(v.size - 1, 1)
    for i in range(last.size):
        put(last, i, last.offset * 1000 + last.size)


@qd.kernel
def made(a: qd.types.ndarray(qd.i32, ndim=1), off: qd.i32, n: qd.i32):
    view = BufferView(a, off, n)
    for i in range(view.size):
        view[i] = -(i + 1)
    tail = view[n - 1 :]
    tail[0] = tail.size * 77


@qd.kernel
def scale(v: BufferView, f: qd.f32):
    for i in range(v.size):
        v[i] = v[i] * f + i


@qd.kernel
def diag(m: BufferView[qd.types.matrix(2, 2, qd.f32)]):
    for i in range(m.size):
        for k in range(2):
            m[i][k, k] = m.offset + i + 0.5 * k


data = qd.ndarray(qd.f32, shape=(N,))
scale(data[4:12], 2.0)
