# semantics.py — kernel-language semantics Quadrants defines (issue 14): break and continue of
# qd.static loops, qd.static with several arguments, returns under run-time control flow in a
# qd.real_func, `and` / `or` and `a if c else b` evaluated as in Python.
# Host: semantics.c.
import quadrants as qd

qd.init(arch=qd.cpu)

out = qd.field(qd.i32, shape=32)
x = qd.field(qd.i32, shape=())
a = qd.field(qd.i32, shape=10)
calls = qd.field(qd.i32, shape=())
grid = qd.field(qd.i32, shape=(3, 64))
zero = qd.field(qd.i32, shape=())


@qd.real_func
def bump(val: qd.i32) -> qd.i32:
    if x[None] > 10:
        if x[None] > 20:
            return 1
        x[None] += 1
    x[None] += val
    return 0


@qd.real_func
def first_over(limit: qd.i32) -> qd.i32:
    s = 0
    for i in range(100):
        if s > limit:
            return i
        s += i
    return -1


@qd.real_func
def find2(t: qd.i32) -> qd.i32:
    for i, j in qd.ndrange(4, 5):
        if i * 5 + j == t:
            return i * 10 + j
    return -1


@qd.real_func
def root_ceil(n: qd.i32) -> qd.i32:
    i = 0
    while True:
        i += 1
        if i * i >= n:
            return i


@qd.real_func
def unrolled(n: qd.i32) -> qd.i32:
    r = 100
    for k in qd.static(range(4)):
        if n == k:
            return r + k
        r += 10
    return r


@qd.real_func
def store_first(n: qd.i32):
    for i in range(n):
        if out[28 + i] == 0:
            out[28 + i] = n
            return


@qd.func
def count() -> qd.i32:
    calls[None] += 1
    return 1


@qd.kernel
def sem(n: qd.i32):
    for i in qd.static(range(5)):  # break ends the unrolling
        out[i] = 1
        if qd.static(i == 2):
            break
    for i in qd.static(range(5)):  # continue skips the rest of one iteration
        if qd.static(i == 1):
            continue
        out[5 + i] += 2
    for v in qd.static((7, 8, 9)):
        out[10] += v
        if qd.static(v == 8):
            break
    x[None] = 0
    out[11] = bump(15)  # x = 15
    out[12] = bump(10)  # x = 26
    out[13] = bump(100)  # returns early: x stays 26
    out[14] = x[None]
    out[15] = first_over(n)
    out[16] = first_over(100000)
    out[17] = find2(13)
    out[18] = find2(50)
    out[19] = root_ceil(n)
    out[20] = unrolled(2)
    out[21] = unrolled(9)
    calls[None] = 0
    if n > 100 and a[n] > 0:  # a[n] is not read: n is past a's end
        out[22] = 1
    t = n > 0 or count() > 0  # count() does not run
    f = n < 0 and count() > 0  # nor here
    g = n > 0 and count() > 0  # it runs
    out[23] = calls[None] * 100 + qd.i32(t) * 10 + qd.i32(f) * 2 + qd.i32(g)
    s24 = qd.static(0 or 3 or 5); out[24] = s24
    c, d = qd.static(out, x)
    c[25] = d[None] + 1
    out[26] = (n and 7) + (0 or n) * 100  # the deciding operand's value
    out[27] = a[n - 1] if n < 10 else -3  # a[n - 1] is not read
    va = qd.Vector([2, 2, 0, 0])
    vb = qd.Vector([1, 0, 1, 0])
    z = va or vb  # element-wise
    w = va and vb
    out[30] = z[0] * 1000 + z[1] * 100 + z[2] * 10 + z[3]
    out[31] = w[0] * 1000 + w[1] * 100 + w[2] * 10 + w[3]
    out[28] = 0
    out[29] = 0
    store_first(2)
    store_first(2)
    store_first(2)


@qd.kernel
def tops(n: qd.i32):
    s = n * 2  # read by the parallel loops: a kernel-scope local
    for d in qd.static(range(3)):  # unrolled at the top level: its loops are parallel
        qd.loop_config(block_dim=32)
        for i in range(64):
            grid[d, i] = i + d * 100 + s
        if qd.static(d == 1):
            break


@qd.kernel
def zerod():
    for I in qd.grouped(qd.ndrange()):  # one point, I is the empty index
        zero[I] = 42
    for I in qd.grouped(zero):  # a struct-for over a 0-d field
        zero[I] += 1
