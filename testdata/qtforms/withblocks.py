"""withblocks.py — Quadrants' kernel-scope `with` blocks: qd.stream_parallel() blocks (a kernel whose top
level is only such blocks, several loops in one block), a qd.graph.parallel_context() region whose
qd.graph.parallel() sections come from a qd.static loop and a qd.static if, a region inside a
qd.graph.do_while loop, and the deprecated flat spellings. Every block runs where it stands (its loops are
the kernel's parallel loops); the results are those of running the sections one after the other.
Host: tests/unit/test_qtforms.c."""
import quadrants as qd

N = 64
a = qd.field(qd.i32, shape=N)
b = qd.field(qd.i32, shape=N)
c = qd.field(qd.i32, shape=N)


@qd.kernel
def streams(k: qd.i32):
    with qd.stream_parallel():
        for i in range(N):
            a[i] = i * k
    with qd.stream_parallel():
        for i in range(N):
            b[i] = i + k
        for i in range(N):
            b[i] = b[i] * 2


@qd.func
def bump(x: qd.template(), d: qd.i32):
    for i in range(N):
        x[i] += d


@qd.kernel(graph=True)
def sections(x: qd.types.ndarray(qd.i32, ndim=1)):
    for i in range(N):
        c[i] = x[i]
    with qd.graph.parallel_context():
        for j in qd.static(range(2)):
            with qd.graph.parallel():
                bump(a if j == 0 else b, 100 * (j + 1))
        if qd.static(N > 10):
            with qd.graph.parallel():
                for i in range(N):
                    x[i] = x[i] * 3
    for i in range(N):
        c[i] += x[i]


@qd.kernel(graph=True)
def looped(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(n):
        with qd.graph_parallel_context():
            with qd.graph_parallel():
                for i in range(x.shape[0]):
                    x[i] = x[i] + 1
            with qd.graph_parallel():
                for _ in range(1):
                    n[()] = n[()] - 1
