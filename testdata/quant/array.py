# quant_array (qdc-lang(7) "Quantized types"): every element of a word written by a different
# iteration, so each store is a CAS loop on the shared word.
import quadrants as qd

qu1 = qd.types.quant.int(1, False)
qi3 = qd.types.quant.int(3, True)
x = qd.field(dtype=qu1)
qd.root.quant_array(qd.i, 32, max_num_bits=32).place(x)
y = qd.field(dtype=qi3)
qd.root.dense(qd.i, 3).quant_array(qd.j, 10, max_num_bits=32).place(y)


@qd.kernel
def run(o: qd.types.ndarray(qd.i32, ndim=1)):
    for _ in range(1):  # the words from zero (a device run need not zero fields)
        for i in range(32):
            x[i] = 0
        for i, j in qd.ndrange(3, 10):
            y[i, j] = 0
    for i in range(32):
        x[i] = (i * 7 + i // 5) % 2
    for i, j in qd.ndrange(3, 10):
        y[i, j] = (i * 10 + j) % 8 - 4
    for i, j in qd.ndrange(3, 10):
        y[i, j] += 1
    for i in range(32):
        o[i] = x[i]
    for i, j in qd.ndrange(3, 10):
        o[32 + i * 10 + j] = y[i, j]
