"""dowhile.py — graph kernels: `while qd.graph.do_while(c):` repeats its body's tasks while element 0
of a qd.i32 ndarray is non-zero (at least once). A counter and a flag as the condition, loops
nested two and three deep, sibling loops, run-once for loops and bare statements around them,
bare statements and ifs in a body, a qd.func with a parallel loop at both levels, a loop in a
qd.func, qd.loop_config inside a body, a kernel-scope local used inside a loop, loop bounds read
from memory, qd.random drawing anew in each pass, the deprecated qd.graph_do_while spelling and a
@qd.data_oriented member as the condition. Host: dowhile.c."""
import numpy as np

import quadrants as qd

N = 40
INNER = 3


@qd.kernel(graph=True)
def countdown(x: qd.types.ndarray(qd.i32, ndim=1), counter: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(counter):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        for _ in range(1):
            counter[()] = counter[()] - 1


@qd.kernel(graph=True)
def until(x: qd.types.ndarray(qd.f32, ndim=1), limit: qd.f32, going: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(going):
        for i in range(x.shape[0]):
            x[i] = x[i] + 0.5
        if x[0] >= limit:
            going[()] = 0


@qd.kernel(graph=True)
def nested(x: qd.types.ndarray(qd.i32, ndim=1), outer: qd.types.ndarray(qd.i32, ndim=0),
           inner: qd.types.ndarray(qd.i32, ndim=0)):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1000
    while qd.graph.do_while(outer):
        inner[()] = INNER
        for i in range(x.shape[0]):
            x[i] = x[i] + 100
        while qd.graph.do_while(inner):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
            inner[()] = inner[()] - 1
        outer[()] = outer[()] - 1
    for i in range(x.shape[0]):
        x[i] = x[i] * 2


@qd.kernel(graph=True)
def deep(x: qd.types.ndarray(qd.i32, ndim=1), a: qd.types.ndarray(qd.i32, ndim=0), b: qd.types.ndarray(qd.i32, ndim=0),
         c: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(a):
        b[()] = 3
        while qd.graph.do_while(b):
            c[()] = 2
            while qd.graph.do_while(c):
                for i in range(x.shape[0]):
                    x[i] = x[i] + 1
                c[()] = c[()] - 1
            b[()] = b[()] - 1
        a[()] = a[()] - 1


@qd.kernel(graph=True)
def tail(x: qd.types.ndarray(qd.i32, ndim=1), outer: qd.types.ndarray(qd.i32, ndim=0), inner: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(outer):  # ends with the inner loop: both loops end at one task
        outer[()] = outer[()] - 1
        inner[()] = 2
        while qd.graph.do_while(inner):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
            inner[()] = inner[()] - 1


@qd.kernel(graph=True)
def siblings(x: qd.types.ndarray(qd.i32, ndim=1), y: qd.types.ndarray(qd.i32, ndim=1), c1: qd.types.ndarray(qd.i32, ndim=0),
             c2: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(c1):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        c1[()] = c1[()] - 1
    while qd.graph_do_while(c2):  # the deprecated spelling
        for i in range(y.shape[0]):
            y[i] = y[i] + 2
        c2[()] = c2[()] - 1


@qd.func
def bump(x: qd.types.ndarray(qd.i32, ndim=1), by: qd.i32):
    for i in range(N):
        x[i] = x[i] + by


@qd.func
def seed(x: qd.types.ndarray(qd.i32, ndim=1), runs: qd.types.ndarray(qd.i32, ndim=0)):
    for i in range(N):
        x[i] = 10
    runs[()] = runs[()] + 1


@qd.kernel(graph=True)
def funcs(x: qd.types.ndarray(qd.i32, ndim=1), runs: qd.types.ndarray(qd.i32, ndim=0), c: qd.types.ndarray(qd.i32, ndim=0)):
    seed(x, runs)
    step = 3  # kernel-scope: read by the loop's tasks
    while qd.graph.do_while(c):
        x[0] = x[0] + 1000
        qd.loop_config(block_dim=8)
        for i in range(x.shape[0]):
            x[i] = x[i] + step
        bump(x, 1)
        c[()] = c[()] - 1


@qd.func
def relax(x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(c):  # qd.funcs are inlined: the loop is the calling kernel's
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        c[()] = c[()] - 1


@qd.kernel(graph=True)
def factored(x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
    relax(x, c)
    for i in range(x.shape[0]):
        x[i] = x[i] * 3


@qd.kernel(graph=True)
def bounded(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.types.ndarray(qd.i32, ndim=0), outer: qd.types.ndarray(qd.i32, ndim=0)):
    half = n[()] // 2  # kernel-scope: a loop bound read from memory
    while qd.graph.do_while(outer):
        for i in range(n[()]):  # a bound read from device memory, as Quadrants allows
            x[i] = x[i] + 1
        for i in range(half):
            x[i] = x[i] + 100
        outer[()] = outer[()] - 1


@qd.kernel(graph=True)
def draws(r: qd.types.ndarray(qd.f32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(c):
        for _ in range(1):
            r[c[()]] = qd.random()
        c[()] = c[()] - 1


@qd.data_oriented
class Sim:
    def __init__(self, n):
        self.x = qd.ndarray(qd.i32, shape=(n,))
        self.outer = qd.ndarray(qd.i32, shape=())
        self.inner = qd.ndarray(qd.i32, shape=())

    @qd.kernel(graph=True)
    def step(self):
        while qd.graph.do_while(self.outer):
            self.inner[()] = 2
            while qd.graph.do_while(self.inner):
                for i in range(self.x.shape[0]):
                    self.x[i] = self.x[i] + 1
                self.inner[()] = self.inner[()] - 1
            self.outer[()] = self.outer[()] - 1


sim = Sim(8)


if __name__ == "__main__":
    x = qd.ndarray(qd.i32, shape=(N,))
    c = qd.ndarray(qd.i32, shape=())
    c.from_numpy(np.array(5, dtype=np.int32))
    countdown(x, c)
    sim.outer.from_numpy(np.array(3, dtype=np.int32))
    sim.step()
