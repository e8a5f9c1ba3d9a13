# expect: error 3:33 QD2026 --eval-limit=calls=N
import quadrants as qd
fib = lambda n: n if n < 2 else fib(n - 1) + fib(n - 2)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = fib(40)
