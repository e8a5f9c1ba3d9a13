# A quant_array in a 64-bit word (Quadrants' test_quant_int_atomics_b64 form): 13-bit elements
# updated by `+=` from parallel iterations, each a CAS loop on the one u64 word.
import quadrants as qd

qi13 = qd.types.quant.int(13, True)
x = qd.field(dtype=qi13)
qd.root.quant_array(qd.i, 4, max_num_bits=64).place(x)


@qd.kernel
def run(o: qd.types.ndarray(qd.i32, ndim=1)):
    for _ in range(1):
        x[0] = 100
        x[1] = 200
        x[2] = -300
        x[3] = 4095
    for i in range(90):
        x[i % 3] += i
    for i in range(90):
        x[3] -= 1
    for _ in range(1):
        o[4] = qd.atomic_add(x[0], 5)
        o[5] = qd.atomic_min(x[1], -7)
    for i in range(4):
        o[i] = x[i]
