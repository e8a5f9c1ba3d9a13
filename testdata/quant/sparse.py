# A quant_array under a pointer node: a store activates the word's cell, and a struct-for over
# the member visits the elements of active cells only.
import quadrants as qd

qu1 = qd.types.quant.int(1, False)
x = qd.field(dtype=qu1)
qd.root.pointer(qd.i, 4).quant_array(qd.i, 8, max_num_bits=32).place(x)
c = qd.field(qd.i32, shape=())


@qd.kernel
def run():
    for _ in range(1):
        x[17] = 1
        x[19] = 1
    for i in x:
        c[None] += 1 + qd.i32(x[i]) * 100 + i * 1000
