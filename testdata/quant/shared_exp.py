# Quantized floats sharing one exponent (qdc-lang(7) "Quantized types": place(...,
# shared_exponent=True)): the exponent is the largest of the members' f32 exponents, every store
# re-normalises the other members' digits; contended `op=` on members of one word.
import quadrants as qd

qa = qd.types.quant.float(exp=5, frac=10, signed=False)
qb = qd.types.quant.float(exp=5, frac=14, signed=False)
a = qd.field(dtype=qa)
b = qd.field(dtype=qb)
pair = qd.BitpackedFields(max_num_bits=32)
pair.place(a, b, shared_exponent=True)
qd.root.place(pair)

f15 = qd.types.quant.float(exp=5, frac=10)
f18 = qd.types.quant.float(exp=5, frac=13)
u4 = qd.types.quant.int(bits=4, signed=False)
p = qd.field(dtype=f15)
q = qd.field(dtype=f18)
r = qd.field(dtype=u4)
mixed = qd.BitpackedFields(max_num_bits=32)
mixed.place(p, q, shared_exponent=True)
mixed.place(r)
qd.root.dense(qd.i, 12).place(mixed)


@qd.kernel
def run(o: qd.types.ndarray(qd.f32, ndim=1)):
    for _ in range(1):  # from zero (a device run need not zero fields)
        a[None] = 0.0
        b[None] = 0.0
        a[None] = 3.2
        b[None] = 0.25
    for _ in range(1):
        o[0] = a[None]
        o[1] = b[None]
        a[None] = 100.0
        o[2] = a[None]
        o[3] = b[None]
        a[None] = 1000.0
        b[None] = 0.000001
        o[4] = a[None]
        o[5] = b[None]
        a[None] = 1e-30
        b[None] = 1e-30
        o[6] = a[None]
        o[7] = b[None]
        a[None] = 0.0
        b[None] = 0.0
    for i in range(60):
        if i % 3 == 0:
            a[None] += 4.0
        else:
            b[None] += 1.0
    for _ in range(1):
        o[8] = a[None]
        o[9] = b[None]
    for i in p:
        p[i] = 0.0
        q[i] = 0.0
        p[i] = i * 3 - 17
        q[i] = i * 2
        r[i] = i
    for i in p:
        o[10 + i] = p[i]
        o[22 + i] = q[i]
        o[34 + i] = r[i]
