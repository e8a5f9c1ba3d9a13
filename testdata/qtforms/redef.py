# A def binds its name again, as in Python: the later kernel (or qd.func) wins from then on, and
# each kernel keeps its own entry (fill, fill__def2, fill__def3; qdc-abi(7) NAMES). A kernel
# defined in a module-level loop is compiled with the names of the iteration that first calls it.
import quadrants as qd

out = qd.field(qd.i32, shape=4)
got = qd.field(qd.i32, shape=())

for scale in [2, 3]:

    @qd.kernel
    def fill(k: qd.i32):
        for i in range(4):
            out[i] += i * scale + k

    fill(1)


@qd.kernel
def fill(k: qd.i32):
    for i in range(4):
        out[i] += 100 * k


@qd.func
def g() -> qd.i32:
    return 1


@qd.func
def g() -> qd.i32:
    return 2


@qd.kernel
def use_g():
    got[None] = g() * 10 + g()


fill(1)
use_g()
