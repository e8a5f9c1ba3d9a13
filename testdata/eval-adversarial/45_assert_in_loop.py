# expect: error 6:9 QD2180 assertion failed at compile time: i is 7
import quadrants as qd

def check(n):
    for i in range(n):
        assert i != 7, f"i is {i}"
    return n


x = check(50)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
