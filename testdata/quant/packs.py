# Quantized fields from Quadrants' tests (issue 30): a qd.BitpackedFields of 8 bits whose ints
# compute in i8 (test_bitpacked_fields.py), and a qd.Matrix.field of a quantized fixed type whose
# components are placed one by one with get_scalar_field (test_quant_fixed.py's rotation).
import math

import quadrants as qd

qi3 = qd.types.quant.int(3, True, qd.i8)
qu3 = qd.types.quant.int(3, False, qd.i8)
qi2 = qd.types.quant.int(2, True, qd.i8)
a = qd.field(dtype=qi3)
b = qd.field(dtype=qu3)
c = qd.field(dtype=qi2)
p8 = qd.BitpackedFields(max_num_bits=8)
p8.place(a, b, c)
qd.root.place(p8)

qfx = qd.types.quant.fixed(bits=16, max_value=1.2)
x = qd.Matrix.field(2, 2, dtype=qfx)
row0 = qd.BitpackedFields(max_num_bits=32)
row0.place(x.get_scalar_field(0, 0), x.get_scalar_field(0, 1))
qd.root.place(row0)
row1 = qd.BitpackedFields(max_num_bits=32)
row1.place(x.get_scalar_field(1, 0), x.get_scalar_field(1, 1))
qd.root.place(row1)

out = qd.field(qd.i32, shape=8)


@qd.kernel
def init():
    a[None] = 3
    b[None] = 7
    c[None] = -2
    x[None] = [[1.0, 0.0], [0.0, 1.0]]


@qd.kernel
def rotate():
    angle = math.pi / 10
    x[None] = x[None] @ qd.Matrix([[qd.cos(angle), qd.sin(angle)], [-qd.sin(angle), qd.cos(angle)]])


@qd.kernel
def dump():
    out[0] = a[None]
    out[1] = b[None]
    out[2] = c[None]
    for i, j in qd.static(qd.ndrange(2, 2)):
        out[3 + i * 2 + j] = qd.i32(qd.round(x[None][i, j] * 1000))


init()
for _ in range(5):
    rotate()
dump()
