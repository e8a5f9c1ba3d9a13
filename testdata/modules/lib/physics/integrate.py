import quadrants as qd
import physics
from .consts import G
from . import units


@qd.func
def accel(v, dt):
    if qd.static(physics.dtype == qd.f32):
        return v + qd.cast(G // units.KM, qd.f32) * dt
    return v - 1.0


@qd.kernel
def zero(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    # a library kernel: an entry only because the program's host code calls it
    for i in range(a.shape[0]):
        a[i] = 0.0


@qd.kernel
def unused(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(a.shape[0]):
        a[i] = 1.0
