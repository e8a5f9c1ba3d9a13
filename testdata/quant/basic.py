# Quantized types in bit-packed words (qdc-lang(7) "Quantized types"): stores, reads and
# contended `op=` on members that share one word.
import quadrants as qd

qi13 = qd.types.quant.int(13, True)
qu19 = qd.types.quant.int(19, False)
x = qd.field(dtype=qi13)
y = qd.field(dtype=qu19)
pair = qd.BitpackedFields(max_num_bits=32)
pair.place(x, y)
qd.root.dense(qd.i, 12).place(pair)

qfx = qd.types.quant.fixed(bits=10, max_value=2.0)
qi5 = qd.types.quant.int(5, True)
qu2 = qd.types.quant.int(2, False)
a = qd.field(dtype=qfx)
b = qd.field(dtype=qi5)
c = qd.field(dtype=qu2)
trio = qd.BitpackedFields(max_num_bits=32)
trio.place(a, b, c)
qd.root.place(trio)

qf = qd.types.quant.float(exp=5, frac=10)
f = qd.field(dtype=qf)
g = qd.field(dtype=qd.types.quant.float(exp=5, frac=10, signed=False))
floats = qd.BitpackedFields(max_num_bits=32)
floats.place(f, g)
qd.root.dense(qd.i, 4).place(floats)


@qd.kernel
def run(o: qd.types.ndarray(qd.i32, ndim=1), of: qd.types.ndarray(qd.f32, ndim=1)):
    for i in range(12):
        x[i] = -(2**i)
        y[i] = 2**i - 1
    for _ in range(1):  # the word's members from zero (a device run need not zero fields)
        a[None] = 0.0
        b[None] = 0
        c[None] = 0
    for i in range(45):
        if i % 3 == 0:
            a[None] += 0.03125
        elif i % 3 == 1:
            b[None] -= 1
        elif i < 9:
            c[None] += 1
    for i in range(4):
        v = 1.5
        if i == 1:
            v = -1.0 / 3.0
        elif i == 2:
            v = 100000.0
        elif i == 3:
            v = 0.000001
        f[i] = v
        g[i] = -v
        if i == 1:
            g[i] = 3.14159265
    for i in range(12):
        o[i] = x[i]
        o[12 + i] = y[i]
    for i in range(1):
        o[24] = b[None]
        o[25] = c[None]
        of[0] = a[None]
    for i in range(4):
        of[1 + i] = f[i]
        of[5 + i] = g[i]
