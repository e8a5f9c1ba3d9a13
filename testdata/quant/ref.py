# qd.ref(T) parameters (Quadrants' pass by reference): the callee's assignments and updates
# change the caller's variable.
import quadrants as qd


@qd.real_func
def seven(a: qd.ref(qd.f32)):
    a = 7


@qd.real_func
def twice(a: qd.ref(qd.f32)):
    a += a


@qd.kernel
def run(o: qd.types.ndarray(qd.f32, ndim=1)):
    for _ in range(1):
        a = 5.0
        seven(a)
        o[0] = a
        b = 21.0
        twice(b)
        o[1] = b
    for i in range(4):
        c = i + 0.5
        twice(c)
        o[2 + i] = c
