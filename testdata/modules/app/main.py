# A program of several modules: qdc -I ../lib -D physics.dtype=qd.f32 -D N=5 main.py
import quadrants as qd
import numpy as np  # not on the search path: the script's own
import shapes
from physics import integrate
from physics.consts import G as gravity
import physics.units as u
import physics

N = 3  # -D N=5 overrides it


@qd.kernel
def step(v: qd.types.ndarray(dtype=qd.f32, ndim=1), p: qd.types.ndarray(dtype=qd.i32, ndim=1)):
    for i in range(v.shape[0]):
        v[i] = integrate.accel(v[i], 0.5)
        p[i] = shapes.perimeter(i) + gravity + u.KM + physics.SCALE * N


def setup():
    a = qd.ndarray(qd.f32, (8,))
    integrate.zero(a)
