# perfdispatch.py — @qd.perf_dispatch (issue 14): the host picks one of the registered
# implementations at run time; qdc compiles each as its own entry, and a host call of the
# dispatcher is a call site of every one (the generic implementation is instantiated by it).
# Host: perfdispatch.c runs both and checks they agree.
import quadrants as qd


@qd.perf_dispatch(get_geometry_hash=lambda *args, **kwargs: hash(args[0].shape), warmup=1, active=1)
def double(a: qd.types.NDArray[qd.f32, 1], b: qd.types.NDArray[qd.f32, 1]): ...


@double.register
@qd.kernel
def double_mul(a: qd.types.NDArray[qd.f32, 1], b: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(a.shape[0]):
        b[i] = a[i] * 2


@double.register(is_compatible=lambda *args, **kwargs: True)
@qd.kernel
def double_add(a: qd.types.ndarray(), b: qd.types.ndarray()) -> None:
    for i in range(a.shape[0]):
        b[i] = a[i] + a[i]


x = qd.ndarray(qd.f32, shape=(64,))
y = qd.ndarray(qd.f32, shape=(64,))
double(x, y)
