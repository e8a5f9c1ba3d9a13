# Quadrants compiles a kernel at its first call (each instantiation of a generic kernel at its
# own), and reads then the globals and closure cells of the kernel and of every qd.func (and
# lambda) it calls: a name rebound afterwards does not change a kernel already compiled.
import quadrants as qd

qd.init(arch=qd.cpu)

SCALE = 2
x = qd.field(qd.i32, shape=16)


@qd.func
def scaled(i):
    return i * SCALE


@qd.func
def twice(i):
    return scaled(i) + SCALE  # a qd.func calling a qd.func: both read the kernel's snapshot


shift = lambda i: i - SCALE  # noqa: E731


@qd.kernel
def k_mod():
    for i in range(8):
        x[i] = twice(i) + shift(i)  # (2i + 2) + (i - 2) = 3i, with SCALE = 2


@qd.kernel
def g(a: qd.template()):
    x[8 + a] = scaled(a)  # g(1): 1 * 2; g(2), compiled after SCALE = 5: 2 * 5


def test_closure():
    base = 3

    @qd.func
    def add_base(i):
        return i + base

    @qd.kernel
    def k_fn():
        for i in range(2):
            x[12 + i] = add_base(i)  # base as at k_fn's first call: 3

    k_fn()
    base = 50
    k_fn()


@qd.kernel
def k_late():
    x[14] = scaled(3)  # first called by pytest, after the module ran: SCALE = 5


def test_late():
    k_late()


k_mod()
g(1)
SCALE = 5
g(2)
k_mod()
