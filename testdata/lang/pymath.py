# pymath.py — Python's math module at compile time (import math) and qd.math's transform builders
# (issue 14). The host recomputes every value in C and compares. Host: pymath.c.
import math

import quadrants as qd

N = math.floor(9.7)  # 9: an int, usable as a shape
SCALE = math.sqrt(2.0) * math.pi
consts = qd.field(qd.f32, shape=N)
mats = qd.Matrix.field(4, 4, qd.f32, shape=5)
rot2 = qd.Matrix.field(2, 2, qd.f32, shape=())
angles = qd.field(qd.f32, shape=3)


@qd.kernel
def fill():
    consts[0] = SCALE
    consts[1] = math.tau + math.e
    consts[2] = math.ceil(2.1) + math.trunc(-2.7)  # 3 + -2
    consts[3] = math.atan2(1.0, 2.0) + math.hypot(3, 4)
    consts[4] = math.log(8.0, 2.0) + math.log10(1000.0)
    consts[5] = math.radians(180.0) - math.degrees(1.0)
    consts[6] = qd.cast(math.isinf(math.inf), qd.f32) + qd.cast(math.isnan(math.nan), qd.f32)
    consts[7] = math.fmod(7.5, 2.0) + math.copysign(3.0, -0.0)
    consts[8] = N
    a, b, c = angles[0], angles[1], angles[2]
    mats[0] = qd.math.translate(a, b, c)
    mats[1] = qd.math.scale(a, b, c)
    mats[2] = qd.math.rot_yaw_pitch_roll(a, b, c)
    mats[3] = qd.math.rotation3d(a, b, c)
    mats[4] = qd.math.rot_by_axis(qd.math.vec3(1.0, 2.0, 2.0), a)
    rot2[None] = qd.math.rotation2d(math.pi / 6)
