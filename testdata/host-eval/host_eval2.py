# Host code qdc follows (tests/unit/test_host_eval2.c): a torch.autograd.Function's forward run
# by F.apply, arrays made like others (zeros_like, torch.tensor of a numpy array, 2 * array), a
# host function called through another name, comprehensions over run-time values, getattr with a
# run-time name, a test_* function the script calls, numpy's math on numbers.
import numpy as np
import torch

import quadrants as qd

arch = getattr(qd, qd.cfg.arch.name)  # a name only the running script knows: a run-time value
qd.init(arch=arch)
n = 8


@qd.kernel
def square(t: qd.types.ndarray(), o: qd.types.ndarray()):
    for i in range(n):
        o[i] = t[i] * t[i]


class Sqr(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        outp = torch.zeros_like(inp)
        ctx.save_for_backward(inp)
        square(inp, outp)
        return outp


sqr = Sqr.apply
X = torch.tensor(2 * np.ones((n,), dtype=np.float32), requires_grad=True)
sqr(X).sum().backward()
Sqr.apply(torch.ones(n, dtype=torch.float64))


def make(dt, k):
    a = np.ones(n, dtype=dt) * 3

    @qd.kernel
    def scale(x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i in range(n):
            y[i] = x[i] * k + i

    scale(a, np.zeros_like(a))


run = make
run(np.int32, 5)

seen = list(X.detach().numpy())
positive = [i for i in range(n) if seen[i] > 0]


def test_fill(dt, m):
    @qd.kernel
    def fill(a: qd.types.ndarray()):
        for i in range(m):
            a[i] = i * m

    fill(np.zeros(m, dtype=dt))


test_fill(np.float32, 4)

c0 = np.cos(0) + np.sqrt(4.0)
ang = np.degrees(np.arctan2(1, 1))


@qd.kernel
def consts(o: qd.types.ndarray()):
    o[0] = c0
    o[1] = ang


consts(np.zeros(2, dtype=np.float32))

x_np = np.array([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]], dtype=np.float32)
rows = len(x_np)
cols = x_np.shape[1]
total = x_np.size - 1 + x_np.ndim


@qd.kernel
def sizes(o: qd.types.ndarray()):
    o[0] = rows
    o[1] = cols
    o[2] = total
    o[3] = x_np.size


sizes(np.zeros(4, dtype=np.int32))

A = np.ones((3, 2), dtype=np.float32)
B = np.ones((2, 4), dtype=np.float32)


@qd.kernel
def prod(p: qd.types.ndarray(), q: qd.types.ndarray()):
    for i, j in qd.ndrange(3, 4):
        p[i, j] = i * 10 + j
    for i in range(3):
        q[i] = i * 2


prod(np.dot(A, B), A @ np.ones(2, dtype=np.float32))
