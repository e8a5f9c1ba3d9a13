# pyforms.py — compile-time Python forms inside kernels (issue 14): argument unpacking, slices of
# vectors and matrices, comprehensions, is/in, enumerate/zip over qd.static, lambdas from host
# code, tuple arithmetic, all/any/sum on vectors and lists, and the small math builtins.
# Host: pyforms.c.
# qdc: --instantiate=early(a=8)
# qdc: --instantiate=early(a=20)
import quadrants as qd
from quadrants.math import inf, nan

qd.init(arch=qd.cpu)

WEIGHTS = (3, 5, 7)
DIMS = ((0, 4), (1, 3))
out = qd.field(qd.i32, shape=32)
fo = qd.field(qd.f32, shape=8)
grid = qd.field(qd.i32, shape=(4, 3))
mf = qd.Matrix.field(2, 2, qd.i32, shape=2)
square = lambda v: v * v


@qd.func
def add3(a, b, c):
    return a * 100 + b * 10 + c


@qd.kernel
def forms(a: qd.types.ndarray(dtype=qd.i32, ndim=2)):
    for i, j in qd.ndrange(*a.shape):  # unpacking an ndarray shape
        a[i, j] = i * 10 + j
    for i, j in qd.ndrange(*DIMS):  # unpacking a tuple of (begin, end)
        grid[i, j - 1] = 1
    for I in qd.grouped(qd.ndrange(*((0, 2),) * 2)):  # tuple repetition
        grid[I[0] + 2, I[1]] += 10
    for _ in range(1):
        t = (1, 2, 3)
        out[0] = add3(*t)  # 123
        out[1] = add3(7, *t[1:])  # 723
        v = qd.Vector([k * 2 for k in range(5)])  # [0 2 4 6 8]
        w = v[1:4]  # [2 4 6]
        out[2] = w[0] + w[1] * 10 + w[2] * 100  # 642
        out[3] = v[::-2].sum()  # 8 + 4 + 0
        m = qd.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        col = m[:, 1]  # [2 5 8]
        out[4] = col[0] * 100 + col[1] * 10 + col[2]  # 258
        sub = m[1:, :2]  # [[4 5] [7 8]]
        out[5] = sub[0, 0] * 1000 + sub[0, 1] * 100 + sub[1, 0] * 10 + sub[1, 1]  # 4578
        out[6] = qd.static(3 in t) * 10 + qd.static(4 not in t)  # 11
        out[8] = sum([x * y for x, y in qd.static(zip(t, WEIGHTS)) if x != 2])  # 3 + 21
        acc = 0
        for k, wt in qd.static(enumerate(WEIGHTS)):
            acc += k * wt  # 0 + 5 + 14
        out[9] = acc
        out[10] = square(9)  # 81
        out[11] = all(qd.floor(qd.Vector([1.5, 2.5, 3.5])) == [1, 2, 3]) * 10 + any(v == [9, 9, 9, 9, 9])  # 10
        out[12] = len(tuple(range(6))) + sum(list(t))  # 12
        out[13] = qd.math.ffs(0) * 1000 + qd.math.ffs(12) * 100 + qd.math.ffs(-2147483648) # 332
        out[14] = qd.bit_shr(-16, 28)  # 15: a logical shift
        out[15] = qd.math.isnan(nan) * 1000 + qd.math.isnan(inf) * 100 + qd.math.isinf(-inf) * 10 + qd.math.isinf(1.0)  # 1010
        s = qd.math.sign(qd.Vector([-2.5, 0.0, 4.0]))
        fo[0] = s[0] * 100 + s[1] * 10 + s[2]  # -99
        fo[1] = qd.zero(2.5) + qd.one(7.0) * 10  # 10
        d = qd.math.vdir(0.0)
        fo[2] = d[0] * 10 + d[1]  # 10
        s16 = qd.static(len([e for e in (1, 2, 3, 4) if e % 2 == 0])); out[16] = s16  # 2
        out[17] = qd.global_thread_idx() * 0 + 17
        g = 0
        for I in qd.static(qd.grouped(qd.ndrange((1, 3), 2))):
            g += I[0] * 10 + I[1]  # (1, 0) (1, 1) (2, 0) (2, 1)
        out[23] = g  # 62
        mf[1] = [[1, 2], [3, 4]]  # a list beside a matrix is that matrix
        q = qd.u32(0b10110)
        out[24] = qd.math.fns(q, 0, 1)  # bit 1
        out[25] = qd.math.fns(q, 0, 3)  # bits 1, 2, 4: the third
        out[26] = qd.math.fns(q, 3, -2)  # down from 3: bits 2, 1
        out[27] = qd.math.fns(q, 2, 0)  # bit 2 is set
        out[28] = qd.math.fns(q, 3, 0)  # bit 3 is not: 0xFFFFFFFF
        out[29] = qd.math.fns(q, 0, 4)  # only three set bits


@qd.func
def pick(a: qd.template()):
    if qd.static(a == 1):
        return 10  # a return under compile-time control flow ends the qd.func
    for i in qd.static(range(5)):
        if qd.static(i == a):
            return i * 100
    return -1


@qd.kernel
def early(a: qd.template()) -> qd.i32:
    out[7] = qd.static(a is not None) * 10 + qd.static(None is not a)  # 11: Quadrants' only is form
    out[18] = pick(1)
    out[19] = pick(3)
    out[20] = pick(7)
    s = 0
    for i in qd.static(range(10)):
        s += i * i
        if qd.static(i == a):
            return s
    return -5


@qd.kernel
def split(x: qd.f32, y: qd.f32) -> qd.f32:
    m, e = qd.frexp(x)
    md, ed = qd.frexp(y)
    z0, ez = qd.frexp(0.0)
    out[21] = e
    out[22] = ed + ez * 100
    return m * 10 + md + z0
