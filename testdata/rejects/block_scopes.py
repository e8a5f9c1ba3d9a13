# Quadrants' block scopes (issue 30; tests/unit/test_rejects.c runs it on x86): a loop's variables
# are the loop's (an ndrange variable shadows an outer one, which keeps its value), a name first
# assigned in an if/while/for body is the body's, an outer variable assigned in a body is the
# outer one, and a grouped loop nested under a run-time if inside a loop (x.fill) stores through
# its own index.
import quadrants as qd

out = qd.field(qd.i32, shape=8)
g = qd.Vector.field(2, qd.i32, shape=(2, 3))


@qd.kernel
def scopes(n: qd.i32):
    for t in range(1):
        i = 100
        acc = 0
        for i, j in qd.ndrange(2, 3):
            acc += i * 10 + j
        out[0] = i
        out[1] = acc
        for r in range(2):
            if r == n:
                g.fill(r + 5)
        a = 1
        if n > 0:
            a = 2
            b = 7
            a += b
        out[2] = a
        k = 0
        while k < 3:
            c = k * 2
            k += 1 + c - c
        out[3] = k
        for s in qd.static(range(3)):
            a += s
        out[4] = a
    for I in qd.grouped(g):
        out[5] += g[I][0] + g[I][1]
