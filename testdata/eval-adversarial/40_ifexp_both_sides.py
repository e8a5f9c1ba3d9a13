# expect: value 45
import quadrants as qd

def f(n):
    return 0 if n <= 0 else (f(n - 1) if n % 2 else f(n - 2)) + 1


x = f(90)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
